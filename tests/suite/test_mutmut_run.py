"""benchmarks/mutmut_run.py: which modules `make mutate` runs and how it sets mutmut up (nothing mutated here)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("eo_mutmut_run", ROOT / "benchmarks" / "mutmut_run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["eo_mutmut_run"] = module
    spec.loader.exec_module(module)
    return module


def test_default_modules_are_the_judgment_core():
    tool = _tool()
    mods = tool.modules([])
    assert "answers/select.py" in mods and "model/transition.py" in mods and "live/enact.py" in mods
    assert "rules/dns1_weighted_grpc.py" in mods and not any(m.endswith("__init__.py") for m in mods)
    assert len(mods) == len(set(mods))


def test_unknown_module_is_one_line_naming_it():
    with pytest.raises(SystemExit, match="MODULE 'answers/nope.py': no such module"):
        _tool().modules(["answers/nope.py"])


def test_scratch_folder_links_src_and_restricts_mutation(tmp_path, monkeypatch):
    tool = _tool()
    monkeypatch.setattr(tool, "SCRATCH", tmp_path)
    work = tool.prepare("answers/health.py", ["tests/answers"])
    assert (work / "src").resolve() == (ROOT / "constructs").resolve()
    config = tomllib.loads((work / "pyproject.toml").read_text())["tool"]["mutmut"]
    assert config["only_mutate"] == ["src/edge_origin/answers/health.py"]
    assert config["pytest_add_cli_args_test_selection"] == ["tests/answers"]
    assert "tests" in config["also_copy"] and ".venv" not in config["also_copy"]


def test_score_leaves_equivalent_and_untested_out():
    row = _tool().Row("m", mutants=10, killed=8, survived=1, equivalent=1)
    assert row.score == pytest.approx(800 / 9)
    assert _tool().Row("m").score == 0.0


def test_tests_failing_before_any_mutant_is_one_line_not_a_zero(tmp_path, monkeypatch):
    tool = _tool()
    monkeypatch.setattr(tool, "SCRATCH", tmp_path)

    class Done:
        stdout = "....\nFAILED tests/x.py::t\nfailed to collect stats. runner returned 1\n"
        returncode = 1

    monkeypatch.setattr(tool.subprocess, "run", lambda *a, **k: Done())
    fake = type("T", (), {"tests_for": staticmethod(lambda module: ["tests/answers"])})
    with pytest.raises(SystemExit, match=r"answers/health.py: the tests fail before any mutant runs"):
        tool.run_module("answers/health.py", 1, fake)


def test_a_run_whose_tests_pass_is_counted(tmp_path, monkeypatch):
    tool = _tool()
    monkeypatch.setattr(tool, "SCRATCH", tmp_path)

    class Done:
        stdout = ""
        returncode = 0

    results = "    edge_origin.answers.health.x_a__mutmut_1: killed\n    edge_origin.answers.health.x_a__mutmut_2: survived\n"
    calls = iter([Done(), type("R", (), {"stdout": results, "returncode": 0})()])
    monkeypatch.setattr(tool.subprocess, "run", lambda *a, **k: next(calls))
    fake = type("T", (), {"tests_for": staticmethod(lambda module: ["tests/answers"])})
    row, survivors = tool.run_module("answers/health.py", 1, fake)
    assert (row.mutants, row.killed, row.survived) == (2, 1, 1)
    assert survivors == ["edge_origin.answers.health.x_a__mutmut_2"]


def test_tests_of_the_mutation_tools_are_left_out_of_a_module_selection():
    # tests/suite/test_mutate_engine.py imports rules/dns4_ttl.py but swaps code objects: under
    # mutmut's trampolines it fails before any mutant runs, so dns4_ttl could not be measured.
    tool = _tool()
    fake = type("T", (), {"tests_for": staticmethod(lambda module: ["tests/suite/test_mutate_engine.py", "tests/rules/test_rules.py"])})
    assert tool.selected_tests("rules/dns4_ttl.py", fake) == ["tests/rules/test_rules.py"]
    real = tool.selected_tests("rules/dns4_ttl.py", tool._mutate_tool())
    assert "tests/rules/test_rules.py" in real and not any(t.startswith("tests/suite/") for t in real)
