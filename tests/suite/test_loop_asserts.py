"""No test of the suite checks only inside a loop that may run zero times (tests/suite/loop_asserts.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from loop_asserts import loop_only_tests, surely_runs

TESTS = Path(__file__).resolve().parents[1]


def test_every_test_checks_something_outside_its_loops() -> None:
    assert loop_only_tests(TESTS) == []


def test_the_scan_flags_a_loop_that_may_not_run_and_passes_a_guarded_one(tmp_path: Path) -> None:
    suite = tmp_path / "tests"
    suite.mkdir()
    (suite / "test_probe.py").write_text(
        "def helper(x):\n    assert x\n\n"
        "def test_bare(xs):\n    for x in xs:\n        assert x\n\n"
        "def test_nested(xs):\n    for t in (1, 2):\n        for x in xs:\n            assert x\n\n"
        "def test_guarded(xs):\n    assert xs\n    for x in xs:\n        assert x\n\n"
        "def test_literal():\n    for x in (1, 2):\n        assert x\n\n"
        "def test_helper(xs):\n    helper(xs)\n    for x in xs:\n        assert x\n"
    )
    assert [line.split()[-1] for line in loop_only_tests(suite)] == ["test_bare", "test_nested"]


def test_surely_runs_knows_literals_and_ranges() -> None:
    def loop(src: str) -> ast.AST:
        return ast.parse(f"for x in {src}:\n    pass").body[0]

    assert surely_runs(loop("(1,)")) and surely_runs(loop("{'a': 1}.items()")) and surely_runs(loop("range(3)"))
    assert not surely_runs(loop("()")) and not surely_runs(loop("range(0)")) and not surely_runs(loop("xs"))
    assert not surely_runs(loop("(*xs,)")) and surely_runs(loop("(*xs, 1)"))
