#!/usr/bin/env python3
"""Reference CDK app: the telemetry ingest edge-to-origin path, checked by cdk-nag and edge-origin.

Context (cdk.json, ``edge-origin:*``) sets zone, origin name, NLB count and ports; the defaults
synthesize with no AWS account, credentials or lookups.
"""

from stacks.app_builder import build_reference_app

app, _ = build_reference_app(vpc_origin=True)  # both topologies: TelemetryIngest, TelemetryIngestVpcOrigin
app.synth()
