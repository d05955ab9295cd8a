"""The DNS-plan race of the postmortem, replayed step by step against the strict Route 53.

A slow enactor checks freshness, stalls; the planner writes many newer generations; a fast
enactor applies them and cleans up old plans; the slow one finally applies its old plan. Here it
can neither roll the generation back, nor empty the name, nor wedge later plans.
"""

from __future__ import annotations

import random

import pytest

from edge_origin.live.enact import EnactOptions, PlanStore, StalePlan, enact, prepare
from edge_origin.live.name_state import Generation, read_name
from tests.live_write.conftest import INCIDENT_IPS, NAME, make_plan

POOL = INCIDENT_IPS + ["198.51.100.1", "198.51.100.2"]
OPTIONS = EnactOptions(max_change_share=1.0, wait_s=1)
NO_SLEEP = {"sleep": lambda s: None}


class Watch:
    """Checks every applied batch, inside the strict layer's lock: the moment it could break."""

    def __init__(self) -> None:
        self.generations: list[int] = []
        self.address_counts: list[int] = []

    def __call__(self, zone_id: str, records: list[dict]) -> None:
        self.address_counts.append(sum(1 for r in records if r["Name"] == "origin.example.com." and r["Type"] == "A"))
        gen = [Generation.from_record_set(r) for r in records if r["Type"] == "TXT" and r["Name"].startswith("_edge-origin-generation.")]
        self.generations.append(gen[0].number if gen and gen[0] else 0)


def test_postmortem_race_replayed(r53, zone_id, tmp_path):
    store = PlanStore(tmp_path)
    first = make_plan(zone_id, 1)
    enact(r53, first, EnactOptions(allow_full_change=True), **NO_SLEEP)
    store.save(first)
    watch = Watch()
    r53.add_observer(watch)
    rng = random.Random(7)

    # 1. Enactor A picks up generation 2 and checks it is newer than live (1): it is.
    slow_plan = make_plan(zone_id, 2, POOL[:4])
    store.save(slow_plan)
    assert prepare(r53, slow_plan, OPTIONS).live.live_generation == 1

    def planner_and_fast_enactor(_prepared) -> None:
        # 2. While A is stuck, the planner writes generations 3..10 and enactor B applies each.
        for gen in range(3, 11):
            plan = make_plan(zone_id, gen, sorted(rng.sample(POOL, 5)))
            store.save(plan)
            assert enact(r53, plan, OPTIONS, **NO_SLEEP).status == "applied"
        # 3. B cleans up plans "significantly older" than the one it applied.
        removed = store.cleanup(r53, zone_id, NAME, keep=0)
        assert 10 not in removed and 9 not in removed and 2 in removed

    # 4. A finally sends its batch for generation 2: its DELETE of the generation-1 record no
    #    longer matches, so Route 53 refuses the whole batch; A re-reads and reports.
    batches_before = r53.batches_applied
    with pytest.raises(StalePlan, match="^stale plan: live generation is 10$"):
        enact(r53, slow_plan, OPTIONS, after_read=planner_and_fast_enactor, **NO_SLEEP)
    assert r53.batches_applied == batches_before + 8  # B's eight, none of A's
    assert r53.batches_refused == 1

    live = read_name(r53, zone_id, NAME)
    assert live.live_generation == 10 and live.generation.previous == 9
    assert len(live.records) == 5 and live.routing_policy == "multivalue"

    # 5. A running its old plan again is refused before Route 53 is called.
    with pytest.raises(StalePlan, match="live generation is 10"):
        enact(r53, slow_plan, OPTIONS)
    assert r53.batches_refused == 1

    # 6. Clean-up again: the live plan and the one before it stay; DNS is not touched.
    assert store.cleanup(r53, zone_id, NAME, keep=0) == []
    assert store.generations(NAME) == [9, 10]
    assert len(read_name(r53, zone_id, NAME).records) == 5

    # 7. The system is not wedged: the next plan applies.
    assert enact(r53, make_plan(zone_id, 11, POOL[2:8]), OPTIONS, **NO_SLEEP).status == "applied"

    # Throughout: the generation only went up and the name never had zero addresses.
    assert watch.generations == sorted(watch.generations) == list(range(3, 12))
    assert min(watch.address_counts) > 0
