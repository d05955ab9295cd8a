"""audit on an account and check on the equivalent template find the same rules on the same resources."""

from __future__ import annotations

from typing import Any

import accounts
import pytest

from edge_origin.live.audit import audit
from edge_origin.model import TemplateModel, normalize_name
from edge_origin.model.views import Resource
from edge_origin.rules import run_rules

SETUPS: dict[str, Any] = {
    "incident": accounts.incident,
    "fixed plan": accounts.multivalue,
    "no health checks": lambda s: accounts.multivalue(s, health_checks=False),
    "listener at 350 s": lambda s: accounts.multivalue(s, idle=None),
    "one NLB, one zone, long TTL": lambda s: accounts.multivalue(s, nlbs=1, zones=1, ttl=3600),
    "keepalive vs idle, termination and cross-zone off, checkers blocked": lambda s: accounts.multivalue(
        s, idle=120, keepalive=180, termination=False, cross_zone=False, sg_cidr="10.0.0.0/8"),
    "public and private zone of one name, reused set ids": accounts.public_and_private,
    "latency, one address a set": accounts.latency,
    "failover, one address a set": accounts.failover,
    "geolocation, one address a set": accounts.geolocation,
    "weighted CNAMEs to two NLBs": accounts.weighted_cnames,
    "CNAME to an NLB": accounts.cname_to_nlb,
    "alias to a weighted pool of the zone": accounts.alias_chain,
    "disabled, inverted, calculated, regional checks": accounts.health_rules,
}


def identity(model: TemplateModel, res: Resource) -> str:
    """A name for a resource that means the same in the template and in the account."""
    p = res.properties
    if res.type == "AWS::Route53::RecordSet":
        return f"record {zone_identity(model, p['HostedZoneId'])} {normalize_name(p['Name'])}/{p['Type']}/{p.get('SetIdentifier', '')}"
    if res.type == "AWS::Route53::HostedZone":
        return f"zone {zone_identity(model, res.ref)}"
    if res.type == "AWS::Route53::HealthCheck":
        cfg = p["HealthCheckConfig"]
        return f"health check {cfg.get('Type')} {sorted(k for k in cfg if k != 'IPAddress')}"
    if res.type == "AWS::ElasticLoadBalancingV2::LoadBalancer":
        return f"nlb {p['Name']}"
    if res.type == "AWS::ElasticLoadBalancingV2::Listener":
        lb = model.target(p["LoadBalancerArn"])
        return f"listener {lb.properties['Name'] if lb else '?'}:{p['Port']}"
    if res.type == "AWS::ElasticLoadBalancingV2::TargetGroup":
        return f"target group {p['Name']}"
    if res.type == "AWS::CloudFront::Distribution":
        return "distribution " + ",".join(o["DomainName"] for o in p["DistributionConfig"]["Origins"])
    return f"{res.type} ?"


def zone_identity(model: TemplateModel, ref: Any) -> str:
    """A zone by name and visibility (private: it has ``VPCs``), the same in template and account."""
    zone = model.target(ref)
    if zone is None:
        return f"? {ref!r}"
    return f"{normalize_name(zone.properties['Name'])} {'private' if zone.properties.get('VPCs') else 'public'}"


def judged(setup: str, session: Any) -> tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]]:
    """(what ``audit`` finds on the moto account, what the rules find on the equivalent template)."""
    built = SETUPS[setup](session)
    accounts.fill_moto_gaps(session, built)
    live = audit(session)
    by_live_id = {live_id: lid for lid, (_, live_id) in live.account.ids.items()}
    live_found = {
        (f.rule, f.severity.value, identity(live.model, live.model.resource("Live", by_live_id[f.resource]))) for f in live.findings
    }
    template = TemplateModel.from_templates({"Plan": accounts.equivalent_template(built)})
    template_found = {(f.rule, f.severity.value, identity(template, template.resource(f.stack, f.resource))) for f in run_rules(template)}
    return live_found, template_found


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_audit_agrees_with_check(setup: str, moto_session: Any) -> None:
    live_found, template_found = judged(setup, moto_session)
    assert live_found == template_found


#: What each broken setup must find (rule ids among the findings), from the classes issue 17 names.
EXPECTED = {
    "incident": {"EO-DNS1"},
    "no health checks": {"EO-DNS2"},
    "listener at 350 s": {"EO-NLB1"},
    "one NLB, one zone, long TTL": {"EO-DNS3", "EO-DNS4"},
    "keepalive vs idle, termination and cross-zone off, checkers blocked": {"EO-CF2", "EO-NLB3", "EO-SG1"},
    "public and private zone of one name, reused set ids": {"EO-DNS1"},
    "latency, one address a set": {"EO-DNS1"},
    "failover, one address a set": {"EO-DNS1"},
    "geolocation, one address a set": {"EO-DNS1"},
    "weighted CNAMEs to two NLBs": {"EO-DNS1"},
    "CNAME to an NLB": {"EO-CF2"},
    "alias to a weighted pool of the zone": {"EO-DNS1"},
    "disabled, inverted, calculated, regional checks": {"EO-DNS2"},
}


@pytest.mark.parametrize("setup", sorted(EXPECTED))
def test_each_broken_setup_finds_its_rules(setup: str, moto_session: Any) -> None:
    live_found, _ = judged(setup, moto_session)
    assert EXPECTED[setup] <= {rule for rule, _, _ in live_found}


def test_every_setup_but_the_fixed_plan_has_expectations() -> None:
    assert set(EXPECTED) == set(SETUPS) - {"fixed plan"}


def test_a_private_zone_is_not_the_distributions_origin(moto_session: Any) -> None:
    """CloudFront resolves on the public internet: the private zone's records (unmarked) are no origin of it."""
    live_found, _ = judged("public and private zone of one name, reused set ids", moto_session)
    assert {(rule, where.split(" ")[2]) for rule, _, where in live_found} == {("EO-DNS1", "public")}


def test_the_fixed_plan_finds_nothing(moto_session: Any) -> None:
    assert judged("fixed plan", moto_session) == (set(), set())


#: moto 5.2.5 accepts geoproximity and CIDR record sets and drops their routing field (and has no
#: CreateCidrCollection: 404), so these accounts are Route 53-shaped Stubber responses instead.
STUBBED_POLICIES = {
    "geoproximity": [{"GeoProximityLocation": {"AWSRegion": r}} for r in ("us-east-1", "eu-west-1", "ap-southeast-1")],
    "cidr": [{"CidrRoutingConfig": {"CollectionId": "c8c02a84-aaaa-4e4b-9d2e-8f0f2d4d9a11", "LocationName": loc}}
             for loc in ("office", "lab", "*")],
}


@pytest.mark.parametrize("policy", sorted(STUBBED_POLICIES))
def test_stubbed_policies_moto_drops_agree_with_check(policy: str, moto_session: Any) -> None:
    import botocore.session
    from botocore.stub import Stubber
    from helpers import Clients

    sets = [{"Name": f"{accounts.ORIGIN}.", "Type": "A", "SetIdentifier": f"s{i}", "TTL": 60,
             "ResourceRecords": [{"Value": f"192.0.2.{i + 1}"}], **extra} for i, extra in enumerate(STUBBED_POLICIES[policy])]
    route53 = botocore.session.get_session().create_client("route53", region_name="us-east-1", aws_access_key_id="x",
                                                           aws_secret_access_key="x")
    stub = Stubber(route53)
    stub.add_response("list_health_checks", {"HealthChecks": [], "Marker": "", "IsTruncated": False, "MaxItems": "100"})
    stub.add_response("list_hosted_zones", {"HostedZones": [{"Id": "/hostedzone/Z0PUBLIC0000001", "Name": "example.com.",
                                                             "CallerReference": "r", "Config": {"PrivateZone": False}}],
                                            "Marker": "", "IsTruncated": False, "MaxItems": "100"})
    stub.add_response("list_resource_record_sets", {"ResourceRecordSets": sets, "IsTruncated": False, "MaxItems": "300"})
    with stub:
        live = audit(Clients(moto_session, route53=route53), grpc_origins=[accounts.ORIGIN])
    by_live_id = {live_id: lid for lid, (_, live_id) in live.account.ids.items()}
    live_found = {(f.rule, f.severity.value, identity(live.model, live.model.resource("Live", by_live_id[f.resource]))) for f in live.findings}
    res: dict[str, Any] = {"Zone0": {"Type": "AWS::Route53::HostedZone", "Properties": {"Name": "example.com"}}}
    for i, record in enumerate(sets):
        props = {**{k: v for k, v in record.items() if k != "ResourceRecords"}, "HostedZoneId": {"Ref": "Zone0"},
                 "ResourceRecords": [r["Value"] for r in record["ResourceRecords"]]}
        res[f"Record{i}"] = {"Type": "AWS::Route53::RecordSet", "Metadata": {"edge-origin:grpc-origin": True}, "Properties": props}
    template = TemplateModel.from_templates({"Plan": {"Resources": res}})
    template_found = {(f.rule, f.severity.value, identity(template, template.resource(f.stack, f.resource))) for f in run_rules(template)}
    assert live_found == template_found
    assert "EO-DNS1" in {rule for rule, _, _ in live_found}  # one address a set: the pile-up
