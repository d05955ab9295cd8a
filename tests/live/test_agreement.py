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
}


def identity(model: TemplateModel, res: Resource) -> str:
    """A name for a resource that means the same in the template and in the account."""
    p = res.properties
    if res.type == "AWS::Route53::RecordSet":
        return f"record {normalize_name(p['Name'])}/{p['Type']}/{p.get('SetIdentifier', '')}"
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


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_audit_agrees_with_check(setup: str, moto_session: Any) -> None:
    built = SETUPS[setup](moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    live = audit(moto_session)
    by_live_id = {live_id: lid for lid, (_, live_id) in live.account.ids.items()}
    live_found = {
        (f.rule, f.severity.value, identity(live.model, live.model.resource("Live", by_live_id[f.resource]))) for f in live.findings
    }
    template = TemplateModel.from_templates({"Plan": accounts.equivalent_template(built)})
    template_found = {(f.rule, f.severity.value, identity(template, template.resource(f.stack, f.resource))) for f in run_rules(template)}
    assert live_found == template_found
    if setup != "fixed plan":
        assert live_found, "each broken setup must find something"
