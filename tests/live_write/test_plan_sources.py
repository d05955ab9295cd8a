"""Where plans come from: NLB Elastic IPs (botocore Stubber: moto returns no LoadBalancerAddresses),
synthesized templates resolved through deployed physical ids (Stubber), and moto's limitation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from botocore.stub import Stubber

from edge_origin.live.enact import EnactOptions, Refusal, enact
from edge_origin.live.name_state import read_name
from edge_origin.live.plan_sources import parse_address, plan_from_live, plan_from_template, show_text
from edge_origin.live.plans import LiveHealthCheckSpec, LivePlanError
from edge_origin.live.session import LiveSession
from tests.live_write.conftest import NAME, incident_setup

SNAPSHOT = Path(__file__).resolve().parents[1] / "snapshots" / "TelemetryIngest.template.json"


@pytest.fixture(autouse=True)
def fake_credentials(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")


def _nlb(name: str, dns: str, zones: list[tuple[str, str | None]], kind: str = "network") -> dict:
    azs = []
    for zone, ip in zones:
        az = {"ZoneName": zone, "SubnetId": f"subnet-{zone}", "LoadBalancerAddresses": []}
        if ip is not None:
            az["LoadBalancerAddresses"] = [{"IpAddress": ip, "AllocationId": f"eipalloc-{ip.replace('.', '')}"}]
        azs.append(az)
    return {"LoadBalancerName": name, "DNSName": dns, "Type": kind, "Scheme": "internet-facing", "AvailabilityZones": azs}


def _elbv2(load_balancers: list[dict]) -> tuple:
    client = LiveSession(region="us-east-1").client("elbv2")
    stub = Stubber(client)
    stub.add_response("describe_load_balancers", {"LoadBalancers": load_balancers}, {})
    stub.activate()
    return client, stub


INCIDENT_NLBS = [
    _nlb("nlb-1", "nlb-1-abcdef.elb.us-east-1.amazonaws.com",
         [("us-east-1a", "203.0.113.10"), ("us-east-1b", "203.0.113.11"), ("us-east-1c", "203.0.113.12")]),
    _nlb("nlb-2", "nlb-2-ghijkl.elb.us-east-1.amazonaws.com",
         [("us-east-1a", "203.0.113.20"), ("us-east-1b", "203.0.113.21"), ("us-east-1c", "203.0.113.22")]),
]


def test_from_load_balancers_gives_the_six_eips_of_the_incident(r53, zone_id):
    incident_setup(r53, zone_id)
    elbv2, stub = _elbv2(INCIDENT_NLBS)
    plan = plan_from_live(r53, zone_id, NAME, elbv2=elbv2, health_check=LiveHealthCheckSpec("TCP", 443))
    stub.assert_no_pending_responses()
    assert plan.generation == 1 and plan.ttl == 60 and len(plan.records) == 6
    assert [r.set_identifier for r in plan.records][:3] == ["nlb-1-us-east-1a", "nlb-1-us-east-1b", "nlb-1-us-east-1c"]
    assert {r.zone for r in plan.records} == {"us-east-1a", "us-east-1b", "us-east-1c"}
    result = enact(r53, plan, EnactOptions(allow_full_change=True), sleep=lambda s: None)
    assert result.status == "applied" and read_name(r53, zone_id, NAME).routing_policy == "multivalue"


def test_an_nlb_without_elastic_ips_is_refused_with_how_to_fix(r53, zone_id):
    incident_setup(r53, zone_id)
    nlbs = [INCIDENT_NLBS[0], _nlb("nlb-2", "nlb-2-ghijkl.elb.us-east-1.amazonaws.com", [("us-east-1a", None)])]
    elbv2, _ = _elbv2(nlbs)
    with pytest.raises(Refusal) as exc:
        plan_from_live(r53, zone_id, NAME, elbv2=elbv2)
    message = str(exc.value)
    assert "nlb-2 has no Elastic IP in us-east-1a: its addresses can change" in message
    assert "SubnetMappings with an AllocationId" in message and "--address IP@ZONE" in message


def test_an_application_load_balancer_is_refused(r53, zone_id):
    incident_setup(r53, zone_id)
    albs = [_nlb("nlb-1", "nlb-1-abcdef.elb.us-east-1.amazonaws.com", [("us-east-1a", None)], kind="application")]
    elbv2, _ = _elbv2(albs)
    with pytest.raises(Refusal, match="is an application load balancer: it has no static addresses"):
        plan_from_live(r53, zone_id, NAME, elbv2=elbv2)


def test_an_alias_target_that_is_no_load_balancer_is_refused(r53, zone_id):
    incident_setup(r53, zone_id)
    elbv2, _ = _elbv2([INCIDENT_NLBS[0]])
    with pytest.raises(Refusal, match="nlb-2-ghijkl.elb.us-east-1.amazonaws.com is not a load balancer"):
        plan_from_live(r53, zone_id, NAME, elbv2=elbv2)


def test_records_without_alias_need_addresses(r53, zone_id):
    elbv2, _ = _elbv2([])
    with pytest.raises(Refusal, match="no alias records pointing at load balancers"):
        plan_from_live(r53, zone_id, NAME, elbv2=elbv2)
    with pytest.raises(LivePlanError, match="give --address"):
        plan_from_live(r53, zone_id, NAME)


@pytest.mark.slow  # moto's in-process EC2/ELBv2 take ~13 s to set up here
def test_moto_returns_no_load_balancer_addresses_so_from_load_balancers_refuses(monkeypatch):
    """moto ignores SubnetMappings' AllocationId (FACTS.md): the same NLB reads as one without EIPs."""
    moto = pytest.importorskip("moto")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with moto.mock_aws():
        session = LiveSession(region="us-east-1")
        ec2, elbv2, r53 = session.client("ec2"), session.client("elbv2"), session.client("route53")
        vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
        subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.1.0/24", AvailabilityZone="us-east-1a")["Subnet"]["SubnetId"]
        eip = ec2.allocate_address(Domain="vpc")["AllocationId"]
        lb = elbv2.create_load_balancer(Name="nlb-1", Type="network", Scheme="internet-facing",
                                        SubnetMappings=[{"SubnetId": subnet, "AllocationId": eip}])["LoadBalancers"][0]
        zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
            "Name": NAME, "Type": "A", "SetIdentifier": "nlb-1", "Weight": 1,
            "AliasTarget": {"DNSName": lb["DNSName"], "HostedZoneId": lb["CanonicalHostedZoneId"], "EvaluateTargetHealth": True}}}]})
        with pytest.raises(Refusal, match="nlb-1 has no Elastic IP in us-east-1a"):
            plan_from_live(r53, zone_id, NAME, elbv2=elbv2)


def test_from_live_keeps_live_multivalue_set_identifiers_and_checks(r53, zone_id):
    addresses = [parse_address(f"203.0.113.{10 + n}@us-east-1{'abc'[n]}") for n in range(3)]
    first = plan_from_live(r53, zone_id, NAME, addresses=addresses)
    enact(r53, first, EnactOptions(), sleep=lambda s: None)
    again = plan_from_live(r53, zone_id, NAME, addresses=addresses + [parse_address("203.0.113.20@us-east-1a")])
    assert again.generation == 2
    assert [r.set_identifier for r in again.records] == ["origin-us-east-1a", "origin-us-east-1b", "origin-us-east-1c", "origin-us-east-1a-2"]
    assert [r.health_check_id is not None for r in again.records] == [True, True, True, False]
    assert "generation: 1" in show_text(read_name(r53, zone_id, NAME))


def _snapshot_eips() -> dict[str, str]:
    """The golden template's EIP logical ids, each given a documentation address as if deployed."""
    resources = json.loads(SNAPSHOT.read_text())["Resources"]
    eips = sorted(lid for lid, r in resources.items() if r["Type"] == "AWS::EC2::EIP")
    return {lid: f"198.51.100.{10 + i}" for i, lid in enumerate(eips)}


def _snapshot_set_identifiers() -> set[str]:
    resources = json.loads(SNAPSHOT.read_text())["Resources"]
    return {r["Properties"]["SetIdentifier"] for r in resources.values()
            if r["Type"] == "AWS::Route53::RecordSet" and "SetIdentifier" in r.get("Properties", {})}


EIPS = _snapshot_eips()


def test_from_template_resolves_eips_through_the_deployed_stack(r53):
    zone_id = r53.create_hosted_zone(Name="telemetry.example.com", CallerReference="t")["HostedZone"]["Id"].split("/")[-1]
    session = LiveSession(region="us-east-1")
    cfn, ec2 = session.client("cloudformation"), session.client("ec2")
    resources = [{"LogicalResourceId": lid, "PhysicalResourceId": ip, "ResourceType": "AWS::EC2::EIP",
                  "Timestamp": "2026-12-01T00:00:00Z", "ResourceStatus": "CREATE_COMPLETE"} for lid, ip in EIPS.items()]
    with Stubber(cfn) as cfn_stub, Stubber(ec2) as ec2_stub:
        cfn_stub.add_response("describe_stack_resources", {"StackResources": resources}, {"StackName": "TelemetryIngest"})
        for ip in EIPS.values():
            ec2_stub.add_response("describe_addresses", {"Addresses": [{"PublicIp": ip, "AllocationId": "eipalloc-1"}]}, {"PublicIps": [ip]})
        plan = plan_from_template([SNAPSHOT], r53, cfn, ec2, zone_id, "origin.telemetry.example.com")
        ec2_stub.assert_no_pending_responses()
    assert sorted(r.ip for r in plan.records) == sorted(EIPS.values())
    assert len(EIPS) == 6 and {r.set_identifier for r in plan.records} == _snapshot_set_identifiers()
    assert all(r.health_check == LiveHealthCheckSpec("TCP", 443, 10, 3) for r in plan.records)
    assert plan.ttl == 60 and plan.generation == 1


def test_from_template_bad_inputs(r53, zone_id, tmp_path):
    session = LiveSession(region="us-east-1")
    cfn, ec2 = session.client("cloudformation"), session.client("ec2")
    with pytest.raises(LivePlanError, match="no A or AAAA records of that name"):
        plan_from_template([SNAPSHOT], r53, cfn, ec2, zone_id, NAME)
    with Stubber(cfn) as stub:
        stub.add_client_error("describe_stack_resources", "ValidationError", "Stack with id TelemetryIngest does not exist")
        zid = r53.create_hosted_zone(Name="telemetry.example.com", CallerReference="t2")["HostedZone"]["Id"].split("/")[-1]
        with pytest.raises(LivePlanError, match="stack TelemetryIngest: not deployed here"):
            plan_from_template([SNAPSHOT], r53, cfn, ec2, zid, "origin.telemetry.example.com")
    (tmp_path / "bad.json").write_text("[]")
    with pytest.raises(LivePlanError):
        plan_from_template([tmp_path / "bad.json"], r53, cfn, ec2, zone_id, NAME)
