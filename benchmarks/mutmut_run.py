"""Mutation testing of the judgment core with mutmut 3: one module at a time, a table per module.

    make mutate                                   # every module of the judgment core (long)
    make mutate MODULE=answers/select.py          # one module (minutes)
    make mutate MODULE=live/enact.py CHANGED=1    # after a change: only the changed functions' mutants again
    make mutate MODULE=live/enact.py SURVIVORS=1  # only the survivors again, against today's tests
    python benchmarks/mutmut_run.py answers/select.py --jobs 2
    python benchmarks/mutmut_run.py --table       # the last results, no run

Why a wrapper: mutmut 3 names a mutant after the file's path below the working folder, stripping
only a leading ``src.``; the trampolines in the mutated code report ``edge_origin.<module>``. The
source root of this project is ``constructs/`` (not ``src/``), so each module runs in its own
scratch folder ``build/mutmut/<module>/`` whose ``src`` links to ``constructs``: mutant names and
trampoline hits then agree, and mutmut puts ``mutants/src`` first on ``sys.path``.

Which tests: benchmarks/mutate_map.txt plus the test files that import the module or name the rule
ids it defines (the same selection as benchmarks/mutate.py), non-slow only, without the tests of the
mutation tools themselves (tests/suite/: they swap code objects and fail under mutmut's trampolines). Equivalent mutants (no
input can tell them apart) are listed in docs/mutation-equivalent.txt, one a line:
``<mutant name>  # why``; they are counted apart and left out of the score.

The table (module, mutants, killed, survived, equivalent, no tests, timeout, score) is printed and
written to docs/mutation.md with the date and mutmut's version. A benchmark, not part of
``make test`` or ``.ci/run``; a weekly scheduled CI job is where it belongs.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "constructs" / "edge_origin"
SCRATCH = REPO / "build" / "mutmut"
EQUIVALENT = REPO / "docs" / "mutation-equivalent.txt"
TABLE = REPO / "docs" / "mutation.md"
#: Every module's last measured row, its survivors, the date and mutmut's version: committed beside the
#: table, so one module's run (``make mutate MODULE=...``) updates its row and keeps the others.
RESULTS = REPO / "docs" / "mutation-results.json"
#: In each scratch folder: the sha256 of the module's source its mutants were made from (``--survivors-only``).
SOURCE_HASH = "source.sha256"
#: docs/mutation.md: the generated table sits above this line; what is below it is written by hand and kept.
TABLE_END = "<!-- end of the generated table: what follows is kept by benchmarks/mutmut_run.py -->"

#: The judgment core (issue 38): the answer model, the rules, the change model, the change engine's
#: planning and the keepalive profile checks.
CORE = (
    "answers/",
    "model/names.py",
    "model/transition.py",
    "review/diff.py",
    "live/enact.py",
    "live/plans.py",
    "live/plan_sources.py",
    "profile/checks.py",
    "profile/hops.py",
    "profile/policy.py",
    "rules/",
)
#: In those folders but not verdicts: the rule catalogue (RULES.md) and `edge-origin explain`'s text.
NOT_CORE = ("rules/catalogue.py", "rules/explain.py")
#: Tests of the mutation tools themselves (tests/suite/test_mutate_engine.py swaps a rule's code objects
#: in and out): they import the module under test but judge nothing, and fail under mutmut's trampolines.
TOOL_TESTS = ("tests/suite/",)
#: What the scratch folder leaves out of the repository root (the rest: the tests and what they read).
SKIP = {".git", ".venv", "node_modules", "build", "dist", "cdk.out", "mutants", ".pytest_cache",
        ".ruff_cache", "pyproject.toml"}


def also() -> list[str]:
    return sorted(p.name for p in REPO.iterdir() if p.name not in SKIP and not p.name.endswith(".egg-info"))


@dataclass
class Row:
    module: str
    mutants: int = 0
    killed: int = 0
    survived: int = 0
    equivalent: int = 0
    no_tests: int = 0
    timeout: int = 0
    other: int = 0

    @property
    def score(self) -> float:
        judged = self.killed + self.survived + self.timeout
        return 100.0 * (self.killed + self.timeout) / judged if judged else 0.0


def _mutate_tool():
    spec = importlib.util.spec_from_file_location("eo_mutate", REPO / "benchmarks" / "mutate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["eo_mutate"] = module
    spec.loader.exec_module(module)
    return module


def modules(args: list[str]) -> list[str]:
    """Module paths below constructs/edge_origin (folders expanded), in order, each once."""
    out: list[str] = []
    for arg in args or CORE:
        arg = arg.removeprefix("constructs/").removeprefix("edge_origin/")
        path = PACKAGE / arg
        if path.is_dir():
            found = sorted(p.relative_to(PACKAGE).as_posix() for p in path.glob("*.py")
                           if p.name != "__init__.py" and p.relative_to(PACKAGE).as_posix() not in NOT_CORE)
        elif path.is_file():
            found = [arg]
        else:
            raise SystemExit(f"mutmut_run: MODULE {arg!r}: no such module or folder under constructs/edge_origin")
        out += [m for m in found if m not in out]
    return out


def equivalent() -> dict[str, str]:
    """Mutant name -> why it is equivalent (docs/mutation-equivalent.txt)."""
    if not EQUIVALENT.exists():
        return {}
    out = {}
    for line in EQUIVALENT.read_text().splitlines():
        name, _, why = line.partition("#")
        if name.strip() and not line.lstrip().startswith("#"):
            out[name.strip()] = why.strip()
    return out


def _work(module: str) -> Path:
    """The module's scratch folder under build/mutmut/."""
    return SCRATCH / module.replace("/", "__").removesuffix(".py")


def _run_mutmut(work: Path, module: str, jobs: int, names: list[str]) -> None:
    """``mutmut run`` in ``work`` (every mutant, or only ``names``); one line when the tests fail before any mutant."""
    proc = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *names], cwd=work,
                          capture_output=True, text=True, env=_env(work), timeout=6 * 3600)
    if "Failed to run clean test" in proc.stdout or "failed to collect stats" in proc.stdout:
        tail = "\n".join(proc.stdout.splitlines()[-15:])
        raise SystemExit(f"mutmut_run: {module}: the tests fail before any mutant runs, in {work}:\n{tail}")


#: In each scratch folder while a run uses it: the PID of that run (another run of the module is refused).
RUN_PID = "run.pid"


def _refuse_if_in_use(module: str, work: Path) -> None:
    pid_file = work / RUN_PID
    try:
        pid = int(pid_file.read_text())
    except (OSError, ValueError):
        return
    if pid == os.getpid():
        return
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return  # a run that died: its folder is free
    except PermissionError:
        pass
    raise SystemExit(f"mutmut_run: {module}: another run (PID {pid}) is using {work}; wait for it or stop it")


@contextlib.contextmanager
def _in_use(module: str, work: Path):
    """Mark ``work`` as used by this process for the length of a run."""
    _refuse_if_in_use(module, work)
    (work / RUN_PID).write_text(str(os.getpid()))
    try:
        yield
    finally:
        (work / RUN_PID).unlink(missing_ok=True)


def prepare(module: str, tests: list[str]) -> Path:
    """The scratch folder for one module: src -> constructs, the tests, a pyproject.toml for mutmut."""
    work = _work(module)
    _refuse_if_in_use(module, work)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    (work / "src").symlink_to(REPO / "constructs", target_is_directory=True)
    for name in also():
        (work / name).symlink_to(REPO / name)
    _write_config(work, module, tests)
    (work / SOURCE_HASH).write_text(_source_hash(module))
    return work


def _write_config(work: Path, module: str, tests: list[str]) -> None:
    config = {
        "source_paths": ["src"],
        "only_mutate": [f"src/edge_origin/{module}"],
        "also_copy": also(),
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-m", "not slow", "-q", "-p", "no:randomly"],
        "pytest_add_cli_args_test_selection": tests,
        # a mutant's CPU limit is 2 x multiplier x (its tests' time + 1 s); mutmut's 15 lets a mutant that loops
        # forever (a `while` whose counter no longer moves) hold a worker for minutes: 5 is still 10x the tests
        "timeout_multiplier": 5.0,
    }
    lines = ["[tool.mutmut]"] + [f"{k} = {json.dumps(v)}" for k, v in config.items()]
    (work / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text() + "\n" + "\n".join(lines) + "\n")


def _source_hash(module: str) -> str:
    return hashlib.sha256((PACKAGE / module).read_bytes()).hexdigest()


def _meta(work: Path, module: str) -> Path:
    return work / "mutants" / "src" / "edge_origin" / f"{module}.meta"


def rerun_survivors(module: str, jobs: int, tool) -> tuple[Row, list[str]]:
    """Run again only the mutants that survived, that no test reached or that a stopped run left without a verdict
    in the last run of ``module``, against the tests as they are now; the other verdicts stand. Refused when the module's source changed since that run
    (mutant names would no longer match): run it in full then."""
    work = _work(module)
    _refuse_if_in_use(module, work)
    meta = _meta(work, module)
    if not meta.exists():
        raise SystemExit(f"mutmut_run: {module}: no earlier run in {work}: run `make mutate MODULE={module}` first")
    recorded = (work / SOURCE_HASH).read_text() if (work / SOURCE_HASH).exists() else None
    if recorded != _source_hash(module):
        raise SystemExit(f"mutmut_run: {module}: the source changed since its last full run (or that run is too old "
                         f"to tell): run `make mutate MODULE={module}`")
    before = json.loads(meta.read_text())["exit_code_by_key"]
    known = equivalent()  # an equivalent mutant survives every test by definition: not run again
    names = [k for k, v in before.items() if v in (0, 33, None) and k not in known]  # None: not run to a verdict
    tests_now = work / "mutants" / "tests"
    shutil.rmtree(tests_now)
    shutil.copytree(REPO / "tests", tests_now, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    _write_config(work, module, selected_tests(module, tool))
    if names:
        _forget_test_map(work)
        with _in_use(module, work):
            _run_mutmut(work, module, jobs, names)
    data = json.loads(meta.read_text())
    after = data["exit_code_by_key"]
    # a named run resets the verdicts of the mutants it did not run: the earlier ones stand for those
    data["exit_code_by_key"] = {k: (after.get(k) if k in names and after.get(k) is not None else v) for k, v in before.items()}
    meta.write_text(json.dumps(data))
    return _counts(work, module, equivalent())


#: In a scratch folder after ``--changed``: the source it was measured on before and the functions run again.
INCREMENTAL = "incremental.json"


def _forget_test_map(work: Path) -> None:
    """Make mutmut map tests to functions again before a re-run. It keeps which tests reach which function from
    its first run and adds only new test names: a test changed since (now reaching a function it did not) or a
    function added since (its mutants then have "no tests") would be missed. The verdicts are kept."""
    (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)


def review_equivalents(module: str, functions: list[str]) -> dict[str, str]:
    """The listed equivalent mutants of ``module`` in ``functions``: after their text changed, a listed number
    may name another mutant."""
    prefix = "edge_origin." + module.removesuffix(".py").replace("/", ".") + "."
    return {name: why for name, why in equivalent().items() if name.startswith(prefix)
            and name[len(prefix):].split("__mutmut_")[0] in functions}


def rerun_changed(module: str, jobs: int, tool) -> tuple[Row, list[str]]:
    """After a change to ``module``'s source: run again, against the tests as they are now, only the mutants of the
    functions whose text changed (and any new or never run), as mutmut 3 does by itself on a second run in the
    same folder: it keeps a hash per function and resets the verdicts of a function whose hash changed
    (mutmut/__main__.py ``create_mutants_for_file``). The verdicts of unchanged functions stand; the row records
    which functions ran again (docs/mutation.md says so). Refused without an earlier run of the module."""
    work = _work(module)
    _refuse_if_in_use(module, work)
    meta = _meta(work, module)
    if not meta.exists():
        raise SystemExit(f"mutmut_run: {module}: no earlier run in {work}: run `make mutate MODULE={module}` first")
    recorded = (work / SOURCE_HASH).read_text().strip() if (work / SOURCE_HASH).exists() else None
    measured = _source_hash(module)  # now: an edit while the run goes on is not what it measured
    before = json.loads(meta.read_text()).get("hash_by_function_name", {})
    tests_now = work / "mutants" / "tests"
    shutil.rmtree(tests_now, ignore_errors=True)
    shutil.copytree(REPO / "tests", tests_now, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    _write_config(work, module, selected_tests(module, tool))
    _forget_test_map(work)
    with _in_use(module, work):
        _run_mutmut(work, module, jobs, [])
    after = json.loads(meta.read_text()).get("hash_by_function_name", {})
    changed = sorted(f for f in after if before.get(f) != after[f])
    for name, why in review_equivalents(module, changed).items():
        print(f"mutmut_run: {name} is listed as equivalent in a function that changed (mutmut numbers a function's "
              f"mutants in order: the number may now be another mutant): check `mutmut show {name}` against: {why}",
              flush=True)
    if recorded != measured:
        previous = json.loads((work / INCREMENTAL).read_text()) if (work / INCREMENTAL).exists() else {}
        functions = sorted(set(previous.get("functions", [])) | set(changed)) if previous else changed
        (work / INCREMENTAL).write_text(json.dumps({"from": previous.get("from", recorded), "functions": functions}))
        (work / SOURCE_HASH).write_text(measured)
    return _counts(work, module, equivalent())


def _counts(work: Path, module: str, known_equivalent: dict[str, str]) -> tuple[Row, list[str]]:
    """Read mutmut's per-mutant results (``mutmut results --all true``)."""
    proc = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=work,
                          capture_output=True, text=True, env=_env(work), timeout=600)
    row, survivors = Row(module), []
    for line in proc.stdout.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if not sep or "__mutmut_" not in name:
            continue
        row.mutants += 1
        if name in known_equivalent:
            row.equivalent += 1
        elif status == "killed":
            row.killed += 1
        elif status == "survived":
            row.survived += 1
            survivors.append(name)
        elif status == "no tests":
            row.no_tests += 1
            survivors.append(f"{name} (no tests)")
        elif status == "timeout":
            row.timeout += 1
        else:
            row.other += 1
    return row, survivors


def _env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the mutated copy (mutants/src) must win over any other copy
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("CDK_VALIDATION", "false")
    return env


def selected_tests(module: str, tool) -> list[str]:
    """The tests a module's mutants run against: benchmarks/mutate.py's selection without TOOL_TESTS."""
    return [t for t in tool.tests_for(module) if not t.startswith(TOOL_TESTS)]


def run_module(module: str, jobs: int, tool) -> tuple[Row, list[str]]:
    work = prepare(module, selected_tests(module, tool))
    with _in_use(module, work):
        _run_mutmut(work, module, jobs, [])
    return _counts(work, module, equivalent())


def mutmut_version() -> str:
    """mutmut's installed version ("not installed" outside the dev extra: the table can still be read)."""
    try:
        return importlib.metadata.version("mutmut")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def write_table(stored: dict[str, dict]) -> str:
    """The table of every stored module, each row with the date it was measured and mutmut's version then."""
    head = ("| module | mutants | killed | survived | equivalent | no tests | timeout | not run | score | measured | mutmut |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
    body = ""
    for _, v in sorted(stored.items()):
        r = Row(**v["row"])
        body += (f"| {r.module} | {r.mutants} | {r.killed} | {r.survived} | {r.equivalent} | {r.no_tests} "
                 f"| {r.timeout} | {r.other} | {r.score:.1f} % | {v.get('date', '?')} | {v.get('mutmut', '?')} |\n")
    rows = [Row(**v["row"]) for v in stored.values()]
    total = Row("all", **{k: sum(getattr(r, k) for r in rows) for k in
                          ("mutants", "killed", "survived", "equivalent", "no_tests", "timeout", "other")})
    below = [r.module for r in rows if r.score < 90.0 or r.no_tests or r.other]
    verdict = (f"Every module at 90 % or more, no mutant without tests; all together {total.score:.1f} % of "
               f"{total.mutants} mutants." if not below else
               f"Below 90 %, with untested mutants or not run to the end: {', '.join(below)}; all together "
               f"{total.score:.1f} %.")
    for module, v in sorted(stored.items()):
        if (inc := v.get("incremental")) is not None:
            verdict += (f"\n{module}: after a change to its source, the mutants of {len(inc['functions'])} changed "
                        f"function(s) ran again ({', '.join(inc['functions'])}); the other verdicts are from the run on "
                        f"source {str(inc.get('from') or '?')[:12]} (mutmut keeps a verdict while its function's text "
                        "is unchanged).\n")
    return ("Written by `make mutate` (benchmarks/mutmut_run.py, mutmut 3, non-slow tests). Score = (killed + "
            "timeout) / (killed + survived + timeout); equivalent mutants (docs/mutation-equivalent.txt) are left "
            f"out; \"no tests\" means no selected test reaches the mutant; \"not run\" counts mutants a stopped run left "
            f"without a verdict.\n\n{head}{body}\n{verdict}\n")


def write_doc(table: str) -> None:
    """docs/mutation.md: the title, the generated table, then the hand-written part below TABLE_END, kept."""
    kept = ""
    if TABLE.exists():
        text = TABLE.read_text()
        if TABLE_END in text:
            kept = text.split(TABLE_END, 1)[1]
    TABLE.write_text(f"# Mutation testing of the judgment core\n\n{table}\n{TABLE_END}{kept}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="paths below constructs/edge_origin (default: the judgment core)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--table", action="store_true",
                        help="print the last results and rewrite docs/mutation.md from them; run nothing")
    parser.add_argument("--survivors", action="store_true", help="list each surviving mutant's name")
    parser.add_argument("--survivors-only", action="store_true",
                        help="run again only the last run's survivors and the mutants a stopped run left, against the "
                             "tests as they are now (fast; refused when the source changed)")
    parser.add_argument("--changed", action="store_true",
                        help="after a change to the source: run again only the mutants of the functions whose text "
                             "changed (mutmut's per-function hashes), against the tests as they are now; the other "
                             "verdicts stand")
    parser.add_argument("--stale", action="store_true",
                        help="of the modules named (default: the judgment core), run only those never measured or "
                             "measured on another version of their source")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a module of the judgment core is unmeasured, under 90 %% or has untested mutants")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: must be 1 or more")
    stored: dict[str, dict] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if not args.table:
        tool = _mutate_tool()
        chosen = modules(args.modules)
        if args.stale:
            chosen = [m for m in chosen if stored.get(m, {}).get("source_sha256") != _source_hash(m)]
            print(f"mutmut_run: {len(chosen)} module(s) never measured or measured on another source: "
                  f"{', '.join(chosen) or 'none'}", flush=True)
        for module in chosen:
            if args.survivors_only and args.changed:
                parser.error("--survivors-only and --changed: one at a time (--changed first, then --survivors-only)")
            run = rerun_survivors if args.survivors_only else rerun_changed if args.changed else run_module
            row, survivors = run(module, args.jobs, tool)
            if RESULTS.exists():  # another run (another module) may have written its row meanwhile: keep it
                stored = json.loads(RESULTS.read_text())
            stored[module] = {"row": row.__dict__, "survivors": survivors,
                              "date": dt.date.today().isoformat(),
                              "mutmut": mutmut_version(),
                              "source_sha256": (_work(module) / SOURCE_HASH).read_text().strip()}
            if (_work(module) / INCREMENTAL).exists():  # verdicts kept from a run on an earlier source
                stored[module]["incremental"] = json.loads((_work(module) / INCREMENTAL).read_text())
            print(f"{module}: {row.mutants} mutants, {row.killed} killed, {row.survived} survived, "
                  f"{row.equivalent} equivalent, {row.no_tests} no tests: {row.score:.1f} %", flush=True)
            RESULTS.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    table = write_table(stored)
    print(table)
    if args.survivors:
        for module, v in sorted(stored.items()):
            for name in v["survivors"]:
                print(f"survived {module}: {name}")
    if stored:
        write_doc(table)  # also with --table: docs/mutation.md is regenerated from the committed results
    if args.check:
        failing = shortfalls(stored)
        for line in failing:
            print(f"mutmut_run: {line}", file=sys.stderr)
        return 1 if failing else 0
    return 0


def shortfalls(stored: dict[str, dict]) -> list[str]:
    """What keeps the judgment core under the bar: a module never measured, measured on another version of its
    source, under 90 %, or with untested mutants."""
    out = []
    for module in modules([]):
        if module not in stored:
            out.append(f"{module}: not measured (make mutate MODULE={module})")
            continue
        measured_on = stored[module].get("source_sha256")
        if measured_on is None:
            out.append(f"{module}: measured before the source's sha256 was recorded, so whether the figures are "
                       f"this source's is not known (make mutate MODULE={module})")
        elif measured_on != _source_hash(module):
            out.append(f"{module}: its source changed since it was measured on {stored[module].get('date', '?')} "
                       f"(make mutate MODULE={module})")
        row = Row(**stored[module]["row"])
        if row.score < 90.0:
            out.append(f"{module}: {row.score:.1f} % killed, under 90 %")
        if row.no_tests:
            out.append(f"{module}: {row.no_tests} mutants no selected test reaches")
        if row.other:
            out.append(f"{module}: {row.other} mutants not run to a verdict (a run stopped early)")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
