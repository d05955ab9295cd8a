"""Issue 31: the profile file and `edge-origin profile check` say which clients reach the NLB directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_origin import cli
from edge_origin.profile.cli import check_file

IN_VPC_ONLY = "client_keepalive_time_s: 2\n"  # below the preset's server ping floor: in-VPC findings only


def _write(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "p.yaml"
    path.write_text("preset: streaming-telemetry\n" + IN_VPC_ONLY + extra)
    return path


def test_default_judges_in_vpc_clients(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["profile", "check", str(_write(tmp_path))]) == 1
    assert "[in-VPC client -> NLB]" in capsys.readouterr().out


def test_cloudfront_only_flag_gets_no_in_vpc_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["profile", "check", str(_write(tmp_path)), "--no-in-vpc-clients"]) == 0
    assert "connection profile OK" in capsys.readouterr().out


def test_cloudfront_only_file_key(tmp_path: Path) -> None:
    path = _write(tmp_path, "in_vpc_clients: false\n")
    code, out = check_file(str(path))
    assert code == 0 and "in-VPC" not in out
    code, out = check_file(str(path), in_vpc_clients=True)  # the flag wins over the file
    assert code == 1 and "[in-VPC client -> NLB]" in out


def test_cloudfront_findings_still_judged_on_a_cloudfront_only_path(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("preset: streaming-telemetry\nin_vpc_clients: false\ncloudfront_keepalive_timeout_s: 349\n")
    code, out = check_file(str(path), "json")
    assert "EO-PROFILE-CF-KEEPALIVE" in out and "in-VPC client" not in out


def test_bad_value_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("in_vpc_clients: nope\n")
    assert cli.main(["profile", "check", str(path)]) == 2
    assert "in_vpc_clients: must be true or false" in capsys.readouterr().err


def test_render_accepts_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("preset: streaming-telemetry\nin_vpc_clients: false\n")
    assert cli.main(["profile", "render", str(path), "--lang", "python"]) == 0
