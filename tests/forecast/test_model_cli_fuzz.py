"""Garbage at every flag of `edge-origin model` and the new `rehearse --model` flags: exit 0/1/2, one line."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rehearsal_paths import NAME, REFERENCE

from edge_origin import cli

NASTY = ["nan", "inf", "-inf", "-1", "0", "1e309", "", " ", "\x00", "\U0001f642", "--", "a" * 500, "../../etc",
         "/dev/zero", "1_000", "1.5", "99999999999", "weighted", "multivalue,latency", "1,2,x"]
VALUES = st.one_of(st.sampled_from(NASTY), st.integers(-(2**40), 2**40).map(str),
                   st.floats(allow_nan=True, allow_infinity=True).map(repr),
                   st.text(alphabet=st.characters(blacklist_characters="\n\r\x85\u2028\u2029"), max_size=10))


def _small_events(tmp: Path) -> str:
    path = tmp / "events.json"
    path.write_text(json.dumps({"events": [{
        "name": "e", "routing": "multivalue", "ips": 3, "concurrent_connections": 300, "requests_per_second": 30,
        "ramp_seconds": 5, "duration_seconds": 600, "ttl": 60, "health_check_interval": 10, "failure_threshold": 3}]}))
    return str(path)


def _specs(events: str) -> dict[str, tuple[list[str], list[str]]]:
    return {
        "predict": (["model", "predict", "--events", events, "--capacity", "100", "--scale-seconds", "1", "--seeds", "1"],
                    ["--events", "--capacity", "--scale-seconds", "--seeds", "--resolvers", "--connect-tries", "--retry"]),
        "predict --devices": (["model", "predict", "--devices", "1000", "--ramp-seconds", "5", "--horizon", "60"],
                              ["--devices", "--ramp-seconds", "--nlbs", "--zones", "--capacity-units", "--template",
                               "--reservation-covers", "--node-lcus", "--scale-lcus-per-second", "--device-kbps",
                               "--retry-seconds", "--horizon"]),
        "fit": (["model", "fit", "--events", events], ["--events", "--published"]),
        "compare": (["model", "compare", "--no-loopback", "--clients", "10", "--edges", "1"],
                    ["--clients", "--edges", "--routing", "--seed"]),
        "rehearse --model": (["rehearse", str(REFERENCE), "--name", NAME, "--model", "--devices", "200", "--horizon", "60"],
                             ["--connect-tries", "--scale-seconds", "--seeds", "--kill"]),
    }


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, err.getvalue()


@settings(database=None, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_model_flag_takes_garbage_cleanly(data: st.DataObject, tmp_path: Path) -> None:
    specs = _specs(_small_events(tmp_path))
    label = data.draw(st.sampled_from(sorted(specs)), label="command")
    base, flags = specs[label]
    flag = data.draw(st.sampled_from(flags), label="flag")
    value = data.draw(VALUES, label="value")
    argv = list(base)
    if flag in argv:
        argv[argv.index(flag) + 1] = value
    else:
        argv += [flag, value]
    code, err = _run(argv)
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, (argv, err)


@pytest.mark.parametrize("flag", ["--events", "--published"])
def test_an_unreadable_file_is_one_line(tmp_path: Path, flag: str) -> None:
    code, err = _run(["model", "fit", flag, str(tmp_path)])
    assert code == 2 and len(err.strip().splitlines()) == 1 and flag in err
