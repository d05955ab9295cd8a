"""`edge-origin model predict --devices`: a planned event against each zonal node's LCU dimensions."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rehearsal_paths import FIXTURES, REFERENCE

from edge_origin import cli
from edge_origin.forecast.capacity import Nlb, PlannedEvent, predict_event
from edge_origin.forecast.inputs import ModelInputError

RESERVED = FIXTURES / "ReferenceReserved.template.json"  # Reference with 8250 and 11000 LCUs reserved


def _event(devices: float = 4e6, ramp: float = 10, nlbs: int = 2, zones: int = 3, units: int = 0, **kw: object) -> PlannedEvent:
    return PlannedEvent(devices=devices, ramp_seconds=ramp, nlbs=tuple(Nlb(f"n{i}", zones, units) for i in range(nlbs)), **kw)


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


# --- verdicts ------------------------------------------------------------------------------------
def test_the_multivalue_spread_of_the_published_fix_takes_its_burst_at_the_defaults() -> None:
    # 7-9 March: about 4 M connections (model_events.json, derived) over 6 EIPs in seconds, no errors to speak of
    p = predict_event(_event(4.08e6, 10, nlbs=2, zones=3))
    assert not p.fails and p.first_dimension is None and p.waiting_at_end == 0


def test_one_address_taking_the_whole_burst_fails_most_connects_on_new_flows() -> None:
    # the weighted incident's shape: 14 M devices in 10 s on one address per TTL window
    p = predict_event(_event(14e6, 10, nlbs=1, zones=1))
    assert p.first_dimension == "new flows/s" and p.first_seconds == 0
    assert p.failed_share > 0.5


def test_throughput_runs_out_first_when_devices_send_much_and_a_reservation_cures_it() -> None:
    heavy = _event(3e6, 600, nlbs=1, zones=3, device_kbps=50.0, horizon_seconds=900)
    p = predict_event(heavy)
    assert p.first_dimension == "throughput" and p.fails
    reserved = predict_event(replace(heavy, nlbs=(Nlb("n0", 3, 3 * 45000),)))
    assert not reserved.fails  # 45000 LCUs a zone x 2.2 Mbps hold 1 M devices x 50 kbps


def test_active_flows_run_out_first_on_a_slow_join_of_many_devices() -> None:
    p = predict_event(_event(5e7, 3600, nlbs=1, zones=1, node_lcus=50, scale_lcus_per_second=0.0, device_kbps=0.0,
                             horizon_seconds=3700))
    assert p.first_dimension == "active flows" and p.fails


def test_a_throughput_reservation_does_not_help_a_new_flow_burst_unless_assumed_to() -> None:
    burst = _event(14e6, 10, nlbs=1, zones=3, device_kbps=0.0)
    none, reserved = predict_event(burst), predict_event(replace(burst, nlbs=(Nlb("n0", 3, 8250),)))
    assert reserved.failed_connects == pytest.approx(none.failed_connects)  # AWS: throughput only
    optimistic = predict_event(replace(burst, nlbs=(Nlb("n0", 3, 8250),), reservation_covers="all"))
    assert not optimistic.fails


@pytest.mark.parametrize(("change", "message"), [
    ({"devices": 0}, "--devices: must be 1..1e+10"),
    ({"ramp_seconds": -1}, "--ramp-seconds: must be 0..86400"),
    ({"node_lcus": 0}, "--node-lcus: must be 1..1e+06"),
    ({"retry_seconds": 0.5}, "--retry-seconds: must be 1..3600"),
    ({"reservation_covers": "some"}, "--reservation-covers: must be one of throughput, all"),
    ({"nlbs": (Nlb("a", 3, 100),)}, "must be 0 (none) or 8250..135000 (2750..45000 a zone"),
    ({"nlbs": (Nlb("a", 7),)}, "--zones: an NLB has 1..6 zonal nodes"),
    ({"nlbs": ()}, "--nlbs: at least one NLB"),
])
def test_bad_input_is_one_line_naming_the_flag_and_range(change: dict, message: str) -> None:
    with pytest.raises(ModelInputError) as exc:
        predict_event(replace(_event(), **change))
    assert message in str(exc.value) and "\n" not in str(exc.value)


# --- the model's directions (the whole strategy domain is valid input) ---------------------------
EVENTS = st.builds(
    _event,
    devices=st.floats(1, 5e7), ramp=st.floats(0, 200), nlbs=st.integers(1, 4), zones=st.integers(1, 6),
    units=st.just(0),
    node_lcus=st.floats(1, 500), scale_lcus_per_second=st.floats(0, 20), device_kbps=st.floats(0, 100),
    retry_seconds=st.floats(1, 60), horizon_seconds=st.floats(1, 300),
    reservation_covers=st.sampled_from(["throughput", "all"]),
)
SLACK = 1e-6


@settings(max_examples=60, deadline=None, database=None)
@given(event=EVENTS, per_zone=st.integers(2750, 45000), more=st.integers(0, 20000))
def test_more_reservation_never_gives_more_failures(event: PlannedEvent, per_zone: int, more: int) -> None:
    zones = event.nlbs[0].zones
    less_units, more_units = per_zone * zones, min(45000, per_zone + more) * zones
    none = predict_event(event)
    less = predict_event(replace(event, nlbs=tuple(Nlb(n.name, zones, less_units) for n in event.nlbs)))
    most = predict_event(replace(event, nlbs=tuple(Nlb(n.name, zones, more_units) for n in event.nlbs)))
    assert less.failed_connects <= none.failed_connects * (1 + SLACK) + SLACK
    assert most.failed_connects <= less.failed_connects * (1 + SLACK) + SLACK
    assert most.waiting_at_end <= none.waiting_at_end * (1 + SLACK) + SLACK


@settings(max_examples=60, deadline=None, database=None)
@given(event=EVENTS, longer=st.floats(0, 300))
def test_a_longer_ramp_never_gives_more_failures(event: PlannedEvent, longer: float) -> None:
    slow = replace(event, ramp_seconds=event.ramp_seconds + longer, horizon_seconds=event.horizon + longer)
    fast = replace(event, horizon_seconds=event.horizon + longer)
    assert predict_event(slow).failed_connects <= predict_event(fast).failed_connects * (1 + SLACK) + SLACK


@settings(max_examples=60, deadline=None, database=None)
@given(event=EVENTS, extra=st.integers(1, 4))
def test_more_nlbs_never_give_more_failures(event: PlannedEvent, extra: int) -> None:
    more = replace(event, nlbs=event.nlbs + tuple(Nlb(f"x{i}", event.nlbs[0].zones) for i in range(extra)))
    got, before = predict_event(more), predict_event(event)
    assert got.failed_connects <= before.failed_connects * (1 + SLACK) + SLACK
    assert got.attempts > 0 and 0 <= got.failed_share <= 1


# --- the command -------------------------------------------------------------------------------
def test_predict_prints_the_dimensions_the_verdict_and_every_assumption() -> None:
    code, out, _ = _run("model", "predict", "--devices", "14000000", "--ramp-seconds", "10", "--nlbs", "1", "--zones", "1",
                        "--device-kbps", "0.2")
    assert code == cli.EXIT_FINDINGS
    assert "verdict: new flows/s runs out first, 0 s into the ramp;" in out and "connects fail" in out
    for dim in ("new flows/s", "active flows", "throughput"):
        assert f"  {dim}" in out
    assert "https://aws.amazon.com/elasticloadbalancing/pricing/" in out
    assert "request-capacity-unit-reservation.html" in out
    assert "set by you: --device-kbps 0.2" in out and "assumption: --node-lcus 100" in out
    assert "fix: a reservation buys throughput, not new flows (AWS)" in out
    # 14 M x 0.2 kbps = 2,800 Mbps on the one node: 1,273 LCUs, under aws-cdk-lib's 2,750 minimum a zone
    assert "throughput a reservation must cover at the peak: 2,750 a zone, e.g. 2,750 on an NLB of 1 zones" in out
    assert "(aws-cdk-lib's range is 2,750..45,000 a zone; AWS states none)" in out and "AWS's minimum" not in out


def test_a_throughput_bound_event_is_told_what_to_reserve() -> None:
    code, out, _ = _run("model", "predict", "--devices", "3000000", "--ramp-seconds", "600", "--nlbs", "1",
                        "--device-kbps", "50", "--horizon", "900")
    assert code == cli.EXIT_FINDINGS
    assert "verdict: throughput runs out first" in out
    assert "throughput a reservation must cover at the peak: 22,728 a zone, e.g. 68,184 on an NLB of 3 zones" in out
    assert "fix: reserve the throughput above, hours before the event" in out
    code, out, _ = _run("model", "predict", "--devices", "3000000", "--ramp-seconds", "600", "--nlbs", "1",
                        "--device-kbps", "50", "--horizon", "900", "--capacity-units", "68184")
    assert code == cli.EXIT_OK and "verdict: no connect fails within 900 s" in out


def test_predict_exits_0_when_nothing_fails_and_writes_json() -> None:
    code, out, _ = _run("model", "predict", "--devices", "4000000", "--ramp-seconds", "10", "--json")
    data = json.loads(out)
    assert code == cli.EXIT_OK and data["failed_connects"] == 0 and data["first_dimension"] is None
    assert data["event"]["nodes"] == 6 and data["assumptions"]["node_lcus"] == {
        "value": 100.0, "overridden": False, "why": "LCUs a zonal node holds before it scales: not published by AWS"}


def test_predict_reads_the_reservation_from_a_template() -> None:
    code, out, _ = _run("model", "predict", "--devices", "4000000", "--ramp-seconds", "10", "--template", str(RESERVED), "--json")
    data = json.loads(out)
    assert code == cli.EXIT_OK
    assert [(n["name"], n["zones"], n["capacity_units"]) for n in data["event"]["nlbs"]] == [("Nlb1", 3, 8250), ("Nlb2", 3, 11000)]
    assert [n["reserved_lcus"] for n in data["nodes"]] == [2750, pytest.approx(11000 / 3)]
    code, out, _ = _run("model", "predict", "--devices", "4000000", "--ramp-seconds", "10", "--template", str(REFERENCE))
    assert code == cli.EXIT_OK and "reserved 0 LCUs in all" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--devices", "5", "--ramp-seconds", "1", "--zones", "7"], "argument --zones: '7': must be 1..6"),
    (["--devices", "5", "--ramp-seconds", "1", "--capacity-units", "100"], "--capacity-units: 100 on nlb1"),
    (["--devices", "5", "--ramp-seconds", "nan"], "argument --ramp-seconds: 'nan': must be 0..86400"),
    (["--devices", "5"], "--ramp-seconds: needed with --devices"),
    (["--devices", "5", "--ramp-seconds", "1", "--capacity", "9"], "--capacity/--scale-seconds: not with --devices"),
    (["--devices", "5", "--ramp-seconds", "1", "--template", str(RESERVED), "--zones", "2"], "--template: not with --nlbs/--zones"),
    (["--devices", "5", "--ramp-seconds", "1", "--template", "/nonexistent-t29"], "--template:"),
    ([], "give --devices (a planned event) or both --capacity and --scale-seconds"),
])
def test_bad_flags_are_one_line_exit_2(argv: list[str], message: str) -> None:
    code, out, err = _run("model", "predict", *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_reservation_decided_at_deploy_time_is_not_read(tmp_path) -> None:  # noqa: ANN001
    template = json.loads(RESERVED.read_text(encoding="utf-8"))
    template["Parameters"] = {"Units": {"Type": "Number", "Default": 8250}}
    template["Resources"]["Nlb1"]["Properties"]["MinimumLoadBalancerCapacity"] = {"CapacityUnits": {"Ref": "Units"}}
    path = tmp_path / "Deploy.template.json"
    path.write_text(json.dumps(template), encoding="utf-8")
    code, out, err = _run("model", "predict", "--devices", "5", "--ramp-seconds", "1", "--template", str(path))
    if code == 2:
        assert "decided at deploy time (not read); pass --capacity-units" in err
    else:  # the template model resolved the parameter's default: the value is then read
        assert "reserved" in out
    code, _, _ = _run("model", "predict", "--devices", "5", "--ramp-seconds", "1", "--template", str(path),
                      "--capacity-units", "8250")
    assert code == cli.EXIT_OK


def test_a_balancer_whose_type_is_decided_at_deploy_time_is_not_read(tmp_path) -> None:  # noqa: ANN001
    """A Type decided at deploy time may be network: never left out of the capacity (one line, exit 2, the way out)."""
    template = json.loads(RESERVED.read_text(encoding="utf-8"))
    template["Parameters"] = {"LbType": {"Type": "String"}}
    template["Resources"]["Nlb1"]["Properties"]["Type"] = {"Ref": "LbType"}
    path = tmp_path / "Typed.template.json"
    path.write_text(json.dumps(template), encoding="utf-8")
    code, out, err = _run("model", "predict", "--devices", "5", "--ramp-seconds", "1", "--template", str(path))
    assert code == 2 and out == "", (code, out, err)
    assert "Nlb1's Type is decided at deploy time (network or not: not read); pass --nlbs and --zones" in err
    assert len(err.strip().splitlines()) == 1, err
