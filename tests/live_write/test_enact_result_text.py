"""Issue 38 (mutation testing of live/enact.py): what ``edge-origin enact`` prints, whole: the text of a
dry run (a simple two-value record set deleted, multivalue sets created, the generation record), the
JSON keys of ``--format json``, a record set holding neither values nor an alias target, the
``plan show`` line, and the re-read's verdict on a record set rewritten with the same content."""

from __future__ import annotations

import dataclasses

import pytest

from edge_origin.live.enact import (
    EnactOptions,
    EnactResult,
    OutcomeUnknown,
    TransientFailure,
    enact,
    show_command,
)
from edge_origin.live.name_state import generation_name
from edge_origin.testing.faults import Faults
from tests.live_write.conftest import NAME, a_record, change, make_plan, strict_zone

FULL = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0)
DRY = EnactOptions(dry_run=True, allow_full_change=True, max_change_share=1.0)
IPS = ["203.0.113.10", "203.0.113.11"]


def test_the_text_of_a_dry_run_is_the_whole_batch(zone_id, r53):
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [change("CREATE", {
        "Name": NAME, "Type": "A", "TTL": 300, "ResourceRecords": [{"Value": "198.51.100.1"}, {"Value": "198.51.100.2"}]})]})
    plan = make_plan(zone_id, 1, IPS)
    result = enact(r53, plan, DRY)
    gen = result.change_batch["Changes"][0]["ResourceRecordSet"]
    assert gen["Name"] == generation_name(NAME) and gen["Type"] == "TXT"
    assert result.text() == (
        f"{NAME}. generation 1: dry run (nothing changed) (live generation was 0)\n"
        f"  records: 2 added, 0 changed, 1 removed, 0 kept (100% changed); 4 changes in one batch\n"
        f"  CREATE {generation_name(NAME)} TXT {gen['ResourceRecords'][0]['Value']}\n"
        f"  DELETE {NAME}. A 198.51.100.1, 198.51.100.2\n"
        f"  CREATE {NAME}. A [nlb-203-0-113-10] 203.0.113.10\n"
        f"  CREATE {NAME}. A [nlb-203-0-113-11] 203.0.113.11\n"
        "  health checks to create: 2\n"
        + "".join(f"  note: {n}\n" for n in result.notes)
    )
    assert result.notes[-1] == "HealthCheckId values in <...> are placeholders for the health checks in health_checks_to_create"


def test_the_json_of_a_result_holds_every_field(zone_id, r53):
    result = enact(r53, make_plan(zone_id, 1, IPS), FULL)
    out = result.to_json()
    assert list(out) == ["change_batch", "health_checks_to_create", "status", "name", "hosted_zone_id", "generation",
                         "live_generation", "change_share", "added", "modified", "removed", "kept", "health_checks_created",
                         "change_id", "insync", "attempts", "read_back", "health_checks_deleted", "notes"]
    assert {k: out[k] for k in ("status", "name", "hosted_zone_id", "generation", "live_generation", "change_share", "added",
                                "modified", "removed", "kept", "insync", "attempts", "read_back", "health_checks_deleted", "notes")} == {
        "status": "applied", "name": f"{NAME}.", "hosted_zone_id": zone_id, "generation": 1, "live_generation": 0,
        "change_share": 1.0, "added": ["nlb-203-0-113-10", "nlb-203-0-113-11"], "modified": [], "removed": [], "kept": [],
        "insync": False, "attempts": 1, "read_back": "matches", "health_checks_deleted": [], "notes": result.notes}
    assert out["change_id"] == result.change_id and out["change_id"].startswith("/change/")
    assert sorted(out["health_checks_created"]) == ["nlb-203-0-113-10", "nlb-203-0-113-11"]


def test_a_record_set_with_neither_values_nor_an_alias_target_is_shown_bare():
    """A record set Route 53 made for a traffic policy instance has no ResourceRecords and no AliasTarget."""
    bare = {"Name": f"{NAME}.", "Type": "A", "SetIdentifier": "tp", "TrafficPolicyInstanceId": "tp-1"}
    result = EnactResult("dry-run", f"{NAME}.", "Z1", 2, 1, {"Changes": [change("DELETE", bare)]}, [])
    assert result.text().splitlines()[-1] == f"  DELETE {NAME}. A [tp] "


@pytest.mark.parametrize(("name", "shown"), [
    ("origin.example.com.", "origin.example.com"), ("origin.example.com", "origin.example.com"),
    ("ORIGIN.EXAMPLE.BOX.", "ORIGIN.EXAMPLE.BOX"),
])
def test_the_plan_show_line_names_the_plan_without_its_trailing_dot(name, shown):
    plan = dataclasses.replace(make_plan("Z1234567890ABC", 1, IPS), name=name)
    assert show_command(plan) == f"edge-origin plan show --name {shown} --zone-id Z1234567890ABC"


@pytest.mark.parametrize("rewritten", [False, True])
def test_a_record_set_rewritten_with_the_same_content_is_the_state_read_before(rewritten):
    """The batch fails with a 5xx and another writer deleted and created one record set again, the same
    content in another field order: the re-read is the state read before (safe to run again, exit 3)."""
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS), FULL)
    plan = make_plan(zone_id, 2, IPS[:1] + ["203.0.113.12"])

    def meanwhile(_prepared):
        if rewritten:
            live = next(r for r in r53.records(zone_id) if r.get("SetIdentifier") == "nlb-203-0-113-11")
            r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
                change("DELETE", live), change("CREATE", dict(reversed(list(live.items()))))]})

    client = Faults().server_error("ChangeResourceRecordSets", times=3).attach(r53)
    with pytest.raises(TransientFailure) as exc:
        enact(client, plan, FULL, after_read=meanwhile)
    assert str(exc.value) == ("change_resource_record_sets: InternalFailure: We encountered an internal error. Please try again.; "
                              "re-read: the name holds the state read before, nothing changed: safe to run the same plan again")
    assert not isinstance(exc.value, OutcomeUnknown)


def test_a_simple_record_deleted_with_its_values_is_named_by_them():
    r53, zone_id = strict_zone()
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", a_record(None, "198.51.100.9"))]})
    lines = enact(r53, make_plan(zone_id, 1, IPS), DRY).text().splitlines()
    assert f"  DELETE {NAME}. A 198.51.100.9" in lines
