"""Health as Route 53 decides it, sentence by sentence (answers/health.py's docstring cites each).

Each test names the reference sentence it rests on; together they kill the mutants of
``make mutate MODULE=answers/health.py`` that are not listed as equivalent in
docs/mutation-equivalent.txt.
"""

from __future__ import annotations

import pytest

from edge_origin.answers.health import (
    MAX_DEPTH,
    HealthCheck,
    HealthState,
    can_fail,
    can_succeed,
    check_healthy,
    probed_elsewhere,
    why_never_fails,
)


def _checks(*checks: HealthCheck) -> dict[str, HealthCheck]:
    return {c.id: c for c in checks}


# -- CloudWatch alarm checks: InsufficientDataHealthStatus Healthy | Unhealthy | LastKnownStatus ----------
@pytest.mark.parametrize(
    ("policy", "last_known", "healthy"),
    [("Healthy", False, True), ("Unhealthy", True, False), ("LastKnownStatus", False, False),
     ("LastKnownStatus", True, True), (None, False, False), (None, None, True)],
)
def test_alarm_with_insufficient_data_follows_its_policy(policy, last_known, healthy):
    check = HealthCheck("cw", type="CLOUDWATCH_METRIC", alarm="a", insufficient_data=policy)
    state = HealthState(alarms={"a": "INSUFFICIENT_DATA"},
                        last_known={} if last_known is None else {"cw": last_known})
    # "For new health checks that have no last known status, the default status ... is healthy."
    assert check_healthy("cw", _checks(check), state) is healthy


@pytest.mark.parametrize(("alarm", "healthy"), [("OK", True), ("ALARM", False)])
def test_alarm_state_decides(alarm, healthy):
    check = HealthCheck("cw", type="CLOUDWATCH_METRIC", alarm="a")
    assert check_healthy("cw", _checks(check), HealthState(alarms={"a": alarm})) is healthy


# -- endpoint checks ------------------------------------------------------------------------------------
def test_fqdn_check_is_healthy_unless_its_name_is_down():
    check = HealthCheck("h", type="HTTPS", fqdn="origin.example.com")
    assert check_healthy("h", _checks(check)) is True
    assert check_healthy("h", _checks(check), HealthState(down_addresses=frozenset({"other.example.com"}))) is True
    assert check_healthy("h", _checks(check), HealthState(down_addresses=frozenset({"origin.example.com"}))) is False


def test_ip_check_without_fqdn_is_not_down_for_a_down_name():
    check = HealthCheck("h", type="TCP", ip_address="198.51.100.1")
    assert check_healthy("h", _checks(check), HealthState(down_addresses=frozenset({"x.example.com"}))) is True
    assert check_healthy("h", _checks(check), HealthState(down_addresses=frozenset({"198.51.100.1"}))) is False


# -- CALCULATED: HealthThreshold ------------------------------------------------------------------------
def test_calculated_without_threshold_needs_every_child():
    a, b = HealthCheck("a", ip_address="198.51.100.1"), HealthCheck("b", ip_address="198.51.100.2")
    parent = HealthCheck("p", type="CALCULATED", children=("a", "b"))
    checks = _checks(a, b, parent)
    assert check_healthy("p", checks) is True
    assert check_healthy("p", checks, HealthState(down_addresses=frozenset({"198.51.100.2"}))) is False
    assert can_fail("p", checks) is True and can_succeed("p", checks) is True


def test_threshold_above_children_never_succeeds_and_disabled_always_does():
    # "If you specify a number greater than the number of child health checks, Route 53 always
    # considers this health check to be unhealthy."
    child = HealthCheck("a")
    never = HealthCheck("never", type="CALCULATED", children=("a",), health_threshold=2)
    assert can_succeed("never", _checks(child, never)) is False
    # "After you disable a health check, Route 53 considers the status ... to always be healthy."
    disabled = HealthCheck("never", type="CALCULATED", children=("a",), health_threshold=2, disabled=True)
    assert can_succeed("never", _checks(child, disabled)) is True
    assert can_fail("never", _checks(child, disabled)) is False


def test_parent_of_a_child_that_never_succeeds_never_succeeds():
    child = HealthCheck("c", type="CALCULATED", children=("leaf",), health_threshold=2)
    parent = HealthCheck("p", type="CALCULATED", children=("c",), health_threshold=1)
    checks = _checks(HealthCheck("leaf"), child, parent)
    assert can_succeed("p", checks) is False
    # Inverted of a check that can never succeed can never fail: always healthy.
    inverted = HealthCheck("p", type="CALCULATED", children=("c",), health_threshold=1, inverted=True)
    assert can_fail("p", _checks(HealthCheck("leaf"), child, inverted)) is False
    assert "Inverted" in why_never_fails("p", _checks(HealthCheck("leaf"), child, inverted))


def test_parent_of_children_that_cannot_fail_cannot_fail():
    children = [HealthCheck(f"c{i}", disabled=True) for i in range(2)]
    parent = HealthCheck("p", type="CALCULATED", children=("c0", "c1"), health_threshold=1, label="pool")
    checks = _checks(*children, parent)
    assert can_fail("p", checks) is False
    assert why_never_fails("p", checks) == "health check pool never reports unhealthy (its children cannot fail)"
    one_live = _checks(children[0], HealthCheck("c1"), parent)
    assert can_fail("p", one_live) is False  # threshold 1: the disabled child alone keeps it healthy
    two = HealthCheck("p", type="CALCULATED", children=("c0", "c1"), health_threshold=2, label="pool")
    assert can_fail("p", _checks(children[0], HealthCheck("c1"), two)) is True


def _chain(length: int) -> dict[str, HealthCheck]:
    """c0 -> c1 -> ... -> c{length-1} (a TCP check), each CALCULATED with threshold 1."""
    checks = {f"c{i}": HealthCheck(f"c{i}", type="CALCULATED", children=(f"c{i + 1}",), health_threshold=1)
              for i in range(length - 1)}
    checks[f"c{length - 1}"] = HealthCheck(f"c{length - 1}", ip_address="198.51.100.9")
    return checks


def test_chain_as_deep_as_the_guard_is_still_read_to_its_leaf():
    deepest = _chain(MAX_DEPTH + 1)  # leaf at depth MAX_DEPTH: still evaluated
    assert can_fail("c0", deepest) is True
    assert check_healthy("c0", deepest, HealthState(down_addresses=frozenset({"198.51.100.9"}))) is False
    # An impossible leaf (threshold above children) at the last evaluated depth still decides.
    deepest["c0"] = HealthCheck("c0", type="CALCULATED", children=("c1",), health_threshold=1)
    deepest[f"c{MAX_DEPTH}"] = HealthCheck(f"c{MAX_DEPTH}", type="CALCULATED", children=("x",), health_threshold=2)
    deepest["x"] = HealthCheck("x")
    assert can_succeed("c0", deepest) is False


def test_chain_deeper_than_the_guard_stops_as_healthy():
    too_deep = _chain(MAX_DEPTH + 3)
    assert can_fail("c0", too_deep) is False
    assert check_healthy("c0", too_deep, HealthState(down_addresses=frozenset({"198.51.100.9"}))) is True


def test_cycle_of_calculated_checks_ends():
    a = HealthCheck("a", type="CALCULATED", children=("b",), health_threshold=1)
    b = HealthCheck("b", type="CALCULATED", children=("a",), health_threshold=1)
    checks = _checks(a, b)
    assert isinstance(can_fail("a", checks), bool)
    assert isinstance(can_succeed("a", checks), bool)
    assert check_healthy("a", checks) is True


# -- why a check can never take its record out ----------------------------------------------------------
def test_why_never_fails_names_the_check_and_the_reason():
    assert why_never_fails(None, {}) == "no health check"
    assert why_never_fails("h", _checks(HealthCheck("h"))) is None
    assert why_never_fails("h", _checks(HealthCheck("h", disabled=True, label="hc-a"))) == (
        "health check hc-a is Disabled (Route 53 then considers it always healthy)")
    assert why_never_fails("h", _checks(HealthCheck("h", disabled=True))) == (
        "health check h is Disabled (Route 53 then considers it always healthy)")
    zero = HealthCheck("z", type="CALCULATED", children=("a",), health_threshold=0, label="calc")
    assert why_never_fails("z", _checks(zero, HealthCheck("a"))) == (
        "CALCULATED health check calc has HealthThreshold 0 (Route 53 then considers it always healthy)")
    one = HealthCheck("o", type="CALCULATED", children=("a",), health_threshold=1, label="calc1")
    assert why_never_fails("o", _checks(one, HealthCheck("a", disabled=True))) == (
        "health check calc1 never reports unhealthy (its children cannot fail)")


# -- "Route 53 doesn't check the health of the endpoint that is specified in the resource record set" ---
def test_probed_elsewhere_only_for_an_ip_endpoint_check_on_another_address():
    assert probed_elsewhere(HealthCheck("h", ip_address="198.51.100.1"), ("198.51.100.2",)) is True
    assert probed_elsewhere(HealthCheck("h", ip_address="198.51.100.1"), ("198.51.100.1",)) is False
    assert probed_elsewhere(HealthCheck("h", fqdn="o.example.com"), ("198.51.100.1",)) is False
    assert probed_elsewhere(HealthCheck("h", ip_address="198.51.100.1"), ()) is False
    calc = HealthCheck("h", type="CALCULATED", ip_address="198.51.100.1")
    assert probed_elsewhere(calc, ("198.51.100.2",)) is False
    cw = HealthCheck("h", type="CLOUDWATCH_METRIC")
    assert probed_elsewhere(cw, ("198.51.100.2",)) is False
