"""A load balancer's Type, its attributes and a target group's Protocol decided at deploy time: the LB view keeps
what it knows (``type_undecided``, ``protocol_undecided``) and each NLB rule that would judge such a balancer says
"not judged" once for it; with a Default (the same template, decided) the judged verdict is back."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from edge_origin.model import TemplateModel
from edge_origin.review.checker import _is_not_judged
from edge_origin.rules import get_rule, run_rules

RULES_DIR = Path(__file__).parents[1] / "fixtures" / "templates" / "rules"
UNDECIDED = {"Ref": "P"}


def _fixture(stem: str) -> dict[str, Any]:
    return json.loads((RULES_DIR / f"{stem}.json").read_text())


def _set(body: dict[str, Any], path: tuple[Any, ...], value: Any, default: Any = None) -> dict[str, Any]:
    """``body`` with ``value`` at ``path`` (under Resources) and a String parameter P (with ``default``)."""
    out = copy.deepcopy(body)
    out["Parameters"] = {"P": {"Type": "String", **({"Default": default} if default is not None else {})}}
    node = out["Resources"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def _findings(body: dict[str, Any], rule: str) -> tuple[list[str], list[str]]:
    """(judged messages, not-judged messages) of ``rule``."""
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule(rule)])
    return ([f.message for f in found if not _is_not_judged(f)], [f.message for f in found if _is_not_judged(f)])


def _about(message: str, lb: str) -> bool:
    return re.search(rf"NLB {lb}\b", message) is not None


FORMS = [{"Ref": "P"}, {"Fn::ImportValue": "no-such-export"}, {"Fn::If": ["C", "network", {"Ref": "AWS::NoValue"}]}]


@pytest.mark.parametrize("form", FORMS, ids=["parameter", "import", "condition"])
def test_the_view_keeps_an_undecided_type_and_protocol(form: Any) -> None:
    body = {
        "Parameters": {"P": {"Type": "String"}, "F": {"Type": "String"}},
        "Conditions": {"C": {"Fn::Equals": [{"Ref": "F"}, "y"]}},
        "Resources": {
            "Lb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {"Type": form}},
            "Tg": {"Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {"Protocol": form}},
        },
    }
    model = TemplateModel.from_templates({"S": body})
    [lb], [tg] = model.load_balancers, model.target_groups
    assert (lb.type_undecided, lb.is_network, lb.may_be_network) == (True, False, True)
    assert (tg.protocol, tg.protocol_undecided) == (None, True)


@pytest.mark.parametrize(("lb_type", "expected"), [("network", (False, True, True)), ("application", (False, False, False)),
                                                    (None, (False, False, False))])
def test_the_view_of_a_literal_or_absent_type(lb_type: str | None, expected: tuple[bool, bool, bool]) -> None:
    props = {"Type": lb_type} if lb_type else {}
    body = {"Resources": {"Lb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": props},
                          "Tg": {"Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {}}}}
    model = TemplateModel.from_templates({"S": body})
    [lb], [tg] = model.load_balancers, model.target_groups
    assert (lb.type_undecided, lb.is_network, lb.may_be_network) == expected
    assert tg.protocol_undecided is False


#: (fixture, rule, the load balancer, what its judged finding says): each fires on a literal "network" Type.
TYPE_CASES = [
    ("eo-nlb5-fire", "EO-NLB5", "Nlb", "reserves"),
    ("eo-nlb6-fire", "EO-NLB6", "Nlb", "targets"),
    ("eo-vpc3-fire", "EO-VPC3", "Nlb", "dns_record.client_routing_policy"),
]


@pytest.mark.parametrize(("stem", "rule", "lb", "judged"), TYPE_CASES, ids=[c[1] for c in TYPE_CASES])
def test_an_undecided_type_is_not_judged_once_and_a_default_judges_it(stem: str, rule: str, lb: str, judged: str) -> None:
    body = _fixture(stem)
    path = (lb, "Properties", "Type")
    before = [m for m in _findings(body, rule)[0] if _about(m, lb)]
    assert before and all(judged in m for m in before)
    judged_now, not_judged_now = _findings(_set(body, path, UNDECIDED), rule)
    mine = [m for m in not_judged_now if m.startswith(f"not judged: load balancer {lb} Type")]
    assert len(mine) == 1 and '"<Ref P>"' in mine[0] and "decided at deploy time" in mine[0]
    assert not [m for m in judged_now if _about(m, lb)]
    assert _findings(_set(body, path, UNDECIDED, default="network"), rule)[0] == _findings(body, rule)[0]
    assert _findings(_set(body, path, UNDECIDED, default="application"), rule) == ([m for m in _findings(body, rule)[0]
                                                                                  if not _about(m, lb)], [])


@pytest.mark.parametrize(("stem", "rule", "lb"), [(c[0].replace("-fire", "-quiet"), c[1], c[2]) for c in TYPE_CASES
                                                  if (RULES_DIR / f"{c[0].replace('-fire', '-quiet')}.json").exists()])
def test_an_undecided_type_on_a_balancer_fine_as_an_nlb_stays_quiet(stem: str, rule: str, lb: str) -> None:
    body = _fixture(stem)
    assert _findings(body, rule) == ([], [])
    assert _findings(_set(body, (lb, "Properties", "Type"), UNDECIDED), rule) == ([], [])


def test_vpc3_an_undecided_client_routing_policy_is_not_judged_and_a_default_judges_it() -> None:
    body = _fixture("eo-vpc3-fire")
    for path in (("Nlb", "Properties", "LoadBalancerAttributes", 1, "Value"),
                 ("Nlb", "Properties", "LoadBalancerAttributes", 1, "Key")):
        judged, [message] = _findings(_set(body, path, UNDECIDED), "EO-VPC3")
        assert judged == []
        assert message.startswith("not judged: Dist origin o (VPC origin VpcOrigin): NLB Nlb dns_record.client_routing_policy")
        assert "<Ref P>" in message
        default = "availability_zone_affinity" if path[-1] == "Value" else "dns_record.client_routing_policy"
        assert _findings(_set(body, path, UNDECIDED, default=default), "EO-VPC3") == _findings(body, "EO-VPC3")
    quiet = _set(body, ("Nlb", "Properties", "LoadBalancerAttributes", 1, "Value"), UNDECIDED, default="any_availability_zone")
    assert _findings(quiet, "EO-VPC3") == ([], [])


def _at(body: dict[str, Any], path: tuple[Any, ...]) -> Any:
    node = body["Resources"]
    for key in path:
        node = node[key]
    return node


TG_ATTRS = ("Properties", "TargetGroupAttributes")
LB_ATTRS = ("Properties", "LoadBalancerAttributes")
#: (fixture, rule, the value made undecided, what the one new not-judged finding begins with).
VALUE_CASES = [
    ("eo-nlb2-fire", "EO-NLB2", ("Nlb", "Properties", "Type"), "not judged: load balancer Nlb Type (as a network load "
     "balancer: the values of multivalue origin records RecordA, RecordB)"),
    ("eo-nlb3-fire", "EO-NLB3", ("Nlb", "Properties", "Type"), "not judged: load balancer Nlb Type (as a network load "
     "balancer: its cross-zone load balancing)"),
    ("eo-nlb3-fire", "EO-NLB3", ("Nlb", *LB_ATTRS, 0, "Value"), "not judged: NLB Nlb load_balancing.cross_zone.enabled"),
    ("eo-nlb3-fire", "EO-NLB3", ("Nlb", *LB_ATTRS, 0, "Key"), "not judged: NLB Nlb load_balancing.cross_zone.enabled"),
    ("eo-nlb3-fire", "EO-NLB3", ("Targets", "Properties", "Protocol"), "not judged: target group Targets Protocol (as a "
     "TCP or TLS target group: its connection termination)"),
    ("eo-nlb3-fire", "EO-NLB3", ("Targets", *TG_ATTRS, 0, "Key"), "not judged: target group Targets (TCP) "
     "deregistration_delay.connection_termination.enabled"),
    ("eo-nlb4-fire", "EO-NLB4", ("Nlb", "Properties", "Type"), "not judged: load balancer Nlb Type (as a network load "
     "balancer: its DNS attributes on an origin's path)"),
    ("eo-nlb4-fire", "EO-NLB4", ("Nlb2", "Properties", "Type"), "not judged: load balancer Nlb2 Type"),
    ("eo-nlb4-fire", "EO-NLB4", ("Nlb2", *LB_ATTRS, 1, "Key"), "not judged: Dist2 origin direct: reaches NLB Nlb2 through "
     "its DNS name: dns_record.client_routing_policy"),
    ("eo-nlb4-fire", "EO-NLB4", ("Nlb2", *LB_ATTRS, 1, "Value"), "not judged: Dist2 origin direct: reaches NLB Nlb2 "
     "through its DNS name: dns_record.client_routing_policy"),
    ("eo-nlb4-fire", "EO-NLB4", ("Targets", *TG_ATTRS, 3, "Value"), "not judged: NLB Nlb zonal shift prerequisite: target "
     "group Targets load_balancing.cross_zone.enabled"),
    ("eo-nlb4-fire", "EO-NLB4", ("Nlb", *LB_ATTRS, 0, "Value"), "not judged: NLB Nlb load_balancing.cross_zone.enabled "
     "(gRPC origin o.example.com publishes its EIPs)"),
    ("eo-nlb4-fire", "EO-NLB4", ("Nlb", *LB_ATTRS, 1, "Value"), "not judged: NLB Nlb zonal shift prerequisite "
     "(zonal_shift.config.enabled; target group Targets)"),
]


@pytest.mark.parametrize(("stem", "rule", "path", "said"), VALUE_CASES,
                         ids=[f"{c[1]}-{'/'.join(map(str, c[2]))}" for c in VALUE_CASES])
def test_an_undecided_value_is_not_judged_and_its_default_judges_as_the_literal(stem: str, rule: str,
                                                                                 path: tuple[Any, ...], said: str) -> None:
    body = _fixture(stem)
    literal = _findings(body, rule)
    judged, not_judged_now = _findings(_set(body, path, UNDECIDED), rule)
    assert len(judged) < len(literal[0])  # a finding rests on it
    new = [m for m in not_judged_now if m not in literal[1]]
    assert all("<Ref P>" in m for m in new) and len([m for m in new if m.startswith(said)]) == 1, new
    assert _findings(_set(body, path, UNDECIDED, default=_at(body, path)), rule) == literal


def test_nlb2_with_no_nlb_but_the_undecided_one_an_application_default_is_quiet() -> None:
    body = _set(_fixture("eo-nlb2-fire"), ("Nlb", "Properties", "Type"), UNDECIDED, default="application")
    assert _findings(body, "EO-NLB2") == ([], [])


def test_nlb3_an_undecided_protocol_judged_as_http_is_quiet_and_fine_as_tcp_stays_quiet() -> None:
    body = _fixture("eo-nlb3-fire")
    path = ("Targets", "Properties", "Protocol")
    http = _findings(_set(body, path, UNDECIDED, default="HTTP"), "EO-NLB3")
    assert http == (["NLB Nlb has cross-zone load balancing off: a zone's EIP only reaches that zone's pods"], [])
    fine = _set(body, (*path[:-1], "TargetGroupAttributes"), [
        {"Key": "deregistration_delay.connection_termination.enabled", "Value": "true"},
        {"Key": "target_health_state.unhealthy.connection_termination.enabled", "Value": "false"}])
    fine["Resources"]["Targets"]["Properties"]["Protocol"] = UNDECIDED
    assert _findings(fine, "EO-NLB3")[1] == []


def test_nlb3_an_undecided_target_type_is_not_judged_where_an_ip_target_group_would_fire() -> None:
    body = _fixture("eo-nlb3-fire")
    _at(body, ("Targets", "Properties"))["TargetGroupAttributes"].append(
        {"Key": "deregistration_delay.connection_termination.enabled", "Value": "true"})
    path = ("Targets", "Properties", "TargetType")
    assert any("resets every connection at the end of its deregistration_delay" in m for m in _findings(body, "EO-NLB3")[0])
    judged, not_judged_now = _findings(_set(body, path, UNDECIDED), "EO-NLB3")
    assert not any("at the end of its deregistration_delay" in m for m in judged)
    assert [m for m in not_judged_now if "TargetType" in m] == [
        'not judged: target group Targets TargetType (as an ip target group: whether a pod rollout is hitless): '
        '"<Ref P>" (decided at deploy time: ip or not)']
    assert _findings(_set(body, path, UNDECIDED, default="ip"), "EO-NLB3") == _findings(body, "EO-NLB3")


def test_nlb4_unhealthy_state_routing_in_a_list_decided_at_deploy_time_on_a_dns_name_path() -> None:
    """Nlb2 is reached through its DNS name only (no EIP-published records): the list's unknown entry may set the
    unhealthy_state_routing keys (fail-open on every path): not judged; the literal entry of the same key judged."""
    body = _fixture("eo-nlb4-fire")
    attrs = _at(body, ("Targets2", *TG_ATTRS))
    attrs.append(UNDECIDED)
    usr = "target_group_health.unhealthy_state_routing.minimum_healthy_targets"
    [message] = [m for m in _findings(_set(body, ("Targets2", *TG_ATTRS), attrs), "EO-NLB4")[1] if "Targets2" in m]
    assert message.startswith(f"not judged: NLB Nlb2 target group Targets2 {usr}.count and {usr}.percentage: ")
    attrs[-1] = {"Key": f"{usr}.count", "Value": "5"}
    judged = [m for m in _findings(_set(body, ("Targets2", *TG_ATTRS), attrs), "EO-NLB4")[0] if "Targets2" in m]
    assert len(judged) == 1 and f"sets {usr}.count 5: " in judged[0]


def test_nlb6_a_target_type_decided_at_deploy_time_over_the_quota_only_as_alb_is_not_judged() -> None:
    body = _fixture("eo-nlb6-quiet")
    group = _at(body, ("Targets", "Properties"))
    group["Targets"] = [{"Id": f"10.0.0.{i}", "Port": 8443} for i in range(12)]
    group["TargetType"] = UNDECIDED
    judged, [message] = _findings(_set(body, ("Targets", "Properties", "TargetType"), UNDECIDED), "EO-NLB6")
    assert judged == []
    assert message == ('not judged: NLB Nlb target group Targets TargetType: "<Ref P>" (decided at deploy time: as alb '
                       "each target counts 50 (100 with cross-zone on), over the quota)")
    as_alb = _findings(_set(body, ("Targets", "Properties", "TargetType"), UNDECIDED, default="alb"), "EO-NLB6")
    assert len(as_alb[0]) == 1 and "1450 targets" in as_alb[0][0]
    assert _findings(_set(body, ("Targets", "Properties", "TargetType"), UNDECIDED, default="ip"), "EO-NLB6") == ([], [])


def test_nlb4_zonal_shift_prerequisite_on_a_target_group_protocol_decided_at_deploy_time() -> None:
    """Unset unhealthy-target termination fails the prerequisite on TCP/TLS; UDP and TCP_UDP cannot enable it."""
    body = _fixture("eo-nlb4-fire")
    attrs = _at(body, ("Targets", *TG_ATTRS))
    del attrs[2:]  # unhealthy-target termination unset, target-group cross-zone unset
    judged = [m for m in _findings(body, "EO-NLB4")[0] if "prerequisite" in m or "zonal shift with" in m]
    assert len(judged) == 1 and "target_health_state.unhealthy.connection_termination.enabled unset" in judged[0]
    path = ("Targets", "Properties", "Protocol")
    judged_now, not_judged_now = _findings(_set(body, path, UNDECIDED), "EO-NLB4")
    assert not [m for m in judged_now if "zonal shift with" in m]
    assert [m for m in not_judged_now if "prerequisite" in m] == [
        'not judged: NLB Nlb zonal shift prerequisite: target group Targets Protocol: "<Ref P>" (decided at deploy time: '
        "as TCP or TLS, target_health_state.unhealthy.connection_termination.enabled unset or true fails it; UDP and "
        "TCP_UDP cannot enable it)"]
    assert _findings(_set(body, path, UNDECIDED, default="TCP"), "EO-NLB4") == _findings(body, "EO-NLB4")
    assert not [m for m in _findings(_set(body, path, UNDECIDED, default="UDP"), "EO-NLB4")[0] if "zonal shift with" in m]
