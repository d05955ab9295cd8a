"""Hostile inputs of up to 1 MiB end within bounds in every output format (issue 50).

One child process, with ``RLIMIT_AS`` (2 GiB of address space: about 1 GiB resident) and
``RLIMIT_CPU`` set by ``resource.setrlimit``, runs ``edge-origin check`` in-process on each shape
of tests/hostile_support.py that once took minutes or gigabytes; a run that broke a bound would be
killed by the kernel (SIGXCPU / MemoryError) instead of printing its exit code. Only that and the
one-line error are asserted (no timings: benchmarks/bench_hostile.py prints those).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.limits import using
from edge_origin.model import ModelError
from edge_origin.model.loader import parse_template_text
from tests import hostile_support as hostile
from tests.hardening_support import examples

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import contextlib, io, json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
resource.setrlimit(resource.RLIMIT_CPU, (90, 90))
from edge_origin.cli import main
out = []
for path, fmt in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["check", "--format", fmt, path])
    out.append([path, fmt, code, err.getvalue()])
print(json.dumps(out))
"""

#: The full-size shapes that stay under 1 MiB, and the output formats that read a finding's line.
CASES = ("sub-nested-8x10", "join-30k-refs-100k-default", "yaml-40k-aliases-100k", "findinmap-chain", "foreach-4x40",
         "json-line-300k-spaces", "duplicate-key-after-75k", "deep-json")
LINE_FORMATS = ("sarif", "github")


def test_every_hostile_shape_ends_within_cpu_and_memory_limits(tmp_path: Path) -> None:
    runs = []
    for case in CASES:
        name, text = hostile.TEMPLATE_CASES[case]()
        assert len(text.encode()) <= 1024 * 1024, case
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        formats = ("text", *LINE_FORMATS) if case == "json-line-300k-spaces" else ("text",)
        runs.extend([str(path), fmt] for fmt in formats)
    env = {"PYTHONPATH": str(ROOT / "constructs"), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(runs)], capture_output=True, text=True, timeout=600,
                          env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads(proc.stdout)
    assert len(results) == len(runs)
    for path, fmt, code, err in results:
        name = Path(path).name
        if name == "line.template.json":
            assert code == 1 and err == "", (fmt, err)  # findings, each located by the linear line lookup
            continue
        assert code == 2, (name, fmt, code, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and name in err, err


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(2, 12), st.integers(2, 12), st.integers(1, 4))
def test_generated_sub_and_join_shapes_hit_the_budget_never_the_machine(depth: int, uses: int, scale: int) -> None:
    """Any Fn::Sub nesting (depth x uses) and any Fn::Join of Refs to a long Default either
    resolves within the character budget or is refused naming the flag; never more work."""
    for _, text in (hostile.sub_nested(depth, uses), hostile.join_of_refs(uses * 50 * scale, 100 * scale)):
        with using(eval_chars=50_000, eval_steps=20_000):
            try:
                body = parse_template_text(text, "g.json")
                from edge_origin.model import TemplateModel
                from edge_origin.model.loader import LoadedTemplate

                model = TemplateModel([LoadedTemplate("S", "g.json", body)])
            except ModelError as exc:
                assert "raise with edge-origin --max-eval-" in str(exc)
                continue
            name = model.resources[0].properties["Name"]
            assert isinstance(name, str) and len(name) <= 50_000


FORMATS = ("text", "json", "sarif", "github", "junit", "markdown")
_SHAPES = st.one_of(
    st.builds(hostile.sub_nested, st.integers(1, 7), st.integers(1, 8)),
    st.builds(hostile.join_of_refs, st.integers(1, 3000), st.integers(1, 3000)),
    st.builds(hostile.yaml_alias_join, st.integers(1, 3000), st.integers(1, 3000)),
    st.builds(hostile.find_in_map_chain, st.integers(1, 30)),
    st.builds(hostile.for_each_nested, st.integers(1, 4), st.integers(1, 40)),
    st.builds(hostile.long_json_line, st.integers(0, 20_000)),
    st.builds(hostile.duplicate_key_late, st.integers(1, 2000)),
    st.builds(hostile.deep_json, st.integers(1, 3000)),
)


@settings(max_examples=examples(20), deadline=None)
@given(_SHAPES, st.sampled_from(FORMATS), st.sampled_from([10_000, 1_000_000]))
def test_generated_hostile_templates_in_every_format(
    tmp_path_factory: pytest.TempPathFactory, shape: tuple[str, str], fmt: str, budget: int
) -> None:
    """Any generated hostile template, in any output format, under a small or the default-sized
    budget: exit 0/1/2, and a refusal is one line naming the file (never a traceback)."""
    import contextlib
    import io

    from edge_origin.cli import main

    name, text = shape
    path = tmp_path_factory.mktemp("hostile") / name
    path.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--max-eval-chars", str(budget), "--max-eval-steps", str(budget), "check", "--format", fmt, str(path)])
    assert code in (0, 1, 2), (code, err.getvalue())
    if code == 2:
        assert len(err.getvalue().strip().splitlines()) == 1 and name in err.getvalue(), err.getvalue()
    assert "Traceback" not in err.getvalue()
