"""Shared fixtures for the rehearsal tests."""

from __future__ import annotations

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
