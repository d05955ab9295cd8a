"""EO-NLB4: NLB DNS attributes on an EIP-published origin path, and zonal affinity seen from CloudFront."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.rules import get_rule, run_rules
from edge_origin.rules.nlb4_dns_attributes_eip_path import FIX
from edge_origin.rules.vpc3_dns_vantage import PUBLIC_RESOLVER_NO_ZONE

RULES_DIR = Path(__file__).parents[1] / "fixtures" / "templates" / "rules"


def _body(name: str) -> dict[str, Any]:
    return copy.deepcopy(read_template_file(RULES_DIR / name).body)


def _nlb4(body: dict[str, Any]) -> list[tuple[Severity, str, str]]:
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB4")])
    return [(f.severity, f.resource, f.message) for f in found]


def _lb_attrs(body: dict[str, Any], lb: str = "Nlb") -> list[dict[str, Any]]:
    return body["Resources"][lb]["Properties"]["LoadBalancerAttributes"]


def _shift_without_cross_zone(body: dict[str, Any], lb: str = "Nlb") -> None:
    """Zonal shift on, cross-zone off: the shift does not reach connections to the zone's EIP."""
    _lb_attrs(body, lb)[0]["Value"] = "false"
    _lb_attrs(body, lb)[1]["Value"] = "true"


def test_zonal_shift_names_the_records_health_checks_and_the_records_without() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _shift_without_cross_zone(body)
    del body["Resources"]["RecordB"]["Properties"]["HealthCheckId"], body["Resources"]["CheckB"]
    [(severity, resource, message)] = _nlb4(body)
    assert (severity, resource) == (Severity.WARNING, "Nlb")
    assert "sets zonal_shift.config.enabled true" in message
    assert "until the records' health checks (CheckA) fail; RecordB have none, so nothing moves them" in message


def test_alias_to_the_nlb_judges_affinity_from_cloudfront_and_not_zonal_shift() -> None:
    body = _without_termination(_body("eo-nlb4-quiet.yaml"))
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
    _lb_attrs(body)[1]["Value"] = "true"  # zonal shift acts on the NLB's DNS name: only its prerequisite to judge
    assert [resource for _, resource, _ in _nlb4(body)] == ["Targets"]
    body["Resources"]["Targets"]["Properties"]["TargetGroupAttributes"].append(
        {"Key": "target_health_state.unhealthy.connection_termination.enabled", "Value": "false"})
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
    usr = "target_group_health.unhealthy_state_routing.minimum_healthy_targets"  # the list states neither: it may
    may_set = message.rsplit("(decided at deploy time: it may set ", 1)[1].removesuffix(")").split(" or ")
    # the Key it was, the two the list states neither of, and (its Value "1" beside the literal "off") the percentage:
    # an entry whose Key is decided at deploy time may be a literal key again (test_attribute_override_never_silent)
    assert may_set == [literal, "target_group_health.dns_failover.minimum_healthy_targets.percentage", f"{usr}.count",
                       f"{usr}.percentage"], may_set


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


# --- mutmut (issue 38): whole findings, each resource passed over, one finding per NLB and target group ---------
def _r(body: dict[str, Any]) -> dict[str, Any]:
    return body["Resources"]


def _seen(body: dict[str, Any]) -> list[tuple[Severity, str, str, str, str, str]]:
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB4")])
    return [(f.severity, f.resource, f.message, f.fix, f.template, f.stack) for f in found]


LONG = "long-lived origin p.example.com (CloudFront origin on NLBs)"
"""An origin no gRPC behavior targets (p, added beside the gRPC origin o)."""


def _eip_finding(resource: str, setting: str, acts: str, *, label: str = "gRPC origin o.example.com", lb: str = "Nlb",
                 records: str = "RecordA, RecordB", health: str = "the records' health checks (CheckA, CheckB) fail",
                 ) -> tuple[Severity, str, str, str, str, str]:
    where = f"NLB {lb}" + (f" target group {resource}" if resource != lb else "")
    return (Severity.WARNING, resource,
            f"{label}: {where} sets {setting}, but its EIPs are published in {records}: {acts}, which "
            f"CloudFront does not resolve; CloudFront keeps connecting to an EIP until {health}",
            FIX, "S.template.json", "S")


def _dns_finding(label: str, lb: str, policy: str, cross: bool) -> tuple[Severity, str, str, str, str, str]:
    tail = "" if cross else "; with cross-zone load balancing off, the favoured zone's targets take every connection"
    return (Severity.WARNING, lb,
            f"{label}: reaches NLB {lb} through its DNS name, which sets dns_record.client_routing_policy {policy}. "
            f"{PUBLIC_RESOLVER_NO_ZONE}: CloudFront resolves it on the public internet, so the setting does nothing for "
            f"CloudFront or favours the zone of wherever CloudFront resolves{tail}",
            FIX, "S.template.json", "S")


ROUTES = "it shapes only the answers for the NLB's own DNS name"
SHIFTS = (
    "with cross-zone load balancing off, a zonal shift takes the zone's address out of the NLB's own DNS name and "
    "stops routing to that zone's targets, and connections to that zone's EIP have no other zone's targets to go to"
)
MARKS = "it marks a zone unhealthy in the NLB's own DNS name"


def test_a_zonal_affinity_routing_policy_on_the_eip_published_nlb_reads_in_full() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _lb_attrs(body)[2]["Value"] = "availability_zone_affinity"
    assert _seen(body) == [_eip_finding("Nlb", "dns_record.client_routing_policy availability_zone_affinity", ROUTES)]


@pytest.mark.parametrize("attribute", [1, 2])  # zonal shift, routing policy
def test_a_reference_to_a_resource_is_not_judged_for_each_name_publishing_the_eips(attribute: int) -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _r(body)["Nlb"]["Metadata"] = {"aws:cdk:path": "S/Nlb/Resource"}
    _lb_attrs(body)[attribute]["Value"] = {"Ref": "EipA"}  # a resource, not a parameter: decided at deploy time too
    _r(body)["RecordP"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": "p.example.com", "Type": "A", "TTL": 60, "SetIdentifier": "P",
        "ResourceRecords": [{"Ref": "EipA"}], "MultiValueAnswer": True}}
    origins = _r(body)["Dist"]["Properties"]["DistributionConfig"]["Origins"]
    origins.append(dict(origins[0], Id="p", DomainName="p.example.com."))
    key = _lb_attrs(body)[attribute]["Key"]
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB4")])
    assert [(f.rule, f.severity, f.resource, f.message, f.fix, f.template, f.stack, f.path) for f in found] == [
        ("EO-NLB4", Severity.WARNING, "Nlb",
         f'not judged: NLB Nlb {key} ({label} publishes its EIPs): "S/EipA" (decided at deploy time)',
         f"To let edge-origin judge it: a literal {key}", "S.template.json", "S", "S/Nlb/Resource")
        for label in ("gRPC origin o.example.com", LONG)
    ]


def test_each_target_group_once_and_one_already_seen_does_not_hide_the_next() -> None:
    # two listeners, each forwarding to the shared Targets first and then a target group of its own
    body = _body("eo-nlb4-quiet.yaml")
    _r(body)["Targets"]["Properties"]["TargetGroupAttributes"][1]["Value"] = "2"
    for name, count, listener, port in (("Targets3", "3", "Listener", 443), ("Targets4", "4", "Listener2", 8443)):
        group = copy.deepcopy(_r(body)["Targets"])
        group["Properties"]["TargetGroupAttributes"][1]["Value"] = count
        _r(body)[name] = group
        forward = copy.deepcopy(_r(body)["Listener"])
        forward["Properties"]["Port"] = port
        forward["Properties"]["DefaultActions"] = [{"Type": "forward", "ForwardConfig": {"TargetGroups": [
            {"TargetGroupArn": {"Ref": "Targets"}, "Weight": 1}, {"TargetGroupArn": {"Ref": name}, "Weight": 1}]}}]
        _r(body)[listener] = forward
    count = "target_group_health.dns_failover.minimum_healthy_targets.count"
    assert _seen(body) == [_eip_finding(name, f"{count} {n}", MARKS) for name, n in
                           (("Targets", "2"), ("Targets3", "3"), ("Targets4", "4"))]


@pytest.mark.parametrize(("value", "fires"), [("50", True), ("1", True), ("OFF", False), (" off ", False)])
def test_a_percentage_without_a_count_beside_it(value: str, fires: bool) -> None:
    body = _body("eo-nlb4-quiet.yaml")
    attrs = _r(body)["Targets"]["Properties"]["TargetGroupAttributes"]
    del attrs[1]  # no count attribute
    attrs[1]["Value"] = value
    percentage = "target_group_health.dns_failover.minimum_healthy_targets.percentage"
    assert _seen(body) == ([_eip_finding("Targets", f"{percentage} {value}", MARKS)] if fires else [])


def test_a_count_of_1_is_quiet_while_other_attributes_are_decided_at_deploy_time() -> None:
    """The entry decided at deploy time may set an unhealthy_state_routing key the list does not state (fail-open on
    every path), or be a key the list states again with another Value (which of two entries of one Key ELB keeps, the
    templates do not say; test_attribute_override_never_silent): one not-judged finding names them."""
    body = _body("eo-nlb4-quiet.yaml")
    body["Parameters"] = {"P": {"Type": "String"}}
    _r(body)["Targets"]["Properties"]["TargetGroupAttributes"].append({"Ref": "P"})
    [(severity, resource, message, *_)] = _seen(body)
    assert (severity, resource) == (Severity.WARNING, "Targets")
    assert message.startswith("not judged: NLB Nlb target group Targets TargetGroupAttributes")
    usr = "target_group_health.unhealthy_state_routing.minimum_healthy_targets"
    may_set = message.rsplit("(decided at deploy time: it may set ", 1)[1].removesuffix(")").split(" or ")
    assert may_set[-2:] == [f"{usr}.count", f"{usr}.percentage"], may_set
    assert "target_group_health.dns_failover.minimum_healthy_targets.count" in may_set, may_set  # "1" as written


def test_records_without_health_checks_say_nothing_moves_cloudfront() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _shift_without_cross_zone(body)
    for record in ("RecordA", "RecordB"):
        del _r(body)[record]["Properties"]["HealthCheckId"]
    assert _seen(body) == [_eip_finding("Nlb", "zonal_shift.config.enabled true", SHIFTS,
                                        health="nothing: no record has a health check")]


def test_a_health_check_outside_the_templates_is_named_by_its_id_and_records_without_are_listed() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _shift_without_cross_zone(body)
    _r(body)["RecordA"]["Properties"]["HealthCheckId"] = "0c1d2e3f-aaaa"
    del _r(body)["RecordB"]["Properties"]["HealthCheckId"]
    third = copy.deepcopy(_r(body)["RecordB"])
    third["Properties"].update(SetIdentifier="C", ResourceRecords=[{"Ref": "EipA"}])
    _r(body)["RecordC"] = third
    assert _seen(body) == [_eip_finding(
        "Nlb", "zonal_shift.config.enabled true", SHIFTS, records="RecordA, RecordB, RecordC",
        health="the records' health checks (0c1d2e3f-aaaa) fail; RecordB, RecordC have none, so nothing moves them")]


def _second_eip_nlb(body: dict[str, Any]) -> None:
    """NlbB with its own EIPs (EipC, EipD), published by p.example.com (RecordC, RecordD; origin p of Dist)."""
    r = _r(body)
    for x in ("C", "D"):
        r[f"Eip{x}"] = copy.deepcopy(r["EipA"])
        r[f"Record{x}"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            "HostedZoneName": "example.com.", "Name": "p.example.com", "Type": "A", "TTL": 60, "SetIdentifier": x,
            "ResourceRecords": [{"Ref": f"Eip{x}"}], "MultiValueAnswer": True}}
    nlb = copy.deepcopy(r["Nlb"])
    nlb["Properties"]["SubnetMappings"] = [{"SubnetId": {"Ref": s}, "AllocationId": {"Fn::GetAtt": [e, "AllocationId"]}}
                                           for s, e in (("SubnetA", "EipC"), ("SubnetB", "EipD"))]
    r["NlbB"] = nlb
    origins = r["Dist"]["Properties"]["DistributionConfig"]["Origins"]
    origins.append(dict(origins[0], Id="p", DomainName="p.example.com."))


def test_two_eip_published_nlbs_each_get_their_finding() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _second_eip_nlb(body)
    _shift_without_cross_zone(body)
    _shift_without_cross_zone(body, "NlbB")
    assert _seen(body) == [
        _eip_finding("Nlb", "zonal_shift.config.enabled true", SHIFTS),
        _eip_finding("NlbB", "zonal_shift.config.enabled true", SHIFTS, label=LONG, lb="NlbB",
                     records="RecordC, RecordD", health="nothing: no record has a health check"),
    ]


def test_a_load_balancer_that_is_not_an_nlb_naming_the_same_eip_is_passed_over() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    alb = copy.deepcopy(_r(body)["Nlb"])
    alb["Properties"]["Type"] = "application"
    body["Resources"] = {"Alb": alb, **_r(body)}
    _shift_without_cross_zone(body)
    assert _seen(body) == [_eip_finding("Nlb", "zonal_shift.config.enabled true", SHIFTS)]


def _dns_world(cross_zone: str) -> dict[str, Any]:
    """Dist2's default behavior reaches Nlb2 (any_availability_zone) by its DNS name; a cache behavior targets an
    origin group whose first member has a literal domain and whose second reaches Nlb3 (zonal affinity)."""
    body = _body("eo-nlb4-quiet.yaml")
    r = _r(body)
    nlb3 = copy.deepcopy(r["Nlb2"])
    nlb3["Properties"]["LoadBalancerAttributes"] = [
        {"Key": "load_balancing.cross_zone.enabled", "Value": cross_zone},
        {"Key": "dns_record.client_routing_policy", "Value": "availability_zone_affinity"}]
    r["Nlb3"] = nlb3
    config = r["Dist2"]["Properties"]["DistributionConfig"]
    config["Origins"] += [
        {"Id": "lit", "DomainName": "x.example.net", "CustomOriginConfig": {"OriginProtocolPolicy": "https-only"}},
        {"Id": "third", "DomainName": {"Fn::GetAtt": ["Nlb3", "DNSName"]},
         "CustomOriginConfig": {"OriginProtocolPolicy": "https-only"}}]
    config["OriginGroups"] = {"Quantity": 1, "Items": [{
        "Id": "g", "FailoverCriteria": {"StatusCodes": {"Quantity": 1, "Items": [503]}},
        "Members": {"Quantity": 2, "Items": [{"OriginId": "lit"}, {"OriginId": "third"}]}}]}
    config["CacheBehaviors"] = [dict(config["DefaultCacheBehavior"], PathPattern="/b/*", TargetOriginId="g")]
    return body


@pytest.mark.parametrize("cross_zone", ["true", "false"])
def test_an_nlb_reached_by_its_dns_name_after_others_passed_over(cross_zone: str) -> None:
    assert _seen(_dns_world(cross_zone)) == [
        _dns_finding("Dist2 origin third", "Nlb3", "availability_zone_affinity", cross_zone == "true")]


def _alias(name: str, lb: str) -> dict[str, Any]:
    return {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": name, "Type": "A",
        "AliasTarget": {"DNSName": {"Fn::GetAtt": [lb, "DNSName"]},
                        "HostedZoneId": {"Fn::GetAtt": [lb, "CanonicalHostedZoneID"]}}}}


def test_two_nlbs_aliased_by_two_names_each_get_their_finding_and_an_alb_none() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    r = _r(body)
    for rid in ("RecordA", "RecordB", "CheckA", "CheckB"):
        del r[rid]
    for lb, policy in (("NlbP", "availability_zone_affinity"), ("Alb", "availability_zone_affinity")):
        r[lb] = copy.deepcopy(r["Nlb2"])
        r[lb]["Properties"]["LoadBalancerAttributes"][1]["Value"] = policy
    r["Alb"]["Properties"]["Type"] = "application"
    _lb_attrs(body)[2]["Value"] = "partial_availability_zone_affinity"
    origins = r["Dist"]["Properties"]["DistributionConfig"]["Origins"]
    for name, lb in (("o", "Nlb"), ("p", "NlbP"), ("q", "Alb")):
        r[f"Alias{name.upper()}"] = _alias(f"{name}.example.com", lb)
        if name != "o":
            origins.append(dict(origins[0], Id=name, DomainName=f"{name}.example.com."))
    assert _seen(body) == [
        _dns_finding("gRPC origin o.example.com", "Nlb", "partial_availability_zone_affinity", True),
        _dns_finding(LONG, "NlbP", "availability_zone_affinity", True),
    ]


# --- zonal shift on a cross-zone NLB acts on the EIP path; its prerequisite (issue 52) ---------------------------
TERMINATION = "target_health_state.unhealthy.connection_termination.enabled"


def _tg_attrs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return _r(body)["Targets"]["Properties"].setdefault("TargetGroupAttributes", [])


def _without_termination(body: dict[str, Any]) -> dict[str, Any]:
    """The quiet fixture with target group Targets' unhealthy-target termination entry taken out (unset)."""
    attrs = _tg_attrs(body)
    attrs[:] = [a for a in attrs if a.get("Key") != TERMINATION]
    return body


@pytest.mark.parametrize(("termination", "fires"), [(None, "unset (the API default is true)"), ("true", "true"), ("false", None)])
def test_zonal_shift_with_cross_zone_acts_and_its_prerequisite_is_judged(termination: str | None, fires: str | None) -> None:
    """ELB guide: a zonal shift "stops routing traffic to targets in the affected Availability Zone"; on a
    cross-zone NLB every target group must have unhealthy-target connection termination disabled first."""
    body = _without_termination(_body("eo-nlb4-quiet.yaml"))
    _lb_attrs(body)[1]["Value"] = "true"  # cross-zone stays on (the fixture's)
    if termination is not None:
        _tg_attrs(body).append({"Key": TERMINATION, "Value": termination})
    found = _seen(body)
    if fires is None:
        assert found == []
        return
    [(severity, resource, message, fix, _, _)] = found
    assert (severity, resource) == (Severity.WARNING, "Targets")
    assert f"target group Targets has {TERMINATION} {fires}:" in message and "enable-zonal-shift" in message
    assert "false on every target group" in fix


def test_zonal_shift_prerequisite_also_names_a_target_group_cross_zone_off() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    _lb_attrs(body)[1]["Value"] = "true"
    _tg_attrs(body).extend([{"Key": TERMINATION, "Value": "false"}, {"Key": "load_balancing.cross_zone.enabled", "Value": "false"}])
    [(_, resource, message, *_)] = _seen(body)
    assert resource == "Targets" and "has load_balancing.cross_zone.enabled false:" in message


def test_zonal_shift_off_needs_no_prerequisite() -> None:
    body = _body("eo-nlb4-quiet.yaml")
    assert _lb_attrs(body)[1] == {"Key": "zonal_shift.config.enabled", "Value": "false"}
    assert _seen(body) == []


# --- issue 52: unhealthy_state_routing acts on every path, the EIPs included --------------------------------------
USR = "target_group_health.unhealthy_state_routing.minimum_healthy_targets"


@pytest.mark.parametrize(("key", "value", "fires"), [
    ("count", "2", True), ("count", "1", False), ("percentage", "50", True), ("percentage", "off", False),
    ("percentage", "OFF", False),
])
def test_unhealthy_state_routing_fail_open_is_named_on_every_path(key: str, value: str, fires: bool) -> None:
    from edge_origin.rules.nlb4_dns_attributes_eip_path import USR_FIX

    body = _body("eo-nlb4-quiet.yaml")
    _tg_attrs(body).append({"Key": f"{USR}.{key}", "Value": value})
    found = _seen(body)
    if not fires:
        assert found == []
        return
    [(severity, resource, message, fix, _, _)] = found
    assert (severity, resource, fix) == (Severity.WARNING, "Targets", USR_FIX)
    assert f"sets {USR}.{key} {value}: " in message and "the EIPs CloudFront connects to" in message


def test_unhealthy_state_routing_decided_at_deploy_time_is_not_called_fine_or_bad() -> None:
    """Neither fine nor bad: not judged (it was quiet)."""
    body = _body("eo-nlb4-quiet.yaml")
    body["Parameters"] = {"P": {"Type": "String"}}
    _tg_attrs(body).append({"Key": f"{USR}.count", "Value": {"Ref": "P"}})
    assert [m for _, _, m, *_ in _seen(body) if "unhealthy_state_routing" in m] == [
        f'not judged: NLB Nlb target group Targets {USR}.count: "<Ref P>" (decided at deploy time: above its default, '
        "below the threshold the NLB sends new connections to unhealthy targets too (fail-open), on every path)"]


def test_zonal_shift_prerequisite_decided_at_deploy_time_is_not_judged_not_unset() -> None:
    """Issue 52 audit: a deploy-time attribute list used to read as "unset"; it may hold false: not judged."""
    body = _without_termination(_body("eo-nlb4-quiet.yaml"))
    _lb_attrs(body)[1]["Value"] = "true"
    body["Parameters"] = {"Termination": {"Type": "String"}}
    _tg_attrs(body).append({"Key": TERMINATION, "Value": {"Ref": "Termination"}})
    [(severity, resource, message, *_)] = _seen(body)
    assert (severity, resource) == (Severity.WARNING, "Targets")
    assert message.startswith(f"not judged: NLB Nlb zonal shift prerequisite: target group Targets {TERMINATION}")
