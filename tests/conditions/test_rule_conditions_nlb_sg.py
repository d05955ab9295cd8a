"""Each condition of EO-NLB1, EO-NLB2, EO-NLB3 and EO-SG1: one edit of the quiet world makes exactly the
findings named (resource + phrase); the other side of every boundary is quiet."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import findings, one, quiet, res, set_attribute, world

from edge_origin.core.findings import Severity
from edge_origin.profile import PROFILE_METADATA_KEY
from edge_origin.rules.sg1_health_checkers import route53_health_checkers

IDLE = "tcp.idle_timeout.seconds"
TRACKING = "[target connection tracking]"
PATH = "Listener (TCP :443) of Nlb on the path of gRPC origin o.example.com"


def set_idle(body: dict[str, Any], value: Any) -> None:
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, value)


def messages(body: dict[str, Any], rule_id: str) -> list[tuple[str, Severity, str]]:
    return [(f.resource, f.severity, f.message) for f in findings(body, rule_id)]


# --- EO-NLB1: the listener's protocol --------------------------------------------------------------------
def test_nlb1_tls_listener_without_the_attribute_is_one_warning() -> None:
    body = world()
    res(body, "Listener")["Protocol"] = "TLS"
    set_idle(body, None)
    f = one(body, "EO-NLB1", "Listener", Severity.WARNING, "[NLB listener] Listener (TLS :443) of Nlb",
            "is TLS: its idle timeout is fixed at 350 s and cannot be raised")
    assert "TCP listeners only" not in f.message


def test_nlb1_tls_listener_setting_the_attribute_is_told_it_does_nothing() -> None:
    body = world()
    res(body, "Listener")["Protocol"] = "TLS"
    found = messages(body, "EO-NLB1")
    assert len(found) == 2, found
    assert all(r == "Listener" and s is Severity.WARNING for r, s, _ in found)
    assert sum("is TLS: its idle timeout is fixed" in m for _, _, m in found) == 1
    assert sum(f"sets {IDLE}, which AWS documents for TCP listeners only" in m and "(fixed for TLS listeners)" in m
               for _, _, m in found) == 1


def test_nlb1_tls_listener_with_a_deploy_time_attribute_is_only_the_tls_warning() -> None:
    body = world()
    body["Parameters"] = {"Idle": {"Type": "String"}}
    res(body, "Listener")["Protocol"] = "TLS"
    set_idle(body, {"Ref": "Idle"})
    one(body, "EO-NLB1", "Listener", Severity.WARNING, "is TLS")


@pytest.mark.parametrize("protocol", ["UDP", "TCP_UDP"])
def test_nlb1_udp_listener_without_the_attribute_gets_the_protocol_note(protocol: str) -> None:
    body = world()
    res(body, "Listener")["Protocol"] = protocol
    set_idle(body, None)
    one(body, "EO-NLB1", "Listener", Severity.WARNING, f"Listener ({protocol} :443) of Nlb",
        f"{protocol} listener: tcp.idle_timeout.seconds is a TCP-listener attribute")


def test_nlb1_tcp_udp_listener_is_not_judged_against_tracking() -> None:
    body = world()
    res(body, "Listener")["Protocol"] = "TCP_UDP"
    set_idle(body, "600")
    found = messages(body, "EO-NLB1")
    assert len(found) == 2 and not any(TRACKING in m for _, _, m in found), found


# --- EO-NLB1: a TCP listener's attribute -----------------------------------------------------------------
def test_nlb1_tcp_listener_without_the_attribute_warns_of_the_default() -> None:
    body = world()
    set_idle(body, None)
    one(body, "EO-NLB1", "Listener", Severity.WARNING, f"[NLB listener] {PATH} has no {IDLE}: the 350 s default applies",
        "without sending FIN or RST")


RANGE_FIX = "Use a whole number of seconds in 60..6000."


@pytest.mark.parametrize("value", ["abc", "350.5"])
def test_nlb1_attribute_not_a_whole_number_is_an_error(value: str) -> None:
    body = world()
    set_idle(body, value)
    f = one(body, "EO-NLB1", "Listener", Severity.ERROR,
            f"{PATH}: {IDLE} {value!r} is not a whole number of seconds in 60..6000", "the API refuses it")
    assert f.fix == RANGE_FIX


def test_nlb1_a_long_attribute_value_is_cut_at_40_characters() -> None:
    body = world()
    set_idle(body, "x" * 39 + "yz")
    f = one(body, "EO-NLB1", "Listener", Severity.ERROR, f"{IDLE} {'x' * 39 + 'y'!r} is not a whole number")
    assert "yz" not in f.message


def test_nlb1_attribute_decided_at_deploy_time_is_not_judged() -> None:
    body = world()
    body["Parameters"] = {"Idle": {"Type": "String"}}
    set_idle(body, {"Ref": "Idle"})
    one(body, "EO-NLB1", "Listener", Severity.WARNING,
        f'not judged: {PATH}: {IDLE}: "<Ref Idle>" (decided at deploy time: a parameter without Default;')
    body["Parameters"]["Idle"]["Default"] = "300"  # decided: in range, within the targets' tracking
    quiet(body, "EO-NLB1")
    body["Parameters"]["Idle"]["Default"] = "30"
    one(body, "EO-NLB1", "Listener", Severity.ERROR, f"{PATH}: {IDLE} 30 s is outside the NLB TCP idle timeout range")


@pytest.mark.parametrize("value", [59, 6001])
def test_nlb1_attribute_out_of_range_is_an_error_and_only_that(value: int) -> None:
    body = world()
    set_idle(body, str(value))
    f = one(body, "EO-NLB1", "Listener", Severity.ERROR,
            f"{PATH}: {IDLE} {value} s is outside the NLB TCP idle timeout range 60..6000", "the deploy is refused")
    assert f.fix == RANGE_FIX


@pytest.mark.parametrize("value", [60, 350])
def test_nlb1_attribute_in_range_and_within_tracking_is_quiet(value: int) -> None:
    body = world()
    set_idle(body, str(value))
    quiet(body, "EO-NLB1")


# --- EO-NLB1: the targets' connection tracking ----------------------------------------------------------
@pytest.mark.parametrize("value", [351, 6000])
def test_nlb1_idle_above_the_350_s_tracking_default_fires_per_target_group(value: int) -> None:
    body = world()
    set_idle(body, str(value))
    one(body, "EO-NLB1", "Listener", Severity.WARNING, TRACKING,
        f"idle timeout {value} s is above 350 s and target group Targets (ip targets)")


def test_nlb1_absent_target_type_is_instance_and_tracked() -> None:
    body = world()
    set_idle(body, "351")
    res(body, "Targets").pop("TargetType")
    one(body, "EO-NLB1", "Listener", Severity.WARNING, TRACKING, "target group Targets (instance targets)")


def test_nlb1_alb_targets_are_not_tracked() -> None:
    body = world()
    set_idle(body, "351")
    res(body, "Targets")["TargetType"] = "alb"
    quiet(body, "EO-NLB1")


def _declare_tracking(body: dict[str, Any], idle: int, tracking: int | None) -> None:
    profile: dict[str, Any] = {"nlb_idle_timeout_s": idle}
    if tracking is not None:
        profile["target_tcp_established_timeout_s"] = tracking
    body["Resources"]["Listener"]["Metadata"] = {PROFILE_METADATA_KEY: profile}


@pytest.mark.parametrize(("idle", "tracking", "fires"), [(500, 500, False), (501, 500, True), (351, None, True)])
def test_nlb1_tracking_declared_in_the_listener_profile(idle: int, tracking: int | None, fires: bool) -> None:
    body = world()
    set_idle(body, str(idle))
    _declare_tracking(body, idle, tracking)
    if fires:
        one(body, "EO-NLB1", "Listener", Severity.WARNING, TRACKING,
            f"idle timeout {idle} s is above {tracking or 350} s")
    else:
        quiet(body, "EO-NLB1")


def test_nlb1_a_profile_that_does_not_parse_keeps_the_350_s_default() -> None:
    body = world()
    set_idle(body, "351")
    body["Resources"]["Listener"]["Metadata"] = {PROFILE_METADATA_KEY: {"target_tcp_established": 600}}
    one(body, "EO-NLB1", "Listener", Severity.WARNING, TRACKING, "is above 350 s")


def test_nlb1_a_listener_on_two_origin_paths_is_judged_once() -> None:
    body = world()
    set_idle(body, None)
    for record in ("RecordA", "RecordB"):  # a second origin name with the same EIPs
        copy_ = dict(body["Resources"][record], Properties=dict(res(body, record), Name="p.example.com",
                                                                  HealthCheckId={"Ref": "CheckA" if record == "RecordA" else "CheckB"}))
        body["Resources"][record + "P"] = copy_
    origins = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"]
    origins.append(dict(origins[0], Id="p", DomainName="p.example.com."))
    one(body, "EO-NLB1", "Listener", Severity.WARNING, "has no tcp.idle_timeout.seconds")


# --- EO-NLB2: multivalue origin records on the NLB's EIPs ------------------------------------------------
NLB2_TAIL = "(gRPC origin o.example.com): health checks and answers drift from the fleet"


def _record_a_holds(body: dict[str, Any], *values: Any) -> None:
    res(body, "RecordA")["ResourceRecords"] = list(values)


def _add(body: dict[str, Any], logical_id: str, type_: str, props: dict[str, Any]) -> None:
    body["Resources"][logical_id] = {"Type": type_, "Properties": props}


def test_nlb2_eip_attached_to_no_load_balancer_fires() -> None:
    body = world()
    _add(body, "EipC", "AWS::EC2::EIP", {"Domain": "vpc"})
    _record_a_holds(body, {"Ref": "EipC"})
    one(body, "EO-NLB2", "RecordA", Severity.ERROR, f"RecordA: value EIP EipC is not attached to any NLB subnet mapping {NLB2_TAIL}")


def test_nlb2_eip_attached_only_to_a_non_network_load_balancer_fires() -> None:
    body = world()
    _add(body, "EipC", "AWS::EC2::EIP", {"Domain": "vpc"})
    _add(body, "Alb", "AWS::ElasticLoadBalancingV2::LoadBalancer", {
        "Type": "application",
        "SubnetMappings": [{"SubnetId": {"Ref": "SubnetA"}, "AllocationId": {"Fn::GetAtt": ["EipC", "AllocationId"]}}],
    })
    _record_a_holds(body, {"Ref": "EipC"})
    one(body, "EO-NLB2", "RecordA", Severity.ERROR, "value EIP EipC is not attached to any NLB subnet mapping")


def test_nlb2_reference_to_something_else_fires() -> None:
    body = world()
    _record_a_holds(body, {"Ref": "SubnetA"})
    one(body, "EO-NLB2", "RecordA", Severity.ERROR, f"RecordA: value S/SubnetA is not an EIP {NLB2_TAIL}")


def test_nlb2_literal_address_fires() -> None:
    body = world()
    _record_a_holds(body, {"Ref": "EipA"}, "192.0.2.1")
    one(body, "EO-NLB2", "RecordA", Severity.ERROR,
        f"RecordA: value 192.0.2.1 is a literal address, not an EIP of an NLB in these templates {NLB2_TAIL}")


def test_nlb2_long_lived_origin_is_a_warning() -> None:
    body = world()
    del body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["DefaultCacheBehavior"]["GrpcConfig"]
    _record_a_holds(body, "192.0.2.1")
    one(body, "EO-NLB2", "RecordA", Severity.WARNING, "192.0.2.1 is a literal address",
        "(long-lived origin o.example.com (CloudFront origin on NLBs))")


def test_nlb2_value_decided_at_deploy_time_is_quiet() -> None:
    body = world()
    body["Parameters"] = {"Ip": {"Type": "String"}}
    _record_a_holds(body, {"Ref": "Ip"})
    quiet(body, "EO-NLB2")


def test_nlb2_without_any_nlb_in_the_templates_is_quiet() -> None:
    body = world()
    res(body, "Nlb")["Type"] = "application"
    _record_a_holds(body, "192.0.2.1")
    quiet(body, "EO-NLB2")


def test_nlb2_private_address_of_an_nlb_subnet_mapping_is_quiet() -> None:
    body = world()
    res(body, "Nlb")["SubnetMappings"][0]["PrivateIPv4Address"] = "10.0.0.10"
    _record_a_holds(body, "10.0.0.10")
    quiet(body, "EO-NLB2")
    _record_a_holds(body, "10.0.0.11")
    one(body, "EO-NLB2", "RecordA", Severity.ERROR, "value 10.0.0.11 is a literal address")


def test_nlb2_private_address_of_a_non_network_load_balancer_does_not_count() -> None:
    body = world()
    _add(body, "Alb", "AWS::ElasticLoadBalancingV2::LoadBalancer", {
        "Type": "application", "SubnetMappings": [{"SubnetId": {"Ref": "SubnetA"}, "PrivateIPv4Address": "10.0.0.10"}],
    })
    _record_a_holds(body, "10.0.0.10")
    one(body, "EO-NLB2", "RecordA", Severity.ERROR, "value 10.0.0.10 is a literal address")


def test_nlb2_records_of_other_policies_and_types_are_not_its_business() -> None:
    body = world()
    record = res(body, "RecordA")
    record.pop("MultiValueAnswer")
    record["Weight"] = 1
    _record_a_holds(body, "192.0.2.1")
    quiet(body, "EO-NLB2")
    body = world()
    res(body, "RecordA")["Type"] = "AAAA"
    _record_a_holds(body, "2001:db8::1")
    quiet(body, "EO-NLB2")


def test_nlb2_a_record_two_origin_names_reach_is_reported_once() -> None:
    body = world()
    _record_a_holds(body, "192.0.2.1")
    _add(body, "Alias", "AWS::Route53::RecordSet", {
        "HostedZoneName": "example.com.", "Name": "p.example.com", "Type": "CNAME", "TTL": 60,
        "ResourceRecords": ["o.example.com"],
    })
    origins = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"]
    origins.append(dict(origins[0], Id="p", DomainName="p.example.com."))
    one(body, "EO-NLB2", "RecordA", Severity.ERROR, "value 192.0.2.1 is a literal address")


# --- EO-SG1: the NLB's security group and the Route 53 health checkers ------------------------------------
CHECKER_REGIONS = route53_health_checkers()["regions"]
GLOBAL = CHECKER_REGIONS["GLOBAL"]
REGIONAL = [c for r, cidrs in CHECKER_REGIONS.items() if r != "GLOBAL" for c in cidrs]


def sg_world(cidrs: list[str] | None = None, port: int = 443, **rule: Any) -> dict[str, Any]:
    """The quiet world with a security group on the NLB admitting ``cidrs`` (all checkers) on ``port``."""
    body = world()
    ingress = [dict({"IpProtocol": "tcp", "FromPort": port, "ToPort": port, "CidrIp": c}, **rule)
               for c in (GLOBAL + REGIONAL if cidrs is None else cidrs)]
    body["Resources"]["NlbSg"] = {"Type": "AWS::EC2::SecurityGroup", "Properties": {
        "GroupDescription": "origin NLB", "VpcId": "vpc-1", "SecurityGroupIngress": ingress}}
    res(body, "Nlb")["SecurityGroups"] = [{"Fn::GetAtt": ["NlbSg", "GroupId"]}]
    return body


def checks(body: dict[str, Any], **config: Any) -> None:
    """Change both health checks' HealthCheckConfig (None drops a key)."""
    for check in ("CheckA", "CheckB"):
        cfg = res(body, check)["HealthCheckConfig"]
        cfg.update(config)
        for key in [k for k, v in config.items() if v is None]:
            cfg.pop(key)


def test_sg1_every_checker_admitted_is_quiet() -> None:
    quiet(sg_world(), "EO-SG1")


def test_sg1_nothing_admitted_is_one_error_on_the_nlb() -> None:
    one(sg_world([]), "EO-SG1", "Nlb", Severity.ERROR,
        f"NLB Nlb: security group(s) NlbSg do not admit {len(GLOBAL) + len(REGIONAL)} Route 53 health-checker range(s) "
        "on port 443 (health check CheckA, checker regions us-east-1,",
        f"(all: no Regions given); e.g. {CHECKER_REGIONS['us-east-1'][0]})",
        "only 0% of the checkers get through", "more than 18% healthy")


@pytest.mark.parametrize(("check_type", "port"), [("HTTP", 80), ("HTTP_STR_MATCH", 80), ("HTTPS", 443),
                                                  ("HTTPS_STR_MATCH", 443), ("https", 443), ("http", 80)])
def test_sg1_default_port_of_each_check_type(check_type: str, port: int) -> None:
    body = sg_world(port=port)
    checks(body, Type=check_type, Port=None)
    quiet(body, "EO-SG1")
    for other in (port - 1, port + 1):
        body = sg_world(port=other)
        checks(body, Type=check_type, Port=None)
        one(body, "EO-SG1", "Nlb", Severity.ERROR, f"range(s) on port {port} (health check CheckA")


def test_sg1_explicit_port_overrides_the_default() -> None:
    body = sg_world(port=443)
    checks(body, Type="HTTPS", Port=8443)
    one(body, "EO-SG1", "Nlb", Severity.ERROR, "on port 8443")
    body = sg_world(port=8443)
    checks(body, Type="HTTPS", Port=8443)
    quiet(body, "EO-SG1")


def test_sg1_tcp_check_without_a_port_is_not_judged() -> None:
    body = sg_world([])
    checks(body, Port=None)
    quiet(body, "EO-SG1")


def test_sg1_check_of_a_literal_address_is_not_judged() -> None:
    body = sg_world([])
    checks(body, IPAddress="192.0.2.1")
    quiet(body, "EO-SG1")


def test_sg1_nlb_without_security_groups_is_not_judged() -> None:
    body = sg_world([])
    res(body, "Nlb").pop("SecurityGroups")
    quiet(body, "EO-SG1")


def test_sg1_security_group_outside_the_templates_is_not_judged() -> None:
    body = sg_world([])
    res(body, "Nlb")["SecurityGroups"].append("sg-0123456789abcdef0")
    one(body, "EO-SG1", "Nlb", Severity.WARNING, "not judged: ", "sg-0123456789abcdef0")  # said, never silence


def test_sg1_ingress_decided_at_deploy_time_is_not_judged() -> None:
    body = sg_world([])
    body["Parameters"] = {"Port": {"Type": "Number"}, "Cidr": {"Type": "String"}}
    res(body, "NlbSg")["SecurityGroupIngress"] = [{"IpProtocol": "tcp", "FromPort": {"Ref": "Port"}, "ToPort": 443,
                                                   "CidrIp": "10.0.0.0/8"}]
    one(body, "EO-SG1", "Nlb", Severity.WARNING, "not judged: ")
    res(body, "NlbSg")["SecurityGroupIngress"] = [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443,
                                                   "CidrIp": {"Ref": "Cidr"}}]
    one(body, "EO-SG1", "Nlb", Severity.WARNING, "not judged: ")
    res(body, "NlbSg")["SecurityGroupIngress"] = {"Ref": "Cidr"}
    one(body, "EO-SG1", "Nlb", Severity.WARNING, "not judged: ")


def test_sg1_prefix_lists() -> None:
    body = sg_world([])
    res(body, "NlbSg")["SecurityGroupIngress"] = [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443,
                                                   "SourcePrefixListId": "pl-0123456789abcdef0"}]
    one(body, "EO-SG1", "Nlb", Severity.WARNING, "not judged: ", "pl-0123456789abcdef0")  # a list we cannot see into
    res(body, "NlbSg")["SecurityGroupIngress"][0]["SourcePrefixListId"] = "pl-3b927c52"  # CloudFront's: no checkers
    one(body, "EO-SG1", "Nlb", Severity.ERROR, "only 0% of the checkers")


def test_sg1_rules_on_other_ports_and_bad_cidrs_admit_nothing() -> None:
    body = sg_world()
    res(body, "NlbSg")["SecurityGroupIngress"].append({"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443,
                                                       "CidrIp": "not-a-cidr"})
    quiet(body, "EO-SG1")
    body = sg_world([*GLOBAL, *REGIONAL, "not-a-cidr"])
    res(body, "NlbSg")["SecurityGroupIngress"][0]["FromPort"] = 444  # the GLOBAL range on another port
    res(body, "NlbSg")["SecurityGroupIngress"][0]["ToPort"] = 444
    one(body, "EO-SG1", "Nlb", Severity.ERROR, "do not admit 1 Route 53 health-checker range(s)", f"e.g. {GLOBAL[0]})")


def test_sg1_a_port_range_covering_the_port_admits() -> None:
    quiet(sg_world(FromPort=400, ToPort=500), "EO-SG1")
    one(sg_world(FromPort=444, ToPort=500), "EO-SG1", "Nlb", Severity.ERROR, "on port 443")


def test_sg1_anywhere_admits_all_and_half_the_internet_does_not() -> None:
    quiet(sg_world(["0.0.0.0/0"]), "EO-SG1")
    quiet(sg_world(["0.0.0.0/1", "128.0.0.0/1"]), "EO-SG1")
    blocked = [c for c in GLOBAL + REGIONAL if not c.startswith(("15.", "54.", "107."))]
    found = findings(sg_world(["0.0.0.0/1"]), "EO-SG1")
    assert blocked and len(found) == 1 and found[0].resource == "Nlb", found
    assert f"do not admit {len(blocked)} Route 53 health-checker range(s)" in found[0].message


def test_sg1_global_ranges_are_needed_in_every_region() -> None:
    one(sg_world(REGIONAL), "EO-SG1", "Nlb", Severity.ERROR, "do not admit 1 Route 53", "only 0% of the checkers")


def test_sg1_some_regions_blocked_is_a_warning_naming_them() -> None:
    admitted = GLOBAL + [c for r in ("us-east-1", "us-west-1") for c in CHECKER_REGIONS[r]]
    checks(body := sg_world(admitted), Regions=["us-east-1", "us-west-1", "eu-west-1"])
    f = one(body, "EO-SG1", "Nlb", Severity.WARNING, "checker regions us-east-1, us-west-1, eu-west-1;",
            "checkers of eu-west-1 are blocked; 67% get through")
    assert "(all: no Regions given)" not in f.message


def test_sg1_one_nlb_port_is_reported_once_for_two_checks() -> None:
    found = findings(sg_world([]), "EO-SG1")
    assert [(f.resource, f.severity) for f in found] == [("Nlb", Severity.ERROR)]
