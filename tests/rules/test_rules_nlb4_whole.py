"""EO-NLB4's "not judged" findings whole (rule, severity, resource, template, stack, CDK path, message with the
element shown, fix) for a deploy-time attribute key, a deploy-time value with two origin names publishing the
EIPs (one finding each), and a target group two listeners share (one finding) (mutation testing, issue 38)."""

from __future__ import annotations

import copy
from typing import Any

from test_rules_nlb4 import _body, _lb_attrs

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.rules import get_rule, run_rules

LIST_FIX = "To let edge-origin judge it: a literal {} list with literal keys"


def _whole(body: dict[str, Any]) -> list[tuple[Any, ...]]:
    for name in ("Nlb", "Targets"):
        body["Resources"][name]["Metadata"] = {"aws:cdk:path": f"S/{name}/Resource"}
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB4")])
    return [(f.rule, f.severity, f.resource, f.template, f.stack, f.path, f.message, f.fix) for f in found]


def test_a_deploy_time_key_in_the_load_balancer_attributes_is_not_judged_whole() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    body["Parameters"] = {"ShiftKey": {"Type": "String"}}
    _lb_attrs(body)[1]["Key"] = {"Ref": "ShiftKey"}
    assert _whole(body) == [(
        "EO-NLB4", Severity.WARNING, "Nlb", "S.template.json", "S", "S/Nlb/Resource",
        'not judged: NLB Nlb LoadBalancerAttributes (gRPC origin o.example.com publishes its EIPs): [{"Key": '
        '"load_balancing.cross_zone.enabled", "Value": "true"}, {"Key": "<Ref ShiftKey>", "Value": "false"}, {"Key": '
        '"dns_record.client_routing_policy", "Value… (decided at deploy time: it may set zonal_shift.config.enabled)',
        LIST_FIX.format("LoadBalancerAttributes"),
    )]


def _second_name(body: dict[str, Any]) -> None:
    """A second name publishes the same EIPs, a second origin of the distribution."""
    resources = body["Resources"]
    for rid in ("RecordA", "RecordB"):
        record = copy.deepcopy(resources[rid])
        record["Properties"]["Name"] = "p.example.com"
        resources["P" + rid] = record
    origin = copy.deepcopy(resources["Dist"]["Properties"]["DistributionConfig"]["Origins"][0])
    origin.update(Id="p", DomainName="p.example.com.")
    resources["Dist"]["Properties"]["DistributionConfig"]["Origins"].append(origin)


def test_a_deploy_time_key_is_not_judged_once_for_each_origin_name_publishing_the_eips() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _second_name(body)
    body["Parameters"] = {"ShiftKey": {"Type": "String"}}
    _lb_attrs(body)[1]["Key"] = {"Ref": "ShiftKey"}
    subjects = [m.split(": [", 1)[0] for *_, m, _fix in _whole(body)]
    assert subjects == [
        "not judged: NLB Nlb LoadBalancerAttributes (gRPC origin o.example.com publishes its EIPs)",
        "not judged: NLB Nlb LoadBalancerAttributes (long-lived origin p.example.com (CloudFront origin on NLBs) publishes "
        "its EIPs)",
    ]


def test_a_deploy_time_value_is_not_judged_once_for_each_origin_name_publishing_the_eips() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _second_name(body)
    body["Parameters"] = {"Shift": {"Type": "String"}}
    _lb_attrs(body)[1]["Value"] = {"Ref": "Shift"}
    head = ("EO-NLB4", Severity.WARNING, "Nlb", "S.template.json", "S", "S/Nlb/Resource")
    fix = "To let edge-origin judge it: a literal zonal_shift.config.enabled"
    assert _whole(body) == [
        (*head, 'not judged: NLB Nlb zonal_shift.config.enabled (gRPC origin o.example.com publishes its EIPs): "<Ref Shift>" '
                "(decided at deploy time)", fix),
        (*head, "not judged: NLB Nlb zonal_shift.config.enabled (long-lived origin p.example.com (CloudFront origin on NLBs) "
                'publishes its EIPs): "<Ref Shift>" (decided at deploy time)', fix),
    ]


def test_a_target_group_two_listeners_share_is_not_judged_once() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    resources = body["Resources"]
    second = copy.deepcopy(resources["Listener"])
    second["Properties"]["Port"] = 8443
    resources["Listener3"] = second
    body["Parameters"] = {"FailoverKey": {"Type": "String"}}
    resources["Targets"]["Properties"]["TargetGroupAttributes"][1]["Key"] = {"Ref": "FailoverKey"}
    assert _whole(body) == [(
        "EO-NLB4", Severity.WARNING, "Targets", "S.template.json", "S", "S/Targets/Resource",
        'not judged: NLB Nlb target group Targets TargetGroupAttributes (gRPC origin o.example.com publishes its EIPs): '
        '[{"Key": "deregistration_delay.connection_termination.enabled", "Value": "true"}, {"Key": "<Ref FailoverKey>", '
        '"Value": "1"}, {"Key": "target_group_health.dns_… (decided at deploy time: it may set '
        "target_group_health.dns_failover.minimum_healthy_targets.count or "
        "target_group_health.dns_failover.minimum_healthy_targets.percentage or "  # "off" as written, "1" may be it again
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count or "
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage)",
        LIST_FIX.format("TargetGroupAttributes"),
    )]
