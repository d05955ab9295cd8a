"""Shared fixtures. Unit tests synthesize with CloudFormation validation off (about 2 s a synth);
tests that need it on say so, and so does the real CDK CLI test."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("CDK_VALIDATION", "false")
os.environ.setdefault("CDK_DISABLE_CLI_TELEMETRY", "true")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def missing_tool(reason: str) -> None:
    """One rule for a tool the suite needs and does not find: under CI (CI=true) it is a failure, since
    CI must run every test; elsewhere a skip that says what is missing and how to get it."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: a missing tool fails the run)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def cdk_cli() -> Path:
    """The project's pinned CDK CLI (node_modules/.bin/cdk, from `npm ci`); see missing_tool."""
    for cli in (ROOT / "node_modules" / ".bin" / "cdk", shutil.which("cdk")):
        if cli and Path(cli).exists():
            return Path(cli)
    missing_tool(f"CDK CLI not installed: {ROOT / 'node_modules' / '.bin' / 'cdk'} missing (run `npm ci`; make setup does)")
    raise AssertionError("unreachable")


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
