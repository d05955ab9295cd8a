"""EO-NLB5's whole findings (rule id, severity, resource, path, the exact message and fix) for each condition
the rule reads, on both sides of each boundary: a zone's share at the range's ends, zones from SubnetMappings
or Subnets, and each "not judged" (reservation, listener Protocol, subnet list decided at deploy time)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.rules import get_rule, run_rules
from edge_origin.rules.nlb5_capacity_reservation import TLS_FIX

QUIET = Path(__file__).parents[1] / "fixtures" / "templates" / "rules" / "eo-nlb5-quiet.yaml"
SOURCE = "https://docs.aws.amazon.com/elasticloadbalancing/latest/network/request-capacity-unit-reservation.html"
RANGE_TAIL = (
    "outside 2750..45000. ELB spreads a reservation evenly over the zones; aws-cdk-lib documents and enforces "
    "2750..45000 a zone (its NetworkLoadBalancer and OriginFleet(capacity_units=) refuse this value); the ELB guide "
    "and the API model state no range, so whether a raw template deploys is not known"
)


def _body() -> dict[str, Any]:
    body = copy.deepcopy(read_template_file(QUIET).body)
    for name in ("Nlb", "Listener"):  # a CDK path, so each finding's path is asserted too
        body["Resources"][name]["Metadata"] = {"aws:cdk:path": f"S/{name}/Resource"}
    return body


def _props(body: dict[str, Any], name: str) -> dict[str, Any]:
    return body["Resources"][name]["Properties"]


def _nlb5(body: dict[str, Any]) -> list[tuple[Finding, str]]:
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB5")])
    return [(f, f.path) for f in found]


def _expected(severity: Severity, resource: str, message: str, fix: str) -> tuple[Finding, str]:
    finding = Finding(rule="EO-NLB5", severity=severity, message=message, fix=fix, template="S.template.json", stack="S",
                      resource=resource)
    return finding, f"S/{resource}/Resource"


def _with(units: int, zones: int, key: str = "Subnets") -> dict[str, Any]:
    body = _body()
    nlb = _props(body, "Nlb")
    nlb["MinimumLoadBalancerCapacity"] = {"CapacityUnits": units}
    del nlb["Subnets"]
    nlb[key] = [f"subnet-{i}" for i in range(zones)] if key == "Subnets" else [
        {"SubnetId": f"subnet-{i}"} for i in range(zones)]
    return body


def _range_finding(units: int, zones: int, share: str) -> tuple[Finding, str]:
    return _expected(
        Severity.WARNING, "Nlb",
        f"NLB Nlb reserves {units} capacity units over {zones} zone(s): {share} a zone, {RANGE_TAIL}",
        f"Reserve {2750 * zones}..{45000 * zones} capacity units on this NLB ({zones} zones, 2750..45000 a zone), "
        f"preferably a multiple of {zones} so each zone's share is whole.",
    )


@pytest.mark.parametrize("key", ["Subnets", "SubnetMappings"])
@pytest.mark.parametrize(("units", "zones"), [(2750 * 3, 3), (45000 * 3, 3), (2750, 1), (45000, 1)])
def test_a_share_at_either_end_of_the_range_is_quiet(units: int, zones: int, key: str) -> None:
    assert _nlb5(_with(units, zones, key)) == []


@pytest.mark.parametrize("key", ["Subnets", "SubnetMappings"])
@pytest.mark.parametrize(("units", "zones", "share"), [
    (2750 * 3 - 1, 3, "2749.67"), (45000 * 3 + 1, 3, "45000.3"), (2749, 1, "2749"), (45001, 1, "45001"),
])
def test_a_share_just_outside_the_range_warns_whole(units: int, zones: int, share: str, key: str) -> None:
    assert _nlb5(_with(units, zones, key)) == [_range_finding(units, zones, share)]


def test_a_zero_reservation_is_a_zero_share() -> None:
    assert _nlb5(_with(0, 1)) == [_range_finding(0, 1, "0")]


def test_a_tls_listener_beside_a_reservation_is_the_whole_error() -> None:
    body = _body()
    _props(body, "Listener")["Protocol"] = "TLS"
    assert _nlb5(body) == [_expected(
        Severity.ERROR, "Listener",
        "NLB Nlb reserves 6000 capacity units (MinimumLoadBalancerCapacity) and has TLS listener Listener (:443): "
        f"capacity reservations are not supported on NLBs using TLS listeners (ELB guide, {SOURCE})",
        TLS_FIX,
    )]


def test_a_listener_protocol_decided_at_deploy_time_is_not_judged_whole() -> None:
    body = _body()
    body["Parameters"] = {"Proto": {"Type": "String"}}
    _props(body, "Listener")["Protocol"] = {"Ref": "Proto"}
    assert _nlb5(body) == [_expected(
        Severity.WARNING, "Nlb",
        'not judged: NLB Nlb reserves 6000 capacity units: listener Listener\'s Protocol: "<Ref Proto>" '
        "(decided at deploy time)",
        "To let edge-origin judge it: a literal Protocol (a TLS listener cannot sit on an NLB with "
        "MinimumLoadBalancerCapacity)",
    )]


def test_a_reservation_decided_at_deploy_time_is_not_judged_whole() -> None:
    body = _body()
    body["Parameters"] = {"Units": {"Type": "Number"}}
    _props(body, "Nlb")["MinimumLoadBalancerCapacity"] = {"CapacityUnits": {"Ref": "Units"}}
    assert _nlb5(body) == [_expected(
        Severity.WARNING, "Nlb",
        'not judged: NLB Nlb MinimumLoadBalancerCapacity: {"CapacityUnits": "<Ref Units>"} '
        "(its CapacityUnits are decided at deploy time)",
        "To let edge-origin judge it: a literal whole number of CapacityUnits",
    )]


@pytest.mark.parametrize("key", ["Subnets", "SubnetMappings"])
def test_a_subnet_list_decided_at_deploy_time_is_not_judged_whole(key: str) -> None:
    body = _body()
    body["Parameters"] = {"Nets": {"Type": "List<AWS::EC2::Subnet::Id>"}}
    nlb = _props(body, "Nlb")
    del nlb["Subnets"]
    nlb[key] = {"Ref": "Nets"}
    assert _nlb5(body) == [_expected(
        Severity.WARNING, "Nlb",
        'not judged: NLB Nlb reserves 6000 capacity units: its zones (each zone\'s share): "<Ref Nets>" '
        "(the subnet list is decided at deploy time)",
        "To let edge-origin judge it: a literal list of SubnetMappings or Subnets",
    )]


@pytest.mark.parametrize(("units", "zones", "share"), [
    (5500, 2, None), (5499, 2, "2749.5"), (90000, 2, None), (90002, 2, "45001"), (600, 3, "200"), (8250, 3, None),
])
def test_each_side_of_the_range_with_two_and_three_zones(units: int, zones: int, share: str | None) -> None:
    expected = [] if share is None else [_range_finding(units, zones, share)]
    assert _nlb5(_with(units, zones, "SubnetMappings")) == expected
