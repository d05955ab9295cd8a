"""One severity per rule, everywhere (issue 51 item 4): a rule's catalogue severity (RULES.md, `rules explain`,
SARIF's defaultConfiguration, what the review counts) is the highest any of its findings gets, and a finding
gets less only where the rule's ``lower`` says so, for a not-judged warning, or for a long-lived (non-gRPC)
origin. Held against every finding of the committed fixtures (single templates and the diff pairs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import load_model
from edge_origin.rules import CATALOGUE, run_rules, run_transition_rules
from edge_origin.rules.catalogue import render

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
BY_ID = {r.id: r for r in CATALOGUE}
SINGLE = [
    FIXTURES / "cdk_targets" / "assembly",
    *sorted(p for p in (FIXTURES / "templates" / "rules").iterdir() if p.suffix == ".json"),  # each rule's fire/quiet
    FIXTURES / "templates" / "world",
    ROOT / "tests" / "snapshots" / "TelemetryIngest.template.json",
    ROOT / "tests" / "snapshots" / "TelemetryIngestVpcOrigin.template.json",
]
PAIRS = sorted(p for p in (FIXTURES / "diff").iterdir() if (p / "base").is_dir())


def _allowed(item: Finding) -> bool:
    rule = BY_ID[item.rule]
    if item.severity is rule.severity:
        return True
    if item.severity.rank > rule.severity.rank:
        return False  # never above the catalogue
    return bool(rule.lower) or "not judged" in item.message or "long-lived origin" in item.message


def _corpus_findings() -> list[Finding]:
    found: list[Finding] = []
    for path in SINGLE:
        found += run_rules(load_model([path], strict=False), honour_acknowledgements=False)
    for pair in PAIRS:
        base, head = load_model([pair / "base"]), load_model([pair / "head"])
        found += run_transition_rules(base, head)
        found += run_rules(head, honour_acknowledgements=False)
    return found


@pytest.fixture(scope="module")
def corpus() -> list[Finding]:
    return _corpus_findings()


def test_no_finding_is_above_or_unexplained_below_its_rules_severity(corpus: list[Finding]) -> None:
    assert len({f.rule for f in corpus}) >= 15  # the corpus reaches most rules
    wrong = [(f.rule, f.severity.value, BY_ID[f.rule].severity.value, f.message[:120]) for f in corpus if not _allowed(f)]
    assert not wrong, wrong


def test_the_graded_rules_named_in_the_issue_read_the_same_everywhere() -> None:
    """EO-CHG2 was a warning in RULES.md and an error in the review: its catalogue severity is its highest."""
    rules_md = render()
    chg2 = BY_ID["EO-CHG2"]
    assert chg2.severity is Severity.ERROR and "warning while some of the name's base addresses remain" in chg2.lower
    assert "| [EO-CHG2](#eo-chg2) | error (or warning) |" in rules_md
    assert f"**{chg2.title}** (error; {chg2.lower})" in rules_md
    from edge_origin.rules.explain import explain_text

    assert explain_text(chg2).splitlines()[:2] == [
        f"EO-CHG2: {chg2.title} (error, transition rule)", f"Severity: error; {chg2.lower} (as `edge-origin rules` lists it)"]


def test_every_lower_text_names_a_lower_severity() -> None:
    graded = [rule for rule in CATALOGUE if rule.lower]
    assert graded, "no rule of the catalogue is graded"
    for rule in graded:
        assert rule.severity is not Severity.INFO and rule.lower.split()[0] in ("warning", "info"), rule.id


def test_a_refused_idle_timeout_is_eo_nlb1_at_its_catalogue_severity() -> None:
    """EO-NLB1 was a warning in RULES.md and gives an error for a value the API refuses."""
    import json

    body = json.loads((FIXTURES / "templates" / "rules" / "eo-nlb1-quiet.json").read_text())
    for res in body["Resources"].values():
        for attr in res.get("Properties", {}).get("ListenerAttributes", []):
            if attr["Key"] == "tcp.idle_timeout.seconds":
                attr["Value"] = "7000"  # outside 60..6000
    from edge_origin.model import model_from_text

    found = [f for f in run_rules(model_from_text(json.dumps(body))) if f.rule == "EO-NLB1"]
    assert found and {f.severity for f in found} == {Severity.ERROR} and BY_ID["EO-NLB1"].severity is Severity.ERROR
