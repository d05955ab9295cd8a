"""EO-NLB4: NLB DNS attributes on an EIP-published origin path, and zonal affinity seen from CloudFront."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.rules import get_rule, run_rules

RULES_DIR = Path(__file__).parents[1] / "fixtures" / "templates" / "rules"


def _body(name: str) -> dict[str, Any]:
    return copy.deepcopy(read_template_file(RULES_DIR / name).body)


def _nlb4(body: dict[str, Any]) -> list[tuple[Severity, str, str]]:
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB4")])
    return [(f.severity, f.resource, f.message) for f in found]


def _lb_attrs(body: dict[str, Any], lb: str = "Nlb") -> list[dict[str, Any]]:
    return body["Resources"][lb]["Properties"]["LoadBalancerAttributes"]


def test_zonal_shift_names_the_records_health_checks_and_the_records_without() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _lb_attrs(body)[1]["Value"] = "true"
    del body["Resources"]["RecordB"]["Properties"]["HealthCheckId"], body["Resources"]["CheckB"]
    [(severity, resource, message)] = _nlb4(body)
    assert (severity, resource) == (Severity.WARNING, "Nlb")
    assert "sets zonal_shift.config.enabled true" in message
    assert "until the records' health checks (CheckA) fail; RecordB have none, so nothing moves them" in message


def test_alias_to_the_nlb_judges_affinity_from_cloudfront_and_not_zonal_shift() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    for rid in ("RecordA", "RecordB", "CheckA", "CheckB"):
        del body["Resources"][rid]
    body["Resources"]["Alias"] = {
        "Type": "AWS::Route53::RecordSet",
        "Properties": {
            "HostedZoneName": "example.com.", "Name": "o.example.com", "Type": "A",
            "AliasTarget": {"DNSName": {"Fn::GetAtt": ["Nlb", "DNSName"]},
                            "HostedZoneId": {"Fn::GetAtt": ["Nlb", "CanonicalHostedZoneID"]}},
        },
    }
    _lb_attrs(body)[1]["Value"] = "true"  # zonal shift acts on the NLB's DNS name: nothing to say
    assert _nlb4(body) == []
    _lb_attrs(body)[2]["Value"] = "availability_zone_affinity"
    [(severity, resource, message)] = _nlb4(body)
    assert (severity, resource) == (Severity.WARNING, "Nlb")
    assert message.startswith("gRPC origin o.example.com: reaches NLB Nlb through its DNS name")
    assert "a public resolver has no zone" in message


def test_deploy_time_attribute_is_not_judged() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    body["Parameters"] = {"Shift": {"Type": "String"}}
    _lb_attrs(body)[1]["Value"] = {"Ref": "Shift"}
    [(severity, resource, message)] = _nlb4(body)
    assert (severity, resource) == (Severity.WARNING, "Nlb")
    assert message.startswith("not judged: NLB Nlb zonal_shift.config.enabled")


def test_dns_failover_off_is_quiet_and_a_percentage_fires_on_the_target_group() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    attrs = body["Resources"]["Targets"]["Properties"]["TargetGroupAttributes"]
    attrs[1]["Value"] = "off"
    assert _nlb4(body) == []
    attrs[2]["Value"] = "50"
    [(_, resource, message)] = _nlb4(body)
    assert resource == "Targets" and "minimum_healthy_targets.percentage 50" in message


def test_a_deploy_time_attribute_key_is_not_judged_naming_what_it_may_set() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    body["Parameters"] = {"ShiftKey": {"Type": "String"}}
    _lb_attrs(body)[1]["Key"] = {"Ref": "ShiftKey"}  # was zonal_shift.config.enabled
    [(severity, resource, message)] = _nlb4(body)
    assert (severity, resource) == (Severity.WARNING, "Nlb")
    assert message.startswith("not judged: NLB Nlb LoadBalancerAttributes (gRPC origin o.example.com publishes its EIPs): ")
    assert message.endswith("(decided at deploy time: it may set zonal_shift.config.enabled)")


def test_a_deploy_time_attribute_list_is_not_judged_naming_both_keys() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    body["Parameters"] = {"Mode": {"Type": "String"}}
    body["Conditions"] = {"Shifted": {"Fn::Equals": [{"Ref": "Mode"}, "shifted"]}}
    attrs = _lb_attrs(body)
    body["Resources"]["Nlb"]["Properties"]["LoadBalancerAttributes"] = {"Fn::If": ["Shifted", attrs, attrs[:1]]}
    messages = [m for _s, r, m in _nlb4(body) if r == "Nlb"]
    assert messages, "a deploy-time attribute list on an EIP-published path must never be quiet"
    assert any("it may set zonal_shift.config.enabled or dns_record.client_routing_policy" in m for m in messages), messages


def test_a_deploy_time_target_group_attribute_key_is_not_judged() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    body["Parameters"] = {"FailoverKey": {"Type": "String"}}
    attrs = body["Resources"]["Targets"]["Properties"]["TargetGroupAttributes"]
    literal = attrs[1]["Key"]
    attrs[1]["Key"] = {"Ref": "FailoverKey"}
    [(severity, resource, message)] = _nlb4(body)
    assert (severity, resource) == (Severity.WARNING, "Targets")
    assert message.startswith("not judged: NLB Nlb target group Targets TargetGroupAttributes")
    assert message.endswith(f"(decided at deploy time: it may set {literal})")


def test_a_deploy_time_key_on_an_nlb_reached_by_its_dns_name_is_not_this_rules_to_judge() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    body["Parameters"] = {"ShiftKey": {"Type": "String"}}
    _lb_attrs(body, "Nlb2")[2]["Key"] = {"Ref": "ShiftKey"}  # zonal shift acts on the DNS name CloudFront resolves
    assert _nlb4(body) == []


def test_rules_md_lists_the_attribute_keys_nlb4_knows() -> None:
    text = (Path(__file__).parents[2] / "RULES.md").read_text()
    section = text.split("### EO-NLB4", 1)[1].split("### ", 1)[0]
    assert ("Attribute keys it knows: load balancer zonal_shift.config.enabled, dns_record.client_routing_policy; target group "
            "target_group_health.dns_failover.minimum_healthy_targets.count, "
            "target_group_health.dns_failover.minimum_healthy_targets.percentage") in section
