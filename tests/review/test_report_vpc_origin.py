"""Issue 31: `report` draws the VPC-origin topology (markdown and text), and still the public one."""

from __future__ import annotations

from pathlib import Path

from edge_origin.model import load_model
from edge_origin.review.report import render_report

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"


def test_markdown_draws_cloudfront_vpc_origin_nlb_targets() -> None:
    out = render_report(load_model([SNAPSHOTS / "TelemetryIngestVpcOrigin.template.json"]))
    assert "No gRPC or long-lived CloudFront origins found" not in out
    assert "```mermaid" in out and "VPC origin IngestEdgeDistributionOrigin1VpcOrigin" in out
    assert "keepalive 30 s, read 60 s" in out and "internal, cross-zone on, DNS any_availability_zone (default)" in out
    assert "TCP :443 idle 350 s" in out and "No findings." in out


def test_text_plan_lists_the_vpc_origin_path() -> None:
    out = render_report(load_model([SNAPSHOTS / "TelemetryIngestVpcOrigin.template.json"]), "text")
    assert "vpc origin " in out and "nlb TelemetryIngestVpcOrigin/" in out and "TCP:443 idle 350 s" in out


def test_both_topologies_in_one_report() -> None:
    out = render_report(load_model([SNAPSHOTS / "TelemetryIngest.template.json", SNAPSHOTS / "TelemetryIngestVpcOrigin.template.json"]))
    assert "### origin.telemetry.example.com (grpc)" in out and "VPC origin Ingest" in out
