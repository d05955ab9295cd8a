"""A small AST mutation tester: does the suite notice when decision code changes?

Each mutant is one single-point change to one module of edge_origin:

    compare   ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``, ``in`` <-> ``not in``, ``is`` <-> ``is not``
    number    an int/float constant changed by +1 and by -1
    delete    a statement replaced by ``pass`` (docstrings kept)
    boolop    ``and`` <-> ``or``
    negate    an ``if``/``while``/``elif``/conditional-expression/comprehension test wrapped in ``not``,
              and ``not x`` replaced by ``x``

The mutant is written into a private copy of the package (the worktree is never changed), and the
module's tests run against it with ``pytest -x -q`` under a per-mutant timeout; a failing run, an
error or a timeout kills it. Survivors are printed as ``path:line [function] kind: before -> after``.

Which tests: ``--tests`` (for every module), else benchmarks/mutate_map.txt (``glob: test paths``)
plus the test files that import the module or name the rule ids it defines. Non-slow tests only
unless ``--slow``.

Equivalent mutants (no test can kill them because the behaviour does not change) go in
benchmarks/mutate_allow.txt, one a line: ``path [function] kind: before -> after  # reason``;
they are left out of the kill rate and listed separately.

    python benchmarks/mutate.py model/intrinsics.py model/transition.py --sample 40 --seed 1 --jobs 1
    python benchmarks/mutate.py rules/ --list            # the mutants, nothing run

A benchmark, not part of CI: it prints figures.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import dataclasses
import fnmatch
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PKG = REPO / "constructs" / "edge_origin"
TESTS = REPO / "tests"
MAP_FILE = Path(__file__).with_name("mutate_map.txt")
ALLOW_FILE = Path(__file__).with_name("mutate_allow.txt")

COMPARE_SWAP: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
DELETABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise, ast.If, ast.For,
             ast.While, ast.With, ast.Try, ast.Continue, ast.Break, ast.Assert)


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One single-point change: where, what, and how to find the node again (its site index)."""

    module: str  # path relative to the package, e.g. "model/intrinsics.py"
    site: int
    line: int
    function: str
    kind: str
    before: str
    after: str
    end_line: int = 0  # the last line of the mutated node (the in-process engine's coverage span)

    @property
    def key(self) -> str:
        """What the allow-list matches: stable across line shifts."""
        return f"{self.module} [{self.function}] {self.kind}: {self.before} -> {self.after}"

    def __str__(self) -> str:
        return f"{self.module}:{self.line} [{self.function}] {self.kind}: {self.before} -> {self.after}"


def _short(node: ast.AST) -> str:
    text = ast.unparse(node).splitlines()[0] if not isinstance(node, str) else node
    return text if len(text) <= 70 else text[:67] + "..."


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


class _Sites(ast.NodeTransformer):
    """Walks a module in a fixed order, numbering each mutation site; with ``target`` set, applies
    that one mutation and leaves everything else alone."""

    def __init__(self, module: str, target: int | None = None) -> None:
        self.module = module
        self.target = target
        self.count = 0
        self.found: list[Mutant] = []
        self.scope: list[str] = []
        self.parents: list[ast.AST] = []
        self.applied = False

    def visit(self, node: ast.AST) -> ast.AST:
        self.parents.append(node)
        try:
            return super().visit(node)
        finally:
            self.parents.pop()

    # -- bookkeeping ------------------------------------------------------------------------------
    def _site(self, node: ast.AST, kind: str, before: str, after: str) -> bool:
        """Record a site; True when it is the one to apply."""
        index = self.count
        self.count += 1
        line = getattr(node, "lineno", 0)
        self.found.append(Mutant(self.module, index, line, ".".join(self.scope) or "<module>",
                                 kind, before, after, getattr(node, "end_lineno", None) or line))
        if index == self.target:
            self.applied = True
            return True
        return False

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> ast.AST:
        self.scope.append(node.name)
        # annotations, decorators and defaults are not decision code: visit the body only
        node.body = self._body(node.body)
        self.scope.pop()
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return node

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            if _is_type_checking(stmt):
                out.append(stmt)  # imports for annotations only
                continue
            # module-level definitions are not deleted: a NameError at import says nothing about the tests
            deletable = isinstance(stmt, DELETABLE) and self.scope and not _is_docstring(stmt)
            if deletable and self._site(stmt, "delete", _short(stmt), "pass"):
                out.append(ast.copy_location(ast.Pass(), stmt))
                continue
            new = self.visit(stmt)
            out.append(new)
        return out or [ast.Pass()]

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field, old in ast.iter_fields(node):
            if isinstance(old, list) and old and isinstance(old[0], ast.stmt):
                setattr(node, field, self._body(old))
            elif isinstance(old, list):
                new_items = []
                for item in old:
                    if isinstance(item, ast.AST):
                        item = self.visit(item)
                    new_items.append(item)
                setattr(node, field, new_items)
            elif isinstance(old, ast.AST):
                setattr(node, field, self.visit(old))
        return node

    # -- the operators ----------------------------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        for i, op in enumerate(node.ops):
            swap = COMPARE_SWAP.get(type(op))
            if swap is None:
                continue
            mutated = copy.deepcopy(node)
            mutated.ops[i] = swap()
            if self._site(node, "compare", _short(node), _short(mutated)):
                return mutated
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return node
        # described in its context (``truths[0] -> truths[1]``), so two constants of one function differ
        context = next((p for p in reversed(self.parents[:-1]) if isinstance(p, (ast.expr, ast.stmt))), node)
        for delta in (1, -1):
            new = value + delta
            before = _short(context)
            node.value = new
            after = _short(context)
            node.value = value
            if self._site(node, "number", before, after):
                return ast.copy_location(ast.Constant(new), node)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        mutated = ast.BoolOp(op=other, values=node.values)
        if self._site(node, "boolop", _short(node), _short(mutated)):
            return ast.copy_location(mutated, node)
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and self._site(node, "negate", _short(node), _short(node.operand)):
            return node.operand
        return node

    def _negate_test(self, node: ast.If | ast.While | ast.IfExp) -> None:
        test = node.test
        negated = ast.UnaryOp(op=ast.Not(), operand=test)
        if self._site(node.test, "negate", _short(test), _short(negated)):
            node.test = ast.copy_location(negated, test)

    def visit_If(self, node: ast.If) -> ast.AST:
        node.test = self.visit(node.test)
        self._negate_test(node)
        node.body = self._body(node.body)
        if node.orelse:
            node.orelse = self._body(node.orelse)
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        node.test = self.visit(node.test)
        self._negate_test(node)
        node.body = self._body(node.body)
        if node.orelse:
            node.orelse = self._body(node.orelse)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        self._negate_test(node)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        self.generic_visit(node)
        for i, cond in enumerate(node.ifs):
            negated = ast.UnaryOp(op=ast.Not(), operand=cond)
            if self._site(cond, "negate", _short(cond), _short(negated)):
                node.ifs[i] = ast.copy_location(negated, cond)
        return node


def _is_type_checking(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.If) and ast.unparse(stmt.test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


def _parse(module: str) -> ast.Module:
    return ast.parse((PKG / module).read_text(), filename=module)


def mutants_of(module: str) -> list[Mutant]:
    """Every mutant of the module, in site order."""
    walker = _Sites(module)
    walker.visit(_parse(module))
    return walker.found


def mutant_source(mutant: Mutant) -> str:
    """The module's source with that one mutation applied."""
    walker = _Sites(mutant.module, target=mutant.site)
    tree = ast.fix_missing_locations(walker.visit(_parse(mutant.module)))
    if not walker.applied:
        raise RuntimeError(f"site {mutant.site} not found in {mutant.module}")
    return ast.unparse(tree) + "\n"


# -- which tests ----------------------------------------------------------------------------------
def _rule_ids(module: str) -> set[str]:
    return set(re.findall(r"\bEO-[A-Z]+\d+\b", (PKG / module).read_text()))


def _map_entries() -> list[tuple[str, list[str]]]:
    if not MAP_FILE.exists():
        return []
    entries = []
    for raw in MAP_FILE.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line and ":" in line:
            pattern, paths = line.split(":", 1)
            entries.append((pattern.strip(), paths.split()))
    return entries


def tests_for(module: str) -> list[str]:
    """Test paths for a module: the map file's entries, plus test files that import it or name its rules."""
    chosen: list[str] = []
    for pattern, paths in _map_entries():
        if fnmatch.fnmatch(module, pattern):
            chosen.extend(p for p in paths if (REPO / p).exists())
    dotted = "edge_origin." + module[:-3].replace("/", ".")
    parent, _, stem = dotted.rpartition(".")
    imports = re.compile(rf"{re.escape(dotted)}\b|from {re.escape(parent)} import [^\n]*\b{re.escape(stem)}\b")
    ids = _rule_ids(module) if module.startswith("rules/") else set()
    for path in sorted(TESTS.rglob("test_*.py")):
        text = path.read_text(errors="replace")
        if imports.search(text) or any(rule_id in text for rule_id in ids):
            chosen.append(str(path.relative_to(REPO)))
    covered = {c for c in chosen if (REPO / c).is_dir()}
    return sorted({c for c in chosen if not any(c != d and c.startswith(d + "/") for d in covered)})


# -- running --------------------------------------------------------------------------------------
@dataclasses.dataclass
class Outcome:
    mutant: Mutant | None
    status: str  # killed | survived | timeout | baseline-failed
    seconds: float
    tail: str = ""


def _run_tests(source: str | None, module: str, tests: list[str], timeout: float, slow: bool) -> tuple[str, float, str]:
    """Run the tests against a private copy of the package with ``source`` as ``module`` (None: as is)."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        root = Path(tmp) / "constructs"
        shutil.copytree(PKG, root / "edge_origin", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        if source is not None:
            (root / "edge_origin" / module).write_text(source)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH", "")])])
        env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(Path(tmp) / "hypothesis")  # mutants never touch the real DB
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header", "-rN", *tests]
        if not slow:
            cmd += ["-m", "not slow"]
        start = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)  # its own process group: a timeout stops all of it
        try:
            stdout, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop_group(proc)
            return "timeout", time.monotonic() - start, ""
        except BaseException:
            _stop_group(proc)
            raise
        elapsed = time.monotonic() - start
        tail = (stdout.strip().splitlines() or [""])[-1]
        if proc.returncode == 5:  # no tests collected: nothing can kill it, and that must show
            return "no-tests", elapsed, tail
        return ("survived" if proc.returncode == 0 else "killed"), elapsed, tail


def _stop_group(proc: subprocess.Popen[str]) -> None:
    """Stop the test run and everything it started (servers, subprocesses) by its process group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def load_allow() -> dict[str, str]:
    """Allow-list entries: key -> reason."""
    allowed: dict[str, str] = {}
    files = [ALLOW_FILE, *sorted(ALLOW_FILE.with_suffix(".d").glob("*.txt"))]  # mutate_allow.d/<area>.txt too
    for path in files:
        if not path.exists():
            continue
        for raw in path.read_text().splitlines():
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            key, _, reason = raw.partition("  # ")
            allowed[key.strip()] = reason.strip()
    return allowed


def _modules(args: list[str]) -> Iterator[str]:
    for arg in args:
        arg = arg.removeprefix("constructs/").removeprefix("edge_origin/")
        if arg.startswith("edge_origin."):
            arg = arg.removeprefix("edge_origin.").replace(".", "/") + ".py"
        path = PKG / arg
        if path.is_dir():
            yield from (str(p.relative_to(PKG)) for p in sorted(path.rglob("*.py")) if p.name != "__init__.py")
        elif path.is_file():
            yield str(path.relative_to(PKG))
        else:
            raise SystemExit(f"mutate.py: module {arg!r}: no such file under {PKG}")


# -- the in-process engine (benchmarks/mutate_inproc.py) ----------------------------------------------
def _inproc_env(tmp: Path, mode: str, job: Path, out: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PKG.parent), str(Path(__file__).parent),
                                         *filter(None, [env.get("PYTHONPATH", "")])])
    env.update(EO_MUTATE_PKG=str(PKG), EO_MUTATE_MODE=mode, EO_MUTATE_JOB=str(job), EO_MUTATE_OUT=str(out), PYTHONDONTWRITEBYTECODE="1",
               HYPOTHESIS_STORAGE_DIRECTORY=str(tmp / "hypothesis"))
    return env


def _inproc_cmd(tests: list[str], slow: bool) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:timeout", "-p", "mutate_inproc",
           "--no-header", "-rN", *tests]
    return cmd if slow else [*cmd, "-m", "not slow"]


def _read_lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    import json

    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def inproc_baseline(modules: list[str], tests: list[str], slow: bool, tmp: Path,
                    durations: dict[str, float]) -> tuple[dict, list[str], list[str]]:
    """One traced run of the tests: (coverage nodeid -> module -> lines, passing nodeids in order, failing);
    each test's seconds go into ``durations``."""
    import json

    job, out = tmp / "baseline.json", tmp / "baseline.jsonl"
    job.write_text(json.dumps({"modules": modules}))
    proc = subprocess.run(_inproc_cmd(tests, slow), cwd=REPO, env=_inproc_env(tmp, "baseline", job, out),
                          capture_output=True, text=True)
    records = _read_lines(out)
    if not records:
        raise SystemExit(f"mutate.py: the traced baseline ran no test (pytest exit {proc.returncode}):\n"
                         + (proc.stdout + proc.stderr)[-2000:])
    coverage = {r["nodeid"]: r["lines"] for r in records if not r["failed"]}
    # the cheapest tests first: a mutant is usually killed by the first test that reaches it
    order = [r["nodeid"] for r in sorted(records, key=lambda r: r.get("seconds", 0.0)) if not r["failed"]]
    durations.update({r["nodeid"]: r.get("seconds", 0.0) for r in records})
    return coverage, order, [r["nodeid"] for r in records if r["failed"]]


def inproc_run(mutants: list[Mutant], tests: list[str], jobs: int, timeout: float, slow: bool,
               progress) -> dict[tuple[str, int], Outcome]:
    """Every mutant through the in-process engine, ``jobs`` pytest sessions at once; a session that
    hangs past the budget or dies is stopped, its mutant counted (timeout / killed) and restarted on
    the rest."""
    import json

    results: dict[tuple[str, int], Outcome] = {}
    by_key = {(m.module, m.site): m for m in mutants}
    with tempfile.TemporaryDirectory(prefix="mutate-inproc-") as name:
        tmp = Path(name)
        modules = sorted({m.module for m in mutants})
        start = time.monotonic()
        durations: dict[str, float] = {}
        coverage, order, failing = inproc_baseline(modules, tests, slow, tmp, durations)
        print(f"   traced baseline: {len(order)} tests pass, {len(failing)} fail (left out)"
              f" in {time.monotonic() - start:.0f} s", flush=True)
        for nodeid in failing[:10]:
            print(f"     failing in the baseline: {nodeid}", flush=True)
        shards = [mutants[i::jobs] for i in range(jobs)]
        pending = {i: list(shard) for i, shard in enumerate(shards) if shard}
        running: dict[int, tuple[subprocess.Popen, Path, int, float]] = {}
        restarts = 0

        def launch(i: int) -> None:
            nonlocal restarts
            job, out = tmp / f"shard{i}-{restarts}.json", tmp / f"shard{i}-{restarts}.jsonl"
            restarts += 1
            job.write_text(json.dumps({"coverage": coverage, "order": order, "timeout": timeout,
                                       "durations": durations, "mutants": [
                {"module": m.module, "site": m.site, "line": m.line, "end_line": m.end_line or m.line,
                 "function": m.function} for m in pending[i]]}))
            proc = subprocess.Popen(_inproc_cmd(tests, slow), cwd=REPO, env=_inproc_env(tmp, "mutants", job, out),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            running[i] = (proc, out, 0, time.monotonic())

        for i in pending:
            launch(i)
        while running:
            time.sleep(0.5)
            for i in list(running):
                proc, out, seen, last = running[i]
                records = _read_lines(out)
                for record in records[seen:]:
                    if "unreliable" in record:
                        print(f"   left out: {record['unreliable']} fails on the original code when run alone",
                              flush=True)
                    if "start" in record or "unreliable" in record:
                        continue
                    key = (record["module"], record["site"])
                    results[key] = Outcome(by_key[key], record["status"], record["seconds"], record.get("killer", ""))
                    pending[i] = [m for m in pending[i] if (m.module, m.site) != key]
                    progress(results[key])
                if len(records) > seen:
                    last = time.monotonic()
                seen = len(records)
                starts = [r for r in records if "start" in r or "status" in r]
                inflight = (starts[-1]["module"], starts[-1]["start"]) if starts and "start" in starts[-1] else None
                running[i] = (proc, out, seen, last)
                done = proc.poll() is not None
                # a hang SIGALRM cannot break (in C code): no result for far longer than any mutant takes
                hung = not done and time.monotonic() - last > max(10 * timeout, 1800)
                if not (done or hung):
                    continue
                if hung:
                    _stop_group(proc)
                del running[i]
                if inflight is not None and inflight not in results and pending[i]:
                    status = "timeout" if hung else "killed"  # a mutant that hangs or kills the session
                    results[inflight] = Outcome(by_key[inflight], status, 0.0, "the pytest session " +
                                                ("hung" if hung else f"exited {proc.returncode}"))
                    pending[i] = [m for m in pending[i] if (m.module, m.site) != inflight]
                    progress(results[inflight])
                if pending[i]:
                    if inflight is None and done and not records:
                        raise SystemExit(f"mutate.py: an in-process session exited {proc.returncode} before any mutant")
                    launch(i)
    return results


def _known_kills(log: Path, commit: str) -> dict[str, set[str]]:
    """Module -> the printed mutants an earlier run killed, for modules unchanged since ``commit``."""
    kills: dict[str, set[str]] = {}
    for raw in log.read_text().splitlines():
        match = re.match(r"^   (killed|timeout) +[\d.]+ s  (\S+?):(\d+) (.*)$", raw)
        if match:
            kills.setdefault(match.group(2), set()).add(f"{match.group(2)}:{match.group(3)} {match.group(4)}")
    unchanged: dict[str, set[str]] = {}
    for module, printed in kills.items():
        then = subprocess.run(["git", "show", f"{commit}:constructs/edge_origin/{module}"], cwd=REPO,
                              capture_output=True, text=True)
        if then.returncode == 0 and then.stdout == (PKG / module).read_text():
            unchanged[module] = printed
    return unchanged


def _dedupe(paths: list[str]) -> list[str]:
    dirs = {c for c in paths if (REPO / c).is_dir()}
    return sorted({c for c in paths if not any(c != d and c.startswith(d + "/") for d in dirs)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+", help="paths under constructs/edge_origin (files or folders), or dotted names")
    parser.add_argument("--tests", nargs="+", help="test paths for every module (default: mutate_map.txt + imports)")
    parser.add_argument("--sample", type=int, default=0, help="at most N mutants per module, drawn at random (0: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed for --sample (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1; the machine has 2 cores)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds per mutant run (default 300); in-process: per test, at least 20x its baseline time")
    parser.add_argument("--subprocess-timeout", type=float, default=900.0,
                        help="with --engine inproc: seconds for each subprocess run it hands over (default 900)")
    parser.add_argument("--slow", action="store_true", help="include tests marked slow")
    parser.add_argument("--kinds", default="compare,number,delete,boolop,negate", help="operators, comma-separated")
    parser.add_argument("--match", help="only mutants whose printed form (path:line [function] kind: ...) matches this regex")
    parser.add_argument("--engine", choices=("inproc", "subprocess"), default="inproc",
                        help="inproc (default): one traced pytest session per job, each mutant swapped into the "
                             "functions it changes and run against the tests that execute its lines; subprocess: "
                             "a fresh pytest per mutant against the module's test files (slow, the reference)")
    parser.add_argument("--confirm", action="store_true",
                        help="with --engine inproc: re-run every survivor with the subprocess engine")
    parser.add_argument("--known", metavar="LOG",
                        help="a log of an earlier run: mutants it reports killed (or timed out) are counted killed "
                             "without running, in every module whose source is unchanged since --known-commit")
    parser.add_argument("--known-commit", metavar="REV", help="the commit the --known run mutated (required with it)")
    parser.add_argument("--list", action="store_true", help="print the mutants and the tests, run nothing")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mutate-source-") as snapshot:
        return _main(parser, args, Path(snapshot))


def _main(parser: argparse.ArgumentParser, args: argparse.Namespace, snapshot: Path) -> int:
    # The run mutates a snapshot of the package taken now, so editing the worktree meanwhile changes nothing
    global PKG
    shutil.copytree(PKG, snapshot / "constructs" / "edge_origin", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    PKG = snapshot / "constructs" / "edge_origin"
    if args.jobs < 1 or args.sample < 0 or args.timeout <= 0:
        parser.error("--jobs must be >= 1, --sample >= 0 and --timeout > 0")
    if bool(args.known) != bool(args.known_commit):
        parser.error("--known and --known-commit go together")
    known = _known_kills(Path(args.known), args.known_commit) if args.known else {}
    kinds = set(args.kinds.split(","))
    allowed = load_allow()
    rng = random.Random(args.seed)
    plan: list[tuple[str, list[str], list[Mutant]]] = []
    for module in _modules(args.modules):
        tests = args.tests or tests_for(module)
        every = [m for m in mutants_of(module) if m.kind in kinds and (not args.match or re.search(args.match, str(m)))]
        chosen = sorted(rng.sample(every, args.sample), key=lambda m: m.site) if 0 < args.sample < len(every) else every
        print(f"== {module}: {len(chosen)} of {len(every)} mutants; tests: {' '.join(tests) or '(none)'}", flush=True)
        if args.list:
            for m in chosen:
                print(f"   {m}" + ("   (allowed)" if m.key in allowed else ""))
            continue
        if not tests:
            print("   no tests found: give --tests or add the module to benchmarks/mutate_map.txt")
            continue
        plan.append((module, tests, chosen))
    if args.list:
        return 0
    carried: dict[tuple[str, int], Outcome] = {}
    for module, _, chosen in plan:
        if module not in known:
            continue
        for m in chosen:
            if str(m) in known[module]:
                carried[(module, m.site)] = Outcome(m, "killed", 0.0, "killed in the --known run")
        print(f"   {module}: {sum(1 for m in chosen if (module, m.site) in carried)} mutants killed in the"
              f" --known run (source unchanged since {args.known_commit}): not run again", flush=True)

    def show(outcome: Outcome) -> None:
        m = outcome.mutant
        assert m is not None
        mark = "equivalent" if outcome.status in {"survived", "no-tests"} and m.key in allowed else outcome.status
        if outcome.status not in {"import-time", "identical"}:
            print(f"   {mark:<10} {outcome.seconds:6.1f} s  {m}", flush=True)

    outcomes: dict[tuple[str, int], Outcome] = {}
    baselines: dict[str, str] = {}
    # a subprocess run is a whole pytest session: --timeout bounds it with that engine; with the in-process
    # engine --timeout is per test, and the subprocess runs it hands over get --subprocess-timeout
    whole_run = args.timeout if args.engine == "subprocess" else args.subprocess_timeout

    def by_subprocess(module: str, tests: list[str], mutants: list[Mutant]) -> None:
        if not mutants:
            return
        if module not in baselines:
            status, secs, tail = _run_tests(None, module, tests, whole_run, args.slow)
            baselines[module] = status
            print(f"   {module}: subprocess baseline {status} in {secs:.0f} s {tail if status != 'survived' else ''}",
                  flush=True)
        if baselines[module] != "survived":
            for m in mutants:
                outcomes[(m.module, m.site)] = Outcome(m, "not-run", 0.0, f"subprocess baseline {baselines[module]}")
            return

        def one(m: Mutant) -> Outcome:
            status, secs, tail = _run_tests(mutant_source(m), module, tests, whole_run, args.slow)
            return Outcome(m, status, secs, tail)

        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for outcome in pool.map(one, mutants):
                outcomes[(module, outcome.mutant.site)] = outcome  # type: ignore[union-attr]
                show(outcome)

    started = time.monotonic()
    outcomes.update(carried)
    if args.engine == "inproc":
        everything = [m for _, _, chosen in plan for m in chosen if (m.module, m.site) not in carried]
        tests = args.tests or _dedupe([t for _, module_tests, _ in plan for t in module_tests])
        print(f"== in-process engine: {len(everything)} mutants, {args.jobs} session(s), tests: {' '.join(tests)}",
              flush=True)
        outcomes.update(inproc_run(everything, tests, args.jobs, args.timeout, args.slow, show))
        for module, module_tests, chosen in plan:
            # run at import, or no test executes them after import (a function called while importing):
            # the subprocess engine, which imports the mutant
            late = [m for m in chosen if outcomes[(module, m.site)].status == "import-time"
                    or (outcomes[(module, m.site)].status == "no-tests" and m.key not in allowed)]
            if late:
                print(f"   {module}: {len(late)} mutants run at import or by no test after it: the subprocess engine",
                      flush=True)
            by_subprocess(module, module_tests, late)
            if args.confirm:
                alive = [m for m in chosen if (module, m.site) in outcomes
                         and outcomes[(module, m.site)].status in {"survived", "no-tests"} and m.key not in allowed]
                if alive:
                    print(f"   {module}: confirming {len(alive)} survivors with the subprocess engine", flush=True)
                by_subprocess(module, module_tests, alive)
    else:
        for module, module_tests, chosen in plan:
            by_subprocess(module, module_tests, [m for m in chosen if (module, m.site) not in carried])

    totals: list[tuple[str, dict[str, int]]] = []
    survivors: list[Mutant] = []
    equivalents: list[tuple[Mutant, str]] = []
    for module, _, chosen in plan:
        counts = {"killed": 0, "survived": 0, "timeout": 0, "equivalent": 0, "no-tests": 0, "not-run": 0}
        for m in chosen:
            outcome = outcomes.get((module, m.site))
            if outcome is None or outcome.status in {"import-time", "not-run"}:
                counts["not-run"] += 1  # no engine could run it (a baseline was not green): shown, not counted
                continue
            if outcome.status == "identical":  # the mutant compiles to the very same bytecode
                counts["equivalent"] += 1
                equivalents.append((m, "compiles to the same bytecode as the original"))
            elif outcome.status in {"survived", "no-tests"} and m.key in allowed:
                counts["equivalent"] += 1
                equivalents.append((m, allowed[m.key]))
            else:
                counts[outcome.status] += 1
                if outcome.status in {"survived", "no-tests"}:
                    survivors.append(m)
        totals.append((module, counts))

    print(f"\nkill rate per module (killed + timeout) / (mutants - equivalent), {time.monotonic() - started:.0f} s:")
    all_killed = all_counted = 0
    for module, c in totals:
        counted = c["killed"] + c["timeout"] + c["survived"] + c["no-tests"]
        killed = c["killed"] + c["timeout"]
        all_killed += killed
        all_counted += counted
        rate = f"{100 * killed / counted:5.1f} %" if counted else "    -  "
        not_run = f"  NOT RUN {c['not-run']}" if c["not-run"] else ""
        print(f"  {module:<45} {rate}  killed {killed:>4}  survived {c['survived'] + c['no-tests']:>3}"
              f"  equivalent {c['equivalent']:>3}{not_run}")
    if all_counted:
        print(f"  {'all':<45} {100 * all_killed / all_counted:5.1f} %  ({all_killed} of {all_counted})")
    if survivors:
        print("\nsurvivors (add equivalent ones to benchmarks/mutate_allow.txt with a reason):")
        for m in survivors:
            print(f"  {m}")
    if equivalents:
        print("\nequivalent (allow-listed):")
        for m, reason in equivalents:
            print(f"  {m}  # {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
