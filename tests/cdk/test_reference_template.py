"""Facts the reference app's template must hold: the path the incidents taught us."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from aws_cdk.assertions import Match, Template

from stacks.reference import ReferenceConfig

SNAPSHOT = Path(__file__).parents[1] / "snapshots" / "TelemetryIngest.template.json"


def _of_type(template: dict, type_: str) -> dict[str, dict]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == type_}


def test_multivalue_records_one_eip_each_with_own_health_check(reference_template: dict) -> None:
    records = _of_type(reference_template, "AWS::Route53::RecordSet")
    eips = _of_type(reference_template, "AWS::EC2::EIP")
    checks = _of_type(reference_template, "AWS::Route53::HealthCheck")
    assert len(records) >= 4
    assert len(records) == len(eips) == len(checks) == 6  # 2 NLBs x 3 zones
    used_eips, used_checks, set_ids = set(), set(), set()
    for props in (r["Properties"] for r in records.values()):
        assert props["Type"] == "A"
        assert props["MultiValueAnswer"] is True
        assert "Weight" not in props
        assert props["Name"] == "origin.telemetry.example.com."
        assert props["TTL"] == "60"
        assert len(props["ResourceRecords"]) == 1
        (value,) = props["ResourceRecords"]
        assert set(value) == {"Ref"} and value["Ref"] in eips
        used_eips.add(value["Ref"])
        used_checks.add(props["HealthCheckId"]["Ref"])
        set_ids.add(props["SetIdentifier"])
    assert used_eips == set(eips)
    assert used_checks == set(checks)
    assert set_ids == {f"origin-nlb{n}-zone{z}" for n in (1, 2) for z in (1, 2, 3)}


def test_health_checks_target_their_own_eip(reference_template: dict) -> None:
    records = _of_type(reference_template, "AWS::Route53::RecordSet").values()
    checks = _of_type(reference_template, "AWS::Route53::HealthCheck")
    assert len(records) == len(checks) > 0  # one record per health check, and some of each
    for props in (r["Properties"] for r in records):
        config = checks[props["HealthCheckId"]["Ref"]]["Properties"]["HealthCheckConfig"]
        assert config["IPAddress"] == props["ResourceRecords"][0]
        assert config["Type"] == "TCP" and config["Port"] == 443
        assert config["RequestInterval"] == 10 and config["FailureThreshold"] == 3


def test_nlbs_use_subnet_mappings_with_allocation_ids(reference_template: dict) -> None:
    nlbs = _of_type(reference_template, "AWS::ElasticLoadBalancingV2::LoadBalancer")
    eips = set(_of_type(reference_template, "AWS::EC2::EIP"))
    assert len(nlbs) == 2
    attached = []
    for props in (r["Properties"] for r in nlbs.values()):
        assert props["Type"] == "network" and props["Scheme"] == "internet-facing"
        assert "Subnets" not in props
        zones = {m["SubnetId"]["Ref"] for m in props["SubnetMappings"]}
        assert len(zones) == len(props["SubnetMappings"]) == 3
        attached += [m["AllocationId"]["Fn::GetAtt"][0] for m in props["SubnetMappings"]]
        assert {"Key": "load_balancing.cross_zone.enabled", "Value": "true"} in props["LoadBalancerAttributes"]
    assert sorted(attached) == sorted(eips)


def test_tcp_listeners_set_idle_timeout_explicitly(reference_template: dict) -> None:
    template = Template.from_json(reference_template)
    template.resource_count_is("AWS::ElasticLoadBalancingV2::Listener", 2)
    template.all_resources_properties(
        "AWS::ElasticLoadBalancingV2::Listener",
        {
            "Protocol": "TCP",
            "Port": 443,
            "ListenerAttributes": Match.array_with([{"Key": "tcp.idle_timeout.seconds", "Value": Match.any_value()}]),
        },
    )
    for listener in _of_type(reference_template, "AWS::ElasticLoadBalancingV2::Listener").values():
        (idle,) = [a for a in listener["Properties"]["ListenerAttributes"] if a["Key"] == "tcp.idle_timeout.seconds"]
        assert 60 <= int(idle["Value"]) <= 6000


def test_profile_drives_listener_and_origin_timeouts_and_is_recorded(reference_template: dict) -> None:
    from edge_origin import PROFILE_METADATA_KEY, ConnectionProfile

    preset = ConnectionProfile.preset("streaming-telemetry")
    listeners = _of_type(reference_template, "AWS::ElasticLoadBalancingV2::Listener").values()
    for listener in listeners:
        idle = {a["Key"]: a["Value"] for a in listener["Properties"]["ListenerAttributes"]}["tcp.idle_timeout.seconds"]
        assert int(idle) == preset.nlb_idle_timeout_s
        assert listener["Metadata"][PROFILE_METADATA_KEY] == preset.to_metadata()
    (dist,) = _of_type(reference_template, "AWS::CloudFront::Distribution").values()
    custom = dist["Properties"]["DistributionConfig"]["Origins"][0]["CustomOriginConfig"]
    assert custom["OriginKeepaliveTimeout"] == preset.cloudfront_keepalive_timeout_s
    assert custom["OriginReadTimeout"] == preset.cloudfront_read_timeout_s
    assert dist["Metadata"][PROFILE_METADATA_KEY] == preset.to_metadata()


def test_target_groups_ip_with_connection_termination(reference_template: dict) -> None:
    groups = _of_type(reference_template, "AWS::ElasticLoadBalancingV2::TargetGroup")
    assert len(groups) == 2
    for props in (g["Properties"] for g in groups.values()):
        assert props["TargetType"] == "ip" and props["Protocol"] == "TCP" and props["Port"] == 8443
        attributes = {a["Key"]: a["Value"] for a in props["TargetGroupAttributes"]}
        assert attributes["deregistration_delay.connection_termination.enabled"] == "true"
        # issue 52: the delay covers the pods' preStop over the NLB's ~2-minute draining window plus the server's
        # grace (streaming-telemetry: 300 s), or the NLB resets connections the pod still serves
        assert int(attributes["deregistration_delay.timeout_seconds"]) == 125 + 300 + 5
        assert attributes["target_health_state.unhealthy.connection_termination.enabled"] == "false"
        assert props["HealthCheckPort"] == "8081" and props["HealthCheckProtocol"] == "HTTP"


def test_distribution_grpc_to_the_record_name(reference_template: dict) -> None:
    (dist,) = _of_type(reference_template, "AWS::CloudFront::Distribution").values()
    config = dist["Properties"]["DistributionConfig"]
    behavior = config["DefaultCacheBehavior"]
    assert behavior["GrpcConfig"] == {"Enabled": True}
    assert set(behavior["AllowedMethods"]) == {"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"}
    assert behavior["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"  # CachingDisabled
    assert config["HttpVersion"] in ("http2", "http2and3")
    (origin,) = config["Origins"]
    assert origin["DomainName"] == "origin.telemetry.example.com"
    custom = origin["CustomOriginConfig"]
    assert custom["OriginProtocolPolicy"] == "https-only" and custom["OriginSSLProtocols"] == ["TLSv1.2"]
    assert custom["OriginKeepaliveTimeout"] < 350  # shorter than the NLB idle timeout
    assert config["Logging"]["Bucket"]


def test_security_groups_admit_cloudfront_and_route53_checkers_only(reference_template: dict) -> None:
    groups = _of_type(reference_template, "AWS::EC2::SecurityGroup")
    nlb_groups = {k: g for k, g in groups.items() if "Nlb" in k}
    ingress_extra = _of_type(reference_template, "AWS::EC2::SecurityGroupIngress").values()
    cidrs, prefix_lists = set(), set()
    for group in nlb_groups.values():
        for rule in group["Properties"].get("SecurityGroupIngress", []):
            assert rule["FromPort"] == rule["ToPort"] == 443
            assert rule["CidrIp"] != "0.0.0.0/0"
            cidrs.add(rule["CidrIp"])
    for rule in (r["Properties"] for r in ingress_extra):
        assert rule["FromPort"] == 443
        prefix_lists.add(rule["SourcePrefixListId"])
    assert prefix_lists == {"pl-3b927c52"}  # CloudFront origin-facing, us-east-1
    assert {"107.23.255.0/26", "54.243.31.192/26", "15.177.0.0/18"} <= cidrs
    # 55 (prefix list weight) + 17 CIDRs > 60: split over two groups per NLB
    assert len(nlb_groups) == 4


def test_target_group_arns_are_outputs_and_bindings_are_written(reference_app) -> None:
    stack, template, assembly = reference_app
    outputs = template["Outputs"]
    arns = [o for o in outputs.values() if isinstance(o["Value"], dict) and o["Value"].get("Ref", "") in _of_type(template, "AWS::ElasticLoadBalancingV2::TargetGroup")]
    assert len(arns) == 2
    docs = list(yaml.safe_load_all((assembly / "k8s" / "TelemetryIngest" / "Bindings.yaml").read_text()))
    assert [d["kind"] for d in docs] == ["TargetGroupBinding", "TargetGroupBinding", "ConfigMap", "ConfigMap", "ConfigMap"]
    profile = json.loads(docs[2]["data"]["profile.json"])
    assert profile["nlb_idle_timeout_s"] == 350 and docs[2]["metadata"]["namespace"] == "telemetry"
    rollout = docs[3]  # issue 52: the pods' preStop and grace beside the bindings
    assert rollout["metadata"]["name"] == "telemetry-ingest-rollout"
    patch = json.loads(rollout["data"]["deployment-patch.json"])["spec"]["template"]["spec"]
    assert patch["terminationGracePeriodSeconds"] == 430
    assert patch["containers"][0]["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "125"]
    assert json.loads(rollout["data"]["why.json"])["problems"] == []
    verify = docs[4]  # origin verification (issue 14): the pods' settings and interceptors, no value
    assert verify["metadata"] == {**verify["metadata"], "name": "telemetry-ingest-origin-verify", "namespace": "telemetry"}
    assert json.loads(verify["data"]["origin-verify.json"])["header"] == "x-origin-verify"
    assert {"origin_verify.py", "origin_verify.go", "OriginVerifyInterceptor.java"} <= set(verify["data"])
    for doc in docs[:2]:
        assert doc["apiVersion"] == "elbv2.k8s.aws/v1beta1" and doc["kind"] == "TargetGroupBinding"
        assert doc["spec"]["targetType"] == "ip"
        assert doc["spec"]["serviceRef"] == {"name": "telemetry-ingest", "port": 8443}
        assert doc["metadata"]["namespace"] == "telemetry"
        output_id = doc["spec"]["targetGroupARN"].removeprefix("${TelemetryIngest.").removesuffix("}")
        assert output_id in outputs


def test_reference_defaults_match_cdk_json() -> None:
    context = json.loads((Path(__file__).parents[2] / "cdk.json").read_text())["context"]
    config = ReferenceConfig()
    compared = 0
    for key, value in context.items():
        name = key.removeprefix("edge-origin:")
        if key.startswith("edge-origin:") and hasattr(config, name):
            assert getattr(config, name) == value, key
            compared += 1
    assert compared > 0, "no edge-origin: key of cdk.json names a ReferenceConfig field"


def snapshot_template(outdir: str) -> dict:
    """The reference template as the CDK CLI synthesizes it (``aws:cdk:path`` Metadata on every
    resource, which the CLI passes by default), so ``cdk diff --template`` of the snapshot compares
    like with like. The CLI drops ``CDKMetadata`` itself when the other side has none."""
    from stacks.app_builder import build_reference_app, cdk_json_context

    context = {**cdk_json_context(), "aws:cdk:enable-path-metadata": True, "aws:cdk:version-reporting": False}
    app, stack = build_reference_app(context, outdir=outdir, checks=False)
    return app.synth().get_stack_by_name(stack.stack_name).template


def test_snapshot(tmp_path: Path) -> None:
    """The committed golden template; refresh on purpose with UPDATE_SNAPSHOTS=1 and review the diff."""
    rendered = json.dumps(snapshot_template(str(tmp_path)), indent=1, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(rendered)
    if not SNAPSHOT.exists():
        pytest.fail(f"no snapshot at {SNAPSHOT}: run UPDATE_SNAPSHOTS=1 pytest {__file__}")
    assert rendered == SNAPSHOT.read_text(), "template changed: review, then UPDATE_SNAPSHOTS=1 to accept"


def test_reference_path_is_watched(reference_template: dict) -> None:
    """OriginWatch is on by default: a dashboard, the four alarms (us-east-1 stack), the output."""
    alarms = {k: r for k, r in _of_type(reference_template, "AWS::CloudWatch::Alarm").items() if "Watch" in k}
    kinds = sorted(next(n for n in ("Imbalance", "HealthyRecords", "ResetsAfterIdle", "Origin5xx") if n in k) for k in alarms)
    assert kinds == ["HealthyRecords", "Imbalance", "Origin5xx", "ResetsAfterIdle"]
    assert len(_of_type(reference_template, "AWS::CloudWatch::Dashboard")) == 1
    assert [k for k in reference_template["Outputs"] if "DashboardName" in k]
    assert not _of_type(reference_template, "AWS::CloudFront::MonitoringSubscription")  # paid: off by default
