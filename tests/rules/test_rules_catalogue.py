"""RULES.md documents every registered rule, exactly as the registry says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import edge_origin
from edge_origin.rules import CATALOGUE
from edge_origin.rules.catalogue import render

RULES_MD = Path(__file__).resolve().parents[2] / "RULES.md"


def test_rules_md_is_generated_from_the_registry() -> None:
    assert RULES_MD.read_text(encoding="utf-8") == render(), "regenerate: python -m edge_origin.rules.catalogue > RULES.md"


def test_every_rule_has_a_complete_section() -> None:
    text = RULES_MD.read_text(encoding="utf-8")
    ids = re.findall(r"^### (EO-[A-Z]+\d)$", text, flags=re.M)
    assert ids == [r.id for r in CATALOGUE]
    for rule in CATALOGUE:
        section = text.split(f"### {rule.id}\n", 1)[1].split("\n### ", 1)[0]
        for field in ("Catches:", "Incident:", "Fix:", "Acknowledge:", f"({rule.severity.value}"):
            assert field in section, (rule.id, field)


def _run(*args: str) -> str:
    """Run Python with ``args`` on the edge_origin this test imported (the installed one, or a copy)."""
    env = {**os.environ, "PYTHONPATH": str(Path(edge_origin.__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=120, check=True)
    return done.stdout


def test_running_the_catalogue_prints_rules_md() -> None:
    assert _run("-m", "edge_origin.rules.catalogue") == RULES_MD.read_text(encoding="utf-8")


def test_importing_the_catalogue_prints_nothing() -> None:
    assert _run("-c", "import edge_origin.rules.catalogue") == ""
