"""The wall-time figures the tests no longer assert: how long the bad-input CLI cases against a
silent/closed endpoint, the paging guard and the loopback keepalive scenarios take here.

    python benchmarks/bench_timing_cases.py [--loopback]

The tests bound these by events (an exit code, an error, a GOAWAY) and generous pytest timeouts, so a
busy machine cannot fail them; this prints the figures (pytest --durations) to watch for regressions:
the bad-input cases were under 8 s each and the paging guard under 10 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = ["tests/live/test_cli_live.py::test_bad_input", "tests/live/test_paging.py::test_moto_repeats_the_cursor_for_many_records_of_one_name"]
LOOPBACK = ["tests/loopback/test_keepalive_keys.py"]
LINE = re.compile(r"^\s*([\d.]+)s (call|setup)\s+(.+)$")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loopback", action="store_true", help="also the loopback keepalive scenarios (slow, about a minute)")
    args = parser.parse_args()
    targets = CASES + (LOOPBACK if args.loopback else [])
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0", "--durations-min=0", *targets],
        cwd=REPO, capture_output=True, text=True, timeout=1800,
    )
    rows = [(float(m.group(1)), m.group(2), m.group(3)) for m in map(LINE.match, proc.stdout.splitlines()) if m]
    for seconds, phase, test in sorted(rows, key=lambda r: -r[0]):
        print(f"{seconds:8.2f} s  {phase:<5}  {test}")
    print((proc.stdout.strip().splitlines() or ["no output"])[-1])
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
