"""Random change batches on the strict Route 53: all or nothing, one policy per name and type."""

from __future__ import annotations

import botocore.exceptions
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import a_record, change

SIDS = ["s1", "s2", "s3"]
IPS = ["203.0.113.1", "203.0.113.2"]


@st.composite
def record_sets(draw):
    kind = draw(st.sampled_from(["multivalue", "weighted", "simple"]))
    ip = draw(st.sampled_from(IPS))
    ttl = draw(st.sampled_from([60, 300]))
    if kind == "simple":
        return a_record(None, ip, ttl=ttl)
    sid = draw(st.sampled_from(SIDS))
    return a_record(sid, ip, ttl=ttl, multivalue=kind == "multivalue", weight=1 if kind == "weighted" else None)


changes = st.builds(change, st.sampled_from(["CREATE", "DELETE", "UPSERT"]), record_sets())


def _policy(record: dict) -> str:
    return "weighted" if "Weight" in record else "multivalue" if record.get("MultiValueAnswer") else "simple"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(changes, min_size=1, max_size=4), min_size=1, max_size=6))
def test_batches_apply_whole_or_not_at_all(batches):
    r53 = StrictRoute53()
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"]
    for batch in batches:
        before = r53.records(zone_id)
        try:
            r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": batch})
        except botocore.exceptions.ClientError as exc:
            assert exc.response["Error"]["Code"] in ("InvalidChangeBatch", "InvalidInput")
            assert r53.records(zone_id) == before, "a refused batch changed the zone"
            continue
        after = [r for r in r53.records(zone_id) if r["Name"] == "origin.example.com."]
        policies = {_policy(r) for r in after}
        assert len(policies) <= 1 and not ("simple" in policies and len(after) > 1), after
        # The batch's last word on each set is what is live.
        last: dict = {}
        for c in batch:
            key = c["ResourceRecordSet"].get("SetIdentifier")
            last[key] = c
        live = {r.get("SetIdentifier"): r for r in after}
        for key, c in last.items():
            if c["Action"] == "DELETE":
                assert key not in live
            else:
                assert live[key]["ResourceRecords"] == c["ResourceRecordSet"]["ResourceRecords"]
                assert live[key]["TTL"] == c["ResourceRecordSet"]["TTL"]
    assert r53.batches_applied + r53.batches_refused == len(batches)
