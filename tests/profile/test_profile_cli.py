"""edge-origin profile check|render: exit codes, formats, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from edge_origin import cli
from edge_origin.profile import ConnectionProfile, python_channel_options

INCIDENT_YAML = """\
preset: internal-unary
client_keepalive_time_s: 20
client_keepalive_timeout_s: 5
server_min_ping_interval_s: 300
server_permit_without_calls: false
nlb_idle_timeout_s: 350
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {
        "good": tmp_path / "good.json",
        "bad": tmp_path / "incident.yaml",
        "unknown": tmp_path / "unknown.yaml",
        "warn": tmp_path / "warn.yaml",
    }
    out["good"].write_text(json.dumps({"preset": "streaming-telemetry"}))
    out["bad"].write_text(INCIDENT_YAML)
    out["unknown"].write_text("client_keepalive_time: 30\n")
    out["warn"].write_text("client_lb_policy: pick_first\n")
    return out


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_clean(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["profile", "check", str(files["good"])], capsys)
    assert code == 0 and "OK" in out


def test_check_warnings_only_exit_0(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["profile", "check", str(files["warn"])], capsys)
    assert code == 0 and "EO-PROFILE-PICK-FIRST" in out


def test_check_errors_text(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["profile", "check", str(files["bad"])], capsys)
    assert code == 1
    assert "EO-PROFILE-PING-FLOOR" in out and "client_keepalive_time_s 20 s" in out
    assert "server_min_ping_interval_s 300 s" in out


def test_check_errors_json(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["profile", "check", str(files["bad"]), "--format", "json"], capsys)
    assert code == 1
    findings = json.loads(out)["findings"]
    # internal-unary's server pings every 60 s keep the flow alive, so no IDLE-MARGIN: only the ping policy errors
    assert {"EO-PROFILE-PING-FLOOR", "EO-PROFILE-IDLE-PING-REJECTED"} <= {f["rule"] for f in findings}
    assert set(findings[0]) == {"rule", "severity", "message", "fix", "template", "stack", "resource", "path"}
    assert findings[0]["severity"] == "error" and findings[0]["template"] == str(files["bad"])


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["profile", "check", "/nonexistent.yaml"], "cannot read"),
        (["profile", "render", "--lang", "cobol"], "--lang"),
        (["profile", "render", "--lang", "go", "--preset", "turbo"], "preset"),
    ],
)
def test_bad_input_exit_2(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(argv, capsys)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_unknown_key_exit_2(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["profile", "check", str(files["unknown"])], capsys)
    assert code == 2 and "client_keepalive_time: unknown key" in err


def test_render_file_python(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["profile", "render", str(files["good"]), "--lang", "python"], capsys)
    assert code == 0
    expected = python_channel_options(ConnectionProfile.preset("streaming-telemetry"), "client")
    assert all(f"({k!r}, {v})," in out for k, v in expected)


def test_render_preset_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["profile", "render", "--lang", "java", "--preset", "internal-unary"], capsys)
    assert code == 0 and ".keepAliveTime(45, TimeUnit.SECONDS)" in out
    code, out, _ = run(["profile", "render", "--lang", "go"], capsys)
    assert code == 0 and "Time:                60 * time.Second," in out


def test_render_file_over_cli_preset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("nlb_idle_timeout_s: 500\n")
    code, out, _ = run(["profile", "render", str(path), "--preset", "internal-unary", "--lang", "configmap",
                        "--name", "x", "--namespace", "ns"], capsys)
    assert code == 0 and "name: x" in out and "namespace: ns" in out
    profile = json.loads(yaml.safe_load(out)["data"]["profile.json"])
    assert profile["nlb_idle_timeout_s"] == 500 and profile["client_keepalive_time_s"] == 45


def test_check_no_cloudfront_for_internal_origins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "internal.yaml"
    path.write_text("preset: internal-unary\ncloudfront_keepalive_timeout_s: 500\n")
    code, out, _ = run(["profile", "check", str(path)], capsys)
    assert code == 1 and "EO-PROFILE-CF-KEEPALIVE" in out
    code, out, _ = run(["profile", "check", str(path), "--no-cloudfront"], capsys)
    assert code == 0 and "OK" in out
