"""benchmarks/flake.py counts failures per test over runs with different hypothesis seeds."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "flake.py"
spec = importlib.util.spec_from_file_location("flake", SCRIPT)
assert spec and spec.loader
flake = importlib.util.module_from_spec(spec)
spec.loader.exec_module(flake)

PROBE = '''
import os
from hypothesis import given, strategies as st

def test_ok():
    assert True

def test_fails_on_odd_seeds(request):
    assert int(request.config.getoption("hypothesis_seed")) % 2 == 0

@given(st.integers())
def test_property(n):
    assert isinstance(n, int)

def test_fresh_database():
    path = os.environ["HYPOTHESIS_STORAGE_DIRECTORY"]
    assert "flake-" in path and not os.path.exists(os.path.join(path, "examples", "seen"))
    os.makedirs(os.path.join(path, "examples", "seen"))
'''


def test_failures_are_counted_per_test_across_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE)
    code = flake.main(["--runs", "3", "--seed", "10", "--marker", "", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "flake: 3 runs x 1 failures (1 run(s) with a failure)" in out, out
    assert "1/3  " in out and "test_fails_on_odd_seeds  (seeds 11" in out
    assert out.count("seed 1") == 3 and "test_fresh_database" not in out.split("flake:")[1]


def test_clean_runs_exit_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "test_probe.py").write_text("def test_ok():\n    assert 1\n")
    assert flake.main(["--runs", "1", "--seed", "4", "--marker", "", str(tmp_path)]) == 0
    assert "flake: 1 runs x 0 failures" in capsys.readouterr().out


def test_runs_must_be_positive() -> None:
    with pytest.raises(SystemExit):
        flake.main(["--runs", "0"])
