"""Shared fixtures for the rehearsal tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from rehearsal_paths import NAME, REFERENCE, REFERENCE_WEIGHTED

from edge_origin.rehearsal.from_model import load_plan
from edge_origin.rehearsal.plan import DnsPlan


@pytest.fixture(scope="session")
def reference_plan_from_templates() -> DnsPlan:
    return load_plan([REFERENCE], NAME)


@pytest.fixture(scope="session")
def weighted_plan_from_templates() -> DnsPlan:
    return load_plan([REFERENCE_WEIGHTED], NAME)


def _root_missing_tool(reason: str) -> None:
    """tests/conftest.py's one rule for a missing tool (a failure under CI=true, else a skip with the reason)."""
    spec = importlib.util.spec_from_file_location("_root_conftest", Path(__file__).resolve().parents[1] / "conftest.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    module.missing_tool(reason)


@pytest.fixture()
def unbound_binary() -> str:
    """Debian's unbound (``--resolver unbound``), or the suite's missing-tool rule."""
    from edge_origin.rehearsal.unbound import INSTALL_HINT, find_binary

    path = find_binary()
    if path is None:
        _root_missing_tool(f"unbound not installed: {INSTALL_HINT}")
    return str(path)
