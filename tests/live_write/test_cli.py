"""`edge-origin plan ...` and `edge-origin enact` against a moto server on 127.0.0.1.

moto enforces none of Route 53's change rules (FACTS.md); these tests show the commands work
end to end over HTTP. The rules themselves are tested on edge_origin.testing.route53.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from edge_origin.cli import main
from edge_origin.live.session import LiveSession
from tests.live_write.moto_server import moto_server

_counter = itertools.count(1)


@pytest.fixture(scope="module", autouse=True)
def aws_env(tmp_path_factory):
    """Fake credentials, no config files: nothing from the machine leaks in."""
    none = str(tmp_path_factory.mktemp("aws") / "none")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in {
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
        }.items():
            mp.setenv(key, value)
        mp.delenv("AWS_PROFILE", raising=False)
        yield


@pytest.fixture(scope="module")
def endpoint(aws_env):
    with moto_server() as url:
        yield url


def _incident_zone(endpoint):
    r53 = LiveSession(endpoint_url=endpoint).client("route53")
    name = f"example{next(_counter)}.com"
    zone_id = r53.create_hosted_zone(Name=name, CallerReference=name)["HostedZone"]["Id"].split("/")[-1]
    for sid, dns in (("nlb-1", "nlb-1-abcdef.elb.us-east-1.amazonaws.com"), ("nlb-2", "nlb-2-ghijkl.elb.us-east-1.amazonaws.com")):
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
            "Name": f"origin.{name}", "Type": "A", "SetIdentifier": sid, "Weight": 50,
            "AliasTarget": {"DNSName": dns, "HostedZoneId": "Z26RNL4JYFTOTI", "EvaluateTargetHealth": True}}}]})
    return zone_id, name, r53


@pytest.fixture()
def zone(endpoint):
    """A fresh zone holding the incident's two weighted alias records: (zone_id, zone name, client)."""
    return _incident_zone(endpoint)


@pytest.fixture(scope="module")
def shared_zone(endpoint):
    """One such zone for the tests that must not change it."""
    return _incident_zone(endpoint)


ADDRESSES = [f"203.0.113.{10 + n}@us-east-1{'abc'[n % 3]}" for n in range(6)]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def state(r53, zone_id: str) -> tuple[str, int]:
    records = r53.list_resource_record_sets(HostedZoneId=zone_id)["ResourceRecordSets"]
    return json.dumps(records, sort_keys=True, default=str), len(r53.list_health_checks()["HealthChecks"])


def from_live(capsys, endpoint, zone_id, name, out: Path) -> None:
    argv = ["plan", "from-live", "--name", f"origin.{name}", "--zone-id", zone_id, "--endpoint-url", endpoint, "-o", str(out)]
    for a in ADDRESSES:
        argv += ["--address", a]
    code, _, err = run(capsys, *argv)
    assert code == 0, err


def test_migration_end_to_end_over_http(capsys, endpoint, zone, tmp_path):
    zone_id, name, r53 = zone
    plan_file = tmp_path / "plan.json"
    from_live(capsys, endpoint, zone_id, name, plan_file)
    plan = json.loads(plan_file.read_text())
    assert plan["generation"] == 1 and len(plan["records"]) == 6

    code, out, err = run(capsys, "enact", str(plan_file), "--endpoint-url", endpoint, "--dry-run", "--format", "json", "--allow-full-change")
    assert code == 0, err
    dry = json.loads(out)
    assert len(dry["change_batch"]["Changes"]) == 9 and len(dry["health_checks_to_create"]) == 6
    before = state(r53, zone_id)

    code, _, err = run(capsys, "enact", str(plan_file), "--endpoint-url", endpoint)
    assert code == 1 and "refused: moving" in err and "--allow-full-change" in err and "\n" not in err.strip()
    assert state(r53, zone_id) == before

    code, out, err = run(capsys, "enact", str(plan_file), "--endpoint-url", endpoint, "--allow-full-change", "--wait", "5")
    assert code == 0, err
    assert "applied" in out and "INSYNC" in out

    code, out, _ = run(capsys, "plan", "show", "--name", f"origin.{name}", "--zone-id", zone_id, "--endpoint-url", endpoint, "--json")
    shown = json.loads(out)
    assert code == 0 and shown["routing_policy"] == "multivalue" and shown["generation"] == 1 and len(shown["records"]) == 6

    code, out, _ = run(capsys, "enact", str(plan_file), "--endpoint-url", endpoint, "--allow-full-change")
    assert code == 0 and "nothing to do" in out

    # The next plan from the live multivalue records keeps every set identifier and health check.
    plan2 = tmp_path / "plan2.json"
    from_live(capsys, endpoint, zone_id, name, plan2)
    second = json.loads(plan2.read_text())
    assert second["generation"] == 2 and all("health_check_id" in r for r in second["records"])
    code, out, err = run(capsys, "enact", str(plan2), "--endpoint-url", endpoint, "--format", "json", "--plan-store", str(tmp_path / "store"))
    assert code == 0, err
    assert json.loads(out)["kept"] and len(json.loads(out)["change_batch"]["Changes"]) == 2

    code, _, err = run(capsys, "enact", str(plan_file), "--endpoint-url", endpoint, "--allow-full-change")
    assert code == 1 and "stale plan: live generation is 2" in err


def _plan(zone_id: str, zone_name: str, **overrides) -> dict:
    plan = {
        "name": f"origin.{zone_name}", "hosted_zone_id": zone_id, "generation": 1, "ttl": 60,
        "records": [{"set_identifier": "a", "ip": "203.0.113.10", "health_check": {"type": "TCP", "port": 443}}],
    }
    plan.update(overrides)
    return plan


BAD_PLANS = [
    ("malformed", lambda z, n: "{not json", "not valid JSON (line 1 column 2"),
    ("wrong schema", lambda z, n: _plan(z, n, records={"a": 1}), "records: must be a list"),
    ("unknown field", lambda z, n: _plan(z, n, weight=5), "weight: unknown field"),
    ("unknown zone", lambda z, n: _plan("ZNOSUCHZONE", n), "hosted_zone_id: 'ZNOSUCHZONE': no such hosted zone"),
    ("name outside zone", lambda z, n: _plan(z, n, name="origin.example.org"), "name: 'origin.example.org' is not inside the hosted zone"),
    ("duplicate set ids", lambda z, n: _plan(z, n, records=[
        {"set_identifier": "a", "ip": "203.0.113.10", "health_check_id": "h1"},
        {"set_identifier": "a", "ip": "203.0.113.11", "health_check_id": "h2"}]), "records[1].set_identifier: 'a' is also records[0]'s"),
    ("invalid ip", lambda z, n: _plan(z, n, records=[{"set_identifier": "a", "ip": "203.0.113.256", "health_check_id": "h"}]), "records[0].ip: '203.0.113.256' is not an IPv4 or IPv6 address"),
    ("ttl out of range", lambda z, n: _plan(z, n, ttl=-1), "ttl: -1 is out of range 0..86400"),
    ("generation boolean", lambda z, n: _plan(z, n, generation=True), "generation: must be an integer (got a boolean)"),
    ("generation float", lambda z, n: _plan(z, n, generation=2.5), "generation: must be an integer (got a number (2.5))"),
    ("generation huge", lambda z, n: _plan(z, n, generation=2**64), "generation: 18446744073709551616 is out of range 1..9007199254740991"),
    ("generation string", lambda z, n: _plan(z, n, generation="7"), "generation: must be an integer (got a string)"),
    ("no health check", lambda z, n: _plan(z, n, records=[{"set_identifier": "a", "ip": "203.0.113.10"}]), "records[0]: give exactly one of health_check_id or health_check"),
]


@pytest.mark.parametrize(("label", "make", "expected"), BAD_PLANS, ids=[b[0] for b in BAD_PLANS])
def test_bad_plans_exit_2_naming_the_field_and_apply_nothing(capsys, endpoint, shared_zone, tmp_path, label, make, expected):
    zone_id, name, r53 = shared_zone
    document = make(zone_id, name)
    path = tmp_path / "bad.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    before = state(r53, zone_id)
    code, out, err = run(capsys, "enact", str(path), "--endpoint-url", endpoint, "--allow-full-change")
    assert code == 2 and out == ""
    assert expected in err and len(err.strip().splitlines()) == 1, err
    assert state(r53, zone_id) == before


BAD_FLAGS = [
    ("address without zone", ["plan", "from-live", "--name", "origin.example.com", "--zone-id", "Z1", "--address", "203.0.113.10"], "no zone; expected IP@ZONE"),
    ("address bad ip", ["plan", "from-live", "--name", "origin.example.com", "--zone-id", "Z1", "--address", "203.0.113@us-east-1a"], "is not an IPv4 or IPv6 address"),
    ("address and lbs", ["plan", "from-live", "--name", "origin.example.com", "--zone-id", "Z1", "--address", "203.0.113.1@us-east-1a", "--from-load-balancers"], "not both or neither"),
    ("bad health check", ["plan", "from-live", "--name", "origin.example.com", "--zone-id", "Z1", "--address", "203.0.113.1@us-east-1a", "--health-check", "udp:53"], "expected tcp:PORT"),
    ("bad name", ["plan", "show", "--name", "origin..example.com", "--zone-id", "Z1"], "--name: 'origin..example.com' is not a DNS name"),
    ("bad zone id", ["plan", "show", "--name", "origin.example.com", "--zone-id", "zone-1"], "--zone-id: 'zone-1' is not a Route 53 hosted zone id"),
    ("endpoint scheme", ["plan", "show", "--name", "origin.example.com", "--zone-id", "Z1", "--endpoint-url", "127.0.0.1:1"], "--endpoint-url '127.0.0.1:1': must start with http://"),
    ("unreachable endpoint", ["plan", "show", "--name", "origin.example.com", "--zone-id", "Z1", "--endpoint-url", "http://127.0.0.1:9"], "unreachable"),
    ("change share", ["enact", "p.json", "--max-change-share", "0"], "--max-change-share: '0' must be > 0"),
    ("wait", ["enact", "p.json", "--wait", "nan"], "--wait: 'nan' is not a finite number"),
    ("format", ["enact", "p.json", "--format", "xml"], "--format 'xml': allowed text, json"),
    ("missing plan", ["enact", "/nonexistent/plan.json"], "/nonexistent/plan.json: cannot read"),
    ("unknown profile", ["plan", "show", "--name", "origin.example.com", "--zone-id", "Z1", "--profile", "nope"], "--profile 'nope': no such profile"),
]


@pytest.mark.parametrize(("label", "argv", "expected"), BAD_FLAGS, ids=[b[0] for b in BAD_FLAGS])
def test_bad_flags_exit_2_with_one_line(capsys, label, argv, expected):
    with pytest.raises(SystemExit) if label in ("address without zone", "address bad ip", "bad health check", "change share", "wait") else _nothing() as exc:
        code = main(argv)
    _, err = capsys.readouterr()
    code = exc.value.code if hasattr(exc, "value") and exc.value is not None else code
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, err


class _nothing:
    value = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


SNAPSHOT = Path(__file__).resolve().parents[1] / "snapshots" / "TelemetryIngest.template.json"


@pytest.mark.slow  # moto's CloudFormation and EC2 take ~10 s to warm up in the server
def test_from_template_through_a_deployed_stack(capsys, endpoint, tmp_path):
    """The reference template's records; its EIPs deployed (alone) as stack TelemetryIngest on moto.
    moto's EIPs are 127.x addresses, which Route 53 cannot health-check (API reference,
    HealthCheckConfig.IPAddress): the plan is refused at plan time, naming the address, instead of
    CreateHealthCheck failing halfway through enact. (With public EIPs: test_plan_sources.py.)"""
    session = LiveSession(endpoint_url=endpoint)
    template = json.loads(SNAPSHOT.read_text())
    eips = {k: v for k, v in template["Resources"].items() if v["Type"] == "AWS::EC2::EIP"}
    session.client("cloudformation").create_stack(StackName="TelemetryIngest", TemplateBody=json.dumps({"Resources": eips}))
    r53 = session.client("route53")
    zone_id = r53.create_hosted_zone(Name="telemetry.example.com", CallerReference="telemetry")["HostedZone"]["Id"].split("/")[-1]
    plan_file = tmp_path / "plan.json"
    code, _, err = run(capsys, "plan", "from-template", str(SNAPSHOT), "--name", "origin.telemetry.example.com",
                       "--zone-id", zone_id, "--endpoint-url", endpoint, "-o", str(plan_file))
    addresses = {a["PublicIp"] for a in session.client("ec2").describe_addresses()["Addresses"]}
    assert code == 2 and "is loopback, 127.0.0.0/8: Route 53 cannot health-check it" in err, err
    assert any(f"ip: {ip} is loopback" in err for ip in addresses) and len(err.strip().splitlines()) == 1
    assert not plan_file.exists()


def test_unwritable_outputs_are_bad_input_before_anything_is_applied(capsys, endpoint, shared_zone, tmp_path):
    zone_id, name, r53 = shared_zone
    before = state(r53, zone_id)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_plan(zone_id, name)))
    code, _, err = run(capsys, "enact", str(plan), "--endpoint-url", endpoint, "--allow-full-change", "--plan-store", "/proc/nope/store")
    assert code == 2 and "--plan-store /proc/nope/store: cannot create" in err
    code, _, err = run(capsys, "plan", "from-live", "--name", f"origin.{name}", "--zone-id", zone_id, "--endpoint-url", endpoint,
                       "--address", "203.0.113.1@us-east-1a", "-o", "/proc/nope/plan.json")
    assert code == 2 and "-o/--output /proc/nope/plan.json: folder" in err and len(err.strip().splitlines()) == 1
    assert state(r53, zone_id) == before
