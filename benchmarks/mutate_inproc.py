"""The in-process engine of benchmarks/mutate.py: a pytest plugin (``-p mutate_inproc``).

Starting pytest once per mutant costs seconds of imports and collection, so a whole module's
mutants would take hours. This plugin runs inside one pytest session instead:

``baseline`` mode
    runs every collected test once under a line tracer restricted to the mutated files, and writes
    which lines of which file each passing test executed (the coverage map).

``mutants`` mode
    for each mutant, swaps the ``__code__`` of the function that holds it (every reference to the
    function, ``from x import f`` included, sees the change), runs only the tests whose coverage
    touches the mutant's lines, in order, until one fails, then restores the code, clears the
    package's caches and tears every fixture down, so no mutant sees another's state.

Mutants outside functions (module or class bodies run at import) cannot be swapped in: the driver
runs those with the subprocess engine. A test that executes the mutant only in a subprocess is not
in the map, so this engine can only under-count kills, never invent one; ``mutate.py --confirm``
re-runs the survivors with the subprocess engine.

Configuration comes from the environment (set by mutate.py): ``EO_MUTATE_MODE``, ``EO_MUTATE_JOB``
(a JSON file) and ``EO_MUTATE_OUT`` (JSON lines written as results arrive).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import inspect
import json
import os
import signal
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutate  # noqa: E402  (the mutants are made by the same code as the subprocess engine's)

MODE = os.environ.get("EO_MUTATE_MODE", "")
if os.environ.get("EO_MUTATE_PKG"):
    mutate.PKG = Path(os.environ["EO_MUTATE_PKG"])  # the run's snapshot of the package (on PYTHONPATH too)


class MutantTimeout(Exception):
    """Raised in the test by SIGALRM when a mutant's run exceeds its budget (a hang kills it)."""


def _dotted(module: str) -> str:
    return "edge_origin." + module[:-3].replace("/", ".")


def _write(out: Any, record: dict[str, Any]) -> None:
    out.write(json.dumps(record) + "\n")
    out.flush()


def pytest_configure(config: pytest.Config) -> None:
    from hypothesis import HealthCheck, settings

    # deterministic examples, no database, no deadline: a traced or mutated run is slower, and the
    # same mutant must meet the same examples on every run
    settings.register_profile("eo-mutate", deadline=None, derandomize=True, database=None,
                              suppress_health_check=list(HealthCheck))
    settings.load_profile("eo-mutate")


# -- coverage ---------------------------------------------------------------------------------------
def _tracer(files: dict[str, set[int]]) -> Any:
    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            files[frame.f_code.co_filename].add(frame.f_lineno)
        return local

    def global_(frame: types.FrameType, event: str, arg: Any) -> Any:
        hits = files.get(frame.f_code.co_filename)
        if hits is None:
            return None
        hits.add(frame.f_lineno)
        return local

    return global_


def _baseline(session: pytest.Session, job: dict[str, Any], out: Any) -> None:
    paths = {os.path.realpath(importlib.import_module(_dotted(m)).__file__ or ""): m for m in job["modules"]}
    items = session.items
    caches = _package_caches()
    for index, item in enumerate(items):
        # cached functions (functools.cache) run again for every test, so each test's lines include them
        _clear(caches)
        hits: dict[str, set[int]] = {path: set() for path in paths}
        tracer = _tracer(hits)
        nextitem = items[index + 1] if index + 1 < len(items) else None
        sys.settrace(tracer)
        threading.settrace(tracer)
        try:
            reports = runtestprotocol(item, nextitem=nextitem, log=False)
        finally:
            sys.settrace(None)
            threading.settrace(None)  # type: ignore[arg-type]
        failed = any(r.failed for r in reports)
        _write(out, {"nodeid": item.nodeid, "failed": failed, "seconds": round(sum(r.duration for r in reports), 4),
                     "lines": {paths[p]: sorted(v) for p, v in hits.items() if v}})


# -- swapping code in -------------------------------------------------------------------------------
def _own(code: types.CodeType) -> tuple[Any, ...]:
    """What a code object does itself, nested code objects by name only."""
    consts = tuple(("<code>", c.co_qualname) if isinstance(c, types.CodeType) else (type(c).__name__, repr(c))
                   for c in code.co_consts)
    return (code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)


def _deep(code: types.CodeType) -> tuple[Any, ...]:
    return (_own(code), tuple(_deep(c) for c in code.co_consts if isinstance(c, types.CodeType)))


def _defs(code: types.CodeType, import_time: list[types.CodeType], defs: dict[str, types.CodeType]) -> None:
    """Split a module's code: bodies that run at import (module, classes, comprehensions and lambdas
    made there) and the functions defined at module or class level, by qualified name."""
    import_time.append(code)
    for const in code.co_consts:
        if not isinstance(const, types.CodeType):
            continue
        if const.co_flags & inspect.CO_OPTIMIZED and "<" not in const.co_qualname.rsplit(".", 1)[-1]:
            defs[const.co_qualname] = const
        elif const.co_flags & inspect.CO_OPTIMIZED:
            import_time.append(const)  # a comprehension or lambda at module/class level
        else:
            _defs(const, import_time, defs)  # a class body


def changed_functions(module: str, site: int, filename: str) -> tuple[dict[str, types.CodeType] | None, str]:
    """The mutated code of each changed function (None: the change runs at import), and why."""
    original = compile(mutate._parse(module), filename, "exec")
    walker = mutate._Sites(module, target=site)
    mutated_tree = ast.fix_missing_locations(walker.visit(mutate._parse(module)))
    if not walker.applied:
        return None, f"site {site} not found"
    mutated = compile(mutated_tree, filename, "exec")
    before_top: list[types.CodeType] = []
    after_top: list[types.CodeType] = []
    before: dict[str, types.CodeType] = {}
    after: dict[str, types.CodeType] = {}
    _defs(original, before_top, before)
    _defs(mutated, after_top, after)
    def runs_at_import(codes: list[types.CodeType]) -> list[tuple[Any, ...]]:
        # module and class bodies by their own code; comprehensions and lambdas made there, whole
        return [_deep(c) if c.co_flags & inspect.CO_OPTIMIZED else _own(c) for c in codes]

    if runs_at_import(before_top) != runs_at_import(after_top) or before.keys() != after.keys():
        return None, "import-time code changed"
    changed = {name: code for name, code in after.items() if _deep(code) != _deep(before[name])}
    if not changed:
        return None, "no function changed"
    return changed, ""


def _live_functions(module_obj: types.ModuleType) -> dict[str, list[types.FunctionType]]:
    """Every function defined in the module (module level, classes, wrappers unwrapped), by qualname."""
    found: dict[str, list[types.FunctionType]] = {}
    filename = module_obj.__file__
    seen: set[int] = set()

    def add(obj: Any) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, (staticmethod, classmethod)):
            add(obj.__func__)
        elif isinstance(obj, property):
            for part in (obj.fget, obj.fset, obj.fdel):
                if part is not None:
                    add(part)
        elif isinstance(obj, functools.cached_property):
            add(obj.func)
        elif isinstance(obj, type) and obj.__module__ == module_obj.__name__:
            for value in vars(obj).values():
                add(value)
        elif isinstance(obj, types.FunctionType):
            if obj.__code__.co_filename == filename:
                found.setdefault(obj.__code__.co_qualname, []).append(obj)
            if hasattr(obj, "__wrapped__"):
                add(obj.__wrapped__)
        elif hasattr(obj, "__wrapped__") and callable(obj):  # functools.cache / lru_cache / wraps
            add(obj.__wrapped__)

    for value in list(vars(module_obj).values()):
        add(value)
    return found


def _package_caches() -> list[Any]:
    caches = []
    for name, mod in list(sys.modules.items()):
        if not (name == "edge_origin" or name.startswith("edge_origin.")) or mod is None:
            continue
        for value in list(vars(mod).values()):
            for candidate in [value, *(vars(value).values() if isinstance(value, type) else ())]:
                candidate = getattr(candidate, "__func__", candidate)
                if callable(getattr(candidate, "cache_clear", None)):
                    caches.append(candidate)
    return caches


def _clear(caches: list[Any]) -> None:
    for cache in caches:
        cache.cache_clear()
    route53 = sys.modules.get("edge_origin.testing.route53")
    if route53 is not None and isinstance(getattr(route53, "_MODEL", None), dict):
        route53._MODEL.clear()  # the strict double's parsed service model, rebuilt on demand


def _alarm(signum: int, frame: Any) -> None:
    raise MutantTimeout("mutant run exceeded its time budget")


def _run(session: pytest.Session, by_id: dict[str, pytest.Item], candidates: list[str], timeout: float,
         patches: dict[types.FunctionType, types.CodeType], caches: list[Any],
         durations: dict[str, float]) -> tuple[str, str, int]:
    """Run the candidates in order with the patches applied until one fails: (status, killer, tests run).
    Whatever happens, the original code is back, the caches empty and every fixture torn down."""
    saved = {fn: fn.__code__ for fn in patches}
    status, killer, ran = "survived", "", 0
    _clear(caches)
    try:
        for fn, code in patches.items():
            fn.__code__ = code
        for index, nodeid in enumerate(candidates):
            nextitem = by_id[candidates[index + 1]] if index + 1 < len(candidates) else None
            ran += 1
            # a hang is a test running far longer than it did on the original code
            signal.setitimer(signal.ITIMER_REAL, max(timeout, 20 * durations.get(nodeid, 0.0)))
            try:
                reports = runtestprotocol(by_id[nodeid], nextitem=nextitem, log=False)
            except MutantTimeout:
                return "timeout", nodeid, ran
            if any(r.failed for r in reports):
                timed_out = any("MutantTimeout" in str(r.longrepr) for r in reports if r.failed)
                return ("timeout" if timed_out else "killed"), nodeid, ran
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for fn, code in saved.items():
            fn.__code__ = code
        # a mutant's fixture that cannot tear down: the next mutant sets up its own anyway
        with contextlib.suppress(Exception):
            session._setupstate.teardown_exact(None)
        _clear(caches)
    return status, killer, ran


def _mutants(session: pytest.Session, job: dict[str, Any], out: Any) -> None:
    by_id = {item.nodeid: item for item in session.items}
    coverage: dict[str, dict[str, list[int]]] = job["coverage"]  # nodeid -> module -> lines
    order = [nodeid for nodeid in job["order"] if nodeid in by_id]  # cheapest first (mutate.py sorts them)
    durations: dict[str, float] = job.get("durations", {})
    caches = _package_caches()
    killers: dict[str, str] = {}  # function -> the test that last killed a mutant there
    # A kill counts only if the killing test passes on the original code when run the same way (alone,
    # out of its file's order): a test that fails like that is left out and the mutant run again.
    trusted: set[str] = set()
    unreliable: set[str] = set()
    signal.signal(signal.SIGALRM, _alarm)
    for entry in job["mutants"]:
        module, site, lines = entry["module"], entry["site"], set(range(entry["line"], entry["end_line"] + 1))
        module_obj = importlib.import_module(_dotted(module))
        record: dict[str, Any] = {"module": module, "site": site}
        _write(out, {"start": site, "module": module})
        start = time.monotonic()
        changed, why = changed_functions(module, site, module_obj.__file__ or "")
        if changed is None:
            status = "identical" if why == "no function changed" else "import-time"
            _write(out, {**record, "status": status, "why": why, "seconds": 0.0})
            continue
        live = _live_functions(module_obj)
        missing = [name for name in changed if name not in live]
        if missing:
            _write(out, {**record, "status": "import-time", "why": f"no live function {missing[0]}", "seconds": 0.0})
            continue
        patches = {fn: code for name, code in changed.items() for fn in live[name]}
        total = 0
        while True:
            candidates = [n for n in order if n not in unreliable and lines & set(coverage.get(n, {}).get(module, ()))]
            favourite = killers.get(entry["function"])
            if favourite in candidates:
                candidates.remove(favourite)
                candidates.insert(0, favourite)
            if not candidates:
                status, killer = "no-tests", ""
                break
            status, killer, ran = _run(session, by_id, candidates, job["timeout"], patches, caches, durations)
            total += ran
            if status != "killed" or killer in trusted:
                break
            if _run(session, by_id, [killer], job["timeout"], {}, caches, durations)[0] == "survived":
                trusted.add(killer)
                break
            unreliable.add(killer)
            _write(out, {"unreliable": killer})
        if status in {"killed", "timeout"}:
            killers[entry["function"]] = killer
        _write(out, {**record, "status": status, "killer": killer, "ran": total,
                     "seconds": round(time.monotonic() - start, 3)})


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    if MODE not in {"baseline", "mutants"}:
        return None
    job = json.loads(Path(os.environ["EO_MUTATE_JOB"]).read_text())
    with open(os.environ["EO_MUTATE_OUT"], "a", encoding="utf-8") as out:
        (_baseline if MODE == "baseline" else _mutants)(session, job, out)
    return True
