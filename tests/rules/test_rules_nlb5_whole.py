"""EO-NLB5's findings whole (message, fix, resource, path) for each thing it cannot read and each side of the
per-zone range (mutation testing, issue 38)."""

from __future__ import annotations

from typing import Any

import pytest
from test_rules_nlb5 import _body, _props

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.rules import get_rule, run_rules

RANGE_TEXT = ("ELB spreads a reservation evenly over the zones; aws-cdk-lib documents and enforces 2750..45000 a zone "
              "(its NetworkLoadBalancer and OriginFleet(capacity_units=) refuse this value); the ELB guide and the API "
              "model state no range, so whether a raw template deploys is not known")


def _whole(body: dict[str, Any]) -> list[tuple[Any, ...]]:
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB5")])
    return [(f.severity, f.resource, f.path, f.template, f.stack, f.message, f.fix) for f in found]


def test_a_deploy_time_listener_protocol_is_not_judged():
    body = _body()
    body["Parameters"] = {"Proto": {"Type": "String"}}
    _props(body, "Listener")["Protocol"] = {"Ref": "Proto"}
    assert _whole(body) == [(Severity.WARNING, "Nlb", "", "S.template.json", "S",
                             "not judged: NLB Nlb reserves 6000 capacity units: listener Listener's Protocol: \"<Ref Proto>\" "
                             "(decided at deploy time)",
                             "To let edge-origin judge it: a literal Protocol (a TLS listener cannot sit on an NLB with "
                             "MinimumLoadBalancerCapacity)")]


def test_deploy_time_capacity_units_are_not_judged():
    body = _body()
    body["Parameters"] = {"Units": {"Type": "Number"}}
    _props(body, "Nlb")["MinimumLoadBalancerCapacity"] = {"CapacityUnits": {"Ref": "Units"}}
    assert _whole(body) == [(Severity.WARNING, "Nlb", "", "S.template.json", "S",
                             'not judged: NLB Nlb MinimumLoadBalancerCapacity: {"CapacityUnits": "<Ref Units>"} (its '
                             "CapacityUnits are decided at deploy time)",
                             "To let edge-origin judge it: a literal whole number of CapacityUnits")]


@pytest.mark.parametrize("key", ["Subnets", "SubnetMappings"])
def test_a_deploy_time_subnet_list_is_not_judged(key):
    body = _body()
    body["Parameters"] = {"Nets": {"Type": "List<AWS::EC2::Subnet::Id>"}}
    del _props(body, "Nlb")["Subnets"]
    _props(body, "Nlb")[key] = {"Ref": "Nets"}
    assert _whole(body) == [(Severity.WARNING, "Nlb", "", "S.template.json", "S",
                             "not judged: NLB Nlb reserves 6000 capacity units: its zones (each zone's share): \"<Ref Nets>\" "
                             "(the subnet list is decided at deploy time)",
                             "To let edge-origin judge it: a literal list of SubnetMappings or Subnets")]


@pytest.mark.parametrize(("units", "zones", "fires"), [
    (5500, 2, False), (5499, 2, True), (90000, 2, False), (90002, 2, True), (600, 3, True), (8250, 3, False),
])
def test_each_side_of_the_per_zone_range(units, zones, fires):
    body = _body()
    nlb = _props(body, "Nlb")
    del nlb["Subnets"]
    nlb["SubnetMappings"] = [{"SubnetId": f"subnet-{n}"} for n in range(zones)]
    nlb["MinimumLoadBalancerCapacity"] = {"CapacityUnits": units}
    found = _whole(body)
    if not fires:
        assert found == []
        return
    share = f"{units / zones:g}"
    low, high = 2750 * zones, 45000 * zones
    assert found == [(Severity.WARNING, "Nlb", "", "S.template.json", "S",
                      f"NLB Nlb reserves {units} capacity units over {zones} zone(s): {share} a zone, outside 2750..45000. "
                      + RANGE_TEXT,
                      f"Reserve {low}..{high} capacity units on this NLB ({zones} zones, 2750..45000 a zone), preferably a "
                      f"multiple of {zones} so each zone's share is whole.")]
