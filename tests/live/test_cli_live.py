"""The four live commands from the command line, against one moto server on 127.0.0.1; bad input."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import accounts
import pytest
import test_verify
from helpers import run_cli
from test_preflight import REFERENCE, fleet, write

ROOT = Path(__file__).resolve().parents[2]


def test_audit_incident_json_exit_1(server: Any) -> None:
    zone = accounts.incident(server).zone_id
    code, out, err = run_cli("audit", "--endpoint-url", server.endpoint_url, "--grpc-origin", accounts.ORIGIN, "--format", "json")
    assert code == 1, err
    found = json.loads(out)["findings"]
    assert {(f["rule"], f["severity"], f["resource"]) for f in found} == {
        ("EO-DNS1", "error", f"hostedzone/{zone}/api.example.com/A/w-nlb-blue"),
        ("EO-DNS1", "error", f"hostedzone/{zone}/api.example.com/A/w-nlb-green"),
    }
    assert set(found[0]) == {"rule", "severity", "message", "fix", "template", "stack", "resource", "path"}  # as `check`


def test_audit_report_draws_the_live_account(server: Any, tmp_path: Path) -> None:
    accounts.incident(server)
    report = tmp_path / "review.md"
    code, _, err = run_cli("audit", "--endpoint-url", server.endpoint_url, "--grpc-origin", accounts.ORIGIN, "--report", str(report))
    assert code == 1, err
    text = report.read_text()
    assert "```mermaid" in text and "api.example.com" in text and "w-nlb-blue" in text


def test_audit_clean_account_exit_0_and_formats(server: Any) -> None:
    code, out, _ = run_cli("audit", "--endpoint-url", server.endpoint_url)
    assert (code, out) == (0, "no findings\n")
    code, out, _ = run_cli("audit", "--endpoint-url", server.endpoint_url, "--format", "sarif")
    assert code == 0 and json.loads(out)["runs"][0]["results"] == []


def test_audit_fail_on_warning(server: Any) -> None:
    accounts.incident(server)  # without --grpc-origin: a long-lived origin, warnings
    assert run_cli("audit", "--endpoint-url", server.endpoint_url)[0] == 0
    code, out, _ = run_cli("audit", "--endpoint-url", server.endpoint_url, "--fail-on", "warning", "--format", "markdown")
    assert code == 1 and "| warning | EO-DNS1 |" in out


def test_verify_exit_0_then_drift_exit_1(server: Any, tmp_path: Path) -> None:
    server.client("cloudformation").create_stack(StackName=test_verify.STACK, TemplateBody=json.dumps(test_verify.edge_template()))
    out_dir = test_verify.assembly(tmp_path, test_verify.edge_template())
    code, out, err = run_cli("verify", str(out_dir), "--endpoint-url", server.endpoint_url)
    assert code == 0, out + err
    assert "all as declared" in out
    route53 = server.client("route53")
    zone = route53.list_hosted_zones()["HostedZones"][0]["Id"]
    live = [r for r in route53.list_resource_record_sets(HostedZoneId=zone)["ResourceRecordSets"] if r.get("SetIdentifier") == "eip-1"][0]
    route53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [{"Action": "UPSERT", "ResourceRecordSet": {**live, "TTL": 900}}]})
    code, out, _ = run_cli("verify", str(out_dir), "--stack", test_verify.STACK, "--endpoint-url", server.endpoint_url, "--format", "json")
    assert code == 1
    assert [(d["resource"], d["declared"], d["live"]) for d in json.loads(out)["drifts"]] == [("Record1", "60", "900")]


def test_preflight_exit_codes(server: Any, tmp_path: Path) -> None:
    code, out, _ = run_cli("preflight", str(REFERENCE), "--endpoint-url", server.endpoint_url)
    assert code == 1
    assert "exceeded    Elastic IP addresses per region (L-0263D0A3) us-east-1: limit 5, in use 0, needed 6" in out
    code, out, _ = run_cli("preflight", str(write(tmp_path, fleet(eips=2, nlbs=1))), "--endpoint-url", server.endpoint_url, "--format", "json")
    assert code == 0 and json.loads(out)["ok"] is True


def test_subprocess_exit_code_and_no_traceback(moto_server: str, tmp_path: Path) -> None:
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "PYTHONPATH": str(ROOT / "constructs"),
           "AWS_CONFIG_FILE": str(tmp_path / "none"), "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")}
    run = subprocess.run([sys.executable, "-m", "edge_origin.cli", "audit", "--endpoint-url", moto_server, "--name", "nothing.example.com"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip() == "edge-origin audit: --name nothing.example.com: no record sets of that name in any hosted zone of the account"


# --- bad input: exit 2, one line, no traceback ------------------------------------------------
def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _silent_udp() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    return sock


BAD: dict[str, tuple[list[str], str]] = {
    "no credentials": (["audit"], "no AWS credentials found"),
    "unknown profile": (["audit", "--profile", "nope"], "--profile 'nope': no such profile"),
    "unreachable endpoint": (["audit", "--endpoint-url", "http://127.0.0.1:{closed}"], "cannot reach the endpoint"),
    "endpoint without scheme": (["audit", "--endpoint-url", "127.0.0.1:5000"], "must start with http:// or https://"),
    "region without the services": (["audit", "--region", "mars-north-9"], "--region 'mars-north-9': ec2 is not available"),
    "name with no records": (["audit", "--endpoint-url", "{server}", "--name", "nothing.example.com"], "no record sets of that name"),
    "not a dns name": (["audit", "--endpoint-url", "{server}", "--name", "bad name!"], "--name 'bad name!': not a DNS name"),
    "bad format": (["audit", "--endpoint-url", "{server}", "--format", "yaml"], "--format 'yaml': allowed text, json"),
    "bad fail-on": (["audit", "--endpoint-url", "{server}", "--fail-on", "fatal"], "--fail-on: unknown severity"),
    "assembly without the stack": (["verify", "{assembly}", "--stack", "Other", "--endpoint-url", "{server}"], "--stack Other: not in the cloud assembly"),
    "stack not deployed": (["verify", "{assembly}", "--endpoint-url", "{server}"], "stack EdgeOrigin: not deployed"),
    "verify a file": (["verify", "{template}", "--endpoint-url", "{server}"], "not a directory"),
    "preflight missing file": (["preflight", "{missing}", "--endpoint-url", "{server}"], "no such file or directory"),
    "resolver that does not answer": (["dns-spread", "api.example.com", "--resolver", "127.0.0.1:{silent}", "--timeout", "0.1"], "no answer"),
    "resolver not an ip": (["dns-spread", "api.example.com", "--resolver", "dns.google"], "not an IP address"),
    "queries out of range": (["dns-spread", "api.example.com", "--resolver", "127.0.0.1", "--queries", "0"], "must be >= 1"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.timeout(120)  # "no hang" is bounded by an event (this timeout), not a wall-clock assert
def test_bad_input(case: str, server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, expected = BAD[case]
    if case == "no credentials":
        for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            monkeypatch.delenv(key)
    silent = _silent_udp()
    values = {
        "closed": _closed_port(), "server": server.endpoint_url, "silent": silent.getsockname()[1],
        "assembly": test_verify.assembly(tmp_path, test_verify.edge_template()),
        "template": write(tmp_path, fleet()), "missing": tmp_path / "missing.json",
    }
    try:
        code, out, err = run_cli(*[a.format(**values) for a in argv])
    finally:
        silent.close()
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("edge-origin") and "Traceback" not in err
    assert expected in err, err


def test_audit_says_what_it_read_so_a_wrong_region_is_not_a_silent_no_findings(server: Any) -> None:
    accounts.incident(server)
    code, _out, err = run_cli("audit", "--endpoint-url", server.endpoint_url, "--region", "eu-west-3")
    assert code == 0, err
    assert "audit: read " in err and "0 load balancers in eu-west-3" in err
    code, _out, err = run_cli("audit", "--endpoint-url", server.endpoint_url, "--grpc-origin", accounts.ORIGIN)
    assert code == 1
    summary = next(line for line in err.splitlines() if line.startswith("audit: read "))
    assert "read 0 hosted zones" not in summary and "2 load balancers in us-east-1" in summary, summary
