"""The review report: deterministic Markdown + Mermaid (golden file), and the short text plan."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from edge_origin import cli
from edge_origin.model import load_model
from edge_origin.review.report import render_report

ROOT = Path(__file__).resolve().parents[2]
WORLD = Path("tests/fixtures/templates/world")
RULES_DIR = Path("tests/fixtures/templates/rules")
GOLDEN = ROOT / "tests" / "fixtures" / "golden"


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # golden files hold repo-relative template paths


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed: review, then UPDATE_GOLDEN=1 pytest {__file__}"


def _mermaid_blocks(text: str) -> list[str]:
    return re.findall(r"```mermaid\n(.*?)```", text, flags=re.S)


def test_world_markdown_matches_golden_and_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["report", str(WORLD / "Origins.yaml"), str(WORLD / "Edge.json")]) == 0
    first = capsys.readouterr().out
    cli.main(["report", str(WORLD / "Origins.yaml"), str(WORLD / "Edge.json")])
    assert capsys.readouterr().out == first
    _check_golden("world-report.md", first)


def test_findings_markdown_matches_golden() -> None:
    model = load_model([RULES_DIR / "eo-dns1-fire.yaml"])
    text = render_report(model, "markdown")
    assert "| error | EO-DNS1 |" in text
    _check_golden("dns1-fire-report.md", text)


def test_mermaid_is_well_formed() -> None:
    text = render_report(load_model([WORLD / "Origins.yaml", WORLD / "Edge.json"]), "markdown")
    (block,) = _mermaid_blocks(text)
    lines = block.strip().splitlines()
    assert lines[0] == "flowchart LR"
    declared = set()
    for line in lines[1:]:
        node = re.fullmatch(r'  (n\d+)\["[^"]*"\]', line)
        edge = re.fullmatch(r'  (n\d+) (?:-- "[^"]*" )?--> (n\d+)', line)
        assert node or edge, line
        if node:
            declared.add(node.group(1))
        else:
            assert {edge.group(1), edge.group(2)} <= declared, line


def test_text_plan() -> None:
    text = render_report(load_model([WORLD / "Origins.yaml", WORLD / "Edge.json"]), "text")
    assert text.splitlines()[1] == "origin origin.example.com (grpc) <- Edge/Distribution"
    assert "record RecordA set zone-a (example.com) multivalue ttl 60 -> Origins/EipA [us-east-1a]; health check CheckA TCP:443" in text
    assert "nlb Origins/NlbA zones us-east-1a: TCP:443 idle 350 s" in text
    assert text.endswith("findings: 0 (0 error, 0 warning, 0 info)\n")
