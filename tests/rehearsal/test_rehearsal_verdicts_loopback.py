"""Issue 54 on loopback: verdicts with their odds, replay by seed, a real unbound on the path (slow, small)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from edge_origin.rehearsal import unbound as unbound_module
from edge_origin.rehearsal.runner import RehearsalConfig, RehearsalError, rehearse

QUICK = {"duration": 1.0, "rpc_interval": 0.5, "max_seconds": 45.0}


def _our_unbounds() -> list[int]:
    """unbound processes started with one of our per-run config folders (read from /proc, never signalled)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"unbound" in cmdline and b"edge-origin-unbound-" in cmdline:
            found.append(int(pid))
    return found


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_weighted_at_4_edges_piles_up_and_the_seed_replays_the_answers(weighted_plan_from_templates) -> None:
    cfg = RehearsalConfig(clients=120, edges=4, seed=5, **QUICK)
    first = rehearse(weighted_plan_from_templates, cfg)
    again = rehearse(weighted_plan_from_templates, cfg)
    assert first.verdict == "pile-up", first.details["judgement"]
    assert first.details["judgement"]["p_wrong"] < 0.01
    assert first.details["seed"] == 5
    # the same answers to the same edges, so (one address per answer) the same connections
    answers = first.details["dns_answers"]
    assert sorted(answers) == [f"127.0.20.{i}" for i in range(1, 5)]
    assert {e: a[:1] for e, a in answers.items()} == {e: a[:1] for e, a in again.details["dns_answers"].items()}
    assert first.connections == again.connections
    assert [d[:2] for d in first.details["client_draws"]] == [d[:2] for d in again.details["client_draws"]]
    drawn = rehearse(weighted_plan_from_templates, RehearsalConfig(clients=20, edges=2, **QUICK))
    assert isinstance(drawn.details["seed"], int) and f"--seed {drawn.details['seed']}" in drawn.text()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_multivalue_at_50_edges_spreads(reference_plan_from_templates) -> None:
    run = rehearse(reference_plan_from_templates, RehearsalConfig(clients=300, edges=50, seed=9, **QUICK))
    judged = run.details["judgement"]
    assert run.verdict == "spread", judged
    assert {f["figure"] for f in judged["figures"]} == {"overall", "per_resolver"}
    assert "verdict: spread (probability of a wrong call" in run.text()


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize(("plan_name", "verdict"), [("weighted", "pile-up"), ("multivalue", "spread")])
def test_a_burst_through_a_real_unbound(plan_name: str, verdict: str, reference_plan_from_templates,
                                        weighted_plan_from_templates, unbound_binary: str) -> None:
    plan = weighted_plan_from_templates if plan_name == "weighted" else reference_plan_from_templates
    clients = 100
    run = rehearse(plan, RehearsalConfig(clients=clients, edges=4, resolver="unbound", seed=3, **QUICK))
    report = run.details["unbound"]
    assert run.verdict == verdict, run.details["judgement"]
    assert report["a_queries_from_edges"] >= clients  # the edges forward every query: unbound holds the cache
    assert report["a_queries_to_authoritative"] == 1  # one miss, then its cache for the TTL (0.1 x 60 s)
    assert report["cache_hits_a"] >= clients - 1
    assert report["ttl_seconds"] == 6
    if report["statistics"] is not None:  # unbound-control: its own count, A and AAAA alike
        assert report["cache_hits"] >= clients - 1
    if plan_name == "weighted":  # one address handed to every edge: everything on it
        assert list(report["first_address_handed_out"].values()) == [report["a_queries_from_edges"]]
        assert max(run.connections.values()) == clients
    else:  # rrset-roundrobin rotates the cached six per response
        assert len(report["first_address_handed_out"]) > 1
    assert "unbound 127.0.30.1:" in run.text()
    assert _our_unbounds() == []


def test_unbound_missing_is_one_line_naming_the_flag_and_the_install(monkeypatch, reference_plan_from_templates) -> None:
    monkeypatch.setattr(unbound_module, "find_binary", lambda name="unbound": None)
    with pytest.raises(RehearsalError) as info:
        rehearse(reference_plan_from_templates, RehearsalConfig(clients=5, resolver="unbound"))
    message = str(info.value)
    assert message.startswith("--resolver unbound: unbound is not installed") and "apt-get install -y unbound" in message
    assert "\n" not in message


def test_unbound_that_exits_at_start_is_an_error_and_nothing_is_left(monkeypatch, tmp_path: Path,
                                                                     reference_plan_from_templates) -> None:
    fake = tmp_path / "unbound"
    fake.write_text("#!/bin/sh\necho 'fatal error: cannot open config' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(unbound_module, "find_binary", lambda name="unbound": str(fake) if name == "unbound" else None)
    with pytest.raises(RehearsalError, match=r"--resolver unbound: unbound exited with 1 at start: fatal error"):
        rehearse(reference_plan_from_templates, RehearsalConfig(clients=5, resolver="unbound", max_seconds=20))
    assert _our_unbounds() == []


def test_the_unbound_config_is_the_measured_unprivileged_one(tmp_path: Path) -> None:
    text = unbound_module.config_text(tmp_path, 5353, 8953, "example.com", ("127.0.0.1", 5300))
    for line in ('username: ""', 'chroot: ""', "do-daemonize: no", "do-not-query-localhost: no",
                 'module-config: "iterator"', "access-control: 127.0.0.0/8 allow", "stub-addr: 127.0.0.1@5300",
                 'name: "example.com"', "qname-minimisation: no", "control-use-cert: no", "interface: 127.0.30.1"):
        assert line in text, line
