"""`edge-origin plan show`: what is live for one name, line by line, as a user reads it (mutation testing, issue
38): the routing policy (per type when they differ), the generation or why there is none, every record with its
set identifier, type, policy, weight, values or alias target, TTL and health check."""

from __future__ import annotations

import re

from edge_origin.live.enact import EnactOptions, enact
from edge_origin.live.name_state import read_name
from edge_origin.live.plan_sources import show_text
from tests.live_write.conftest import NAME, a_record, change, incident_setup, make_plan, strict_zone


def _shown(r53, zone_id: str) -> str:
    text = show_text(read_name(r53, zone_id, NAME))
    text = text.replace(zone_id, "ZONE")
    return re.sub(r"health check [0-9a-f-]{36}", "health check HC", text)


def test_the_incidents_weighted_aliases_never_enacted():
    r53, zone_id = strict_zone()
    incident_setup(r53, zone_id)
    assert _shown(r53, zone_id) == (
        "origin.example.com. in example.com. (ZONE)\n"
        "  routing policy: weighted\n"
        "  generation: none (never enacted)\n"
        "  records: 2\n"
        "    [nlb-1] weighted weight 50: alias nlb-1-abcdef.elb.us-east-1.amazonaws.com.\n"
        "    [nlb-2] weighted weight 50: alias nlb-2-ghijkl.elb.us-east-1.amazonaws.com.\n")


def test_an_enacted_dual_stack_name():
    r53, zone_id = strict_zone()
    plan = make_plan(zone_id, 3, ["203.0.113.10", "2001:db8::1"], ttl=30)
    enact(r53, plan, EnactOptions(wait_s=0))
    assert _shown(r53, zone_id) == (
        "origin.example.com. in example.com. (ZONE)\n"
        "  routing policy: multivalue (A: multivalue, AAAA: multivalue)\n"
        f"  generation: 3 (digest {plan.digest()}; previous -)\n"
        "  records: 2\n"
        "    [nlb-203-0-113-10] multivalue: 203.0.113.10 ttl 30 health check HC\n"
        "    [nlb-2001:db8::1] AAAA multivalue: 2001:db8::1 ttl 30 health check HC\n")
    second = make_plan(zone_id, 4, ["203.0.113.10", "2001:db8::2"], ttl=30)
    enact(r53, second, EnactOptions(wait_s=0, allow_full_change=True))
    assert f"  generation: 4 (digest {second.digest()}; previous 3)\n" in _shown(r53, zone_id)


def test_a_generation_label_edge_origin_did_not_write():
    r53, zone_id = strict_zone()
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", {"Name": "_edge-origin-generation." + NAME, "Type": "TXT", "TTL": 60,
                          "ResourceRecords": [{"Value": '"hello"'}]}),
        change("CREATE", a_record(None, "203.0.113.9"))]})
    assert _shown(r53, zone_id) == (
        "origin.example.com. in example.com. (ZONE)\n"
        "  routing policy: simple\n"
        "  generation: a TXT record edge-origin did not write holds the label\n"
        "  records: 1\n"
        "    [-] simple: 203.0.113.9 ttl 60\n")
