"""Why the write side is tested on edge_origin.testing.route53 and not on moto (measured).

The same race on both: writer A reads generation 1, writer B applies generation 5, A sends its
batch for generation 3. Real Route 53 (and the strict layer) refuse A's exact DELETE of the
generation-1 record; moto 5.2.5 accepts a DELETE when ANY earlier CREATE/UPSERT in the zone's
change journal had the same name, type, TTL and values, then deletes whatever record of that
name and type is live now: it deletes the generation-5 record and applies A's batch, rolling the
generation back. If this test starts failing, moto got stricter: update FACTS.md.
"""

from __future__ import annotations

import pytest

from edge_origin.live.enact import EnactOptions, StalePlan, enact
from edge_origin.live.name_state import read_name
from edge_origin.live.session import LiveSession
from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import INCIDENT_IPS, NAME, make_plan

OPTIONS = EnactOptions(max_change_share=1.0, wait_s=0)


def _race(r53, zone_id: str) -> str:
    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:3]), OPTIONS)

    def overtaken(_prepared) -> None:
        enact(r53, make_plan(zone_id, 5, INCIDENT_IPS[2:5]), OPTIONS)

    try:
        return enact(r53, make_plan(zone_id, 3, INCIDENT_IPS[:6]), OPTIONS, after_read=overtaken).status
    except StalePlan as exc:
        return str(exc)


def test_the_strict_layer_refuses_the_stale_batch():
    r53 = StrictRoute53()
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    assert _race(r53, zone_id) == "stale plan: live generation is 5"
    assert read_name(r53, zone_id, NAME).live_generation == 5


@pytest.mark.slow  # in-process moto: ~2.5 s here
def test_moto_lets_the_stale_writer_roll_the_generation_back(monkeypatch):
    moto = pytest.importorskip("moto")
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "testing")
    with moto.mock_aws():
        r53 = LiveSession(region="us-east-1").client("route53")
        zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
        assert _race(r53, zone_id) == "applied"
        assert read_name(r53, zone_id, NAME).live_generation == 3  # real Route 53: refused, 5 stays
