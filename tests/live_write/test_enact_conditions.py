"""enact's behaviours that surviving mutants of live/enact.py showed untested (benchmarks/mutate.py):
what the text lists for each change, what a caught StalePlan carries, and more, each asserted
as a user of the CLI or of the Python API sees it, on the strict Route 53."""

from __future__ import annotations

import pytest

from edge_origin.live.enact import EnactOptions, StalePlan, enact
from tests.live_write.conftest import INCIDENT_IPS, NAME, incident_setup, make_plan

FULL = EnactOptions(max_change_share=1.0, allow_full_change=True, wait_s=0)


def test_the_text_lists_each_change_with_its_value_or_alias_target(r53, zone_id):
    """The migration's text: the weighted aliases' DELETE lines name the NLB, the CREATE lines the IP."""
    incident_setup(r53, zone_id)
    text = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL).text()
    lines = text.splitlines()
    assert f"  DELETE {NAME}. A [nlb-1] nlb-1-abcdef.elb.us-east-1.amazonaws.com." in lines
    assert f"  DELETE {NAME}. A [nlb-2] nlb-2-ghijkl.elb.us-east-1.amazonaws.com." in lines
    assert f"  CREATE {NAME}. A [nlb-203-0-113-10] 203.0.113.10" in lines
    assert f"  CREATE {NAME}. A [nlb-203-0-113-11] 203.0.113.11" in lines


def test_a_caught_stale_plan_carries_the_live_generation(r53, zone_id):
    """README: ``except StalePlan as exc`` -- the live generation is there to plan above it."""
    enact(r53, make_plan(zone_id, 7, INCIDENT_IPS[:3]), FULL)
    with pytest.raises(StalePlan) as exc:
        enact(r53, make_plan(zone_id, 3, INCIDENT_IPS[:3]), FULL)
    assert exc.value.live_generation == 7
    assert str(exc.value) == "stale plan: live generation is 7"


def test_the_text_counts_the_health_checks_to_create_or_created(r53, zone_id):
    """A dry run says how many it would create, an apply how many it created, a reuse says nothing."""
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:2])
    dry = enact(r53, plan, EnactOptions(dry_run=True, max_change_share=1.0)).text().splitlines()
    assert "  health checks to create: 2" in dry and not any("health checks created" in line for line in dry)
    applied = enact(r53, plan, FULL).text().splitlines()
    assert "  health checks created: 2" in applied and not any("to create" in line for line in applied)
    reused = enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:2]), FULL).text()
    assert "health checks" not in reused
