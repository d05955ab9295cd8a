"""The rehearsal on the lead's reference app, synthesized in-process (``reference_app`` in tests/conftest.py)."""

from __future__ import annotations

import pytest

from edge_origin import cli
from edge_origin.forecast.montecarlo import ModelConfig, run_model
from edge_origin.rehearsal.from_model import load_plan
from edge_origin.rehearsal.metrics import SPREAD_LIMIT
from edge_origin.rehearsal.plan import DnsPlan
from edge_origin.rehearsal.runner import RehearsalConfig, rehearse

ORIGIN_NAME = "origin.telemetry.example.com"  # cdk.json edge-origin:originName


@pytest.fixture(scope="module")
def app_plan(reference_app) -> DnsPlan:
    _stack, _template, assembly = reference_app
    return load_plan([assembly], ORIGIN_NAME)


def test_reference_app_plan_is_six_health_checked_multivalue_eips(app_plan: DnsPlan) -> None:
    assert app_plan.routing == "multivalue"
    assert app_plan.ttl == 60
    assert len(app_plan.records) == len(app_plan.origins) == 6
    assert len({o.nlb for o in app_plan.origins}) == 2
    assert len(app_plan.health_checks()) == 6
    assert all(len(r.values) == 1 for r in app_plan.records)


def test_reference_app_spreads_in_the_model(app_plan: DnsPlan) -> None:
    result = run_model(app_plan, ModelConfig(devices=121_000_000, edges=600, ttl=60, ramp_seconds=30, seed=1))
    assert result.max_over_mean <= 1.01
    assert result.verdict == "spread"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_reference_app_spreads_on_loopback(app_plan: DnsPlan) -> None:
    cfg = RehearsalConfig(clients=1000, duration=1.5, rpc_interval=0.5, seed=2)  # N=1000: a chance max/mean > 1.35 ~1e-5
    run = rehearse(app_plan, cfg)
    assert run.errors == {}
    assert sum(run.connections.values()) == cfg.clients
    assert run.max_over_mean <= SPREAD_LIMIT


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_cli_rehearses_the_cdk_out(reference_app, capsys: pytest.CaptureFixture[str]) -> None:
    _stack, _template, assembly = reference_app
    code = cli.main(
        ["rehearse", str(assembly), "--name", ORIGIN_NAME, "--clients", "60", "--lb-policy", "round_robin",
         "--duration", "1"]
    )
    out = capsys.readouterr().out
    assert code == cli.EXIT_OK
    assert "max/mean connections 1.00" in out
