"""Read only: every API operation a full audit (with --test-dns-answer), verify, preflight, watch and ready makes
is a List/Describe/Get or Route 53's TestDNSAnswer (a read-only GET that simulates a query),
recorded through botocore's event system; the IAM policy docs/live.md shows allows exactly what they call."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import accounts
import pytest
import test_verify
from test_preflight import REFERENCE, cidrs, fleet, write

from edge_origin.live.audit import audit
from edge_origin.live.preflight import preflight
from edge_origin.live.ready import ready
from edge_origin.live.verify import verify
from edge_origin.live.watch import watch

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "docs" / "iam" / "readonly-policy.json"
READ_PREFIXES = ("List", "Describe", "Get", "Test")
LIVE_READERS = ("account.py", "audit.py", "verify.py", "preflight.py", "dns_spread.py", "route53_answer.py", "watch.py",
                "ready.py")
IAM_PREFIX = {"monitoring": "cloudwatch"}  # CloudWatch signs as "monitoring"; IAM actions read "cloudwatch:"


def _recorder(events: Any, seen: set[tuple[str, str]]) -> None:
    def record(model: Any, **_: Any) -> None:
        signing = model.service_model.signing_name
        seen.add((IAM_PREFIX.get(signing, signing), model.name))

    events.register("before-call.*.*", record)


@pytest.fixture(scope="module")
def operations(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str, str]]:
    """Every (IAM service prefix, operation) of a full run of audit, verify, preflight and watch."""
    import os

    from moto import mock_aws

    from edge_origin.live.session import LiveSession

    tmp = tmp_path_factory.mktemp("readonly")
    seen: set[tuple[str, str]] = set()
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "MOTO_EC2_LOAD_DEFAULT_AMIS": "false"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with mock_aws():
            session = LiveSession(region="us-east-1")
            built = accounts.multivalue(session)  # building the account mutates: record only afterwards
            import test_vpc_origins_read as vpc_read

            vpc_origin_nlb = vpc_read._internal_nlb(session)
            ec2 = session.client("ec2")
            private = accounts.zone(session, built, "internal.example", vpc_id=ec2.describe_vpcs()["Vpcs"][0]["VpcId"])
            accounts.change(session, private, [{"Name": "db.internal.example", "Type": "A", "TTL": 60,
                                                "ResourceRecords": [{"Value": "10.0.0.5"}]}])
            old = ec2.create_security_group(GroupName="old", Description="old", VpcId=ec2.describe_vpcs()["Vpcs"][0]["VpcId"])["GroupId"]
            session.client("cloudformation").create_stack(StackName=test_verify.STACK, TemplateBody=json.dumps(test_verify.edge_template()))
            session = LiveSession(region="us-east-1")  # fresh clients, made after the recorder is on
            _recorder(session.boto3_session.events, seen)
            accounts.fill_moto_gaps(session, built)
            assert {f.rule for f in audit(session).findings} == {"EO-NLB2"}  # the stack's records hold literal IPs
            asked = audit(session, test_dns_answer=True)  # moto answers TestDNSAnswer 404: the call is still made
            assert {f.rule for f in asked.not_checked} == {"EO-LIVE-TDA"}
            assert verify(session, test_verify.assembly(tmp, test_verify.edge_template())).ok
            extra = {"In": {"Type": "AWS::EC2::SecurityGroupIngress", "Properties": {"GroupId": old, **cidrs(1)[0]}}}
            odd = [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "SourcePrefixListId": "pl-0123456789abcdef0"}]
            preflight(session, [REFERENCE, write(tmp, {**fleet(eips=0, nlbs=0, ingress=odd), **extra})])
            assert [p.origin for p in watch(session, origins=[accounts.ORIGIN], since_s=600).paths] == [accounts.ORIGIN]
            # issue 33: moto answers DescribeCapacityReservation (canned) and DescribeAlarms; the calls are made
            assert not ready(session, [accounts.ORIGIN]).ok
            # VPC origins (issue 31): moto has none, so ListVpcOrigins/GetVpcOrigin come from a Stubber
            with vpc_read._stub(session, vpc_origin_nlb, keepalive=60):
                audit(session)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    # what moto's CloudFormation cannot hold (listeners, target groups, distributions): the stubbed verify
    clients, stubs = test_verify._fleet("600", "true", True, 60)
    for service in ("cloudformation", "elbv2", "cloudfront", "route53"):
        _recorder(clients.client(service).meta.events, seen)
    for stub in stubs:
        stub.activate()
    assert verify(clients, test_verify.assembly(tmp, test_verify.fleet_template(), "Fleet")).ok
    return seen


def test_only_list_describe_get(operations: set[tuple[str, str]]) -> None:
    assert len(operations) >= 20
    assert ("route53", "TestDNSAnswer") in operations and ("route53", "GetHostedZone") in operations
    assert {op for _, op in operations if op.startswith("Test")} == {"TestDNSAnswer"}
    writes = sorted(f"{svc}:{op}" for svc, op in operations if not op.startswith(READ_PREFIXES))
    assert writes == []


def _policy_actions(policy: dict[str, Any]) -> set[str]:
    actions: set[str] = set()
    for statement in policy["Statement"]:
        assert statement["Effect"] == "Allow"
        actions.update(statement["Action"])
    return actions


def test_the_policy_names_every_action_called_and_nothing_else(operations: set[tuple[str, str]]) -> None:
    policy = json.loads(POLICY.read_text())
    actions = _policy_actions(policy)
    called = {f"{svc}:{op}" for svc, op in operations}
    assert called - actions == set(), "called but not in the policy"
    assert actions - called == set(), "in the policy but never called"
    services = [{a.split(":")[0] for a in s["Action"]} for s in policy["Statement"]]
    assert all(len(s) == 1 for s in services) and len(services) == len({next(iter(s)) for s in services})  # one statement a service
    assert all(a.split(":")[1].startswith(READ_PREFIXES) for a in actions)


def test_the_live_page_shows_the_same_policy() -> None:
    page = (ROOT / "docs" / "live.md").read_text()
    section = page.split("## Before and after `cdk deploy`", 1)[1]
    block = re.search(r"```json\n(\{\n  \"Version\".*?)\n```", section, re.S)
    assert block is not None
    assert json.loads(block.group(1)) == json.loads(POLICY.read_text())


def test_no_mutating_call_in_the_readers() -> None:
    verbs = r"(create|delete|put|update|modify|change|register|deregister|set|add_tags|remove|attach|detach|associate|" \
            r"disassociate|authorize|revoke|allocate|release|start|stop|terminate|request|enable|disable|tag|untag)_"
    pattern = re.compile(rf"\.\s*{verbs}\w*\s*\(")
    assert len(LIVE_READERS) == 8  # the loop below reads every reader module
    for name in LIVE_READERS:
        source = (ROOT / "constructs" / "edge_origin" / "live" / name).read_text()
        assert not pattern.findall(source), name
