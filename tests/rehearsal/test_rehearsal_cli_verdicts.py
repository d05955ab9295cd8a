"""`rehearse`'s exit codes and seed through the CLI (no loopback: the model, or bad input)."""

from __future__ import annotations

import json

import pytest
from rehearsal_paths import NAME, REFERENCE

from edge_origin import cli
from edge_origin.cli.rehearse import EXIT_INCONCLUSIVE, verdict_exit


def test_the_exit_code_follows_the_verdict() -> None:
    assert (verdict_exit("spread"), verdict_exit("pile-up"), verdict_exit("inconclusive")) == (0, 1, 3)
    assert verdict_exit("overload") == 1 and EXIT_INCONCLUSIVE == 3


def test_a_model_run_without_seed_records_the_seed_it_drew(capsys: pytest.CaptureFixture[str]) -> None:
    codes, seeds = [], []
    for _ in range(2):
        codes.append(cli.main(["rehearse", str(REFERENCE), "--name", NAME, "--model", "--devices", "500", "--json"]))
        seeds.append(json.loads(capsys.readouterr().out)["details"]["seed"])
    assert all(isinstance(s, int) for s in seeds) and seeds[0] != seeds[1]
    assert codes == [0, 0]


def test_resolver_is_for_the_loopback_run(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["rehearse", str(REFERENCE), "--name", NAME, "--model", "--resolver", "unbound"])
    err = capsys.readouterr().err
    assert code == 2 and "--resolver is for the loopback run" in err and len(err.strip().splitlines()) == 1


def test_a_missing_unbound_is_one_line_naming_the_flag(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    from edge_origin.rehearsal import unbound

    monkeypatch.setattr(unbound, "find_binary", lambda name="unbound": None)
    code = cli.main(["rehearse", str(REFERENCE), "--name", NAME, "--resolver", "unbound", "--clients", "5"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert "--resolver unbound: unbound is not installed" in err and "apt-get install -y unbound" in err
