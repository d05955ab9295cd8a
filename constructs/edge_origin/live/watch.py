"""CloudWatch metrics of an origin path -> a spread verdict over time (``edge-origin watch``).

Read-only: CloudWatch ``ListMetrics``/``GetMetricData`` (paged), and to find the path either
CloudFormation ``ListStackResources`` (a cloud assembly) or the account reader (``read_account``:
List/Describe/Get). Every client comes from the ``LiveSession`` passed in.

Per period, with the same figures and thresholds as ``OriginWatch``'s alarms (``watch_math``):
- imbalance: max/mean of the zonal nodes' ``ActiveFlowCount`` (missing = 0, as ``FILL``), judged
  only while the total is at or above the flow floor; a pile-up when ``datapoints`` of any
  ``evaluation`` consecutive periods are above the threshold (the alarm would have fired) and not
  what a balanced spread of that many flows over that many nodes gives by chance (the rehearsal's
  odds: a period is a sample; few flows per node make a high max/mean common);
- accumulating: total active flows grow by half or more over the window and still climb in its last
  third while new flows stay flat there (the keepalive incident);
- healthy records: the sum of each record's ``HealthCheckStatus`` (Minimum) below K in N of M;
- resets: ``TCP_ELB_Reset_Count`` per second over the fleet (reported; alarm threshold marked);
- 5xx: CloudFront ``5xxErrorRate`` when a distribution is in front (reported).
Missing data is "not checked" with the reason, never "spread". Route 53 and CloudFront metrics
are read in us-east-1 (where they are published), the NLB metrics in the session's region.

The LoadBalancer dimension is the ARN's suffix after ``loadbalancer/`` (``net/<name>/<id>``;
moto's ARNs read ``app/...``). moto matches dimensions in the order given, so queries always name
``LoadBalancer`` first, then ``AvailabilityZone``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import botocore.exceptions

from edge_origin.core import watch_math as wm
from edge_origin.live.account import ClientSource, classify_error, read_account
from edge_origin.live.paging import PagingError, paginate
from edge_origin.live.session import LiveError
from edge_origin.model import TemplateModel, load_model, normalize_name
from edge_origin.rehearsal.odds import ALPHA, balanced_tail
from edge_origin.rules.watch1_imbalance_alarm import origin_load_balancers

GLOBAL_REGION = "us-east-1"
SINCE_PATTERN = re.compile(r"(\d{1,6})([smhd])")
SINCE_RANGE_S = (60, 15 * 86400)  # 1-minute NLB data is kept 15 days
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_QUERIES_A_CALL = 500  # GetMetricData: up to 500 metrics a request

SPREAD, PILE_UP, ACCUMULATING, TOO_FEW_HEALTHY, IDLE, NOT_CHECKED = (
    "spread", "pile-up", "accumulating", "too-few-healthy", "idle", "not-checked"
)
FAILING = (PILE_UP, ACCUMULATING, TOO_FEW_HEALTHY)


@dataclass(frozen=True)
class Thresholds:
    """The alarms' defaults (``watch_math``); the CLI may override the first two."""

    imbalance: float = wm.IMBALANCE_THRESHOLD
    flow_floor: int = wm.IMBALANCE_FLOW_FLOOR
    datapoints: int = wm.DATAPOINTS_TO_ALARM
    evaluation: int = wm.EVALUATION_PERIODS
    reset_rate: float = wm.RESET_RATE_THRESHOLD
    origin_5xx: float = wm.ORIGIN_5XX_THRESHOLD
    min_healthy: int | None = None


@dataclass(frozen=True)
class Node:
    """One zonal node (``zone`` None: the whole NLB, when no zonal metric was found)."""

    nlb: str
    dimension: str
    zone: str | None

    @property
    def label(self) -> str:
        return f"{self.nlb} {self.zone}" if self.zone else self.nlb

    def dimensions(self) -> list[dict[str, str]]:
        dims = [{"Name": "LoadBalancer", "Value": self.dimension}]
        return dims + ([{"Name": "AvailabilityZone", "Value": self.zone}] if self.zone else [])


@dataclass
class WatchPath:
    """What ``watch`` reads for one origin name."""

    origin: str
    nlbs: dict[str, str] = field(default_factory=dict)  # label -> LoadBalancer dimension
    health_checks: dict[str, str] = field(default_factory=dict)  # record label -> health check id
    distribution_id: str | None = None
    nodes: list[Node] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Period:
    start: dt.datetime
    active: dict[str, float]
    new: float | None
    total_active: float | None
    max_over_mean: float | None  # None: below the floor (or no data)
    healthy: float | None
    resets_per_s: float | None
    error_rate_5xx: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(), "active": self.active, "new_flows": self.new, "total_active": self.total_active,
            "max_over_mean": self.max_over_mean, "healthy_records": self.healthy, "resets_per_s": self.resets_per_s,
            "5xx_error_rate": self.error_rate_5xx,
        }


@dataclass
class PathVerdict:
    origin: str
    verdict: str
    problems: list[str]
    notes: list[str]
    nodes: list[str]
    periods: list[Period]
    health_flips: dict[str, int]
    shares: dict[str, float]  # node -> share of active flows at the last period with data

    def to_dict(self) -> dict[str, Any]:
        return {
            "origin": self.origin, "verdict": self.verdict, "problems": self.problems, "notes": self.notes,
            "nodes": self.nodes, "health_flips": self.health_flips, "shares": self.shares,
            "periods": [p.to_dict() for p in self.periods],
        }


@dataclass
class WatchResult:
    since_s: int
    period_s: int
    thresholds: Thresholds
    paths: list[PathVerdict]
    advisories: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        verdicts = [p.verdict for p in self.paths]
        if any(v in FAILING for v in verdicts):
            return 1
        return 2 if not verdicts or all(v == NOT_CHECKED for v in verdicts) else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "since_s": self.since_s, "period_s": self.period_s, "thresholds": self.thresholds.__dict__,
            "paths": [p.to_dict() for p in self.paths], "advisories": self.advisories, "exit_code": self.exit_code,
        }

    def text(self, markdown: bool = False) -> str:
        t = self.thresholds
        lines: list[str] = []
        head = "## " if markdown else ""
        for path in self.paths:
            lines.append(f"{head}{path.origin}: {path.verdict.upper()}")
            lines += [f"- {p}" for p in path.problems] + [f"- note: {n}" for n in path.notes]
            if path.shares:
                lines.append("- share of active flows (last period): " + ", ".join(f"{k} {v:.0%}" for k, v in path.shares.items()))
            if path.periods:
                lines.append("")
                lines.append("| period (UTC) | total active | max/mean | new flows | healthy | resets/s | 5xx % |"
                             if markdown else "period(UTC)  active  max/mean  new  healthy  resets/s  5xx%")
                if markdown:
                    lines.append("|---|---|---|---|---|---|---|")
                for p in path.periods:
                    cells = [p.start.strftime("%H:%M"), _num(p.total_active), _ratio(p.max_over_mean, t.imbalance), _num(p.new),
                             _num(p.healthy), _num(p.resets_per_s, 2), _num(p.error_rate_5xx, 1)]
                    lines.append("| " + " | ".join(cells) + " |" if markdown else
                                 f"{cells[0]:<11}  {cells[1]:>6}  {cells[2]:>8}  {cells[3]:>4}  {cells[4]:>7}  {cells[5]:>8}  {cells[6]:>4}")
            lines.append("")
        lines += [f"advisory: {a}" for a in self.advisories]
        lines.append(
            f"thresholds: max/mean > {t.imbalance} while >= {t.flow_floor} active flows in {t.datapoints} of {t.evaluation} "
            f"periods of {self.period_s}s; healthy records >= {t.min_healthy or 'half'}; resets/s > {t.reset_rate}; "
            f"5xx > {t.origin_5xx} %"
        )
        return "\n".join(lines) + "\n"


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ratio(value: float | None, threshold: float) -> str:
    return "idle" if value is None else f"{value:.2f}" + ("!" if value > threshold else "")


# --- input ---------------------------------------------------------------------------------------
def parse_since(text: str) -> int:
    """``30m``, ``2h``, ``90s``, ``1d`` -> seconds; LiveError naming ``--since`` otherwise."""
    match = SINCE_PATTERN.fullmatch(str(text).strip())
    low, high = SINCE_RANGE_S
    if not match:
        raise LiveError(f"--since {text!r}: a duration like 30m, 2h, 1d (s, m, h, d), {low // 60}m..{high // 86400}d")
    seconds = int(match.group(1)) * UNITS[match.group(2)]
    if not low <= seconds <= high:
        raise LiveError(f"--since {text!r}: allowed {low // 60}m..{high // 86400}d (CloudWatch keeps 1-minute data 15 days)")
    return seconds


def check_period(period: int, since_s: int) -> int:
    low, high = wm.PERIOD_RANGE_S
    if isinstance(period, bool) or not isinstance(period, int) or not low <= period <= high or period % 60:
        raise LiveError(f"--period {period!r}: allowed {low}..{high} seconds in whole minutes (NLB metrics are per minute)")
    if period > since_s:
        raise LiveError(f"--period {period}: longer than --since ({since_s}s)")
    return period


def dimension_of(arn: str) -> str:
    """The CloudWatch ``LoadBalancer`` dimension of an NLB ARN (``net/<name>/<id>``)."""
    _, sep, suffix = arn.partition(":loadbalancer/")
    return suffix if sep else arn


# --- finding the path ----------------------------------------------------------------------------
def _live_id(model: TemplateModel, resource: Any, physical: dict[tuple[str, str], str] | None) -> str | None:
    if physical is not None:
        return physical.get(resource.key)
    value = resource.metadata.get("edge-origin:live-id")
    return value if isinstance(value, str) else None


def paths_from_model(
    model: TemplateModel, physical: dict[tuple[str, str], str] | None, origins: Iterable[str] = ()
) -> list[WatchPath]:
    """One ``WatchPath`` per origin name (``origins``, or every gRPC/long-lived origin the model shows),
    with live ids from ``physical`` (cloud assembly + ListStackResources) or the account's Metadata."""
    wanted = [normalize_name(o) for o in origins]
    names = wanted or list(model.origin_names())
    out: list[WatchPath] = []
    for name in names:
        path = WatchPath(origin=name)
        for lb in origin_load_balancers(model, name):
            arn = _live_id(model, lb.resource, physical)
            if arn:
                path.nlbs[lb.resource.logical_id if physical is not None else str(lb.resource.properties.get("Name") or arn)] = dimension_of(arn)
            else:
                path.notes.append(f"NLB {lb.resource.logical_id}: not deployed (no physical id)")
        for record in model.record_sets(name):
            check = record.health_check
            if check is not None:
                hc_id = _live_id(model, check.resource, physical)
            else:  # a literal id (a check made outside the templates)
                hc_id = record.health_check_id if isinstance(record.health_check_id, str) else None
            if hc_id:
                path.health_checks[str(record.set_identifier or record.resource.logical_id)] = hc_id
        for dist in model.distributions:
            if any(o.domain_name == name for o in dist.origins):
                dist_id = _live_id(model, dist.resource, physical)
                if dist_id:  # the account reader keeps the ARN; CloudWatch's DistributionId is the id
                    path.distribution_id = dist_id.rsplit("/", 1)[-1] if dist_id.startswith("arn:") else dist_id
        if not path.nlbs and not path.health_checks:
            path.notes.append(f"no NLB or health-checked record found for {name}")
        out.append(path)
    return out


def read_stack_resources(source: ClientSource, stacks: Sequence[str],
                         parents: dict[str, tuple[str, str]] | None = None) -> dict[tuple[str, str], str]:
    """``(stack, logical id) -> physical id`` from CloudFormation ``ListStackResources``. ``parents``:
    a nested stack's ``(parent stack, Stack resource)`` (parents come first in ``stacks``): it is read
    by the id its parent's resource holds (CloudFormation names nested stacks)."""
    cfn = source.client("cloudformation")
    physical: dict[tuple[str, str], str] = {}
    for stack in stacks:
        name = stack
        if parents and stack in parents:
            name = physical.get(parents[stack], "")
            if not name:
                raise LiveError(f"stack {stack}: nested in {parents[stack][0]}, whose {parents[stack][1]} is not deployed in {source.region}")
        try:
            for page in paginate(cfn, "list_stack_resources", StackName=name):
                for item in page.get("StackResourceSummaries", []):
                    if item.get("PhysicalResourceId"):
                        physical[(stack, item["LogicalResourceId"])] = item["PhysicalResourceId"]
        except botocore.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ValidationError":
                raise LiveError(f"stack {stack}: not deployed in {source.region}") from None
            raise LiveError(f"stack {stack}: {classify_error(exc, 'cloudformation', 'ListStackResources')}") from None
        except (botocore.exceptions.BotoCoreError, PagingError) as exc:
            raise LiveError(f"stack {stack}: {classify_error(exc, 'cloudformation', 'ListStackResources')}") from None
    return physical


def find_paths(source: ClientSource, cdk_out: str | Path | None, origins: Sequence[str]) -> tuple[list[WatchPath], TemplateModel]:
    """The paths to watch: from a cloud assembly (its stacks' physical ids), else from the account."""
    if cdk_out is not None:
        path = Path(cdk_out)
        try:
            ok = path.exists()
        except OSError as exc:
            raise LiveError(f"CDK_OUT {cdk_out}: cannot read: {exc.strerror or exc}") from None
        if not ok:
            raise LiveError(f"CDK_OUT {cdk_out}: no such file or directory (a cloud assembly or a template)")
        model = load_model([path])
        names = set(model.origin_names())
        for origin in origins:
            if normalize_name(origin) not in names and not model.record_sets(normalize_name(origin)):
                raise LiveError(f"--grpc-origin {origin}: not an origin name in {cdk_out} (origins: {', '.join(sorted(names)) or 'none'})")
        parents = {s: t.parent for s, t in model.templates.items() if t.parent is not None}
        return paths_from_model(model, read_stack_resources(source, model.stacks, parents), origins), model
    account = read_account(source, names=list(origins) or None, grpc_origins=origins)
    model = account.model()
    paths = paths_from_model(model, None, origins)
    for path in paths:
        path.notes += [f"{svc} not read: {why}" for svc, why in sorted(account.unavailable.items())]
    return paths, model


# --- reading metrics -----------------------------------------------------------------------------
def _global_cloudwatch(source: ClientSource) -> Any:
    """A CloudWatch client in us-east-1 (Route 53 and CloudFront metrics live there)."""
    if (source.region or GLOBAL_REGION) == GLOBAL_REGION:
        return source.client("cloudwatch")
    from edge_origin.live.session import LiveSession

    if isinstance(source, LiveSession):
        return LiveSession(region=GLOBAL_REGION, profile=source.profile, endpoint_url=source.endpoint_url).client("cloudwatch")
    return source.client("cloudwatch")


def zonal_nodes(cloudwatch: Any, nlbs: dict[str, str]) -> tuple[list[Node], list[str]]:
    """The zonal nodes CloudWatch has ``ActiveFlowCount`` for (ListMetrics), per NLB; a whole-NLB node
    (with a note) when it has none."""
    nodes: list[Node] = []
    notes: list[str] = []
    for label, dim in nlbs.items():
        zones: set[str] = set()
        for page in paginate(cloudwatch, "list_metrics", Namespace="AWS/NetworkELB", MetricName="ActiveFlowCount",
                             Dimensions=[{"Name": "LoadBalancer", "Value": dim}]):
            for metric in page.get("Metrics", []):
                dims = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
                if dims.get("LoadBalancer") == dim and "AvailabilityZone" in dims and len(dims) == 2:
                    zones.add(dims["AvailabilityZone"])
        if zones:
            nodes += [Node(label, dim, z) for z in sorted(zones)]
        else:
            nodes.append(Node(label, dim, None))
            notes.append(f"{label}: no zonal ActiveFlowCount metric listed; the NLB is judged as one node")
    return nodes, notes


def _query(qid: str, namespace: str, name: str, dims: list[dict[str, str]], stat: str, period: int) -> dict[str, Any]:
    return {"Id": qid, "MetricStat": {"Metric": {"Namespace": namespace, "MetricName": name, "Dimensions": dims},
                                      "Period": period, "Stat": stat}, "ReturnData": True}


def get_series(cloudwatch: Any, queries: list[dict[str, Any]], start: dt.datetime, end: dt.datetime) -> dict[str, dict[dt.datetime, float]]:
    """``GetMetricData`` for every query (500 a call, every page): id -> {timestamp: value}."""
    out: dict[str, dict[dt.datetime, float]] = {q["Id"]: {} for q in queries}
    for i in range(0, len(queries), MAX_QUERIES_A_CALL):
        chunk = queries[i : i + MAX_QUERIES_A_CALL]
        for page in paginate(cloudwatch, "get_metric_data", MetricDataQueries=chunk, StartTime=start, EndTime=end,
                             ScanBy="TimestampAscending"):
            for result in page.get("MetricDataResults", []):
                series = out.setdefault(result["Id"], {})
                for ts, value in zip(result.get("Timestamps", []), result.get("Values", []), strict=False):
                    series[ts.astimezone(dt.UTC)] = float(value)
    return out


# --- judging -------------------------------------------------------------------------------------
def _sum_filled(series: Sequence[dict[dt.datetime, float]], ts: dt.datetime) -> float | None:
    """SUM(FILL([...], 0)) at ``ts``: None only when no series has a point there."""
    values = [s[ts] for s in series if ts in s]
    return sum(values) if values else None


def _breaches(flags: Sequence[bool], datapoints: int, evaluation: int) -> bool:
    """Any ``evaluation`` consecutive periods with at least ``datapoints`` flags (N of M)."""
    width = min(evaluation, len(flags))
    return any(sum(flags[i : i + width]) >= min(datapoints, width) for i in range(0, max(1, len(flags) - width + 1))) if flags else False


def judge(path: WatchPath, series: dict[str, dict[dt.datetime, float]], period_s: int, t: Thresholds) -> PathVerdict:
    """The verdict of one path from its series (ids: a<i> active, n<i> new, r<i> resets, h<i> health, x 5xx)."""
    nodes = path.nodes
    active = [series.get(f"a{i}", {}) for i in range(len(nodes))]
    new = [series.get(f"n{i}", {}) for i in range(len(nodes))]
    resets = [series.get(f"r{i}", {}) for i in range(len(nodes))]
    checks = list(path.health_checks)
    health = [series.get(f"h{i}", {}) for i in range(len(checks))]
    errors = series.get("x", {})
    stamps = sorted({ts for s in active + new + resets + health + [errors] for ts in s})
    notes = list(path.notes)
    problems: list[str] = []
    periods: list[Period] = []
    for ts in stamps:
        values = {n.label: a.get(ts, 0.0) for n, a in zip(nodes, active, strict=True)} if any(ts in a for a in active) else {}
        total = sum(values.values()) if values else None
        ratio = wm.max_over_mean(list(values.values())) if total is not None and total >= t.flow_floor and total > 0 else None
        rate = _sum_filled(resets, ts)
        periods.append(Period(ts, values, _sum_filled(new, ts), total, ratio, _sum_filled(health, ts),
                              rate / period_s if rate is not None else None, errors.get(ts)))
    judged = [p for p in periods if p.total_active is not None]
    if not nodes or not judged:
        why = "no NLB of the path found" if not nodes else "no ActiveFlowCount datapoints in the window"
        return PathVerdict(path.origin, NOT_CHECKED, [f"not checked: {why}"], notes, [n.label for n in nodes], periods, {}, {})
    verdict = SPREAD
    above = [p.max_over_mean is not None and p.max_over_mean > t.imbalance for p in judged]
    ratio_flags = [flag and not _chance(p) for flag, p in zip(above, judged, strict=True)]
    if sum(above) > sum(ratio_flags):
        notes.append(f"max/mean above {t.imbalance} in {sum(above) - sum(ratio_flags)} period(s) with so few flows per "
                     f"node that a balanced spread gives it by chance (more often than {ALPHA:g}): not counted as imbalance")
    if _breaches(ratio_flags, t.datapoints, t.evaluation):
        worst = max(p.max_over_mean or 0 for p in judged)
        problems.append(f"pile-up: max/mean active flows above {t.imbalance} in {t.datapoints} of {t.evaluation} periods "
                        f"(worst {worst:.2f}, {sum(ratio_flags)} periods)")
        verdict = PILE_UP
    elif all(p.max_over_mean is None for p in judged):
        verdict = IDLE
        notes.append(f"total active flows below the floor ({t.flow_floor}) in every period: spread not judged")
    if _accumulating(judged):
        first, last = judged[0].total_active or 0.0, judged[-1].total_active or 0.0
        problems.append(f"accumulating: active flows {first:.0f} -> {last:.0f}, still climbing, while new flows stay flat "
                        "(connections kept open but not used: keepalive vs idle timeout?)")
        verdict = verdict if verdict == PILE_UP else ACCUMULATING
    if checks:
        k = t.min_healthy or wm.default_min_healthy(len(checks))
        healthy = [p for p in periods if p.healthy is not None]
        if not healthy:
            notes.append("record health not checked: no HealthCheckStatus datapoints (us-east-1)")
        elif _breaches([(p.healthy or 0) < k for p in healthy], t.datapoints, t.evaluation):
            problems.append(f"too few healthy records: below {k} of {len(checks)} (lowest {min(p.healthy or 0 for p in healthy):.0f})")
            verdict = verdict if verdict in (PILE_UP, ACCUMULATING) else TOO_FEW_HEALTHY
    flips = {label: _flips(h) for label, h in zip(checks, health, strict=True) if _flips(h)}
    if flips:
        notes.append("health-check flips: " + ", ".join(f"{k} {v}" for k, v in flips.items()))
    rates = [p.resets_per_s for p in periods if p.resets_per_s is not None]
    if rates and _breaches([r > t.reset_rate for r in rates], t.datapoints, t.evaluation):
        problems.append(f"resets: NLB resets above {t.reset_rate}/s (peak {max(rates):.2f}/s): flows idle past the NLB idle timeout")
    errs = [p.error_rate_5xx for p in periods if p.error_rate_5xx is not None]
    if errs and _breaches([e > t.origin_5xx for e in errs], t.datapoints, t.evaluation):
        problems.append(f"origin 5xx: CloudFront 5xxErrorRate above {t.origin_5xx} % (peak {max(errs):.1f} %)")
    last_values = judged[-1].active
    total = sum(last_values.values())
    shares = {k: v / total for k, v in last_values.items()} if total > 0 else {}
    return PathVerdict(path.origin, verdict, problems, notes, [n.label for n in nodes], periods, flips, shares)


def _chance(period: Period) -> bool:
    """A period's max/mean is what flows spread at random over the nodes give more often than ``ALPHA``
    (the rehearsal's odds, :func:`edge_origin.rehearsal.odds.balanced_tail`): a sample, not an imbalance."""
    if period.max_over_mean is None or not period.active:
        return False
    return balanced_tail(period.max_over_mean, round(period.total_active or 0), len(period.active)) > ALPHA


def _accumulating(judged: Sequence[Period]) -> bool:
    """Active flows up by ``ACCUMULATION_GROWTH`` over the window and still climbing every period of
    the last third, while new flows in that third stay flat (within 20 % of their mean, or at most
    ``NEW_FLOWS_FLAT``): the keepalive incident's "ActiveFlowCount climbing, NewFlowCount flat"."""
    if len(judged) < 6:
        return False
    first, last = judged[0].total_active or 0.0, judged[-1].total_active or 0.0
    tail = judged[-max(3, len(judged) // 3) :]
    climbing = all((b.total_active or 0) > (a.total_active or 0) for a, b in zip(tail, tail[1:], strict=False))
    new = [p.new or 0.0 for p in tail]
    mean_new = sum(new) / len(new)
    flat = max(new) - min(new) <= max(0.2 * mean_new, wm.NEW_FLOWS_FLAT)
    return last - first >= max(10.0, wm.ACCUMULATION_GROWTH * first) and climbing and flat


def _flips(series: dict[dt.datetime, float]) -> int:
    values = [series[k] >= 1 for k in sorted(series)]
    return sum(1 for a, b in zip(values, values[1:], strict=False) if a != b)


def watch(
    source: ClientSource,
    cdk_out: str | Path | None = None,
    origins: Sequence[str] = (),
    since_s: int = 1800,
    period_s: int = wm.DEFAULT_PERIOD_S,
    thresholds: Thresholds | None = None,
    now: dt.datetime | None = None,
) -> WatchResult:
    """Read the paths' metrics over the last ``since_s`` seconds and judge each (module docstring)."""
    from edge_origin.rules import ADVISORY_RULES, run_rules

    t = thresholds or Thresholds()
    paths, model = find_paths(source, cdk_out, origins)
    end = (now or dt.datetime.now(dt.UTC)).replace(second=0, microsecond=0)
    start = end - dt.timedelta(seconds=since_s)
    regional = source.client("cloudwatch")
    verdicts: list[PathVerdict] = []
    for path in paths:
        try:
            path.nodes, notes = zonal_nodes(regional, path.nlbs)
            path.notes += notes
            queries: list[dict[str, Any]] = []
            for i, node in enumerate(path.nodes):
                dims = node.dimensions()
                queries += [
                    _query(f"a{i}", "AWS/NetworkELB", "ActiveFlowCount", dims, "Average", period_s),
                    _query(f"n{i}", "AWS/NetworkELB", "NewFlowCount", dims, "Sum", period_s),
                    _query(f"r{i}", "AWS/NetworkELB", "TCP_ELB_Reset_Count", dims, "Sum", period_s),
                ]
            series = get_series(regional, queries, start, end) if queries else {}
            global_queries = [
                _query(f"h{i}", "AWS/Route53", "HealthCheckStatus", [{"Name": "HealthCheckId", "Value": hc}], "Minimum", period_s)
                for i, hc in enumerate(path.health_checks.values())
            ]
            if path.distribution_id:
                global_queries.append(_query("x", "AWS/CloudFront", "5xxErrorRate", [
                    {"Name": "DistributionId", "Value": path.distribution_id}, {"Name": "Region", "Value": "Global"}], "Average", period_s))
            if global_queries:
                series.update(get_series(_global_cloudwatch(source), global_queries, start, end))
        except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError, PagingError) as exc:
            reason = classify_error(exc, "cloudwatch", "GetMetricData")
            verdicts.append(PathVerdict(path.origin, NOT_CHECKED, [f"not checked: {reason}"], path.notes, [], [], {}, {}))
            continue
        verdicts.append(judge(path, series, period_s, t))
    advisories = [f"{f.rule} {f.message}" for f in run_rules(model, ADVISORY_RULES)] if cdk_out is not None else []
    return WatchResult(since_s, period_s, t, verdicts, advisories)


def to_json(result: WatchResult) -> str:
    return json.dumps(result.to_dict(), indent=2, sort_keys=True) + "\n"
