"""Accounts built through the AWS APIs (on moto), and the template each one is equivalent to.

moto 5.2.5 drops fields this project reads: CloudFront ``GrpcConfig``, NLB
``LoadBalancerAddresses`` (``AllocationId`` in subnet mappings is ignored), and a hosted zone
created with a VPC reads ``Config.PrivateZone: False`` with no ``VPCs`` (Route 53's API reference,
CreateHostedZone: "To create a private hosted zone, ... specify the VPC"). ``fill_moto_gaps`` puts
them back into the parsed responses (an ``after-call`` handler on the client), shaped as the API
reference documents them (``AvailabilityZones[].LoadBalancerAddresses[].AllocationId``,
``DefaultCacheBehavior.GrpcConfig.Enabled``, ``HostedZones[].Config.PrivateZone``,
``GetHostedZone`` ``VPCs``), so the reader sees what real AWS would return.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

ZONES = ("us-east-1a", "us-east-1b")
ORIGIN = "api.example.com"
HOSTED_ZONE = "example.com"


@dataclass
class Nlb:
    name: str
    arn: str
    dns: str
    listener_arn: str
    tg_arn: str
    sg_id: str
    eips: list[dict[str, str]] = field(default_factory=list)  # {"alloc", "ip", "subnet"}


@dataclass
class Zone:
    name: str
    vpc: tuple[str, str] | None = None  # (VPC id, region): a private zone


@dataclass
class Built:
    """What a setup made: ids for assertions, and the moto gaps to fill."""

    zone_id: str = ""  # the last zone made
    zones: dict[str, Zone] = field(default_factory=dict)
    nlbs: list[Nlb] = field(default_factory=list)
    lb_addresses: dict[str, dict[str, list[dict[str, str]]]] = field(default_factory=dict)
    grpc_distributions: set[str] = field(default_factory=set)
    health_checks: list[str] = field(default_factory=list)
    health_check_ips: dict[str, str] = field(default_factory=dict)
    health_check_configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    record_zones: list[str] = field(default_factory=list)  # the zone id of each of ``records``
    origins: list[tuple[str, bool, int]] = field(default_factory=list)  # (domain, grpc, keepalive)
    nlb_options: dict[str, dict[str, Any]] = field(default_factory=dict)


def fill_moto_gaps(session: Any, built: Built) -> None:
    """Register after-call handlers that add what moto drops (see the module docstring)."""

    def lb_addresses(parsed: dict[str, Any], **_: Any) -> None:
        for lb in parsed.get("LoadBalancers", []):
            by_subnet = built.lb_addresses.get(lb["LoadBalancerArn"], {})
            for zone in lb.get("AvailabilityZones", []):
                if zone.get("SubnetId") in by_subnet:
                    zone["LoadBalancerAddresses"] = by_subnet[zone["SubnetId"]]

    def grpc(parsed: dict[str, Any], **_: Any) -> None:
        for dist in (parsed.get("DistributionList") or {}).get("Items", []) or []:
            if dist["Id"] in built.grpc_distributions:
                dist["DefaultCacheBehavior"]["GrpcConfig"] = {"Enabled": True}

    def private_zones(parsed: dict[str, Any], **_: Any) -> None:
        for listed in parsed.get("HostedZones", []):
            made = built.zones.get(listed["Id"].split("/")[-1])
            if made is not None and made.vpc is not None:
                listed.setdefault("Config", {})["PrivateZone"] = True

    def zone_vpcs(parsed: dict[str, Any], **_: Any) -> None:
        made = built.zones.get(((parsed.get("HostedZone") or {}).get("Id") or "").split("/")[-1])
        if made is not None and made.vpc is not None and not parsed.get("VPCs"):
            parsed["VPCs"] = [{"VPCId": made.vpc[0], "VPCRegion": made.vpc[1]}]
            parsed["HostedZone"].setdefault("Config", {})["PrivateZone"] = True

    session.client("elbv2").meta.events.register("after-call.elastic-load-balancing-v2.DescribeLoadBalancers", lb_addresses)
    session.client("cloudfront").meta.events.register("after-call.cloudfront.ListDistributions", grpc)
    session.client("route53").meta.events.register("after-call.route53.ListHostedZones", private_zones)
    session.client("route53").meta.events.register("after-call.route53.GetHostedZone", zone_vpcs)


def vpc(ec2: Any) -> tuple[str, list[str]]:
    vpc_id = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc_id, CidrBlock=f"10.0.{i}.0/24", AvailabilityZone=z)["Subnet"]["SubnetId"]
        for i, z in enumerate(ZONES)
    ]
    return vpc_id, subnets


UNHEALTHY_TERMINATION = "target_health_state.unhealthy.connection_termination.enabled"


def _unhealthy(value: bool | None) -> list[dict[str, str]]:
    """The target group's unhealthy-target termination entry (None: left unset, AWS's default true)."""
    return [] if value is None else [{"Key": UNHEALTHY_TERMINATION, "Value": str(value).lower()}]


def nlb(
    session: Any,
    built: Built,
    name: str,
    vpc_id: str,
    subnets: list[str],
    *,
    idle: int | None = 340,
    termination: bool = True,
    cross_zone: bool = True,
    sg_cidr: str = "0.0.0.0/0",
    unhealthy_termination: bool | None = False,
) -> Nlb:
    ec2, elbv2 = session.client("ec2"), session.client("elbv2")
    sg = ec2.create_security_group(GroupName=f"{name}-sg", Description="nlb", VpcId=vpc_id)["GroupId"]
    ec2.authorize_security_group_ingress(
        GroupId=sg, IpPermissions=[{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "IpRanges": [{"CidrIp": sg_cidr}]}]
    )
    eips = []
    for subnet in subnets:
        addr = ec2.allocate_address(Domain="vpc")
        eips.append({"alloc": addr["AllocationId"], "ip": addr["PublicIp"], "subnet": subnet})
    lb = elbv2.create_load_balancer(
        Name=name, Type="network", Scheme="internet-facing", SecurityGroups=[sg],
        SubnetMappings=[{"SubnetId": e["subnet"], "AllocationId": e["alloc"]} for e in eips],
    )["LoadBalancers"][0]
    built.lb_addresses[lb["LoadBalancerArn"]] = {
        e["subnet"]: [{"IpAddress": e["ip"], "AllocationId": e["alloc"]}] for e in eips
    }
    elbv2.modify_load_balancer_attributes(
        LoadBalancerArn=lb["LoadBalancerArn"],
        Attributes=[{"Key": "load_balancing.cross_zone.enabled", "Value": str(cross_zone).lower()}],
    )
    tg = elbv2.create_target_group(Name=f"{name}-tg", Protocol="TCP", Port=8443, VpcId=vpc_id, TargetType="ip")
    tg_arn = tg["TargetGroups"][0]["TargetGroupArn"]
    elbv2.modify_target_group_attributes(
        TargetGroupArn=tg_arn,
        Attributes=[{"Key": "deregistration_delay.connection_termination.enabled", "Value": str(termination).lower()},
                    *_unhealthy(unhealthy_termination)],
    )
    listener = elbv2.create_listener(
        LoadBalancerArn=lb["LoadBalancerArn"], Protocol="TCP", Port=443,
        DefaultActions=[{"Type": "forward", "TargetGroupArn": tg_arn}],
    )["Listeners"][0]
    if idle is not None:
        elbv2.modify_listener_attributes(
            ListenerArn=listener["ListenerArn"], Attributes=[{"Key": "tcp.idle_timeout.seconds", "Value": str(idle)}]
        )
    made = Nlb(name, lb["LoadBalancerArn"], lb["DNSName"], listener["ListenerArn"], tg_arn, sg, eips)
    built.nlb_options[name] = {"idle": idle, "termination": termination, "cross_zone": cross_zone, "sg_cidr": sg_cidr,
                               "unhealthy_termination": unhealthy_termination}
    built.nlbs.append(made)
    return made


def zone(session: Any, built: Built, name: str = HOSTED_ZONE, vpc_id: str | None = None) -> str:
    """A public zone, or with ``vpc_id`` a private one (made with the VPC only, as Route 53 documents;
    moto then reads it as public: ``fill_moto_gaps`` says what Route 53 would)."""
    extra = {"VPC": {"VPCRegion": "us-east-1", "VPCId": vpc_id}} if vpc_id else {}
    zid = session.client("route53").create_hosted_zone(Name=name, CallerReference=str(uuid.uuid4()), **extra)["HostedZone"]["Id"]
    built.zone_id = zid.split("/")[-1]
    built.zones[built.zone_id] = Zone(name, (vpc_id, "us-east-1") if vpc_id else None)
    return built.zone_id


def health_check(session: Any, built: Built, ip: str | None, port: int = 443, **config: Any) -> str:
    """A TCP check of ``ip`` (``config`` adds or overrides HealthCheckConfig fields: Disabled,
    Inverted, Regions; ``ip=None`` with ``Type="CALCULATED"`` for a calculated check)."""
    cfg: dict[str, Any] = {"Type": "TCP", "IPAddress": ip, "Port": port, "RequestInterval": 10, "FailureThreshold": 3}
    if config.get("Type") == "CALCULATED":
        cfg = {}
    cfg.update(config)
    hc = session.client("route53").create_health_check(CallerReference=str(uuid.uuid4()), HealthCheckConfig=cfg)["HealthCheck"]["Id"]
    built.health_checks.append(hc)
    if ip is not None:
        built.health_check_ips[hc] = ip
    built.health_check_configs[hc] = cfg
    return hc


def change(session: Any, zone_id: str, records: list[dict[str, Any]], built: Built | None = None) -> None:
    if built is not None:
        built.records.extend(records)
        built.record_zones.extend([zone_id] * len(records))
    session.client("route53").change_resource_record_sets(
        HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": r} for r in records]}
    )


def distribution(session: Any, built: Built, origin: str = ORIGIN, keepalive: int = 60, grpc: bool = True) -> str:
    cfg = {
        "CallerReference": str(uuid.uuid4()),
        "Comment": "edge",
        "Enabled": True,
        "HttpVersion": "http2",
        "Origins": {
            "Quantity": 1,
            "Items": [
                {
                    "Id": "origin",
                    "DomainName": origin,
                    "CustomOriginConfig": {
                        "HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "https-only",
                        "OriginKeepaliveTimeout": keepalive, "OriginReadTimeout": 60,
                    },
                }
            ],
        },
        "DefaultCacheBehavior": {
            "TargetOriginId": "origin",
            "ViewerProtocolPolicy": "https-only",
            "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad",
            "AllowedMethods": {
                "Quantity": 7, "Items": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"],
                "CachedMethods": {"Quantity": 2, "Items": ["GET", "HEAD"]},
            },
            "GrpcConfig": {"Enabled": grpc},
        },
    }
    dist_id = session.client("cloudfront").create_distribution(DistributionConfig=cfg)["Distribution"]["Id"]
    built.origins.append((origin, grpc, keepalive))
    if grpc:
        built.grpc_distributions.add(dist_id)
    return dist_id


# --- the setups -------------------------------------------------------------------------------
def incident(session: Any) -> Built:
    """Two NLBs behind weighted alias records for a gRPC origin (the flash-crowd incident)."""
    built = Built()
    vpc_id, subnets = vpc(session.client("ec2"))
    a = nlb(session, built, "nlb-blue", vpc_id, subnets)
    b = nlb(session, built, "nlb-green", vpc_id, subnets)
    zid = zone(session, built)
    change(session, zid, [
        {"Name": ORIGIN, "Type": "A", "SetIdentifier": f"w-{lb.name}", "Weight": 50,
         "AliasTarget": {"HostedZoneId": "Z26RNL4JYFTOTI", "DNSName": lb.dns, "EvaluateTargetHealth": True}}
        for lb in (a, b)
    ], built)
    distribution(session, built)
    return built


def multivalue(
    session: Any,
    *,
    health_checks: bool = True,
    idle: int | None = 340,
    nlbs: int = 2,
    zones: int = 2,
    ttl: int = 60,
    keepalive: int = 60,
    termination: bool = True,
    cross_zone: bool = True,
    sg_cidr: str = "0.0.0.0/0",
    unhealthy_termination: bool | None = False,
) -> Built:
    """The fixed plan: one health-checked multivalue A record per NLB EIP (2 NLBs x 2 zones);
    the options break one thing at a time."""
    built = Built()
    vpc_id, subnets = vpc(session.client("ec2"))
    lbs = [
        nlb(session, built, f"nlb-{i}", vpc_id, subnets[:zones], idle=idle, termination=termination,
            cross_zone=cross_zone, sg_cidr=sg_cidr, unhealthy_termination=unhealthy_termination)
        for i in range(1, nlbs + 1)
    ]
    zid = zone(session, built)
    records = []
    for lb in lbs:
        for eip in lb.eips:
            record = {"Name": ORIGIN, "Type": "A", "SetIdentifier": eip["alloc"], "MultiValueAnswer": True,
                      "TTL": ttl, "ResourceRecords": [{"Value": eip["ip"]}]}
            if health_checks:
                record["HealthCheckId"] = health_check(session, built, eip["ip"])
            records.append(record)
    change(session, zid, records, built)
    distribution(session, built, keepalive=keepalive)
    return built


# --- the same setup, written as a template ------------------------------------------------------
def equivalent_template(built: Built) -> dict[str, Any]:
    """What a CloudFormation template of the built account holds (hand-assembled from the builder's
    inputs, not from the reader), for comparing ``check`` with ``audit``."""
    res: dict[str, Any] = {}
    zone_lids: dict[str, str] = {}
    for n, (zid, made) in enumerate(built.zones.items()):
        zone_lids[zid] = f"Zone{n}"
        props: dict[str, Any] = {"Name": made.name}
        if made.vpc is not None:
            props["VPCs"] = [{"VPCId": made.vpc[0], "VPCRegion": made.vpc[1]}]
        res[f"Zone{n}"] = {"Type": "AWS::Route53::HostedZone", "Properties": props}
    eip_of_ip: dict[str, str] = {}
    nlb_of_dns: dict[str, str] = {}
    for i, lb in enumerate(built.nlbs):
        opts = built.nlb_options[lb.name]
        lid = f"Nlb{i}"
        nlb_of_dns[lb.dns.lower()] = lid
        mappings = []
        for z, eip in enumerate(lb.eips):
            res[f"Subnet{i}x{z}"] = {"Type": "AWS::EC2::Subnet", "Properties": {"AvailabilityZone": ZONES[z]}}
            res[f"Eip{i}x{z}"] = {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}}
            eip_of_ip[eip["ip"]] = f"Eip{i}x{z}"
            mappings.append({"SubnetId": {"Ref": f"Subnet{i}x{z}"}, "AllocationId": {"Fn::GetAtt": [f"Eip{i}x{z}", "AllocationId"]}})
        res[f"Sg{i}"] = {"Type": "AWS::EC2::SecurityGroup", "Properties": {"GroupDescription": "nlb", "SecurityGroupIngress": [
            {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": opts["sg_cidr"]}]}}
        res[lid] = {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {
            "Name": lb.name, "Type": "network", "Scheme": "internet-facing", "SubnetMappings": mappings,
            "SecurityGroups": [{"Ref": f"Sg{i}"}],
            "LoadBalancerAttributes": [{"Key": "load_balancing.cross_zone.enabled", "Value": str(opts["cross_zone"]).lower()}]}}
        res[f"Tg{i}"] = {"Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {
            "Name": f"{lb.name}-tg", "Protocol": "TCP", "Port": 8443, "TargetType": "ip", "TargetGroupAttributes": [
                {"Key": "deregistration_delay.connection_termination.enabled", "Value": str(opts["termination"]).lower()},
                *_unhealthy(opts.get("unhealthy_termination", False))]}}
        listener: dict[str, Any] = {"LoadBalancerArn": {"Ref": lid}, "Protocol": "TCP", "Port": 443,
                                    "DefaultActions": [{"Type": "forward", "TargetGroupArn": {"Ref": f"Tg{i}"}}]}
        if opts["idle"] is not None:
            listener["ListenerAttributes"] = [{"Key": "tcp.idle_timeout.seconds", "Value": str(opts["idle"])}]
        res[f"Listener{i}"] = {"Type": "AWS::ElasticLoadBalancingV2::Listener", "Properties": listener}
    hc_ids = {hc: f"Check{n}" for n, hc in enumerate(built.health_check_configs)}
    for hc, cfg in built.health_check_configs.items():
        config = dict(cfg)
        ip = config.get("IPAddress")
        if ip in eip_of_ip:
            config["IPAddress"] = {"Fn::GetAtt": [eip_of_ip[ip], "PublicIp"]}
        if "ChildHealthChecks" in config:
            config["ChildHealthChecks"] = [{"Ref": hc_ids[c]} for c in config["ChildHealthChecks"]]
        res[hc_ids[hc]] = {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": config}}

    def nlb_name(value: str) -> Any:
        lid = nlb_of_dns.get(value.lower().rstrip(".").removeprefix("dualstack."))
        return {"Fn::GetAtt": [lid, "DNSName"]} if lid else value

    for n, (record, zid) in enumerate(zip(built.records, built.record_zones, strict=True)):
        props = {"HostedZoneId": {"Ref": zone_lids[zid]}, **{k: v for k, v in record.items() if k not in (
            "ResourceRecords", "AliasTarget", "HealthCheckId")}}
        if "ResourceRecords" in record:
            props["ResourceRecords"] = [
                {"Fn::GetAtt": [eip_of_ip[r["Value"]], "PublicIp"]} if r["Value"] in eip_of_ip else nlb_name(r["Value"])
                for r in record["ResourceRecords"]
            ]
        if "AliasTarget" in record:
            alias = record["AliasTarget"]
            target_zone = alias["HostedZoneId"]
            props["AliasTarget"] = {**alias, "DNSName": nlb_name(alias["DNSName"]),
                                    "HostedZoneId": {"Ref": zone_lids[target_zone]} if target_zone in zone_lids else target_zone}
        if "HealthCheckId" in record:
            props["HealthCheckId"] = {"Ref": hc_ids[record["HealthCheckId"]]}
        res[f"Record{n}"] = {"Type": "AWS::Route53::RecordSet", "Properties": props}
    for n, (domain, grpc, keepalive) in enumerate(built.origins):
        res[f"Edge{n}"] = {"Type": "AWS::CloudFront::Distribution", "Properties": {"DistributionConfig": {
            "Enabled": True, "HttpVersion": "http2",
            "Origins": [{"Id": "origin", "DomainName": domain, "CustomOriginConfig": {
                "HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "https-only",
                "OriginKeepaliveTimeout": keepalive, "OriginReadTimeout": 60}}],
            "DefaultCacheBehavior": {"TargetOriginId": "origin", "ViewerProtocolPolicy": "https-only",
                                     "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad",
                                     "AllowedMethods": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"],
                                     "GrpcConfig": {"Enabled": grpc}}}}}
    return {"Resources": res}


# --- every routing policy, chain, health rule and zone visibility (issue 17) --------------------
def _fleet(session: Any, built: Built) -> tuple[str, list[Nlb]]:
    vpc_id, subnets = vpc(session.client("ec2"))
    return vpc_id, [nlb(session, built, f"nlb-{i}", vpc_id, subnets) for i in (1, 2)]


def _per_address(built: Built, lbs: list[Nlb], extra: Any, ttl: int = 60) -> list[dict[str, Any]]:
    """One record set a NLB address, ``extra(i)`` adding the routing fields of the i-th."""
    addresses = [e for lb in lbs for e in lb.eips]
    return [{"Name": ORIGIN, "Type": "A", "SetIdentifier": f"s{i}", "TTL": ttl, "ResourceRecords": [{"Value": e["ip"]}],
             **extra(i)} for i, e in enumerate(addresses)]


def public_and_private(session: Any) -> Built:
    """The incident in the public zone, and a private zone of the same name whose multivalue
    records reuse the public records' set identifiers (they must not hide the incident)."""
    built = incident(session)
    public = built.zone_id
    vpc_id = session.client("ec2").describe_vpcs()["Vpcs"][0]["VpcId"]
    private = zone(session, built, HOSTED_ZONE, vpc_id=vpc_id)
    change(session, private, [
        {"Name": ORIGIN, "Type": "A", "SetIdentifier": f"w-{lb.name}", "MultiValueAnswer": True, "TTL": 60,
         "ResourceRecords": [{"Value": f"10.0.9.{i + 1}"}]}
        for i, lb in enumerate(built.nlbs)
    ], built)
    built.zone_id = public
    return built


def latency(session: Any) -> Built:
    """Latency record sets, one NLB address each (each answer is one set: one address)."""
    built = Built()
    _, lbs = _fleet(session, built)
    regions = ("us-east-1", "us-west-2", "eu-west-1", "ap-southeast-1")
    change(session, zone(session, built), _per_address(built, lbs, lambda i: {"Region": regions[i]}), built)
    distribution(session, built)
    return built


def failover(session: Any) -> Built:
    """A health-checked PRIMARY and a SECONDARY, one address each."""
    built = Built()
    _, lbs = _fleet(session, built)
    primary, secondary = lbs[0].eips[0]["ip"], lbs[1].eips[0]["ip"]
    check = health_check(session, built, primary)
    change(session, zone(session, built), [
        {"Name": ORIGIN, "Type": "A", "SetIdentifier": "primary", "Failover": "PRIMARY", "TTL": 60,
         "ResourceRecords": [{"Value": primary}], "HealthCheckId": check},
        {"Name": ORIGIN, "Type": "A", "SetIdentifier": "secondary", "Failover": "SECONDARY", "TTL": 60,
         "ResourceRecords": [{"Value": secondary}]},
    ], built)
    distribution(session, built)
    return built


def geolocation(session: Any) -> Built:
    """Geolocation sets (a country, a continent, the ``*`` default), one address each."""
    built = Built()
    _, lbs = _fleet(session, built)
    where = ({"CountryCode": "US"}, {"ContinentCode": "EU"}, {"CountryCode": "JP"}, {"CountryCode": "*"})
    change(session, zone(session, built), _per_address(built, lbs, lambda i: {"GeoLocation": where[i]}), built)
    distribution(session, built)
    return built


def weighted_cnames(session: Any) -> Built:
    """Weighted CNAMEs to the two NLBs' DNS names."""
    built = Built()
    _, lbs = _fleet(session, built)
    change(session, zone(session, built), [
        {"Name": ORIGIN, "Type": "CNAME", "SetIdentifier": lb.name, "Weight": 50, "TTL": 60, "ResourceRecords": [{"Value": lb.dns}]}
        for lb in lbs
    ], built)
    distribution(session, built)
    return built


def cname_to_nlb(session: Any) -> Built:
    """The origin a simple CNAME to one NLB's DNS name, whose listener idles out (120 s) before
    CloudFront's origin keepalive (180 s): only a rule that follows the CNAME sees the NLB."""
    built = Built()
    vpc_id, subnets = vpc(session.client("ec2"))
    lb = nlb(session, built, "nlb-1", vpc_id, subnets, idle=120)
    change(session, zone(session, built), [
        {"Name": ORIGIN, "Type": "CNAME", "TTL": 60, "ResourceRecords": [{"Value": lb.dns}]}], built)
    distribution(session, built, keepalive=180)
    return built


def alias_chain(session: Any) -> Built:
    """The origin a simple alias to another record of its zone, itself a weighted alias pool of the NLBs."""
    built = Built()
    _, lbs = _fleet(session, built)
    zid = zone(session, built)
    pool = f"pool.{HOSTED_ZONE}"
    change(session, zid, [
        {"Name": pool, "Type": "A", "SetIdentifier": lb.name, "Weight": 50,
         "AliasTarget": {"HostedZoneId": "Z26RNL4JYFTOTI", "DNSName": lb.dns, "EvaluateTargetHealth": True}}
        for lb in lbs
    ], built)
    change(session, zid, [
        {"Name": ORIGIN, "Type": "A", "AliasTarget": {"HostedZoneId": zid, "DNSName": pool, "EvaluateTargetHealth": True}}], built)
    distribution(session, built)
    return built


def health_rules(session: Any) -> Built:
    """Multivalue records whose checks Route 53 counts unusually: Disabled (healthy), Inverted,
    CALCULATED with HealthThreshold 0 over the others, one limited by ``Regions``."""
    built = Built()
    _, lbs = _fleet(session, built)
    ips = [e["ip"] for lb in lbs for e in lb.eips]
    disabled = health_check(session, built, ips[0], Disabled=True)
    inverted = health_check(session, built, ips[1], Inverted=True)
    regions = health_check(session, built, ips[2], Regions=["us-east-1", "eu-west-1", "ap-southeast-1"])
    calculated = health_check(session, built, None, Type="CALCULATED", ChildHealthChecks=[disabled, inverted], HealthThreshold=0)
    checks = [disabled, inverted, regions, calculated]
    change(session, zone(session, built), _per_address(
        built, lbs, lambda i: {"MultiValueAnswer": True, "HealthCheckId": checks[i]}), built)
    distribution(session, built)
    return built
