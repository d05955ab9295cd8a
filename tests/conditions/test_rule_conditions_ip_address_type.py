"""Origin IpAddressType decides which record types of the origin name the DNS rules judge (issue 34):
``dualstack``/``ipv6`` make CloudFront ask AAAA too, judged exactly as A; with ``ipv4`` (or unset) an
AAAA set of the name never reaches CloudFront."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import findings, origin, quiet, world

from edge_origin.core.findings import Severity


def _aaaa_weighted(body: dict[str, Any]) -> dict[str, Any]:
    for set_id, address in (("x", "2001:db8::1"), ("y", "2001:db8::2")):
        body["Resources"][f"Six{set_id}"] = {
            "Type": "AWS::Route53::RecordSet",
            "Properties": {
                "HostedZoneName": "example.com.", "Name": "o.example.com", "Type": "AAAA", "TTL": 60,
                "SetIdentifier": set_id, "Weight": 1, "ResourceRecords": [address],
            },
        }
    return body


@pytest.mark.parametrize("ip_type", [None, "ipv4"])
def test_weighted_aaaa_of_an_ipv4_origin_does_not_reach_cloudfront(ip_type: str | None) -> None:
    body = _aaaa_weighted(world())
    if ip_type is not None:
        origin(body)["CustomOriginConfig"]["IpAddressType"] = ip_type
    quiet(body, "EO-DNS1")


@pytest.mark.parametrize("ip_type", ["dualstack", "ipv6", "DualStack"])
def test_weighted_aaaa_of_a_dualstack_origin_is_judged_as_a(ip_type: str) -> None:
    body = _aaaa_weighted(world())
    origin(body)["CustomOriginConfig"]["IpAddressType"] = ip_type
    found = findings(body, "EO-DNS1")
    assert {(f.resource, f.severity) for f in found} == {("Sixx", Severity.ERROR), ("Sixy", Severity.ERROR)}


def test_deploy_time_ip_address_type_judges_aaaa_fail_closed() -> None:
    body = _aaaa_weighted(world())
    body.setdefault("Parameters", {})["IpType"] = {"Type": "String"}
    origin(body)["CustomOriginConfig"]["IpAddressType"] = {"Ref": "IpType"}
    assert {f.resource for f in findings(body, "EO-DNS1")} == {"Sixx", "Sixy"}


def test_unhealthchecked_multivalue_aaaa_of_a_dualstack_origin_is_judged_by_dns2() -> None:
    body = world()
    origin(body)["CustomOriginConfig"]["IpAddressType"] = "dualstack"
    for set_id, address in (("x", "2001:db8::1"), ("y", "2001:db8::2")):
        body["Resources"][f"Six{set_id}"] = {
            "Type": "AWS::Route53::RecordSet",
            "Properties": {
                "HostedZoneName": "example.com.", "Name": "o.example.com", "Type": "AAAA", "TTL": 60,
                "SetIdentifier": f"six-{set_id}", "MultiValueAnswer": True, "ResourceRecords": [address],
            },
        }
    assert {f.resource for f in findings(body, "EO-DNS2")} == {"Sixx", "Sixy"}
    del origin(body)["CustomOriginConfig"]["IpAddressType"]
    quiet(body, "EO-DNS2")
