"""Regenerate the cloud-assembly corpus of issue 49: one app, rewritten the ways CDK deploys it.

Every folder here is a cloud assembly the real aws-cdk-lib synthesizes (no edge-origin constructs):
``<scenario>-<layout>``. A scenario is what is judged (weighted aliases to two NLBs, keep-alive at
the NLB's idle timeout, a correct multivalue fleet of EIPs, aliases to NLB names kept in a
mapping); a layout is where CDK puts it:

- ``flat``: one stack;
- ``nested``: the NLBs (and EIPs) in a ``NestedStack`` (values cross as ``Outputs.X``);
- ``nestedfront``: the records and the distribution in a ``NestedStack`` (values cross as Parameters);
- ``split``: two stacks of one Region (CDK's automatic exports);
- ``regions`` / ``regionsreverse``: two Regions with ``crossRegionReferences`` (export writer and
  reader), the NLBs in eu-west-1 and the edge in us-east-1, then the other way round;
- ``include``: the flat template read through ``cloudformation_include.CfnInclude`` with the
  record names (and origin name) from ``Fn::FindInMap [..., {Ref: AWS::Region}, ...]``;
- ``includenested``: a legacy parent and nested child (the load balancers in the child) included with
  ``CfnInclude(load_nested_stacks=...)``;
- ``nestedtwice``, ``staged``, ``splitnested``, ``regionsnested``: nested stacks inside nested stacks,
  inside a Stage, and on both sides of two stacks / two Regions; ``ssm``: two stacks sharing names and
  addresses through ``ssm.StringParameter`` / ``value_for_string_parameter``;
- ``accounts``: the NLBs in another account and Region (``Fn::GetStackOutput`` of an Output);
- ``agnostic`` (the mapped scenario only): the same, in an environment-agnostic stack: the Region is
  unknown, so nothing read through the mapping is judged.

The property (tests/assembly/test_assembly_corpus.py): every layout gets the flat layout's findings.

    PYTHONPATH=constructs python tests/assembly/corpus/generate.py   # rewrites the folders here

``VERSION`` records the aws-cdk-lib that wrote them; a slow test synthesizes them again and compares.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_route53_targets as targets
from aws_cdk import aws_ssm as ssm
from aws_cdk import cloudformation_include as cfn_inc
from constructs import Construct

HERE = Path(__file__).resolve().parent
ORIGIN = "api.example.com"
ACCOUNT = "111111111111"
HOME = cdk.Environment(account=ACCOUNT, region="eu-west-1")
EDGE = cdk.Environment(account=ACCOUNT, region="us-east-1")
ZONES = ("eu-west-1a", "eu-west-1b")
#: NLB DNS names and their canonical zone (eu-west-1's NLB zone id, ELB endpoints table) kept in a mapping
MAPPED_NLBS = {
    "eu-west-1": {"Nlb0": "origin-0-0123456789abcdef.elb.eu-west-1.amazonaws.com",
                  "Nlb1": "origin-1-0123456789abcdef.elb.eu-west-1.amazonaws.com"},
    "us-east-1": {"Nlb0": "origin-0-fedcba9876543210.elb.us-east-1.amazonaws.com",
                  "Nlb1": "origin-0-fedcba9876543210.elb.us-east-1.amazonaws.com"},
}
NLB_ZONE_ID = {"eu-west-1": "Z2IFOLAFXWLO4F", "us-east-1": "Z26RNL4JYFTOTI"}


# --- the two halves of every app: the origins (NLBs) and the edge (records, distribution) -------------
def _subnets(scope: Construct) -> list[ec2.ISubnet]:
    return [ec2.Subnet.from_subnet_attributes(scope, f"Subnet{i}", subnet_id=f"subnet-0000000000000000{i}", availability_zone=az)
            for i, az in enumerate(ZONES)]


def _vpc(scope: Construct) -> ec2.IVpc:
    return ec2.Vpc.from_vpc_attributes(scope, "Vpc", vpc_id="vpc-00000000000000001", availability_zones=list(ZONES),
                                       public_subnet_ids=[f"subnet-0000000000000000{i}" for i in range(len(ZONES))])


def _nlb(scope: Construct, cid: str, *, idle_s: int = 300, eips: bool = False) -> elbv2.NetworkLoadBalancer:
    extra: dict[str, Any] = {}
    if eips:
        allocations = [ec2.CfnEIP(scope, f"{cid}Eip{i}", domain="vpc") for i in range(len(ZONES))]
        extra["subnet_mappings"] = [elbv2.SubnetMapping(subnet=s, allocation_id=e.attr_allocation_id)
                                    for s, e in zip(_subnets(Construct(scope, f"{cid}Subnets")), allocations, strict=True)]
    nlb = elbv2.NetworkLoadBalancer(scope, cid, vpc=_vpc(Construct(scope, f"{cid}Net")), internet_facing=True, cross_zone_enabled=True, **extra)
    listener = nlb.add_listener("Tcp", port=443, tcp_idle_timeout=cdk.Duration.seconds(idle_s))
    group = listener.add_targets("Pods", port=443, targets=[])
    group.set_attribute("deregistration_delay.connection_termination.enabled", "true")
    # AWS's default (unset) is true: every stream of a pod that fails one health check is reset (EO-NLB3)
    group.set_attribute("target_health_state.unhealthy.connection_termination.enabled", "false")
    return nlb


def _distribution(scope: Construct, origin: str = ORIGIN, *, keepalive_s: int | None = None) -> None:
    extra: dict[str, Any] = {"keepalive_timeout": cdk.Duration.seconds(keepalive_s)} if keepalive_s else {}
    cloudfront.Distribution(
        scope, "Edge",
        default_behavior=cloudfront.BehaviorOptions(
            origin=origins.HttpOrigin(origin, protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY, **extra),
            allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
            cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
            enable_grpc=True,
        ),
    )


def _zone(scope: Construct) -> route53.IHostedZone:
    return route53.PublicHostedZone(scope, "Zone", zone_name="example.com")


class Scenario:
    """What is judged: ``origins(scope)`` makes the NLBs and returns what the edge reads;
    ``edge(scope, made)`` makes the records and the distribution."""

    name = ""

    def origins(self, scope: Construct) -> Any:
        raise NotImplementedError

    def edge(self, scope: Construct, made: Any) -> None:
        raise NotImplementedError

    def via_ssm(self, producer: Construct, consumer: Construct, made: Any) -> Any:
        """What the edge reads, passed through SSM parameters (``ssm.StringParameter`` in the producer,
        ``value_for_string_parameter`` in the consumer: a parameter of type AWS::SSM::Parameter::Value<String>)."""
        raise NotImplementedError


def _nlbs_via_ssm(producer: Construct, consumer: Construct, nlbs: list[elbv2.NetworkLoadBalancer]) -> list[elbv2.INetworkLoadBalancer]:
    out: list[elbv2.INetworkLoadBalancer] = []
    for i, nlb in enumerate(nlbs):
        ssm.StringParameter(producer, f"Nlb{i}Dns", parameter_name=f"/origins/nlb{i}/dns", string_value=nlb.load_balancer_dns_name)
        ssm.StringParameter(producer, f"Nlb{i}Zone", parameter_name=f"/origins/nlb{i}/zone",
                            string_value=nlb.load_balancer_canonical_hosted_zone_id)
        out.append(elbv2.NetworkLoadBalancer.from_network_load_balancer_attributes(
            consumer, f"Imported{i}", load_balancer_arn=f"arn:aws:elasticloadbalancing:eu-west-1:{ACCOUNT}:loadbalancer/net/origin/{i}",
            load_balancer_dns_name=ssm.StringParameter.value_for_string_parameter(consumer, f"/origins/nlb{i}/dns"),
            load_balancer_canonical_hosted_zone_id=ssm.StringParameter.value_for_string_parameter(consumer, f"/origins/nlb{i}/zone")))
    return out


class _Ip:
    """An EIP as the edge reads it: its public IP."""

    def __init__(self, attr_public_ip: str) -> None:
        self.attr_public_ip = attr_public_ip


class Weighted(Scenario):
    """Weighted LoadBalancerTarget aliases to two NLBs behind a gRPC origin: EO-DNS1."""

    name = "weighted"

    def origins(self, scope: Construct) -> list[elbv2.NetworkLoadBalancer]:
        return [_nlb(scope, f"Nlb{i}") for i in range(2)]

    def via_ssm(self, producer: Construct, consumer: Construct, made: list[elbv2.NetworkLoadBalancer]) -> Any:
        return _nlbs_via_ssm(producer, consumer, made)

    def edge(self, scope: Construct, made: list[elbv2.NetworkLoadBalancer]) -> None:
        zone = _zone(scope)
        for i, nlb in enumerate(made):
            route53.ARecord(scope, f"Weighted{i}", zone=zone, record_name="api", weight=1, set_identifier=f"w{i}",
                            target=route53.RecordTarget.from_alias(targets.LoadBalancerTarget(nlb)))
        _distribution(scope)


class Keepalive(Scenario):
    """CloudFront's origin keep-alive equal to the NLB's TCP idle timeout (60 s), behind an alias: EO-CF2."""

    name = "keepalive"

    def origins(self, scope: Construct) -> elbv2.NetworkLoadBalancer:
        return _nlb(scope, "Nlb0", idle_s=60)

    def via_ssm(self, producer: Construct, consumer: Construct, made: elbv2.NetworkLoadBalancer) -> Any:
        return _nlbs_via_ssm(producer, consumer, [made])[0]

    def edge(self, scope: Construct, made: elbv2.NetworkLoadBalancer) -> None:
        route53.ARecord(scope, "Simple", zone=_zone(scope), record_name="api",
                        target=route53.RecordTarget.from_alias(targets.LoadBalancerTarget(made)))
        _distribution(scope, keepalive_s=60)


class Fleet(Scenario):
    """The correct design: two NLBs with an EIP a zone, health-checked multivalue A records of the
    four EIPs, TTL 60: quiet (no error)."""

    name = "fleet"

    def origins(self, scope: Construct) -> list[ec2.CfnEIP]:
        for i in range(2):
            _nlb(scope, f"Nlb{i}", eips=True)
        return [c for c in scope.node.find_all() if isinstance(c, ec2.CfnEIP)]

    def via_ssm(self, producer: Construct, consumer: Construct, made: list[ec2.CfnEIP]) -> Any:
        out = []
        for i, eip in enumerate(made):
            ssm.StringParameter(producer, f"Ip{i}", parameter_name=f"/origins/ip{i}", string_value=eip.attr_public_ip)
            out.append(_Ip(ssm.StringParameter.value_for_string_parameter(consumer, f"/origins/ip{i}")))
        return out

    def edge(self, scope: Construct, made: list[ec2.CfnEIP]) -> None:
        zone = _zone(scope)
        for i, eip in enumerate(made):
            check = route53.HealthCheck(scope, f"Check{i}", type=route53.HealthCheckType.TCP, ip_address=eip.attr_public_ip, port=443)
            route53.ARecord(scope, f"Multi{i}", zone=zone, record_name="api", multi_value_answer=True, set_identifier=f"m{i}",
                            health_check=check, ttl=cdk.Duration.seconds(60),
                            target=route53.RecordTarget.from_ip_addresses(eip.attr_public_ip))
        _distribution(scope)


class Mapped(Scenario):
    """Weighted aliases to NLBs known only by their DNS names (another team's NLBs): in the flat layout
    as literals, in ``include``/``agnostic`` from ``Fn::FindInMap [OriginNlbs, {Ref: AWS::Region}, ...]``."""

    name = "mapped"

    def origins(self, scope: Construct) -> None:
        return None

    def edge(self, scope: Construct, made: None) -> None:
        zone = _zone(scope)
        for i in range(2):
            route53.CfnRecordSet(scope, f"Weighted{i}", hosted_zone_id=zone.hosted_zone_id, name=f"{ORIGIN}.", type="A",
                                 weight=1, set_identifier=f"w{i}",
                                 alias_target=route53.CfnRecordSet.AliasTargetProperty(
                                     dns_name=f"dualstack.{MAPPED_NLBS['eu-west-1'][f'Nlb{i}']}",
                                     hosted_zone_id=NLB_ZONE_ID["eu-west-1"]))
        _distribution(scope)


SCENARIOS: dict[str, Scenario] = {s.name: s for s in (Weighted(), Keepalive(), Fleet(), Mapped())}


# --- layouts --------------------------------------------------------------------------------------------
def flat(app: cdk.App, s: Scenario) -> None:
    stack = cdk.Stack(app, "App", env=HOME)
    s.edge(stack, s.origins(stack))


def nested(app: cdk.App, s: Scenario) -> None:
    stack = cdk.Stack(app, "App", env=HOME)
    s.edge(stack, s.origins(cdk.NestedStack(stack, "Origins")))


def nested_front(app: cdk.App, s: Scenario) -> None:
    stack = cdk.Stack(app, "App", env=HOME)
    s.edge(cdk.NestedStack(stack, "Front"), s.origins(stack))


def nested_twice(app: cdk.App, s: Scenario) -> None:
    stack = cdk.Stack(app, "App", env=HOME)
    s.edge(cdk.NestedStack(stack, "Front"), s.origins(cdk.NestedStack(cdk.NestedStack(stack, "Outer"), "Origins")))


def staged(app: cdk.App, s: Scenario) -> None:
    """A Stage (a nested cloud assembly) whose stack nests the origins."""
    nested(cdk.Stage(app, "Prod", env=HOME), s)  # type: ignore[arg-type]


def split_nested(app: cdk.App, s: Scenario) -> None:
    """The origins nested in one stack, the edge nested in another of the same Region (exports
    through parameters of both nested stacks)."""
    made = s.origins(cdk.NestedStack(cdk.Stack(app, "Origins", env=HOME), "Lbs"))
    s.edge(cdk.NestedStack(cdk.Stack(app, "Front", env=HOME), "Records"), made)


def regions_nested(app: cdk.App, s: Scenario) -> None:
    """Two Regions, each side in a nested stack of its Region's stack."""
    made = s.origins(cdk.NestedStack(cdk.Stack(app, "Origins", env=HOME, cross_region_references=True), "Lbs"))
    s.edge(cdk.NestedStack(cdk.Stack(app, "Front", env=EDGE, cross_region_references=True), "Records"), made)


def split(app: cdk.App, s: Scenario) -> None:
    made = s.origins(cdk.Stack(app, "Origins", env=HOME))
    s.edge(cdk.Stack(app, "Front", env=HOME), made)


def through_ssm(app: cdk.App, s: Scenario) -> None:
    """Two stacks of one Region sharing names and addresses through SSM parameters (no exports)."""
    producer = cdk.Stack(app, "Origins", env=HOME)
    consumer = cdk.Stack(app, "Front", env=HOME)
    consumer.add_dependency(producer)
    s.edge(consumer, s.via_ssm(producer, consumer, s.origins(producer)))


def _regions(app: cdk.App, s: Scenario, origin_env: cdk.Environment, edge_env: cdk.Environment) -> None:
    made = s.origins(cdk.Stack(app, "Origins", env=origin_env, cross_region_references=True))
    s.edge(cdk.Stack(app, "Front", env=edge_env, cross_region_references=True), made)


def regions(app: cdk.App, s: Scenario) -> None:
    _regions(app, s, HOME, EDGE)


def regions_reverse(app: cdk.App, s: Scenario) -> None:
    _regions(app, s, EDGE, HOME)


def accounts(app: cdk.App, s: Scenario) -> None:
    """The NLBs in another account (and Region): aws-cdk-lib reads their values with
    ``Fn::GetStackOutput`` of an Output it adds to the producing stack (``crossRegionReferences``)."""
    _regions(app, s, cdk.Environment(account="222222222222", region="eu-west-1"), EDGE)


def _legacy(flat_template: dict[str, Any], scenario: str) -> dict[str, Any]:
    """The flat template as a hand-kept legacy one: CDK's bootstrap bits dropped, the record names
    (and the origin name) from a mapping by Region; the mapped scenario's alias targets too."""
    body = copy.deepcopy(flat_template)
    for key in ("Parameters", "Rules"):
        body.pop(key, None)
    body["Resources"].pop("CDKMetadata", None)
    body["Conditions"] = {k: v for k, v in body.get("Conditions", {}).items() if k != "CDKMetadataAvailable"} or None
    if body["Conditions"] is None:
        del body["Conditions"]
    rows = {region: {"Name": f"{ORIGIN}.", "Host": f"{ORIGIN}:443"} for region in ("eu-west-1", "us-east-1")}
    body["Mappings"] = {"Origin": rows}
    by_region = {"Ref": "AWS::Region"}
    for res in body["Resources"].values():
        props = res.get("Properties", {})
        if res["Type"] == "AWS::Route53::RecordSet":
            props["Name"] = {"Fn::FindInMap": ["Origin", by_region, "Name"]}
            alias = props.get("AliasTarget", {})
            if scenario == "mapped":
                i = res["Properties"]["SetIdentifier"][1:]
                alias["DNSName"] = {"Fn::Join": ["", ["dualstack.", {"Fn::FindInMap": ["OriginNlbs", by_region, f"Nlb{i}"]}]]}
                alias["HostedZoneId"] = {"Fn::FindInMap": ["OriginNlbs", by_region, "ZoneId"]}
        if res["Type"] == "AWS::CloudFront::Distribution":
            for origin in props["DistributionConfig"]["Origins"]:
                # host:port kept together in the mapping; Fn::Select/Fn::Split take the host out
                origin["DomainName"] = {"Fn::Select": [0, {"Fn::Split": [":", {"Fn::FindInMap": ["Origin", by_region, "Host"]}]}]}
    if scenario == "mapped":
        body["Mappings"]["OriginNlbs"] = {r: {**names, "ZoneId": NLB_ZONE_ID[r]} for r, names in MAPPED_NLBS.items()}
    return body


def _include(env: cdk.Environment | None) -> Callable[[cdk.App, Scenario], None]:
    def layout(app: cdk.App, s: Scenario) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = synthesize_app(flat, s, Path(tmp) / "flat")
            legacy = Path(tmp) / "legacy.json"
            legacy.write_text(json.dumps(_legacy(json.loads((out / "App.template.json").read_text()), s.name)))
            stack = cdk.Stack(app, "App", env=env)
            cfn_inc.CfnInclude(stack, "Legacy", template_file=str(legacy))
            app.synth()  # while the legacy file exists
    return layout


def _include_nested(app: cdk.App, s: Scenario) -> None:
    """A legacy parent and its nested legacy child (the load balancers moved there, read back through
    Parameters and Outputs) included with ``CfnInclude(load_nested_stacks=...)``: CDK writes the child
    as the nested stack's asset."""
    sys.path.insert(0, str(HERE.parent))
    try:
        from rewrites import nest  # tests/assembly/rewrites.py: the same rewrite the property test makes
    finally:
        sys.path.remove(str(HERE.parent))
    from edge_origin.model.assembly import StackEnvironment

    with tempfile.TemporaryDirectory() as tmp:
        out = synthesize_app(flat, s, Path(tmp) / "flat")
        body = _legacy(json.loads((out / "App.template.json").read_text()), s.name)
        body.pop("Mappings", None)
        for res in body["Resources"].values():  # names literal again: this layout is about the nesting
            if res["Type"] == "AWS::Route53::RecordSet":
                res["Properties"]["Name"] = f"{ORIGIN}."
            if res["Type"] == "AWS::CloudFront::Distribution":
                for origin in res["Properties"]["DistributionConfig"]["Origins"]:
                    origin["DomainName"] = ORIGIN
        moved = {k for k, v in body["Resources"].items() if v["Type"].startswith(("AWS::ElasticLoadBalancingV2::", "AWS::EC2::"))}
        parent, child = nest("App", body, moved, StackEnvironment())
        (Path(tmp) / "parent.json").write_text(json.dumps(parent.body))
        (Path(tmp) / "child.json").write_text(json.dumps(child.body))
        stack = cdk.Stack(app, "App", env=HOME)
        cfn_inc.CfnInclude(stack, "Legacy", template_file=str(Path(tmp) / "parent.json"),
                           load_nested_stacks={"KidStack": cfn_inc.CfnIncludeProps(template_file=str(Path(tmp) / "child.json"))})
        app.synth()


LAYOUTS: dict[str, Callable[[cdk.App, Scenario], None]] = {
    "flat": flat,
    "nested": nested,
    "nestedfront": nested_front,
    "nestedtwice": nested_twice,
    "staged": staged,
    "split": split,
    "splitnested": split_nested,
    "regionsnested": regions_nested,
    "ssm": through_ssm,
    "regions": regions,
    "regionsreverse": regions_reverse,
    "accounts": accounts,
    "include": _include(HOME),
    "includenested": _include_nested,
}
#: scenario -> layouts it is written in (mapped: the names live in a mapping, so only include
#: rewrites it; agnostic: an environment-agnostic stack, the Region unknown)
WRITTEN = {name: [*LAYOUTS, *(["agnostic"] if name == "mapped" else [])] for name in SCENARIOS}
WRITTEN["mapped"] = ["flat", "include", "agnostic"]


def synthesize_app(layout: Callable[[cdk.App, Scenario], None], scenario: Scenario, outdir: Path) -> Path:
    """One app (a scenario in a layout) synthesized into ``outdir``, trimmed to what the corpus keeps."""
    if outdir.exists():
        shutil.rmtree(outdir)
    app = cdk.App(outdir=str(outdir), stack_traces=False, analytics_reporting=False, builtin_cloud_formation_validation=False,
                  context={"aws:cdk:enable-path-metadata": True, "aws:cdk:enable-asset-metadata": True})
    layout(app, scenario)
    app.synth()
    trim(outdir)
    return outdir


def trim(outdir: Path) -> None:
    """Keep what a deploy reads (manifest, templates, asset manifests): the construct tree, the
    feature-flag report, metadata files and the custom resources' handler code go."""
    for extra in [*outdir.glob("**/tree.json"), *outdir.glob("**/asset.*"), *outdir.glob("**/*.metadata.json")]:
        shutil.rmtree(extra) if extra.is_dir() else extra.unlink()
    for path in outdir.glob("**/manifest.json"):
        manifest = json.loads(path.read_text())
        artifacts = manifest["artifacts"]
        for key in [k for k, a in artifacts.items() if a.get("type") in ("cdk:tree", "cdk:feature-flag-report")]:
            del artifacts[key]
        for artifact in artifacts.values():
            artifact.pop("additionalMetadataFile", None)
        path.write_text(json.dumps(manifest, indent=1) + "\n")


def layout_of(name: str) -> Callable[[cdk.App, Scenario], None]:
    return _include(None) if name == "agnostic" else LAYOUTS[name]


def synthesize_all(root: Path) -> list[Path]:
    """Every corpus assembly under ``root``."""
    return [synthesize_app(layout_of(layout), SCENARIOS[name], root / f"{name}-{layout}")
            for name, layouts in WRITTEN.items() for layout in layouts]


def main(argv: list[str]) -> int:
    import importlib.metadata

    for old in HERE.iterdir():
        if old.is_dir() and "-" in old.name:
            shutil.rmtree(old)
    written = synthesize_all(HERE)
    version = importlib.metadata.version("aws-cdk-lib")
    (HERE / "VERSION").write_text(f"aws-cdk-lib {version}\n")
    print(f"wrote {len(written)} assemblies under {HERE} (aws-cdk-lib {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
