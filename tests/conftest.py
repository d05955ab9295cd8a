"""Shared fixtures. Unit tests synthesize with CloudFormation validation off (about 2 s a synth);
tests that need it on say so, and so does the real CDK CLI test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("CDK_VALIDATION", "false")
os.environ.setdefault("CDK_DISABLE_CLI_TELEMETRY", "true")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def reference_app(tmp_path_factory: pytest.TempPathFactory):
    """The reference app synthesized once (cdk.json context, no cdk-nag): (stack, template, assembly dir)."""
    from stacks.app_builder import build_reference_app, cdk_json_context

    outdir = tmp_path_factory.mktemp("reference-cdk-out")
    app, stack = build_reference_app(cdk_json_context(), outdir=str(outdir), checks=False)
    assembly = app.synth()
    template = assembly.get_stack_by_name(stack.stack_name).template
    return stack, template, Path(assembly.directory)


@pytest.fixture(scope="session")
def reference_template(reference_app) -> dict:
    return reference_app[1]


# Hypothesis: `pytest --hypothesis-profile=deep` (CI) runs the generated-input tests with many more
# examples; the default keeps the suite fast (tests/hardening_support.examples).
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("deep", max_examples=3000, deadline=None)
