"""live/plans.py: what `--health-check` and `plan from-live` put in a plan, and the refusals a user reads, whole
(mutmut, issue 38)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from edge_origin.live.plans import LiveHealthCheckSpec, LivePlanError, parse_plan, write_plan


def good_plan() -> dict[str, Any]:
    return {"name": "origin.example.com", "hosted_zone_id": "Z1234567890ABC", "generation": 7, "ttl": 60, "records": [
        {"set_identifier": "a", "ip": "203.0.113.10", "health_check": {"type": "TCP", "port": 443}},
        {"set_identifier": "b", "ip": "2001:db8::10", "health_check_id": "abcd-1234"}]}


@pytest.mark.parametrize(("text", "spec"), [
    ("tcp:1", LiveHealthCheckSpec("TCP", 1)),
    ("TCP:65535", LiveHealthCheckSpec("TCP", 65535)),
    (" http:8080/ready ", LiveHealthCheckSpec("HTTP", 8080, resource_path="/ready")),
    ("https:443", LiveHealthCheckSpec("HTTPS", 443)),
    # the type in any case, the path exactly as given (HTTP paths are case-sensitive)
    ("HTTPS:443/Healthz", LiveHealthCheckSpec("HTTPS", 443, resource_path="/Healthz")),
])
def test_health_check_flag_each_edge_of_the_port_range(text: str, spec: LiveHealthCheckSpec) -> None:
    assert LiveHealthCheckSpec.parse(text) == spec


@pytest.mark.parametrize(("text", "why"), [
    ("tcp:0", "port 0 is out of range 1..65535"),
    ("tcp:65536", "port 65536 is out of range 1..65535"),
    ("tcp:443/x", "a TCP health check takes no path"),
    ("", "expected tcp:PORT, http:PORT/PATH or https:PORT/PATH"),
    ("udp:53", "expected tcp:PORT, http:PORT/PATH or https:PORT/PATH"),
])
def test_health_check_flag_refusals_read_in_full(text: str, why: str) -> None:
    with pytest.raises(LivePlanError) as refused:
        LiveHealthCheckSpec.parse(text)
    assert str(refused.value) == f"--health-check {text!r}: {why}"


@pytest.mark.parametrize(("config", "spec"), [
    ({"Type": "TCP", "Port": 443}, LiveHealthCheckSpec("TCP", 443, 30, 3)),  # Route 53's defaults: 30 s, 3 failures
    ({"Type": "HTTPS", "Port": "8443", "RequestInterval": 10, "FailureThreshold": 2, "ResourcePath": "/healthz"},
     LiveHealthCheckSpec("HTTPS", 8443, 10, 2, "/healthz")),
    ({"Type": "HTTP", "Port": 80, "RequestInterval": "30", "FailureThreshold": "5"}, LiveHealthCheckSpec("HTTP", 80, 30, 5)),
    ({"Type": "HTTP_STR_MATCH", "Port": 80}, None),  # the plan format holds TCP, HTTP and HTTPS only
    ({"Type": "CALCULATED"}, None),
    ({"Type": "TCP"}, None),  # no port: not a check a plan can hold
    ({}, None),
])
def test_a_live_health_check_in_a_plan(config: dict[str, Any], spec: LiveHealthCheckSpec | None) -> None:
    assert LiveHealthCheckSpec.from_config(config) == spec


def test_an_ipv6_record_that_is_not_an_address_is_refused() -> None:
    plan = good_plan()
    plan["records"][1]["ip"] = "zz::1"
    with pytest.raises(LivePlanError) as refused:
        parse_plan(plan, "plan.json")
    assert str(refused.value).startswith("plan.json: records[1].ip: 'zz::1' is not")


def test_a_plan_is_not_written_over_a_folder(tmp_path: Path) -> None:
    plan = parse_plan(good_plan())
    with pytest.raises(LivePlanError) as refused:
        write_plan(plan, tmp_path)
    assert str(refused.value) == f"plan file {tmp_path}: is a directory, not a regular file"
    write_plan(plan, tmp_path / "plan.json")
    assert parse_plan(good_plan()) == plan and (tmp_path / "plan.json").read_text() == plan.dumps()


@pytest.mark.parametrize(("spec", "config"), [
    (LiveHealthCheckSpec("TCP", 443), {"Type": "TCP", "IPAddress": "203.0.113.10", "Port": 443, "RequestInterval": 10,
                                   "FailureThreshold": 3}),
    (LiveHealthCheckSpec("HTTP", 8080, 30, 2, "/ready"),
     {"Type": "HTTP", "IPAddress": "203.0.113.10", "Port": 8080, "RequestInterval": 30, "FailureThreshold": 2,
      "ResourcePath": "/ready"}),
    # Route 53 API reference, HealthCheckConfig.EnableSNI: send the name in the TLS client_hello for HTTPS checks
    (LiveHealthCheckSpec("HTTPS", 443, resource_path="/healthz"),
     {"Type": "HTTPS", "IPAddress": "203.0.113.10", "Port": 443, "RequestInterval": 10, "FailureThreshold": 3,
      "ResourcePath": "/healthz", "EnableSNI": True}),
])
def test_the_health_check_a_plan_creates(spec: LiveHealthCheckSpec, config: dict[str, Any]) -> None:
    assert spec.config("203.0.113.10") == config
