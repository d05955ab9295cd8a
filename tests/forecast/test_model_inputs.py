"""Bad model input: one line naming the flag, exit 2; and the input parsers on their own."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rehearsal_paths import NAME, REFERENCE_WEIGHTED

from edge_origin import cli
from edge_origin.forecast.inputs import (
    Capacity,
    ModelInputError,
    edge_shares,
    parse_capacity,
    parse_retry,
    read_capacity_file,
    zipf_shares,
)
from edge_origin.forecast.montecarlo import ModelConfig, run_model
from edge_origin.rehearsal.plan import reference_plan


def _run(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    argv = ["rehearse", str(REFERENCE_WEIGHTED), "--name", NAME, "--model", "--devices", "1000", *flags]
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    return code, capsys.readouterr().err.strip()


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "flags,named",
    [
        (["--edge-traffic", "gaussian"], "--edge-traffic"),
        (["--edge-traffic", "zipf:nan"], "--edge-traffic"),
        (["--edge-traffic", "zipf:-1"], "--edge-traffic"),
        (["--edge-traffic", "zipf:inf"], "--edge-traffic"),
        (["--edge-traffic", "zipf"], "--edge-traffic"),
        (["--edge-traffic", "/no/such/shares.csv"], "--edge-traffic"),
        (["--origin-capacity", "0"], "--origin-capacity"),
        (["--origin-capacity", "-5"], "--origin-capacity"),
        (["--origin-capacity", "nan"], "--origin-capacity"),
        (["--origin-capacity", "inf/s"], "--origin-capacity"),
        (["--origin-capacity", "5/m"], "--origin-capacity"),
        (["--origin-capacity-file", "/no/such/caps.csv"], "--origin-capacity-file"),
        (["--resolvers", "0"], "--resolvers"),
        (["--edges", "4", "--resolvers", "5"], "--resolvers"),
        (["--retry", "x"], "--retry"),
        (["--retry", "3:nan"], "--retry"),
        (["--retry", "3:0"], "--retry"),
        (["--retry", "-1"], "--retry"),
        (["--retry", "3:10:5"], "--retry"),
        (["--retry", "1:2:3:4"], "--retry"),
        (["--devices", "nan"], "--devices"),
        (["--devices", "0"], "--devices"),
        (["--ttl", "inf"], "--ttl"),
        (["--ttl", "0"], "--ttl"),
        (["--ramp-seconds", "-1"], "--ramp-seconds"),
        (["--ramp-seconds", "nan"], "--ramp-seconds"),
        (["--step", "0"], "--step"),
        (["--horizon", "-inf"], "--horizon"),
        (["--error-limit", "2"], "--error-limit"),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(capsys: pytest.CaptureFixture[str], flags: list[str], named: str) -> None:
    code, err = _run(capsys, *flags)
    assert code == cli.EXIT_BAD_INPUT, err
    assert named in err, err
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "text,problem",
    [
        ("a,0.5\nb,0.4\n", "sum to 0.9"),
        ("a,1.2\nb,-0.2\n", ">= 0"),
        ("a,0.5\nb,abc\n", "not a number"),
        ("a,0.5,1\n", "expected 'edge,share'"),
        ("a,0.5\na,0.5\n", "listed twice"),
        ("edge,share\n", "no 'edge,share' rows"),
        ("a,nan\nb,1\n", "finite"),
    ],
)
def test_bad_shares_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str) -> None:
    code, err = _run(capsys, "--edge-traffic", _write(tmp_path, "shares.csv", text))
    assert code == cli.EXIT_BAD_INPUT
    assert "--edge-traffic" in err and problem in err, err


@pytest.mark.parametrize(
    "text,problem",
    [
        ("Nlb1Eip1,0\n", "> 0"),
        ("Nlb1Eip1,lots\n", "N or N/s"),
        ("Nowhere,10\n", "no origin 'Nowhere'"),
        ("Eip1,10\n", "matches several origins"),
        ("Nlb1Eip1,10\nNlb1Eip1,20\n", "listed twice"),
        ("# only a comment\n", "no 'origin,capacity' rows"),
    ],
)
def test_bad_capacity_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str) -> None:
    code, err = _run(capsys, "--origin-capacity-file", _write(tmp_path, "caps.csv", text))
    assert code == cli.EXIT_BAD_INPUT
    assert "--origin-capacity-file" in err and problem in err, err


def test_shares_file_rows_are_the_edges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    shares = _write(tmp_path, "audience.csv", "edge,share\nBOM78-P1,0.7\nDEL54-P2,0.2\n# a comment\nMAA50-P1,0.1\n")
    code, err = _run(capsys, "--edge-traffic", shares, "--resolvers", "3", "--json")
    assert code in (cli.EXIT_OK, cli.EXIT_FINDINGS), err
    code = cli.main(["rehearse", str(REFERENCE_WEIGHTED), "--name", NAME, "--model", "--devices", "1000",
                     "--edge-traffic", shares, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["edges"] == 3
    code, err = _run(capsys, "--edge-traffic", shares, "--edges", "5")
    assert code == cli.EXIT_BAD_INPUT and "lists 3 edges but --edges is 5" in err


def test_capacity_file_overrides_from_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    caps = _write(tmp_path, "caps.csv", "origin,capacity\nNlb1Eip1,10\nReferenceWeighted/Nlb2Eip3,20/s\n")
    code = cli.main(["rehearse", str(REFERENCE_WEIGHTED), "--name", NAME, "--model", "--devices", "1000",
                     "--origin-capacity", "500", "--origin-capacity-file", caps, "--json", "--seed", "1"])
    data = json.loads(capsys.readouterr().out)
    assert code in (cli.EXIT_OK, cli.EXIT_FINDINGS)
    assert data["origin_load"]["ReferenceWeighted/Nlb1Eip1"]["capacity"] == "10"
    assert data["origin_load"]["ReferenceWeighted/Nlb2Eip3"]["capacity"] == "20/s"
    assert data["origin_load"]["ReferenceWeighted/Nlb1Eip2"]["capacity"] == "500"


def test_parsers() -> None:
    assert parse_capacity("2_000") == Capacity(2000.0)
    assert parse_capacity("150/s") == Capacity(150.0, per_second=True)
    retry = parse_retry("inf")
    assert math.isinf(retry.attempts) and retry.base_delay == 1 and retry.max_delay == 120
    assert [round(retry.delay(k), 2) for k in (1, 2, 3)] == [1.0, 1.6, 2.56]
    assert retry.delay(30) == 120
    assert parse_retry("5:0.5:10").attempts == 5
    assert edge_shares("uniform", 4) == [0.25] * 4
    z = zipf_shares(600, 2.0)
    assert z[0] == pytest.approx(0.609, abs=0.002) and sum(z) == pytest.approx(1.0)
    assert edge_shares([0.5, 0.5], 2) == [0.5, 0.5]
    with pytest.raises(ModelInputError, match="2 shares for 3 edges"):
        edge_shares([0.5, 0.5], 3)


def test_library_refuses_what_the_cli_refuses() -> None:
    plan = reference_plan()
    for cfg, flag in [
        (ModelConfig(edges=4, resolvers=5), "--resolvers"),
        (ModelConfig(resolvers=0), "--resolvers"),
        (ModelConfig(ttl=math.nan), "--ttl"),
        (ModelConfig(ramp_seconds=math.inf), "--ramp-seconds"),
        (ModelConfig(origin_capacity=math.nan), "--origin-capacity"),
        (ModelConfig(origin_capacity=-1.0), "--origin-capacity"),
        (ModelConfig(origin_capacity=Capacity(0.0)), "--origin-capacity"),
        (ModelConfig(edge_traffic=[0.5, -0.5, 1.0], edges=3), "--edge-traffic"),
        (ModelConfig(step_seconds=math.nan), "--step"),
        (ModelConfig(capacity_overrides={"Nope": 5}), "--origin-capacity-file"),
        (ModelConfig(edges=10_000, resolvers=10_000, ttl=1), "--resolvers 10000 x 600 TTL windows"),
    ]:
        with pytest.raises(ModelInputError, match=flag):
            run_model(plan, cfg)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=20))
def test_any_text_parses_or_is_a_model_error(text: str) -> None:
    for parse in (parse_capacity, parse_retry, lambda t: edge_shares(t, 3)):
        try:
            parse(text)
        except ModelInputError as exc:
            assert "\n" not in str(exc)


def test_capacity_file_reads_a_header_and_comments(tmp_path: Path) -> None:
    caps = read_capacity_file(_write(tmp_path, "c.csv", "origin,capacity\n# note\nA, 5\nB,7/s\n"))
    assert caps == {"A": Capacity(5.0), "B": Capacity(7.0, per_second=True)}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=6), st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                                                         st.text(max_size=6))), max_size=5))
def test_any_shares_file_reads_or_is_a_model_error(tmp_path_factory: pytest.TempPathFactory, rows) -> None:  # noqa: ANN001
    path = tmp_path_factory.mktemp("shares") / "s.csv"
    path.write_text("\n".join(f"{a},{b}" for a, b in rows))
    try:
        shares = edge_shares(str(path), len(rows))
    except ModelInputError as exc:
        assert "--edge-traffic" in str(exc) and "\n" not in str(exc)
    else:
        assert sum(shares) == pytest.approx(1.0) and all(s >= 0 for s in shares)
