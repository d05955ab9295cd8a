"""EO-VPC2 and EO-VPC4 on values decided at deploy time: "not judged" where the value may lead to a refusal or an
opening around CloudFront, the judged verdict once the parameter has a Default, and a verdict without the value where
every value it may have gives the same answer (an ingress rule of protocol -1 or udp)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.model.values import Unresolved
from edge_origin.model.views import IngressRule
from edge_origin.rules import get_rule, run_rules
from edge_origin.rules.vpc4_reachable_around_cloudfront import _covers

QUIET = Path(__file__).parents[1] / "fixtures" / "templates" / "rules" / "eo-vpc1-quiet.yaml"
LABEL = "Dist origin o (VPC origin VpcOrigin)"
NEEDS = "To let edge-origin judge it: give the parameter a Default (or check with the value you deploy)"
_BODY = read_template_file(QUIET).body


def _body(default: Any = None) -> dict[str, Any]:
    body = copy.deepcopy(_BODY)
    body["Parameters"] = {"P": {"Type": "String"} if default is None else {"Type": "String", "Default": default}}
    return body


def _props(body: dict[str, Any], logical_id: str) -> dict[str, Any]:
    return body["Resources"][logical_id]["Properties"]


def _run(body: dict[str, Any], rule: str) -> list[Finding]:
    return run_rules(TemplateModel.from_templates({"S": body}), [get_rule(rule)])


def _not_judged(found: list[Finding], resource: str, *phrases: str) -> None:
    assert len(found) == 1, [f.message for f in found]
    (f,) = found
    assert (f.severity, f.resource) == (Severity.WARNING, resource) and f.message.startswith("not judged: "), f
    for phrase in phrases:
        assert phrase in f.message, (phrase, f.message)


# --- EO-VPC2 ----------------------------------------------------------------------------------------------------
def _tls_listener(body: dict[str, Any]) -> dict[str, Any]:
    _props(body, "Listener")["Protocol"] = {"Ref": "P"}
    return body


def test_vpc2_a_listener_protocol_that_may_be_tls_is_not_judged_and_tls_is_refused() -> None:
    _not_judged(_run(_tls_listener(_body()), "EO-VPC2"), "Dist",
                f'{LABEL}: NLB Nlb listener Listener Protocol: "<Ref P>" (decided at deploy time: a parameter without '
                "Default; it may be TLS (NLBs with TLS listeners can't be VPC origins))")
    (f,) = _run(_tls_listener(_body("TLS")), "EO-VPC2")
    assert f.severity is Severity.ERROR and "has TLS listener(s) Listener" in f.message
    assert _run(_tls_listener(_body("TCP")), "EO-VPC2") == []


def test_vpc2_an_nlb_ip_address_type_decided_at_deploy_is_not_judged() -> None:
    body = _body()
    _props(body, "Nlb")["IpAddressType"] = {"Ref": "P"}
    _not_judged(_run(body, "EO-VPC2"), "Dist", 'NLB Nlb IpAddressType: "<Ref P>"', "it may be dualstack")
    body["Parameters"]["P"]["Default"] = "dualstack"
    assert [f.severity for f in _run(body, "EO-VPC2")] == [Severity.ERROR]


def test_vpc2_a_load_balancer_type_decided_at_deploy_is_not_judged_when_as_an_nlb_it_is_refused() -> None:
    body = _body()
    _props(body, "Nlb")["Type"] = {"Ref": "P"}
    assert _run(body, "EO-VPC2") == []  # as an NLB it is fine (a security group, ipv4, TCP): fine either way
    del _props(body, "Nlb")["SecurityGroups"]
    _not_judged(_run(body, "EO-VPC2"), "Nlb", "load balancer Nlb Type", "has no security group")
    body["Parameters"]["P"]["Default"] = "network"
    assert [f.severity for f in _run(body, "EO-VPC2")] == [Severity.ERROR]
    body["Parameters"]["P"]["Default"] = "application"
    assert _run(body, "EO-VPC2") == []


def test_vpc2_a_vpc_origin_ip_address_type_decided_at_deploy_is_not_judged() -> None:
    body = _body()
    _props(body, "VpcOrigin")["VpcOriginEndpointConfig"]["IpAddressType"] = {"Ref": "P"}
    _not_judged(_run(body, "EO-VPC2"), "VpcOrigin", 'VPC origin VpcOrigin: IpAddressType: "<Ref P>"')
    body["Parameters"]["P"]["Default"] = "ipv6"
    assert [f.severity for f in _run(body, "EO-VPC2")] == [Severity.ERROR]


def test_vpc2_a_tls_listener_of_undecided_load_balancer_may_be_the_vpc_origins() -> None:
    body = _body()
    _props(body, "Listener")["LoadBalancerArn"] = {"Ref": "P"}
    assert _run(body, "EO-VPC2") == []  # a TCP listener: fine on any load balancer
    _props(body, "Listener")["Protocol"] = "TLS"
    _not_judged(_run(body, "EO-VPC2"), "Listener", 'listener Listener LoadBalancerArn: "<Ref P>"',
                "it may be the NLB of a VPC origin (Nlb), and the listener is TLS")


# --- EO-VPC4 ----------------------------------------------------------------------------------------------------
def _open(body: dict[str, Any], **rule: Any) -> dict[str, Any]:
    _props(body, "NlbSg")["SecurityGroupIngress"].append(dict({"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443,
                                                               "CidrIp": "10.0.0.0/16"}, **rule))
    return body


@pytest.mark.parametrize("field", ["IpProtocol", "FromPort", "ToPort"])
def test_vpc4_an_ingress_rule_whose_protocol_or_port_is_decided_at_deploy_is_not_judged(field: str) -> None:
    _not_judged(_run(_open(_body(), **{field: {"Ref": "P"}}), "EO-VPC4"), "Nlb",
                f'{LABEL}: load balancer Nlb admits 10.0.0.0/16 in NlbSg on its listener port?: "<Ref P>" (decided at '
                "deploy time: a parameter without Default; it may admit them besides CloudFront, around the VPC origin)")
    judged = _run(_open(_body("tcp" if field == "IpProtocol" else "443"), **{field: {"Ref": "P"}}), "EO-VPC4")
    assert [(f.severity, "admits 10.0.0.0/16 in NlbSg" in f.message) for f in judged] == [(Severity.WARNING, True)]
    assert judged[0].fix == _run(_open(_body()), "EO-VPC4")[0].fix


@pytest.mark.parametrize(("rule", "fires"), [
    ({"IpProtocol": "udp", "FromPort": {"Ref": "P"}}, False),  # no TCP port, whatever the ports
    ({"IpProtocol": "-1", "ToPort": {"Ref": "P"}}, True),  # every port, whatever the ports
    ({"FromPort": 444, "ToPort": {"Ref": "P"}}, False),  # starts above the listener's 443
    ({"FromPort": {"Ref": "P"}, "ToPort": 442}, False),  # ends below it
])
def test_vpc4_decides_where_every_value_gives_one_answer(rule: dict[str, Any], fires: bool) -> None:
    found = _run(_open(_body(), **rule), "EO-VPC4")
    assert [f.severity for f in found] == ([Severity.WARNING] if fires else [])
    assert all(not f.message.startswith("not judged") for f in found)


def test_vpc4_a_scheme_decided_at_deploy_is_not_judged() -> None:
    body = _body()
    _props(body, "Nlb")["Scheme"] = {"Ref": "P"}
    _not_judged(_run(body, "EO-VPC4"), "Nlb", 'load balancer Nlb Scheme: "<Ref P>"', "it may be internet-facing")
    body["Parameters"]["P"]["Default"] = "internet-facing"
    assert [f.severity for f in _run(body, "EO-VPC4")] == [Severity.WARNING]
    body["Parameters"]["P"]["Default"] = "internal"
    assert _run(body, "EO-VPC4") == []


def test_vpc4_a_prefix_list_decided_at_deploy_may_be_cloudfronts_and_is_not_judged() -> None:
    body = _body()
    _props(body, "NlbSg")["SecurityGroupIngress"][0]["SourcePrefixListId"] = {"Ref": "P"}
    _not_judged(_run(body, "EO-VPC4"), "Nlb", "admits prefix list <Ref P> in NlbSg on its listener port?")
    body["Parameters"]["P"]["Default"] = "pl-3b927c52"
    assert _run(body, "EO-VPC4") == []


def test_vpc4_a_security_group_or_ingress_list_decided_at_deploy_is_not_judged() -> None:
    body = _body()
    _props(body, "Nlb")["SecurityGroups"] = {"Ref": "P"}
    _not_judged(_run(body, "EO-VPC4"), "Nlb", "admits what security group <Ref P> admits on its listener port?")
    body = _body()
    body["Parameters"]["Flag"] = {"Type": "String"}
    body["Conditions"] = {"C": {"Fn::Equals": [{"Ref": "Flag"}, "yes"]}}
    _props(body, "NlbSg")["SecurityGroupIngress"].append(
        {"Fn::If": ["C", {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": "0.0.0.0/0"}, {"Ref": "AWS::NoValue"}]})
    _not_judged(_run(body, "EO-VPC4"), "Nlb", "admits what the ingress rules of NlbSg admit on its listener port?",
                "a condition the templates cannot decide")


@pytest.mark.parametrize(("rule", "verdict"), [
    ({}, "not judged"),  # tcp 443: the port may be another
    ({"IpProtocol": "-1"}, "judged"),  # every port
    ({"FromPort": 0, "ToPort": 65535}, "judged"),  # every TCP port
    ({"IpProtocol": "udp"}, "quiet"),  # no TCP port
])
def test_vpc4_a_listener_port_decided_at_deploy(rule: dict[str, Any], verdict: str) -> None:
    body = _open(_body(), **rule)
    _props(body, "Listener")["Port"] = {"Ref": "P"}
    found = _run(body, "EO-VPC4")
    if verdict == "quiet":
        assert found == []
    elif verdict == "judged":
        assert [(f.severity, f.message.startswith("not judged")) for f in found] == [(Severity.WARNING, False)]
    else:
        _not_judged(found, "Nlb", 'admits 10.0.0.0/16 in NlbSg on its listener port?: "<Ref P>"')


def test_vpc4_a_second_listener_of_undecided_port_may_be_the_one_a_rule_opens() -> None:
    body = _open(_body(), FromPort=8443, ToPort=8443)
    assert _run(body, "EO-VPC4") == []  # 8443 is not the listener's 443
    second = copy.deepcopy(body["Resources"]["Listener"])
    second["Properties"]["Port"] = {"Ref": "P"}
    body["Resources"]["Second"] = second
    _not_judged(_run(body, "EO-VPC4"), "Nlb", "admits 10.0.0.0/16 in NlbSg on its listener port?")
    body["Parameters"]["P"]["Default"] = "8443"
    assert [f.severity for f in _run(body, "EO-VPC4")] == [Severity.WARNING]


PROTOCOLS = ("tcp", "6", "udp", "icmp", "-1", "all")
PORTS = (-1, 0, 80, 442, 443, 444, 8443, 65535)
UNDECIDED = Unresolved("parameter", "Ref P")


@settings(max_examples=50, deadline=None)
@given(protocol=st.sampled_from(PROTOCOLS), low=st.sampled_from(PORTS), high=st.sampled_from(PORTS),
       hidden=st.sets(st.sampled_from(["protocol", "low", "high"]), min_size=1),
       ports=st.lists(st.sampled_from((80, 443, 8443)), min_size=1, max_size=2))
def test_vpc4_a_decided_cover_holds_for_every_value_the_undecided_parts_may_have(
        protocol: str, low: int, high: int, hidden: set[str], ports: list[int]) -> None:
    """``_covers`` says True/False only when every protocol and port the undecided parts may have gives that answer;
    None (not judged) only when two of them differ."""
    rule = IngressRule(None, "<ref p>" if "protocol" in hidden else protocol,  # type: ignore[arg-type]
                       None if "low" in hidden else low, None if "high" in hidden else high,
                       cidr_ip="10.0.0.0/16", unknown=True, undecided=UNDECIDED, protocol_unknown="protocol" in hidden)
    answers = {
        any(IngressRule(None, p, lo, hi).covers_port(port) for port in ports)  # type: ignore[arg-type]
        for p in (PROTOCOLS if "protocol" in hidden else (protocol,))
        for lo in (PORTS if "low" in hidden else (low,))
        for hi in (PORTS if "high" in hidden else (high,))
    }
    said = _covers(rule, ports)
    if said is None:
        assert answers == {True, False}
    else:
        assert answers == {said}
