"""EO-NLB5: an NLB capacity reservation with a TLS listener, or a zone's share outside the range the
construct's validator enforces (the same constants), and what it cannot read said as not judged."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.model.nlb_capacity import CAPACITY_UNITS_PER_ZONE_RANGE
from edge_origin.rules import get_rule, run_rules

RULES_DIR = Path(__file__).parents[1] / "fixtures" / "templates" / "rules"
LOW, HIGH = CAPACITY_UNITS_PER_ZONE_RANGE


def _body(name: str = "eo-nlb5-quiet.yaml") -> dict[str, Any]:
    return copy.deepcopy(read_template_file(RULES_DIR / name).body)


def _nlb5(body: dict[str, Any]) -> list[tuple[Severity, str, str]]:
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB5")])
    return [(f.severity, f.resource, f.message) for f in found]


def _props(body: dict[str, Any], name: str) -> dict[str, Any]:
    return body["Resources"][name]["Properties"]


def test_fire_tls_listener_beside_a_reservation_is_an_error_at_the_listener() -> None:
    body = _body()
    _props(body, "Listener")["Protocol"] = "TLS"
    [(severity, resource, message)] = _nlb5(body)
    assert (severity, resource) == (Severity.ERROR, "Listener")
    assert "NLB Nlb reserves 6000 capacity units" in message
    assert "not supported on NLBs using TLS listeners" in message
    assert "request-capacity-unit-reservation.html" in message


def test_quiet_tls_listener_without_a_reservation_and_tcp_with_one() -> None:
    assert _nlb5(_body()) == []


def test_the_construct_and_the_rule_share_the_range() -> None:
    from edge_origin.cdk import origin_fleet

    assert origin_fleet.CAPACITY_UNITS_PER_ZONE_RANGE is CAPACITY_UNITS_PER_ZONE_RANGE


@settings(max_examples=150, database=None, deadline=None)
@given(st.integers(1, 200_000), st.integers(1, 6))
def test_a_zone_share_outside_the_range_warns_and_inside_is_quiet(units: int, zones: int) -> None:
    body = _body()
    _props(body, "Nlb")["MinimumLoadBalancerCapacity"] = {"CapacityUnits": units}
    _props(body, "Nlb")["Subnets"] = [f"subnet-{i}" for i in range(zones)]
    found = _nlb5(body)
    if LOW <= units / zones <= HIGH:
        assert found == []
    else:
        [(severity, resource, message)] = found
        assert (severity, resource) == (Severity.WARNING, "Nlb")
        assert f"reserves {units} capacity units over {zones} zone(s): {units / zones:g} a zone, outside {LOW}..{HIGH}" in message
        assert "whether a raw template deploys is not known" in message


def test_a_reservation_decided_at_deploy_time_is_not_judged_and_tls_still_errs() -> None:
    body = _body()
    body["Parameters"] = {"Units": {"Type": "Number"}}
    _props(body, "Nlb")["MinimumLoadBalancerCapacity"] = {"CapacityUnits": {"Ref": "Units"}}
    _props(body, "Listener")["Protocol"] = "TLS"
    found = _nlb5(body)
    assert [(s, r) for s, r, _ in found] == [(Severity.ERROR, "Listener"), (Severity.WARNING, "Nlb")]
    assert "NLB Nlb reserves capacity units decided at deploy time (MinimumLoadBalancerCapacity)" in found[0][2]
    assert found[1][2].startswith("not judged: NLB Nlb MinimumLoadBalancerCapacity")


def test_zones_from_a_list_parameter_are_not_judged() -> None:
    body = _body()
    body["Parameters"] = {"Subnets": {"Type": "List<AWS::EC2::Subnet::Id>"}}
    _props(body, "Nlb")["Subnets"] = {"Ref": "Subnets"}
    [(severity, resource, message)] = _nlb5(body)
    assert (severity, resource) == (Severity.WARNING, "Nlb")
    assert message.startswith("not judged: NLB Nlb reserves 6000 capacity units: its zones")


def test_a_listener_protocol_decided_at_deploy_time_is_not_judged() -> None:
    body = _body()
    body["Parameters"] = {"Proto": {"Type": "String", "AllowedValues": ["TCP", "TLS"]}}
    _props(body, "Listener")["Protocol"] = {"Ref": "Proto"}
    found = _nlb5(body)
    [(severity, _resource, message)] = [f for f in found if f[2].startswith("not judged:")]
    assert severity is Severity.WARNING
    assert "listener Listener's Protocol" in message
    # each allowed value is judged too (issue 52: the NLB side takes parameter choices): TLS is the error
    assert [(f[0], "only with parameter Proto=TLS" in f[2]) for f in found if f is not None and f[0] is Severity.ERROR] == [
        (Severity.ERROR, True)]
