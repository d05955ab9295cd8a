"""``ready``: one read-only report before an event: is the path ready for a burst from zero?

Each line is ``ready``, ``not ready`` or ``not read`` (with why), names the call it rests on and,
unless ready, the fix. ``ok`` only when every line is ready: a line that could not be read is
never fine. Only List/Describe/Get calls are made (``tests/live/test_readonly.py``).

Lines, in order:

- **quota**: Elastic IPs, NLBs, Route 53 health checks (``preflight``'s readers, with nothing more
  needed; with templates, ``preflight`` itself: what a deploy still needs).
- **capacity** per NLB per zone: ELBv2 ``DescribeCapacityReservation`` ("Describes the capacity
  reservation status for the specified load balancer", botocore 1.44.8 elbv2). Its
  ``MinimumLoadBalancerCapacity.CapacityUnits`` is "The requested minimum capacity reservation",
  ``CapacityReservationState`` holds per Availability Zone a ``State.Code`` of ``provisioned``,
  ``pending``, ``rebalancing`` or ``failed`` (``CapacityReservationStateEnum``) with a ``Reason``,
  and ``EffectiveCapacityUnits``. Ready only when units are reserved and every zone is
  ``provisioned``. AWS fulfils a reservation "typically within an hour, but can take up to a few
  hours", and allows decreases at most twice a day (``DecreaseRequestsRemaining``). moto 5.2.5
  answers this call with one canned ``provisioned`` state and no units (read: no reservation).
- **records** per origin name: present, multivalue (the answer model's policy), healthy
  (Route 53 ``GetHealthCheckStatus``, as ``audit`` reads it).
- **audit**: the rules over the account (``audit_account``): ready when no error finding.
- **alarm** per origin path: the ``OriginWatch`` alarms present (CloudWatch ``DescribeAlarms``):
  NLB flow imbalance (``AWS/NetworkELB ActiveFlowCount``) and resets (``TCP_ELB_Reset_Count``)
  over every NLB of the path, healthy records (``AWS/Route53 HealthCheckStatus``) over every
  record's check, CloudFront 5xx (``AWS/CloudFront 5xxErrorRate``) per distribution in front.
- **guards** per origin name: Route 53's own guard against the DNS plan race (incident 2): a record
  set protection on the name's A records (``ListResourceRecordSetProtections``) or the zone's
  ``ACTIVE_RECORD_CHECK`` change guardrail (``GetHostedZone`` ``Features``). Where Route 53 reports
  neither (moto 5.2.5, an older API, AccessDenied) the line is ``not read``, never ready.
- **profile** (``--connection-profile FILE``): the connection profile's checks (``edge-origin profile check``):
  ready when no error finding.
- **rehearsal** (``--rehearsal FILE``): the verdict of a ``edge-origin rehearse --json`` result:
  ready when its connections spread (``spread``), not ready on a pile-up.

The last two are asked for, not read: without the flag there is no line, and the summary says
which of them were not asked (``not asked: ...``) so a report never claims more than it read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import botocore.exceptions

from edge_origin.core.escape import md_code, md_text, plain
from edge_origin.core.findings import Severity
from edge_origin.live.account import (
    HEALTH_STATUS_KEY,
    ClientSource,
    LiveAccount,
    read_account,
)
from edge_origin.live.audit import audit_account
from edge_origin.live.optional import why_not_read
from edge_origin.live.paging import PagingError, paginate
from edge_origin.model import TemplateModel, normalize_name
from edge_origin.rules import RULES_BY_ID
from edge_origin.rules.watch1_imbalance_alarm import origin_load_balancers

READY, NOT_READY, NOT_READ = "ready", "not ready", "not read"
GLOBAL_REGION = "us-east-1"
PROVISIONED = "provisioned"
FULFILMENT = "AWS fulfils a reservation typically within an hour, but it can take up to a few hours"


@dataclass(frozen=True)
class ReadyLine:
    check: str
    subject: str
    status: str
    detail: str
    source: str
    fix: str = ""

    def text(self) -> str:
        """One terminal line: what came from the account or a file (names, reasons, a rehearsal's fields) is
        untrusted, written by ``core.escape.plain`` (controls visible, workflow commands defused)."""
        fix = f" Fix: {plain(self.fix)}" if self.status != READY and self.fix else ""
        return f"{self.status:<9} {self.check} {plain(self.subject)}: {plain(self.detail)} [{plain(self.source)}]{fix}"


@dataclass
class ReadyReport:
    region: str
    lines: list[ReadyLine] = field(default_factory=list)
    event_time: dt.datetime | None = None
    now: dt.datetime | None = None
    not_asked: list[str] = field(default_factory=list)  # optional inputs not given (--connection-profile, --rehearsal)

    @property
    def ok(self) -> bool:
        return bool(self.lines) and all(line.status == READY for line in self.lines)

    def counts(self) -> dict[str, int]:
        return {s: sum(line.status == s for line in self.lines) for s in (READY, NOT_READY, NOT_READ)}

    def not_ready(self) -> list[ReadyLine]:
        return [line for line in self.lines if line.status != READY]

    def _event(self) -> str:
        if self.event_time is None:
            return ""
        hours = (self.event_time - (self.now or dt.datetime.now(dt.UTC))).total_seconds() / 3600
        return f"; event {self.event_time.isoformat()} ({hours:.1f} h from now)"

    def summary(self) -> str:
        c = self.counts()
        verdict = "READY" if self.ok else "NOT READY"
        asked = f"; not asked: {', '.join(self.not_asked)}" if self.not_asked else ""
        return (f"{verdict}: {c[READY]} ready, {c[NOT_READY]} not ready, {c[NOT_READ]} not read in {self.region}"
                f"{self._event()}{asked}")

    def text(self) -> str:
        return "\n".join([*(line.text() for line in self.lines), self.summary()]) + "\n"

    def markdown(self) -> str:
        rows = [f"## edge-origin ready: {self.summary()}", "", "| Status | Check | Subject | Detail | Source | Fix |",
                "|---|---|---|---|---|---|"]
        for line in self.lines:
            fix = line.fix if line.status != READY else ""
            rows.append(f"| {line.status} | {line.check} | {md_code(line.subject)} | {md_text(line.detail)} | "
                        f"{md_text(line.source)} | {md_text(fix)} |")
        return "\n".join(rows) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {"region": self.region, "ok": self.ok, "counts": self.counts(),
                "event_time": self.event_time.isoformat() if self.event_time else None, "not_asked": list(self.not_asked),
                "lines": [asdict(line) for line in self.lines]}


def _attempt(service: str, operation: str, fn: Any) -> tuple[Any, str]:
    try:
        return fn(), ""
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError, PagingError) as exc:
        return None, str(why_not_read(exc, service, operation))


# --- quotas --------------------------------------------------------------------------------------
def quota_lines(source: ClientSource, templates: Sequence[str | Path] = ()) -> list[ReadyLine]:
    """``preflight``'s checks: with templates what they create, else what is deployed (nothing more)."""
    from edge_origin.live import preflight as pf

    region = source.region or GLOBAL_REGION
    if templates:
        checks = pf.preflight(source, templates).checks
    else:
        q = pf._Quotas(source)
        checks = [pf._eips(q, 0, region), pf._nlbs(q, 0, region), pf._health_checks(q, 0)]
    lines = []
    for c in checks:
        status = {pf.OK: READY, pf.EXCEEDED: NOT_READY}.get(c.status, NOT_READ)
        if c.status == pf.NOT_CHECKED:
            detail, fix = f"limit not read ({c.reason})", "Grant the read-only actions (docs/iam/readonly-policy.json) or retry."
        else:
            detail = f"limit {c.limit}, in use {c.in_use}, needed {c.needed}"
            fix = f"Request an increase of {c.quota} ({c.code}) in Service Quotas before the event."
        lines.append(ReadyLine("quota", f"{c.quota} ({c.scope})", status, detail, c.source or c.code, fix))
    return lines


# --- capacity reservations ----------------------------------------------------------------------
def capacity_lines(elbv2: Any, name: str, arn: str, event_hours: float | None = None,
                   units_read: dict[str, int | None] | None = None) -> list[ReadyLine]:
    """One line per zone of the NLB's reservation (one line when there is none or it is not read).
    ``units_read`` gets ``arn`` -> the requested units (0: none; None: not read), for the prediction."""
    source = "elbv2 DescribeCapacityReservation"
    if units_read is not None:
        units_read[arn] = None
    from edge_origin.live.optional import NotRead, call_optional

    got = call_optional(elbv2, "elbv2", "DescribeCapacityReservation", LoadBalancerArn=arn)
    if isinstance(got, NotRead):
        fix = {"sdk": "Upgrade boto3/botocore (pip install -U boto3), or check the reservation in the console.",
               "denied": "Grant elasticloadbalancing:DescribeCapacityReservation, or check the reservation in the console.",
               "throttled": "Retry.", "failed": "Retry.",
               }.get(got.kind, "Check the reservation in the console (this endpoint has no DescribeCapacityReservation).")
        return [ReadyLine("capacity", name, NOT_READ, str(got), source, fix)]
    units = (got.get("MinimumLoadBalancerCapacity") or {}).get("CapacityUnits")
    if units_read is not None:
        units_read[arn] = int(units or 0)
    if not units:
        return [ReadyLine(
            "capacity", name, NOT_READY,
            "no capacity reserved: a burst from zero meets an NLB that scales as traffic comes", source,
            f"Reserve LCUs (1 LCU = 2.2 Mbps; each zone's share 2750..45000): capacity_units=N on OriginFleet / "
            f"GrpcEdgeToOrigin and deploy, or aws elbv2 modify-capacity-reservation --load-balancer-arn {arn} "
            f"--minimum-load-balancer-capacity CapacityUnits=N; {FULFILMENT}: do it hours before the event.",
        )]
    remaining = got.get("DecreaseRequestsRemaining")
    tail = f"; {remaining} decrease(s) left today" if remaining is not None else ""
    zones = [z for z in got.get("CapacityReservationState") or [] if z.get("AvailabilityZone")]
    if not zones:
        return [ReadyLine("capacity", name, NOT_READY, f"{units} LCU requested, no zone reports its state{tail}", source,
                          f"Wait and re-run: {FULFILMENT}.")]
    lines = []
    for zone in sorted(zones, key=lambda z: z["AvailabilityZone"]):
        state = zone.get("State") or {}
        code = str(state.get("Code") or "?")
        effective = zone.get("EffectiveCapacityUnits")
        detail = f"{units} LCU requested, zone {code}" + (f" ({effective:g} effective)" if effective is not None else "")
        if state.get("Reason"):
            detail += f": {state['Reason']}"
        if code == PROVISIONED:
            lines.append(ReadyLine("capacity", f"{name} {zone['AvailabilityZone']}", READY, detail + tail, source))
            continue
        if code == "failed":
            fix = ("The reservation failed in this zone: lower it (ModifyCapacityReservation, at most two decreases a day) "
                   "or ask AWS support, then re-run.")
        else:  # pending, rebalancing
            soon = f"; the event is {event_hours:.1f} h away" if event_hours is not None else ""
            fix = f"Wait and re-run: {FULFILMENT}{soon}."
        lines.append(ReadyLine("capacity", f"{name} {zone['AvailabilityZone']}", NOT_READY, detail + tail, source, fix))
    return lines


# --- records -------------------------------------------------------------------------------------
def record_lines(account: LiveAccount, model: TemplateModel, name: str) -> list[ReadyLine]:
    r53 = "route53 ListResourceRecordSets"
    if "route53" in account.unavailable:
        why = account.unavailable["route53"]
        return [ReadyLine("records", name, NOT_READ, f"not read ({why})", r53,
                          "Grant the read-only Route 53 actions (docs/iam/readonly-policy.json).")]
    records = [r for r in model.record_sets(name) if r.type == "A"]
    if not records:
        return [ReadyLine("records", name, NOT_READY, "no A record sets of this name in any hosted zone", r53,
                          "Deploy the origin records (MultivalueOriginRecords / GrpcEdgeToOrigin) before the event.")]
    lines = [ReadyLine("records", name, READY, f"{len(records)} A record set(s)", r53)]
    policies = sorted({r.routing_policy for r in records})
    if policies == ["multivalue"]:
        lines.append(ReadyLine("multivalue", name, READY, f"all {len(records)} record sets multivalue", r53))
    else:
        lines.append(ReadyLine(
            "multivalue", name, NOT_READY,
            f"routing {', '.join(policies)}: an answer holds fewer addresses than the path has, so a burst piles onto them",
            r53, RULES_BY_ID["EO-DNS1"].fix,
        ))
    lines.append(_health_line(account, name, records))
    return lines


def _health_line(account: LiveAccount, name: str, records: list[Any]) -> ReadyLine:
    source = "route53 GetHealthCheckStatus"
    unchecked, unhealthy, unread = [], [], []
    for record in records:
        label = str(record.set_identifier or record.label)
        if record.health_check is None:
            unchecked.append(label)
            continue
        meta = account.template["Resources"].get(record.health_check.resource.logical_id, {}).get("Metadata", {})
        status = meta.get(HEALTH_STATUS_KEY) or {}
        if status.get("healthy") is None:
            unread.append(f"{label} ({status.get('why', 'not read')})")
        elif not status["healthy"]:
            unhealthy.append(f"{label} ({status.get('failing', '?')} of {status.get('observations', '?')} checkers failing)")
    if unhealthy or unchecked:
        parts = ([f"unhealthy: {', '.join(unhealthy)}"] if unhealthy else []) + (
            [f"no health check: {', '.join(unchecked)}"] if unchecked else [])
        return ReadyLine("health", name, NOT_READY, "; ".join(parts), source,
                         "Bring the unhealthy NLB or its targets back (or remove its record) and give every record a "
                         "health check (EO-DNS2): Route 53 answers with unhealthy records only when all are unhealthy.")
    if unread:
        return ReadyLine("health", name, NOT_READ, f"not read: {', '.join(unread)}", source,
                         "Grant route53:GetHealthCheckStatus or retry (about 5 requests a second).")
    return ReadyLine("health", name, READY, f"all {len(records)} records healthy", source)


def audit_line(account: LiveAccount, grpc: bool) -> ReadyLine:
    findings = audit_account(account, grpc_origins=grpc).findings
    errors = [f for f in findings if f.severity is Severity.ERROR]
    unread = [f for f in findings if f.severity is Severity.NOT_CHECKED]
    source = "audit (the rules over List/Describe/Get)"
    if errors:
        rules = sorted({f.rule for f in errors})
        return ReadyLine("audit", "rules", NOT_READY, f"{len(errors)} error finding(s): {', '.join(rules)}: {errors[0].message}",
                         source, errors[0].fix)
    if unread:
        return ReadyLine("audit", "rules", NOT_READ, f"{len(unread)} rule(s) not checked: {unread[0].message}", source, unread[0].fix)
    return ReadyLine("audit", "rules", READY, f"no error findings ({len(findings)} finding(s) below error)", source)


# --- alarms --------------------------------------------------------------------------------------
def _alarm_metrics(alarm: dict[str, Any]) -> Iterable[tuple[str, str, dict[str, str]]]:
    """(namespace, metric name, dimensions) of an alarm: its own metric and every MetricStat of its math."""
    if alarm.get("MetricName"):
        yield alarm.get("Namespace", ""), alarm["MetricName"], {d["Name"]: d["Value"] for d in alarm.get("Dimensions") or []}
    for query in alarm.get("Metrics") or []:
        metric = (query.get("MetricStat") or {}).get("Metric") or {}
        if metric.get("MetricName"):
            yield metric.get("Namespace", ""), metric["MetricName"], {d["Name"]: d["Value"] for d in metric.get("Dimensions") or []}


def read_alarms(clients: Iterable[Any]) -> tuple[list[dict[str, Any]], str]:
    alarms: list[dict[str, Any]] = []
    for client in clients:
        got, why = _attempt("cloudwatch", "DescribeAlarms", lambda c=client: [
            a for page in paginate(c, "describe_alarms") for a in page.get("MetricAlarms", [])])
        if got is None:
            return [], why
        alarms += got
    return alarms, ""


def _covered(alarms: list[dict[str, Any]], namespace: str, metric: str, dimension: str, wanted: dict[str, str]) -> tuple[list[str], list[str]]:
    """(alarm names covering any of ``wanted``, labels of ``wanted`` values no alarm covers)."""
    names, seen = set(), set()
    for alarm in alarms:
        for ns, name, dims in _alarm_metrics(alarm):
            if ns == namespace and name == metric and dims.get(dimension) in wanted:
                names.add(alarm["AlarmName"])
                seen.add(dims[dimension])
    return sorted(names), sorted(label for value, label in wanted.items() if value not in seen)


def alarm_lines(alarms: list[dict[str, Any]], why: str, name: str, nlbs: dict[str, str], checks: dict[str, str],
                distributions: dict[str, str]) -> list[ReadyLine]:
    """``nlbs``/``checks``/``distributions``: dimension value -> label, for this origin path."""
    source = "cloudwatch DescribeAlarms"
    wanted = [("NLB flow imbalance", "AWS/NetworkELB", "ActiveFlowCount", "LoadBalancer", nlbs),
              ("NLB resets", "AWS/NetworkELB", "TCP_ELB_Reset_Count", "LoadBalancer", nlbs),
              ("healthy records", "AWS/Route53", "HealthCheckStatus", "HealthCheckId", checks),
              ("CloudFront 5xx", "AWS/CloudFront", "5xxErrorRate", "DistributionId", distributions)]
    lines = []
    for title, namespace, metric, dimension, values in wanted:
        if not values:
            continue
        subject = f"{name} {title}"
        if why:
            lines.append(ReadyLine("alarm", subject, NOT_READ, f"not read ({why})", source,
                                   "Grant cloudwatch:DescribeAlarms (docs/iam/readonly-policy.json) or retry."))
            continue
        found, missing = _covered(alarms, namespace, metric, dimension, values)
        if missing:
            have = f" (alarms {', '.join(found)} cover the others)" if found else ""
            lines.append(ReadyLine(
                "alarm", subject, NOT_READY, f"no alarm on {namespace} {metric} for {', '.join(missing)}{have}", source,
                "Deploy the path's OriginWatch (GrpcEdgeToOrigin monitoring=WatchOptions(...), the default) or an alarm "
                f"on {metric} per {dimension}; Route 53 and CloudFront alarms live in us-east-1.",
            ))
        else:
            lines.append(ReadyLine("alarm", subject, READY, f"{', '.join(found)} on {metric}", source))
    return lines


def _lb_dimension(arn: str) -> str:
    """The CloudWatch ``LoadBalancer`` dimension: the ARN after ``loadbalancer/`` (``net/<name>/<id>``)."""
    return arn.split(":loadbalancer/", 1)[-1]


def _global_cloudwatch(source: ClientSource) -> list[Any]:
    """CloudWatch in the session's region and, when that is not us-east-1, in us-east-1 too."""
    from edge_origin.live.watch import _global_cloudwatch as global_client

    regional = source.client("cloudwatch")
    other = global_client(source)
    return [regional] if other is regional else [regional, other]


# --- the report ----------------------------------------------------------------------------------
def ready(
    source: ClientSource,
    names: Sequence[str] = (),
    *,
    templates: Sequence[str | Path] = (),
    event_time: dt.datetime | None = None,
    now: dt.datetime | None = None,
    profile: str | Path | None = None,
    in_vpc_clients: bool | None = None,
    rehearsal: str | Path | None = None,
    event: Any = None,
) -> ReadyReport:
    """Read the account (List/Describe/Get only) and judge each line (see the module docstring).

    ``profile``: a connection profile file (``profile check``'s input; ``in_vpc_clients`` as its flag);
    ``rehearsal``: a ``rehearse --json`` result file. Both are read before the account: a bad file
    raises ``ReadyInputError`` naming the flag, and nothing is called. ``event``: a
    ``forecast.capacity.PlannedEvent`` (its ``nlbs`` are replaced by the ones read) for the
    ``prediction`` line of each origin name."""
    if profile is not None:
        load_profile_file(profile)
    if rehearsal is not None:
        load_rehearsal_result(rehearsal)
    wanted = [n for n in (normalize_name(x) for x in names) if n]
    now = now or dt.datetime.now(dt.UTC)
    hours = (event_time - now).total_seconds() / 3600 if event_time is not None else None
    report = ReadyReport(source.region or GLOBAL_REGION, event_time=event_time, now=now)
    report.lines += quota_lines(source, templates)
    account = read_account(source, wanted or None, wanted)
    model = account.model()
    origins = wanted or sorted(model.origin_names())
    if not origins:
        report.lines.append(ReadyLine("records", "origins", NOT_READY, "no origin names found in the account",
                                      "cloudfront ListDistributions", "Name the origin with --name."))
        return report
    alarms, alarms_why = read_alarms(_global_cloudwatch(source))
    elbv2 = source.client("elbv2")
    done: set[str] = set()
    units_read: dict[str, int | None] = {}
    for name in origins:
        report.lines += record_lines(account, model, name)
        lbs = origin_load_balancers(model, name)
        nlbs: dict[str, str] = {}
        for lb in lbs:
            service, arn = account.ids.get(lb.resource.logical_id, ("", ""))
            label = str(lb.resource.properties.get("Name") or lb.resource.logical_id)
            if not arn.startswith("arn:"):
                continue
            nlbs[_lb_dimension(arn)] = label
            if arn not in done:
                done.add(arn)
                report.lines += capacity_lines(elbv2, label, arn, hours, units_read)
        if not lbs and "elbv2" not in account.unavailable:
            report.lines.append(ReadyLine("capacity", name, NOT_READY, "no NLB found behind this name", "elbv2 DescribeLoadBalancers",
                                          "Check the records point at the NLBs' Elastic IPs (EO-NLB2)."))
        checks = {account.ids.get(r.health_check.resource.logical_id, ("", ""))[1]: str(r.set_identifier or r.label)
                  for r in model.record_sets(name) if r.health_check is not None}
        report.lines += alarm_lines(alarms, alarms_why, name, nlbs, {k: v for k, v in checks.items() if k},
                                    _distribution_ids(model, name))
        if event is not None:
            report.lines.append(prediction_line(event, name, [
                (str(lb.resource.properties.get("Name") or lb.resource.logical_id), lb.zone_count,
                 units_read.get(account.ids.get(lb.resource.logical_id, ("", ""))[1])) for lb in lbs]))
    report.lines += guard_lines(account, model, source, origins)
    report.lines.append(audit_line(account, bool(wanted)))
    if profile is not None:
        report.lines.append(profile_line(profile, in_vpc_clients=in_vpc_clients))
    if rehearsal is not None:
        report.lines.append(rehearsal_line(rehearsal))
    report.not_asked = [flag for flag, given in (("--devices", event), ("--connection-profile", profile), ("--rehearsal", rehearsal))
                        if given is None]
    return report


# --- the model's prediction -----------------------------------------------------------------------
PREDICTION_SOURCE = "edge-origin model predict (forecast/capacity.py) over the NLBs and reservations read"


def prediction_line(event: Any, name: str, nlbs: Sequence[tuple[str, int, int | None]]) -> ReadyLine:
    """The capacity model's verdict for the planned event over the NLBs behind ``name``: (label, zonal
    nodes, LCUs reserved; None = not read). Ready when no connect fails; not read when an NLB's
    zones or reservation could not be read (a guess would be a verdict on what was not read)."""
    import dataclasses

    from edge_origin.forecast.capacity import Nlb, predict_event

    subject = f"{name} {event.devices:,.0f} devices over {event.ramp_seconds:g} s"
    unread = [label for label, zones, units in nlbs if not zones or units is None]
    if not nlbs or unread:
        why = "no NLB found behind this name" if not nlbs else (
            f"zones or reservation of {', '.join(unread)} not read")
        return ReadyLine("prediction", subject, NOT_READ, f"not read: {why}", PREDICTION_SOURCE,
                         "Run edge-origin model predict with --nlbs/--zones/--capacity-units by hand.")
    planned = dataclasses.replace(event, nlbs=tuple(Nlb(label, zones, units or 0) for label, zones, units in nlbs)).check()
    got = predict_event(planned)
    assumed = ", ".join(sorted(set(("node_lcus", "scale_lcus_per_second", "device_kbps", "retry_seconds"))
                               - set(planned.overridden))) or "none"
    if got.fails:
        return ReadyLine("prediction", subject, NOT_READY,
                         f"{got.first_dimension} runs out first, {got.first_seconds:g} s into the ramp; "
                         f"{got.failed_connects:,.0f} connects fail ({got.failed_share * 100:.3f} %); assumptions at "
                         f"their defaults: {assumed}", PREDICTION_SOURCE,
                         "More NLBs/EIPs or a longer ramp lower each node's share; a reservation buys throughput only "
                         "(edge-origin model predict prints the table).")
    return ReadyLine("prediction", subject, READY, f"no connect fails within {planned.horizon:g} s over "
                     f"{planned.nodes} zonal nodes; assumptions at their defaults: {assumed}", PREDICTION_SOURCE)


# --- guards, profile, rehearsal ---------------------------------------------------------------------
GUARD_SOURCE = "route53 ListResourceRecordSetProtections, GetHostedZone (Features)"


class ReadyInputError(ValueError):
    """A file given to ``ready`` that it cannot use (names the flag)."""


def guard_lines(account: LiveAccount, model: TemplateModel, source: ClientSource, names: Sequence[str]) -> list[ReadyLine]:
    """One line per origin name: Route 53's own guard against a change that leaves it without addresses."""
    from edge_origin.live.guards_audit import name_guards

    if "route53" in account.unavailable:
        why = f"not read: route53 ({account.unavailable['route53']})"
        return [ReadyLine("guards", name, NOT_READ, why, GUARD_SOURCE, "Grant the read-only Route 53 actions.") for name in names]
    found = {normalize_name(g.name): g for g in name_guards(account, model, source.client("route53"))}
    lines = []
    for name in names:
        guards = found.get(normalize_name(name))
        fix = (f"Protect it: aws route53 create-resource-record-set-protections --hosted-zone-id "
               f"{guards.zone_id if guards else 'ZONE_ID'} --protections RecordName={name},RecordType=A (edge-origin enact "
               "--unprotect lifts it for a planned change), or turn on ACTIVE_RECORD_CHECK (ADVANCED tier); both cost money.")
        if guards is None:
            lines.append(ReadyLine("guards", name, NOT_READ, "not read: no public hosted zone of the account holds this origin "
                                   "name", GUARD_SOURCE, "Name the origin with --name as its records spell it."))
        elif guards.guarded:
            lines.append(ReadyLine("guards", name, READY, guards.line(), GUARD_SOURCE))
        elif guards.guarded is None:
            lines.append(ReadyLine("guards", name, NOT_READ, "not read: Route 53 did not report "
                                   + ("its protections" if guards.protected is None else "the zone's guardrails")
                                   + f" ({guards.line()}): an endpoint without these operations or AccessDenied",
                                   GUARD_SOURCE, "Grant route53:ListResourceRecordSetProtections and route53:GetHostedZone."))
        else:
            lines.append(ReadyLine("guards", name, NOT_READY, f"unguarded: {guards.line()}; Route 53 accepts a change that "
                                   "leaves it without addresses (the DNS plan race)", GUARD_SOURCE, fix))
    return lines


def load_profile_file(path: str | Path) -> Any:
    """(profile, in_vpc_clients from the file); ReadyInputError naming ``--connection-profile``."""
    from edge_origin.profile.cli import load_path_profile

    try:
        return load_path_profile(str(path))
    except (ValueError, OSError) as exc:  # ProfileError names the file and the field
        raise ReadyInputError(f"--connection-profile: {exc}") from None


def profile_line(path: str | Path, *, in_vpc_clients: bool | None = None) -> ReadyLine:
    """The connection profile's checks (``profile check``): ready when no error finding."""
    profile, from_file = load_profile_file(path)
    in_vpc = in_vpc_clients if in_vpc_clients is not None else from_file
    found = profile.check(source=str(path), in_vpc_clients=in_vpc)
    errors = [f for f in found if f.severity is Severity.ERROR]
    source = f"connection profile {path} (edge-origin profile check)"
    if errors:
        return ReadyLine("profile", str(path), NOT_READY, f"{len(errors)} error finding(s): {errors[0].rule}: "
                         f"{errors[0].message}", source, errors[0].fix)
    return ReadyLine("profile", str(path), READY, f"consistent ({len(found)} finding(s) below error)", source)


def load_rehearsal_result(path: str | Path) -> dict[str, Any]:
    """A ``rehearse --json`` result; ReadyInputError naming ``--rehearsal``."""
    from edge_origin.core.files import InputFileError, load_data_file

    try:  # the one safe loader: a regular file (no FIFO, no /dev/zero), bounded size, depth and aliases
        data = load_data_file(path)
    except InputFileError as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        raise ReadyInputError(f"--rehearsal {path}: not a readable JSON file ({reason})") from None
    if not isinstance(data, dict) or data.get("verdict") not in ("spread", "pile-up"):
        raise ReadyInputError(f"--rehearsal {path}: not an `edge-origin rehearse --json` result (its 'verdict' must be "
                              "'spread' or 'pile-up')")
    return data


def rehearsal_line(path: str | Path) -> ReadyLine:
    """The last rehearsal's verdict: ready when it spread."""
    data = load_rehearsal_result(path)
    ratio = data.get("max_over_mean")
    errors = sum(v for v in (data.get("errors") or {}).values() if isinstance(v, int | float))
    detail = (f"{data['verdict']}: max/mean connections {ratio}, {data.get('clients', '?')} clients, "
              f"policy {data.get('policy', '?')}, {errors:g} error(s)")
    source = f"rehearsal result {path} (edge-origin rehearse --json)"
    if data["verdict"] != "spread":
        return ReadyLine("rehearsal", str(path), NOT_READY, detail, source,
                         "The origin's connections piled up: fix the records (EO-DNS1) and rehearse again.")
    return ReadyLine("rehearsal", str(path), READY, detail, source)


def _distribution_ids(model: TemplateModel, name: str) -> dict[str, str]:
    out = {}
    for dist in model.distributions:
        if any(normalize_name(o.domain_name) == name for o in dist.origins if isinstance(o.domain_name, str)):
            dist_id = dist.resource.metadata.get("edge-origin:distribution-id")
            if isinstance(dist_id, str):
                out[dist_id] = f"distribution {dist_id}"
    return out


__all__ = ["NOT_READ", "NOT_READY", "READY", "ReadyInputError", "ReadyLine", "ReadyReport", "ready"]
