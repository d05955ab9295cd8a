"""Flake watch: the non-slow suite N times, each with its own hypothesis seed and a fresh, empty
example database (and no pytest cache), then the failures per test.

    make flake                 # N=5
    make flake N=1 FLAKE_ARGS="tests/diff tests/suite"
    python benchmarks/flake.py --runs 3 --seed 100 tests/rules/test_rules.py
    python benchmarks/flake.py --runs 10 --seed 1 --load 2 --hypothesis-only   # seeds 1-10, both cores busy

``--load N`` keeps N busy processes running beside each run (the machine's cores taken by another
job, as on a shared CI runner); ``--hypothesis-only`` runs the test files that use hypothesis (the
ones a seed changes), which makes ten seeds affordable.

Prints one line a run and, at the end, ``flake: R runs x F failures`` and each failing test with the
runs it failed in. Exit 1 when any run failed.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FAILED = re.compile(r"^(FAILED|ERROR) (\S+)")
SUMMARY = re.compile(r"^=+ (.*) in [\d.]+s")


def one_run(seed: int, paths: list[str], marker: str, timeout: float) -> tuple[list[str], str, float]:
    """(failing test ids, pytest's summary line, seconds) of one run with this seed and a fresh database."""
    with tempfile.TemporaryDirectory(prefix="flake-") as tmp:
        env = dict(os.environ, HYPOTHESIS_STORAGE_DIRECTORY=str(Path(tmp) / "hypothesis"), PYTHONDONTWRITEBYTECODE="1")
        cmd = [sys.executable, "-m", "pytest", "-q", "-m", marker, "-p", "no:cacheprovider", "-rfE",
               f"--hypothesis-seed={seed}", "--basetemp", str(Path(tmp) / "pytest"), *paths]
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ["<the whole run timed out>"], f"timeout after {timeout:g} s", time.monotonic() - start
        lines = proc.stdout.splitlines()
        failures = [m.group(2) for m in map(FAILED.match, lines) if m]
        summary = next((m.group(1) for m in map(SUMMARY.match, reversed(lines)) if m), lines[-1] if lines else "")
        if proc.returncode not in (0, 1) and not failures:  # usage error, collection error, interrupted
            failures = [f"<pytest exit {proc.returncode}>"]
        return failures, summary.strip("= "), time.monotonic() - start


def _burn() -> None:  # pragma: no cover - runs in a child process until killed
    x = 0
    while True:
        x = (x * 1103515245 + 12345) % 2147483648


def start_load(n: int) -> list[subprocess.Popen]:
    """``n`` busy child processes (stopped by PID in ``stop_load``)."""
    return [subprocess.Popen([sys.executable, "-c", "from benchmarks.flake import _burn; _burn()"], cwd=REPO,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(n)]


def stop_load(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.kill()
    for proc in procs:
        proc.wait(timeout=10)


def hypothesis_files() -> list[str]:
    """Test files that use hypothesis (a seed changes what they run)."""
    out = []
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "from hypothesis" in text or "import hypothesis" in text:
            out.append(str(path.relative_to(REPO)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the non-slow suite N times with fresh hypothesis seeds and databases.")
    parser.add_argument("paths", nargs="*", help="test paths (default: the whole suite)")
    parser.add_argument("--runs", type=int, default=5, help="how many runs (default 5)")
    parser.add_argument("--seed", type=int, default=None, help="first hypothesis seed (default: from the clock); run i uses seed+i")
    parser.add_argument("--marker", default="not slow", help='pytest -m expression (default "not slow")')
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per run (default 3600)")
    parser.add_argument("--load", type=int, default=0, help="busy processes beside each run, 0..16 (default 0)")
    parser.add_argument("--hypothesis-only", action="store_true", help="only the test files that use hypothesis")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    if not 0 <= args.load <= 16:
        parser.error(f"--load must be 0..16, got {args.load}")
    if args.hypothesis_only:
        args.paths = [*args.paths, *hypothesis_files()]
    first = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    by_test: dict[str, list[int]] = defaultdict(list)
    failed_runs = 0
    for i in range(args.runs):
        seed = first + i
        load = start_load(args.load)
        try:
            failures, summary, secs = one_run(seed, args.paths, args.marker, args.timeout)
        finally:
            stop_load(load)
        failed_runs += bool(failures)
        for test in failures:
            by_test[test].append(seed)
        print(f"run {i + 1}/{args.runs}  seed {seed}  load {args.load}  {secs:6.0f} s  {summary}", flush=True)
        for test in failures:
            print(f"    failed: {test}", flush=True)
    total = sum(len(seeds) for seeds in by_test.values())
    print(f"\nflake: {args.runs} runs x {total} failures ({failed_runs} run(s) with a failure)")
    for test, seeds in sorted(by_test.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  {len(seeds)}/{args.runs}  {test}  (seeds {', '.join(map(str, seeds))}: rerun with --hypothesis-seed=SEED)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
