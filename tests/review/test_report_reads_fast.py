"""A review that reads in ten seconds (issue 51 item 4): the verdict with counts first, errors first, zones
for aliases to NLBs, and the report modules without an import circle (issue 48 item 3)."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import load_model
from edge_origin.review import report_parts, report_vpc
from edge_origin.review.report import errors_first, render_markdown, render_report, verdict_line

ROOT = Path(__file__).resolve().parents[2]
WEIGHTED_ALIASES = ROOT / "tests" / "fixtures" / "cdk_targets" / "assembly" / "WeightedNlb.template.json"

FINDING = st.builds(
    Finding,
    rule=st.sampled_from(["EO-DNS1", "EO-NLB1", "EO-WATCH1", "EO-CHG2"]),
    severity=st.sampled_from(list(Severity)),
    message=st.sampled_from(["m1", "m2"]),
    fix=st.just("f"),
    template=st.just("t.json"),
    stack=st.sampled_from(["A", "B"]),
    resource=st.sampled_from(["R1", "R2"]),
)


@settings(max_examples=40, deadline=None, database=None)
@given(findings=st.lists(FINDING, max_size=12))
def test_the_first_line_is_the_verdict_with_counts(findings: list[Finding]) -> None:
    line = verdict_line(findings)
    count = {s: sum(f.severity is s for f in findings) for s in Severity}
    blocking = count[Severity.ERROR] + count[Severity.NOT_CHECKED]
    assert line.startswith("## edge-origin review: " + ("fails" if blocking else "passes"))
    assert f"{count[Severity.ERROR]} error(s), {count[Severity.WARNING]} warning(s), {count[Severity.INFO]} info" in line
    assert "\n" not in line


@settings(max_examples=40, deadline=None, database=None)
@given(findings=st.lists(FINDING, max_size=12), new=st.sets(st.integers(0, 11)))
def test_a_change_fails_only_on_what_it_brings(findings: list[Finding], new: set[int]) -> None:
    brought = [f for i, f in enumerate(findings) if i in new]
    line = verdict_line(findings, new=brought, fixed=3)
    assert line.startswith("## edge-origin review: fails") == any(f.severity.at_least(Severity.ERROR) for f in brought)
    assert line.endswith(f"({len(brought)} new, 3 fixed)")


@settings(max_examples=30, deadline=None, database=None)
@given(findings=st.lists(FINDING, max_size=12))
def test_errors_come_first_and_nothing_is_lost(findings: list[Finding]) -> None:
    ordered = errors_first(findings)
    assert sorted(ordered) == sorted(findings)
    ranks = [f.severity.rank for f in ordered]
    assert ranks == sorted(ranks, reverse=True)


def test_the_report_of_a_template_starts_with_its_verdict_and_lists_errors_first() -> None:
    model = load_model([WEIGHTED_ALIASES])
    text = render_report(model)
    assert text.startswith("## edge-origin review: fails, 2 error(s). Findings: 2 error(s), ")
    rows = [r for r in text.split("### Findings\n", 1)[1].split("\n### ", 1)[0].splitlines() if r.startswith("| ")][1:]
    assert [r.split(" | ")[0] for r in rows[:2]] == ["| error", "| error"] and "| warning" in rows[2]
    assert text.index("### Findings") < text.index("### api.example.com")  # findings before the paths
    assert text.count("```mermaid") == len(model.origin_names())  # each path drawn once


def test_aliases_to_nlbs_show_the_nlbs_zones() -> None:
    model = load_model([WEIGHTED_ALIASES])
    records = render_markdown(model, []).split("### Records\n", 1)[1].split("\n### ", 1)[0]
    alias_rows = [r for r in records.splitlines() if ".DNSName" in r]
    assert len(alias_rows) == 2 and all("| dummy1a, dummy1b |" in r for r in alias_rows), alias_rows
    plan = render_report(model, "text")
    assert "[dummy1a, dummy1b]" in plan and "[?]" not in plan


def _imports(module: object) -> set[str]:
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_report_vpc_and_report_parts_do_not_import_report() -> None:
    """report.py imports report_vpc at the top; report_vpc draws with report_parts, never report.py."""
    for module in (report_vpc, report_parts):
        assert "edge_origin.review.report" not in _imports(module), module.__name__
