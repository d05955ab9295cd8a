"""benchmarks/mutmut_run.py: which modules `make mutate` runs and how it sets mutmut up (nothing mutated here)."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest

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
    assert "rules/catalogue.py" not in mods and "rules/explain.py" not in mods  # text, not verdicts
    assert {"review/diff.py", "live/plans.py", "live/plan_sources.py", "answers/rehearsal_records.py"} <= set(mods)


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


def test_one_module_run_updates_its_row_and_keeps_the_others_and_the_hand_written_part(tmp_path, monkeypatch):
    tool = _tool()
    results, table = tmp_path / "results.json", tmp_path / "mutation.md"
    monkeypatch.setattr(tool, "RESULTS", results)
    monkeypatch.setattr(tool, "TABLE", table)
    other = {"row": tool.Row("answers/health.py", mutants=10, killed=10).__dict__, "survivors": [],
             "date": "2026-01-01", "mutmut": "3.0.0"}
    results.write_text(__import__("json").dumps({"answers/health.py": other}))
    table.write_text(f"# old\n\nold table\n{tool.TABLE_END}\n\n## By hand\nkept words\n")
    row = tool.Row("answers/select.py", mutants=10, killed=8, survived=2)
    monkeypatch.setattr(tool, "SCRATCH", tmp_path / "scratch")

    def run(module, jobs, t):  # a run leaves the sha256 of the source its mutants were made from
        tool._work(module).mkdir(parents=True)
        (tool._work(module) / tool.SOURCE_HASH).write_text("ab12" * 16)
        return row, ["m1", "m2"]

    monkeypatch.setattr(tool, "run_module", run)
    monkeypatch.setattr(tool, "_mutate_tool", lambda: None)
    assert tool.main(["answers/select.py", "--jobs", "1"]) == 0
    text = table.read_text()
    assert "| answers/health.py | 10 | 10 | 0 | 0 | 0 | 0 | 0 | 100.0 % | 2026-01-01 | 3.0.0 |" in text
    assert "| answers/select.py | 10 | 8 | 2 | 0 | 0 | 0 | 0 | 80.0 % |" in text
    assert "Below 90 %, with untested mutants or not run to the end: answers/select.py" in text
    assert text.endswith(f"{tool.TABLE_END}\n\n## By hand\nkept words\n") and "old table" not in text
    stored = __import__("json").loads(results.read_text())
    assert stored["answers/select.py"]["survivors"] == ["m1", "m2"] and stored["answers/health.py"] == other
    assert stored["answers/select.py"]["source_sha256"] == "ab12" * 16


def test_the_committed_table_is_the_committed_results():
    tool = _tool()
    stored = __import__("json").loads(tool.RESULTS.read_text())
    text = tool.TABLE.read_text()
    assert tool.write_table(stored) in text and tool.TABLE_END in text
    assert set(stored) <= set(tool.modules([])), "a measured module is not in the judgment core list"


def test_check_names_each_shortfall(tmp_path, monkeypatch, capsys):
    tool = _tool()
    results = tmp_path / "results.json"
    monkeypatch.setattr(tool, "RESULTS", results)
    monkeypatch.setattr(tool, "CORE", ("answers/health.py", "answers/select.py", "answers/types.py"))
    monkeypatch.setattr(tool, "_source_hash", lambda module: f"sha-of-{module}")
    row = {"answers/health.py": tool.Row("answers/health.py", mutants=10, killed=9, survived=1).__dict__,
           "answers/select.py": tool.Row("answers/select.py", mutants=10, killed=8, survived=1, no_tests=1).__dict__}
    results.write_text(__import__("json").dumps({k: {"row": v, "survivors": [], "source_sha256": f"sha-of-{k}"} for k, v in row.items()}))
    monkeypatch.setattr(tool, "TABLE", tmp_path / "mutation.md")
    assert tool.main(["--table", "--check"]) == 1
    err = capsys.readouterr().err
    assert "answers/types.py: not measured (make mutate MODULE=answers/types.py)" in err
    assert "answers/select.py: 88.9 % killed, under 90 %" in err and "answers/select.py: 1 mutants no selected test" in err
    assert "answers/health.py" not in err
    row["answers/select.py"] = tool.Row("answers/select.py", mutants=10, killed=9, other=1).__dict__
    results.write_text(__import__("json").dumps({k: {"row": v, "survivors": [], "source_sha256": f"sha-of-{k}"} for k, v in row.items()}))
    monkeypatch.setattr(tool, "TABLE", tmp_path / "mutation.md")
    assert tool.main(["--table", "--check"]) == 1
    assert "answers/select.py: 1 mutants not run to a verdict (a run stopped early)" in capsys.readouterr().err
    row["answers/select.py"] = tool.Row("answers/select.py", mutants=10, killed=10).__dict__
    row["answers/types.py"] = tool.Row("answers/types.py", mutants=3, killed=2, equivalent=1).__dict__
    results.write_text(__import__("json").dumps({k: {"row": v, "survivors": [], "source_sha256": f"sha-of-{k}"} for k, v in row.items()}))
    assert tool.main(["--table", "--check"]) == 0
    capsys.readouterr()
    stored = __import__("json").loads(results.read_text())
    stored["answers/health.py"]["source_sha256"] = "sha-of-an-older-health.py"
    del stored["answers/types.py"]["source_sha256"]
    stored["answers/types.py"]["date"] = "2026-11-30"
    results.write_text(__import__("json").dumps(stored))
    assert tool.main(["--table", "--check"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "mutmut_run: answers/health.py: its source changed since it was measured on ? (make mutate MODULE=answers/health.py)",
        "mutmut_run: answers/types.py: measured before the source's sha256 was recorded, so whether the figures are this "
        "source's is not known (make mutate MODULE=answers/types.py)",
    ]


def test_weekly_workflow_runs_make_mutate_and_publishes_the_report():
    import yaml

    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "mutation.yml").read_text())
    triggers = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads the key `on` as True
    assert triggers["schedule"][0]["cron"].split()[-1] == "1"  # weekly, Mondays
    steps = flow["jobs"]["mutmut"]["steps"]
    runs = " ".join(s.get("run", "") for s in steps)
    assert "make mutate" in runs and "mutmut_run.py --table --survivors --check" in runs
    uploaded = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")][0]["with"]["path"]
    assert "docs/mutation.md" in uploaded and "docs/mutation-results.json" in uploaded
    assert "mutate:" in (ROOT / "Makefile").read_text()


def test_survivors_only_reruns_the_survivors_and_keeps_the_other_verdicts(tmp_path, monkeypatch):
    import json

    tool = _tool()
    monkeypatch.setattr(tool, "SCRATCH", tmp_path)
    module = "answers/health.py"
    fake = type("T", (), {"tests_for": staticmethod(lambda m: ["tests/answers"])})
    with pytest.raises(SystemExit, match="answers/health.py: no earlier run in .*: run `make mutate MODULE=answers/health.py` first"):
        tool.rerun_survivors(module, 1, fake)
    work = tool.prepare(module, ["tests/answers"])
    meta = tool._meta(work, module)
    meta.parent.mkdir(parents=True)
    (work / "mutants" / "tests").mkdir()
    keys = {"m.x__a__mutmut_1": 1, "m.x__a__mutmut_2": 0, "m.x__a__mutmut_3": 33, "m.x__a__mutmut_4": None}
    meta.write_text(json.dumps({"exit_code_by_key": keys}))
    ran: list[list[str]] = []

    def run(cmd, **kw):
        if "run" in cmd:
            ran.append(cmd[cmd.index("--max-children") + 2:])
            # mutmut resets what it did not run; the re-run kills mutant 2, mutant 3 still has no test
            # and a mutant a stopped run left without a verdict (4) now runs: killed
            meta.write_text(json.dumps({"exit_code_by_key": {"m.x__a__mutmut_1": None, "m.x__a__mutmut_2": 1,
                                                            "m.x__a__mutmut_3": 33, "m.x__a__mutmut_4": 1}}))
            return type("P", (), {"stdout": "", "returncode": 0})()
        out = "".join(f"    {k}: {'killed' if v == 1 else 'no tests'}\n" for k, v in
                      json.loads(meta.read_text())["exit_code_by_key"].items())
        return type("P", (), {"stdout": out, "returncode": 0})()

    monkeypatch.setattr(tool.subprocess, "run", run)
    monkeypatch.setattr(tool, "equivalent", lambda: {"m.x__a__mutmut_5": "listed with why"})
    meta.write_text(json.dumps({"exit_code_by_key": {**keys, "m.x__a__mutmut_5": 0}}))
    row, survivors = tool.rerun_survivors(module, 1, fake)
    assert ran == [["m.x__a__mutmut_2", "m.x__a__mutmut_3", "m.x__a__mutmut_4"]]  # not the listed equivalent 5
    assert json.loads(meta.read_text())["exit_code_by_key"] == {"m.x__a__mutmut_1": 1, "m.x__a__mutmut_2": 1,
                                                                "m.x__a__mutmut_3": 33, "m.x__a__mutmut_4": 1,
                                                                "m.x__a__mutmut_5": 0}
    assert (row.killed, row.no_tests) == (3, 1)
    (work / tool.SOURCE_HASH).write_text("0" * 64)  # the source changed since
    with pytest.raises(SystemExit, match="answers/health.py: the source changed since its last full run"):
        tool.rerun_survivors(module, 1, fake)


def test_changed_reruns_only_the_changed_functions_and_says_so_in_the_table(tmp_path, monkeypatch, capsys):
    import json

    tool = _tool()
    monkeypatch.setattr(tool, "SCRATCH", tmp_path)
    module = "answers/health.py"
    fake = type("T", (), {"tests_for": staticmethod(lambda m: ["tests/answers"])})
    with pytest.raises(SystemExit, match="answers/health.py: no earlier run in .*: run `make mutate MODULE=answers/health.py` first"):
        tool.rerun_changed(module, 1, fake)
    work = tool.prepare(module, ["tests/answers"])
    (work / tool.SOURCE_HASH).write_text("0" * 64)  # measured on an earlier source
    meta = tool._meta(work, module)
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {"m.x_a__mutmut_1": 1, "m.x_b__mutmut_1": 0},
                                "hash_by_function_name": {"x_a": "h1", "x_b": "h2"}}))
    stats = work / "mutants" / "mutmut-stats.json"
    stats.write_text("{}")  # which tests reach which function, from the first run
    ran: list[list[str]] = []

    def run(cmd, **kw):
        if "run" in cmd:  # mutmut: b's text changed, its mutant reset and run again (killed now); a's verdict stands
            ran.append(cmd[cmd.index("--max-children") + 2:])
            assert not stats.exists()  # tests mapped to functions again (a changed test, a new function)
            meta.write_text(json.dumps({"exit_code_by_key": {"m.x_a__mutmut_1": 1, "m.x_b__mutmut_1": 1},
                                        "hash_by_function_name": {"x_a": "h1", "x_b": "h3"}}))
            return type("P", (), {"stdout": "", "returncode": 0})()
        out = "".join(f"    {k}: {'killed' if v == 1 else 'survived'}\n" for k, v in
                      json.loads(meta.read_text())["exit_code_by_key"].items())
        return type("P", (), {"stdout": out, "returncode": 0})()

    monkeypatch.setattr(tool.subprocess, "run", run)
    monkeypatch.setattr(tool, "equivalent", lambda: {"edge_origin.answers.health.x_b__mutmut_7": "why b",
                                                     "edge_origin.answers.health.x_a__mutmut_2": "why a"})
    row, survivors = tool.rerun_changed(module, 1, fake)
    assert ran == [[]]  # no names: mutmut runs every mutant without a verdict
    # a listed equivalent of the changed function is named for review (its number may be another mutant now)
    assert "edge_origin.answers.health.x_b__mutmut_7 is listed as equivalent in a function that changed" in capsys.readouterr().out
    assert tool.review_equivalents(module, ["x_b"]) == {"edge_origin.answers.health.x_b__mutmut_7": "why b"}
    assert (row.killed, row.survived, survivors) == (2, 0, [])
    assert (work / tool.SOURCE_HASH).read_text() == tool._source_hash(module)
    assert json.loads((work / tool.INCREMENTAL).read_text()) == {"from": "0" * 64, "functions": ["x_b"]}
    stored = {module: {"row": row.__dict__, "survivors": [], "date": "2026-12-04", "mutmut": "3.8.1",
                       "incremental": json.loads((work / tool.INCREMENTAL).read_text())}}
    assert ("answers/health.py: after a change to its source, the mutants of 1 changed function(s) ran again (x_b); "
            "the other verdicts are from the run on source 000000000000") in tool.write_table(stored)


def test_the_table_reads_without_mutmut_installed(monkeypatch):
    # the floor wheel job runs the suite without the dev extra: the table and its rows still read
    tool = _tool()

    def missing(name):
        raise tool.importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(tool.importlib.metadata, "version", missing)
    assert tool.mutmut_version() == "not installed"


def test_stale_runs_only_the_modules_whose_figures_are_not_this_source(tmp_path, monkeypatch, capsys):
    import json

    tool = _tool()
    results = tmp_path / "results.json"
    monkeypatch.setattr(tool, "RESULTS", results)
    monkeypatch.setattr(tool, "TABLE", tmp_path / "mutation.md")
    monkeypatch.setattr(tool, "SCRATCH", tmp_path / "scratch")
    monkeypatch.setattr(tool, "CORE", ("answers/health.py", "answers/select.py", "answers/types.py", "answers/routing.py"))
    monkeypatch.setattr(tool, "_source_hash", lambda module: f"sha-of-{module}")
    row = lambda m: tool.Row(m, mutants=1, killed=1).__dict__  # noqa: E731
    results.write_text(json.dumps({
        "answers/health.py": {"row": row("answers/health.py"), "survivors": [], "source_sha256": "sha-of-answers/health.py"},
        "answers/select.py": {"row": row("answers/select.py"), "survivors": [], "source_sha256": "older"},
        "answers/types.py": {"row": row("answers/types.py"), "survivors": []},
    }))
    ran: list[str] = []

    def run(module, jobs, t):
        ran.append(module)
        tool._work(module).mkdir(parents=True)
        (tool._work(module) / tool.SOURCE_HASH).write_text(f"sha-of-{module}")
        return tool.Row(module, mutants=1, killed=1), []

    monkeypatch.setattr(tool, "run_module", run)
    monkeypatch.setattr(tool, "_mutate_tool", lambda: None)
    assert tool.main(["--stale", "--check"]) == 0
    assert ran == ["answers/select.py", "answers/types.py", "answers/routing.py"]  # the core's order
    assert "3 module(s) never measured or measured on another source" in capsys.readouterr().out
    ran.clear()
    assert tool.main(["--stale"]) == 0 and ran == []


def test_a_module_folder_in_use_by_another_run_is_refused_and_a_dead_run_frees_it(tmp_path, monkeypatch):
    import subprocess

    tool = _tool()
    monkeypatch.setattr(tool, "SCRATCH", tmp_path)
    module = "answers/health.py"
    work = tool.prepare(module, ["tests/answers"])
    other = subprocess.Popen(["sleep", "30"])
    try:
        (work / tool.RUN_PID).write_text(str(other.pid))
        with pytest.raises(SystemExit, match=rf"answers/health.py: another run \(PID {other.pid}\) is using .*"):
            tool.prepare(module, ["tests/answers"])
        fake = type("T", (), {"tests_for": staticmethod(lambda m: ["tests/answers"])})
        with pytest.raises(SystemExit, match="another run"):
            tool.rerun_survivors(module, 1, fake)
        assert (work / tool.SOURCE_HASH).exists(), "the folder in use was left as it was"
    finally:
        other.kill()
        other.wait(timeout=10)
    work = tool.prepare(module, ["tests/answers"])  # that run is gone: the folder is free
    with tool._in_use(module, work):
        assert (work / tool.RUN_PID).read_text() == str(__import__("os").getpid())
    assert not (work / tool.RUN_PID).exists()
