"""Issue 51 item 5: every rule's fix names the CDK prop / edge-origin construct and links its docs/rules.md
section; docs/rules.md's rule reference is generated from the registry; `rules explain` names no file the
wheel lacks; the facts a rule rests on are cited."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edge_origin.core.facts import FACTS
from edge_origin.rules import CATALOGUE
from edge_origin.rules.base import DOCS_URL, docs_link
from edge_origin.rules.explain import docs_reference, explain_text, with_docs_reference

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rules.md"
CONSTRUCTS = ("GrpcEdgeToOrigin", "InternalGrpcOrigin", "OriginFleet", "MultivalueOriginRecords", "GrpcEdgeDistribution",
              "OriginWatch")


@pytest.mark.parametrize("rule", CATALOGUE, ids=lambda r: r.id)
def test_fix_names_cdk_and_the_construct_and_links_its_section(rule) -> None:
    cdk = rule.fix.split(" In CDK: ", 1)
    assert len(cdk) == 2, rule.fix
    assert any(name in cdk[1] for name in CONSTRUCTS) or "edge-origin" in cdk[1], cdk[1]
    assert rule.fix.endswith(f"Docs: {docs_link(rule.id)}")
    assert f"\n### {rule.id}\n" in DOCS.read_text(encoding="utf-8")


def test_the_fixes_the_issue_names() -> None:
    by_id = {r.id: r for r in CATALOGUE}
    assert "tcp_idle_timeout=" in by_id["EO-NLB1"].fix
    assert "MultivalueOriginRecords" in by_id["EO-DNS1"].fix and "GrpcEdgeToOrigin" in by_id["EO-DNS1"].fix
    assert "LoadBalancerTarget" in by_id["EO-DNS1"].fix  # the alias-to-NLB app is told what replaces it


def test_docs_rules_md_reference_is_generated_from_the_registry() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert docs_reference() in text, "run: python -m edge_origin.rules.explain --docs docs/rules.md"
    assert with_docs_reference(text) == text
    assert with_docs_reference("# Rules\n").endswith(docs_reference())


@pytest.mark.parametrize("rule", CATALOGUE, ids=lambda r: r.id)
def test_explain_names_no_file_outside_the_wheel(rule) -> None:
    text = explain_text(rule)
    assert text.startswith(rule.id)
    for path in re.findall(r"(?<![/\w.])((?:docs|tests)/[\w./-]+|RULES\.md)", text):
        pytest.fail(f"{rule.id}: explain names {path!r}, which the wheel does not ship (link {DOCS_URL} instead)")
    for key in rule.facts:
        assert key in FACTS and FACTS[key].source in text
