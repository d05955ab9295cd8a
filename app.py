#!/usr/bin/env python3
"""Reference CDK app: the telemetry ingest edge-to-origin path, checked by cdk-nag and edge-origin."""

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from stacks.acknowledgements import acknowledge_reference_findings
from stacks.reference import ReferenceConfig, TelemetryIngestStack

app = cdk.App()
config = ReferenceConfig.from_context(app.node)
stack = TelemetryIngestStack(
    app,
    "TelemetryIngest",
    config=config,
    env=cdk.Environment(account=config.account, region=config.region),
    description="edge-origin reference: gRPC telemetry ingest, CloudFront -> multivalue Route 53 -> NLB -> EKS",
)
acknowledge_reference_findings(stack)
cdk.Validations.of(app).add_plugins(AwsSolutionsChecks())
app.synth()
