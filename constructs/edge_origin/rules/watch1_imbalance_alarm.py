"""EO-WATCH1: a long-lived origin's NLBs with no alarm comparing their active flows (info)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.rules.base import Rule, finding, origin_label, with_cdk
from edge_origin.rules.lb_type import undecided_type

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

FIX = with_cdk(
    "EO-WATCH1",
    "Add OriginWatch (on by default in GrpcEdgeToOrigin and InternalGrpcOrigin, monitoring=), or an "
    "AWS::CloudWatch::Alarm with metric math IF(SUM(FILL([m...],0))>=floor, MAX(FILL([m...],0))/AVG(FILL([m...],0)), 0) "
    "over each NLB's ActiveFlowCount (dimensions LoadBalancer + AvailabilityZone; at most 10 metrics an alarm).",
    'OriginWatch(fleet=, records=) (GrpcEdgeToOrigin / InternalGrpcOrigin(monitoring=WatchOptions(...)), on by default).',
)


def origin_load_balancers(model: TemplateModel, name: str) -> list[Any]:
    """The NLBs behind an origin name: through EIPs or aliases (the model's view), else internal NLBs
    whose subnet mappings fix the private addresses the records hold (``InternalGrpcOrigin``). A balancer whose
    Type is decided at deploy time may be one: it is among them (``check`` says it is not judged)."""
    found = [lb for lb in model.load_balancers_for_name(name) if lb.may_be_network]
    if found:
        return found
    values = {v for r in model.record_sets(name) for v in r.values if isinstance(v, str)}
    return [
        lb for lb in model.load_balancers
        if lb.may_be_network and any(
            isinstance(m, dict) and m.get("PrivateIPv4Address") in values for m in lb.resource.properties.get("SubnetMappings") or []
        )
    ]


def _imbalance_alarm_nlbs(model: TemplateModel, alarm: Any) -> set[tuple[str, str]] | None:
    """The NLBs (keys) whose ActiveFlowCount an alarm compares with MAX over the others, or None when
    it is not such an alarm. A literal ``LoadBalancer`` dimension (``net/<name>/<id>``) matches by name."""
    metrics = alarm.properties.get("Metrics")
    if not isinstance(metrics, list):
        return None
    expressions = " ".join(str(m.get("Expression", "")) for m in metrics if isinstance(m, dict))
    if "MAX(" not in expressions.upper():
        return None
    found: set[tuple[str, str]] = set()
    for query in metrics:
        metric = ((query.get("MetricStat") or {}) if isinstance(query, dict) else {}).get("Metric") or {}
        if metric.get("MetricName") != "ActiveFlowCount" or metric.get("Namespace") != "AWS/NetworkELB":
            continue
        for dim in metric.get("Dimensions") or []:
            if not isinstance(dim, dict) or dim.get("Name") != "LoadBalancer":
                continue
            target = model.target(dim.get("Value"))
            if target is not None:
                found.add(target.key)
            elif isinstance(dim.get("Value"), str):
                for lb in model.load_balancers:
                    name = lb.resource.properties.get("Name")
                    if isinstance(name, str) and f"/{name}/" in dim["Value"]:
                        found.add(lb.resource.key)
    return found


def check(model: TemplateModel) -> Iterator[Finding]:
    alarms = model.of_type("AWS::CloudWatch::Alarm")
    covered: set[tuple[str, str]] = set()
    for alarm in alarms:
        covered |= _imbalance_alarm_nlbs(model, alarm) or set()
    for name, kind in model.origin_names().items():
        nlbs = origin_load_balancers(model, name)
        bare = [lb for lb in nlbs if lb.resource.key not in covered]
        if not bare:
            continue
        for lb in bare:
            if lb.type_undecided:  # no alarm over it, and whether it is an NLB (with ActiveFlowCount) is not known
                yield undecided_type(RULE.id, lb, "no alarm compares its active flows with the others'")
        bare = [lb for lb in bare if not lb.type_undecided]
        if not bare:
            continue
        ids = ", ".join(lb.resource.logical_id for lb in bare)
        yield finding(
            RULE.id, Severity.INFO, bare[0].resource,
            f"{origin_label(name, kind)}: no CloudWatch alarm compares the active flows of {ids} with the others "
            "(max over mean): a pile-up on one NLB shows only when clients fail",
            FIX,
        )


RULE = Rule(
    id="EO-WATCH1",
    severity=Severity.INFO,
    title="Long-lived origin without an imbalance alarm",
    catches=(
        "A gRPC or long-lived origin whose NLBs no AWS::CloudWatch::Alarm covers with metric math taking MAX( over "
        "their ActiveFlowCount (AWS/NetworkELB, LoadBalancer dimension by reference or by name). Advisory: run by "
        "`edge-origin check --advisory`, `edge-origin watch` and `run_rules(model, ADVISORY_RULES)`, not in synth or a "
        "plain `check`."
    ),
    incident="\"Adding NLB capacity did nothing\": one NLB's flows climbed while the others idled, seen late in CloudWatch "
    "(weighted-dns-flash-crowd-summary).",
    fix=FIX,
    check=check,
)
