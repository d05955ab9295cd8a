"""The same verdicts before and after a change: ``edge-origin check --format json`` of every template input
under tests/ (JSON, YAML and .template files, and cdk.out folders), by two source roots, compared byte for byte.

Run from the repo root: ``python benchmarks/same_verdicts.py --before DIR [--after constructs]`` where DIR is
an earlier source root (``git archive COMMIT constructs | tar -x -C DIR``; pass ``DIR/constructs``). Each
root runs in one child process that checks every input in turn (in-process ``cli.main``: seconds, not
minutes). Prints how many inputs were compared and each that differs (exit 1), else exit 0.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = (".json", ".yaml", ".yml", ".template")

#: The child: check every input given on stdin (one path a line) and write {path: [exit, stdout, stderr]}.
CHILD = r"""
import contextlib, io, json, sys
from edge_origin.cli import main
out = {}
for path in sys.stdin.read().splitlines():
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = main(["check", "--format", "json", path])
        except SystemExit as exc:
            code = exc.code
    out[path] = [code, stdout.getvalue(), stderr.getvalue()]
json.dump(out, open(sys.argv[1], "w"))
"""


def inputs() -> list[str]:
    """Every template input under tests/: cdk.out folders (as a whole) and every file (also each inside them)."""
    found: list[str] = []
    assemblies = sorted({p.parent for p in (ROOT / "tests").rglob("manifest.json")})
    found += [str(a) for a in assemblies]
    for path in sorted((ROOT / "tests").rglob("*")):
        if path.is_file() and path.suffix in SUFFIXES and path.name != "manifest.json" and "__pycache__" not in path.parts:
            found.append(str(path))  # a template inside a cdk.out too, on its own
    return found


def verdicts(source_root: str, paths: list[str]) -> dict[str, list[object]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "verdicts.json"
        env = {**os.environ, "PYTHONPATH": source_root}
        subprocess.run([sys.executable, "-c", CHILD, str(out)], input="\n".join(paths), text=True, env=env,
                       cwd=ROOT, check=True, timeout=1800)
        return json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, metavar="DIR", help="the earlier source root (its constructs/)")
    parser.add_argument("--after", default=str(ROOT / "constructs"), metavar="DIR", help="default: this tree's constructs/")
    args = parser.parse_args()
    paths = inputs()
    before, after = verdicts(args.before, paths), verdicts(args.after, paths)
    differ = [p for p in paths if before.get(p) != after.get(p)]
    for path in differ:
        print(f"differs: {Path(path).relative_to(ROOT)} (exit {before[path][0]} -> {after[path][0]})")
    print(f"{len(paths)} inputs under tests/ checked by both roots: {len(paths) - len(differ)} identical, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
