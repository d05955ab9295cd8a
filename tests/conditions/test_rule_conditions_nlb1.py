"""EO-NLB1: the whole findings for each listener protocol and idle-timeout value, each range boundary on both
sides, and a listener reached through two origin names judged once (mutmut, issue 38)."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import behavior, dist_config, findings, origin, res, set_attribute, world

from edge_origin.core.findings import Severity
from edge_origin.rules.nlb1_idle_timeout import FIX, TRACKING_FIX

WHERE = "Listener ({protocol} :443) of Nlb on the path of gRPC origin o.example.com"
EXPIRY = (
    "at idle expiry the NLB removes the flow from its flow table without sending FIN or RST to either side; the next "
    "packet either side sends on it is answered with a TCP RST (AWS: 'If a client attempts to send traffic after the "
    "connection is no longer tracked, then NLB responds with a TCP RST')"
)
RANGE_FIX = "Use a whole number of seconds in 60..6000."
TCP = WHERE.format(protocol="TCP")


def _idle(value: Any, protocol: str = "TCP") -> dict[str, Any]:
    body = world()
    res(body, "Listener")["Protocol"] = protocol
    set_attribute(res(body, "Listener"), "ListenerAttributes", "tcp.idle_timeout.seconds", value)
    return body


def _seen(body: dict[str, Any]) -> list[tuple[str, str, Severity, str, str]]:
    return [(f.rule, f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-NLB1")]


def test_nlb1_a_tcp_listener_without_the_attribute() -> None:
    assert _seen(_idle(None)) == [("EO-NLB1", "Listener", Severity.WARNING,
                                   f"[NLB listener] {TCP} has no tcp.idle_timeout.seconds: the 350 s default applies; {EXPIRY}", FIX)]


@pytest.mark.parametrize(("value", "shown"), [("59", "59 s"), ("6001", "6001 s")])
def test_nlb1_outside_the_range_is_refused(value: str, shown: str) -> None:
    assert _seen(_idle(value)) == [(
        "EO-NLB1", "Listener", Severity.ERROR,
        f"[NLB listener] {TCP}: tcp.idle_timeout.seconds {shown} is outside the NLB TCP idle timeout range 60..6000 whole "
        "seconds: the deploy is refused", RANGE_FIX)]


@pytest.mark.parametrize("value", ["60", "350"])
def test_nlb1_inside_the_range_up_to_the_tracking_default_is_quiet(value: str) -> None:
    assert _seen(_idle(value)) == []


def test_nlb1_not_a_number() -> None:
    assert _seen(_idle("abc")) == [(
        "EO-NLB1", "Listener", Severity.ERROR,
        f"[NLB listener] {TCP}: tcp.idle_timeout.seconds 'abc' is not a whole number of seconds in 60..6000: the API refuses it",
        RANGE_FIX)]


@pytest.mark.parametrize("value", ["351", "6000"])
def test_nlb1_above_the_targets_connection_tracking(value: str) -> None:
    """Not stated: the default depends on the instance type (EC2 API: 350 s Nitro v6, 432,000 s others)."""
    assert _seen(_idle(value)) == [(
        "EO-NLB1", "Listener", Severity.WARNING,
        f"[target connection tracking] {TCP}: idle timeout {value} s is above 350 s and target group Targets (ip targets) "
        "sits behind EC2 connection tracking whose timeout no connection profile states: the targets' "
        "TcpEstablishedTimeout depends on the instance type when not set: 350 s on Nitro v6 instance types, 432,000 s "
        "on all others (EC2 API, ConnectionTrackingSpecificationRequest.TcpEstablishedTimeout). On Nitro v6 targets "
        "the target's network interface drops the connection state silently "
        "before the NLB does (AWS update-idle-timeout: TcpEstablishedTimeout must be equal or greater than the NLB idle "
        "timeout), so packets on the flow are dropped with no RST and the RPC hangs until a ping timeout or its "
        "deadline; on the others this idle timeout is fine",
        TRACKING_FIX)]


def test_nlb1_a_tls_listener_with_and_without_the_attribute() -> None:
    fixed = ("EO-NLB1", "Listener", Severity.WARNING,
             f"[NLB listener] {WHERE.format(protocol='TLS')} is TLS: its idle timeout is fixed at 350 s and cannot be raised", FIX)
    assert _seen(_idle(None, "TLS")) == [fixed]
    assert _seen(_idle("350", "TLS")) == [
        fixed,
        ("EO-NLB1", "Listener", Severity.WARNING,
         f"[NLB listener] {WHERE.format(protocol='TLS')} sets tcp.idle_timeout.seconds, which AWS documents for TCP "
         "listeners only: it does not change this listener's idle timeout (fixed for TLS listeners)",
         "Remove the attribute, or use a TCP listener."),
    ]


def test_nlb1_a_tcp_udp_listener() -> None:
    note = ("EO-NLB1", "Listener", Severity.WARNING,
            f"[NLB listener] {WHERE.format(protocol='TCP_UDP')}: TCP_UDP listener: tcp.idle_timeout.seconds is a "
            "TCP-listener attribute (AWS: the attribute tab is not present for other protocols), so TCP flows keep the "
            "350 s default and UDP flows 120 s", FIX)
    assert _seen(_idle(None, "TCP_UDP")) == [note]
    found = _seen(_idle("350", "TCP_UDP"))
    assert note in found and len(found) == 2


def test_nlb1_a_listener_on_the_path_of_two_origin_names_is_judged_once() -> None:
    body = _idle(None)
    cfg = dist_config(body)
    cfg["Origins"].append({**origin(body), "Id": "p", "DomainName": "p.example.com"})
    cfg["CacheBehaviors"] = [{**behavior(body), "PathPattern": "/p/*", "TargetOriginId": "p"}]
    body["Resources"]["AliasP"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": "p.example.com", "Type": "A",
        "AliasTarget": {"DNSName": "o.example.com", "HostedZoneId": "Z1", "EvaluateTargetHealth": True}}}
    assert [f.resource for f in findings(body, "EO-NLB1")] == ["Listener"]


def test_nlb1_an_nlb_origin_after_a_named_one_in_an_origin_group_is_judged() -> None:
    """An origin group whose first member is an origin name and whose second is an NLB's DNSName (GetAtt): the
    second NLB's listener is on the path too, judged as the first's."""
    import copy

    body = _idle(None)
    body["Resources"]["Nlb2"] = copy.deepcopy(body["Resources"]["Nlb"])
    for mapping, eip in zip(res(body, "Nlb2")["SubnetMappings"], ("EipC", "EipD"), strict=True):  # its own EIPs: on no name
        body["Resources"][eip] = copy.deepcopy(body["Resources"]["EipA"])
        mapping["AllocationId"] = {"Fn::GetAtt": [eip, "AllocationId"]}
    body["Resources"]["Listener2"] = copy.deepcopy(body["Resources"]["Listener"])
    res(body, "Listener2")["LoadBalancerArn"] = {"Ref": "Nlb2"}
    cfg = dist_config(body)
    cfg["Origins"].append({**origin(body), "Id": "n", "DomainName": {"Fn::GetAtt": ["Nlb2", "DNSName"]}})
    cfg["OriginGroups"] = {"Quantity": 1, "Items": [{
        "Id": "g", "FailoverCriteria": {"StatusCodes": {"Quantity": 1, "Items": [502]}},
        "Members": {"Quantity": 2, "Items": [{"OriginId": "o"}, {"OriginId": "n"}]}}]}
    behavior(body)["TargetOriginId"] = "g"
    assert sorted(f.resource for f in findings(body, "EO-NLB1")) == ["Listener", "Listener2"]


def test_nlb1_findings_carry_the_listeners_cdk_path() -> None:
    body = _idle(None)
    body["Resources"]["Listener"]["Metadata"] = {"aws:cdk:path": "S/Origin/Nlb/Listener/Resource"}
    assert [(f.resource, f.path) for f in findings(body, "EO-NLB1")] == [("Listener", "S/Origin/Nlb/Listener/Resource")]


def test_a_marked_origin_name_outside_cloudfront_is_judged_in_aaaa_too() -> None:
    """A name marked as a gRPC origin (metadata) that no CloudFront origin names: a resolver asks A and AAAA, so
    weighted AAAA sets are judged (CloudFront's IpAddressType narrows only CloudFront's own origin names)."""
    from edge_origin.rules import run_rules
    from tests.answers.answer_templates import base, model, record

    recs = {}
    for i in (0, 1):
        r = record("m.example.com", "AAAA", SetIdentifier=f"w{i}", Weight=1, ResourceRecords=[f"2001:db8::{i + 1}"])
        recs[f"W{i}"] = {**r, "Metadata": {"edge-origin:grpc-origin": True}}
    found = [(f.rule, f.severity, f.resource) for f in run_rules(model(base(), **recs)) if f.rule == "EO-DNS1"]
    assert found == [("EO-DNS1", Severity.ERROR, "W0"), ("EO-DNS1", Severity.ERROR, "W1")]
