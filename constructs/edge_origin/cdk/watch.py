"""OriginWatch: the CloudWatch dashboard and alarms of one origin path, from its fleet and records.

What CloudWatch allows, and how this construct lives with it:
- NLB metrics (``AWS/NetworkELB``) carry ``LoadBalancer`` (``net/<name>/<id>``, the ARN suffix) and,
  per zonal node, ``LoadBalancer`` + ``AvailabilityZone``; ``HealthyHostCount`` carries
  ``TargetGroup`` + ``LoadBalancer``. The imbalance alarm reads the zonal nodes, because a DNS
  answer names a node's address, not an NLB.
- One alarm's metric math reads at most 10 metrics (hard limit). More zonal nodes than that: the
  imbalance alarm reads one series per NLB instead (a warning says so); more than 10 NLBs: no
  imbalance alarm (warning). The reset alarm is split into alarms of 10 NLBs each. More than 10
  records: no healthy-records alarm (a sum over them cannot be split; warning).
- Route 53 health metrics (``AWS/Route53`` ``HealthCheckStatus``, dimension ``HealthCheckId``) exist
  only in us-east-1; CloudFront's (``AWS/CloudFront``, ``DistributionId`` + ``Region=Global``) too.
  A dashboard may show other regions' metrics; an alarm may not (CloudWatch alarms read metrics of
  their own region; CDK refuses a cross-region metric in an ``Alarm``). So: in a us-east-1 stack the
  healthy-records and 5xx alarms are made; in a stack whose region is unknown at synth they are made
  under a condition (``AWS::Region`` = us-east-1, ``EdgeOriginWatchInUsEast1``); in any other region
  they are not made and an info (not a warning: nothing in the stack can act on it) says so; the
  dashboard still shows the metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_sns as sns
from constructs import Construct

from edge_origin.cdk.origin_fleet import OriginFleet
from edge_origin.cdk.origin_records import MultivalueOriginRecords
from edge_origin.core import watch_math as wm
from edge_origin.core.errors import (
    ConstructLabel,
    EdgeOriginPropError,
    is_token,
    require_bool,
    require_construct,
    require_int_range,
    require_str,
    seconds_of,
    suggest_props,
)

GLOBAL_METRICS_REGION = "us-east-1"
DASHBOARD_NAME_PATTERN = r"[A-Za-z0-9_-]{1,255}"
#: Metadata on each imbalance alarm, read by rule EO-WATCH1 in templates.
IMBALANCE_ALARM_METADATA_KEY = "edge-origin:imbalance-alarm"


@dataclass(frozen=True)
class WatchOptions:
    """The ``monitoring=`` prop of ``GrpcEdgeToOrigin`` and ``InternalGrpcOrigin``: every
    ``OriginWatch`` prop but the parts (see ``OriginWatch`` for each default)."""

    alarm_topic: sns.ITopic | None = None
    period: cdk.Duration | int = wm.DEFAULT_PERIOD_S
    imbalance_threshold: float = wm.IMBALANCE_THRESHOLD
    imbalance_flow_floor: int = wm.IMBALANCE_FLOW_FLOOR
    datapoints_to_alarm: int = wm.DATAPOINTS_TO_ALARM
    evaluation_periods: int = wm.EVALUATION_PERIODS
    min_healthy_records: int | None = None
    reset_rate_threshold: float = wm.RESET_RATE_THRESHOLD
    origin_5xx_threshold: float = wm.ORIGIN_5XX_THRESHOLD
    additional_metrics: bool = False
    dashboard_name: str | None = None

    def kwargs(self) -> dict[str, Any]:
        """The options as ``OriginWatch`` keyword arguments (the topic as given, not copied)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


DEFAULT_WATCH = WatchOptions()


@dataclass(frozen=True)
class _Node:
    """One zonal node: an NLB's address in one zone."""

    nlb: str
    zone: str
    full_name: str


@suggest_props
class OriginWatch(Construct):
    """A CloudWatch dashboard and four alarms for one origin path (see the module docstring).

    Alarms (each N of M periods, ``datapoints_to_alarm`` of ``evaluation_periods``):
    ``Imbalance`` (max/mean of the zonal ActiveFlowCount above ``imbalance_threshold`` while the
    total is at least ``imbalance_flow_floor``), ``HealthyRecords`` (sum of the records'
    HealthCheckStatus below ``min_healthy_records``), ``ResetsAfterIdle`` (TCP_ELB_Reset_Count per
    second above ``reset_rate_threshold``), ``Origin5xx`` (CloudFront 5xxErrorRate above
    ``origin_5xx_threshold``; only with a ``distribution``). Stack output ``DashboardName``.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        fleet: OriginFleet,
        records: MultivalueOriginRecords | None,
        distribution: cloudfront.IDistribution | None = None,
        origin_name: str | None = None,
        alarm_topic: sns.ITopic | None = None,
        period: cdk.Duration | int = wm.DEFAULT_PERIOD_S,
        imbalance_threshold: float = wm.IMBALANCE_THRESHOLD,
        imbalance_flow_floor: int = wm.IMBALANCE_FLOW_FLOOR,
        datapoints_to_alarm: int = wm.DATAPOINTS_TO_ALARM,
        evaluation_periods: int = wm.EVALUATION_PERIODS,
        min_healthy_records: int | None = None,
        reset_rate_threshold: float = wm.RESET_RATE_THRESHOLD,
        origin_5xx_threshold: float = wm.ORIGIN_5XX_THRESHOLD,
        additional_metrics: bool = False,
        dashboard_name: str | None = None,
    ) -> None:
        """
        :param fleet: the path's ``OriginFleet``.
        :param records: the path's ``MultivalueOriginRecords``; None for a VPC-origin path (no
            records: no healthy-records alarm or widget; ``origin_name`` names the path).
        :param distribution: the CloudFront distribution in front (5xx alarm, CloudFront widgets).
            Default: none (an internal path).
        :param origin_name: the path's name in alarm texts when ``records`` is None (a VPC-origin
            path). Default: the records' name.
        :param alarm_topic: SNS topic for every alarm's ALARM and OK actions. Default: no actions.
        :param period: metric period, 60..3600 s in whole minutes. Default 60 s.
        :param imbalance_threshold: max/mean of the zonal nodes' active flows that alarms,
            1.05..20. Default 1.5.
        :param imbalance_flow_floor: total active flows below which imbalance is not judged,
            0..100000000. Default 500.
        :param datapoints_to_alarm: N of the N-of-M evaluation, 1..``evaluation_periods``. Default 3.
        :param evaluation_periods: M, 1..60 (and M x period <= 1 day). Default 5.
        :param min_healthy_records: K: fewer healthy records alarms, 1..records. Default: half
            the records, rounded up.
        :param reset_rate_threshold: NLB resets (TCP_ELB_Reset_Count) per second over the fleet,
            0.001..1000000. Default 1.
        :param origin_5xx_threshold: CloudFront 5xxErrorRate percent, 0.01..100. Default 5.
        :param additional_metrics: turn on the distribution's additional metrics
            (``AWS::CloudFront::MonitoringSubscription``; OriginLatency on the dashboard). Costs
            money per metric. Default False.
        :param dashboard_name: ``A-Za-z0-9_-``, 1..255. Default: a name CloudFormation makes.
        """
        super().__init__(scope, construct_id)
        where = ConstructLabel("OriginWatch", self)
        require_construct(where, "fleet", fleet, OriginFleet, "an OriginFleet", optional=False)
        require_construct(where, "records", records, MultivalueOriginRecords, "a MultivalueOriginRecords", optional=origin_name is not None)
        require_construct(where, "distribution", distribution, cloudfront.IDistribution, "a cloudfront.IDistribution")
        if origin_name is not None:
            require_str(where, "origin_name", origin_name, r"[A-Za-z0-9_.-]{1,253}", "the path's origin DNS name")
        require_construct(where, "alarm_topic", alarm_topic, sns.ITopic, "an sns.ITopic")
        period_s = seconds_of(where, "period", period)
        if not (wm.PERIOD_RANGE_S[0] <= period_s <= wm.PERIOD_RANGE_S[1]) or period_s % 60:
            raise EdgeOriginPropError(where, "period", period_s, "60..3600 seconds in whole minutes")
        self.period_seconds = int(period_s)
        self.imbalance_threshold = _require_number(where, "imbalance_threshold", imbalance_threshold, *wm.IMBALANCE_THRESHOLD_RANGE)
        self.imbalance_flow_floor = require_int_range(where, "imbalance_flow_floor", imbalance_flow_floor, *wm.FLOW_FLOOR_RANGE)
        self.evaluation_periods = require_int_range(where, "evaluation_periods", evaluation_periods, *wm.EVALUATION_PERIODS_RANGE)
        if self.evaluation_periods * self.period_seconds > 86400:
            raise EdgeOriginPropError(
                where, "evaluation_periods", evaluation_periods, f"at most {86400 // self.period_seconds} with period {self.period_seconds}s (one day)"
            )
        self.datapoints_to_alarm = require_int_range(where, "datapoints_to_alarm", datapoints_to_alarm, 1, self.evaluation_periods)
        record_count = len(records.records) if records is not None else 0
        self.path_name = records.record_name if records is not None else origin_name
        if min_healthy_records is None:
            self.min_healthy_records = wm.default_min_healthy(record_count)
        else:
            self.min_healthy_records = require_int_range(where, "min_healthy_records", min_healthy_records, 1, max(1, record_count))
        self.reset_rate_threshold = _require_number(where, "reset_rate_threshold", reset_rate_threshold, *wm.RESET_RATE_RANGE)
        self.origin_5xx_threshold = _require_number(where, "origin_5xx_threshold", origin_5xx_threshold, *wm.ORIGIN_5XX_RANGE)
        self.additional_metrics = require_bool(where, "additional_metrics", additional_metrics)
        if additional_metrics and distribution is None:
            raise EdgeOriginPropError(where, "additional_metrics", True, "only with a distribution")
        if dashboard_name is not None:
            require_str(where, "dashboard_name", dashboard_name, DASHBOARD_NAME_PATTERN, "1..255 of A-Z a-z 0-9 _ -")

        self.fleet, self.records, self.distribution, self.alarm_topic = fleet, records, distribution, alarm_topic
        self._period = cdk.Duration.seconds(self.period_seconds)
        self._nodes = [
            _Node(m.name, a.zone, m.load_balancer.load_balancer_full_name) for m in fleet.members for a in m.addresses
        ]
        self.alarms: dict[str, cloudwatch.Alarm] = {}
        self._global_alarms = self._global_alarm_placement()

        self._imbalance_alarm()
        if records is not None:
            self._healthy_records_alarm()
        self._reset_alarms()
        if distribution is not None:
            self._origin_5xx_alarm()
            if additional_metrics:
                cloudfront.CfnMonitoringSubscription(
                    self,
                    "AdditionalMetrics",
                    distribution_id=distribution.distribution_id,
                    monitoring_subscription=cloudfront.CfnMonitoringSubscription.MonitoringSubscriptionProperty(
                        realtime_metrics_subscription_config=cloudfront.CfnMonitoringSubscription.RealtimeMetricsSubscriptionConfigProperty(
                            realtime_metrics_subscription_status="Enabled"
                        )
                    ),
                )
        self.dashboard = self._dashboard(dashboard_name)
        cdk.CfnOutput(self, "DashboardName", value=self.dashboard.dashboard_name, description="CloudWatch dashboard of the origin path")

    # -- metrics ----------------------------------------------------------------------------------
    def _nlb_metric(self, name: str, statistic: str, dims: dict[str, str], region: str | None = None) -> cloudwatch.Metric:
        return cloudwatch.Metric(
            namespace="AWS/NetworkELB", metric_name=name, dimensions_map=dims, statistic=statistic, period=self._period, region=region
        )

    def _zonal(self, name: str, statistic: str) -> list[tuple[_Node, cloudwatch.Metric]]:
        return [
            (n, self._nlb_metric(name, statistic, {"LoadBalancer": n.full_name, "AvailabilityZone": n.zone})) for n in self._nodes
        ]

    def _per_nlb(self, name: str, statistic: str) -> list[tuple[str, cloudwatch.Metric]]:
        return [
            (m.name, self._nlb_metric(name, statistic, {"LoadBalancer": m.load_balancer.load_balancer_full_name}))
            for m in self.fleet.members
        ]

    def _health_metric(self, check_id: str, region: str | None) -> cloudwatch.Metric:
        return cloudwatch.Metric(
            namespace="AWS/Route53", metric_name="HealthCheckStatus", dimensions_map={"HealthCheckId": check_id},
            statistic="Minimum", period=self._period, region=region,
        )

    def _cloudfront_metric(self, name: str, region: str | None) -> cloudwatch.Metric:
        assert self.distribution is not None
        return cloudwatch.Metric(
            namespace="AWS/CloudFront", metric_name=name,
            dimensions_map={"DistributionId": self.distribution.distribution_id, "Region": "Global"},
            statistic="Average", period=self._period, region=region,
        )

    # -- alarms -----------------------------------------------------------------------------------
    def _global_alarm_placement(self) -> str:
        """``here`` (us-east-1 stack), ``conditional`` (region unknown at synth) or ``none``."""
        region = cdk.Stack.of(self).region
        if is_token(region):
            return "conditional"
        return "here" if region == GLOBAL_METRICS_REGION else "none"

    def _alarm(self, alarm_id: str, metric: cloudwatch.IMetric, threshold: float, comparison: cloudwatch.ComparisonOperator,
               description: str, missing: cloudwatch.TreatMissingData = cloudwatch.TreatMissingData.NOT_BREACHING) -> cloudwatch.Alarm:
        alarm = cloudwatch.Alarm(
            self, alarm_id, metric=metric, threshold=threshold, comparison_operator=comparison,
            evaluation_periods=self.evaluation_periods, datapoints_to_alarm=self.datapoints_to_alarm,
            treat_missing_data=missing, alarm_description=description,
        )
        if self.alarm_topic is not None:
            action = cw_actions.SnsAction(self.alarm_topic)
            alarm.add_alarm_action(action)
            alarm.add_ok_action(action)
        self.alarms[alarm_id] = alarm
        return alarm

    def _math(self, expression: str, metrics: Sequence[cloudwatch.IMetric], label: str, prefix: str = "m") -> cloudwatch.MathExpression:
        return cloudwatch.MathExpression(
            expression=expression, using_metrics={f"{prefix}{i}": m for i, m in enumerate(metrics)}, label=label, period=self._period
        )

    def _imbalance_alarm(self) -> None:
        zonal = self._zonal("ActiveFlowCount", "Average")
        if len(zonal) <= wm.ALARM_MAX_METRICS:
            metrics, unit = [m for _, m in zonal], "zonal nodes"
        elif len(self.fleet.members) <= wm.ALARM_MAX_METRICS:
            metrics, unit = [m for _, m in self._per_nlb("ActiveFlowCount", "Average")], "NLBs"
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:watch-imbalance-per-nlb",
                f"{len(zonal)} zonal nodes: an alarm's metric math reads at most {wm.ALARM_MAX_METRICS} metrics, so the "
                "imbalance alarm compares whole NLBs (a pile-up on one zone of an NLB shows on the dashboard only).",
            )
        else:
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:watch-no-imbalance-alarm",
                f"{len(self.fleet.members)} NLBs: an alarm's metric math reads at most {wm.ALARM_MAX_METRICS} metrics; no "
                "imbalance alarm is made (the dashboard shows the spread; `edge-origin watch` judges it).",
            )
            return
        ids = [f"m{i}" for i in range(len(metrics))]
        expression = self._math(wm.imbalance_expression(ids, self.imbalance_flow_floor), metrics, "max/mean active flows")
        self.imbalance_expression = expression
        alarm = self._alarm(
            "Imbalance", expression, self.imbalance_threshold, cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            f"{self.path_name}: one of the {unit} holds more than {self.imbalance_threshold} x the mean of active "
            f"flows (total >= {self.imbalance_flow_floor}): connections piled up",
        )
        alarm.node.default_child.add_metadata(IMBALANCE_ALARM_METADATA_KEY, self.path_name)

    def _healthy_records_alarm(self) -> None:
        checks = [r.health_check.health_check_id for r in self.records.records]
        if not checks or self._global_alarms == "none":
            if checks:
                self._warn_region("healthy-records")
            return
        if len(checks) > wm.ALARM_MAX_METRICS:
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:watch-no-healthy-alarm",
                f"{len(checks)} records: an alarm's metric math reads at most {wm.ALARM_MAX_METRICS} metrics; no "
                "healthy-records alarm is made (the dashboard shows each record's health).",
            )
            return
        metrics = [self._health_metric(c, None) for c in checks]
        ids = [f"h{i}" for i in range(len(metrics))]
        alarm = self._alarm(
            "HealthyRecords", self._math(wm.healthy_expression(ids), metrics, "healthy records", "h"),
            self.min_healthy_records, cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
            f"{self.path_name}: fewer than {self.min_healthy_records} of {len(checks)} records healthy",
            cloudwatch.TreatMissingData.BREACHING,
        )
        self._place_global(alarm)

    def _reset_alarms(self) -> None:
        per_nlb = self._per_nlb("TCP_ELB_Reset_Count", "Sum")
        groups = wm.chunks([name for name, _ in per_nlb])
        by_name = dict(per_nlb)
        for g, names in enumerate(groups):
            ids = [f"r{i}" for i in range(len(names))]
            alarm_id = "ResetsAfterIdle" if len(groups) == 1 else f"ResetsAfterIdle{g + 1}"
            self._alarm(
                alarm_id, self._math(wm.reset_rate_expression(ids), [by_name[n] for n in names], "NLB resets per second", "r"),
                self.reset_rate_threshold, cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                f"{self.path_name}: NLBs {', '.join(names)} reset more than {self.reset_rate_threshold}/s "
                "(flows idle past the NLB idle timeout, then used: keepalive shorter than the idle timeout?)",
            )

    def _origin_5xx_alarm(self) -> None:
        if self._global_alarms == "none":
            self._warn_region("origin-5xx")
            return
        alarm = self._alarm(
            "Origin5xx", self._cloudfront_metric("5xxErrorRate", None), self.origin_5xx_threshold,
            cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            f"{self.path_name}: CloudFront 5xx error rate above {self.origin_5xx_threshold} %",
        )
        self._place_global(alarm)

    def _place_global(self, alarm: cloudwatch.Alarm) -> None:
        if self._global_alarms != "conditional":
            return
        stack = cdk.Stack.of(self)
        condition = stack.node.try_find_child("EdgeOriginWatchInUsEast1")
        if condition is None:
            condition = cdk.CfnCondition(
                stack, "EdgeOriginWatchInUsEast1", expression=cdk.Fn.condition_equals(cdk.Aws.REGION, GLOBAL_METRICS_REGION)
            )
        alarm.node.default_child.cfn_options.condition = condition

    def _warn_region(self, which: str) -> None:
        """An info, not a warning (issue 51): nothing in this stack can act on it; the alarm belongs in a us-east-1
        stack (docs/constructs.md, "Alarms outside us-east-1"), and the dashboard shows the metrics meanwhile."""
        cdk.Annotations.of(self).add_info(
            f"edge-origin:watch-{which}-region: no {which} alarm here: its metrics exist only in {GLOBAL_METRICS_REGION} "
            f"and an alarm reads its own region's metrics (stack region {cdk.Stack.of(self).region}); the dashboard shows "
            f"them. An alarm on them belongs in a {GLOBAL_METRICS_REGION} stack (docs/constructs.md)."
        )

    # -- dashboard --------------------------------------------------------------------------------
    def _dashboard(self, dashboard_name: str | None) -> cloudwatch.Dashboard:
        def graph(title: str, metrics: Sequence[cloudwatch.IMetric], **kw: Any) -> cloudwatch.GraphWidget:
            return cloudwatch.GraphWidget(title=title, left=list(metrics), width=12, height=6, **kw)

        def zonal(name: str, statistic: str) -> list[cloudwatch.IMetric]:
            return [m.with_(label=f"{n.nlb} {n.zone}") for n, m in self._zonal(name, statistic)]

        widgets: list[cloudwatch.IWidget] = [
            graph("Active flows per NLB and zone", zonal("ActiveFlowCount", "Average")),
            graph("New flows per NLB and zone", zonal("NewFlowCount", "Sum")),
            graph("NLB resets (TCP_ELB_Reset_Count)", zonal("TCP_ELB_Reset_Count", "Sum")),
            graph("Target resets (TCP_Target_Reset_Count)", zonal("TCP_Target_Reset_Count", "Sum")),
            graph(
                "Healthy targets",
                [m.target_group.metrics.healthy_host_count(period=self._period, label=m.name) for m in self.fleet.members],
            ),
        ]
        if self.records is not None:
            widgets.append(graph(
                "Record health (Route 53, us-east-1)",
                [
                    self._health_metric(r.health_check.health_check_id, GLOBAL_METRICS_REGION).with_(label=r.address.set_identifier)
                    for r in self.records.records
                ],
            ))
        if hasattr(self, "imbalance_expression"):
            widgets.append(
                graph(
                    "Imbalance: max/mean active flows",
                    [self.imbalance_expression],
                    left_annotations=[cloudwatch.HorizontalAnnotation(value=self.imbalance_threshold, label="alarm")],
                )
            )
        if self.distribution is not None:
            cf = [self._cloudfront_metric("5xxErrorRate", GLOBAL_METRICS_REGION)]
            if self.additional_metrics:
                cf.append(self._cloudfront_metric("OriginLatency", GLOBAL_METRICS_REGION))
            widgets.append(graph("CloudFront (us-east-1, Region=Global)", cf))
        return cloudwatch.Dashboard(
            self, "Dashboard", dashboard_name=dashboard_name,
            widgets=[widgets[i : i + 2] for i in range(0, len(widgets), 2)],
        )


def _require_number(where: ConstructLabel, prop: str, value: Any, low: float, high: float) -> float:
    """A finite real number in ``low..high`` (NaN never reaches jsii)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (low <= value <= high):
        raise EdgeOriginPropError(where, prop, value, f"a number {low}..{high}")
    return float(value)


def make_watch(
    scope: Construct,
    where: ConstructLabel,
    monitoring: WatchOptions | None,
    fleet: OriginFleet,
    records: MultivalueOriginRecords | None,
    distribution: cloudfront.IDistribution | None = None,
    origin_name: str | None = None,
) -> OriginWatch | None:
    """A pattern's ``monitoring=`` prop: ``OriginWatch`` "Watch" from ``WatchOptions``, or None when off."""
    if monitoring is None:
        return None
    if not isinstance(monitoring, WatchOptions):
        raise EdgeOriginPropError(where, "monitoring", monitoring, "a WatchOptions, or None to turn monitoring off")
    kwargs = monitoring.kwargs()
    if distribution is None:
        kwargs.pop("additional_metrics")
        kwargs.pop("origin_5xx_threshold")
        if monitoring.additional_metrics:
            raise EdgeOriginPropError(where, "monitoring.additional_metrics", True, "False (no CloudFront in this pattern)")
    try:
        return OriginWatch(
            scope, "Watch", fleet=fleet, records=records, distribution=distribution, origin_name=origin_name, **kwargs
        )
    except EdgeOriginPropError as exc:
        raise EdgeOriginPropError(where, f"monitoring.{exc.prop}", exc.value, exc.allowed) from None
