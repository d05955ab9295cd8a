"""Issue 37: one severity per keepalive fact. Every keepalive fact that `profile check` and the template
rules both judge gives the same severity and the same numbers (the cdk-nag pack reports the rules'
findings as they are: tests/review/test_nag.py)."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import findings, origin, res, set_attribute, world

from edge_origin.core.findings import Severity
from edge_origin.profile import ConnectionProfile

IDLE = "tcp.idle_timeout.seconds"


def _template(keepalive: int, idle: int) -> dict[str, Any]:
    body = world()
    origin(body)["CustomOriginConfig"]["OriginKeepaliveTimeout"] = keepalive
    res(body, "Listener")["Protocol"] = "TCP"
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, str(idle))
    return body


def _profile_severity(keepalive: int, idle: int) -> Severity | None:
    profile = ConnectionProfile(
        cloudfront_keepalive_timeout_s=keepalive, nlb_idle_timeout_s=idle, target_tcp_established_timeout_s=idle,
        cloudfront_extended_timeouts=True,
    )
    found = [f for f in profile.check() if f.rule == "EO-PROFILE-CF-KEEPALIVE"]
    assert len(found) <= 1
    if found:
        assert f"cloudfront_keepalive_timeout_s {keepalive} s" in found[0].message
        assert f"NLB idle timeout {idle} s" in found[0].message
    return found[0].severity if found else None


def _rule_severity(keepalive: int, idle: int) -> Severity | None:
    found = findings(_template(keepalive, idle), "EO-CF2")
    assert len(found) <= 1
    if found:
        assert f"keepalive {keepalive} s" in found[0].message and f"idle timeout {idle} s" in found[0].message
    return found[0].severity if found else None


@pytest.mark.parametrize("idle", [60, 100, 120, 350, 600])
def test_cloudfront_keepalive_vs_nlb_idle_same_severity_in_profile_and_rules(idle: int) -> None:
    """EO-PROFILE-CF-KEEPALIVE and EO-CF2 around every threshold: equal, just below, 90 %, the guard."""
    keepalives = {idle, idle - 1, idle + 1, int(idle * 0.9), int(idle * 0.9) + 1, idle - 5, idle - 6, 1, 5}
    assert len(keepalives) >= 5
    for keepalive in sorted(k for k in keepalives if k >= 1):
        assert _profile_severity(keepalive, idle) == _rule_severity(keepalive, idle), (keepalive, idle)


def test_keepalive_equal_to_the_idle_timeout_is_an_error_everywhere() -> None:
    assert _profile_severity(350, 350) is Severity.ERROR
    assert _rule_severity(350, 350) is Severity.ERROR
    assert _profile_severity(120, 120) is Severity.ERROR and _rule_severity(120, 120) is Severity.ERROR
