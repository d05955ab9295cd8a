"""EO-NLB3 beyond tests/conditions/test_rule_conditions.py: whole messages and fixes, and a cross-zone setting
decided at deploy time (mutmut survivors, issue 38)."""

from __future__ import annotations

import pytest
from worlds import findings, res, set_attribute, world

from edge_origin.core.findings import Severity
from edge_origin.rules.nlb3_termination_cross_zone import FIX_LB, FIX_TG

TERMINATION = "deregistration_delay.connection_termination.enabled"
CROSS_ZONE = "load_balancing.cross_zone.enabled"


def test_nlb3_whole_messages_and_fixes() -> None:
    body = world()
    set_attribute(res(body, "Nlb"), "LoadBalancerAttributes", CROSS_ZONE, "false")
    set_attribute(res(body, "Targets"), "TargetGroupAttributes", TERMINATION, "false")
    found = sorted((f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-NLB3"))
    assert found == [
        ("Nlb", Severity.WARNING, "NLB Nlb has cross-zone load balancing off: a zone's EIP only reaches that zone's pods",
         FIX_LB),
        ("Targets", Severity.WARNING, f"target group Targets (TCP) does not set {TERMINATION}: long-lived connections "
         "outlive deregistered pods", FIX_TG),
    ]


def test_nlb3_cross_zone_decided_at_deploy_time_is_not_judged() -> None:
    body = world()
    body["Parameters"] = {"CrossZone": {"Type": "String"}}
    set_attribute(res(body, "Nlb"), "LoadBalancerAttributes", CROSS_ZONE, {"Ref": "CrossZone"})
    [f] = findings(body, "EO-NLB3")  # never quiet: off is the NLB default
    assert (f.resource, f.severity) == ("Nlb", Severity.WARNING)
    assert f.message.startswith(f'not judged: NLB Nlb {CROSS_ZONE}: "<Ref CrossZone>" (decided at deploy time')


# --- issue 52: connection termination of unhealthy targets -------------------------------------------------------
@pytest.mark.parametrize(("value", "fires"), [("true", True), ("TRUE", True), ("false", False), (None, False)])
def test_nlb3_unhealthy_target_termination_set_true_fires(value: str | None, fires: bool) -> None:
    from edge_origin.rules.nlb3_termination_cross_zone import FIX_UNHEALTHY

    body = world()
    attrs = res(body, "Targets").setdefault("TargetGroupAttributes", [])
    if value is not None:
        attrs.append({"Key": "target_health_state.unhealthy.connection_termination.enabled", "Value": value})
    found = [(f.resource, f.fix) for f in findings(body, "EO-NLB3")]
    assert found == ([("Targets", FIX_UNHEALTHY)] if fires else [])
