"""EO-VPC1..4 (issue 31): a distribution whose origin is a CloudFront VPC origin to an internal NLB."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.profile import hops
from edge_origin.rules import get_rule, run_rules
from edge_origin.rules.vpc1_timeouts import FIX as VPC1_FIX
from edge_origin.rules.vpc2_nlb_not_vpc_origin import FIX as VPC2_FIX
from edge_origin.rules.vpc3_dns_vantage import FIX as VPC3_FIX
from edge_origin.rules.vpc4_reachable_around_cloudfront import FIX as VPC4_FIX

QUIET = Path(__file__).parents[1] / "fixtures" / "templates" / "rules" / "eo-vpc1-quiet.yaml"


@pytest.fixture
def body() -> dict[str, Any]:
    return copy.deepcopy(read_template_file(QUIET).body)


def _run(body: dict[str, Any], *ids: str) -> list[Any]:
    rules = [get_rule(i) for i in ids] if ids else None
    return run_rules(TemplateModel.from_templates({"S": body}), rules)


def _origin(body: dict[str, Any]) -> dict[str, Any]:
    return body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]


def test_model_joins_the_origin_to_its_vpc_origin_and_nlb(body: dict[str, Any]) -> None:
    model = TemplateModel.from_templates({"S": body})
    (origin,) = model.distributions[0].origins
    assert origin.vpc_origin is not None and origin.vpc_origin.resource.logical_id == "VpcOrigin"
    assert (origin.keepalive_timeout, origin.read_timeout, origin.protocol_policy) == (60, 60, "https-only")
    assert [lb.resource.logical_id for lb in model.load_balancers_for_origin(origin)] == ["Nlb"]
    # a VPC origin's DomainName is its Host/SNI name, not a name CloudFront resolves in public DNS
    assert "origin.example.com" not in model.cloudfront_origin_names()


def test_quiet_base_is_quiet_for_every_rule(body: dict[str, Any]) -> None:
    assert _run(body) == []


@pytest.mark.parametrize(
    ("field", "value", "severity", "phrase"),
    [
        # issue 37: 1..120 s is the default quota, adjustable: above it a warning naming the quota (was an error)
        ("OriginKeepaliveTimeout", 121, Severity.WARNING, "above the default CloudFront quota 'Keep-alive timeout per origin'"),
        ("OriginReadTimeout", 121, Severity.WARNING, "above the default CloudFront quota 'Response timeout per origin'"),
        ("OriginReadTimeout", 0, Severity.ERROR, "is not a CloudFront OriginReadTimeout: whole seconds from 1"),
    ],
)
def test_vpc1_range_is_the_api_references_1_to_120(
    body: dict[str, Any], field: str, value: int, severity: Severity, phrase: str
) -> None:
    assert hops.CF_VPC_ORIGIN_TIMEOUT_RANGE == (1, 120)
    _origin(body)["VpcOriginConfig"][field] = value
    (found,) = _run(body, "EO-VPC1")
    assert found.severity is severity and f"{field} {value} s" in found.message and phrase in found.message
    _origin(body)["VpcOriginConfig"][field] = 120
    assert _run(body, "EO-VPC1") == []


def test_vpc1_keepalive_and_read_against_the_nlb_idle_timeout(body: dict[str, Any]) -> None:
    body["Resources"]["Listener"]["Properties"]["ListenerAttributes"][0]["Value"] = "60"
    found = _run(body, "EO-VPC1")
    assert {f.severity for f in found} == {Severity.WARNING}
    text = " ".join(f.message for f in found)
    assert "[CloudFront VPC origin -> internal NLB]" in text
    assert "keepalive 60 s is not well below the idle timeout 60 s" in text
    assert "read timeout 60 s is not below the idle timeout 60 s" in text


def test_vpc1_defaults_are_5_and_30(body: dict[str, Any]) -> None:
    del _origin(body)["VpcOriginConfig"]["OriginKeepaliveTimeout"]
    del _origin(body)["VpcOriginConfig"]["OriginReadTimeout"]
    body["Resources"]["Listener"]["Properties"]["ListenerAttributes"][0]["Value"] = "60"
    assert _run(body, "EO-VPC1") == []  # 5 and 30 are below 60 - 5 and 60 * 0.9
    body["Resources"]["Listener"]["Properties"]["ListenerAttributes"][0]["Value"] = "30"
    assert "read timeout 30 s" in " ".join(f.message for f in _run(body, "EO-VPC1"))


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda b: b["Resources"]["Nlb"]["Properties"].pop("SecurityGroups"), "no security group"),
        (lambda b: b["Resources"]["Nlb"]["Properties"].update(IpAddressType="dualstack"), "dual-stack"),
        (lambda b: b["Resources"]["VpcOrigin"]["Properties"]["VpcOriginEndpointConfig"].update(IpAddressType="ipv6"), "IPv6-only"),
    ],
)
def test_vpc2_each_documented_refusal(body: dict[str, Any], mutate: Any, words: str) -> None:
    mutate(body)
    found = _run(body, "EO-VPC2")
    assert found and all(f.severity is Severity.ERROR for f in found) and words in found[0].message


def test_vpc2_dualstack_vpc_origin_is_allowed(body: dict[str, Any]) -> None:
    body["Resources"]["VpcOrigin"]["Properties"]["VpcOriginEndpointConfig"]["IpAddressType"] = "dualstack"
    assert _run(body, "EO-VPC2") == []


def test_vpc3_partial_affinity_with_cross_zone_off_is_an_error(body: dict[str, Any]) -> None:
    body["Resources"]["Nlb"]["Properties"]["LoadBalancerAttributes"] = [
        {"Key": "load_balancing.cross_zone.enabled", "Value": "false"},
        {"Key": "dns_record.client_routing_policy", "Value": "partial_availability_zone_affinity"},
    ]
    (found,) = _run(body, "EO-VPC3")
    assert found.severity is Severity.ERROR and "not documented" in found.message and "public resolver has no zone" in found.message


def test_vpc3_quiet_on_any_availability_zone(body: dict[str, Any]) -> None:
    body["Resources"]["Nlb"]["Properties"]["LoadBalancerAttributes"].append(
        {"Key": "dns_record.client_routing_policy", "Value": "any_availability_zone"}
    )
    assert _run(body, "EO-VPC3") == []


def test_vpc4_internet_facing(body: dict[str, Any]) -> None:
    body["Resources"]["Nlb"]["Properties"]["Scheme"] = "internet-facing"
    found = _run(body)
    assert [f.rule for f in found] == ["EO-VPC4"] and "internet-facing" in found[0].message


def test_sec1_meaning_on_this_path(body: dict[str, Any]) -> None:
    """An internal NLB behind a VPC origin: the prefix list admits only VPC-origin traffic, so no
    verification header is not 'every CloudFront customer' (EO-SEC1 quiet); internet-facing: it is."""
    del _origin(body)["OriginCustomHeaders"]
    assert _run(body, "EO-SEC1") == []
    body["Resources"]["Nlb"]["Properties"]["Scheme"] = "internet-facing"
    assert [f.rule for f in _run(body, "EO-SEC1")] == ["EO-SEC1"]


def test_vpc4_a_source_security_group_is_allowed(body: dict[str, Any]) -> None:
    """The VPC origin's service group (CloudFront-VPCOrigins-Service-SG) is admitted by id."""
    body["Resources"]["NlbSg"]["Properties"]["SecurityGroupIngress"] = [
        {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "SourceSecurityGroupId": "sg-0123456789abcdef0"}
    ]
    assert _run(body) == []


# --- mutmut (issue 38): whole findings, a path or listener passed over does not hide the next -----------------
VPC1 = "[CloudFront VPC origin -> internal NLB] Dist origin o (VPC origin VpcOrigin)"
SOURCE2 = ("(CloudFront Developer Guide, Restrict access with VPC origins (private-content-vpc-origins.html), as "
           "aws-cdk-lib 2.275's aws-cloudfront-origins README restates it)")


def _seen(body: dict[str, Any], rule: str) -> list[tuple[Severity, str, str, str]]:
    return [(f.severity, f.resource, f.message, f.fix) for f in _run(body, rule)]


def _vpc1_at_idle_60(where: str = "S/Listener") -> list[tuple[Severity, str, str, str]]:
    return [
        (Severity.WARNING, "Dist",
         f"{VPC1}: keepalive 60 s is not well below the idle timeout 60 s of {where} {hops.margin_words(60)}: CloudFront "
         f"may reuse a pooled connection whose flow is gone; {hops.NLB_EXPIRY}", VPC1_FIX),
        (Severity.WARNING, "Dist",
         f"{VPC1}: read timeout 60 s is not below the idle timeout 60 s of {where}: a response silent that long loses "
         "its flow at the NLB before CloudFront's own timeout answers the viewer", VPC1_FIX),
    ]


def _external_first(body: dict[str, Any]) -> None:
    """An origin whose VPC origin is not in the templates, before the origin o."""
    origins = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"]
    origins.insert(0, {"Id": "ext", "DomainName": "ext.example.com", "VpcOriginConfig": {"VpcOriginId": "vo-external"}})


def test_vpc1_an_external_vpc_origin_does_not_hide_the_next_path(body: dict[str, Any]) -> None:
    _external_first(body)
    body["Resources"]["Listener"]["Properties"]["ListenerAttributes"][0]["Value"] = "60"
    assert _seen(body, "EO-VPC1") == _vpc1_at_idle_60()


def test_vpc1_a_listener_with_a_deploy_time_idle_does_not_hide_the_next(body: dict[str, Any]) -> None:
    body["Parameters"] = {"Idle": {"Type": "String"}}
    early = copy.deepcopy(body["Resources"]["Listener"])
    early["Properties"]["Port"] = 8443
    early["Properties"]["ListenerAttributes"][0]["Value"] = {"Ref": "Idle"}
    body["Resources"] = {"Early": early, **body["Resources"]}
    body["Resources"]["Listener"]["Properties"]["ListenerAttributes"][0]["Value"] = "60"
    early_said, *rest = sorted(_seen(body, "EO-VPC1"), key=lambda f: not f[2].startswith("not judged"))
    assert rest == _vpc1_at_idle_60()
    # the early listener's idle timeout is not judged (keepalive 60 s and read 60 s are not fine at 60 s), never skipped
    assert early_said[2].startswith("not judged: Dist origin o (VPC origin VpcOrigin) -> S/Early ListenerAttributes "
                                    "tcp.idle_timeout.seconds: <Ref Idle>")


def test_vpc2_every_refusal_in_one_finding_and_the_vpc_origin_in_its_own(body: dict[str, Any]) -> None:
    r = body["Resources"]
    r["Nlb"]["Properties"].pop("SecurityGroups")
    r["Nlb"]["Properties"]["IpAddressType"] = "dualstack"
    for name in ("TlsA", "TlsB"):
        r[name] = copy.deepcopy(r["Listener"])
        r[name]["Properties"]["Protocol"] = "TLS"
    r["VpcOrigin"]["Properties"]["VpcOriginEndpointConfig"]["IpAddressType"] = "ipv6"
    assert _seen(body, "EO-VPC2") == [
        (Severity.ERROR, "Dist",
         "Dist origin o (VPC origin VpcOrigin): NLB Nlb has no security group (an NLB must have one to be a VPC origin); "
         "has IpAddressType dualstack (dual-stack NLBs can't be VPC origins); has TLS listener(s) TlsA, TlsB (NLBs with "
         f"TLS listeners can't be VPC origins) {SOURCE2}", VPC2_FIX),
        (Severity.ERROR, "VpcOrigin",
         "VPC origin VpcOrigin: IpAddressType ipv6 is not ipv4 or dualstack (CloudFront API reference VpcIpAddressType: "
         "IPv6-only is not supported for VPC origins)", VPC2_FIX),
    ]
    assert {f.rule for f in _run(body, "EO-VPC2")} == {"EO-VPC2"}


def test_vpc2_an_empty_security_group_list_is_no_security_group(body: dict[str, Any]) -> None:
    # "must have a security group attached to it" (private-content-vpc-origins.html): [] attaches none
    body["Resources"]["Nlb"]["Properties"]["SecurityGroups"] = []
    _external_first(body)
    assert _seen(body, "EO-VPC2") == [
        (Severity.ERROR, "Dist", "Dist origin o (VPC origin VpcOrigin): NLB Nlb has no security group (an NLB must "
         f"have one to be a VPC origin) {SOURCE2}", VPC2_FIX)]


def test_vpc2_ipv4_in_any_case_and_deploy_time_security_groups_are_quiet(body: dict[str, Any]) -> None:
    body["Parameters"] = {"Sgs": {"Type": "List<AWS::EC2::SecurityGroup::Id>"}}
    r = body["Resources"]
    r["Nlb"]["Properties"].update(SecurityGroups={"Ref": "Sgs"}, IpAddressType="IPV4")
    r["VpcOrigin"]["Properties"]["VpcOriginEndpointConfig"]["IpAddressType"] = "ipv4"
    assert _run(body, "EO-VPC2") == []
    r["Nlb"]["Properties"]["IpAddressType"] = "ipv4"
    assert _run(body, "EO-VPC2") == []


VPC3 = ("Zonal affinity is applied to clients that resolve through Route 53 Resolver in the VPC from a zone; a public "
        "resolver has no zone. How CloudFront's VPC origin resolves the NLB's name and spreads connections over its zonal "
        "nodes is not documented, so this setting either does nothing for CloudFront or favours the zone of wherever "
        "CloudFront resolves")
WORSE = "; with cross-zone load balancing off, the favoured zone's pods take every CloudFront connection"
UNDECIDED = ("; cross-zone load balancing is decided at deploy time: off, the favoured zone's pods take every CloudFront "
             "connection (an error)")


def _affinity(body: dict[str, Any], lb: str, cross_zone: Any) -> None:
    body["Resources"][lb]["Properties"]["LoadBalancerAttributes"] = [
        {"Key": "load_balancing.cross_zone.enabled", "Value": cross_zone},
        {"Key": "dns_record.client_routing_policy", "Value": "availability_zone_affinity"}]


@pytest.mark.parametrize(("cross_zone", "severity"), [("false", Severity.ERROR), ("true", Severity.WARNING),
                                                      ({"Ref": "P"}, Severity.WARNING)])
def test_vpc3_cross_zone_off_makes_it_an_error_only_when_decided(body: dict[str, Any], cross_zone: Any,
                                                                 severity: Severity) -> None:
    body["Parameters"] = {"P": {"Type": "String"}}
    _affinity(body, "Nlb", cross_zone)
    assert _seen(body, "EO-VPC3") == [(
        severity, "Nlb", "Dist origin o (VPC origin VpcOrigin): NLB Nlb sets dns_record.client_routing_policy "
        f"availability_zone_affinity. {VPC3}{WORSE if severity is Severity.ERROR else UNDECIDED if isinstance(cross_zone, dict) else ''}",
        VPC3_FIX)]


def test_vpc3_an_affinity_beside_a_deploy_time_attribute_is_still_judged(body: dict[str, Any]) -> None:
    body["Parameters"] = {"P": {"Type": "String"}}
    _affinity(body, "Nlb", "true")
    body["Resources"]["Nlb"]["Properties"]["LoadBalancerAttributes"].append({"Ref": "P"})
    assert [severity for severity, *_ in _seen(body, "EO-VPC3")] == [Severity.WARNING]


def _second_path(body: dict[str, Any], origin_id: str, vpc_origin: str, lb: str, lb_type: str = "network") -> None:
    """Origin ``origin_id`` -> VPC origin ``vpc_origin`` -> load balancer ``lb`` (a copy of Nlb), each made once."""
    r = body["Resources"]
    if vpc_origin not in r:
        r[vpc_origin] = copy.deepcopy(r["VpcOrigin"])
        r[vpc_origin]["Properties"]["VpcOriginEndpointConfig"]["Arn"] = {"Ref": lb}
    if lb not in r:
        r[lb] = copy.deepcopy(r["Nlb"])
        r[lb]["Properties"]["Type"] = lb_type
    origins = r["Dist"]["Properties"]["DistributionConfig"]["Origins"]
    origins.append(dict(copy.deepcopy(origins[0]), Id=origin_id,
                        VpcOriginConfig={"VpcOriginId": {"Fn::GetAtt": [vpc_origin, "Id"]}}))


def test_vpc3_each_nlb_once_and_what_is_passed_over_does_not_hide_it(body: dict[str, Any]) -> None:
    _external_first(body)  # no load balancer in the templates
    _second_path(body, "alb", "VpcOriginAlb", "Alb", lb_type="application")
    _affinity(body, "Alb", "false")  # not an NLB: not judged here
    _second_path(body, "o2", "VpcOrigin2", "Nlb2")
    _affinity(body, "Nlb2", "true")
    _second_path(body, "o3", "VpcOrigin2", "Nlb2")  # the same NLB again: one finding
    assert _seen(body, "EO-VPC3") == [(
        Severity.WARNING, "Nlb2", "Dist origin o2 (VPC origin VpcOrigin2): NLB Nlb2 sets dns_record.client_routing_policy "
        f"availability_zone_affinity. {VPC3}", VPC3_FIX)]


VPC4_ADMITS = ("Dist origin o (VPC origin VpcOrigin): load balancer Nlb admits {} on its listener port besides CloudFront: "
               "the origin is not reachable only through the VPC origin")


def _ingress(body: dict[str, Any], *extra: dict[str, Any]) -> None:
    """NlbSg keeps the CloudFront prefix list and gains ``extra``; Nlb also names a group outside the templates first."""
    r = body["Resources"]
    r["NlbSg"]["Properties"]["SecurityGroupIngress"] += [dict({"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443}, **e)
                                                         for e in extra]
    r["Nlb"]["Properties"]["SecurityGroups"].insert(0, "sg-0external")


OTHERS = ({"CidrIp": "10.0.0.0/8"}, {"CidrIp": "192.168.0.0/16", "FromPort": 22, "ToPort": 22},
          {"CidrIp": "172.31.0.0/16", "FromPort": {"Ref": "Port"}}, {"CidrIpv6": "::/0"}, {"SourcePrefixListId": "pl-0other"})


@pytest.mark.parametrize(("extra", "admits"), [
    ((), "10.0.0.0/8 in NlbSg, ::/0 in NlbSg, prefix list pl-0other in NlbSg"),
    (({"CidrIp": "172.16.0.0/12"},), "10.0.0.0/8 in NlbSg, ::/0 in NlbSg, prefix list pl-0other in NlbSg and 1 more"),
])
def test_vpc4_the_sources_it_names_and_the_ones_it_passes_over(body: dict[str, Any], extra: tuple, admits: str) -> None:
    body["Parameters"] = {"Port": {"Type": "Number"}}
    _ingress(body, *OTHERS, *extra)  # port 22 is not the listener's; a deploy-time port is not judged
    assert _seen(body, "EO-VPC4") == [
        (Severity.WARNING, "Nlb", VPC4_ADMITS.format(admits), VPC4_FIX),
        (Severity.WARNING, "Nlb", "not judged: Dist origin o (VPC origin VpcOrigin): load balancer Nlb admits "
         '172.31.0.0/16 in NlbSg on its listener port?: "<Ref Port>" (decided at deploy time: a parameter without '
         "Default; it may admit them besides CloudFront, around the VPC origin)",
         "To let edge-origin judge it: give the parameter a Default (or check with the value you deploy)"),
    ]


def test_vpc4_internet_facing_reads_in_full_once_per_nlb_after_a_path_passed_over(body: dict[str, Any]) -> None:
    _external_first(body)
    _second_path(body, "o2", "VpcOrigin", "Nlb")  # a second origin through the same VPC origin and NLB
    body["Resources"]["Nlb"]["Properties"]["Scheme"] = "internet-facing"
    assert _seen(body, "EO-VPC4") == [(
        Severity.WARNING, "Nlb", "Dist origin o (VPC origin VpcOrigin): load balancer Nlb is internet-facing: the VPC "
        "origin does not take away its public addresses, so the origin stays reachable around CloudFront (and EO-SEC1 "
        "applies)", VPC4_FIX)]
