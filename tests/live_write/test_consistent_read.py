"""A writer's view of the name is one state: a batch that lands between listing the A records and
reading the generation record must not give a view of old records with the new generation (its
batch would then only swap the generation record, pass Route 53's exact-match check, and leave
the higher plan's generation over another plan's records)."""

from __future__ import annotations

from typing import Any

from edge_origin.live.enact import EnactOptions, enact
from edge_origin.live.name_state import read_name
from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import NAME, make_plan

OPTIONS = EnactOptions(max_change_share=1.0, wait_s=0)
A, B, C = "203.0.113.10", "203.0.113.11", "203.0.113.12"


class BatchBetweenReads:
    """A client that lets another plan land right after the first A-record listing it serves."""

    def __init__(self, r53: StrictRoute53, interloper: Any) -> None:
        self._r53, self._interloper, self._armed = r53, interloper, True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._r53, name)

    def list_resource_record_sets(self, **kwargs: Any) -> dict[str, Any]:
        page = self._r53.list_resource_record_sets(**kwargs)
        if self._armed and kwargs.get("StartRecordType") == "A":
            self._armed = False
            enact(self._r53, self._interloper, OPTIONS)
        return page


def test_a_batch_between_the_reads_is_seen_and_the_final_state_is_the_highest_plans() -> None:
    r53 = StrictRoute53()
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    enact(r53, make_plan(zone_id, 1, [A, B]), OPTIONS)
    # generation 2 adds C while generation 3 (same records as generation 1) is being read
    client = BatchBetweenReads(r53, make_plan(zone_id, 2, [A, B, C]))
    result = enact(client, make_plan(zone_id, 3, [A, B]), OPTIONS)
    assert result.status == "applied"
    live = read_name(r53, zone_id, NAME)
    assert live.live_generation == 3
    assert sorted(r["ResourceRecords"][0]["Value"] for r in live.records) == [A, B]  # plan 3's, not 2's


def test_read_name_rereads_when_the_generation_moved() -> None:
    r53 = StrictRoute53()
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    enact(r53, make_plan(zone_id, 1, [A]), OPTIONS)
    live = read_name(BatchBetweenReads(r53, make_plan(zone_id, 2, [A, B])), zone_id, NAME)
    assert live.live_generation == 2
    assert sorted(r["ResourceRecords"][0]["Value"] for r in live.records) == [A, B]
