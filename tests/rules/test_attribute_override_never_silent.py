"""Beside a literal attribute entry (LoadBalancerAttributes, ListenerAttributes, TargetGroupAttributes), an entry whose
Key is decided at deploy time may be the same Key again, and which of two entries of one Key ELB keeps, the templates
do not say. So where a rule is quiet with the literal Value and fires with another Value that some rule fixture writes
for that Key, the same template with an undecided-Key entry holding that other Value must not be quiet for that rule:
it fires or says "not judged". ``python tests/rules/test_attribute_override_never_silent.py`` lists any silent pair."""

from __future__ import annotations

import copy
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

from edge_origin.model import LoadedTemplate, TemplateModel
from edge_origin.model.values import ModelError
from edge_origin.rules import RULES, run_rules

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "rules"
LISTS = ("LoadBalancerAttributes", "ListenerAttributes", "TargetGroupAttributes")


def _literal_entries(body: dict[str, Any]) -> list[tuple[str, str, int, str, str]]:
    """(logical id, list, index, Key, Value) of every literal attribute entry."""
    out = []
    for logical_id, resource in body.get("Resources", {}).items():
        for prop in LISTS:
            entries = (resource.get("Properties") or {}).get(prop)
            for index, entry in enumerate(entries if isinstance(entries, list) else ()):
                if isinstance(entry, dict) and isinstance(entry.get("Key"), str) and isinstance(entry.get("Value"), str):
                    out.append((logical_id, prop, index, entry["Key"], entry["Value"]))
    return out


@cache
def _bodies() -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(FIXTURES.glob("*.json"))}


@cache
def pairs() -> list[tuple[str, str, str, int, str]]:
    """(fixture, logical id, list, index, other Value) for each literal entry and each other Value a fixture writes
    for its Key."""
    seen: dict[str, set[str]] = {}
    for text in _bodies().values():
        for *_, key, value in _literal_entries(json.loads(text)):
            seen.setdefault(key, set()).add(value)
    return [(name, logical_id, prop, index, other)
            for name, text in _bodies().items()
            for logical_id, prop, index, key, value in _literal_entries(json.loads(text))
            for other in sorted(seen[key] - {value})]


def _verdicts(body: dict[str, Any]) -> dict[str, list[str]] | None:
    try:
        found = run_rules(TemplateModel([LoadedTemplate("S", "t.json", body)]))
    except ModelError:
        return None
    out: dict[str, list[str]] = {rule.id: [] for rule in RULES}
    for f in found:
        out.setdefault(f.rule, []).append(f.message)
    return out


def silent_rules(pair: tuple[str, str, str, int, str]) -> list[str]:
    """The rules quiet as written and with the undecided-Key entry, that fire with the other Value written."""
    name, logical_id, prop, index, other = pair
    written = json.loads(_bodies()[name])
    changed = copy.deepcopy(written)
    changed["Resources"][logical_id]["Properties"][prop][index]["Value"] = other
    both = copy.deepcopy(written)
    both.setdefault("Parameters", {})["OverrideKey"] = {"Type": "String"}
    both["Resources"][logical_id]["Properties"][prop].append({"Key": {"Ref": "OverrideKey"}, "Value": other})
    as_written, with_other, with_both = _verdicts(written), _verdicts(changed), _verdicts(both)
    if as_written is None or with_other is None or with_both is None:
        return []  # a Value CloudFormation refuses there: the template is bad input either way
    return [rule for rule, messages in as_written.items()
            if not messages and with_other.get(rule) and not with_both.get(rule)]


def test_an_entry_that_may_be_the_key_again_never_silences_a_rule() -> None:
    silent = [(pair, rules) for pair in pairs() if (rules := silent_rules(pair))]  # every pair: about a second
    assert silent == []


def test_the_pairs_reach_every_attribute_list() -> None:
    assert {prop for _, _, prop, _, _ in pairs()} == set(LISTS)


if __name__ == "__main__":
    silent = [(pair, rules) for pair in pairs() if (rules := silent_rules(pair))]
    for pair, rules in silent:
        print(pair, rules)
    print(f"{len(pairs())} pairs, {len(silent)} silent")
    sys.exit(1 if silent else 0)
