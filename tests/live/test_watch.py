"""`edge-origin watch` on moto: seeded CloudWatch timelines of the incidents and of the fix.

Timelines (20 one-minute periods, 2 NLBs x 2 zones, 4 health-checked multivalue records):
weighted (one node takes the burst), multivalue (spread), keepalive (active climbing, new flat,
resets), unhealthy (3 of 4 records down), idle (below the flow floor), and no data at all. The
alarms' metric math (the construct's expression strings) is evaluated on the same timelines with
``metric_math.evaluate`` and must agree with ``watch`` period by period.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import accounts
import pytest
from helpers import run_cli
from metric_math import evaluate

from edge_origin.core import watch_math as wm
from edge_origin.live.session import LiveError
from edge_origin.live.watch import (
    ACCUMULATING,
    IDLE,
    NOT_CHECKED,
    PILE_UP,
    SPREAD,
    TOO_FEW_HEALTHY,
    check_period,
    dimension_of,
    parse_since,
    watch,
)

MINUTES = 20
NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
SNAPSHOT = Path(__file__).resolve().parents[1] / "snapshots" / "TelemetryIngest.template.json"
# (minute, node index) -> (active, new, resets); minute 0 is the oldest
Timeline = Callable[[int, int], tuple[float, float, float]]


def weighted(m: int, n: int) -> tuple[float, float, float]:
    """The flash crowd lands on one node: its flows and new flows climb, the others idle."""
    return (300.0 + 120 * m, 40.0 + 12 * m, 0.0) if n == 0 else (40.0 + (m % 3), 2.0, 0.0)


def multivalue(m: int, n: int) -> tuple[float, float, float]:
    """The same crowd over every node: a ramp for 10 minutes, then a plateau (with jitter)."""
    return (500.0 + 40 * min(m, 10) + 7 * ((m + n) % 4), 40.0 if m < 10 else 8.0 + m % 3, 0.0)


def keepalive(m: int, n: int) -> tuple[float, float, float]:
    """Active flows climb steadily, new flows flat, resets once idle flows pass the idle timeout."""
    return (150.0 + 20 * m, 3.0, 90.0 if m >= 8 else 0.0)


def idle(m: int, n: int) -> tuple[float, float, float]:
    return (2.0 + (m + n) % 2, 1.0, 0.0)


def _seed(session: Any, built: accounts.Built, timeline: Timeline | None, health: Callable[[int, int], float] | None = None,
          now: dt.datetime = NOW) -> list[str]:
    """Put the timeline into CloudWatch; returns the node labels in order."""
    cw = session.client("cloudwatch")
    nodes = [(dimension_of(lb.arn), zone) for lb in built.nlbs for zone in accounts.ZONES]
    data: list[dict[str, Any]] = []
    for m in range(MINUTES):
        ts = now - dt.timedelta(minutes=MINUTES - m)
        for n, (dim, zone) in enumerate(nodes):
            if timeline is None:
                continue
            dims = [{"Name": "LoadBalancer", "Value": dim}, {"Name": "AvailabilityZone", "Value": zone}]
            for name, value in zip(("ActiveFlowCount", "NewFlowCount", "TCP_ELB_Reset_Count"), timeline(m, n), strict=True):
                data.append({"MetricName": name, "Dimensions": dims, "Timestamp": ts, "Value": value})
        if health is not None:
            for c, hc in enumerate(built.health_checks):
                cw.put_metric_data(Namespace="AWS/Route53", MetricData=[
                    {"MetricName": "HealthCheckStatus", "Dimensions": [{"Name": "HealthCheckId", "Value": hc}],
                     "Timestamp": ts, "Value": health(m, c)}])
    for i in range(0, len(data), 500):
        cw.put_metric_data(Namespace="AWS/NetworkELB", MetricData=data[i : i + 500])
    return [f"{d} {z}" for d, z in nodes]


@pytest.fixture()
def account(moto_session: Any) -> tuple[Any, accounts.Built]:
    built = accounts.multivalue(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    return moto_session, built


def _watch(session: Any, **kw: Any) -> Any:
    result = watch(session, origins=[accounts.ORIGIN], since_s=MINUTES * 60, period_s=60, now=NOW, **kw)
    (path,) = result.paths
    return result, path


@pytest.mark.parametrize(
    ("timeline", "verdict", "code"),
    [(weighted, PILE_UP, 1), (multivalue, SPREAD, 0), (keepalive, ACCUMULATING, 1), (idle, IDLE, 0)],
    ids=["weighted-incident", "multivalue-fix", "keepalive-incident", "idle"],
)
def test_verdict_of_each_timeline(account: tuple[Any, accounts.Built], timeline: Timeline, verdict: str, code: int) -> None:
    session, built = account
    _seed(session, built, timeline, health=lambda m, c: 1.0)
    result, path = _watch(session)
    assert path.verdict == verdict, path.problems
    assert result.exit_code == code
    assert len(path.nodes) == 4 and len(path.periods) == MINUTES
    assert all(p.healthy == 4 for p in path.periods)
    if verdict == PILE_UP:
        assert path.shares and max(path.shares.values()) > 0.8
    if verdict == ACCUMULATING:
        assert any(p.startswith("resets:") for p in path.problems)
    if verdict == SPREAD:
        assert path.problems == [] and max(path.shares.values()) < 0.3


def test_too_few_healthy_records(account: tuple[Any, accounts.Built]) -> None:
    session, built = account
    _seed(session, built, multivalue, health=lambda m, c: 1.0 if c == 0 or m < 10 else 0.0)
    result, path = _watch(session)
    assert path.verdict == TOO_FEW_HEALTHY and result.exit_code == 1
    assert "below 2 of 4" in " ".join(path.problems)
    assert "health-check flips" in " ".join(path.notes)


def test_no_data_is_not_checked_never_spread(account: tuple[Any, accounts.Built]) -> None:
    session, built = account
    result, path = _watch(session)
    assert path.verdict == NOT_CHECKED and result.exit_code == 2
    assert "no ActiveFlowCount datapoints" in path.problems[0]


def test_unknown_origin_is_not_checked(account: tuple[Any, accounts.Built]) -> None:
    session, _ = account
    result = watch(session, origins=["nothing.example.com"], since_s=600, now=NOW)
    assert [p.verdict for p in result.paths] == [NOT_CHECKED] and result.exit_code == 2


@pytest.mark.parametrize("timeline", [weighted, multivalue, keepalive, idle], ids=lambda f: f.__name__)
def test_the_alarms_metric_math_agrees_with_watch_period_by_period(account: tuple[Any, accounts.Built], timeline: Timeline) -> None:
    session, built = account
    _seed(session, built, timeline, health=lambda m, c: 1.0)
    _, path = _watch(session)
    ids = [f"m{i}" for i in range(4)]
    metrics = {ids[n]: [timeline(m, n)[0] for m in range(MINUTES)] for n in range(4)}
    alarm_values = evaluate(wm.imbalance_expression(ids, wm.IMBALANCE_FLOW_FLOOR), metrics, 60)
    for period, alarm_value in zip(path.periods, alarm_values, strict=True):
        watched = period.max_over_mean or 0.0  # the alarm's IF(...) gives 0 below the floor
        assert alarm_value == pytest.approx(watched)
        assert (alarm_value > wm.IMBALANCE_THRESHOLD) == (watched > wm.IMBALANCE_THRESHOLD)
    resets = {f"r{i}": [sum(timeline(m, n)[2] for n in (2 * i, 2 * i + 1)) for m in range(MINUTES)] for i in range(2)}
    alarm_rates = evaluate(wm.reset_rate_expression(list(resets)), resets, 60)
    assert alarm_rates == pytest.approx([p.resets_per_s for p in path.periods])


def test_the_reference_alarms_use_the_shared_expressions() -> None:
    """The template's expressions are the ones evaluated above (same builder, same floor)."""
    template = json.loads(SNAPSHOT.read_text())
    expressions = {
        k: next(m["Expression"] for m in r["Properties"]["Metrics"] if m.get("ReturnData"))
        for k, r in template["Resources"].items() if r["Type"] == "AWS::CloudWatch::Alarm" and "Metrics" in r["Properties"]
    }
    six = [f"m{i}" for i in range(6)]
    assert wm.imbalance_expression(six, wm.IMBALANCE_FLOW_FLOOR) in expressions.values()
    assert wm.healthy_expression([f"h{i}" for i in range(6)]) in expressions.values()
    assert wm.reset_rate_expression(["r0", "r1"]) in expressions.values()


def test_evaluator_fill_and_if_below_the_floor() -> None:
    out = evaluate("IF(SUM(FILL([a,b],0))>=10,MAX(FILL([a,b],0))/AVG(FILL([a,b],0)),0)", {"a": [9.0, None, 30.0], "b": [0.0, 1.0, 10.0]}, 60)
    assert out == [0.0, 0.0, 1.5]
    with pytest.raises(ValueError):
        evaluate("SUM(a)", {"a": [1.0]}, 60)


@pytest.mark.parametrize("text", ["30", "0m", "16d", "1y", "-5m", "", "30 m"])
def test_bad_since(text: str) -> None:
    with pytest.raises(LiveError, match="--since"):
        parse_since(text)


def test_since_and_period() -> None:
    assert parse_since("30m") == 1800 and parse_since("2h") == 7200 and parse_since("15d") == 15 * 86400
    assert check_period(300, 1800) == 300
    for bad in (30, 90, 7200, True):
        with pytest.raises(LiveError, match="--period"):
            check_period(bad, 86400)
    with pytest.raises(LiveError, match="longer than --since"):
        check_period(3600, 1800)


def test_cli_json_and_exit_codes(account: tuple[Any, accounts.Built], monkeypatch: pytest.MonkeyPatch) -> None:
    import edge_origin.cli.live as cli_live

    session, built = account
    now = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)
    _seed(session, built, weighted, health=lambda m, c: 1.0, now=now)
    original = cli_live._session

    def with_gaps_filled(args: Any) -> Any:
        made = original(args)
        accounts.fill_moto_gaps(made, built)
        return made

    monkeypatch.setattr(cli_live, "_session", with_gaps_filled)
    code, out, err = run_cli("watch", "--grpc-origin", accounts.ORIGIN, "--since", "25m", "--format", "json")
    assert code == 1, err
    body = json.loads(out)
    assert [p["verdict"] for p in body["paths"]] == [PILE_UP] and body["exit_code"] == 1
    code, out, _ = run_cli("watch", "--grpc-origin", accounts.ORIGIN, "--since", "25m", "--imbalance-threshold", "20")
    assert code == 0 and f"{accounts.ORIGIN}: SPREAD" in out
    code, out, _ = run_cli("watch", "--grpc-origin", accounts.ORIGIN, "--since", "25m", "--format", "markdown")
    assert code == 1 and out.startswith(f"## {accounts.ORIGIN}: PILE-UP") and "| period (UTC) |" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--since", "3x"], "--since"),
        (["--period", "61"], "--period"),
        (["--period", "30"], "--period"),
        (["--format", "sarif"], "--format"),
        (["--grpc-origin", "a b"], "--grpc-origin"),
        (["--imbalance-threshold", "nan"], "--imbalance-threshold"),
        (["/nonexistent/cdk.out"], "CDK_OUT"),
        (["--follow", "0"], "--follow"),
        (["--follow", "2", "--every", "-1"], "--every"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(aws_env: dict[str, str], argv: list[str], needle: str) -> None:
    code, out, err = run_cli("watch", *argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cloud_assembly_mode_reads_physical_ids_from_the_stack(account: tuple[Any, accounts.Built], tmp_path: Path) -> None:
    """CDK_OUT: the template names the path; CloudFormation ListStackResources gives the live ids
    (stubbed: moto's CloudFormation cannot hold NLBs); EO-WATCH1 notes the missing imbalance alarm."""
    import boto3
    from botocore.stub import Stubber
    from helpers import Clients

    from edge_origin.model import load_model

    session, built = account
    _seed(session, built, weighted, health=lambda m, c: 1.0)
    template = tmp_path / "Edge.template.json"
    template.write_text(json.dumps(accounts.equivalent_template(built)))
    (stack,) = load_model([template]).stacks
    physical = {f"Nlb{i}": lb.arn for i, lb in enumerate(built.nlbs)}
    physical |= {f"Check{n}": hc for n, hc in enumerate(built.health_check_ips)}
    (dist_id,) = built.grpc_distributions
    physical["Edge0"] = dist_id
    session.client("cloudwatch").put_metric_data(Namespace="AWS/CloudFront", MetricData=[{
        "MetricName": "5xxErrorRate", "Timestamp": NOW - dt.timedelta(minutes=m), "Value": 30.0,
        "Dimensions": [{"Name": "DistributionId", "Value": dist_id}, {"Name": "Region", "Value": "Global"}]} for m in range(1, 6)])
    cfn = boto3.client("cloudformation", region_name="us-east-1")
    stubber = Stubber(cfn)
    stubber.add_response("list_stack_resources", {"StackResourceSummaries": [
        {"LogicalResourceId": lid, "PhysicalResourceId": pid, "ResourceType": "AWS::X::Y",
         "LastUpdatedTimestamp": NOW, "ResourceStatus": "CREATE_COMPLETE"} for lid, pid in physical.items()
    ]}, {"StackName": stack})
    with stubber:
        result = watch(Clients(session, cloudformation=cfn), template, [], since_s=MINUTES * 60, now=NOW)
    (path,) = result.paths
    assert path.origin == accounts.ORIGIN and path.verdict == PILE_UP and result.exit_code == 1
    assert sorted(path.nodes) == sorted(f"Nlb{i} {z}" for i in range(2) for z in accounts.ZONES)
    assert all(p.healthy == 4 for p in path.periods)
    assert [a.split()[0] for a in result.advisories] == ["EO-WATCH1"]
    assert path.notes == [] and any(p.startswith("origin 5xx:") for p in path.problems)  # Edge0's physical id


def test_stack_not_deployed_is_bad_input(account: tuple[Any, accounts.Built], tmp_path: Path) -> None:
    session, built = account
    template = tmp_path / "Edge.template.json"
    template.write_text(json.dumps(accounts.equivalent_template(built)))
    with pytest.raises(LiveError, match="not deployed"):
        watch(session, template, [], since_s=600, now=NOW)


def test_cli_chart_and_bounded_follow(account: tuple[Any, accounts.Built], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import edge_origin.cli.live as cli_live

    session, built = account
    now = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)
    _seed(session, built, weighted, health=lambda m, c: 1.0, now=now)
    original = cli_live._session
    monkeypatch.setattr(cli_live, "_session", lambda args: (lambda s: (accounts.fill_moto_gaps(s, built), s)[1])(original(args)))
    chart = tmp_path / "watch.png"
    code, out, err = run_cli("watch", "--grpc-origin", accounts.ORIGIN, "--since", "25m", "--chart", str(chart),
                             "--follow", "2", "--every", "0", "--format", "json")
    assert code == 1, err
    lines = out.splitlines()
    assert len(lines) == 2 and all(json.loads(line)["paths"][0]["verdict"] == PILE_UP for line in lines)
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and chart.stat().st_size > 10_000
    code, out, _ = run_cli("watch", "--grpc-origin", accounts.ORIGIN, "--since", "25m", "--follow", "2", "--every", "0")
    assert code == 1 and out.count("[1/2]") == 1 and out.count("[2/2]") == 1
    code, _, err = run_cli("watch", "--grpc-origin", accounts.ORIGIN, "--since", "25m", "--chart", str(tmp_path / "no" / "x.png"))
    assert code == 2 and "--chart" in err


def test_origin_5xx_is_read_in_us_east_1_with_region_global(account: tuple[Any, accounts.Built]) -> None:
    session, built = account
    _seed(session, built, multivalue, health=lambda m, c: 1.0)
    (dist_id,) = built.grpc_distributions
    cw = session.client("cloudwatch")
    for m in range(MINUTES):
        cw.put_metric_data(Namespace="AWS/CloudFront", MetricData=[{
            "MetricName": "5xxErrorRate", "Timestamp": NOW - dt.timedelta(minutes=MINUTES - m), "Value": 20.0 if m >= 12 else 0.5,
            "Dimensions": [{"Name": "DistributionId", "Value": dist_id}, {"Name": "Region", "Value": "Global"}]}])
    result, path = _watch(session)
    assert path.verdict == SPREAD and result.exit_code == 0  # 5xx is reported, not a spread verdict
    assert any(p.startswith("origin 5xx:") and "peak 20.0" in p for p in path.problems)
    assert path.periods[-1].error_rate_5xx == 20.0


def test_cloudwatch_denied_is_not_checked_with_the_reason(account: tuple[Any, accounts.Built]) -> None:
    import boto3
    from botocore.stub import Stubber
    from helpers import Clients

    session, _ = account
    cw = boto3.client("cloudwatch", region_name="us-east-1")
    stubber = Stubber(cw)
    for _ in range(2):  # one ListMetrics a path's first NLB is enough to fail it
        stubber.add_client_error("list_metrics", "AccessDenied", "not authorized to perform: cloudwatch:ListMetrics")
    with stubber:
        result = watch(Clients(session, cloudwatch=cw), None, [accounts.ORIGIN], since_s=600, now=NOW)
    (path,) = result.paths
    assert path.verdict == NOT_CHECKED and result.exit_code == 2
    assert "AccessDenied" in path.problems[0] or "denied" in path.problems[0].lower()
