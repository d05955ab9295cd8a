"""Issue 38 (mutation testing of live/enact.py): what a dry run says of Route 53's own guards on the zone
(each tier and guardrail set, whole), the IAM policy for a zone id given either way, and
``is_healthy`` as Route 53 counts a check (StrictRoute53)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_origin.live.enact import EnactOptions, enact, iam_policy, is_healthy
from tests.live_write.conftest import make_plan, strict_zone, tcp_check

DRY = EnactOptions(dry_run=True, allow_full_change=True, max_change_share=1.0)
IPS = ["203.0.113.10", "203.0.113.11"]
HISTORY_ON = "on (a lost answer is read from it)"


class WithoutFeatures:
    """GetHostedZone without ``Features`` (moto 5.2.5, or an endpoint that does not report them)."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def get_hosted_zone(self, **params):
        answer = self.inner.get_hosted_zone(**params)
        answer["HostedZone"].pop("Features", None)
        return answer


@pytest.mark.parametrize(("tier", "guardrails", "said"), [
    ("STANDARD", [], "guardrails none on; change history off"),
    ("ADVANCED", [], f"guardrails none on; change history {HISTORY_ON}"),
    ("ADVANCED", ["ACTIVE_RECORD_CHECK"], f"guardrails ACTIVE_RECORD_CHECK; change history {HISTORY_ON}"),
    ("ADVANCED", ["ALIAS_TARGET_CHECK", "ACTIVE_RECORD_CHECK"],
     f"guardrails ACTIVE_RECORD_CHECK, ALIAS_TARGET_CHECK; change history {HISTORY_ON}"),
    (None, [], None),  # Features not reported: nothing said (never "none on")
])
def test_a_dry_run_says_which_of_route53s_guards_the_batch_meets(tier, guardrails, said):
    r53, zone_id = strict_zone()
    if tier == "ADVANCED":
        r53.update_hosted_zone_tier(HostedZoneId=zone_id, HostedZoneTier="ADVANCED")
    if guardrails:
        r53.update_hosted_zone_features(HostedZoneId=zone_id, ChangeGuardrails=[{"Name": g, "Status": "ENABLED"} for g in guardrails])
    client = WithoutFeatures(r53) if tier is None else r53
    result = enact(client, make_plan(zone_id, 1, IPS), DRY)
    assert result.status == "dry-run"
    guards = [n for n in result.notes if n.startswith("Route 53 guards")]
    if said is None:
        assert guards == [] and "Route 53 guards" not in result.text()
        return
    assert guards == [f"Route 53 guards on the zone: {said}"]
    assert f"  note: Route 53 guards on the zone: {said}\n" in result.text()


def test_a_guardrail_turned_off_again_is_not_named():
    r53, zone_id = strict_zone()
    r53.update_hosted_zone_tier(HostedZoneId=zone_id, HostedZoneTier="ADVANCED")
    r53.update_hosted_zone_features(HostedZoneId=zone_id, ChangeGuardrails=[{"Name": "ACTIVE_RECORD_CHECK", "Status": "ENABLED"}])
    r53.update_hosted_zone_features(HostedZoneId=zone_id, ChangeGuardrails=[{"Name": "ACTIVE_RECORD_CHECK", "Status": "DISABLED"}])
    notes = enact(r53, make_plan(zone_id, 1, IPS), DRY).notes
    assert f"Route 53 guards on the zone: guardrails none on; change history {HISTORY_ON}" in notes


@pytest.mark.parametrize("zone_id", ["Z1234567890ABC", "/hostedzone/Z1234567890ABC"])
@pytest.mark.parametrize("name", ["origin.example.com", "Origin.Example.com.", "ORIGIN.EXAMPLE.COM."])
def test_the_iam_policy_is_the_shipped_one_however_the_zone_id_and_name_are_spelled(zone_id, name):
    doc = json.loads((Path(__file__).resolve().parents[2] / "docs" / "iam" / "enact-policy.json").read_text())
    assert iam_policy(zone_id, name) == doc
    assert {s["Resource"] for s in doc["Statement"][:3]} == {"arn:aws:route53:::hostedzone/Z1234567890ABC"}


@pytest.mark.parametrize(("health", "healthy"), [(True, True), (0.25, True), (0.125, False), (False, False)])
def test_is_healthy_is_route53s_count_of_the_checkers(health, healthy):
    r53, _ = strict_zone()
    hc = tcp_check(r53, "203.0.113.10")
    r53.set_health(hc, health)
    assert is_healthy(r53, hc) is healthy
    assert is_healthy(r53, "00000000-0000-0000-0000-000000000000") is False  # no such check


def test_is_healthy_counts_a_check_no_checker_reported_on_yet_as_healthy():
    class NoReports:
        def get_health_check_status(self, **_):
            return {"HealthCheckObservations": []}

    assert is_healthy(NoReports(), "any") is True
