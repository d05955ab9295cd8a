"""Paths and names the rehearsal tests share (a uniquely named module: tests/ has no packages)."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rehearsal"
REFERENCE = FIXTURES / "Reference.template.json"
REFERENCE_WEIGHTED = FIXTURES / "ReferenceWeighted.template.json"
NAME = "origin.example.com"
