"""OriginWatch: the dashboard and alarms of a path, in us-east-1, env-agnostic and other-region stacks,
over an internal path, and past CloudWatch's 10-metrics-an-alarm limit. One synth for the module."""

from __future__ import annotations

import json
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_sns as sns

from edge_origin import GrpcEdgeToOrigin, InternalGrpcOrigin, WatchOptions
from edge_origin.cdk.watch import DEFAULT_WATCH, IMBALANCE_ALARM_METADATA_KEY


def _edge(stack: cdk.Stack, monitoring: Any = DEFAULT_WATCH, nlb_count: int = 2, **kw: Any) -> GrpcEdgeToOrigin:
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Zone", hosted_zone_id=f"Z{stack.stack_name}", zone_name="example.com")
    return GrpcEdgeToOrigin(
        stack, "Edge", zone=zone, origin_name="o.example.com", service_name="svc", nlb_count=nlb_count,
        origin_verification=None, monitoring=monitoring, **kw,
    )


@pytest.fixture(scope="module")
def synth() -> dict[str, Any]:
    app = cdk.App()
    east = cdk.Environment(account="123456789012", region="us-east-1")
    stacks: dict[str, cdk.Stack] = {}

    s = stacks["east"] = cdk.Stack(app, "East", env=east)
    topic = sns.Topic(s, "Pager")
    _edge(s, WatchOptions(alarm_topic=topic, additional_metrics=True, dashboard_name="ingest-origin"))
    _edge(stacks.setdefault("agnostic", cdk.Stack(app, "Agnostic")))
    _edge(stacks.setdefault("eu", cdk.Stack(app, "Eu", env=cdk.Environment(account="123456789012", region="eu-west-1"))))
    _edge(stacks.setdefault("off", cdk.Stack(app, "Off", env=east)), monitoring=None)
    _edge(stacks.setdefault("wide", cdk.Stack(app, "Wide", env=east)), nlb_count=4, eip_removal_policy=cdk.RemovalPolicy.DESTROY,
          account_quotas={"elastic_ips": 100})  # 4 x 3 = 12 zonal nodes, 12 records
    _edge(stacks.setdefault("huge", cdk.Stack(app, "Huge", env=east)), nlb_count=11, account_quotas={"elastic_ips": 100})
    internal = stacks["internal"] = cdk.Stack(app, "Internal", env=east)
    private = route53.HostedZone.from_hosted_zone_attributes(internal, "Zone", hosted_zone_id="Z2", zone_name="svc.internal")
    InternalGrpcOrigin(internal, "Tax", zone=private, origin_name="tax.svc.internal", service_name="tax")
    assembly = app.synth()
    out: dict[str, Any] = {}
    for key, stack in stacks.items():
        artifact = assembly.get_stack_by_name(stack.stack_name)
        out[key] = artifact.template
        out[key + ":warnings"] = [str(m.entry.data) for m in artifact.messages if "WARNING" in str(m.level)]
        out[key + ":infos"] = [str(m.entry.data) for m in artifact.messages if "INFO" in str(m.level)]
    return out


def _alarms(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == "AWS::CloudWatch::Alarm" and "Watch" in k}


def _named(template: dict[str, Any], word: str) -> list[dict[str, Any]]:
    return [r for k, r in _alarms(template).items() if word in k]


def _expression(alarm: dict[str, Any]) -> str:
    (expr,) = [m["Expression"] for m in alarm["Properties"]["Metrics"] if m.get("ReturnData")]
    return expr


def _stats(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    return [m["MetricStat"] for m in alarm["Properties"].get("Metrics", [{"MetricStat": alarm["Properties"]}]) if "MetricStat" in m]


def test_us_east_1_has_four_alarms_with_actions_a_named_dashboard_and_the_subscription(synth: dict[str, Any]) -> None:
    t = synth["east"]
    alarms = _alarms(t)
    assert sorted(k.split("Watch")[1].rstrip("0123456789ABCDEF") for k in alarms) == [
        "HealthyRecords", "Imbalance", "Origin5xx", "ResetsAfterIdle"
    ]
    for alarm in alarms.values():
        props = alarm["Properties"]
        assert props["EvaluationPeriods"] == 5 and props["DatapointsToAlarm"] == 3
        assert len(props["AlarmActions"]) == 1 and props["AlarmActions"] == props["OKActions"]
        assert "Condition" not in alarm
    (dashboard,) = [r for r in t["Resources"].values() if r["Type"] == "AWS::CloudWatch::Dashboard"]
    assert dashboard["Properties"]["DashboardName"] == "ingest-origin"
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    for metric in ("ActiveFlowCount", "NewFlowCount", "TCP_ELB_Reset_Count", "TCP_Target_Reset_Count", "HealthyHostCount",
                   "HealthCheckStatus", "5xxErrorRate", "OriginLatency"):
        assert metric in body, metric
    assert '\\"region\\":\\"us-east-1\\"' in body and "Global" in body
    (sub,) = [r for r in t["Resources"].values() if r["Type"] == "AWS::CloudFront::MonitoringSubscription"]
    assert sub["Properties"]["MonitoringSubscription"]["RealtimeMetricsSubscriptionConfig"] == {
        "RealtimeMetricsSubscriptionStatus": "Enabled"
    }
    outputs = [o for k, o in t["Outputs"].items() if "DashboardName" in k]
    assert outputs == [{"Description": "CloudWatch dashboard of the origin path", "Value": {"Ref": next(
        k for k, r in t["Resources"].items() if r["Type"] == "AWS::CloudWatch::Dashboard")}}]


def test_imbalance_alarm_reads_every_zonal_node_with_both_dimensions(synth: dict[str, Any]) -> None:
    (alarm,) = _named(synth["east"], "Imbalance")
    stats = _stats(alarm)
    assert len(stats) == 6  # 2 NLBs x 3 zones
    for stat in stats:
        dims = {d["Name"] for d in stat["Metric"]["Dimensions"]}
        assert dims == {"LoadBalancer", "AvailabilityZone"} and stat["Metric"]["MetricName"] == "ActiveFlowCount"
        assert stat["Metric"]["Namespace"] == "AWS/NetworkELB" and stat["Stat"] == "Average" and stat["Period"] == 60
    assert len({json.dumps(s["Metric"]["Dimensions"], sort_keys=True) for s in stats}) == 6
    assert _expression(alarm).startswith("IF(SUM(FILL([m0,m1,m2,m3,m4,m5],0))>=500,")
    assert alarm["Properties"]["Threshold"] == 1.5 and alarm["Properties"]["ComparisonOperator"] == "GreaterThanThreshold"
    assert alarm["Metadata"][IMBALANCE_ALARM_METADATA_KEY] == "o.example.com"


def test_healthy_records_sums_each_records_check_below_k(synth: dict[str, Any]) -> None:
    (alarm,) = _named(synth["east"], "HealthyRecords")
    stats = _stats(alarm)
    assert len(stats) == 6 and {s["Metric"]["Namespace"] for s in stats} == {"AWS/Route53"}
    checks = {r["Properties"]["HealthCheckId"]["Ref"] for r in synth["east"]["Resources"].values() if r["Type"] == "AWS::Route53::RecordSet"}
    assert {s["Metric"]["Dimensions"][0]["Value"]["Ref"] for s in stats} == checks
    assert alarm["Properties"]["Threshold"] == 3 and alarm["Properties"]["ComparisonOperator"] == "LessThanThreshold"
    assert alarm["Properties"]["TreatMissingData"] == "breaching"


def test_resets_and_5xx(synth: dict[str, Any]) -> None:
    (resets,) = _named(synth["east"], "ResetsAfterIdle")
    assert _expression(resets) == "SUM(FILL([r0,r1],0))/PERIOD(r0)"
    assert {s["Metric"]["MetricName"] for s in _stats(resets)} == {"TCP_ELB_Reset_Count"}
    (five,) = _named(synth["east"], "Origin5xx")
    dims = {d["Name"]: d["Value"] for d in five["Properties"]["Dimensions"]}
    assert five["Properties"]["MetricName"] == "5xxErrorRate" and dims["Region"] == "Global"


def test_env_agnostic_stack_puts_the_us_east_1_alarms_under_a_condition(synth: dict[str, Any]) -> None:
    t = synth["agnostic"]
    assert t["Conditions"]["EdgeOriginWatchInUsEast1"] == {"Fn::Equals": [{"Ref": "AWS::Region"}, "us-east-1"]}
    conditioned = sorted(k.split("Watch")[1][:8] for k, r in _alarms(t).items() if r.get("Condition") == "EdgeOriginWatchInUsEast1")
    assert conditioned == ["HealthyR", "Origin5x"]
    assert len(_alarms(t)) == 4


def test_other_region_makes_no_global_alarm_and_says_so_as_info(synth: dict[str, Any]) -> None:
    """Issue 51: nothing in an eu-west-1 stack can act on it, so it is an info, not a warning."""
    assert sorted(k.split("Watch")[1][:8] for k in _alarms(synth["eu"])) == ["Imbalanc", "ResetsAf"]
    infos = " ".join(synth["eu:infos"])
    assert "no healthy-records alarm" in infos and "no origin-5xx alarm" in infos and "eu-west-1" in infos
    assert "alarm" not in " ".join(synth["eu:warnings"])
    assert "no healthy-records alarm" not in " ".join(synth["east:infos"] + synth["east:warnings"])


def test_monitoring_none_makes_nothing(synth: dict[str, Any]) -> None:
    types = {r["Type"] for r in synth["off"]["Resources"].values()}
    assert "AWS::CloudWatch::Dashboard" not in types and not _alarms(synth["off"])


def test_past_ten_metrics_the_imbalance_alarm_compares_nlbs_and_warns(synth: dict[str, Any]) -> None:
    (alarm,) = _named(synth["wide"], "Imbalance")
    stats = _stats(alarm)
    assert len(stats) == 4 and all({d["Name"] for d in s["Metric"]["Dimensions"]} == {"LoadBalancer"} for s in stats)
    warnings = " ".join(synth["wide:warnings"])
    assert "12 zonal nodes" in warnings and "12 records" in warnings
    assert not _named(synth["wide"], "HealthyRecords")  # 12 checks cannot be summed in one alarm


def test_eleven_nlbs_no_imbalance_alarm_and_resets_split_in_alarms_of_ten(synth: dict[str, Any]) -> None:
    t = synth["huge"]
    assert not _named(t, "Imbalance")
    resets = _named(t, "ResetsAfterIdle")
    assert sorted(len(_stats(a)) for a in resets) == [1, 10]
    assert all(len(_stats(a)) <= 10 for a in _alarms(t).values())
    assert "11 NLBs" in " ".join(synth["huge:warnings"])


def test_internal_origin_watches_without_cloudfront(synth: dict[str, Any]) -> None:
    t = synth["internal"]
    names = sorted(k.split("Watch")[1][:8] for k in _alarms(t))
    assert names == ["HealthyR", "Imbalanc", "ResetsAf"]
    body = json.dumps([r for r in t["Resources"].values() if r["Type"] == "AWS::CloudWatch::Dashboard"])
    assert "CloudFront" not in body and "ActiveFlowCount" in body


def test_watch_finds_the_internal_path_in_its_template(synth: dict[str, Any]) -> None:
    """`edge-origin watch CDK_OUT` on an internal path: NLBs by their fixed private addresses."""
    from edge_origin.live.watch import paths_from_model
    from edge_origin.model import LoadedTemplate, TemplateModel

    t = synth["internal"]
    model = TemplateModel([LoadedTemplate("Internal", "i.json", t)])
    physical = {
        ("Internal", k): (f"arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/net/{k[:20]}/0123"
                          if r["Type"] == "AWS::ElasticLoadBalancingV2::LoadBalancer" else f"id-{k}")
        for k, r in t["Resources"].items()
    }
    (path,) = paths_from_model(model, physical, ["tax.svc.internal"])
    assert sorted(path.nlbs.values()) == sorted(f"net/{k[:20]}/0123" for k, r in t["Resources"].items()
                                                if r["Type"] == "AWS::ElasticLoadBalancingV2::LoadBalancer")
    assert len(path.health_checks) == 6 and path.distribution_id is None and path.notes == []
