"""benchmarks/mutate.py's in-process engine: which mutants it can swap in, that a swapped mutant is
what the rules run (also through ``from x import f`` bindings), and that it agrees with the
subprocess engine on the same mutants."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
import mutate  # noqa: E402
import mutate_inproc  # noqa: E402

import edge_origin.rules.dns4_ttl as dns4  # noqa: E402
from edge_origin.model import TemplateModel  # noqa: E402
from edge_origin.model.loader import LoadedTemplate  # noqa: E402
from edge_origin.rules import RULES_BY_ID  # noqa: E402

MODULE = "rules/dns4_ttl.py"
QUIET = BENCH.parent / "tests" / "fixtures" / "templates" / "rules" / "eo-nlb3-quiet.json"


def dns4_world(ttl: int) -> TemplateModel:
    """The quiet world of tests/conditions with the origin record's TTL set."""
    body = copy.deepcopy(json.loads(QUIET.read_text()))
    body["Resources"]["RecordA"]["Properties"]["TTL"] = ttl
    body["Resources"]["RecordB"]["Properties"]["TTL"] = 30  # below every limit, mutant or not
    return TemplateModel([LoadedTemplate("S", "t.json", body)])


def _mutant(pattern: str, module: str = MODULE) -> mutate.Mutant:
    chosen = [m for m in mutate.mutants_of(module) if pattern in str(m)]
    assert len(chosen) == 1, [str(m) for m in chosen]
    return chosen[0]


def test_a_module_constant_is_import_time_and_a_function_body_is_swappable() -> None:
    # dns4's limits now come from the facts table (no literal left at module level): a module constant of another rule
    import edge_origin.rules.not_judged as not_judged

    constant = _mutant("MAX_ELEMENT_CHARS = 160 -> MAX_ELEMENT_CHARS = 161", "rules/not_judged.py")
    assert mutate_inproc.changed_functions("rules/not_judged.py", constant.site, not_judged.__file__) == (
        None, "import-time code changed")
    boundary = _mutant("record.ttl > limit -> record.ttl >= limit")
    changed, why = mutate_inproc.changed_functions(MODULE, boundary.site, dns4.__file__)
    assert why == "" and changed is not None and set(changed) == {"check"}


def test_a_swapped_mutant_is_what_the_registered_rule_runs() -> None:
    boundary = _mutant("record.ttl > limit -> record.ttl >= limit")
    changed, _ = mutate_inproc.changed_functions(MODULE, boundary.site, dns4.__file__)
    assert changed is not None
    live = mutate_inproc._live_functions(dns4)
    assert live["check"] == [dns4.check]
    model = dns4_world(ttl=60)  # the quiet world's records are health-checked: 60 s is their limit (the API's advice)
    rule = RULES_BY_ID["EO-DNS4"]
    assert list(rule.check(model)) == []  # 60 s is the limit itself: quiet
    original = dns4.check.__code__
    try:
        dns4.check.__code__ = changed["check"]
        fired = list(rule.check(model))
    finally:
        dns4.check.__code__ = original
    assert [(f.rule, f.resource) for f in fired] == [("EO-DNS4", "RecordA")]
    assert list(rule.check(model)) == []  # restored


# the three EO-DNS4 condition tests (not their whole file: each subprocess mutant starts pytest on these only)
DNS4_TESTS = [f"tests/conditions/test_rule_conditions.py::{name}" for name in (
    "test_dns4_ttl_within_its_limit_is_quiet", "test_dns4_ttl_above_its_limit_fires_on_that_record",
    "test_dns4_fires_once_per_record_above_its_limit")]


def _boundary_lines() -> tuple[int, int]:
    """The lines of the health-check ``if`` in _limit and of the TTL boundary ``if`` in check (found in the
    source, so an edit above them does not point the test at other lines)."""
    lines = (BENCH.parent / "constructs" / "edge_origin" / MODULE).read_text().splitlines()
    found = [n for n, text in enumerate(lines, 1)
             if text.strip() in ("if record.health_check_id is not None:", "if record.ttl > limit:")]
    assert len(found) == 2, found
    return found[0], found[1]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["inproc", "subprocess"])
def test_both_engines_kill_the_ttl_boundary_mutants(engine: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH / "mutate.py"), MODULE, "--match", f":({'|'.join(map(str, _boundary_lines()))}) ", "--engine", engine,
         "--tests", *DNS4_TESTS, "--timeout", "120"],
        cwd=BENCH.parent, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    summary = [line for line in proc.stdout.splitlines() if line.strip().startswith(MODULE)]
    # the 3 mutants of the health-check `if` in _limit and of the TTL boundary `if` in check
    assert summary and "100.0 %" in summary[-1] and "killed    6" in summary[-1], proc.stdout[-2000:]
