"""verify: a stack deployed in moto's CloudFormation (record sets and health checks, what moto's
CloudFormation keeps) compared with its cloud assembly; listeners, target groups and the
distribution (which moto's CloudFormation drops) through Stubber responses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.stub import Stubber
from helpers import Clients

from edge_origin.live.session import LiveError
from edge_origin.live.verify import verify

STACK = "EdgeOrigin"
ZONE = "example.com."


def edge_template(ttl: int = 60) -> dict[str, Any]:
    records: dict[str, Any] = {"Zone": {"Type": "AWS::Route53::HostedZone", "Properties": {"Name": ZONE}}}
    for i, ip in enumerate(("192.0.2.10", "192.0.2.11")):
        records[f"Check{i}"] = {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {
            "Type": "TCP", "IPAddress": ip, "Port": 443, "RequestInterval": 10, "FailureThreshold": 3}}}
        records[f"Record{i}"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            "HostedZoneId": {"Ref": "Zone"}, "Name": "api.example.com.", "Type": "A", "TTL": str(ttl),
            "SetIdentifier": f"eip-{i}", "MultiValueAnswer": True, "HealthCheckId": {"Ref": f"Check{i}"},
            "ResourceRecords": [ip]}}
    records["Www"] = {"Type": "AWS::Route53::RecordSet", "DependsOn": "Zone", "Properties": {
        "HostedZoneName": ZONE, "Name": "www.example.com.", "Type": "A", "TTL": "300", "ResourceRecords": ["192.0.2.20"]}}
    return {"Resources": records}


def assembly(tmp_path: Path, template: dict[str, Any], stack: str = STACK) -> Path:
    out = tmp_path / "cdk.out"
    out.mkdir(exist_ok=True)
    (out / f"{stack}.template.json").write_text(json.dumps(template))
    manifest = {"version": "36.0.0", "artifacts": {stack: {"type": "aws:cloudformation:stack", "properties": {
        "templateFile": f"{stack}.template.json", "stackName": stack}}}}
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out


@pytest.fixture()
def deployed(moto_session: Any, tmp_path: Path) -> Path:
    moto_session.client("cloudformation").create_stack(StackName=STACK, TemplateBody=json.dumps(edge_template()))
    return assembly(tmp_path, edge_template())


def test_deployed_as_declared(moto_session: Any, deployed: Path) -> None:
    result = verify(moto_session, deployed)
    assert result.drifts == [] and result.not_checked == [], result.text()
    assert result.checked >= 14  # 2 records x (present, ttl, multivalue, hc) + 2 checks x (present, 4 fields, status)
    assert "all as declared" in result.text()


def _zone_id(session: Any) -> str:
    return session.client("route53").list_hosted_zones()["HostedZones"][0]["Id"].split("/")[-1]


def test_ttl_changed_by_hand_is_drift(moto_session: Any, deployed: Path) -> None:
    route53 = moto_session.client("route53")
    zone = _zone_id(moto_session)
    live = [r for r in route53.list_resource_record_sets(HostedZoneId=zone)["ResourceRecordSets"] if r.get("SetIdentifier") == "eip-0"][0]
    route53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [
        {"Action": "UPSERT", "ResourceRecordSet": {**live, "TTL": 300}}]})
    result = verify(moto_session, deployed)
    assert [(d.resource, d.what, d.declared, d.live) for d in result.drifts] == [
        ("Record0", "record api.example.com A set eip-0 TTL", "60", "300")
    ]
    assert "declared 60, live 300" in result.text()


def test_record_deleted_by_hand_is_drift(moto_session: Any, deployed: Path) -> None:
    route53 = moto_session.client("route53")
    zone = _zone_id(moto_session)
    live = [r for r in route53.list_resource_record_sets(HostedZoneId=zone)["ResourceRecordSets"] if r.get("SetIdentifier") == "eip-1"][0]
    # moto cannot DELETE a record its CloudFormation made (it keeps the TTL as the template's string):
    # rewrite it through the API first, then delete it
    for action in ("UPSERT", "DELETE"):
        route53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [{"Action": action, "ResourceRecordSet": live}]})
    result = verify(moto_session, deployed)
    assert [(d.resource, d.declared, d.live) for d in result.drifts] == [("Record1", "present", "absent")]


def test_record_values_and_eip_addresses(moto_session: Any, tmp_path: Path) -> None:
    """A record whose value is an EIP's address (GetAtt PublicIp): compared through the EIP's physical id."""
    template = edge_template()
    template["Resources"]["Eip"] = {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}}
    template["Resources"]["Record0"]["Properties"]["ResourceRecords"] = [{"Ref": "Eip"}]  # moto knows no GetAtt PublicIp
    cfn = moto_session.client("cloudformation")
    cfn.create_stack(StackName=STACK, TemplateBody=json.dumps(template))
    template["Resources"]["Record0"]["Properties"]["ResourceRecords"] = [{"Fn::GetAtt": ["Eip", "PublicIp"]}]  # as CDK writes it
    eip = [r for r in cfn.list_stack_resources(StackName=STACK)["StackResourceSummaries"] if r["LogicalResourceId"] == "Eip"][0]
    route53 = moto_session.client("route53")
    zone = _zone_id(moto_session)
    live = [r for r in route53.list_resource_record_sets(HostedZoneId=zone)["ResourceRecordSets"] if r.get("SetIdentifier") == "eip-0"][0]
    assert live["ResourceRecords"] == [{"Value": eip["PhysicalResourceId"]}]
    out = assembly(tmp_path, template)
    assert verify(moto_session, out).drifts == []
    route53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [
        {"Action": "UPSERT", "ResourceRecordSet": {**live, "ResourceRecords": [{"Value": "192.0.2.99"}]}}]})
    drifts = verify(moto_session, out).drifts
    assert [(d.what, d.declared, d.live) for d in drifts] == [
        ("record api.example.com A set eip-0 values", eip["PhysicalResourceId"], "192.0.2.99")
    ]


def test_unhealthy_check_is_drift(moto_session: Any, deployed: Path) -> None:
    route53 = moto_session.client("route53")

    def failing(parsed: dict[str, Any], **_: Any) -> None:  # moto's status is one canned "Success"
        parsed["HealthCheckObservations"] = [
            {"Region": "us-east-1", "IPAddress": "15.177.2.1", "StatusReport": {"Status": "Failure: Connection timed out."}}
        ]

    route53.meta.events.register("after-call.route53.GetHealthCheckStatus", failing)
    result = verify(moto_session, deployed)
    assert {(d.what, d.live) for d in result.drifts} == {("health check status", "1 of 1 checkers report failure")}


def test_a_stack_the_assembly_does_not_hold_is_bad_input(moto_session: Any, deployed: Path) -> None:
    with pytest.raises(LiveError, match="--stack Other: not in the cloud assembly"):
        verify(moto_session, deployed, ["Other"])


def test_a_stack_not_deployed_is_bad_input(moto_session: Any, tmp_path: Path) -> None:
    with pytest.raises(LiveError, match="stack EdgeOrigin: not deployed"):
        verify(moto_session, assembly(tmp_path, edge_template()))


# --- Stubber: what moto's CloudFormation drops -------------------------------------------------
LISTENER = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/net/edge/50dc6c495c0c9188/f2f7dc8efc522ab2"
TG = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/edge/73e2d6bc24d8a067"


def fleet_template() -> dict[str, Any]:
    return {"Resources": {
        "Nlb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {"Type": "network", "LoadBalancerAttributes": [
            {"Key": "load_balancing.cross_zone.enabled", "Value": "true"}]}},
        "Tg": {"Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {
            "Protocol": "TCP", "Port": 8443, "TargetGroupAttributes": [
                {"Key": "deregistration_delay.connection_termination.enabled", "Value": "true"}]}},
        "Listener": {"Type": "AWS::ElasticLoadBalancingV2::Listener", "Properties": {
            "LoadBalancerArn": {"Ref": "Nlb"}, "Protocol": "TCP", "Port": 443,
            "DefaultActions": [{"Type": "forward", "TargetGroupArn": {"Ref": "Tg"}}],
            "ListenerAttributes": [{"Key": "tcp.idle_timeout.seconds", "Value": "600"}]}},
        "Edge": {"Type": "AWS::CloudFront::Distribution", "Properties": {"DistributionConfig": {
            "Enabled": True, "HttpVersion": "http2",
            "Origins": [{"Id": "o1", "DomainName": "api.example.com", "CustomOriginConfig": {
                "OriginProtocolPolicy": "https-only", "OriginKeepaliveTimeout": 60, "OriginReadTimeout": 60}}],
            "DefaultCacheBehavior": {"TargetOriginId": "o1", "ViewerProtocolPolicy": "https-only", "GrpcConfig": {"Enabled": True}},
        }}},
    }}


def _stub(service: str) -> tuple[Any, Stubber]:
    client = botocore.session.get_session().create_client(service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    return client, Stubber(client)


NLB = "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/net/edge/50dc6c495c0c9188"


def _fleet(
    idle: str, termination: str, grpc: bool, keepalive: int, cross_zone: str = "true", origin_http_version: str | None = None,
) -> tuple[Clients, list[Stubber]]:
    cfn, cfn_stub = _stub("cloudformation")
    summaries = [
        {"LogicalResourceId": lid, "PhysicalResourceId": pid, "ResourceType": rtype, "ResourceStatus": "CREATE_COMPLETE",
         "LastUpdatedTimestamp": "2026-12-01T00:00:00Z"}
        for lid, pid, rtype in (
            ("Nlb", NLB, "AWS::ElasticLoadBalancingV2::LoadBalancer"),
            ("Tg", TG, "AWS::ElasticLoadBalancingV2::TargetGroup"),
            ("Listener", LISTENER, "AWS::ElasticLoadBalancingV2::Listener"),
            ("Edge", "E2QWRUHAPOMQZL", "AWS::CloudFront::Distribution"),
        )
    ]
    cfn_stub.add_response("list_stack_resources", {"StackResourceSummaries": summaries}, {"StackName": "Fleet"})
    elbv2, elb_stub = _stub("elbv2")
    elb_stub.add_response("describe_listener_attributes", {"Attributes": [{"Key": "tcp.idle_timeout.seconds", "Value": idle}]}, {"ListenerArn": LISTENER})
    elb_stub.add_response("describe_target_group_attributes", {"Attributes": [
        {"Key": "deregistration_delay.connection_termination.enabled", "Value": termination},
        {"Key": "deregistration_delay.timeout_seconds", "Value": "300"}]}, {"TargetGroupArn": TG})
    elb_stub.add_response("describe_load_balancer_attributes", {"Attributes": [
        {"Key": "load_balancing.cross_zone.enabled", "Value": cross_zone}]}, {"LoadBalancerArn": NLB})
    cloudfront, cf_stub = _stub("cloudfront")
    config = {
        "CallerReference": "x", "Comment": "", "Enabled": True,
        "Origins": {"Quantity": 1, "Items": [{"Id": "o1", "DomainName": "api.example.com", "CustomOriginConfig": {
            "HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "https-only",
            "OriginKeepaliveTimeout": keepalive, "OriginReadTimeout": 60,
            **({"OriginHttpVersion": origin_http_version} if origin_http_version else {})}}]},
        "DefaultCacheBehavior": {"TargetOriginId": "o1", "ViewerProtocolPolicy": "https-only", "GrpcConfig": {"Enabled": grpc}},
    }
    cf_stub.add_response("get_distribution_config", {"DistributionConfig": config, "ETag": "E1"}, {"Id": "E2QWRUHAPOMQZL"})
    route53, r53_stub = _stub("route53")  # no record sets or health checks in this stack: no calls
    clients = {"cloudformation": cfn, "elbv2": elbv2, "cloudfront": cloudfront, "route53": route53}
    session = type("S", (), {"region": "us-east-1", "client": lambda self, s: clients[s]})()
    return Clients(session), [cfn_stub, elb_stub, cf_stub, r53_stub]


def test_stubbed_fleet_as_declared(tmp_path: Path) -> None:
    clients, stubs = _fleet("600", "true", True, 60)
    for stub in stubs:
        stub.activate()
    result = verify(clients, assembly(tmp_path, fleet_template(), "Fleet"))
    assert result.ok, result.text()
    for stub in stubs:
        stub.assert_no_pending_responses()


def test_stubbed_fleet_drift_names_what_declared_and_live(tmp_path: Path) -> None:
    clients, stubs = _fleet("350", "false", False, 5, cross_zone="false")
    for stub in stubs:
        stub.activate()
    result = verify(clients, assembly(tmp_path, fleet_template(), "Fleet"))
    assert {(d.resource, d.what, d.declared, d.live) for d in result.drifts} == {
        ("Listener", "listener attribute tcp.idle_timeout.seconds", "600", "350"),
        ("Tg", "target group attribute deregistration_delay.connection_termination.enabled", "true", "false"),
        ("Edge", "default behavior GrpcConfig.Enabled", "True", "False"),
        ("Edge", "origin o1 OriginKeepaliveTimeout", "60", "5"),
        ("Nlb", "load balancer attribute load_balancing.cross_zone.enabled", "true", "false"),
    }


def test_health_status_follows_route53s_18_percent_rule() -> None:
    from edge_origin.live.account import health_status

    client, stub = _stub("route53")

    def observations(ok: int, total: int) -> dict[str, Any]:
        return {"HealthCheckObservations": [
            {"Region": "us-east-1", "IPAddress": f"15.177.{i}.1",
             "StatusReport": {"Status": "Success: TCP connection established" if i < ok else "Failure: Connection timed out"}}
            for i in range(total)]}

    for ok, total in ((3, 16), (2, 16), (16, 16), (0, 16)):
        stub.add_response("get_health_check_status", observations(ok, total), {"HealthCheckId": "hc"})
    with stub:
        got = [health_status(client, "hc")["healthy"] for _ in range(4)]
    assert got == [True, False, True, False]  # 3/16 = 18.75 % > 18 %: healthy; 2/16 = 12.5 %: not


# --- extra records at a declared name; two zones of one name ----------------------------------------
def test_a_hand_made_record_at_a_declared_name_is_drift(moto_session: Any, deployed: Path) -> None:
    route53 = moto_session.client("route53")
    zone = _zone_id(moto_session)
    route53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
        "Name": "api.example.com.", "Type": "A", "SetIdentifier": "by-hand", "MultiValueAnswer": True, "TTL": 60,
        "ResourceRecords": [{"Value": "198.51.100.7"}]}}]})
    result = verify(moto_session, deployed)
    assert [(d.what, d.declared, d.live) for d in result.drifts] == [
        ("record api.example.com A set by-hand (not in the template)", "absent", "present: 198.51.100.7, no health check")
    ]
    assert "all as declared" not in result.text()


def test_records_of_other_names_and_types_are_not_drift(moto_session: Any, deployed: Path) -> None:
    route53 = moto_session.client("route53")
    zone = _zone_id(moto_session)
    for name, rtype, value in (("other.example.com.", "A", "198.51.100.8"), ("api.example.com.", "TXT", '"v=1"')):
        route53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
            "Name": name, "Type": rtype, "TTL": 60, "ResourceRecords": [{"Value": value}]}}]})
    assert verify(moto_session, deployed).drifts == []


def test_with_a_private_zone_of_the_same_name_the_public_one_is_read(moto_session: Any, tmp_path: Path) -> None:
    """The Www record names its zone by HostedZoneName: a private zone of that name listed first is not it."""
    route53 = moto_session.client("route53")
    template = edge_template()
    moto_session.client("cloudformation").create_stack(StackName=STACK, TemplateBody=json.dumps(template))
    public = _zone_id(moto_session)
    vpc = moto_session.client("ec2").create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    private = route53.create_hosted_zone(Name=ZONE, CallerReference="private", VPC={"VPCRegion": "us-east-1", "VPCId": vpc},
                                         HostedZoneConfig={"PrivateZone": True})["HostedZone"]["Id"].split("/")[-1]
    zones = {"HostedZones": [
        {"Id": f"/hostedzone/{private}", "Name": ZONE, "CallerReference": "p", "Config": {"PrivateZone": True}},
        {"Id": f"/hostedzone/{public}", "Name": ZONE, "CallerReference": "q", "Config": {"PrivateZone": False}},
    ], "DNSName": ZONE, "IsTruncated": False, "MaxItems": "100"}

    def private_first(parsed: dict[str, Any], **_: Any) -> None:  # moto gives a VPC zone PrivateZone False
        parsed.update(zones)

    route53.meta.events.register("after-call.route53.ListHostedZonesByName", private_first)
    result = verify(moto_session, assembly(tmp_path, template))
    assert result.drifts == [] and result.not_checked == [], result.text()


def test_two_public_zones_of_one_name_are_not_guessed(moto_session: Any, tmp_path: Path) -> None:
    route53 = moto_session.client("route53")
    template = edge_template()
    moto_session.client("cloudformation").create_stack(StackName=STACK, TemplateBody=json.dumps(template))
    zones = {"HostedZones": [{"Id": f"/hostedzone/Z{n}", "Name": ZONE, "CallerReference": str(n), "Config": {"PrivateZone": False}}
                             for n in (1, 2)], "DNSName": ZONE, "IsTruncated": False, "MaxItems": "100"}
    route53.meta.events.register("after-call.route53.ListHostedZonesByName", lambda parsed, **_: parsed.update(zones))
    result = verify(moto_session, assembly(tmp_path, template))
    assert any("2 public hosted zones of that name (Z1, Z2); name the zone by HostedZoneId" in n for n in result.not_checked)


def test_with_two_public_zones_of_one_name_the_one_holding_the_record_is_read(moto_session: Any, deployed: Path) -> None:
    """CloudFormation would refuse the stack with two zones of its HostedZoneName; moto does not."""
    route53 = moto_session.client("route53")
    route53.create_hosted_zone(Name=ZONE, CallerReference="second-public")
    result = verify(moto_session, deployed)
    assert result.drifts == [] and result.not_checked == [], result.text()


# --- nested stacks (issue 49): CloudFormation names them; the parent's Stack resource holds the id ---------
NESTED_ARN = "arn:aws:cloudformation:us-east-1:123456789012:stack/App-KidNestedStack-ABC/1"


def _client(service: str) -> Any:
    return botocore.session.get_session().create_client(service, region_name="us-east-1", aws_access_key_id="x",
                                                        aws_secret_access_key="x")


class _Source:
    """CloudFormation stubbed with the responses given; every other client stubbed with none (any call fails)."""

    region = "us-east-1"
    endpoint_url = None

    def __init__(self, cfn: Any) -> None:
        self.clients = {"cloudformation": cfn}

    def client(self, service: str) -> Any:
        if service not in self.clients:
            self.clients[service] = _client(service)
            Stubber(self.clients[service]).activate()
        return self.clients[service]


def _summary(logical: str, physical: str, kind: str) -> dict[str, Any]:
    return {"LogicalResourceId": logical, "PhysicalResourceId": physical, "ResourceType": kind,
            "LastUpdatedTimestamp": "2026-01-01T00:00:00Z", "ResourceStatus": "CREATE_COMPLETE"}


@pytest.mark.parametrize("asked", [[], ["App/Kid"]])
def test_a_nested_stack_is_read_by_the_id_its_parent_holds(tmp_path: Path, asked: list[str]) -> None:
    out = assembly(tmp_path, {"Resources": {"Kid": {"Type": "AWS::CloudFormation::Stack", "Metadata": {"aws:asset:path": "kid.json"},
                                                    "Properties": {"TemplateURL": "https://b.s3.amazonaws.com/kid.json"}}}}, "App")
    (out / "kid.json").write_text(json.dumps({"Resources": {"Eip": {"Type": "AWS::EC2::EIP"}}}))
    cfn = _client("cloudformation")
    with Stubber(cfn) as stub:
        stub.add_response("list_stack_resources", {"StackResourceSummaries": [_summary("Kid", NESTED_ARN, "AWS::CloudFormation::Stack")]},
                          {"StackName": "App"})
        stub.add_response("list_stack_resources", {"StackResourceSummaries": [_summary("Eip", "203.0.113.7", "AWS::EC2::EIP")]},
                          {"StackName": NESTED_ARN})
        result = verify(_Source(cfn), out, asked)
        stub.assert_no_pending_responses()
    assert result.stacks == (asked or ["App", "App/Kid"]) and result.not_checked == []


def test_watch_and_plan_read_a_nested_stack_by_the_id_its_parent_holds(tmp_path: Path) -> None:
    from edge_origin.live.plan_sources import stack_ids
    from edge_origin.live.watch import read_stack_resources
    from edge_origin.model import load_model

    out = assembly(tmp_path, {"Resources": {"Kid": {"Type": "AWS::CloudFormation::Stack", "Metadata": {"aws:asset:path": "kid.json"},
                                                    "Properties": {"TemplateURL": "https://b.s3.amazonaws.com/kid.json"}}}}, "App")
    (out / "kid.json").write_text(json.dumps({"Resources": {"Eip": {"Type": "AWS::EC2::EIP"}}}))
    model = load_model([out])
    cfn = _client("cloudformation")
    def described(logical: str, physical: str, kind: str) -> dict[str, Any]:
        return {"StackResources": [{"LogicalResourceId": logical, "PhysicalResourceId": physical, "ResourceType": kind,
                                    "Timestamp": "2026-01-01T00:00:00Z", "ResourceStatus": "CREATE_COMPLETE"}]}

    with Stubber(cfn) as stub:
        stub.add_response("list_stack_resources", {"StackResourceSummaries": [_summary("Kid", NESTED_ARN, "AWS::CloudFormation::Stack")]},
                          {"StackName": "App"})
        stub.add_response("list_stack_resources", {"StackResourceSummaries": [_summary("Eip", "203.0.113.7", "AWS::EC2::EIP")]},
                          {"StackName": NESTED_ARN})
        stub.add_response("describe_stack_resources", described("Kid", NESTED_ARN, "AWS::CloudFormation::Stack"), {"StackName": "App"})
        stub.add_response("describe_stack_resources", described("Eip", "203.0.113.7", "AWS::EC2::EIP"), {"StackName": NESTED_ARN})
        physical = read_stack_resources(_Source(cfn), model.stacks, {"App/Kid": ("App", "Kid")})
        assert physical[("App/Kid", "Eip")] == "203.0.113.7"
        assert stack_ids(cfn, model, "App/Kid", {}) == {"Eip": "203.0.113.7"}
        stub.assert_no_pending_responses()
    with pytest.raises(LiveError, match="nested in App, whose Kid is not deployed"):
        read_stack_resources(_Source(cfn), ["App/Kid"], {"App/Kid": ("App", "Kid")})
