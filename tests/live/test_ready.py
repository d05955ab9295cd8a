"""``edge-origin ready`` on moto: a ready account, and accounts that each miss one thing, asserting
exactly which lines are not ready.

moto 5.2.5 answers ``DescribeCapacityReservation`` with one canned ``provisioned`` state and no
units, and has no ``GetAccountLimit`` (404): ``stub_reservations`` and ``stub_account_limit``
answer them as the API reference shapes them (botocore 1.44.8 elbv2 ``DescribeCapacityReservationOutput``:
``MinimumLoadBalancerCapacity.CapacityUnits``, ``CapacityReservationState[].{AvailabilityZone,
State.Code, EffectiveCapacityUnits}``), through a ``before-call`` handler as botocore's Stubber does.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import accounts
import pytest
from botocore.awsrequest import AWSResponse

from edge_origin import cli
from edge_origin.live.ready import NOT_READ, NOT_READY, READY, ready

ORIGIN = accounts.ORIGIN


def _answer(client: Any, operation: str, service: str, answers: Any) -> None:
    """Answer ``operation`` with ``answers(api_params)``: a parsed response, or ``(status, code)`` for an
    error (the API params come from ``before-parameter-build``, the answer goes out at ``before-call``).
    A second call for the same client and operation replaces the answers (the first handler would win)."""
    table = client.__dict__.setdefault("_ready_test_answers", {})
    first = operation not in table
    table[operation] = answers
    if not first:
        return
    asked: list[dict[str, Any]] = []

    def remember(params: dict[str, Any], **_: Any) -> None:
        asked.append(dict(params))

    def handler(**_: Any) -> Any:
        got = table[operation](asked[-1])
        if isinstance(got, tuple):
            status, code = got
            return AWSResponse(None, status, {}, None), {
                "ResponseMetadata": {"HTTPStatusCode": status}, "Error": {"Code": code, "Message": code}}
        return AWSResponse(None, 200, {}, None), {"ResponseMetadata": {"HTTPStatusCode": 200}, **got}

    client.meta.events.register(f"before-parameter-build.{service}.{operation}", remember)
    client.meta.events.register(f"before-call.{service}.{operation}", handler)


def reservation(units: int | None, states: dict[str, str] | None = None) -> dict[str, Any]:
    if units is None:
        return {"CapacityReservationState": []}
    zones = states or dict.fromkeys(accounts.ZONES, "provisioned")
    return {
        "MinimumLoadBalancerCapacity": {"CapacityUnits": units},
        "DecreaseRequestsRemaining": 2,
        "CapacityReservationState": [
            {"AvailabilityZone": z, "State": {"Code": code}, "EffectiveCapacityUnits": units / len(zones)}
            for z, code in zones.items()
        ],
    }


def stub_reservations(session: Any, by_arn: dict[str, Any]) -> None:
    _answer(session.client("elbv2"), "DescribeCapacityReservation", "elastic-load-balancing-v2",
            lambda params: by_arn[params["LoadBalancerArn"]])


def stub_account_limit(session: Any, count: int) -> None:
    _answer(session.client("route53"), "GetAccountLimit", "route53",
            lambda params: {"Limit": {"Type": params["Type"], "Value": 200}, "Count": count})


def stub_guards(session: Any, protected: bool, active_record_check: bool = False) -> None:
    """Route 53's guards as the API reference shapes them (moto 5.2.5 has neither operation): the origin's A
    records protected or not (``ListResourceRecordSetProtections``), and the zone's ``Features`` added to
    moto's own ``GetHostedZone`` answer (``ChangeGuardrails``, ``ChangeHistory``)."""
    route53 = session.client("route53")
    rows = [{"RecordName": f"{ORIGIN}.", "RecordType": "A"}] if protected else []
    _answer(route53, "ListResourceRecordSetProtections", "route53", lambda params: {"ResourceRecordSetProtections": rows})
    status = "ENABLED" if active_record_check else "DISABLED"

    def with_features(parsed: dict[str, Any], **_: Any) -> None:
        parsed["HostedZone"]["Features"] = {"ChangeGuardrails": [{"Name": "ACTIVE_RECORD_CHECK", "Status": status}],
                                            "ChangeHistory": {"Status": "DISABLED"}}

    route53.meta.events.register("after-call.route53.GetHostedZone", with_features)


def put_path_alarms(session: Any, built: Any, skip: str = "") -> None:
    """What OriginWatch deploys: imbalance (math over each NLB), resets, healthy records, 5xx."""
    cw = session.client("cloudwatch")
    dims = [lb.arn.split(":loadbalancer/", 1)[1] for lb in built.nlbs]

    def math(alarm: str, namespace: str, metric: str, dimension: str, values: list[str], expression: str) -> None:
        if alarm == skip:
            return
        queries = [{"Id": f"m{i}", "ReturnData": False, "MetricStat": {
            "Metric": {"Namespace": namespace, "MetricName": metric, "Dimensions": [{"Name": dimension, "Value": v}]},
            "Period": 60, "Stat": "Sum"}} for i, v in enumerate(values)]
        queries.append({"Id": "e", "Expression": expression, "ReturnData": True})
        cw.put_metric_alarm(AlarmName=alarm, Metrics=queries, EvaluationPeriods=5, Threshold=1,
                            ComparisonOperator="GreaterThanThreshold")

    math("Imbalance", "AWS/NetworkELB", "ActiveFlowCount", "LoadBalancer", dims, "MAX([m0,m1])/AVG([m0,m1])")
    math("ResetsAfterIdle", "AWS/NetworkELB", "TCP_ELB_Reset_Count", "LoadBalancer", dims, "(m0+m1)/60")
    math("HealthyRecords", "AWS/Route53", "HealthCheckStatus", "HealthCheckId", built.health_checks, "m0+m1+m2+m3")
    if skip != "Origin5xx":
        (dist,) = built.grpc_distributions
        cw.put_metric_alarm(AlarmName="Origin5xx", Namespace="AWS/CloudFront", MetricName="5xxErrorRate",
                            Dimensions=[{"Name": "DistributionId", "Value": dist}, {"Name": "Region", "Value": "Global"}],
                            Statistic="Average", Period=60, EvaluationPeriods=5, Threshold=5,
                            ComparisonOperator="GreaterThanThreshold")


def ready_account(session: Any, **options: Any) -> Any:
    """The multivalue path (2 NLBs x 2 zones), its alarms, 4000 LCUs provisioned in each NLB's zones."""
    built = accounts.multivalue(session, **options)
    accounts.fill_moto_gaps(session, built)
    put_path_alarms(session, built)
    stub_reservations(session, {lb.arn: reservation(4000 * 2) for lb in built.nlbs})
    stub_account_limit(session, len(built.health_checks))
    stub_guards(session, protected=True)
    return built


def not_ready(report: Any) -> set[tuple[str, str, str]]:
    return {(line.check, line.subject, line.status) for line in report.lines if line.status != READY}


def test_ready_account_every_line_ready(moto_session: Any) -> None:
    ready_account(moto_session)
    report = ready(moto_session, [ORIGIN])
    assert not_ready(report) == set(), report.text()
    assert report.ok
    checks = [line.check for line in report.lines]
    assert checks.count("quota") == 3 and checks.count("capacity") == 4  # 2 NLBs x 2 zones
    assert {"records", "multivalue", "health", "audit"} <= set(checks) and checks.count("alarm") == 4
    capacity = [line for line in report.lines if line.check == "capacity"]
    assert capacity[0].subject == "nlb-1 us-east-1a" and capacity[0].source == "elbv2 DescribeCapacityReservation"
    assert capacity[0].detail == "8000 LCU requested, zone provisioned (4000 effective); 2 decrease(s) left today"
    (guards,) = [line for line in report.lines if line.check == "guards"]
    assert guards.subject == ORIGIN and "protected: A" in guards.detail
    assert report.summary().startswith("READY: 16 ready, 0 not ready, 0 not read")
    assert report.summary().endswith("; not asked: --devices, --connection-profile, --rehearsal")


def test_missing_reservation_on_one_nlb(moto_session: Any) -> None:
    built = ready_account(moto_session)
    stub_reservations(moto_session, {built.nlbs[0].arn: reservation(8000), built.nlbs[1].arn: reservation(None)})
    report = ready(moto_session, [ORIGIN])
    assert not_ready(report) == {("capacity", "nlb-2", NOT_READY)}
    (line,) = report.not_ready()
    assert "no capacity reserved" in line.detail and "capacity_units=N" in line.fix and built.nlbs[1].arn in line.fix


def test_moto_canned_answer_reads_as_no_reservation(moto_session: Any) -> None:
    """moto's own DescribeCapacityReservation: "provisioned" with no units and no zone: no reservation."""
    built = accounts.multivalue(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    report = ready(moto_session, [ORIGIN])
    assert {("capacity", "nlb-1", NOT_READY), ("capacity", "nlb-2", NOT_READY)} <= not_ready(report)


def test_pending_and_failed_zones(moto_session: Any) -> None:
    built = ready_account(moto_session)
    stub_reservations(moto_session, {
        built.nlbs[0].arn: reservation(8000, {"us-east-1a": "provisioned", "us-east-1b": "pending"}),
        built.nlbs[1].arn: reservation(8000, {"us-east-1a": "failed", "us-east-1b": "rebalancing"}),
    })
    event = dt.datetime(2026, 12, 24, 18, tzinfo=dt.UTC)
    report = ready(moto_session, [ORIGIN], event_time=event, now=event - dt.timedelta(minutes=30))
    assert not_ready(report) == {
        ("capacity", "nlb-1 us-east-1b", NOT_READY), ("capacity", "nlb-2 us-east-1a", NOT_READY),
        ("capacity", "nlb-2 us-east-1b", NOT_READY),
    }
    fixes = {line.subject: line.fix for line in report.not_ready()}
    assert "typically within an hour" in fixes["nlb-1 us-east-1b"] and "0.5 h away" in fixes["nlb-1 us-east-1b"]
    assert "failed in this zone" in fixes["nlb-2 us-east-1a"]
    assert "(0.5 h from now)" in report.summary()


def test_unhealthy_record(moto_session: Any) -> None:
    built = ready_account(moto_session)
    sick = built.health_checks[2]
    asked: list[str] = []

    def failing(parsed: dict[str, Any], **_: Any) -> None:
        if asked and asked[-1] == sick:  # every checker fails for this one check
            for observation in parsed.get("HealthCheckObservations", []):
                observation["StatusReport"]["Status"] = "Failure: Connection timed out."

    events = moto_session.client("route53").meta.events
    events.register("before-parameter-build.route53.GetHealthCheckStatus", lambda params, **_: asked.append(params["HealthCheckId"]))
    events.register("after-call.route53.GetHealthCheckStatus", failing)
    report = ready(moto_session, [ORIGIN])
    assert not_ready(report) == {("health", ORIGIN, NOT_READY)}
    (line,) = report.not_ready()
    assert line.detail.startswith("unhealthy: ") and line.detail.count("checkers failing") == 1


def test_weighted_origin(moto_session: Any) -> None:
    built = ready_account(moto_session)
    route53 = moto_session.client("route53")
    changes = []
    for record in built.records:
        changes.append({"Action": "DELETE", "ResourceRecordSet": record})
        weighted = {k: v for k, v in record.items() if k != "MultiValueAnswer"} | {"Weight": 10}
        changes.append({"Action": "CREATE", "ResourceRecordSet": weighted})
    route53.change_resource_record_sets(HostedZoneId=built.zone_id, ChangeBatch={"Changes": changes})
    report = ready(moto_session, [ORIGIN])
    assert not_ready(report) == {("multivalue", ORIGIN, NOT_READY), ("audit", "rules", NOT_READY)}
    lines = {line.check: line for line in report.not_ready()}
    assert "routing weighted" in lines["multivalue"].detail and "EO-DNS1" in lines["audit"].detail


@pytest.mark.parametrize(("skip", "subject"), [
    ("ResetsAfterIdle", f"{ORIGIN} NLB resets"), ("HealthyRecords", f"{ORIGIN} healthy records"),
    ("Origin5xx", f"{ORIGIN} CloudFront 5xx"), ("Imbalance", f"{ORIGIN} NLB flow imbalance"),
])
def test_missing_alarm(moto_session: Any, skip: str, subject: str) -> None:
    ready_account(moto_session)
    moto_session.client("cloudwatch").delete_alarms(AlarmNames=[skip])
    report = ready(moto_session, [ORIGIN])
    assert not_ready(report) == {("alarm", subject, NOT_READY)}
    assert report.not_ready()[0].source == "cloudwatch DescribeAlarms"


@pytest.mark.parametrize(("status", "code", "why"), [
    (400, "UnknownOperationException", "the endpoint does not offer it: UnknownOperationException"),
    (404, "", "the endpoint does not offer it: HTTP 404"),
    (403, "AccessDenied", "elbv2 DescribeCapacityReservation denied: AccessDenied"),
])
def test_reservation_not_read_says_why(moto_session: Any, status: int, code: str, why: str) -> None:
    built = ready_account(moto_session)
    stub_reservations(moto_session, {lb.arn: (status, code) for lb in built.nlbs})
    report = ready(moto_session, [ORIGIN])
    assert not_ready(report) == {("capacity", "nlb-1", NOT_READ), ("capacity", "nlb-2", NOT_READ)}
    assert all(why in line.detail and line.detail.startswith("not read: DescribeCapacityReservation (") for line in report.not_ready())
    assert not report.ok


def test_quota_not_read_is_not_ready(moto_session: Any) -> None:
    """moto has no GetAccountLimit: the health check quota is "not read", and the report is not ready."""
    built = accounts.multivalue(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    put_path_alarms(moto_session, built)
    stub_reservations(moto_session, {lb.arn: reservation(8000) for lb in built.nlbs})
    stub_guards(moto_session, protected=True)
    report = ready(moto_session, [ORIGIN])
    assert not_ready(report) == {("quota", "Route 53 health checks per account (account)", NOT_READ)}


def test_formats(moto_session: Any) -> None:
    ready_account(moto_session)
    report = ready(moto_session, [ORIGIN])
    data = json.loads(json.dumps(report.to_dict()))
    assert data["ok"] is True and data["counts"] == {"ready": 16, "not ready": 0, "not read": 0}
    assert data["not_asked"] == ["--devices", "--connection-profile", "--rehearsal"]
    assert set(data["lines"][0]) == {"check", "subject", "status", "detail", "source", "fix"}
    markdown = report.markdown()
    assert markdown.startswith("## edge-origin ready: READY") and "| ready | capacity | `nlb-1 us-east-1a` |" in markdown


def test_cli_exit_codes(moto_session: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from edge_origin.cli import live

    built = ready_account(moto_session)
    monkeypatch.setattr(live, "_session", lambda args: moto_session)
    assert cli.main(["ready", "--name", ORIGIN, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    stub_reservations(moto_session, {lb.arn: reservation(None) for lb in built.nlbs})
    assert cli.main(["ready", "--name", ORIGIN]) == 1
    out = capsys.readouterr().out
    assert out.count("not ready capacity") == 2 and out.rstrip().splitlines()[-1].startswith("NOT READY: ")


@pytest.mark.parametrize(("argv", "said"), [
    (["--event-time", "tomorrow"], "--event-time 'tomorrow': allowed an ISO 8601 time"),
    (["--format", "xml"], "--format 'xml': allowed text, markdown, json"),
    (["--name", "a b"], "--name 'a b': not a DNS name"),
    (["--templates", "/nonexistent/t.json"], "/nonexistent/t.json"),
    (["--connection-profile", "/nonexistent/p.yaml"], "--connection-profile: "),
    (["--rehearsal", "/nonexistent/r.json"], "--rehearsal /nonexistent/r.json: not a readable JSON file"),
    (["--no-in-vpc-clients"], "--in-vpc-clients/--no-in-vpc-clients: only with --connection-profile FILE"),
])
def test_cli_bad_input_is_one_line_exit_2(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["ready", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


# --- guards, profile, rehearsal (issue 33: "guards on the origin names", "the connection profile
# consistent", "the last rehearsal's verdict if a result file is given") --------------------------------
@pytest.mark.parametrize(("protected", "active_record_check", "status"), [
    (True, False, READY), (False, True, READY), (False, False, NOT_READY)])
def test_guards_line(moto_session: Any, protected: bool, active_record_check: bool, status: str) -> None:
    ready_account(moto_session)
    stub_guards(moto_session, protected, active_record_check)
    report = ready(moto_session, [ORIGIN])
    (line,) = [line for line in report.lines if line.check == "guards"]
    assert line.status == status, line
    assert not_ready(report) == ({("guards", ORIGIN, NOT_READY)} if status == NOT_READY else set())
    if status == NOT_READY:
        assert "unguarded" in line.detail and "the DNS plan race" in line.detail
        assert "create-resource-record-set-protections" in line.fix and f"RecordName={ORIGIN}" in line.fix


def test_guards_moto_cannot_report_is_not_read(moto_session: Any) -> None:
    """moto 5.2.5 has no ListResourceRecordSetProtections and no Features: "not read", never ready."""
    built = accounts.multivalue(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    put_path_alarms(moto_session, built)
    stub_reservations(moto_session, {lb.arn: reservation(8000) for lb in built.nlbs})
    stub_account_limit(moto_session, len(built.health_checks))
    report = ready(moto_session, [ORIGIN])
    assert not_ready(report) == {("guards", ORIGIN, NOT_READ)}
    assert "did not report its protections" in report.not_ready()[0].detail and not report.ok


@pytest.mark.parametrize(("text", "status"), [
    ("preset: default\n", READY),
    # a client pinging every 10 s against a server that allows one ping every 5 minutes: GOAWAY too_many_pings
    ("preset: default\nclient_keepalive_time_s: 10\nserver_min_ping_interval_s: 300\n", NOT_READY),
])
def test_profile_line(moto_session: Any, tmp_path: Any, text: str, status: str) -> None:
    ready_account(moto_session)
    path = tmp_path / "profile.yaml"
    path.write_text(text)
    report = ready(moto_session, [ORIGIN], profile=path)
    (line,) = [line for line in report.lines if line.check == "profile"]
    assert line.status == status, line
    assert report.ok is (status == READY) and "--connection-profile" not in report.not_asked
    if status == NOT_READY:
        assert "error finding(s)" in line.detail and line.fix


@pytest.mark.parametrize(("verdict", "status"), [("spread", READY), ("pile-up", NOT_READY)])
def test_rehearsal_line(moto_session: Any, tmp_path: Any, verdict: str, status: str) -> None:
    ready_account(moto_session)
    path = tmp_path / "rehearsal.json"
    path.write_text(json.dumps({"verdict": verdict, "max_over_mean": 1.1 if verdict == "spread" else 3.9,
                                "clients": 500, "policy": "round_robin", "errors": {}}))
    report = ready(moto_session, [ORIGIN], rehearsal=path)
    (line,) = [line for line in report.lines if line.check == "rehearsal"]
    assert line.status == status and line.detail.startswith(f"{verdict}: max/mean connections")
    assert report.ok is (status == READY) and report.not_asked == ["--devices", "--connection-profile"]


@pytest.mark.parametrize("content", ["{}", "[1]", "not json", '{"verdict": "fine"}'])
def test_cli_rehearsal_file_that_is_not_a_result_is_exit_2(content: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    assert cli.main(["ready", "--rehearsal", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"--rehearsal {path}" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


# --- the model's prediction for the event (issue 33: "the model's prediction for the event") -----------
def _event(devices: float, ramp_seconds: float) -> Any:
    from edge_origin.forecast.capacity import Nlb, PlannedEvent

    return PlannedEvent(devices=devices, ramp_seconds=ramp_seconds, nlbs=(Nlb("read", 1),)).check()


@pytest.mark.parametrize(("devices", "ramp", "status"), [(2_000, 600, READY), (50_000_000, 0, NOT_READY)])
def test_prediction_line_over_the_nlbs_and_reservations_read(moto_session: Any, devices: int, ramp: int, status: str) -> None:
    from edge_origin.forecast.capacity import Nlb, predict_event

    built = ready_account(moto_session)
    report = ready(moto_session, [ORIGIN], event=_event(devices, ramp))
    (line,) = [line for line in report.lines if line.check == "prediction"]
    assert line.status == status, line
    assert line.subject == f"{ORIGIN} {devices:,} devices over {ramp} s" and "--devices" not in report.not_asked
    # the same verdict as `model predict` over what was read: 2 NLBs x 2 zones, 8000 LCUs each
    same = predict_event(_event(devices, ramp).__class__(devices=devices, ramp_seconds=ramp, nlbs=tuple(
        Nlb(f"nlb-{i + 1}", 2, 8000) for i in range(len(built.nlbs)))).check())
    assert same.fails is (status == NOT_READY)
    if status == NOT_READY:
        assert f"{same.failed_connects:,.0f} connects fail" in line.detail and "runs out first" in line.detail


def test_prediction_not_read_when_a_reservation_is_not_read(moto_session: Any) -> None:
    built = ready_account(moto_session)
    stub_reservations(moto_session, {lb.arn: (403, "AccessDenied") for lb in built.nlbs})
    report = ready(moto_session, [ORIGIN], event=_event(1_000, 60))
    (line,) = [line for line in report.lines if line.check == "prediction"]
    assert line.status == NOT_READ and "reservation of nlb-1, nlb-2 not read" in line.detail


@pytest.mark.parametrize(("argv", "said"), [
    (["--devices", "1000"], "--ramp-seconds: needed with --devices"),
    (["--ramp-seconds", "10"], "--ramp-seconds and the model's assumptions: only with --devices N"),
    (["--devices", "0", "--ramp-seconds", "10"], "--devices"),
    (["--devices", "10", "--ramp-seconds", "10", "--node-lcus", "0"], "--node-lcus"),
])
def test_cli_prediction_flags_bad_input_is_one_line_exit_2(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = cli.main(["ready", *argv])
    except SystemExit as exc:  # argparse's own refusal of a value out of range (the CLI's one-line form)
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_exceeded_quota(moto_session: Any) -> None:
    """The account already holds more Route 53 health checks than its limit (a limit lowered, or a
    count moto never had): the quota line is not ready, and only it."""
    ready_account(moto_session)
    stub_account_limit(moto_session, 201)
    report = ready(moto_session, [ORIGIN])
    assert not_ready(report) == {("quota", "Route 53 health checks per account (account)", NOT_READY)}, report.text()


def test_untrusted_text_is_escaped_in_text_and_markdown(moto_session: Any, tmp_path: Any) -> None:
    """A rehearsal result (a file someone else may have written) whose fields hold a terminal escape, a
    line break, a table pipe and a link: the text line shows them, the Markdown row stays one inert row."""
    ready_account(moto_session)
    path = tmp_path / "rehearsal.json"
    path.write_text(json.dumps({"verdict": "pile-up", "max_over_mean": 3.9, "clients": 500, "errors": {},
                                "policy": "\x1b[31mred\x1b[0m\n::error::x | [a](https://evil.example)"}))
    report = ready(moto_session, [ORIGIN], rehearsal=path)
    text = report.text()
    assert "\x1b" not in text and "\\x1b[31mred" in text and "\n::error::" not in text
    (row,) = [r for r in report.markdown().splitlines() if r.startswith("| not ready | rehearsal |")]
    assert row.count(" | ") == 5 and "\\[a\\](https\\://evil.example)" in row and "\x1b" not in row


def test_plain_names_are_unchanged_in_both_outputs(moto_session: Any) -> None:
    ready_account(moto_session)
    report = ready(moto_session, [ORIGIN])
    assert f"ready     records {ORIGIN}: " in report.text()
    assert "| ready | capacity | `nlb-1 us-east-1a` |" in report.markdown()
