"""`edge-origin report --base ... --head ...`: the "What this change does" section."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_origin.cli import main
from edge_origin.review.report import report_change_paths

PAIRS = Path(__file__).resolve().parents[1] / "fixtures" / "diff"


def side(case: str, which: str) -> list[str]:
    return [str(p) for p in sorted((PAIRS / case / which).glob("*.json"))]


def test_section_has_changes_before_after_views_and_findings() -> None:
    text = report_change_paths(side("naive-migration", "base"), side("naive-migration", "head"))
    first = text.split("\n", 1)[0]
    assert first.startswith("## edge-origin review: fails, 1 new error(s). Findings: "), first  # the verdict first
    findings = text.split("### Findings\n", 1)[1].split("\n### ", 1)[0]
    assert "| new | error | EO-CHG1 |" in findings  # the transition finding, in the one findings table
    section = text.split("### What this change does\n", 1)[1].split("\n### ", 1)[0]
    assert section.index("#### origin.example.com (grpc)") < section.index("Before (base):") < section.index("After (head):")
    assert section.count("```mermaid") == 1  # before; after is the head's path, drawn once below
    assert "WeightedNlb1A weighted nlb1-us-east-1a" in section.split("After (head):")[0]
    assert "After (head): the path as drawn under `origin.example.com` below." in section
    paths = text.split("\n### origin.example.com (grpc)\n", 1)[1]
    assert "RecordNlb1A multivalue" in paths.split("```", 2)[1]
    # verdict, findings, the change, then the head's own paths and tables; every diagram and table once
    assert text.index("### Findings") < text.index("### What this change does") < text.index("### Records")
    assert text.count("### Records") == 1 and text.count("| Change | Severity |") == 1
    assert "New findings in head" not in text and "#### Transition findings" not in text  # not a second findings table


def test_section_says_when_a_name_is_not_on_a_side() -> None:
    text = report_change_paths(side("safe-migration", "base"), side("safe-migration", "head"))
    new_name = text.split("#### origin-mv.example.com (grpc)", 1)[1].split("####", 1)[0]
    assert "Before (base):\n\n_not on this side_" in new_name
    assert "Transition findings: none (no EO-CHG rule found a problem" in text


def test_errors_come_first_in_the_findings_table() -> None:
    text = report_change_paths(side("naive-migration", "head"), side("naive-migration", "base"))
    rows = [line for line in text.split("### Findings\n", 1)[1].split("\n### ", 1)[0].splitlines() if line.startswith("| ")][1:]
    ranks = [{"error": 0, "warning": 1, "info": 2}[row.split(" | ")[1]] for row in rows]
    assert ranks == sorted(ranks) and ranks[0] == 0, rows


def test_report_is_deterministic_and_the_text_form_works() -> None:
    args = (side("nlb-3-to-2", "base"), side("nlb-3-to-2", "head"))
    assert report_change_paths(*args) == report_change_paths(*args)
    text = report_change_paths(*args, fmt="text")
    assert text.startswith("edge-origin plan:") and "edge-origin diff:" in text


def test_cli_report_base_head(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--base", *side("ttl-raised", "base"), "--head", *side("ttl-raised", "head")]) == 0
    out = capsys.readouterr().out
    assert "### What this change does" in out and "| warning | EO-CHG4 |" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--base", "x.json"], "--head is needed too"),
        (["--head", "x.json"], "--base is needed too"),
        (["a.json", "--base", "x.json", "--head", "y.json"], "either PATH"),
        ([], "no templates given"),
    ],
)
def test_cli_report_flag_errors(capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    assert main(["report", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_cli_report_bad_side_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["report", "--base", str(tmp_path / "none.json"), "--head", *side("ttl-raised", "head")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("edge-origin report: --base: ")
