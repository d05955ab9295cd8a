"""Random sequences of plans through enact (one writer): whatever is refused changes nothing,
whatever is applied is exactly the plan, the generation only goes up, the name is never empty."""

from __future__ import annotations

from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from edge_origin.live.enact import EnactOptions, Refusal, enact
from edge_origin.live.name_state import read_name
from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import INCIDENT_IPS, NAME, make_plan
from tests.live_write.test_race import Watch

POOL = INCIDENT_IPS + ["198.51.100.1", "198.51.100.2"]

steps = st.tuples(
    st.integers(0, 12),                                                # generation
    st.lists(st.sampled_from(POOL), max_size=5, unique=True),          # addresses (may be none)
    st.sampled_from([60, 300]),                                        # ttl
    st.floats(0.1, 1.0),                                               # --max-change-share
    st.booleans(),                                                     # --allow-full-change
    st.lists(st.sampled_from(POOL), max_size=3, unique=True),          # addresses made unhealthy first
)


@settings(max_examples=40, deadline=None)
@given(st.lists(steps, min_size=1, max_size=8))
@example([(0, [], 60, 1.0, False, []), (2, ["203.0.113.11"], 60, 1.0, False, []),
          (3, ["203.0.113.10"], 60, 1.0, False, ["203.0.113.10"])])  # .10's check deleted at step 2, a new one at 3
def test_random_plan_sequences_keep_the_invariants(sequence):
    r53 = StrictRoute53(insync_after_polls=0)
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    enact(r53, make_plan(zone_id, 1, POOL[:2]), EnactOptions(wait_s=0))
    watch = Watch()
    r53.add_observer(watch)
    for generation, ips, ttl, share, allow_full, unhealthy in sequence:
        by_ip = {}  # the checks that exist now (a clean-up deletes the checks of addresses a plan dropped)
        for hc in r53.list_health_checks()["HealthChecks"]:
            by_ip[hc["HealthCheckConfig"]["IPAddress"]] = hc["Id"]
            r53.set_health(hc["Id"], hc["HealthCheckConfig"]["IPAddress"] not in unhealthy)
        before = r53.records(zone_id)
        plan = make_plan(zone_id, max(generation, 1), sorted(ips), ttl=ttl)
        options = EnactOptions(max_change_share=share, allow_full_change=allow_full, wait_s=0)
        try:
            result = enact(r53, plan, options)
        except Refusal as exc:
            reason = str(exc)
            event("refused: " + next((k for k in ("stale", "healthy", "no records", "change") if k in reason), "other"))
            assert r53.records(zone_id) == before
            continue
        event(result.status)
        live = read_name(r53, zone_id, NAME)
        if result.status == "no-op":
            assert r53.records(zone_id) == before
            continue
        assert live.live_generation == plan.generation
        assert sorted(r["ResourceRecords"][0]["Value"] for r in live.records) == sorted(ips)
        assert {r["TTL"] for r in live.records} == {ttl}
        assert any(by_ip.get(ip) is None or ip not in unhealthy for ip in ips), "applied with no healthy record"
    assert watch.generations == sorted(set(watch.generations))
    assert not watch.address_counts or min(watch.address_counts) > 0
