"""EO-NLB6: more targets than an NLB's quota takes (issue 52): 500 with cross-zone on whatever its zones; 500 a zone
and 3,000 in all with it off; a target in N target groups counts N times. A quota: a warning. What the templates
do not give (a deploy-time list or setting, each target's zone with cross-zone off) is not judged, never fine;
targets registered at runtime (no Targets) are not counted."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.rules import get_rule, run_rules
from tests.hardening_support import examples

ZONES = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"]


def _template(groups: list[list[str | None]], cross_zone: Any, zones: int) -> dict[str, Any]:
    """One NLB over ``zones`` zones; each group a target group (its targets' zones, None: no zone given)."""
    res: dict[str, Any] = {f"Subnet{z}": {"Type": "AWS::EC2::Subnet", "Properties": {"AvailabilityZone": ZONES[z]}}
                           for z in range(zones)}
    attrs = [] if cross_zone is None else [{"Key": "load_balancing.cross_zone.enabled", "Value": cross_zone}]
    res["Nlb"] = {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {
        "Type": "network", "Subnets": [{"Ref": f"Subnet{z}"} for z in range(zones)], "LoadBalancerAttributes": attrs}}
    for g, targets in enumerate(groups):
        listed = [{"Id": f"10.0.{i // 250}.{i % 250 + 1}", **({"AvailabilityZone": z} if z else {})}
                  for i, z in enumerate(targets)]
        res[f"Tg{g}"] = {"Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {
            "Protocol": "TCP", "Port": 8443, "TargetType": "ip", "Targets": listed}}
        res[f"Listener{g}"] = {"Type": "AWS::ElasticLoadBalancingV2::Listener", "Properties": {
            "LoadBalancerArn": {"Ref": "Nlb"}, "Protocol": "TCP", "Port": 443 + g,
            "DefaultActions": [{"Type": "forward", "TargetGroupArn": {"Ref": f"Tg{g}"}}]}}
    return {"Parameters": {"P": {"Type": "String"}}, "Resources": res}


def _nlb6(body: dict[str, Any]) -> list[tuple[Severity, str]]:
    return [(f.severity, f.message) for f in run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB6")])]


def _oracle(groups: list[list[str | None]], cross_zone: Any, zones: int) -> str | None:
    """What the quotas say: ``over``, ``not judged`` or None (within)."""
    count = sum(len(g) for g in groups)
    off_cap = min(500 * zones, 3000)
    if cross_zone == "true":
        return "over" if count > 500 else None
    if count > off_cap:
        return "over"
    if count <= 500:
        return None
    if cross_zone is not None and cross_zone != "false":  # a deploy-time value
        return "not judged"
    flat = [z for g in groups for z in g]
    if any(z is None for z in flat):
        return "not judged"
    return "over" if any(flat.count(z) > 500 for z in set(flat)) else None


@st.composite
def _fleets(draw: st.DrawFn) -> tuple[list[list[str | None]], Any, int]:
    zones = draw(st.integers(1, 4))
    cross = draw(st.sampled_from(["true", "false", None, {"Ref": "P"}]))
    zoned = draw(st.booleans())
    groups = []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.sampled_from([0, 1, 249, 250, 251, 500, 501, 1001]))
        lean = draw(st.integers(0, zones - 1))
        groups.append([(ZONES[lean] if i % 3 else ZONES[i % zones]) if zoned else None for i in range(n)])
    return groups, cross, zones


@settings(max_examples=examples(30), deadline=None)
@given(_fleets())
def test_the_count_is_judged_as_the_quotas_say(fleet: tuple[list[list[str | None]], Any, int]) -> None:
    groups, cross, zones = fleet
    found = _nlb6(_template(groups, cross, zones))
    expected = _oracle(groups, cross, zones)
    if expected is None:
        assert found == []
        return
    [(severity, message)] = found
    assert severity is Severity.WARNING
    assert message.startswith("not judged:") == (expected == "not judged"), message


def test_cross_zone_on_takes_500_whatever_its_zones() -> None:
    [(_, message)] = _nlb6(_template([[None] * 300, [None] * 201], "true", 3))
    assert "501 targets in target groups Tg0, Tg1" in message and "at most 500, whatever its zones" in message
    assert _nlb6(_template([[None] * 300, [None] * 200], "true", 3)) == []


def test_cross_zone_off_is_judged_a_zone_when_the_targets_name_their_zones() -> None:
    split = [ZONES[0]] * 400 + [ZONES[1]] * 400
    assert _nlb6(_template([split], "false", 2)) == []
    [(_, message)] = _nlb6(_template([[ZONES[0]] * 501 + [ZONES[1]] * 10], "false", 2))
    assert "501 targets in us-east-1a" in message
    [(_, message)] = _nlb6(_template([[None] * 800], "false", 2))
    assert message.startswith("not judged: NLB Nlb targets a zone (800 targets, cross-zone off)")


def test_a_deploy_time_target_list_is_not_judged_and_runtime_registration_is_not_counted() -> None:
    body = _template([[None] * 10], "true", 2)
    body["Resources"]["Tg0"]["Properties"]["Targets"] = {"Ref": "P"}
    [(severity, message)] = _nlb6(body)
    assert severity is Severity.WARNING and message.startswith("not judged: NLB Nlb target group Tg0 Targets")
    del body["Resources"]["Tg0"]["Properties"]["Targets"]  # a TargetGroupBinding's pods: registered at runtime
    assert _nlb6(body) == []


def test_a_listener_profile_that_states_the_targets_is_judged() -> None:
    """Pods registered at runtime (no Targets): the connection profile's expected_targets_per_nlb is the count."""
    from edge_origin.profile import PROFILE_METADATA_KEY

    body = _template([[None]], "true", 2)
    del body["Resources"]["Tg0"]["Properties"]["Targets"]
    assert _nlb6(body) == []
    body["Resources"]["Listener0"]["Metadata"] = {PROFILE_METADATA_KEY: {"version": 1, "expected_targets_per_nlb": 500}}
    assert _nlb6(body) == []
    body["Resources"]["Listener0"]["Metadata"][PROFILE_METADATA_KEY]["expected_targets_per_nlb"] = 501
    [(severity, message)] = _nlb6(body)
    assert severity is Severity.WARNING and "501 targets in its pods (listener Listener0's connection profile" in message


def test_an_alb_target_counts_100_with_cross_zone_on_and_50_without() -> None:
    """Quotas page, note 2: an Application Load Balancer target of the NLB counts as 50 targets, 100 with cross-zone."""
    body = _template([[None] * 5], "true", 2)
    body["Resources"]["Tg0"]["Properties"]["TargetType"] = "alb"
    assert _nlb6(body) == []  # 5 x 100 = 500
    body["Resources"]["Tg0"]["Properties"]["Targets"].append({"Id": "arn:aws:elasticloadbalancing:alb/6"})
    [(_, message)] = _nlb6(body)
    assert "600 targets" in message
    off = _template([[None] * 10], "false", 2)
    off["Resources"]["Tg0"]["Properties"]["TargetType"] = "alb"
    assert _nlb6(off) == []  # 10 x 50 = 500
    off["Resources"]["Tg0"]["Properties"]["Targets"] += [{"Id": f"arn:aws:elasticloadbalancing:alb/{i}"} for i in range(11)]
    [(_, message)] = _nlb6(off)  # 21 x 50 = 1,050: above the 2 zones' 1,000 whatever the split
    assert "1050 targets" in message
