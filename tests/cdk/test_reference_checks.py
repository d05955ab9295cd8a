"""The reference app under its own rule pack: clean as built, and a weighted record fails synth."""

from __future__ import annotations

import json

import aws_cdk as cdk
import pytest
from aws_cdk import aws_route53 as route53

from stacks.app_builder import build_reference_app, cdk_json_context


def _add_weighted_record(stack: cdk.Stack) -> None:
    zone = route53.HostedZone.from_hosted_zone_attributes(
        stack, "HandWrittenZone", hosted_zone_id="Z0123456789EXAMPLE", zone_name="example.com"
    )
    route53.ARecord(
        stack,
        "HandWrittenWeighted",
        zone=zone,
        record_name="origin.telemetry.example.com.",
        target=route53.RecordTarget.from_ip_addresses("198.51.100.7"),
        weight=100,
        set_identifier="hand-written",
    )


def test_reference_app_synthesizes_clean_under_edge_origin_and_aws_solutions(tmp_path) -> None:
    app, _ = build_reference_app(cdk_json_context(), outdir=str(tmp_path))
    app.synth()  # raises ValidationFailed on any error of either pack
    report = json.loads((tmp_path / "validation-report.json").read_text())
    conclusions = {p["pluginName"]: p["conclusion"] for p in report["pluginReports"]}
    assert conclusions.get("AwsSolutions") == "success"
    assert conclusions.get("EdgeOrigin", "success") == "success"  # CDK lists a plugin only when it has entries


def test_weighted_record_for_the_reference_origin_fails_synth(tmp_path) -> None:
    app, stack = build_reference_app(cdk_json_context(), outdir=str(tmp_path))
    _add_weighted_record(stack)
    with pytest.raises(RuntimeError) as info:
        app.synth()
    assert "EO-DNS1" in str(info.value)
