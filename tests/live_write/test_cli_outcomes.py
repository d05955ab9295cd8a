"""`edge-origin enact` exit codes under faults (moto server + edge_origin.testing.faults), and the
one error boundary: an endpoint that is not AWS gives one line, never a traceback.

Exit codes (docs/live.md): 0 applied, 1 not applied (refused), 2 bad input, 3 not applied after a
transient error (safe to retry), 4 unknown.
"""

from __future__ import annotations

import contextlib
import http.server
import itertools
import json
import threading
from collections.abc import Iterator

import pytest

from edge_origin.cli import main
from edge_origin.live.session import LiveSession
from edge_origin.testing.faults import Faults
from tests.live_write.moto_server import moto_server

_counter = itertools.count(1)
ADDRESSES = ["203.0.113.10@us-east-1a", "203.0.113.11@us-east-1b", "203.0.113.12@us-east-1c"]


@pytest.fixture(scope="module", autouse=True)
def aws_env(tmp_path_factory):
    none = str(tmp_path_factory.mktemp("aws") / "none")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
                           "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none}.items():
            mp.setenv(key, value)
        mp.delenv("AWS_PROFILE", raising=False)
        yield


@pytest.fixture(scope="module")
def endpoint(aws_env):
    with moto_server() as url:
        yield url


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def planned(capsys, endpoint, tmp_path):
    """A zone with weighted alias records and a plan file for it: (zone_id, name, plan path, client)."""
    r53 = LiveSession(endpoint_url=endpoint).client("route53")
    zone = f"outcome{next(_counter)}.com"
    zone_id = r53.create_hosted_zone(Name=zone, CallerReference=zone)["HostedZone"]["Id"].split("/")[-1]
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
        "Name": f"origin.{zone}", "Type": "A", "SetIdentifier": "nlb-1", "Weight": 50,
        "AliasTarget": {"DNSName": "nlb-1-abcdef.elb.us-east-1.amazonaws.com", "HostedZoneId": "Z26RNL4JYFTOTI", "EvaluateTargetHealth": True}}}]})
    plan = tmp_path / "plan.json"
    argv = ["plan", "from-live", "--name", f"origin.{zone}", "--zone-id", zone_id, "--endpoint-url", endpoint, "-o", str(plan)]
    for a in ADDRESSES:
        argv += ["--address", a]
    assert run(capsys, *argv)[0] == 0
    return zone_id, f"origin.{zone}", plan, r53


@pytest.fixture()
def faults(monkeypatch) -> Faults:
    """Faults installed on every route53 client the CLI makes (through LiveSession.client)."""
    faults = Faults()
    real = LiveSession.client

    def client(self, service):
        made = real(self, service)
        if service == "route53" and not getattr(made, "_faults_attached", False):
            faults.attach(made)
            made._faults_attached = True
        return made

    monkeypatch.setattr(LiveSession, "client", client)
    return faults


def _generation(r53, zone_id: str, name: str) -> str:
    found = r53.list_resource_record_sets(HostedZoneId=zone_id, StartRecordName=f"_edge-origin-generation.{name}", StartRecordType="TXT")
    return json.dumps([r for r in found["ResourceRecordSets"] if r["Type"] == "TXT"], default=str)


def test_lost_answer_after_the_batch_landed_exits_0_and_writes_the_store(capsys, endpoint, planned, faults, tmp_path):
    zone_id, name, plan, r53 = planned
    faults.server_error_after_apply("ChangeResourceRecordSets")
    store = tmp_path / "store"
    code, out, err = run(capsys, "enact", str(plan), "--endpoint-url", endpoint, "--allow-full-change", "--plan-store", str(store))
    assert code == 0, err
    assert "applied" in out and "answer to the batch was lost" in out and "INSYNC not confirmed" in out
    assert (store / name / "1.json").is_file()
    assert faults.hits("server_error_after_apply") == 1


def test_transient_failure_exits_3_and_the_same_plan_then_applies(capsys, endpoint, planned, faults):
    zone_id, name, plan, r53 = planned
    faults.stall("ChangeResourceRecordSets", times=3)
    code, _, err = run(capsys, "enact", str(plan), "--endpoint-url", endpoint, "--allow-full-change")
    assert code == 3, err
    assert err.startswith("edge-origin enact: not applied: ") and "safe to run the same plan again" in err and len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "enact", str(plan), "--endpoint-url", endpoint, "--allow-full-change")
    assert code == 0 and "applied" in out, err


def test_max_attempts_is_the_number_of_requests_sent(capsys, endpoint, planned, faults):
    zone_id, name, plan, r53 = planned
    faults.throttle("ChangeResourceRecordSets", times=None)
    code, _, err = run(capsys, "enact", str(plan), "--endpoint-url", endpoint, "--allow-full-change", "--max-attempts", "2")
    assert code == 3 and "Throttling" in err, err
    assert faults.hits("throttle") == 2
    code, _, err = run(capsys, "enact", str(plan), "--endpoint-url", endpoint, "--allow-full-change")
    assert code == 3 and faults.hits("throttle") == 2 + 3  # the default: 3 in all


def test_max_attempts_out_of_range_is_bad_input(capsys, planned):
    _, _, plan, _ = planned
    with pytest.raises(SystemExit) as exc:
        main(["enact", str(plan), "--max-attempts", "0"])
    assert exc.value.code == 2
    assert "--max-attempts: 0 is out of range 1..10" in capsys.readouterr().err


def test_denied_batch_exits_1_not_applied(capsys, endpoint, planned, faults):
    zone_id, name, plan, r53 = planned
    before = _generation(r53, zone_id, name)
    faults.deny("ChangeResourceRecordSets")
    code, _, err = run(capsys, "enact", str(plan), "--endpoint-url", endpoint, "--allow-full-change")
    assert code == 1 and "not applied: Route 53 refused the batch: AccessDenied" in err, err
    assert _generation(r53, zone_id, name) == before


def test_unknown_exits_4_and_names_plan_show(capsys, endpoint, planned, faults):
    zone_id, name, plan, r53 = planned
    faults.server_error_after_apply("ChangeResourceRecordSets")
    list_calls = 3  # before the batch: generation record, records, generation record again
    faults.deny("ListResourceRecordSets", skip=list_calls + 1)  # (+1: the CNAME check of a name without A records)
    code, _, err = run(capsys, "enact", str(plan), "--endpoint-url", endpoint, "--allow-full-change")
    assert code == 4, (err, faults.log)
    assert f"edge-origin plan show --name {name} --zone-id {zone_id}" in err and len(err.strip().splitlines()) == 1


# --- one error boundary --------------------------------------------------------------------------
@contextlib.contextmanager
def not_aws(status: int = 200, body: bytes = b"<html><body>Directory listing for /</body></html>",
            content_type: str = "text/html") -> Iterator[str]:
    """An HTTP server that is not AWS (as ``python -m http.server``), on 127.0.0.1, stopped after."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer  # noqa: N815

        def log_message(self, *_args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _assembly(tmp_path) -> object:
    """A one-stack cloud assembly: a zone and one multivalue record with a health check."""
    out = tmp_path / "cdk.out"
    out.mkdir()
    template = {"Resources": {
        "Zone": {"Type": "AWS::Route53::HostedZone", "Properties": {"Name": "example.com."}},
        "Check": {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {
            "Type": "TCP", "IPAddress": "192.0.2.10", "Port": 443, "RequestInterval": 10, "FailureThreshold": 3}}},
        "Record": {"Type": "AWS::Route53::RecordSet", "Properties": {
            "HostedZoneId": {"Ref": "Zone"}, "Name": "api.example.com.", "Type": "A", "TTL": "60", "SetIdentifier": "a",
            "MultiValueAnswer": True, "HealthCheckId": {"Ref": "Check"}, "ResourceRecords": ["192.0.2.10"]}},
    }}
    (out / "Edge.template.json").write_text(json.dumps(template))
    (out / "manifest.json").write_text(json.dumps({"version": "36.0.0", "artifacts": {"Edge": {
        "type": "aws:cloudformation:stack", "properties": {"templateFile": "Edge.template.json", "stackName": "Edge"}}}}))
    return out


@pytest.mark.parametrize(("status", "body", "content_type"), [
    (200, b"<html><body>Directory listing for /</body></html>", "text/html"),
    (200, b"not xml at all", "text/plain"),
    (503, b"Service Unavailable", "text/plain"),
])
@pytest.mark.parametrize("command", ["plan-show", "audit", "verify", "preflight", "enact"])
def test_an_endpoint_that_is_not_aws_gives_one_line(capsys, tmp_path, status, body, content_type, command):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"name": "origin.example.com", "hosted_zone_id": "Z1234567890ABC", "generation": 1, "ttl": 60,
                                "records": [{"set_identifier": "a", "ip": "203.0.113.10", "zone": "us-east-1a",
                                             "health_check": {"type": "TCP", "port": 443}}]}))
    cdk_out = str(_assembly(tmp_path))
    with not_aws(status, body, content_type) as url:
        argv = {
            "plan-show": ["plan", "show", "--name", "origin.example.com", "--zone-id", "Z1234567890ABC"],
            "audit": ["audit"],
            "verify": ["verify", cdk_out],
            "preflight": ["preflight", cdk_out],
            "enact": ["enact", str(plan)],
        }[command] + ["--endpoint-url", url, "--max-attempts", "1"]
        code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    assert code != 0, (out, err)
    if "not checked" in out or "not-checked" in out:  # audit, verify, preflight: each check says what it could not read
        assert ("the endpoint's answer is not an AWS response" in out or "503" in out) and code == 1, out
    else:
        assert len(err.strip().splitlines()) == 1, err
        assert any(w in err for w in ("not an AWS response", "AWS call failed", "refused", "not applied", "503")), err


def test_the_boundary_names_the_operation_and_what_came_back(aws_env):
    from edge_origin.live.boundary import UnreadableResponse

    with not_aws() as url:
        client = LiveSession(endpoint_url=url, max_attempts=1).client("route53")
        with pytest.raises(UnreadableResponse, match=r"^ListHostedZones: the endpoint's answer is not an AWS response \(HTTP 200, an HTML page"):
            client.list_hosted_zones()
        elbv2 = LiveSession(endpoint_url=url, max_attempts=1).client("elbv2")
        with pytest.raises(UnreadableResponse, match=r"^DescribeLoadBalancers: the endpoint's answer is not an AWS response"):
            elbv2.describe_load_balancers()


def test_session_max_attempts_is_checked(aws_env):
    from edge_origin.live.session import LiveError

    with pytest.raises(LiveError, match=r"--max-attempts 11: allowed 1..10"):
        LiveSession(max_attempts=11)
    config = LiveSession(max_attempts=4).client("route53").meta.config
    assert config.retries == {"mode": "standard", "total_max_attempts": 4}



def test_dual_stack_migration_over_http(capsys, endpoint, tmp_path):
    """Weighted A and AAAA alias records on moto: plan from-live with IPv4 and IPv6 addresses, enact,
    plan show: no weighted set of either type is left."""
    r53 = LiveSession(endpoint_url=endpoint).client("route53")
    zone = f"dual{next(_counter)}.com"
    zone_id = r53.create_hosted_zone(Name=zone, CallerReference=zone)["HostedZone"]["Id"].split("/")[-1]
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
        "Name": f"origin.{zone}", "Type": rtype, "SetIdentifier": "nlb-1", "Weight": 50,
        "AliasTarget": {"DNSName": "nlb-1-abcdef.elb.us-east-1.amazonaws.com", "HostedZoneId": "Z26RNL4JYFTOTI", "EvaluateTargetHealth": True}}}
        for rtype in ("A", "AAAA")]})
    name = f"origin.{zone}"
    v4_only = tmp_path / "v4.json"
    base = ["plan", "from-live", "--name", name, "--zone-id", zone_id, "--endpoint-url", endpoint]
    assert run(capsys, *base, "--address", "203.0.113.10@us-east-1a", "-o", str(v4_only))[0] == 0
    code, _, err = run(capsys, "enact", str(v4_only), "--endpoint-url", endpoint, "--allow-full-change")
    assert code == 1 and "also holds AAAA record sets (nlb-1 (AAAA) (weighted))" in err, err
    plan = tmp_path / "dual.json"
    assert run(capsys, *base, "--address", "203.0.113.10@us-east-1a", "--address", "2001:db8::10@us-east-1a", "-o", str(plan))[0] == 0
    code, out, err = run(capsys, "enact", str(plan), "--endpoint-url", endpoint, "--allow-full-change", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["read_back"] == "matches"
    code, out, _ = run(capsys, "plan", "show", "--name", name, "--zone-id", zone_id, "--endpoint-url", endpoint, "--json")
    shown = json.loads(out)
    assert shown["routing_policy_by_type"] == {"A": "multivalue", "AAAA": "multivalue"}
    assert not any(r.get("Weight") is not None for r in shown["records"])
