"""Hostile inputs against `edge-origin check`, every output format: seconds and peak RSS per run.

    PYTHONPATH=constructs python benchmarks/bench_hostile.py [--formats text,sarif] [--cases a,b] [--timeout 60]

Each case (tests/hostile_support.py: nested Fn::Sub, Fn::Join of Refs to a large Default, YAML
aliases of a large string, Fn::FindInMap chains, nested Fn::ForEach, a 300,000-space JSON line, a
duplicate key after 300,000 keys, JSON nested 200,000 deep) is written to a temporary folder and
checked in a child process with ``RLIMIT_AS`` of 1 GiB (issue 50: any input of 1 MiB ends within
10 s and 1 GiB on two cores; larger cases, such as the 4 MB duplicate key, are printed for scale and
held only to the exit code). Prints one row a run: case, size, format, exit code, seconds, peak RSS
(MiB, from ``wait4``), and the first line of stderr; exits 1 when a run breaks a bound.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.hostile_support import TEMPLATE_CASES  # noqa: E402

FORMATS = ("text", "json", "sarif", "github", "junit", "markdown")
SECONDS = 10.0
RSS_MIB = 1024
MIB = 1024 * 1024


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (RSS_MIB * 1024 * 1024 * 2, RSS_MIB * 1024 * 1024 * 2))


def run_one(path: Path, fmt: str, timeout: float) -> tuple[int, float, float, str]:
    """(exit code, seconds, peak RSS MiB, first stderr line) of one check run."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    cmd = [sys.executable, "-m", "edge_origin.cli", "check", "--format", fmt, str(path)]
    start = time.monotonic()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env, preexec_fn=_limit_memory)  # noqa: PLW1509
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        err.seek(0)
        first = err.read(400).decode("utf-8", "replace").strip().splitlines()
    return proc.returncode, seconds, usage.ru_maxrss / 1024, first[0] if first else ""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--formats", default=",".join(FORMATS))
    p.add_argument("--cases", default=",".join(TEMPLATE_CASES))
    p.add_argument("--timeout", type=float, default=60.0, help="kill a run after this many seconds (default 60)")
    args = p.parse_args(argv)
    broken = 0
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'case':30} {'KiB':>6} {'format':9} {'exit':>4} {'seconds':>8} {'RSS MiB':>8}  stderr")
        for case in args.cases.split(","):
            name, text = TEMPLATE_CASES[case]()
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            for fmt in args.formats.split(","):
                code, seconds, rss, line = run_one(path, fmt, args.timeout)
                bounded = len(text.encode()) <= MIB  # the 10 s / 1 GiB promise is for inputs of up to 1 MiB
                bad = code not in (0, 1, 2) or "Traceback" in line or bounded and (seconds > SECONDS or rss > RSS_MIB)
                broken += bad
                print(f"{case:30} {len(text.encode()) // 1024:>6} {fmt:9} {code:>4} {seconds:8.2f} {rss:8.0f}  "
                      f"{line[:100]}{'  <-- over a bound' if bad else ''}")
    print(f"{broken} run(s) over a bound (inputs of up to 1 MiB: 10 s, 1 GiB RSS; all: exit 0/1/2, no traceback)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
