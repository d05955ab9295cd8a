"""Plan files: the shipped schema, the validator's one-line errors, round trips."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.live.plans import (
    LiveHealthCheckSpec,
    LivePlanError,
    LivePlanRecord,
    Plan,
    loads_plan,
    parse_plan,
    plan_schema,
    schema_errors,
)


def good_plan(**overrides: Any) -> dict[str, Any]:
    plan: dict[str, Any] = {
        "name": "origin.example.com",
        "hosted_zone_id": "Z1234567890ABC",
        "generation": 7,
        "ttl": 60,
        "records": [
            {"set_identifier": "nlb1-us-east-1a", "ip": "203.0.113.10", "zone": "us-east-1a",
             "health_check": {"type": "TCP", "port": 443, "request_interval": 10, "failure_threshold": 3}},
            {"set_identifier": "nlb2-us-east-1b", "ip": "203.0.113.11", "zone": "us-east-1b", "health_check_id": "abcd-1234"},
        ],
    }
    plan.update(overrides)
    return plan


def test_shipped_schema_is_valid_and_accepts_the_example():
    jsonschema.Draft202012Validator.check_schema(plan_schema())
    jsonschema.validate(good_plan(), plan_schema())
    plan = parse_plan(good_plan())
    assert plan.records[0].health_check == LiveHealthCheckSpec("TCP", 443, 10, 3)
    assert plan.records[1].health_check_id == "abcd-1234"


def test_round_trip_and_digest_ignores_generation():
    plan = parse_plan(good_plan())
    again = loads_plan(plan.dumps())
    assert again == plan
    assert parse_plan(good_plan(generation=8)).digest() == plan.digest()
    assert parse_plan(good_plan(ttl=30)).digest() != plan.digest()


def _error(document: Any) -> str:
    with pytest.raises(LivePlanError) as exc:
        parse_plan(document, "plan.json")
    message = str(exc.value)
    assert "\n" not in message and message.startswith("plan.json: ")
    return message


def _without(key: str) -> dict[str, Any]:
    plan = good_plan()
    del plan[key]
    return plan


def _record(**changes: Any) -> dict[str, Any]:
    plan = good_plan()
    plan["records"][0].update(changes)
    return plan


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ([1, 2], "plan: must be an object (got a list)"),
        (_without("generation"), "generation: required field is missing"),
        (good_plan(generation=True), "generation: must be an integer (got a boolean)"),
        (good_plan(generation=7.0), "generation: must be an integer (got a number (7.0))"),
        (good_plan(generation="7"), "generation: must be an integer (got a string)"),
        (good_plan(generation=10**40), "generation: a 41-digit number is out of range 1..9007199254740991"),
        (good_plan(generation=0), "generation: 0 is out of range"),
        (good_plan(ttl=-1), "ttl: -1 is out of range 0..86400"),
        (good_plan(ttl=86401), "ttl: 86401 is out of range 0..86400"),
        (good_plan(name="origin..example.com"), "name: 'origin..example.com' is not a DNS name"),
        (good_plan(name="localhost"), "name: 'localhost' is not a DNS name"),
        (good_plan(hosted_zone_id="zone-1"), "hosted_zone_id: 'zone-1' is not a Route 53 hosted zone id"),
        (good_plan(extra=1), "extra: unknown field (allowed: schema_version, name"),
        (good_plan(schema_version=2), "schema_version: must be 1 (got 2)"),
        (good_plan(records={}), "records: must be a list (got an object)"),
        (_record(ip="203.0.113.300"), "records[0].ip: '203.0.113.300' is not an IPv4 or IPv6 address"),
        (_record(ip="fe80::1%eth0"), "records[0].ip: 'fe80::1%eth0' is not an IPv4 or IPv6 address"),
        (_record(ip="224.0.0.1"), "records[0].ip: 224.0.0.1 is not a unicast address"),
        (_record(set_identifier="nlb2-us-east-1b"), "records[1].set_identifier: 'nlb2-us-east-1b' is also records[0]'s"),
        (_record(ip="203.0.113.11"), "records[1].ip: 203.0.113.11 is also records[0]'s"),
        (_record(set_identifier=""), "records[0].set_identifier: '' must be 1-128 characters long"),
        (_record(health_check_id="x"), "records[0]: give exactly one of health_check_id or health_check (got both)"),
        (_record(health_check={"type": "UDP", "port": 443}), "records[0].health_check.type: 'UDP' is not one of TCP, HTTP, HTTPS"),
        (_record(health_check={"type": "TCP", "port": 70000}), "records[0].health_check.port: 70000 is out of range 1..65535"),
        (_record(health_check={"type": "TCP", "port": 443, "request_interval": 15}), "request_interval: 15 is not one of 10, 30"),
        (_record(health_check={"type": "TCP", "port": 443, "resource_path": "/x"}), "resource_path: a TCP health check takes no path"),
        (good_plan(name="_edge-origin-generation.example.com"), "starts with the reserved label"),
    ],
)
def test_each_bad_field_is_one_line_naming_it(document, expected):
    assert expected in _error(document)


def test_no_health_check_at_all_is_named():
    plan = good_plan()
    del plan["records"][1]["health_check_id"]
    assert "records[1]: give exactly one of health_check_id or health_check (got neither)" in _error(plan)


def test_json_text_errors():
    with pytest.raises(LivePlanError, match=r"x.json: not valid JSON \(line 1 column 2"):
        loads_plan("{oops", "x.json")
    with pytest.raises(LivePlanError, match="NaN is not a JSON number"):
        loads_plan('{"ttl": NaN}', "x.json")
    with pytest.raises(LivePlanError, match="nested too deeply|not valid JSON"):
        loads_plan("[" * 100_000, "x.json")
    with pytest.raises(LivePlanError, match="not valid JSON"):
        loads_plan('{"generation": ' + "9" * 5000 + "}", "x.json")


def test_health_check_flag():
    assert LiveHealthCheckSpec.parse("tcp:443") == LiveHealthCheckSpec("TCP", 443)
    assert LiveHealthCheckSpec.parse("https:8443/healthz") == LiveHealthCheckSpec("HTTPS", 8443, resource_path="/healthz")
    for bad in ("udp:53", "tcp:0", "tcp:99999", "tcp:443/x", "443", ""):
        with pytest.raises(LivePlanError, match="--health-check"):
            LiveHealthCheckSpec.parse(bad)


def test_plan_object_api():
    plan = Plan("Origin.Example.com.", "/hostedzone/Z1", 1, 60, (LivePlanRecord("a", "203.0.113.1", health_check_id="h"),))
    assert plan.fqdn == "origin.example.com." and plan.zone_id == "Z1"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
plan_keys = st.sampled_from(["name", "hosted_zone_id", "generation", "ttl", "records", "schema_version", "comment", "zone"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(json_values, st.dictionaries(plan_keys, json_values, max_size=6)))
def test_random_json_never_crashes_and_names_a_field(document):
    try:
        parse_plan(document, "p.json")
    except LivePlanError as exc:
        message = str(exc)
        assert message.startswith("p.json: ") and "\n" not in message
        field = message.split(": ")[1]
        assert field == "plan" or field.split("[")[0].split(".")[0] in plan_schema()["properties"] or field.split(".")[0] in document


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["generation", "ttl", "name", "hosted_zone_id", "records"]),
    json_values,
)
def test_mutated_plans_agree_with_jsonschema(key, value):
    """Where the hand validator accepts, the shipped schema (checked by jsonschema) accepts too."""
    document = good_plan(**{key: value})
    if not schema_errors(document):
        jsonschema.validate(document, plan_schema(), format_checker=jsonschema.FormatChecker())


def test_jsonschema_agrees_on_the_bad_examples():
    validator = jsonschema.Draft202012Validator(plan_schema(), format_checker=jsonschema.FormatChecker())
    for bad in (good_plan(ttl=-1), good_plan(extra=1), _record(ip="1.2.3"), _record(health_check_id="x"), good_plan(generation=True)):
        assert not validator.is_valid(bad), json.dumps(bad)[:80]
