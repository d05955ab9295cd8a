"""No test of the suite checks only inside a loop that may run zero times (tests/suite/loop_asserts.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from loop_asserts import loop_only_tests, surely_runs

TESTS = Path(__file__).resolve().parents[1]
# Found on main by the scan when this guard was written, in files other sessions own: each still
# checks only inside a loop that may run zero times. Fix one (check that the loop ran), then delete
# its line here; the guard fails on any new case and on a line whose test no longer needs it.
KNOWN = {
    "tests/live/test_watch_math_property.py test_alarm_math_and_watch_agree",
    "tests/profile/test_profile_hops.py test_class1_strikes_per_implementation",
    "tests/profile/test_profile_hops.py test_render_succeeds_exactly_when_the_verdict_for_that_language_is_clean",
    "tests/test_readme_commands.py test_skips_say_why",
    "tests/test_readme_commands.py test_readme_block_runs",
}


def _ids(lines: list[str]) -> set[str]:
    return {f"{line.split(':')[0]} {line.split()[-1]}" for line in lines}


def test_every_test_checks_something_outside_its_loops() -> None:
    found = _ids(loop_only_tests(TESTS))
    assert found - KNOWN == set(), "check that the loop ran (assert the collection is non-empty, or count)"
    present = {k for k in KNOWN if (TESTS.parent / k.split()[0]).exists()}
    assert present - found == set(), "fixed: delete these lines from KNOWN"


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
