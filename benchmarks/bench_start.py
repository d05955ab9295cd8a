"""What `edge-origin check` costs before it reads anything (issue 53): its imports and set-up.

Run from the repo root: ``PYTHONPATH=constructs python benchmarks/bench_start.py [--runs 21] [--before DIR]``.
Prints, CPU (user + system) of fresh processes alternated in one run, median of ``--runs``:

- ``check`` of one small template (tests/fixtures/templates/rules/eo-sg1-fire.json: 13 resources, every
  rule runs, EO-SG1 reads the shipped data files) minus ``python -c pass``: the start of a check;
- ``--help`` against ``python -c pass`` (target <= 4x);
- the modules a check of that template leaves in ``sys.modules`` and, in-process, the milliseconds
  spent creating dataclasses (``dataclasses._process_class``, one ``exec`` per generated method in
  Python 3.11): the part of the start no lazy import removes.

``--template FILE`` checks another template (issue 53's fourth pass: tests/snapshots/TelemetryIngest.template.json).
``--before DIR`` runs the same commands with another source root (``git archive COMMIT constructs | tar
-x -C DIR``; pass ``DIR/constructs``), alternated with this one.

Figures (2 shared cores, 31 runs; ``--before`` = main when the import work of issue 53 began): a small
template's check 11.3x -> 7.5x ``python -c pass`` (load 3.2: 195 -> 123 ms of CPU over it; at load 1.8, before
the last two steps, 115 -> 80 ms); 223 -> 196 modules after it; creating dataclasses 70 -> 22 ms (wall,
in-process); ``--help`` 3.5x ``python -c pass`` both. What is left: dataclasses' own work (the ``__init__`` of
classes that are not plain frozen ones, field processing) and its imports (inspect, ast, dis, tokenize: ~5 ms),
typing (~3 ms), argparse with gettext, locale and shutil (~4 ms), orjson's uuid/platform/datetime (~3.5 ms),
module-level regular expressions (~5 ms), and the bytecode of ~85 modules (marshal, ~9 ms).

Fourth pass (``--template tests/snapshots/TelemetryIngest.template.json --before`` main at 0c1e7d8, 21 runs, load
4.9): 86.8 -> 52.8 ms of CPU (7.64x -> 4.64x ``python -c pass``), 196 -> 168 modules, no dataclass made by
``dataclasses``; callgrind 372.7M -> 208.8M instructions (``python -c pass`` 41.2M). Gone: typing, dataclasses and
inspect (fast_dataclass), orjson with uuid/platform/datetime (a small input takes the strict parse), every compile
of source (the ast types), shutil, weakref, 15 unbuilt command parsers. Left: pathlib with urllib.parse and
ipaddress (~17M instructions), argparse with gettext and locale (~13M), json (~6M), re/enum/collections (~28M), the
classes the modules define and the bytecode of ~85 modules (marshal ~35M).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-sg1-fire.json"

_MODULES = """
import os, sys
real_exit = os._exit
def show(code):
    sys.stderr.write("\\n".join(sorted(sys.modules)) + "\\n")
    sys.stderr.flush()
    real_exit(code)
os._exit = show
sys.argv = ["edge-origin", "check", sys.argv[1]]
from edge_origin.cli import entry
entry()
"""

_DATACLASSES = """
import dataclasses, time
spent = [0.0]
original = dataclasses._process_class
def timed(cls, *args):
    start = time.perf_counter()
    try:
        return original(cls, *args)
    finally:
        spent[0] += time.perf_counter() - start
dataclasses._process_class = timed
import contextlib, io, sys
from edge_origin.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["check", sys.argv[1]])
print(spent[0])
"""


def _env(root: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # .pyc caches, as installed
    if root:
        env["PYTHONPATH"] = root
    return env


def _cpu(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/", check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--before", metavar="DIR", default=None, help="another source root, alternated with this one")
    parser.add_argument("--template", type=Path, default=TEMPLATE, help=f"the template checked (default {TEMPLATE.name})")
    args = parser.parse_args()
    template = args.template.resolve()
    roots = {"this": str(ROOT / "constructs"), **({"before": args.before} if args.before else {})}
    commands = {"python -c pass": (None, [sys.executable, "-c", "pass"])}
    for label, root in roots.items():
        commands[f"check small template ({label})"] = (root, [sys.executable, "-m", "edge_origin.cli", "check", str(template)])
        commands[f"--help ({label})"] = (root, [sys.executable, "-m", "edge_origin.cli", "--help"])
    for root, argv in commands.values():  # warm-up: .pyc caches written
        _cpu(argv, _env(root))
    samples: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(args.runs):
        for label, (root, argv) in commands.items():
            samples[label].append(_cpu(argv, _env(root)))
    base = statistics.median(samples["python -c pass"])
    print(f"load {os.getloadavg()[0]:.1f}; CPU, median of {args.runs} alternated runs; python -c pass {base * 1000:.1f} ms")
    for label, values in samples.items():
        cpu = statistics.median(values)
        print(f"{label:40s} {cpu * 1000:7.1f} ms  {cpu / base:5.2f}x pass  (+{(cpu - base) * 1000:.1f} ms)")
    for label, root in roots.items():
        modules = subprocess.run([sys.executable, "-c", _MODULES, str(template)], env=_env(root), capture_output=True,
                                 text=True, cwd="/", check=False).stderr.split()
        spent = json.loads(subprocess.run([sys.executable, "-c", _DATACLASSES, str(template)], env=_env(root),
                                          capture_output=True, text=True, cwd="/", check=False).stdout or "0")
        print(f"{label}: {len(modules)} modules after the check, {spent * 1000:.1f} ms creating dataclasses (wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
