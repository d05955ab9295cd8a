"""audit over accounts built through the APIs on moto (in-process), and the reader's handling of
fields moto drops, through botocore Stubber responses shaped as the API reference documents them."""

from __future__ import annotations

import json
from typing import Any

import accounts
import botocore.session
import pytest
from botocore.stub import Stubber
from helpers import Clients

from edge_origin.core.findings import Severity
from edge_origin.live.account import VPC_ORIGINS_SERVICE, read_account
from edge_origin.live.audit import audit, rule_needs
from edge_origin.live.session import LiveError
from edge_origin.review.checker import format_findings
from edge_origin.rules import RULES


def rules_at(result: Any) -> set[tuple[str, str]]:
    return {(f.rule, f.resource) for f in result.findings}


def test_incident_weighted_alias_records_for_a_grpc_origin(moto_session: Any) -> None:
    built = accounts.incident(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    result = audit(moto_session)
    zone = built.zone_id
    assert rules_at(result) == {
        ("EO-DNS1", f"hostedzone/{zone}/api.example.com/A/w-nlb-blue"),
        ("EO-DNS1", f"hostedzone/{zone}/api.example.com/A/w-nlb-green"),
    }
    assert all(f.severity is Severity.ERROR and f.stack == "route53" for f in result.findings)
    assert all(f.template == "aws:us-east-1" for f in result.findings)
    # the message names the record and its zone as the account does, not by the reader's logical ids
    assert all(f"in public zone example.com ({zone})" in f.message for f in result.findings)
    assert not any(lid in f.message + f.fix for f in result.findings for lid in result.account.ids)


def test_incident_without_grpc_config_is_a_long_lived_origin_unless_marked(moto_session: Any) -> None:
    accounts.incident(moto_session)  # moto drops GrpcConfig: the distribution shows no gRPC behavior
    plain = audit(moto_session)
    assert {f.severity for f in plain.findings} == {Severity.WARNING}
    marked = audit(moto_session, grpc_origins=["API.example.com."])
    assert {(f.rule, f.severity) for f in marked.findings} == {("EO-DNS1", Severity.ERROR)}


def test_fixed_multivalue_plan_is_clean(moto_session: Any) -> None:
    built = accounts.multivalue(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    result = audit(moto_session)
    assert result.findings == []
    model = result.model
    assert len(model.record_sets("api.example.com")) == 4
    assert all(r.health_check is not None for r in model.record_sets("api.example.com"))
    assert {lb.resource.properties["Name"] for lb in model.load_balancers} == {"nlb-1", "nlb-2"}
    assert sorted(z for lb in model.load_balancers for z in lb.zones) == sorted(accounts.ZONES * 2)
    assert all(len(eip.load_balancers) == 1 for eip in model.eips)


def test_multivalue_without_health_checks(moto_session: Any) -> None:
    built = accounts.multivalue(moto_session, health_checks=False)
    accounts.fill_moto_gaps(moto_session, built)
    result = audit(moto_session)
    assert {f.rule for f in result.findings} == {"EO-DNS2"}
    allocs = {e["alloc"] for lb in built.nlbs for e in lb.eips}
    assert {f.resource for f in result.findings} == {f"hostedzone/{built.zone_id}/api.example.com/A/{a}" for a in allocs}


def test_listener_left_at_the_350_s_default(moto_session: Any) -> None:
    built = accounts.multivalue(moto_session, idle=None)
    accounts.fill_moto_gaps(moto_session, built)
    result = audit(moto_session)
    assert rules_at(result) == {("EO-NLB1", lb.listener_arn) for lb in built.nlbs}
    assert all("350 s default" in f.message for f in result.findings)


def test_a_listener_at_600_s_reads_as_explicit(moto_session: Any) -> None:
    built = accounts.multivalue(moto_session, idle=600)
    accounts.fill_moto_gaps(moto_session, built)
    model = audit(moto_session).model
    assert {li.idle_timeout for li in model.listeners} == {600}


def test_several_zones_and_more_than_one_page_of_records(moto_session: Any) -> None:
    built = accounts.Built()
    zone_ids = [accounts.zone(moto_session, built, f"z{i}.example.org") for i in range(3)]
    many = [
        {"Name": f"host{n}.z0.example.org", "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": f"192.0.2.{n % 250}"}]}
        for n in range(750)
    ]
    accounts.change(moto_session, zone_ids[0], many)
    for zid, i in zip(zone_ids[1:], (1, 2), strict=True):
        accounts.change(moto_session, zid, [
            {"Name": f"www.z{i}.example.org", "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.1"}]}
        ])
    calls: list[str] = []
    client = moto_session.client("route53")
    client.meta.events.register("before-call.route53.ListResourceRecordSets", lambda **kw: calls.append("x"))
    account = read_account(moto_session)
    names = {r["Properties"]["Name"] for r in account.resources("AWS::Route53::RecordSet").values()}
    assert {f"host{n}.z0.example.org." for n in range(750)} <= names
    assert {"www.z1.example.org.", "www.z2.example.org."} <= names
    assert len(calls) >= 3 + 2  # zone 0 takes 3 pages of 300, the others one each
    limited = read_account(moto_session, names=["host7.z0.example.org"])
    assert [r["Properties"]["Name"] for r in limited.resources("AWS::Route53::RecordSet").values()] == ["host7.z0.example.org."]


def test_a_name_with_no_records_is_bad_input(moto_session: Any) -> None:
    built = accounts.Built()
    accounts.zone(moto_session, built)
    with pytest.raises(LiveError, match="--name nothing.example.com: no record sets"):
        audit(moto_session, names=["nothing.example.com"])


def test_unhealthy_target_termination_not_returned_is_judged_as_aws_default(moto_session: Any) -> None:
    """Issue 52: moto's DescribeTargetGroupAttributes omits an attribute never set (AWS returns every one): left
    unset it is AWS's default, true, and EO-NLB3 says it was not returned; the fixed plan (false) stays quiet."""
    built = accounts.multivalue(moto_session, nlbs=1, unhealthy_termination=None)
    accounts.fill_moto_gaps(moto_session, built)
    found = [f for f in audit(moto_session).findings if f.rule == "EO-NLB3"]
    assert [f.resource for f in found] == [built.nlbs[0].tg_arn]
    assert "is not returned by DescribeTargetGroupAttributes" in found[0].message
    assert "AWS's default: true" in found[0].message and found[0].severity is Severity.WARNING


def test_registered_targets_are_counted_against_the_nlb_quota(moto_session: Any) -> None:
    """Issue 52: audit reads DescribeTargetHealth into the target group's Targets; EO-NLB6 counts them: 500 on a
    cross-zone NLB is the quota (quiet), 501 is over it (a warning)."""
    built = accounts.multivalue(moto_session, nlbs=1)
    accounts.fill_moto_gaps(moto_session, built)
    elbv2 = moto_session.client("elbv2")
    tg = built.nlbs[0].tg_arn
    elbv2.register_targets(TargetGroupArn=tg, Targets=[{"Id": f"10.0.{i // 250}.{i % 250 + 1}", "Port": 8443} for i in range(500)])
    assert [f for f in audit(moto_session).findings if f.rule == "EO-NLB6"] == []
    elbv2.register_targets(TargetGroupArn=tg, Targets=[{"Id": "10.0.3.1", "Port": 8443}])
    [found] = [f for f in audit(moto_session).findings if f.rule == "EO-NLB6"]
    assert found.severity is Severity.WARNING and "501 targets" in found.message and "at most 500" in found.message


def test_clean_empty_account(moto_session: Any) -> None:
    result = audit(moto_session)
    assert result.findings == []
    # moto has no CloudFront VPC origins: "not read", never "none" (live/optional.py), and nothing else
    assert list(result.account.unavailable) == [VPC_ORIGINS_SERVICE]
    assert result.account.unavailable[VPC_ORIGINS_SERVICE].startswith("not read: ListVpcOrigins (the endpoint does not")


def _denied(session: Any, service: str, operation: str, code: str = "AccessDenied") -> Any:
    client = session.client(service)

    def deny(**_: Any) -> None:
        from botocore.exceptions import ClientError

        raise ClientError({"Error": {"Code": code, "Message": "no"}}, operation)

    client.meta.events.register(f"before-call.{client.meta.service_model.service_id.hyphenize()}.{operation}", deny)
    return client


def test_access_denied_on_route53_reports_not_checked(moto_session: Any) -> None:
    built = accounts.incident(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    _denied(moto_session, "route53", "ListHostedZones")
    result = audit(moto_session)
    unchecked = {f.rule for f in result.not_checked}
    assert {"EO-DNS1", "EO-DNS2", "EO-DNS3", "EO-DNS4", "EO-DNS5", "EO-NLB1", "EO-NLB2", "EO-SG1", "EO-CF2"} <= unchecked
    assert "EO-NLB3" not in unchecked and "EO-CF1" not in unchecked
    assert all("route53 ListResourceRecordSets denied: AccessDenied" in f.message for f in result.not_checked)
    text = format_findings(result.findings, "text")
    assert f"{len(unchecked)} rule(s) could not be checked" in text
    assert "not-checked" in text
    assert "not-checked" in format_findings(result.findings, "markdown")
    sarif = json.loads(format_findings(result.findings, "sarif"))
    kinds = {(r["ruleId"], r.get("kind"), r["level"]) for r in sarif["runs"][0]["results"]}
    assert ("EO-DNS1", "open", "none") in kinds
    data = json.loads(format_findings(result.findings, "json"))
    assert {f["severity"] for f in data["findings"]} == {"not-checked"}


def test_throttled_elbv2_is_not_clean_even_at_fail_on_error(moto_session: Any) -> None:
    accounts.multivalue(moto_session)
    _denied(moto_session, "elbv2", "DescribeListenerAttributes", code="Throttling")
    result = audit(moto_session)
    assert "EO-NLB3" in {f.rule for f in result.not_checked}
    assert all("throttled: Throttling" in f.message for f in result.not_checked)
    from edge_origin.rules import at_or_above

    assert at_or_above(result.findings, Severity.ERROR)


def test_credentials_refused_is_a_live_error(moto_session: Any) -> None:
    _denied(moto_session, "ec2", "DescribeAddresses", code="InvalidClientTokenId")
    with pytest.raises(LiveError, match="credentials were refused"):
        audit(moto_session)


# --- Stubber: the fields moto drops ----------------------------------------------------------
LB_ARN = "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/net/edge-a/50dc6c495c0c9188"
LISTENER_ARN = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/net/edge-a/50dc6c495c0c9188/f2f7dc8efc522ab2"
TG_ARN = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/edge-a/73e2d6bc24d8a067"


def _stubbed(service: str) -> tuple[Any, Stubber]:
    client = botocore.session.get_session().create_client(
        service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    return client, Stubber(client)


def test_stubbed_load_balancer_addresses_attach_eips_and_grpc_config_marks_the_origin(moto_session: Any) -> None:
    """AWS returns ``AvailabilityZones[].LoadBalancerAddresses[].AllocationId`` and
    ``DefaultCacheBehavior.GrpcConfig``; moto drops both, so these responses are stubbed as the
    API reference shapes them (ec2 and route53 come from moto)."""
    ec2 = moto_session.client("ec2")
    addrs = [ec2.allocate_address(Domain="vpc") for _ in range(2)]
    built = accounts.Built()
    zid = accounts.zone(moto_session, built)
    accounts.change(moto_session, zid, [
        {"Name": accounts.ORIGIN, "Type": "A", "SetIdentifier": a["AllocationId"], "MultiValueAnswer": True, "TTL": 60,
         "ResourceRecords": [{"Value": a["PublicIp"]}], "HealthCheckId": accounts.health_check(moto_session, built, a["PublicIp"])}
        for a in addrs
    ])
    elbv2, elb_stub = _stubbed("elbv2")
    zones = [
        {"ZoneName": z, "SubnetId": f"subnet-{i}", "LoadBalancerAddresses": [{"IpAddress": a["PublicIp"], "AllocationId": a["AllocationId"]}]}
        for i, (z, a) in enumerate(zip(accounts.ZONES, addrs, strict=True))
    ]
    elb_stub.add_response("describe_load_balancers", {"LoadBalancers": [{
        "LoadBalancerArn": LB_ARN, "DNSName": "edge-a-50dc6c495c0c9188.elb.us-east-1.amazonaws.com",
        "LoadBalancerName": "edge-a", "Scheme": "internet-facing", "Type": "network", "AvailabilityZones": zones,
    }]})
    elb_stub.add_response("describe_load_balancer_attributes", {"Attributes": [{"Key": "load_balancing.cross_zone.enabled", "Value": "true"}]}, {"LoadBalancerArn": LB_ARN})
    elb_stub.add_response("describe_listeners", {"Listeners": [{
        "ListenerArn": LISTENER_ARN, "LoadBalancerArn": LB_ARN, "Port": 443, "Protocol": "TCP",
        "DefaultActions": [{"Type": "forward", "TargetGroupArn": TG_ARN}],
    }]}, {"LoadBalancerArn": LB_ARN})
    elb_stub.add_response("describe_listener_attributes", {"Attributes": [{"Key": "tcp.idle_timeout.seconds", "Value": "340"}]}, {"ListenerArn": LISTENER_ARN})
    elb_stub.add_response("describe_target_groups", {"TargetGroups": [{
        "TargetGroupArn": TG_ARN, "TargetGroupName": "edge-a", "Protocol": "TCP", "Port": 8443, "TargetType": "ip",
    }]})
    elb_stub.add_response("describe_target_group_attributes", {"Attributes": [
        {"Key": "deregistration_delay.connection_termination.enabled", "Value": "true"},
        {"Key": "target_health_state.unhealthy.connection_termination.enabled", "Value": "false"}]}, {"TargetGroupArn": TG_ARN})
    elb_stub.add_response("describe_target_health", {"TargetHealthDescriptions": [
        {"Target": {"Id": "10.0.0.7", "Port": 8443, "AvailabilityZone": accounts.ZONES[0]}}]}, {"TargetGroupArn": TG_ARN})
    cloudfront, cf_stub = _stubbed("cloudfront")
    cf_stub.add_response("list_distributions", {"DistributionList": {
        "Marker": "", "MaxItems": 100, "IsTruncated": False, "Quantity": 1, "Items": [_distribution_summary()],
    }})
    with elb_stub, cf_stub:
        result = audit(Clients(moto_session, elbv2=elbv2, cloudfront=cloudfront))
        elb_stub.assert_no_pending_responses()
        cf_stub.assert_no_pending_responses()
    model = result.model
    assert model.grpc_origin_names() == {accounts.ORIGIN}
    assert [lb.zones for lb in model.load_balancers] == [sorted(accounts.ZONES)]
    assert {eip.load_balancers[0].resource.properties["Name"] for eip in model.eips} == {"edge-a"}
    assert result.findings == []


def _distribution_summary(grpc: bool = True, methods: int = 7) -> dict[str, Any]:
    all_methods = ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"][:methods]
    return {
        "Id": "E2QWRUHAPOMQZL", "ARN": "arn:aws:cloudfront::123456789012:distribution/E2QWRUHAPOMQZL",
        "Status": "Deployed", "LastModifiedTime": "2026-12-01T00:00:00Z", "DomainName": "d111111abcdef8.cloudfront.net",
        "Aliases": {"Quantity": 0}, "Comment": "", "PriceClass": "PriceClass_All", "Enabled": True,
        "ViewerCertificate": {}, "Restrictions": {"GeoRestriction": {"RestrictionType": "none", "Quantity": 0}},
        "WebACLId": "", "HttpVersion": "http2", "IsIPV6Enabled": True, "Staging": False,
        "Origins": {"Quantity": 1, "Items": [{
            "Id": "origin", "DomainName": accounts.ORIGIN,
            "CustomOriginConfig": {"HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "https-only",
                                   "OriginReadTimeout": 60, "OriginKeepaliveTimeout": 60},
        }]},
        "DefaultCacheBehavior": {
            "TargetOriginId": "origin", "ViewerProtocolPolicy": "https-only",
            "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad",
            "AllowedMethods": {"Quantity": len(all_methods), "Items": all_methods},
            "GrpcConfig": {"Enabled": grpc},
        },
        "CacheBehaviors": {"Quantity": 0},
        "CustomErrorResponses": {"Quantity": 0},
    }


def test_origin_header_values_never_enter_the_model(moto_session: Any) -> None:
    """A verification header's value is a secret: the reader keeps its name, never its value."""
    summary = _distribution_summary()
    summary["Origins"]["Items"][0]["CustomHeaders"] = {"Quantity": 1, "Items": [
        {"HeaderName": "x-origin-verify", "HeaderValue": "s3cr3t-value-0123456789"}]}
    cloudfront, stub = _stubbed("cloudfront")
    stub.add_response("list_distributions", {"DistributionList": {
        "Marker": "", "MaxItems": 100, "IsTruncated": False, "Quantity": 1, "Items": [summary]}})
    with stub:
        result = audit(Clients(moto_session, cloudfront=cloudfront))
    dumped = json.dumps(result.account.template, default=str) + format_findings(result.findings, "json")
    assert "s3cr3t-value" not in dumped and "x-origin-verify" in dumped
    origin = result.model.distributions[0].origins[0]
    assert origin.raw["OriginCustomHeaders"][0]["HeaderName"] == "x-origin-verify"
    assert not isinstance(origin.raw["OriginCustomHeaders"][0]["HeaderValue"], str)  # unresolved: not read


def test_stubbed_grpc_behavior_without_post_is_eo_cf1(moto_session: Any) -> None:
    cloudfront, stub = _stubbed("cloudfront")
    stub.add_response("list_distributions", {"DistributionList": {
        "Marker": "", "MaxItems": 100, "IsTruncated": False, "Quantity": 1, "Items": [_distribution_summary(methods=2)],
    }})
    with stub:
        result = audit(Clients(moto_session, cloudfront=cloudfront))
    assert {(f.rule, f.resource) for f in result.findings} == {
        ("EO-CF1", "arn:aws:cloudfront::123456789012:distribution/E2QWRUHAPOMQZL"),
        # the origin's name has no hosted zone in the account: what it answers is not judged
        ("EO-NJ1", "arn:aws:cloudfront::123456789012:distribution/E2QWRUHAPOMQZL"),
    }


def test_health_status_read_for_used_checks_and_a_throttled_status_does_not_block_the_rules(moto_session: Any) -> None:
    built = accounts.multivalue(moto_session, nlbs=1)
    accounts.health_check(moto_session, built, "192.0.2.250")  # no record uses it
    accounts.fill_moto_gaps(moto_session, built)
    account = read_account(moto_session)
    statuses = [r["Metadata"]["edge-origin:live-health"] for r in account.resources("AWS::Route53::HealthCheck").values()]
    assert sorted(str(s["healthy"]) for s in statuses) == ["None", "True", "True"]
    _denied(moto_session, "route53", "GetHealthCheckStatus", code="Throttling")
    result = audit(moto_session)
    assert result.not_checked == [] and result.findings == []
    statuses = [r["Metadata"]["edge-origin:live-health"] for r in result.account.resources("AWS::Route53::HealthCheck").values()]
    assert {s.get("why") for s in statuses} >= {"route53 GetHealthCheckStatus throttled: Throttling"}


def test_cloudfront_denied_with_grpc_origin_names_still_runs_the_dns_rules(moto_session: Any) -> None:
    built = accounts.incident(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    _denied(moto_session, "cloudfront", "ListDistributions")
    result = audit(moto_session, grpc_origins=[accounts.ORIGIN])
    unchecked = {f.rule for f in result.not_checked}
    assert {"EO-CF1", "EO-CF2", "EO-KA2"} <= unchecked
    assert unchecked == {r.id for r in RULES if "cloudfront" in rule_needs(r, grpc_origins=True)}
    assert not unchecked & {"EO-DNS1", "EO-DNS2", "EO-DNS3", "EO-DNS4", "EO-DNS5", "EO-NLB1", "EO-NLB2", "EO-NLB3", "EO-SG1"}
    assert {(f.rule, f.severity) for f in result.findings if f.severity is not Severity.NOT_CHECKED} == {("EO-DNS1", Severity.ERROR)}
