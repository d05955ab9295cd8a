"""The first real deploy: quotas warned at synth, names stable across an env change, the cluster's
VPC, TLS listeners, outputs, operability props, pod networking, internal origins in the report."""

from __future__ import annotations

import re
from typing import Any

import aws_cdk as cdk
import pytest
import yaml
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_s3 as s3
from aws_cdk.assertions import Template

from edge_origin import (
    AccountQuotas,
    EdgeOriginPropError,
    GrpcEdgeToOrigin,
    InternalGrpcOrigin,
    MultivalueOriginRecords,
    OriginAddress,
    OriginFleet,
    TemplateModel,
)
from edge_origin.review.report import render_markdown

ACCOUNT = "123456789012"
ENV = cdk.Environment(account=ACCOUNT, region="us-east-1")
AZ_CONTEXT = {f"availability-zones:account={ACCOUNT}:region=us-east-1": ["us-east-1a", "us-east-1b"]}


def _of_type(template: dict, type_: str) -> dict[str, dict]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == type_}


def _zone(stack: cdk.Stack, name: str = "example.com") -> route53.IHostedZone:
    existing = stack.node.try_find_child(f"Zone{name.split('.')[0]}")
    if existing is not None:
        return existing
    return route53.HostedZone.from_hosted_zone_attributes(stack, f"Zone{name.split('.')[0]}", hosted_zone_id="Z1", zone_name=name)


def _vpc(stack: cdk.Stack, cidr: str | None = "10.1.0.0/16") -> ec2.IVpc:
    existing = stack.node.try_find_child("Vpc")
    if existing is not None:
        return existing
    return ec2.Vpc.from_vpc_attributes(
        stack, "Vpc", vpc_id="vpc-0123456789abcdef0", vpc_cidr_block=cidr,
        availability_zones=["us-east-1a", "us-east-1b"],
        public_subnet_ids=["subnet-aaaa1111", "subnet-bbbb2222"],
        private_subnet_ids=["subnet-cccc3333", "subnet-dddd4444"],
        private_subnet_ipv4_cidr_blocks=["10.1.128.0/20", "10.1.144.0/20"],
    )


def _warnings(assembly: cdk.cx_api.CloudAssembly) -> dict[str, list[str]]:
    """Stack name -> warning texts of the synthesized app."""
    out: dict[str, list[str]] = {}
    for artifact in assembly.stacks:
        out[artifact.stack_name] = [
            str(m.entry.data) for m in artifact.messages if m.level == cdk.cx_api.SynthesisMessageLevel.WARNING
        ]
    return out


# -- quotas -----------------------------------------------------------------------------------
def test_reference_app_warns_it_needs_six_elastic_ips(reference_app) -> None:
    stack, _, directory = reference_app
    assembly = cdk.cx_api.CloudAssembly(str(directory))
    texts = _warnings(assembly)[stack.stack_name]
    eip = [t for t in texts if t.startswith("EC2-VPC Elastic IPs")]
    assert len(eip) == 1, texts
    assert "needs 6" in eip[0] and "quota of 5" in eip[0] and "L-0263D0A3" in eip[0]
    assert "request-service-quota-increase" in eip[0] and "nlb_count=1" in eip[0]
    assert not [t for t in texts if "health checks" in t or "Load Balancers" in t]


def _fleet_app(
    regions: tuple[str, str], *, quotas: Any = None, context: dict | None = None, nlb_count: int = 1
) -> cdk.cx_api.CloudAssembly:
    app = cdk.App(context=context)
    for i, region in enumerate(regions):
        stack = cdk.Stack(app, f"S{i}", env=cdk.Environment(account=ACCOUNT, region=region))
        vpc = ec2.Vpc.from_vpc_attributes(
            stack, "Vpc", vpc_id="vpc-1", vpc_cidr_block="10.0.0.0/16",
            availability_zones=[f"{region}a", f"{region}b", f"{region}c"],
            public_subnet_ids=["subnet-1", "subnet-2", "subnet-3"],
        )
        fleet = OriginFleet(stack, "F", vpc=vpc, nlb_count=nlb_count, account_quotas=quotas)
        MultivalueOriginRecords(
            stack, "R", zone=_zone(stack), record_name=f"o{i}.example.com",
            addresses=[OriginAddress(a.ip_address, a.set_identifier) for a in fleet.addresses], account_quotas=quotas,
        )
    return app.synth()


def test_quotas_are_summed_across_stacks_per_account_and_region() -> None:
    same = _warnings(_fleet_app(("us-east-1", "us-east-1")))  # 3 + 3 EIPs in one region
    for texts in same.values():
        (eip,) = [t for t in texts if t.startswith("EC2-VPC Elastic IPs")]
        assert "needs 6 in account 123456789012, us-east-1" in eip and "makes 3" in eip
    apart = _warnings(_fleet_app(("us-east-1", "eu-west-1")))  # 3 in each region
    assert not [t for texts in apart.values() for t in texts if "quota" in t]


def test_declared_quotas_silence_the_warning_by_prop_or_context() -> None:
    by_prop = _warnings(_fleet_app(("us-east-1", "us-east-1"), quotas=AccountQuotas(elastic_ips=10)))
    assert not [t for texts in by_prop.values() for t in texts if "quota" in t]
    by_context = _warnings(_fleet_app(("us-east-1", "us-east-1"), context={"edge-origin:accountQuotas": {"elasticIps": 6}}))
    assert not [t for texts in by_context.values() for t in texts if "quota" in t]


def test_health_check_and_nlb_quotas_warn_with_their_codes() -> None:
    quotas = {"health_checks": 5, "network_load_balancers": 1}
    texts = _warnings(_fleet_app(("us-east-1", "eu-west-1"), quotas=quotas, nlb_count=2))["S0"]
    (checks,) = [t for t in texts if t.startswith("Route 53 health checks")]
    assert "needs 12 in account 123456789012 (" in checks and "L-ACB674F3" in checks and "(declared)" in checks
    (nlbs,) = [t for t in texts if t.startswith("Network Load Balancers")]
    assert "needs 2 in account 123456789012, us-east-1" in nlbs and "quota of 1 (declared)" in nlbs
    assert "L-69A177A2" in nlbs and "--region us-east-1" in nlbs


# -- stable names -----------------------------------------------------------------------------
def _named_ids(template: dict) -> tuple[list[str], list[str]]:
    kinds = ("AWS::EC2::EIP", "AWS::Route53::RecordSet", "AWS::Route53::HealthCheck")
    ids = sorted(k for k, r in template["Resources"].items() if r["Type"] in kinds)
    set_ids = sorted(r["Properties"]["SetIdentifier"] for r in _of_type(template, "AWS::Route53::RecordSet").values())
    return ids, set_ids


def test_adding_an_explicit_env_keeps_every_name() -> None:
    agnostic_stack = cdk.Stack(cdk.App(), "Ingest")
    GrpcEdgeToOrigin(agnostic_stack, "P", zone=_zone(agnostic_stack), origin_name="o.example.com", service_name="s", max_azs=2)
    explicit_stack = cdk.Stack(cdk.App(context=AZ_CONTEXT), "Ingest", env=ENV)
    GrpcEdgeToOrigin(explicit_stack, "P", zone=_zone(explicit_stack), origin_name="o.example.com", service_name="s", max_azs=2)
    agnostic, explicit = (Template.from_stack(s).to_json() for s in (agnostic_stack, explicit_stack))
    assert _named_ids(agnostic) == _named_ids(explicit)
    ids, set_ids = _named_ids(explicit)
    assert len(ids) == 12 and any(re.fullmatch(r"PFleetNlb1EipZone1[0-9A-F]{8}", i) for i in ids)
    assert set_ids == sorted(f"origin-nlb{n}-zone{z}" for n in (1, 2) for z in (1, 2))


# -- the cluster's VPC ------------------------------------------------------------------------
def _provider(stack: cdk.Stack) -> eks.IKubectlProvider:
    return eks.KubectlProvider.from_kubectl_provider_attributes(
        stack, "Kubectl", function_arn=f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:kubectl",
        handler_role=iam.Role.from_role_arn(stack, "HandlerRole", f"arn:aws:iam::{ACCOUNT}:role/kubectl-handler"),
        kubectl_role_arn=f"arn:aws:iam::{ACCOUNT}:role/kubectl",
    )


def test_cluster_without_vpc_puts_the_nlbs_in_the_clusters_vpc() -> None:
    stack = cdk.Stack(cdk.App(), "S", env=ENV)
    cluster = eks.Cluster.from_cluster_attributes(
        stack, "Cluster", cluster_name="prod", vpc=_vpc(stack), kubectl_provider=_provider(stack)
    )
    pattern = GrpcEdgeToOrigin(stack, "P", zone=_zone(stack), origin_name="o.example.com", service_name="s", cluster=cluster)
    template = Template.from_stack(stack).to_json()
    assert not _of_type(template, "AWS::EC2::VPC")
    mappings = [m["SubnetId"] for r in _of_type(template, "AWS::ElasticLoadBalancingV2::LoadBalancer").values()
                for m in r["Properties"]["SubnetMappings"]]
    assert set(mappings) == {"subnet-aaaa1111", "subnet-bbbb2222"}
    assert pattern.fleet.vpc is cluster.vpc or pattern.fleet.vpc.vpc_id == "vpc-0123456789abcdef0"


def test_cluster_that_does_not_know_its_vpc_is_a_clear_error() -> None:
    stack = cdk.Stack(cdk.App(), "S", env=ENV)
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="prod", kubectl_provider=_provider(stack))
    with pytest.raises(EdgeOriginPropError, match=r"invalid cluster='prod'; allowed: a cluster that knows its VPC"):
        GrpcEdgeToOrigin(stack, "P", zone=_zone(stack), origin_name="o.example.com", service_name="s", cluster=cluster)


# -- TLS listeners ----------------------------------------------------------------------------
CERT = f"arn:aws:acm:us-east-1:{ACCOUNT}:certificate/0123abcd-0000-0000-0000-000000000000"


def test_tls_listener_refuses_an_idle_timeout_and_sets_none() -> None:
    stack = cdk.Stack(cdk.App(), "S", env=ENV)
    with pytest.raises(EdgeOriginPropError, match=r"idle_timeout='Duration.seconds\(600\)'; allowed: unset with listener_protocol='TLS'.*350 s"):
        OriginFleet(stack, "Bad", vpc=_vpc(stack), nlb_count=1, listener_protocol="TLS",
                    listener_certificate_arns=[CERT], idle_timeout=cdk.Duration.seconds(600))
    with pytest.raises(EdgeOriginPropError, match="listener_certificate_arns=None"):
        OriginFleet(stack, "NoCert", vpc=_vpc(stack), nlb_count=1, listener_protocol="TLS")
    fleet = OriginFleet(stack, "Tls", vpc=_vpc(stack), nlb_count=1, listener_protocol="TLS", listener_certificate_arns=[CERT])
    assert fleet.idle_timeout_seconds == 350
    (listener,) = _of_type(Template.from_stack(stack).to_json(), "AWS::ElasticLoadBalancingV2::Listener").values()
    assert listener["Properties"]["Protocol"] == "TLS"
    assert "tcp.idle_timeout.seconds" not in str(listener["Properties"].get("ListenerAttributes", []))


# -- outputs and operability ------------------------------------------------------------------
def test_reference_outputs_name_every_part(reference_template: dict) -> None:
    outputs = reference_template["Outputs"]
    values = [str(o["Value"]) for o in outputs.values()]
    eips = _of_type(reference_template, "AWS::EC2::EIP")
    nlbs = _of_type(reference_template, "AWS::ElasticLoadBalancingV2::LoadBalancer")
    groups = _of_type(reference_template, "AWS::ElasticLoadBalancingV2::TargetGroup")
    (dist,) = _of_type(reference_template, "AWS::CloudFront::Distribution")
    for eip in eips:
        assert str({"Ref": eip}) in values and str({"Fn::GetAtt": [eip, "AllocationId"]}) in values
    for nlb in nlbs:
        assert str({"Ref": nlb}) in values and str({"Fn::GetAtt": [nlb, "DNSName"]}) in values
    for group in groups:
        assert str({"Ref": group}) in values
    assert str({"Ref": dist}) in values and str({"Fn::GetAtt": [dist, "DomainName"]}) in values
    assert not [o for o in outputs.values() if "Export" in o and "Bootstrap" not in str(o)]


def test_reference_operability_defaults(reference_template: dict) -> None:
    for eip in _of_type(reference_template, "AWS::EC2::EIP").values():
        assert eip["DeletionPolicy"] == "Retain" and eip["UpdateReplacePolicy"] == "Retain"
    for nlb in _of_type(reference_template, "AWS::ElasticLoadBalancingV2::LoadBalancer").values():
        assert {"Key": "deletion_protection.enabled", "Value": "true"} in nlb["Properties"]["LoadBalancerAttributes"]
        assert {"Key": "Name", "Value": nlb["Properties"]["Tags"][0]["Value"]} in nlb["Properties"]["Tags"]
    names = [
        {t["Key"]: t["Value"] for t in c["Properties"]["HealthCheckTags"]}["Name"]
        for c in _of_type(reference_template, "AWS::Route53::HealthCheck").values()
    ]
    assert sorted(names) == sorted(f"origin.telemetry.example.com origin-nlb{n}-zone{z}" for n in (1, 2) for z in (1, 2, 3))


@pytest.fixture(scope="module")
def operable() -> tuple[GrpcEdgeToOrigin, dict, cdk.cx_api.CloudAssembly]:
    app = cdk.App()
    stack = cdk.Stack(app, "Ops", env=ENV)
    certificate = cdk.aws_certificatemanager.Certificate.from_certificate_arn(stack, "Cert", CERT)
    domain_zone = route53.PublicHostedZone.from_public_hosted_zone_attributes(
        stack, "Public", hosted_zone_id="Z2", zone_name="grpc.example.net"
    )
    pattern = GrpcEdgeToOrigin(
        stack, "P", zone=_zone(stack), origin_name="o.example.com", service_name="s", vpc=_vpc(stack), nlb_count=1,
        tags={"team": "ingest", "cost-center": "42"}, deletion_protection=False,
        eip_removal_policy=cdk.RemovalPolicy.DESTROY, access_logs_bucket=s3.Bucket.from_bucket_name(stack, "Logs", "logs"),
        domain_names=["api.grpc.example.net"], certificate=certificate, domain_zone=domain_zone, export_prefix="ingest",
    )
    assembly = app.synth()
    return pattern, assembly.get_stack_by_name("Ops").template, assembly


def test_tags_reach_nlbs_target_groups_eips_and_health_checks(operable) -> None:
    _, template, _ = operable
    for type_ in ("AWS::ElasticLoadBalancingV2::LoadBalancer", "AWS::ElasticLoadBalancingV2::TargetGroup", "AWS::EC2::EIP"):
        assert _of_type(template, type_), type_  # the inner loop has something to check
        for resource in _of_type(template, type_).values():
            tags = {t["Key"]: t["Value"] for t in resource["Properties"]["Tags"]}
            assert tags["team"] == "ingest" and tags["cost-center"] == "42" and tags["Name"].startswith("origin-nlb1"), type_
    assert _of_type(template, "AWS::Route53::HealthCheck")
    for check in _of_type(template, "AWS::Route53::HealthCheck").values():
        tags = {t["Key"]: t["Value"] for t in check["Properties"]["HealthCheckTags"]}
        assert tags["team"] == "ingest" and tags["Name"].startswith("o.example.com origin-nlb1-zone")


def test_removal_policy_deletion_protection_access_logs_and_exports(operable) -> None:
    _, template, assembly = operable
    assert {e["DeletionPolicy"] for e in _of_type(template, "AWS::EC2::EIP").values()} == {"Delete"}
    (nlb,) = _of_type(template, "AWS::ElasticLoadBalancingV2::LoadBalancer").values()
    attributes = {a["Key"]: a["Value"] for a in nlb["Properties"]["LoadBalancerAttributes"]}
    assert attributes.get("deletion_protection.enabled", "false") == "false"
    assert attributes["access_logs.s3.enabled"] == "true" and attributes["access_logs.s3.bucket"] == "logs"
    assert any("write access logs only for TLS listeners" in t for t in _warnings(assembly)["Ops"])
    exports = sorted(o["Export"]["Name"] for o in template["Outputs"].values() if "Export" in o)
    assert "ingest-DistributionId" in exports and "ingest-Nlb1EipZone1Address" in exports
    assert "ingest-Nlb1Arn" in exports and "ingest-Nlb1DnsName" in exports


def test_alias_records_for_domain_names_in_the_given_zone(operable) -> None:
    _, template, _ = operable
    aliases = [r["Properties"] for r in _of_type(template, "AWS::Route53::RecordSet").values() if "AliasTarget" in r["Properties"]]
    assert sorted(a["Type"] for a in aliases) == ["A", "AAAA"]
    assert {a["Name"] for a in aliases} == {"api.grpc.example.net."} and {a["HostedZoneId"] for a in aliases} == {"Z2"}


def test_bindings_open_the_pods_to_the_nlb_security_groups(operable) -> None:
    pattern, _, _ = operable
    (binding,) = [m for m in yaml.safe_load_all(pattern.bindings.render_yaml()) if m["kind"] == "TargetGroupBinding"]
    (rule,) = binding["spec"]["networking"]["ingress"]
    assert sorted(p["port"] for p in rule["ports"]) == [8081, 8443]
    assert len(rule["from"]) == len(pattern.fleet.members[0].security_groups)
    assert all(re.fullmatch(r"\$\{Ops\.\w+\}", f["securityGroup"]["groupID"]) for f in rule["from"])


# -- zones, names shared across the app -------------------------------------------------------
def test_private_zone_for_the_public_pattern_is_refused_and_public_zone_for_internal_warned() -> None:
    stack = cdk.Stack(cdk.App(), "S", env=ENV)
    private = route53.PrivateHostedZone(stack, "Private", zone_name="example.com", vpc=_vpc(stack))
    with pytest.raises(EdgeOriginPropError, match="invalid zone='example.com'; allowed: a public hosted zone"):
        GrpcEdgeToOrigin(stack, "P", zone=private, origin_name="o.example.com", service_name="s")
    app = cdk.App()
    stack = cdk.Stack(app, "I", env=ENV)
    public = route53.PublicHostedZone.from_public_hosted_zone_attributes(stack, "Pub", hosted_zone_id="Z3", zone_name="svc.example")
    with pytest.raises(EdgeOriginPropError, match="allow_public_zone=True"):  # issue 23: an error unless meant
        InternalGrpcOrigin(stack, "T0", zone=public, origin_name="tax.svc.example", service_name="tax", vpc=_vpc(stack), nlb_count=1)
    InternalGrpcOrigin(stack, "T", zone=public, origin_name="tax.svc.example", service_name="tax", vpc=_vpc(stack), nlb_count=1,
                       allow_public_zone=True)
    assert any("is public (allow_public_zone=True): the private addresses" in t for t in _warnings(app.synth())["I"])
    by_id = route53.PrivateHostedZone.from_private_hosted_zone_id(stack, "ById", "Z9")
    with pytest.raises(EdgeOriginPropError, match="allowed: a zone whose name is known"):
        InternalGrpcOrigin(stack, "U", zone=by_id, origin_name="tax.svc.example", service_name="tax", vpc=_vpc(stack))


def test_same_set_identifiers_for_one_name_across_stacks_fail() -> None:
    app = cdk.App()
    first = cdk.Stack(app, "East", env=ENV)
    GrpcEdgeToOrigin(first, "P", zone=_zone(first), origin_name="o.example.com", service_name="s", vpc=_vpc(first), nlb_count=1)
    second = cdk.Stack(app, "West", env=cdk.Environment(account=ACCOUNT, region="us-west-2"))
    vpc = ec2.Vpc.from_vpc_attributes(second, "Vpc", vpc_id="vpc-2", vpc_cidr_block="10.2.0.0/16",
                                      availability_zones=["us-west-2a", "us-west-2b"], public_subnet_ids=["subnet-5", "subnet-6"])
    with pytest.raises(EdgeOriginPropError, match=r"set_identifier='origin-nlb1-zone1'.*East/P/Records.*name_prefix"):
        GrpcEdgeToOrigin(second, "P", zone=_zone(second), origin_name="o.example.com", service_name="s", vpc=vpc, nlb_count=1)
    third = cdk.Stack(app, "West2", env=cdk.Environment(account=ACCOUNT, region="us-west-2"))
    vpc = ec2.Vpc.from_vpc_attributes(third, "Vpc", vpc_id="vpc-3", vpc_cidr_block="10.3.0.0/16",
                                      availability_zones=["us-west-2a", "us-west-2b"], public_subnet_ids=["subnet-7", "subnet-8"])
    GrpcEdgeToOrigin(third, "P", zone=_zone(third), origin_name="o.example.com", service_name="s", vpc=vpc, nlb_count=1,
                     name_prefix="west")
    assert any("also writes multivalue records for o.example.com" in t for t in _warnings(app.synth())["West2"])


# -- internal origins in the report -----------------------------------------------------------
def test_report_and_rules_cover_an_internal_origin() -> None:
    stack = cdk.Stack(cdk.App(), "Internal", env=ENV)
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Zn", hosted_zone_id="Z7", zone_name="svc.internal")
    InternalGrpcOrigin(stack, "Tax", zone=zone, origin_name="tax.svc.internal", service_name="tax", vpc=_vpc(stack))
    model = TemplateModel.from_templates({"Internal": Template.from_stack(stack).to_json()})
    assert model.origin_names() == {"tax.svc.internal": "grpc"}
    from edge_origin.rules import run_rules

    findings = run_rules(model)
    assert not [f for f in findings if f.severity.value == "error"], findings
    text = render_markdown(model, findings)
    assert "### tax.svc.internal (grpc)" in text and "origin-nlb2-zone2" in text
    assert "No gRPC or long-lived CloudFront origins found" not in text


# -- bad input named, not a jsii error --------------------------------------------------------
def test_imported_vpc_without_cidr_and_sub_second_durations_name_the_prop() -> None:
    stack = cdk.Stack(cdk.App(), "S", env=ENV)
    with pytest.raises(EdgeOriginPropError, match=r"invalid vpc='an imported VPC without vpc_cidr_block'; allowed: .*vpc_cidr_block"):
        OriginFleet(stack, "F", vpc=_vpc(stack, cidr=None), nlb_count=1)
    with pytest.raises(EdgeOriginPropError, match=r"invalid deregistration_delay='1.5s'; allowed: whole seconds in 0..3600"):
        OriginFleet(stack, "G", nlb_count=1, deregistration_delay=cdk.Duration.millis(1500))
    with pytest.raises(EdgeOriginPropError, match=r"invalid domain_names='grpc.example.com'; allowed: a list of strings"):
        GrpcEdgeToOrigin(stack, "P", zone=_zone(stack), origin_name="o.example.com", service_name="s",
                         domain_names="grpc.example.com")
    with pytest.raises(EdgeOriginPropError, match=r"invalid addresses='192.0.2.1'; allowed: OriginAddress"):
        MultivalueOriginRecords(stack, "R", zone=_zone(stack), record_name="o.example.com", addresses=["192.0.2.1"])


def test_cluster_vpc_with_one_public_zone_names_the_cluster() -> None:
    stack = cdk.Stack(cdk.App(), "S", env=ENV)
    vpc = ec2.Vpc.from_vpc_attributes(stack, "OneZone", vpc_id="vpc-1", vpc_cidr_block="10.0.0.0/16",
                                      availability_zones=["us-east-1a"], public_subnet_ids=["subnet-1"])
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="prod", vpc=vpc, kubectl_provider=_provider(stack))
    with pytest.raises(EdgeOriginPropError, match=r"invalid cluster='prod \(its VPC: 1 zone\(s\) with public subnets\)'; allowed: at least 2 zones; or pass vpc="):
        GrpcEdgeToOrigin(stack, "P", zone=_zone(stack), origin_name="o.example.com", service_name="s", cluster=cluster)


@pytest.mark.parametrize(("value", "fires"), [("10.0.0.5", False), ("10.0.0.9", True)])
def test_eo_nlb2_takes_an_internal_nlbs_private_address_only(value: str, fires: bool) -> None:
    from edge_origin.rules import run_rules

    template = {
        "Resources": {
            "Nlb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {
                "Type": "network", "Scheme": "internal",
                "SubnetMappings": [{"SubnetId": "subnet-1", "PrivateIPv4Address": "10.0.0.5"}]}},
            "Check": {"Type": "AWS::Route53::HealthCheck", "Properties": {
                "HealthCheckConfig": {"Type": "CLOUDWATCH_METRIC", "AlarmIdentifier": {"Name": "a", "Region": "us-east-1"}}}},
            "Record": {"Type": "AWS::Route53::RecordSet", "Metadata": {"edge-origin:grpc-origin": True}, "Properties": {
                "Name": "tax.svc.internal.", "Type": "A", "HostedZoneId": "Z1", "TTL": "30", "MultiValueAnswer": True,
                "SetIdentifier": "a", "HealthCheckId": {"Ref": "Check"}, "ResourceRecords": [value]}},
        }
    }
    findings = [f for f in run_rules(TemplateModel.from_templates({"S": template})) if f.rule == "EO-NLB2"]
    assert bool(findings) is fires, findings
