"""An undecided value says "not judged" wherever a value it could take makes a rule fire.

The quiet side of ``test_undecided_never_silent``: a quiet fixture (``*-quiet*.json``), one literal in its
resources' Properties, and the literals the fire fixtures hold at the same property of the same resource type
(the values that value could be at deploy time, as far as the fixtures know). When one of those literals makes
a rule fire there, the same property decided at deploy time (a String parameter without Default) must make that
rule fire or say "not judged" (or EO-NJ1 / EO-NJ2 name it): the check may not call it fine.

The pairs are drawn by hypothesis (all of them take ~15 minutes: ``python tests/rules/test_undecided_quiet_side.py``
prints every silent one).
"""

from __future__ import annotations

import copy
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_undecided_never_silent import (  # noqa: E402
    FIXTURES,
    NAMING_RULES,
    PARAMETER,
    ROOT,
    _all_leaves,
    _fixture,
    _verdict,
)

QUIET = sorted((ROOT / "tests" / "fixtures" / "templates" / "rules").glob("*-quiet*.json"))
#: Rules that still stay silent on the quiet side (being fixed): their silence is not reported. Empty when
#: the class is closed.
PENDING_RULES: frozenset[str] = frozenset()


def _key(template: dict[str, Any], path: tuple[Any, ...]) -> tuple[Any, ...]:
    """(resource type, property path with list indexes as []): where the fire fixtures' literals apply."""
    return (template["Resources"][path[1]]["Type"], *("[]" if isinstance(p, int) else p for p in path[3:]))


def _at(template: dict[str, Any], path: tuple[Any, ...]) -> Any:
    node = template
    for key in path:
        node = node[key]
    return node


def _replaced(template: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(template)
    _at(out, path[:-1])[path[-1]] = value
    return out


def _candidates() -> dict[tuple[Any, ...], set[str]]:
    found: dict[tuple[Any, ...], set[str]] = defaultdict(set)
    for fixture in FIXTURES:
        template = _fixture(fixture)
        for leaf in _all_leaves(template):
            found[_key(template, leaf)].add(json.dumps(_at(template, leaf)))
    return found


CANDIDATES = _candidates()
CASES = [(fixture, leaf, sorted(CANDIDATES[_key(template, leaf)] - {json.dumps(_at(template, leaf))}))
         for fixture in QUIET for template in [_fixture(fixture)] for leaf in _all_leaves(template)
         if CANDIDATES.get(_key(template, leaf), set()) - {json.dumps(_at(template, leaf))}]


def silenced(fixture: Path, leaf: tuple[Any, ...], literals: list[str], folder: Path,
             undecided_value: Any = None) -> str | None:
    """The rules a literal at ``leaf`` makes fire that the undecided value neither fires nor names.
    ``undecided_value``: put this there instead of the parameter (the oracle's own test)."""
    base = _fixture(fixture)
    before = _verdict(base, folder)
    assert before is not None, fixture
    could_fire: set[str] = set()
    for literal in literals:
        after = _verdict(_replaced(base, leaf, json.loads(literal)), folder)
        if after is not None:
            could_fire |= {rule for rule, count in after[0].items() if count > before[0][rule]}
    if not could_fire:
        return None
    undecided = _verdict(_replaced(base, leaf, {"Ref": PARAMETER} if undecided_value is None else undecided_value), folder)
    if undecided is None:
        return None  # refused: loud
    fired = {rule for rule, count in undecided[0].items() if count > before[0][rule]}
    named = {rule for (rule, message), count in undecided[1].items() if count > before[1][(rule, message)]}
    silent = could_fire - fired - named - PENDING_RULES
    if not silent or named & NAMING_RULES:
        return None
    return f"{fixture.stem} {'/'.join(map(str, leaf[1:]))}: could fire {sorted(silent)}; undecided, nothing said"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(CASES), data=st.data())
def test_an_undecided_value_is_not_judged_where_a_value_it_could_take_fires(
        case: tuple[Path, tuple[Any, ...], list[str]], data: st.DataObject, tmp_path: Path) -> None:
    fixture, leaf, literals = case
    some = data.draw(st.lists(st.sampled_from(literals), min_size=1, max_size=3, unique=True), label="literals")
    assert silenced(fixture, leaf, some, tmp_path) is None


def test_the_oracle_reports_a_value_that_could_fire_and_says_nothing(tmp_path: Path) -> None:
    """It can fail: a quiet fixture's TTL, which a fire fixture's TTL makes EO-DNS4 fire, left as the quiet
    literal (no undecided value) is reported as silent."""
    fixture, leaf, literals = next(c for c in CASES if c[1][-1] == "TTL" and c[0].stem == "eo-dns4-quiet")
    quiet_literal = _at(_fixture(fixture), leaf)
    said = silenced(fixture, leaf, literals, tmp_path, undecided_value=quiet_literal)
    assert said is not None and "EO-DNS4" in said


if __name__ == "__main__":  # every case, not a sample: ~15 minutes
    import tempfile

    folder = Path(tempfile.mkdtemp())
    said = [s for fixture, leaf, literals in CASES if (s := silenced(fixture, leaf, literals, folder))]
    print("\n".join(said))
    print(f"{len(said)} silent of {len(CASES)} cases")
