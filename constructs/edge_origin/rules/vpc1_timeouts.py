"""EO-VPC1: a VPC origin's keepalive or read timeout above its default quota (120 s: a warning) or not a
CloudFront timeout at all (error), or not below its NLB's idle
timeout (hop model: CloudFront VPC origin -> internal NLB)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import ListenerView, TemplateModel
from edge_origin.model.values import Unresolved, deploy_time
from edge_origin.model.views import UNKNOWN_ATTRIBUTES
from edge_origin.profile import hops
from edge_origin.profile.hops import PathHop
from edge_origin.rules.base import finding, with_cdk
from edge_origin.rules.cf_undecided import timeout_undecided, undecided
from edge_origin.rules.ka_profile import HopRule, idle_attribute_written, listener_idle, over_idle_overrides
from edge_origin.rules.not_judged import undecided as undecided_value
from edge_origin.rules.vpc_paths import VpcOriginPath, vpc_origin_paths

LOW, HIGH = hops.CF_VPC_ORIGIN_TIMEOUT_RANGE
FIX = with_cdk(
    "EO-VPC1",
    f"Set VpcOriginConfig OriginKeepaliveTimeout and OriginReadTimeout within {LOW}..{HIGH} s (or raise the quotas), the keepalive well below "
    "the NLB listener's idle timeout (e.g. keepalive 60 s, idle 350 s) and the read timeout below it too "
    "(GrpcEdgeToOrigin(origin_access='vpc-origin') takes both from the connection profile).",
    'GrpcEdgeToOrigin(origin_access="vpc-origin", connection_profile=...) or `VpcOrigin.with_network_load_balancer(nlb, keepalive_timeout=, read_timeout=)`.',
)


def check(model: TemplateModel) -> Iterator[Finding]:
    for path in vpc_origin_paths(model):
        origin, res = path.origin, path.distribution.resource
        keepalive = origin.keepalive_timeout if origin.keepalive_timeout is not None else hops.CF_VPC_ORIGIN_DEFAULT_KEEPALIVE_S
        read = origin.read_timeout if origin.read_timeout is not None else hops.CF_VPC_ORIGIN_DEFAULT_READ_S
        undecided_ = {field: timeout_undecided(origin, field) for field in ("OriginKeepaliveTimeout", "OriginReadTimeout")}
        for field, kind, value in (("OriginKeepaliveTimeout", "keepalive", keepalive), ("OriginReadTimeout", "read", read)):
            if undecided_[field] is not None:
                # decided at deploy time: its range and its place below the NLB's idle timeout are not judged
                yield undecided(
                    RULE.id, path.distribution, f"{path.label.removeprefix(res.logical_id + ' ')} VpcOriginConfig.{field}",
                    undecided_[field], f"not judged against {LOW}..{HIGH} s nor against the NLB's idle timeout",
                )
                continue
            problem = hops.origin_timeout_problem(kind, value)
            if problem is not None:
                yield finding(
                    RULE.id, problem[0], res,
                    PathHop.CLOUDFRONT_VPC_ORIGIN_TO_NLB.says(f"{path.label}: VpcOriginConfig {field} {problem[1]}"),
                    FIX,
                )
        if path.load_balancer is None:
            found = _nlb_undecided(path, keepalive if undecided_["OriginKeepaliveTimeout"] is None else None,
                                   read if undecided_["OriginReadTimeout"] is None else None)
            if found is not None:
                yield found
            continue
        for listener in path.load_balancer.listeners:
            if UNKNOWN_ATTRIBUTES not in listener.attributes:  # the common listener: no entry may override
                yield from _against_listener(path, listener, keepalive, read, undecided_)
                continue
            yield from over_idle_overrides(
                listener, lambda li, p=path, k=keepalive, r=read, u=undecided_: _against_listener(p, li, k, r, u),
                rule_id=RULE.id, subject=f"{path.label} -> {listener.resource.stack}/{listener.resource.logical_id}",
                at=res)


def _against_listener(path: VpcOriginPath, listener: ListenerView, keepalive: float, read: float,
                      undecided_: dict[str, object]) -> list[Finding]:
    """The origin's keepalive and read timeouts against one listener's idle timeout."""
    res = path.distribution.resource
    idle = listener_idle(listener).seconds
    if idle is None:
        if listener.protocol == "UDP":  # UDP: no TCP idle timeout to judge
            return []
        return list(_idle_undecided(
            path, listener, keepalive if undecided_["OriginKeepaliveTimeout"] is None else None,
            read if undecided_["OriginReadTimeout"] is None else None))
    out: list[Finding] = []
    where = f"{listener.resource.stack}/{listener.resource.logical_id}"
    severity = hops.idle_severity(keepalive, idle) if undecided_["OriginKeepaliveTimeout"] is None else None
    if severity is not None:
        out.append(finding(
            RULE.id, Severity.WARNING, res,
            PathHop.CLOUDFRONT_VPC_ORIGIN_TO_NLB.says(
                f"{path.label}: keepalive {keepalive} s is not well below the idle timeout {idle} s of {where} "
                f"{hops.margin_words(idle)}: CloudFront may reuse a pooled connection whose flow is gone; {hops.NLB_EXPIRY}"
            ),
            FIX,
        ))
    if read >= idle and undecided_["OriginReadTimeout"] is None:
        out.append(finding(
            RULE.id, Severity.WARNING, res,
            PathHop.CLOUDFRONT_VPC_ORIGIN_TO_NLB.says(
                f"{path.label}: read timeout {read} s is not below the idle timeout {idle} s of {where}: a response "
                "silent that long loses its flow at the NLB before CloudFront's own timeout answers the viewer"
            ),
            FIX,
        ))
    return out


def _idle_undecided(path: VpcOriginPath, listener: ListenerView, keepalive: float | None,
                    read: float | None) -> Iterator[Finding]:
    """A listener whose ``tcp.idle_timeout.seconds`` the templates do not decide (a parameter without Default, an
    import, an undecidable condition; or a literal the API refuses, EO-NLB1's error): judged over every idle timeout
    the API takes (60..6000 s, EO-NLB1's facts). The warnings only grow as the idle timeout shrinks: quiet when the
    keepalive and read timeout are fine at 60 s; the same warnings at 6000 s as at 60 s: they hold for every value
    (decided); else not judged."""
    lo, hi = hops.NLB_IDLE_RANGE

    def problems(idle: float) -> list[str]:
        return [f"{name} {value} s" for name, value, bad in (
            ("keepalive", keepalive, keepalive is not None and hops.idle_severity(keepalive, idle) is not None),
            ("read timeout", read, read is not None and read >= idle)) if bad]

    at_lowest = problems(lo)
    if not at_lowest:
        return
    where = f"{listener.resource.stack}/{listener.resource.logical_id}"
    res = path.distribution.resource
    if problems(hi) == at_lowest:
        yield finding(
            RULE.id, Severity.WARNING, res,
            PathHop.CLOUDFRONT_VPC_ORIGIN_TO_NLB.says(
                f"{path.label}: {' and '.join(at_lowest)} not well below even the longest idle timeout of {where} "
                f"({hi} s; its {hops.IDLE_ATTRIBUTE} is not decided by the templates, and every value it may take "
                f"in {lo}..{hi} s gives the same): CloudFront may reuse a pooled connection whose flow is gone; "
                f"{hops.NLB_EXPIRY}"
            ),
            FIX,
        )
        return
    raw = idle_attribute_written(listener)
    literal = not deploy_time(undecided_value(raw)) and isinstance(raw, (str, int, float))
    yield undecided(
        RULE.id, path.distribution,
        f"{path.label.removeprefix(res.logical_id + ' ')} -> {where} ListenerAttributes {hops.IDLE_ATTRIBUTE}", raw,
        f"{' and '.join(at_lowest)} not well below every idle timeout the NLB takes ({lo}..{hi} s)",
        needs=f"a whole number of seconds in {lo}..{hi}" if literal else "",
        why=f"not a {hops.IDLE_ATTRIBUTE} the API takes ({lo}..{hi} whole seconds; EO-NLB1)" if literal else "",
    )


def _nlb_undecided(path: VpcOriginPath, keepalive: float | None, read: float | None) -> Finding | None:
    """The VPC origin (its ``VpcOriginId``) or its endpoint ``Arn`` decided at deploy time, so its NLB is not
    known: judged both ways over every idle timeout an NLB listener may have (from 60 s): quiet when the keepalive
    and read timeout are below the lowest, else not judged. None for a VPC origin outside the templates (a literal
    id): not a deploy-time value."""
    vpc = path.origin.vpc_origin
    value = vpc.endpoint if vpc is not None else path.origin.vpc_origin_id
    if not isinstance(value, Unresolved):
        return None
    lowest = hops.NLB_IDLE_RANGE[0]
    if (keepalive is None or hops.idle_severity(keepalive, lowest) is None) and (read is None or read < lowest):
        return None
    res = path.distribution.resource
    subject = f"{path.label.removeprefix(res.logical_id + ' ')} " + (
        "VpcOriginEndpointConfig.Arn" if vpc is not None else "VpcOriginConfig.VpcOriginId")
    timeouts = " and ".join(f"{name} {value_s} s" for name, value_s in (("keepalive", keepalive), ("read timeout", read))
                            if value_s is not None)
    return undecided(RULE.id, path.distribution, subject, value,
                     f"its NLB is not known: {timeouts} not well below every idle timeout an NLB listener may have "
                     f"(from {lowest} s)")


RULE = HopRule(
    id="EO-VPC1",
    lower="warning for a keepalive or read timeout not below the NLB's idle timeout",
    severity=Severity.ERROR,
    title="VPC origin timeouts out of range or not below the NLB idle timeout",
    catches=(
        f"A distribution origin with VpcOriginConfig whose OriginKeepaliveTimeout (default 5 s) or OriginReadTimeout "
        f"(default 30 s) is not whole seconds from {LOW} (error) or is above the default quota "
        f"{HIGH} s (warning naming the quota: both are adjustable per-account quotas); whose keepalive comes within 5 s or 10 % of the idle timeout "
        "of a listener of the VPC origin's NLB, or whose read timeout is not below it (warnings). A timeout decided at "
        "deploy time (a parameter without Default, an import, an undecidable condition) is not judged (warning); so "
        "is a VpcOriginId or endpoint Arn decided at deploy time when the timeouts are not well below every idle "
        "timeout an NLB may have (from 60 s), and so is a listener's tcp.idle_timeout.seconds decided at deploy time "
        "(or outside 60..6000) when they are not well below 60 s (fine at 60 s: quiet; the same warnings at 6000 s: "
        "they fire), and an entry of ListenerAttributes whose Key is decided at deploy time beside a literal "
        "tcp.idle_timeout.seconds whose Value gives another verdict (it may be that Key again)."
    ),
    incident=(
        "Idle connections reused by CloudFront after the NLB dropped them: resets and 502s "
        "(keepalive-vs-nlb-idle-timeout), on the VPC-origin path as on the public one."
    ),
    fix=FIX,
    check=check,
    facts=("cloudfront.origin_keepalive_timeout", "cloudfront.origin_read_timeout", "elbv2.nlb.idle_default"),
    why=(
        "Hop: CloudFront VPC origin -> internal NLB. Margin: " + hops.MARGIN_IDLE + ". Sources: " + hops.SRC_VPC_ORIGIN
        + " (1..120 s, defaults 5 and 30; aws-cdk-lib 2.275's L1 CfnDistribution.VpcOriginConfigProperty says the same, "
        "its L2 VpcOrigin calls both adjustable quotas); " + hops.SRC_NLB + "."
    ),
)
