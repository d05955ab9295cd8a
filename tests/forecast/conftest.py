"""The internet-scale model's tests (edge_origin.forecast). They share the rehearsal tests' fixture
paths: ``rehearsal_paths`` (a uniquely named module in tests/rehearsal; tests/ has no packages)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rehearsal"))
