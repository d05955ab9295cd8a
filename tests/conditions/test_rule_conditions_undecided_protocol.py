"""EO-NLB1 and EO-KA1 on a listener whose Protocol (or idle timeout) is decided at deploy time: the verdict every
protocol the listener may have gives when they all agree, else one "not judged" finding naming the Protocol; never
quiet because the value is not known. Each case is held against the same template with the parameter's Default set
to each protocol in turn (the judged verdicts)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_rule_conditions_ka import declare
from worlds import findings, res, set_attribute, world

from edge_origin.core.findings import Finding, Severity
from edge_origin.rules.ka_profile import LISTENER_PROTOCOLS

IDLE = "tcp.idle_timeout.seconds"
NETWORK = LISTENER_PROTOCOLS["network"]


def _undecided_protocol(body: dict[str, Any], default: str | None = None) -> dict[str, Any]:
    body = copy.deepcopy(body)
    body["Parameters"] = {"Proto": {"Type": "String"} if default is None else {"Type": "String", "Default": default}}
    res(body, "Listener")["Protocol"] = {"Ref": "Proto"}
    return body


def _shape(found: list[Finding], protocol: str) -> list[tuple[str, str, Severity, str]]:
    """The findings with the protocol's spelling in the listener's label made one (``(X :443)``)."""
    return [(f.rule, f.resource, f.severity, f.message.replace(f"({protocol} :", "(X :")) for f in found]


def _judged_each(body: dict[str, Any], rule_id: str, protocols: tuple[str, ...]) -> dict[str, list[Any]]:
    return {p: _shape(findings(_undecided_protocol(body, p), rule_id), p) for p in protocols}


def _holds(body: dict[str, Any], rule_id: str, protocols: tuple[str, ...]) -> list[Finding]:
    """The undecided verdict agrees with the judged ones: the same when they all agree, else one not-judged."""
    each = _judged_each(body, rule_id, protocols)
    found = findings(_undecided_protocol(body), rule_id)
    if all(v == each[protocols[0]] for v in each.values()):
        assert _shape(found, "<Ref Proto>") == each[protocols[0]]
    else:
        assert len(found) == 1, found
        (f,) = found
        assert f.severity is Severity.WARNING and f.message.startswith("not judged: ") and ': Protocol: "<Ref Proto>"' in f.message
        for p in protocols:
            assert f"{p}: " in f.message  # each protocol's verdict is named
        assert f.fix == "To let edge-origin judge it: give the parameter a Default (or check with the value you deploy)"
    return found


def test_nlb1_a_tcp_listener_without_the_attribute_is_not_judged_when_its_protocol_is_undecided() -> None:
    body = world()
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, None)
    (f,) = _holds(body, "EO-NLB1", NETWORK)
    assert "(TCP: warning, TLS: warning, UDP: warning, TCP_UDP: warning, QUIC: no finding, TCP_QUIC: no finding)" in f.message


def test_nlb1_a_listener_of_an_application_load_balancer_is_quiet_whatever_its_protocol() -> None:
    body = world()
    body["Resources"]["Nlb"]["Properties"]["Type"] = "application"
    assert _holds(body, "EO-NLB1", LISTENER_PROTOCOLS["application"]) == []


@settings(max_examples=20, deadline=None)
@given(idle=st.sampled_from([None, "60", "300", "350", "400", "6001", "abc"]),
       target_type=st.sampled_from(["ip", "instance", "alb"]),
       lb_type=st.sampled_from(["network", "application"]))
def test_nlb1_an_undecided_protocol_agrees_with_every_protocol_it_may_be(idle: str | None, target_type: str,
                                                                         lb_type: str) -> None:
    body = world()
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, idle)
    res(body, "Targets")["TargetType"] = target_type
    body["Resources"]["Nlb"]["Properties"]["Type"] = lb_type
    _holds(body, "EO-NLB1", LISTENER_PROTOCOLS[lb_type])


@settings(max_examples=20, deadline=None)
@given(idle=st.sampled_from([None, "300", "350", "600"]), declared=st.sampled_from([300, 350, 600]),
       lb_type=st.sampled_from(["network", "application"]))
def test_ka1_an_undecided_protocol_agrees_with_every_protocol_it_may_be(idle: str | None, declared: int,
                                                                        lb_type: str) -> None:
    body = world()
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, idle)
    body["Resources"]["Nlb"]["Properties"]["Type"] = lb_type
    declare(body, "Listener", nlb_idle_timeout_s=declared)
    _holds(body, "EO-KA1", LISTENER_PROTOCOLS[lb_type])


def test_ka1_every_protocol_giving_the_same_drift_is_judged() -> None:
    """An application load balancer's listener is HTTP or HTTPS: both keep the attribute's 350 s, so a profile of
    600 s drifts whatever the protocol (an error, not 'not judged')."""
    body = world()
    body["Resources"]["Nlb"]["Properties"]["Type"] = "application"
    declare(body, "Listener", nlb_idle_timeout_s=600)
    (f,) = _holds(body, "EO-KA1", LISTENER_PROTOCOLS["application"])
    assert f.severity is Severity.ERROR and "Listener (<Ref Proto> :443) idle timeout 350 s" in f.message


def test_ka1_an_nlb_listener_of_undecided_protocol_is_not_judged_and_its_default_judges_it() -> None:
    body = world()
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, "600")
    declare(body, "Listener", nlb_idle_timeout_s=600)
    (f,) = findings(_undecided_protocol(body), "EO-KA1")
    assert f.message.startswith('not judged: Listener (<Ref Proto> :443): Protocol: "<Ref Proto>"'), f.message
    assert "TCP: no finding, TLS: error" in f.message  # a TLS listener keeps 350 s whatever the attribute says
    assert findings(_undecided_protocol(body, "TCP"), "EO-KA1") == []
    (tls,) = findings(_undecided_protocol(body, "TLS"), "EO-KA1")
    assert tls.severity is Severity.ERROR and "idle timeout 350 s (fixed for TLS listeners)" in tls.message


def test_ka1_every_nlb_protocol_agreeing_is_judged_quiet() -> None:
    """350 s declared, 350 s set: TCP, TLS, TCP_UDP and QUIC keep 350 s, UDP has no TCP idle timeout to compare."""
    body = world()
    declare(body, "Listener", nlb_idle_timeout_s=350)
    assert _holds(body, "EO-KA1", NETWORK) == []


def test_ka1_an_undecided_attribute_key_is_not_judged() -> None:
    body = world()
    body["Parameters"] = {"Key": {"Type": "String"}}
    res(body, "Listener")["ListenerAttributes"] = [{"Key": {"Ref": "Key"}, "Value": "600"}]
    declare(body, "Listener", nlb_idle_timeout_s=600)
    (f,) = findings(body, "EO-KA1")
    assert f.severity is Severity.WARNING
    assert f.message.startswith('not judged: Listener (TCP :443): tcp.idle_timeout.seconds: [{"Key": "<Ref Key>", '
                                '"Value": "600"}] (decided at deploy time: a parameter without Default;'), f.message
    body["Parameters"]["Key"]["Default"] = IDLE
    assert findings(body, "EO-KA1") == []


def test_a_listener_port_decided_at_deploy_is_shown_as_written() -> None:
    body = world()
    body["Parameters"] = {"Port": {"Type": "Number"}}
    res(body, "Listener")["Port"] = {"Ref": "Port"}
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, None)
    (f,) = findings(body, "EO-NLB1")
    assert "Listener (TCP :<Ref Port>) of Nlb" in f.message, f.message
    declare(body, "Listener", nlb_idle_timeout_s=600)
    (ka1,) = findings(body, "EO-KA1")
    assert ka1.message.startswith("[NLB listener] Listener (TCP :<Ref Port>) idle timeout 350 s"), ka1.message


def _unattached(body: dict[str, Any]) -> dict[str, Any]:
    body["Parameters"] = {"Lb": {"Type": "String"}}
    res(body, "Listener")["LoadBalancerArn"] = {"Ref": "Lb"}
    return body


def test_nlb1_a_listener_of_undecided_load_balancer_is_judged_as_one_on_the_origins_path() -> None:
    body = _unattached(world())
    assert findings(body, "EO-NLB1") == []  # 350 s set on a TCP listener: fine on any load balancer
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, None)
    (f,) = findings(body, "EO-NLB1")
    assert (f.severity, f.resource) == (Severity.WARNING, "Listener")
    assert f.message == ('not judged: Listener (TCP :443): LoadBalancerArn: "<Ref Lb>" (decided at deploy time: a '
                         "parameter without Default; it may be a load balancer on an origin's path (Nlb), where this "
                         "listener would get an EO-NLB1 warning)")


def test_ka1_a_listener_of_undecided_load_balancer_is_judged_against_the_distributions_profile() -> None:
    body = _unattached(world())
    declare(body, "Dist", nlb_idle_timeout_s=350)
    assert findings(body, "EO-KA1") == []  # the listener's 350 s agrees, whichever load balancer it is on
    declare(body, "Dist", nlb_idle_timeout_s=600)
    (f,) = findings(body, "EO-KA1")
    assert (f.severity, f.resource) == (Severity.WARNING, "Dist")
    assert f.message.startswith('not judged: Dist may reach S/Listener (TCP :443): LoadBalancerArn: "<Ref Lb>"')
    assert f.message.endswith("where this listener would get an EO-KA1 error)")


def test_nlb1_targets_decided_at_deploy_behind_an_idle_timeout_above_350_are_not_judged() -> None:
    """ip and instance targets sit behind EC2 connection tracking (350 s on Nitro v6): a TargetType or a
    TargetGroupArn decided at deploy time is not judged (it was read as instance, or passed over)."""
    body = world()
    body["Parameters"] = {"P": {"Type": "String"}}
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, "400")
    res(body, "Targets")["TargetType"] = {"Ref": "P"}
    (f,) = findings(body, "EO-NLB1")
    assert f.severity is Severity.WARNING and f.message.startswith(
        'not judged: Listener (TCP :443) of Nlb on the path of gRPC origin o.example.com: target group Targets '
        'TargetType: "<Ref P>" (decided at deploy time: a parameter without Default; ip or instance targets'), f.message
    body["Parameters"]["P"]["Default"] = "alb"
    assert findings(body, "EO-NLB1") == []
    body["Parameters"]["P"]["Default"] = "ip"
    assert [f.message.startswith("[target connection tracking]") for f in findings(body, "EO-NLB1")] == [True]
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, "350")
    assert findings(body, "EO-NLB1") == []  # at or below 350 s: no tracking question, whatever the targets
    body = world()
    body["Parameters"] = {"P": {"Type": "String"}}
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, "400")
    res(body, "Listener")["DefaultActions"][0]["TargetGroupArn"] = {"Ref": "P"}
    (f,) = findings(body, "EO-NLB1")
    assert f.message.startswith("not judged: ") and 'target group: "<Ref P>"' in f.message, f.message
