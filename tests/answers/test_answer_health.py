"""Health as Route 53 decides it (answers/health.py): a fire and a quiet test per rule, from the
API reference's wording (HealthCheckConfig members) and the developer guide's 18 % rule."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.answers import (
    CHECKER_REGIONS,
    HealthCheck,
    HealthState,
    can_fail,
    can_succeed,
    check_healthy,
    probed_elsewhere,
    reachable_share,
    share_is_healthy,
    why_never_fails,
)

DOWN = HealthState(down_addresses=frozenset({"192.0.2.1"}))


def test_no_check_is_healthy_and_never_fails() -> None:
    assert check_healthy("missing", {}) is True
    assert can_fail(None, {}) is False and why_never_fails(None, {}) == "no health check"


def test_endpoint_check_follows_its_endpoint() -> None:
    checks = {"h": HealthCheck("h", ip_address="192.0.2.1")}
    assert check_healthy("h", checks, DOWN) is False
    assert check_healthy("h", checks) is True
    assert can_fail("h", checks) and why_never_fails("h", checks) is None


def test_disabled_is_always_healthy() -> None:
    # "After you disable a health check, Route 53 considers the status of the health check to always be healthy."
    checks = {"h": HealthCheck("h", ip_address="192.0.2.1", disabled=True)}
    assert check_healthy("h", checks, DOWN) is True
    assert can_fail("h", checks) is False and "Disabled" in why_never_fails("h", checks)


def test_inverted_flips_the_status() -> None:
    # "invert the status of a health check ... consider a health check unhealthy when it otherwise would be considered healthy"
    checks = {"h": HealthCheck("h", ip_address="192.0.2.1", inverted=True)}
    assert check_healthy("h", checks) is False and check_healthy("h", checks, DOWN) is True


def test_calculated_threshold_over_children() -> None:
    children = {f"c{i}": HealthCheck(f"c{i}", ip_address=f"192.0.2.{i}") for i in range(1, 4)}
    calc = {"calc": HealthCheck("calc", "CALCULATED", children=tuple(children), health_threshold=2), **children}
    one_down = HealthState(down_addresses=frozenset({"192.0.2.1"}))
    two_down = HealthState(down_addresses=frozenset({"192.0.2.1", "192.0.2.2"}))
    assert check_healthy("calc", calc, one_down) is True
    assert check_healthy("calc", calc, two_down) is False


def test_calculated_threshold_zero_always_healthy_and_above_children_never() -> None:
    # "If you specify 0, Route 53 always considers this health check to be healthy."
    # "If you specify a number greater than the number of child health checks, Route 53 always considers this
    # health check to be unhealthy."
    child = {"c": HealthCheck("c", ip_address="192.0.2.1")}
    zero = {"z": HealthCheck("z", "CALCULATED", children=("c",), health_threshold=0), **child}
    assert check_healthy("z", zero, DOWN) is True and can_fail("z", zero) is False
    assert "HealthThreshold 0" in why_never_fails("z", zero)
    high = {"h": HealthCheck("h", "CALCULATED", children=("c",), health_threshold=2), **child}
    assert check_healthy("h", high) is False and can_succeed("h", high) is False and can_fail("h", high)


def test_calculated_over_checks_that_cannot_fail_cannot_fail() -> None:
    checks = {"d": HealthCheck("d", disabled=True), "calc": HealthCheck("calc", "CALCULATED", children=("d",), health_threshold=1)}
    assert can_fail("calc", checks) is False and why_never_fails("calc", checks)
    checks["e"] = HealthCheck("e", ip_address="192.0.2.1")
    checks["calc"] = HealthCheck("calc", "CALCULATED", children=("d", "e"), health_threshold=2)
    assert can_fail("calc", checks) is True


def test_inverted_over_a_check_that_cannot_fail_never_succeeds() -> None:
    checks = {"z": HealthCheck("z", "CALCULATED", health_threshold=0), "i": HealthCheck("i", "CALCULATED", children=("z",), health_threshold=1)}
    checks["inv"] = HealthCheck("inv", "CALCULATED", children=("z",), health_threshold=1, inverted=True)
    assert check_healthy("inv", checks) is False and can_succeed("inv", checks) is False and can_fail("inv", checks)


def test_cloudwatch_alarm_and_insufficient_data() -> None:
    alarm = {"a": HealthCheck("a", "CLOUDWATCH_METRIC", alarm="cpu", insufficient_data="Unhealthy")}
    assert check_healthy("a", alarm, HealthState(alarms={"cpu": "ALARM"})) is False
    assert check_healthy("a", alarm, HealthState(alarms={"cpu": "OK"})) is True
    assert check_healthy("a", alarm, HealthState(alarms={"cpu": "INSUFFICIENT_DATA"})) is False
    last = {"a": HealthCheck("a", "CLOUDWATCH_METRIC", alarm="cpu", insufficient_data="LastKnownStatus")}
    # "For new health checks that have no last known status, the default status for the health check is healthy."
    assert check_healthy("a", last, HealthState(alarms={"cpu": "INSUFFICIENT_DATA"})) is True
    assert check_healthy("a", last, HealthState(alarms={"cpu": "INSUFFICIENT_DATA"}, last_known={"a": False})) is False


def test_more_than_18_percent_of_checkers() -> None:
    assert share_is_healthy(0.19) and not share_is_healthy(0.18) and not share_is_healthy(0.0)
    checks = {"h": HealthCheck("h")}
    assert check_healthy("h", checks, HealthState(checker_shares={"h": 0.2})) is True
    assert check_healthy("h", checks, HealthState(checker_shares={"h": 0.1})) is False


def test_regions_limit_the_checkers() -> None:
    # Regions: "If you don't specify any regions, Route 53 health checkers automatically performs checks from all of the regions"
    every = HealthCheck("h")
    three = HealthCheck("h", regions=("us-east-1", "eu-west-1", "sa-east-1"))
    assert every.checker_regions == CHECKER_REGIONS
    assert reachable_share(three, {"us-east-1", "eu-west-1", "sa-east-1"}) == 1.0
    assert reachable_share(every, {"us-east-1", "eu-west-1", "sa-east-1"}) == 3 / 8


def test_a_check_probing_another_address() -> None:
    # HealthCheckId: "Route 53 doesn't check the health of the endpoint that is specified in the resource record set"
    hc = HealthCheck("h", ip_address="192.0.2.2")
    assert probed_elsewhere(hc, ("192.0.2.1",)) is True
    assert probed_elsewhere(hc, ("192.0.2.2",)) is False
    assert probed_elsewhere(HealthCheck("c", "CALCULATED"), ("192.0.2.1",)) is False


@settings(database=None, max_examples=200, deadline=None)
@given(
    threshold=st.integers(0, 5),
    children=st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), max_size=4),
    inverted=st.booleans(),
)
def test_static_verdicts_agree_with_every_state(threshold: int, children: list[tuple[bool, bool, bool]], inverted: bool) -> None:
    """can_fail/can_succeed are exactly: some state makes it unhealthy / healthy."""
    checks = {f"c{i}": HealthCheck(f"c{i}", ip_address=f"192.0.2.{i}", disabled=d, inverted=inv) for i, (d, inv, _) in enumerate(children)}
    checks["top"] = HealthCheck("top", "CALCULATED", children=tuple(checks), health_threshold=threshold, inverted=inverted)
    addresses = [f"192.0.2.{i}" for i in range(len(children))]
    outcomes = set()
    for mask in range(2 ** len(addresses)):
        down = frozenset(a for i, a in enumerate(addresses) if mask >> i & 1)
        outcomes.add(check_healthy("top", checks, HealthState(down_addresses=down)))
    assert can_fail("top", checks) == (False in outcomes)
    assert can_succeed("top", checks) == (True in outcomes)


def test_static_verdicts_of_missing_disabled_and_mixed_children() -> None:
    assert can_succeed("missing", {}) is True and can_succeed(None, {}) is True
    assert can_succeed("d", {"d": HealthCheck("d", disabled=True, inverted=True)}) is True
    checks = {"d": HealthCheck("d", disabled=True), "e": HealthCheck("e", ip_address="192.0.2.1")}
    checks["calc"] = HealthCheck("calc", "CALCULATED", children=("d", "e"), health_threshold=2)
    assert can_fail("calc", checks) is True  # one child always healthy, the other can fail: 1 < 2
    checks["calc"] = HealthCheck("calc", "CALCULATED", children=("d", "e"), health_threshold=1)
    assert can_fail("calc", checks) is False  # the disabled child alone meets the threshold


def test_nesting_is_bounded() -> None:
    from edge_origin.answers.health import MAX_DEPTH

    checks = {"c0": HealthCheck("c0", ip_address="192.0.2.1")}
    for i in range(1, MAX_DEPTH + 4):
        checks[f"c{i}"] = HealthCheck(f"c{i}", "CALCULATED", children=(f"c{i - 1}",), health_threshold=1)
    assert check_healthy(f"c{MAX_DEPTH}", checks, DOWN) is False  # within the bound: the endpoint decides
    assert check_healthy(f"c{MAX_DEPTH + 1}", checks, DOWN) is True  # one beyond it: stopped (a resolution lists it
    # in Resolution.stopped and EO-NJ1 says "not judged": tests/rules/test_rules_nj1_stops.py)
    assert check_healthy(f"c{MAX_DEPTH + 3}", checks, DOWN) is True
