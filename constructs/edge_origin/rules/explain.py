"""What `edge-origin rules` and `edge-origin rules explain ID` print, from the registry: the
catalogue rows, and for one rule why it exists, where it comes from, its fix, how to acknowledge
it and an example (a template the rule fires on, shipped in ``edge_origin/data/rule_examples``,
with the findings it gives there)."""

from __future__ import annotations

import difflib
import sys
import tempfile
from importlib import resources
from pathlib import Path

from edge_origin.core.facts import cite
from edge_origin.rules import ADVISORY_RULES, CATALOGUE, TRANSITION_RULES, Rule, TransitionRule, run_rules

DOCS = "RULES.md"

#: For transition rules: a change that shows them (the repository's tests/fixtures/diff/<pair>).
TRANSITION_EXAMPLES = {
    "EO-CHG1": "naive-migration (weighted records replaced by multivalue ones in one deploy)",
    "EO-CHG2": "eip-address-changed (an Elastic IP behind a live record is replaced)",
    "EO-CHG3": "all-records-removed (the name's records all go)",
    "EO-CHG4": "keepalive-with-idle (the client keepalive raised with the NLB idle timeout in one deploy)",
    "EO-CHG5": "record-logical-id-renamed (a record moves to another logical id)",
}


def _kind(rule: Rule | TransitionRule) -> str:
    if rule in TRANSITION_RULES:
        return "transition"
    return "advisory" if rule in ADVISORY_RULES else "template"


def catalogue_rows() -> list[dict[str, str]]:
    """``[{"id", "severity", "kind", "title"}]`` for every rule, in RULES.md's order."""
    return [{"id": r.id, "severity": r.severity.value, "kind": _kind(r), "title": r.title} for r in CATALOGUE]


def find_rule(rule_id: str) -> Rule | TransitionRule:
    """The rule with this id (case-insensitive); ValueError with the nearest id otherwise."""
    ids = {r.id: r for r in CATALOGUE}
    key = rule_id.strip().upper()
    if key in ids:
        return ids[key]
    near = difflib.get_close_matches(key, list(ids), n=1, cutoff=0.6)
    hint = f"; did you mean {near[0]}?" if near else ""
    raise ValueError(f"unknown rule {rule_id!r}{hint} (`edge-origin rules` lists them: {', '.join(ids)})")


def example_template(rule_id: str) -> str | None:
    """The example template (YAML) ``rule_id`` fires on, or None (transition and advisory rules)."""
    name = f"{rule_id.lower()}-fire.yaml"
    try:
        return resources.files("edge_origin").joinpath("data", "rule_examples", name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None


def example_findings(rule_id: str) -> list:
    """The findings the example template gives (its own rule's only)."""
    from edge_origin.model import load_model

    text = example_template(rule_id)
    if text is None:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"Example{rule_id.replace('-', '')}.yaml"
        path.write_text(text, encoding="utf-8")
        return [f for f in run_rules(load_model([path])) if f.rule == rule_id]


def source_of(rule: Rule | TransitionRule) -> str:
    module = sys.modules.get(rule.check.__module__)
    file = getattr(module, "__file__", None) or rule.check.__module__
    return f"edge_origin/rules/{Path(file).name}" if file.endswith(".py") else file


def explain_text(rule: Rule | TransitionRule) -> str:
    """The text of `edge-origin rules explain ID`."""
    why = rule.catches + (f" {rule.why}" if getattr(rule, "why", "") else "")
    lines = [
        f"{rule.id}: {rule.title} ({rule.severity.value}, {_kind(rule)} rule)",
        *([f"Severity: {rule.severity.value}; {rule.lower} (as RULES.md)"] if getattr(rule, "lower", "") else []),
        "",
        f"Why: {why}",
        "",
        f"Incident: {rule.incident} (summaries: docs/incidents.md)",
        f"Source: {source_of(rule)}; catalogue: {DOCS}#{rule.id.lower()}",
        "",
        f"Fix: {rule.fix}",
        "",
        *(["Facts it rests on (edge_origin.core.facts: value, owner, source, date read):", cite(*rule.facts), ""]
          if rule.facts else []),
        f"Acknowledge: {rule.acknowledge}",
        f"Leave it out of a run, with the reason: edge-origin check --ignore '{rule.id}: why' PATH "
        f"(or ignore = {{\"{rule.id}\" = \"why\"}} in [tool.edge-origin]); its findings are still listed as acknowledged",
        "",
    ]
    if rule.id in TRANSITION_EXAMPLES:
        lines += [
            "Example: a change, found by `edge-origin diff --base BASE --head HEAD` (the repository's",
            f"tests/fixtures/diff/{TRANSITION_EXAMPLES[rule.id]}).",
        ]
    elif example_template(rule.id) is not None:
        lines.append(f"Example: `edge-origin rules explain {rule.id} --example > example.yaml && edge-origin check example.yaml`")
        for f in example_findings(rule.id)[:3]:
            lines.append(f"  {f.severity.value:<7} {f.rule:<8} {f.stack}/{f.resource}: {f.message}")
    else:
        lines.append("Example: `edge-origin check --advisory PATH` reports it for a template without the construct it asks for.")
    return "\n".join(lines) + "\n"


__all__ = ["catalogue_rows", "example_findings", "example_template", "explain_text", "find_rule"]
