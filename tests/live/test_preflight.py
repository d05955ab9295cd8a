"""preflight: the templates' Elastic IPs, health checks, NLBs and security-group rules against quotas (moto)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.stub import Stubber
from helpers import Clients

from edge_origin.live.preflight import EXCEEDED, NLB_QUOTA, NOT_CHECKED, OK, preflight

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "snapshots" / "TelemetryIngest.template.json"


def write(tmp_path: Path, resources: dict[str, Any], name: str = "Plan.template.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"Resources": resources}))
    return path


def fleet(eips: int = 2, nlbs: int = 1, checks: int = 0, ingress: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    res: dict[str, Any] = {f"Eip{i}": {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}} for i in range(eips)}
    for i in range(nlbs):
        res[f"Nlb{i}"] = {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {"Type": "network"}}
    for i in range(checks):
        res[f"Check{i}"] = {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {"Type": "TCP", "IPAddress": "192.0.2.1", "Port": 443}}}
    if ingress is not None:
        res["Sg"] = {"Type": "AWS::EC2::SecurityGroup", "Properties": {"GroupDescription": "nlb", "SecurityGroupIngress": ingress}}
    return res


def cidrs(n: int) -> list[dict[str, Any]]:
    return [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": f"198.51.{i // 250}.{i % 250}/32"} for i in range(n)]


def by_code(result: Any) -> dict[str, Any]:
    return {c.code: c for c in result.checks}


def test_reference_app_needs_more_eips_than_the_default_quota(moto_session: Any) -> None:
    result = preflight(moto_session, [REFERENCE])
    eip = by_code(result)["L-0263D0A3"]
    assert (eip.status, eip.limit, eip.in_use, eip.needed) == (EXCEEDED, 5, 0, 6)
    assert "limit 5, in use 0, needed 6" in eip.line()
    assert not result.ok
    hc = by_code(result)["MAX_HEALTH_CHECKS_BY_OWNER"]
    assert hc.status == NOT_CHECKED and "GetAccountLimit" in hc.reason  # moto: 404, never "fine"
    groups = [c for c in result.checks if c.code == "L-0EA8095F"]
    assert len(groups) == 4 and all(c.status == OK for c in groups)
    assert max(c.needed for c in groups) == 60  # health checkers + the CloudFront prefix list (55) split to fit


def test_a_cloud_assembly(moto_session: Any, tmp_path: Path) -> None:
    from test_verify import assembly

    out = assembly(tmp_path, {"Resources": fleet(eips=6, nlbs=0)}, "Fleet")
    result = preflight(moto_session, [out])
    assert [(c.code, c.status, c.needed) for c in result.checks] == [("L-0263D0A3", EXCEEDED, 6)]


def test_addresses_in_use_count(moto_session: Any, tmp_path: Path) -> None:
    for _ in range(4):
        moto_session.client("ec2").allocate_address(Domain="vpc")
    result = preflight(moto_session, [write(tmp_path, fleet(eips=2))])
    eip = by_code(result)["L-0263D0A3"]
    assert (eip.status, eip.in_use, eip.needed) == (EXCEEDED, 4, 2)
    fits = preflight(moto_session, [write(tmp_path, fleet(eips=1))])
    assert fits.ok and by_code(fits)["L-0263D0A3"].status == OK


def test_prefix_list_weighs_55(moto_session: Any, tmp_path: Path) -> None:
    prefix = [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "SourcePrefixListId": "pl-3b927c52"}]
    over = preflight(moto_session, [write(tmp_path, fleet(ingress=prefix + cidrs(6)))])
    sg = by_code(over)["L-0EA8095F"]
    assert (sg.status, sg.needed, sg.limit) == (EXCEEDED, 61, 60)
    fits = preflight(moto_session, [write(tmp_path, fleet(ingress=prefix + cidrs(5)))])
    assert by_code(fits)["L-0EA8095F"].status == OK and fits.ok


def test_rules_added_to_an_existing_group_count_its_rules(moto_session: Any, tmp_path: Path) -> None:
    ec2 = moto_session.client("ec2")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    sg = ec2.create_security_group(GroupName="old", Description="old", VpcId=vpc)["GroupId"]
    ec2.authorize_security_group_ingress(GroupId=sg, IpPermissions=[
        {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "IpRanges": [{"CidrIp": r["CidrIp"]} for r in cidrs(59)]}
    ])
    extra = {f"In{i}": {"Type": "AWS::EC2::SecurityGroupIngress", "Properties": {"GroupId": sg, **rule}} for i, rule in enumerate(cidrs(2))}
    result = preflight(moto_session, [write(tmp_path, {**fleet(eips=0, nlbs=0), **extra})])
    check = by_code(result)["L-0EA8095F"]
    assert (check.status, check.in_use, check.needed, check.scope) == (EXCEEDED, 59, 2, f"group {sg}")


def test_unknown_prefix_list_weight_is_not_checked(moto_session: Any, tmp_path: Path) -> None:
    rule = [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "SourcePrefixListId": "pl-00000000000000000"}]
    result = preflight(moto_session, [write(tmp_path, fleet(eips=0, nlbs=0, ingress=rule))])
    assert [c.status for c in result.checks] == [NOT_CHECKED] and not result.ok


def _stub(service: str) -> tuple[Any, Stubber]:
    client = botocore.session.get_session().create_client(service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    return client, Stubber(client)


def test_service_quotas_and_route53_limits_when_the_account_answers(moto_session: Any, tmp_path: Path) -> None:
    """Real AWS answers Service Quotas L-0263D0A3 and Route 53 GetAccountLimit; moto does not (stubbed as the API reference shapes them)."""
    sq, sq_stub = _stub("service-quotas")
    sq_stub.add_response("get_service_quota", {"Quota": {"ServiceCode": "ec2", "QuotaCode": "L-0263D0A3", "Value": 10.0}},
                         {"ServiceCode": "ec2", "QuotaCode": "L-0263D0A3"})
    route53, r53_stub = _stub("route53")
    r53_stub.add_response("get_account_limit", {"Limit": {"Type": "MAX_HEALTH_CHECKS_BY_OWNER", "Value": 200}, "Count": 198},
                          {"Type": "MAX_HEALTH_CHECKS_BY_OWNER"})
    with sq_stub, r53_stub:
        result = preflight(Clients(moto_session, **{"service-quotas": sq, "route53": route53}),
                           [write(tmp_path, fleet(eips=6, nlbs=0, checks=3))])
    checks = by_code(result)
    assert (checks["L-0263D0A3"].status, checks["L-0263D0A3"].limit, checks["L-0263D0A3"].source) == (OK, 10, "Service Quotas ec2 L-0263D0A3")
    hc = checks["MAX_HEALTH_CHECKS_BY_OWNER"]
    assert (hc.status, hc.limit, hc.in_use, hc.needed) == (EXCEEDED, 200, 198, 3)


@pytest.mark.parametrize(("nlb_type", "counted"), [("network", 1), ({"Ref": "LbType"}, 1), ("application", 0)])
def test_a_balancer_whose_type_is_decided_at_deploy_time_counts_as_an_nlb(moto_session: Any, tmp_path: Path,
                                                                         nlb_type: Any, counted: int) -> None:
    """The NLB quota is checked against every balancer that may be network: a Type decided at deploy time is never
    left out (never "fine" by not counting it)."""
    resources = fleet(eips=0, nlbs=1)
    resources["Nlb0"]["Properties"]["Type"] = nlb_type
    path = tmp_path / "Lb.template.json"
    path.write_text(json.dumps({"Parameters": {"LbType": {"Type": "String"}}, "Resources": resources}))
    nlb = [c for c in preflight(moto_session, [path]).checks if c.code == NLB_QUOTA[1]]
    assert [c.needed for c in nlb] == ([counted] if counted else []), [c.line() for c in nlb]
