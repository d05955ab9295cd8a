"""What the suite costs: the wall time of `make test` (and, with ``--ci``, of `.ci/run`), and where it goes.

    python benchmarks/suite_cost.py                 # `make test`'s pytest command (no slow tests), timed, with its costs
    python benchmarks/suite_cost.py -m slow         # `make test-slow`: the slow end-to-end tests
    python benchmarks/suite_cost.py --ci            # also `.ci/run` end to end (installs, lint, test, synth, wheels)

Prints the wall time, pytest's own summary line, the workers used, the tests over 5 s and the costliest
files (the sum of their tests' call+setup+teardown times, read from a JUnit XML pytest writes). Targets
(issue 29): `make test` under 300 s and `.ci/run` under 720 s on a 2-core machine; the figures are printed,
never asserted (this machine is shared; a timed test would be a flaky one).
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAKE_TEST_TARGET_S = 300.0
CI_RUN_TARGET_S = 720.0


def make_test_command() -> list[str]:
    """The pytest arguments `make test` passes (read from the Makefile, so the benchmark measures what it runs)."""
    lines = (REPO / "Makefile").read_text().splitlines()
    xdist = next((ln.split("?=", 1)[1].strip() for ln in lines if ln.startswith("XDIST ?=")), "")
    recipe = lines[lines.index("test: setup") + 1:]
    for line in recipe[:1]:
        if line.strip().startswith("$(BIN)/python -m pytest"):
            cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
            args = line.strip().split("-m pytest", 1)[1].replace("$(XDIST)", xdist)
            return shlex.split(args.replace("$(WORKERS)", str(cores + 1)))  # the Makefile's WORKERS: cores + 1
    raise SystemExit("suite_cost: Makefile has no `test:` pytest line")


def run_pytest(extra: list[str], marker: str | None) -> tuple[float, int, str, Path]:
    """(seconds, exit code, summary line, junit path) of one pytest run like `make test`'s."""
    junit = Path(tempfile.mkdtemp(prefix="suite-cost-")) / "junit.xml"
    args = make_test_command() + ["-p", "no:cacheprovider", f"--junitxml={junit}", "-o", "junit_family=xunit1"]
    if marker:
        args += ["-m", marker]
    cmd = [sys.executable, "-m", "pytest", *args, *extra]
    print("$", " ".join(shlex.quote(c) for c in cmd), flush=True)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=dict(os.environ, CI="true"))
    seconds = time.monotonic() - start
    tail = [ln for ln in proc.stdout.splitlines() if ln.startswith("=") and " in " in ln]
    return seconds, proc.returncode, (tail[-1].strip("= ") if tail else proc.stdout[-400:]), junit


def costs(junit: Path) -> tuple[list[tuple[float, str]], dict[str, float]]:
    """(tests by time, seconds per file) from pytest's JUnit XML."""
    tests: list[tuple[float, str]] = []
    per_file: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit).getroot().iter("testcase"):
        seconds = float(case.get("time") or 0)
        path = case.get("file") or (case.get("classname") or "").replace(".", "/") + ".py"
        tests.append((seconds, f"{path}::{case.get('name')}"))
        per_file[path] += seconds
    return sorted(tests, reverse=True), per_file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", dest="marker", help="a pytest marker expression (default: make test's, \"not slow\")")
    parser.add_argument("--ci", action="store_true", help="also time .ci/run end to end")
    parser.add_argument("--top", type=int, default=15, help="how many tests and files to list (default 15)")
    args, extra = parser.parse_known_args(argv)
    if args.top < 1:
        parser.error("--top: at least 1")
    seconds, code, summary, junit = run_pytest(extra, args.marker)
    tests, per_file = costs(junit) if junit.exists() else ([], {})
    busy = sum(t for t, _ in tests)
    print(f"make test ({args.marker or 'not slow'}): {seconds:.0f} s wall, exit {code}; {summary}")
    print(f"  test time summed over workers: {busy:.0f} s ({busy / max(seconds, 1e-9):.2f} x wall; "
          f"target wall < {MAKE_TEST_TARGET_S:.0f} s)")
    over = [(t, n) for t, n in tests if t > 5]
    print(f"  {len(over)} tests over 5 s take {sum(t for t, _ in over):.0f} s; "
          f"{sum(1 for t, _ in tests if t < 0.05)} tests under 0.05 s")
    for t, name in tests[: args.top]:
        print(f"  {t:7.1f} s  {name}")
    print("  costliest files:")
    for path, t in sorted(per_file.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"  {t:7.1f} s  {path}")
    if args.ci:
        start = time.monotonic()
        proc = subprocess.run([str(REPO / ".ci" / "run")], cwd=REPO, capture_output=True, text=True)
        ci_s = time.monotonic() - start
        print(f".ci/run: {ci_s:.0f} s wall, exit {proc.returncode} (target < {CI_RUN_TARGET_S:.0f} s)")
        if proc.returncode:
            print(proc.stdout[-2000:], proc.stderr[-2000:], sep="\n")
            return 1
    return 0 if code == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
