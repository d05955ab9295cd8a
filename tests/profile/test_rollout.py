"""Issue 52: a hitless rollout behind an NLB (preStop over the ~2-minute draining window, grace, deregistration
delay), and a problem named when the target group's delay cuts what the pod still serves."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk.assertions import Annotations, Match
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.facts import value
from edge_origin.profile import ConnectionProfile
from edge_origin.profile.rollout import DRAINING_WINDOW_S, deployment_patch, rollout_plan


@settings(max_examples=40, deadline=None)
@given(grace=st.integers(1, 1800), delay=st.integers(0, 3600))
def test_the_plan_covers_the_window_and_the_grace_and_names_a_short_delay(grace: int, delay: int) -> None:
    profile = ConnectionProfile.preset("streaming-telemetry").replace(server_max_connection_age_grace_s=grace)
    plan = rollout_plan(profile, delay)
    assert DRAINING_WINDOW_S == value("elbv2.nlb.draining_window_s") == 120
    assert plan.pre_stop_s >= DRAINING_WINDOW_S
    assert plan.termination_grace_period_s >= plan.pre_stop_s + grace == plan.pre_stop_s + plan.grace_s
    assert plan.deregistration_delay_s == plan.termination_grace_period_s
    short = delay < plan.deregistration_delay_s
    assert bool(plan.problems) is short
    if short:
        assert f"deregistration_delay {delay} s" in plan.problems[0] and "not hitless" in plan.problems[0]
    assert rollout_plan(profile, plan.deregistration_delay_s).problems == []


def test_no_grace_is_named_and_the_patch_holds_the_numbers() -> None:
    plan = rollout_plan(ConnectionProfile.preset("streaming-telemetry").replace(server_max_connection_age_grace_s=None))
    assert "never cut by the server" in plan.problems[0]
    spec = deployment_patch(plan, "app")["spec"]["template"]["spec"]
    assert spec["terminationGracePeriodSeconds"] == plan.termination_grace_period_s
    assert spec["containers"] == [{"name": "app", "lifecycle": {"preStop": {"exec": {"command": ["sleep", str(plan.pre_stop_s)]}}}}]


def test_a_fleet_bound_with_the_default_30_s_delay_gets_a_warning() -> None:
    from edge_origin import OriginFleet
    from edge_origin.cdk.profile_binding import bind_fleet

    stack = cdk.Stack(cdk.App(), "S", env=cdk.Environment(account="123456789012", region="us-east-1"))
    fleet = OriginFleet(stack, "F", nlb_count=1)
    bind_fleet(stack, fleet, profile=ConnectionProfile.preset("streaming-telemetry"), service_name="svc", service_port=8443,
               namespace="default", cluster=None)
    warnings = [str(m.entry.data) for m in Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp("hitless"))]
    assert len(warnings) == 1 and "deregistration_delay 30 s" in warnings[0] and "svc-rollout" in warnings[0]
