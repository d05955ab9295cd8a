"""profile/hops.py as the rules read it (mutation testing, issue 38): the origin timeout bounds on both sides,
the longest a stream lives under a max connection age, what each listener protocol makes of the idle timeout,
how seconds are written in messages, and EO-KA3's catalogue line."""

from __future__ import annotations

import pytest

from edge_origin.core.findings import Severity
from edge_origin.profile import hops
from edge_origin.profile.hops import (
    CF_ORIGIN_TIMEOUTS,
    CF_TIMEOUT_CEILING_S,
    IDLE_ATTRIBUTE,
    NLB_DEFAULT_IDLE_S,
    NLB_TLS_IDLE_S,
    ListenerIdle,
    listener_idle,
    longest_stream_s,
    origin_timeout_problem,
    profile_checks_doc,
)


@pytest.mark.parametrize("kind", ["read", "keepalive"])
def test_origin_timeouts_are_whole_seconds_from_the_minimum_to_the_ceiling(kind):
    limit = CF_ORIGIN_TIMEOUTS[kind]
    assert origin_timeout_problem(kind, limit.minimum_s) is None
    assert origin_timeout_problem(kind, limit.minimum_s - 1)[0] is Severity.ERROR
    assert origin_timeout_problem(kind, CF_TIMEOUT_CEILING_S)[0] is Severity.WARNING  # above the default quota
    assert origin_timeout_problem(kind, CF_TIMEOUT_CEILING_S, quota_raised=True) is None
    # a quota, not an API limit: above aws-cdk-lib's bound is still only a quota request
    assert origin_timeout_problem(kind, CF_TIMEOUT_CEILING_S + 1)[0] is Severity.WARNING
    assert origin_timeout_problem(kind, 10**6, quota_raised=True) is None
    severity, message = origin_timeout_problem(kind, 1.23456)
    assert severity is Severity.ERROR and message.startswith("1.235 s is not a CloudFront ")


def test_the_longest_stream_is_the_jittered_age_plus_the_grace():
    # gRPC jitters MaxConnectionAge by +-10 %: the GOAWAY at most at age x 1.1, then the grace
    assert longest_stream_s(100, 5) == pytest.approx(115.0)
    assert longest_stream_s(0, 30) == 30
    assert longest_stream_s(None, 5) is None and longest_stream_s(100, None) is None and longest_stream_s(None, None) is None


@pytest.mark.parametrize(("args", "kwargs", "expected"), [
    (("TLS", 600), {}, ListenerIdle(NLB_TLS_IDLE_S, "fixed for TLS listeners", settable=False)),
    (("TCP", 600), {}, ListenerIdle(600, IDLE_ATTRIBUTE, settable=True)),
    (("TCP", None), {}, ListenerIdle(NLB_DEFAULT_IDLE_S, f"the default, {IDLE_ATTRIBUTE} unset", settable=True)),
    ((None, None), {}, ListenerIdle(NLB_DEFAULT_IDLE_S, f"the default, {IDLE_ATTRIBUTE} unset", settable=True)),
    (("TCP", None), {"attribute_present": True}, ListenerIdle(None, "decided at deploy time", settable=True)),
    (("TCP", None), {"attribute_known": False}, ListenerIdle(None, "decided at deploy time", settable=True)),
])
def test_what_each_listener_makes_of_the_idle_timeout(args, kwargs, expected):
    assert listener_idle(*args, **kwargs) == expected


@pytest.mark.parametrize("protocol", ["UDP", "TCP_UDP"])
def test_a_udp_listener_cannot_set_the_tcp_idle_timeout(protocol):
    idle = listener_idle(protocol, 600)
    assert idle.settable is False and idle.how == f"fixed for {protocol}"
    assert idle.seconds == (NLB_DEFAULT_IDLE_S if protocol == "TCP_UDP" else None)
    assert idle.note.startswith(f"{protocol} listener: tcp.idle_timeout.seconds is a TCP-listener attribute")


def test_the_catalogue_line_lists_each_check_once_in_order():
    doc = profile_checks_doc()
    rules = list(hops.PROFILE_CHECK_DOCS)
    assert doc.startswith(f"{rules[0]}: hop ") and doc.endswith(".")
    positions = [doc.index(f"{rule}: hop ") for rule in rules]
    assert positions == sorted(positions)
    for rule in rules[1:]:
        assert f". {rule}: hop " in doc  # one space between entries
