"""`edge-origin plan from-template` as a user reads it (mutation testing, issue 38): the whole Plan from a
synthesized template whose records hold deployed EIPs (by public IP and by allocation id), literal addresses,
several values, health checks deployed, written as ids, or only in the template (TCP, HTTP, HTTPS); the TTL
the template gives; what the live name keeps; and each refusal as one whole line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import botocore.exceptions
import pytest
from botocore.stub import Stubber

from edge_origin.live.enact import Refusal
from edge_origin.live.plan_sources import plan_from_template
from edge_origin.live.plans import LiveHealthCheckSpec, LivePlanError, LivePlanRecord, Plan
from edge_origin.live.session import LiveSession
from tests.live_write.conftest import NAME, a_record, change, tcp_check

DEPLOYED_CHECK = "0a1b2c3d-0000-4000-8000-00000000000d"
PHYSICAL = {"EipA": "198.51.100.10", "EipB": "eipalloc-0b", "EipLoose": "198.51.100.12", "HcDeployed": DEPLOYED_CHECK,
            "Nlb": "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/net/nlb/1"}
PUBLIC = {"198.51.100.10": "198.51.100.10", "eipalloc-0b": "198.51.100.11", "198.51.100.12": "198.51.100.12"}


@pytest.fixture(autouse=True)
def fake_credentials(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")


def _check(kind: str, port: int, **config: Any) -> dict:
    return {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {"Type": kind, "Port": port, **config}}}


BASE: dict[str, Any] = {
    "SubA": {"Type": "AWS::EC2::Subnet", "Properties": {"AvailabilityZone": "us-east-1a", "CidrBlock": "10.0.0.0/24", "VpcId": "vpc-1"}},
    "SubB": {"Type": "AWS::EC2::Subnet", "Properties": {"AvailabilityZone": "us-east-1b", "CidrBlock": "10.0.1.0/24", "VpcId": "vpc-1"}},
    "EipA": {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}},
    "EipB": {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}},
    "EipLoose": {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}},  # attached to no NLB: its zone is not known
    "Nlb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {
        "Type": "network", "Scheme": "internet-facing", "SubnetMappings": [
            {"SubnetId": {"Ref": "SubA"}, "AllocationId": {"Fn::GetAtt": ["EipA", "AllocationId"]}},
            {"SubnetId": {"Ref": "SubB"}, "AllocationId": {"Fn::GetAtt": ["EipB", "AllocationId"]}}]}},
    "HcDeployed": _check("TCP", 443, RequestInterval=10, FailureThreshold=3),
    "HcHttp": _check("HTTP", 8080, ResourcePath="/healthz", RequestInterval=30, FailureThreshold=5),
    "HcTcpPath": _check("TCP", 8443, ResourcePath="/ignored"),  # no interval or threshold: Route 53's 30 s and 3
    "HcHttps": _check("HTTPS", 443, ResourcePath="/ready", RequestInterval=10, FailureThreshold=2),
}


def _rs(values: list[Any], sid: str | None = None, *, ttl: Any = 30, hc: Any = None, rtype: str = "A", name: str = NAME) -> dict:
    props: dict[str, Any] = {"HostedZoneId": "Z0123456789EXAMPLE", "Name": name + ".", "Type": rtype,
                             "ResourceRecords": values}
    if ttl is not None:
        props["TTL"] = ttl
    if sid is not None:
        props["SetIdentifier"], props["MultiValueAnswer"] = sid, True
    if hc is not None:
        props["HealthCheckId"] = hc
    return {"Type": "AWS::Route53::RecordSet", "Properties": props}


def _template(tmp_path: Path, records: dict[str, dict], stack: str = "Origins") -> Path:
    path = tmp_path / f"{stack}.template.json"
    document = {"Parameters": {"CheckParam": {"Type": "String"}}, "Resources": {**BASE, **records}}
    path.write_text(json.dumps(document))
    return path


def _clients(physical: dict[str, str] | None = None, addresses: list[str] = (), stack: str = "Origins"):
    """cloudformation and ec2 clients stubbed to answer one describe_stack_resources of ``stack`` (None: no call)
    and describe_addresses for each physical id in ``addresses``, in order."""
    session = LiveSession(region="us-east-1")
    cfn, ec2 = session.client("cloudformation"), session.client("ec2")
    cfn_stub, ec2_stub = Stubber(cfn), Stubber(ec2)
    if physical is not None:
        resources = [{"LogicalResourceId": lid, "PhysicalResourceId": pid, "ResourceType": "AWS::EC2::EIP",
                      "Timestamp": "2026-12-01T00:00:00Z", "ResourceStatus": "CREATE_COMPLETE"} for lid, pid in physical.items()]
        cfn_stub.add_response("describe_stack_resources", {"StackResources": resources}, {"StackName": stack})
    for pid in addresses:
        key = "AllocationIds" if pid.startswith("eipalloc-") else "PublicIps"
        ec2_stub.add_response("describe_addresses", {"Addresses": [{"PublicIp": PUBLIC[pid], "AllocationId": "eipalloc-x"}]},
                              {key: [pid]})
    cfn_stub.activate()
    ec2_stub.activate()
    return cfn, ec2, cfn_stub, ec2_stub


def _spec(kind: str, port: int, interval: int, threshold: int, path: str | None = None) -> LiveHealthCheckSpec:
    return LiveHealthCheckSpec(kind, port, interval, threshold, path)


def test_the_whole_plan_from_a_template(r53, zone_id, tmp_path):
    path = _template(tmp_path, {
        "RecPair": _rs(["203.0.113.40", "203.0.113.41"], "pair", hc={"Ref": "HcDeployed"}),  # literal values, a deployed check
        "RecA": _rs([{"Ref": "EipA"}], "origin-a"),  # a deployed EIP whose physical id is its address
        "RecB": {**_rs([{"Ref": "EipB"}], hc={"Ref": "HcHttp"})},  # by allocation id; no set identifier; a check not deployed
        "RecV6": _rs(["2001:db8::40"], "v6", rtype="AAAA", hc={"Ref": "HcTcpPath"}),
        "RecHttps": _rs(["203.0.113.50"], "https", hc={"Ref": "HcHttps"}),
        "RecLoose": _rs([{"Ref": "EipLoose"}], "loose", hc={"Ref": "CheckParam"}),  # a check id the template cannot resolve
        "RecId": _rs(["203.0.113.60"], "literal-check", hc="abcdef01-literal"),
        "RecEmpty": _rs(["203.0.113.61"], "empty-check", hc=""),
    })
    cfn, ec2, cfn_stub, ec2_stub = _clients(PHYSICAL, ["198.51.100.10", "eipalloc-0b", "198.51.100.12"])
    plan = plan_from_template([path], r53, cfn, ec2, zone_id, NAME, health_check=LiveHealthCheckSpec("TCP", 9443))
    cfn_stub.assert_no_pending_responses()
    ec2_stub.assert_no_pending_responses()
    default = LiveHealthCheckSpec("TCP", 9443)
    assert plan == Plan("origin.example.com", zone_id, 1, 30, (
        LivePlanRecord("pair-203.0.113.40", "203.0.113.40", "unknown", DEPLOYED_CHECK, None),
        LivePlanRecord("pair-203.0.113.41", "203.0.113.41", "unknown", DEPLOYED_CHECK, None),
        LivePlanRecord("origin-a", "198.51.100.10", "us-east-1a", None, default),
        LivePlanRecord("RecB-us-east-1b", "198.51.100.11", "us-east-1b", None, _spec("HTTP", 8080, 30, 5, "/healthz")),
        LivePlanRecord("v6", "2001:db8::40", "unknown", None, _spec("TCP", 8443, 30, 3)),
        LivePlanRecord("https", "203.0.113.50", "unknown", None, _spec("HTTPS", 443, 10, 2, "/ready")),
        LivePlanRecord("loose", "198.51.100.12", "unknown", None, default),
        LivePlanRecord("literal-check", "203.0.113.60", "unknown", "abcdef01-literal", None),
        LivePlanRecord("empty-check", "203.0.113.61", "unknown", None, default),
    ))
    assert r53.calls["GetHostedZone"] == 1  # the zone is read once (Route 53 allows 5 API requests a second per account)


def test_a_live_multivalue_record_of_the_address_keeps_its_set_identifier_and_check(r53, zone_id, tmp_path):
    live_check = tcp_check(r53, "203.0.113.40")
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", a_record("live-40", "203.0.113.40", multivalue=True, hc=live_check))]})
    path = _template(tmp_path, {"RecPair": _rs(["203.0.113.40", "203.0.113.41"], "pair", hc={"Ref": "HcDeployed"})})
    cfn, ec2, *_ = _clients(PHYSICAL)
    plan = plan_from_template([path], r53, cfn, ec2, zone_id, NAME)
    assert plan == Plan("origin.example.com", zone_id, 1, 30, (
        LivePlanRecord("live-40", "203.0.113.40", "unknown", live_check, None),
        LivePlanRecord("pair-203.0.113.41", "203.0.113.41", "unknown", DEPLOYED_CHECK, None)))


def test_a_long_set_identifier_is_cut_to_128_characters_and_numbered(r53, zone_id, tmp_path):
    sid = "s" * 128
    path = _template(tmp_path, {"RecLong": _rs(["203.0.113.40", "203.0.113.41", "203.0.113.42"], sid)})
    cfn, ec2, *_ = _clients(None)
    plan = plan_from_template([path], r53, cfn, ec2, zone_id, NAME)
    assert [r.set_identifier for r in plan.records] == [sid, "s" * 120 + "-2", "s" * 120 + "-3"]


@pytest.mark.parametrize(("ttls", "given", "live", "expected"), [
    ([30, 30], None, None, 30),
    ([0], None, None, 0),
    ([86400], None, None, 86400),
    ([86401], None, None, 60),  # above a plan's range: the default
    ([30, 300], None, None, 60),  # two TTLs: the default
    ([30, 300], None, 300, 300),  # ... or the live name's
    ([None], None, None, 60),
    ([30], 120, None, 120),  # --ttl wins
])
def test_the_plans_ttl(r53, zone_id, tmp_path, ttls, given, live, expected):
    if live is not None:
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
            change("CREATE", a_record("live", "203.0.113.99", multivalue=True, ttl=live))]})
    path = _template(tmp_path, {f"Rec{n}": _rs([f"203.0.113.{40 + n}"], f"r{n}", ttl=ttl) for n, ttl in enumerate(ttls)})
    cfn, ec2, *_ = _clients(None)
    assert plan_from_template([path], r53, cfn, ec2, zone_id, NAME, ttl=given).ttl == expected


def _refusal(call) -> str:
    with pytest.raises((LivePlanError, Refusal)) as exc:
        call()
    return str(exc.value)


def test_template_refusals_whole(r53, zone_id, tmp_path):
    cfn, ec2, *_ = _clients(None)
    other = _template(tmp_path, {"RecOther": _rs(["203.0.113.40"], "o", name="other.example.com")}, stack="Other")
    (tmp_path / "Bad.template.json").write_text("[]")
    assert _refusal(lambda: plan_from_template([other, tmp_path / "Bad.template.json"], r53, cfn, ec2, zone_id, NAME)) == (
        f"{tmp_path / 'Bad.template.json'}: not a CloudFormation template (top level is not a mapping: a list)")
    assert _refusal(lambda: plan_from_template([other, other], r53, cfn, ec2, zone_id, NAME)) == (
        f"--name origin.example.com: no A or AAAA records of that name in {other}, {other}")
    path = _template(tmp_path, {"RecSub": _rs([{"Ref": "SubA"}], "sub")})
    assert _refusal(lambda: plan_from_template([path], r53, cfn, ec2, zone_id, NAME)) == (
        f"{path}: RecSub: record value ResourceRef(stack='Origins', logical_id='SubA', attribute=None) is neither an IP nor an EIP")
    path = _template(tmp_path, {"RecParam": _rs([{"Ref": "CheckParam"}], "param")})
    assert _refusal(lambda: plan_from_template([path], r53, cfn, ec2, zone_id, NAME)) == (
        f"{path}: RecParam: record value Unresolved(reason='parameter', expr='Ref CheckParam') is neither an IP nor an EIP")
    path = _template(tmp_path, {"RecA": _rs([{"Ref": "EipA"}], "a")})
    cfn, ec2, *_ = _clients({"EipB": "eipalloc-0b"})
    assert _refusal(lambda: plan_from_template([path], r53, cfn, ec2, zone_id, NAME)) == (
        f"{path}: EipA: stack Origins has no deployed resource of that logical id")
    assert _refusal(lambda: plan_from_template([other], r53, cfn, ec2, zone_id, "." + NAME)) == (
        f"--name .origin.example.com: no A or AAAA records of that name in {other}")
    path = _template(tmp_path, {"RecId": _rs(["203.0.113.40"], "x", hc="not an id")})
    assert _refusal(lambda: plan_from_template([path], r53, cfn, ec2, zone_id, NAME + " ")) == (
        "name: 'origin.example.com ' is not inside the hosted zone example.com")
    assert _refusal(lambda: plan_from_template([path], r53, cfn, ec2, zone_id, NAME)) == (
        "generated plan: records[0].health_check_id: 'not an id' is not a Route 53 health check id")
    path = _template(tmp_path, {"RecPrivate": _rs(["10.0.0.5"], "private")})
    assert _refusal(lambda: plan_from_template([path], r53, cfn, ec2, zone_id, NAME)) == (
        "generated plan: records[0].ip: 10.0.0.5 is private (RFC 1918), 10.0.0.0/8: Route 53 cannot health-check it "
        "(CreateHealthCheck refuses local, private, non-routable and multicast addresses); use the origin's public address")
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [change("CREATE", {
        "Name": "_edge-origin-generation." + NAME, "Type": "TXT", "TTL": 60, "ResourceRecords": [{"Value": '"hello"'}]})]})
    assert _refusal(lambda: plan_from_template([path], r53, cfn, ec2, zone_id, NAME)) == (
        "_edge-origin-generation.origin.example.com. holds a TXT record edge-origin did not write: remove it or pick "
        "another name; enact will not overwrite it")


class _Failing:
    """A client whose every call raises ``error`` (a ClientError, as botocore raises them)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __getattr__(self, name: str):
        def call(**params: Any) -> Any:
            raise self.error
        return call


def _client_error(code: str | None, message: str | None, operation: str) -> botocore.exceptions.ClientError:
    response = {"Error": {"Code": code, "Message": message}} if code is not None else {}
    return botocore.exceptions.ClientError(response, operation)


@pytest.mark.parametrize(("cfn_error", "ec2_error", "addresses", "message"), [
    (_client_error("ValidationError", "Stack with id Origins does not exist", "DescribeStackResources"), None, None,
     "stack Origins: not deployed here (ValidationError: Stack with id Origins does not exist)"),
    (_client_error(None, None, "DescribeStackResources"), None, None, "stack Origins: not deployed here (None: None)"),
    (None, _client_error("InvalidAddress.NotFound", "Address 198.51.100.10 not found.", "DescribeAddresses"), None,
     "Origins/EipA: Elastic IP 198.51.100.10 not found (InvalidAddress.NotFound: Address 198.51.100.10 not found.)"),
    (None, _client_error(None, None, "DescribeAddresses"), None, "Origins/EipA: Elastic IP 198.51.100.10 not found (None: None)"),
    (None, None, [], "Origins/EipA: Elastic IP 198.51.100.10 not found"),
    (None, None, [{"AllocationId": "eipalloc-0a"}], "Origins/EipA: Elastic IP 198.51.100.10 not found"),
], ids=["stack-not-deployed", "stack-error-without-body", "eip-not-found", "eip-error-without-body", "eip-none", "eip-without-ip"])
def test_deployed_stack_and_eip_refusals_whole(r53, zone_id, tmp_path, cfn_error, ec2_error, addresses, message):
    path = _template(tmp_path, {"RecA": _rs([{"Ref": "EipA"}], "a")})
    cfn, ec2, _, ec2_stub = _clients(None if cfn_error else PHYSICAL)
    if cfn_error:
        cfn = _Failing(cfn_error)
    if ec2_error:
        ec2 = _Failing(ec2_error)
    if addresses is not None:
        ec2_stub.add_response("describe_addresses", {"Addresses": addresses}, {"PublicIps": ["198.51.100.10"]})
    assert _refusal(lambda: plan_from_template([path], r53, cfn, ec2, zone_id, NAME)) == message


def test_an_eip_deployed_as_an_allocation_id_is_looked_up_by_it(r53, zone_id, tmp_path):
    path = _template(tmp_path, {"RecB": _rs([{"Ref": "EipB"}], "b")})
    cfn, ec2, _, ec2_stub = _clients(PHYSICAL)
    ec2_stub.add_client_error("describe_addresses", "InvalidAllocationID.NotFound", "The allocation ID 'eipalloc-0b' does not exist",
                              expected_params={"AllocationIds": ["eipalloc-0b"]})
    assert _refusal(lambda: plan_from_template([path], r53, cfn, ec2, zone_id, NAME)) == (
        "Origins/EipB: Elastic IP eipalloc-0b not found (InvalidAllocationID.NotFound: The allocation ID 'eipalloc-0b' does not exist)")
