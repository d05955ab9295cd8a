"""The diff text never nests a status in itself ("replaced (replaced (Name ...))"): a record whose
name changes on the same resource reads "replaced (Name a -> b)" once; every fixture pair too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.model import TemplateModel
from edge_origin.review.diff import diff_models, diff_paths, format_text

PAIRS = sorted(p for p in (Path(__file__).parents[1] / "fixtures" / "diff").iterdir() if (p / "base").is_dir())
NESTED = re.compile(r"(replaced|may replace|updated) \((replaced|may replace|updated) \(")
LABEL = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12)


def _template(name: str) -> dict:
    dist = {"Type": "AWS::CloudFront::Distribution", "Properties": {"DistributionConfig": {
        "Enabled": True, "HttpVersion": "http2",
        "Origins": [{"Id": "o", "DomainName": name, "CustomOriginConfig": {"OriginProtocolPolicy": "https-only"}}],
        "DefaultCacheBehavior": {"TargetOriginId": "o", "ViewerProtocolPolicy": "https-only", "GrpcConfig": {"Enabled": True},
                                 "AllowedMethods": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"],
                                 "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"}}}}
    check = {"Type": "AWS::Route53::HealthCheck",
             "Properties": {"HealthCheckConfig": {"Type": "TCP", "IPAddress": "192.0.2.1", "Port": 443}}}
    record = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": name + ".", "Type": "A", "TTL": "60", "ResourceRecords": ["192.0.2.1"],
        "SetIdentifier": "z0", "MultiValueAnswer": True, "HealthCheckId": {"Ref": "Check0"}}}
    return {"Resources": {"Dist": dist, "Check0": check, "Rec0": record}}


@settings(database=None, max_examples=25, deadline=None)
@given(old=LABEL, new=LABEL)
def test_renamed_record_says_replaced_once(old: str, new: str) -> None:
    if old == new:
        return
    base = TemplateModel.from_templates({"Edge": _template(f"{old}.example.com")})
    head = TemplateModel.from_templates({"Edge": _template(f"{new}.example.com")})
    text = format_text(diff_models(base, head))
    assert not NESTED.search(text), text
    assert f"replaced (Name {old}.example.com. -> {new}.example.com.)" in text


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_fixture_pairs_do_not_nest(pair: Path) -> None:
    text = format_text(diff_paths(sorted((pair / "base").glob("*.json")), sorted((pair / "head").glob("*.json"))))
    assert not NESTED.search(text), text
