"""8 concurrent enactors with random delays and generations (property-based, threads bounded)."""

from __future__ import annotations

import random
import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.live.enact import EnactOptions, Refusal, StalePlan, enact
from edge_origin.live.name_state import read_name
from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import INCIDENT_IPS, NAME, make_plan
from tests.live_write.test_race import Watch

POOL = INCIDENT_IPS + ["198.51.100.1", "198.51.100.2"]
WRITERS = 8


@settings(max_examples=12, deadline=None)
@given(
    generations=st.lists(st.integers(2, 40), min_size=WRITERS, max_size=WRITERS, unique=True),
    subsets=st.lists(st.lists(st.sampled_from(POOL), min_size=1, max_size=6, unique=True), min_size=WRITERS, max_size=WRITERS),
    seed=st.integers(0, 2**16),
)
def test_concurrent_enactors_never_go_back_nor_empty_the_name(generations, subsets, seed):
    r53 = StrictRoute53()
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    options = EnactOptions(max_change_share=1.0, wait_s=0, retries=WRITERS)
    enact(r53, make_plan(zone_id, 1, POOL[:3]), options)
    watch = Watch()
    r53.add_observer(watch)
    outcomes: dict[int, str] = {}
    lock = threading.Lock()

    def writer(index: int) -> None:
        rng = random.Random(seed + index)
        time.sleep(rng.uniform(0, 0.003))
        plan = make_plan(zone_id, generations[index], sorted(subsets[index]))
        try:
            outcome = enact(r53, plan, options, after_read=lambda _p: time.sleep(rng.uniform(0, 0.003))).status
        except StalePlan:
            outcome = "stale"
        except Refusal as exc:
            outcome = f"refused: {exc}"
        with lock:
            outcomes[generations[index]] = outcome

    threads = [threading.Thread(target=writer, args=(i,), daemon=True) for i in range(WRITERS)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 20
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads)

    assert set(outcomes.values()) <= {"applied", "stale"}, outcomes
    assert watch.generations == sorted(set(watch.generations)), "the live generation went down or repeated"
    assert min(watch.address_counts) > 0, "the name had no address"
    top = max(generations)
    assert outcomes[top] == "applied"
    live = read_name(r53, zone_id, NAME)
    assert live.live_generation == top
    want = sorted(subsets[generations.index(top)])
    assert sorted(r["ResourceRecords"][0]["Value"] for r in live.records) == want
    applied = [g for g, o in outcomes.items() if o == "applied"]
    assert sorted(applied) == watch.generations
