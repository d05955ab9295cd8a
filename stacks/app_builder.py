"""Builds the reference app: used by app.py, by the tests and by the benchmark."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from edge_origin import EdgeOriginChecks
from stacks.acknowledgements import acknowledge_reference_findings
from stacks.reference import ReferenceConfig, TelemetryIngestStack

STACK_NAME = "TelemetryIngest"
VPC_ORIGIN_STACK_NAME = "TelemetryIngestVpcOrigin"


def build_reference_app(
    context: dict[str, Any] | None = None, *, outdir: str | None = None, checks: bool = True, vpc_origin: bool = False
) -> tuple[cdk.App, TelemetryIngestStack]:
    """The reference app with its stack; ``checks`` adds cdk-nag's AwsSolutions pack and edge-origin's rules;
    ``vpc_origin`` adds the second topology as stack ``TelemetryIngestVpcOrigin`` (app.py does)."""
    # stack_traces=False: in a Python app each annotation's JavaScript trace points into the jsii
    # kernel, and the CDK CLI prints its first frame (`../tmpXXXX/lib/program.js:1:5591`) above every
    # warning: noise. (The cdk.json context key aws:cdk:disable-stack-trace does the same, with a
    # "reserved context key" warning from the CLI.)
    app = cdk.App(context=context, outdir=outdir, stack_traces=False)
    config = ReferenceConfig.from_context(app.node)
    stack = TelemetryIngestStack(
        app,
        STACK_NAME,
        config=config,
        env=cdk.Environment(account=config.account, region=config.region),
        description="edge-origin reference: gRPC telemetry ingest, CloudFront -> multivalue Route 53 -> NLB -> EKS",
    )
    stacks = [stack]
    if vpc_origin:
        stacks.append(build_vpc_origin_stack(app, config))
    if checks:
        for each in stacks:
            acknowledge_reference_findings(each)
        cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(), EdgeOriginChecks())
    return app, stack


def build_vpc_origin_stack(app: cdk.App, config: ReferenceConfig) -> TelemetryIngestStack:
    """The same service on the second topology: CloudFront -> VPC origin -> internal NLB -> EKS."""
    return TelemetryIngestStack(
        app,
        VPC_ORIGIN_STACK_NAME,
        config=config,
        origin_access="vpc-origin",
        env=cdk.Environment(account=config.account, region=config.region),
        description="edge-origin reference: gRPC telemetry ingest, CloudFront -> VPC origin -> internal NLB -> EKS",
    )


def cdk_json_context(path: str = "cdk.json") -> dict[str, Any]:
    """The ``context`` block of cdk.json, as the CDK CLI would pass it."""
    import json
    from pathlib import Path

    file = Path(path)
    if not file.is_absolute():
        file = Path(__file__).resolve().parents[1] / path
    return dict(json.loads(file.read_text(encoding="utf-8")).get("context", {}))
