"""EO-NLB4: NLB DNS attributes (zonal shift, client routing policy, DNS failover) on a path that
does not use the NLB's DNS name, and zonal shift without its prerequisite.

Zonal shift (ELB guide, zonal-shift.html): "When you start a zonal shift, your Network Load Balancer
stops routing traffic to targets in the affected Availability Zone". With cross-zone load balancing on
(EO-NLB3 asks for it) that acts on every address, the EIPs CloudFront connects to included: quiet, but
the ELB guide's prerequisite (enable-zonal-shift.html: on a cross-zone NLB every target group must have
"Connection termination for unhealthy targets ... disabled",
``target_health_state.unhealthy.connection_termination.enabled`` false, whose API default is true, and
target-group cross-zone not false) is judged. With cross-zone off the zone's EIP keeps receiving
CloudFront's connections with no other zone to send them to: a warning as for the DNS-only attributes.

The others act on the NLB's own DNS name (botocore 1.44.8 elbv2 ``LoadBalancerAttribute.Key``:
``dns_record.client_routing_policy`` "Indicates how traffic is distributed among the load balancer
Availability Zones" (zonal affinity of DNS answers); ``TargetGroupAttribute.Key``
``target_group_health.dns_failover.minimum_healthy_targets.count`` / ``.percentage``: "If the number
of healthy targets is below this value, mark the zone as unhealthy in DNS"). This library publishes
the NLB's EIPs in the user's own multivalue records, so none of them moves CloudFront's connections:
only the record's own Route 53 health check on that EIP does (a WARNING naming the attribute and
that health check).

Where the origin path does go through the NLB's DNS name (an alias or CNAME to it, or an origin
DomainName of ``Fn::GetAtt Nlb.DNSName``), zonal shift and DNS failover act; a zonal-affinity
``client_routing_policy`` is judged from CloudFront's vantage as EO-VPC3 does: a public resolver has
no zone.
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.fast_dataclass import dataclass
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import RecordSetView, Resource, TemplateModel, Unresolved, display_value
from edge_origin.model.values import deploy_time
from edge_origin.model.views import (
    UNKNOWN_ATTRIBUTES,
    LoadBalancerView,
    TargetGroupView,
    as_bool,
    attribute_known,
    props_of,
)
from edge_origin.rules.base import Rule, answer_views, finding, origin_label, origin_resolutions, with_cdk
from edge_origin.rules.lb_type import NEEDS_DEFAULT, as_if_network, attribute_element, attribute_overrides
from edge_origin.rules.not_judged import not_judged
from edge_origin.rules.vpc3_dns_vantage import PUBLIC_RESOLVER_NO_ZONE, affinity_policy

ZONAL_SHIFT = "zonal_shift.config.enabled"
ROUTING = "dns_record.client_routing_policy"
MIN_COUNT = "target_group_health.dns_failover.minimum_healthy_targets.count"
MIN_PERCENT = "target_group_health.dns_failover.minimum_healthy_targets.percentage"
UNHEALTHY_TERMINATION = "target_health_state.unhealthy.connection_termination.enabled"
TG_CROSS_ZONE = "load_balancing.cross_zone.enabled"
USR_COUNT = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count"
USR_PERCENT = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage"
KNOWN_ATTRIBUTES = (ZONAL_SHIFT, ROUTING, MIN_COUNT, MIN_PERCENT, UNHEALTHY_TERMINATION, USR_COUNT, USR_PERCENT)
"""The NLB / target group attributes this rule reads (benchmarks/aws_drift.py counts them as known)."""
LB_KEYS = (ZONAL_SHIFT, ROUTING)
TG_KEYS = (MIN_COUNT, MIN_PERCENT, USR_COUNT, USR_PERCENT)
"""The keys a target group attribute list decided at deploy time may hold that this rule reads (the last two act on
every path: fail-open to unhealthy targets)."""

ACTS_ON = {
    ZONAL_SHIFT: (
        "with cross-zone load balancing off, a zonal shift takes the zone's address out of the NLB's own DNS name and "
        "stops routing to that zone's targets, and connections to that zone's EIP have no other zone's targets to go to"
    ),
    ROUTING: "it shapes only the answers for the NLB's own DNS name",
    MIN_COUNT: "it marks a zone unhealthy in the NLB's own DNS name",
    MIN_PERCENT: "it marks a zone unhealthy in the NLB's own DNS name",
}
FIX = with_cdk(
    "EO-NLB4",
    "On an EIP-published path, what moves CloudFront off a zone is the origin record's Route 53 health check on that "
    "zone's EIP: keep one on every record (health check the NLB's listener port or a path the pods serve); drop the "
    "attribute or acknowledge it. For zonal shift, turn cross-zone load balancing on (OriginFleet does) and set "
    "target_health_state.unhealthy.connection_termination.enabled false on every target group (in CDK "
    "`target_group.set_attribute(\"target_health_state.unhealthy.connection_termination.enabled\", \"false\")`; "
    "OriginFleet's default). Where CloudFront resolves the NLB's DNS name, leave dns_record.client_routing_policy "
    "at any_availability_zone.",
    '`target_group.set_attribute("target_health_state.unhealthy.connection_termination.enabled", "false")` before `nlb.set_attribute("zonal_shift.config.enabled", "true")` (NetworkLoadBalancer(zonal_shift=True)); OriginFleet(cross_zone_enabled=True) is the default; MultivalueOriginRecords keeps a health check on every EIP.',
)
USR_FIX = with_cdk(
    "EO-NLB4",
    f"Leave {USR_COUNT} at 1 and {USR_PERCENT} off unless sending gRPC connections to failing pods is what you want "
    "while too few are healthy; the origin records' Route 53 health checks take a failed zone's EIP out instead.",
    "`target_group.set_attribute(...)` only for these keys; OriginFleet leaves them at the defaults.",
)
PREREQUISITE_FIX = (
    "Set target_health_state.unhealthy.connection_termination.enabled false on every target group of the NLB (CDK: "
    "`target_group.set_attribute(\"target_health_state.unhealthy.connection_termination.enabled\", \"false\")`; "
    "OriginFleet sets it by default) and leave the target groups' load_balancing.cross_zone.enabled at true or "
    "use_load_balancer_configuration; or turn zonal shift off."
)


@dataclass(frozen=True)
class Setting:
    attribute: str
    value: object
    resource: Resource
    #: For an attribute list decided at deploy time: the keys this rule reads that it may hold.
    may_hold: tuple[str, ...] = ()


def _unresolved_list(attrs: dict[str, object], keys: tuple[str, ...], resource: Resource, prop: str) -> Setting | None:
    """The attribute list of ``resource`` when it (or a key in it) is decided at deploy time and
    does not state each of ``keys`` literally: any of them may be set in it."""
    if UNKNOWN_ATTRIBUTES not in attrs:
        return None
    # a literal key is open too beside an entry whose Key is decided at deploy time and whose Value differs: that entry
    # may be the key again (which of two entries of one Key ELB keeps, the templates do not say)
    open_keys = tuple(k for k in keys if k not in attrs or _may_be_set(resource, prop, attrs, k))
    if not open_keys:
        return None
    return Setting(prop, resource.properties.get(prop) if isinstance(resource.properties, dict) else resource.properties, resource, open_keys)


def _may_be_set(resource: Resource, prop: str, attrs: dict[str, object], key: str) -> bool:
    """Whether an entry whose Key is decided at deploy time, beside the literal ``key`` entry, may set ``key`` to a
    Value this rule judges (zonal shift on, a zonal affinity; any Value of the other keys, or one decided at deploy
    time): ``attribute_overrides``, the Values the API would refuse or the rule leaves quiet left out."""
    for _index, _entry, value in attribute_overrides(resource, prop, attrs, key):
        text = "" if deploy_time(value) else str(value).strip().lower()
        if (not text or (key == ZONAL_SHIFT and text == "true") or (key == ROUTING and text in _AFFINITIES)
                or key not in (ZONAL_SHIFT, ROUTING)):
            return True
    return False


_AFFINITIES = frozenset({"availability_zone_affinity", "partial_availability_zone_affinity"})


def _target_groups(lb: LoadBalancerView) -> Iterator[TargetGroupView]:
    """Each target group behind the NLB's listeners, once (two listeners may forward to one)."""
    seen: set[int] = set()
    for listener in lb.listeners:
        for tg in listener.target_groups:
            if id(tg) not in seen:
                seen.add(id(tg))
                yield tg


def _settings(lb: LoadBalancerView) -> list[Setting]:
    """Attributes set away from their defaults (zonal shift false, any_availability_zone, count 1,
    percentage off), or decided at deploy time (value an ``Unresolved``/reference)."""
    out: list[Setting] = []
    attrs = lb.attributes
    unresolved = _unresolved_list(attrs, LB_KEYS, lb.resource, "LoadBalancerAttributes")
    if unresolved is not None:
        out.append(unresolved)
    if ZONAL_SHIFT in attrs and (not attribute_known(attrs, ZONAL_SHIFT) or as_bool(attrs[ZONAL_SHIFT]) is True):
        out.append(Setting(ZONAL_SHIFT, attrs[ZONAL_SHIFT], lb.resource))
    policy = attrs.get(ROUTING)
    if ROUTING in attrs and (
        not attribute_known(attrs, ROUTING) or (isinstance(policy, str) and policy.lower() != "any_availability_zone")
    ):
        out.append(Setting(ROUTING, policy, lb.resource))
    for tg in _target_groups(lb):
        unresolved = _unresolved_list(tg.attributes, TG_KEYS, tg.resource, "TargetGroupAttributes")
        if unresolved is not None:
            out.append(unresolved)
        for key, quiet in ((MIN_COUNT, ("1", "off")), (MIN_PERCENT, ("off",))):
            if key not in tg.attributes:
                continue
            value = tg.attributes[key]
            if not attribute_known(tg.attributes, key) or _unknown(value):
                out.append(Setting(key, value, tg.resource))
            elif str(value).strip().lower() not in quiet and not api_refuses(key, value):
                out.append(Setting(key, value, tg.resource))  # a refused value is an error of its own
    return out


#: The values the elbv2 API takes for the target group health keys (botocore elbv2 TargetGroupAttribute.Key).
API_VALUES = {
    MIN_COUNT: "The possible values are off or an integer from 1 to the maximum number of targets",
    MIN_PERCENT: "The possible values are off or an integer from 1 to 100",
    USR_COUNT: "The possible values are 1 to the maximum number of targets",
    USR_PERCENT: "The possible values are off or an integer from 1 to 100",
}


def api_refuses(key: str, value: object) -> bool:
    """Whether the elbv2 API refuses ``value`` for one of the target group health keys (:data:`API_VALUES`)."""
    text = str(value).strip().lower()
    if text == "off":
        return key == USR_COUNT
    try:
        number = int(text)
    except ValueError:
        return True
    return number < 1 or (key in (MIN_PERCENT, USR_PERCENT) and number > 100)


def _unknown(value: object) -> bool:
    return isinstance(value, Unresolved) or not isinstance(value, (str, int, float, bool))


def _records_publishing(model: TemplateModel) -> dict[int, tuple[LoadBalancerView, dict[str, tuple[str, list[RecordSetView]]]]]:
    """``{id(nlb): (nlb, {origin name: (kind, [records whose values are its EIPs])})}``."""
    out: dict[int, tuple[LoadBalancerView, dict[str, tuple[str, list[RecordSetView]]]]] = {}
    for name, kind, item in origin_resolutions(model):
        for record in answer_views(model, item.resolution.record_keys):
            for value in record.values:
                eip = model.eip(value)
                for lb, _mapping in eip.attachments if eip is not None else ():  # eip.load_balancers, without the list
                    if not lb.may_be_network:
                        continue
                    entry = out.get(id(lb))  # get, then set: no (lb, {}) made for every value only to be dropped
                    if entry is None:
                        entry = out[id(lb)] = (lb, {})
                    held = entry[1].get(name)
                    if held is None:
                        held = entry[1][name] = (kind, [])
                    if record not in held[1]:  # by identity (views compare so): each record once
                        held[1].append(record)
    return out


def _dns_name_paths(model: TemplateModel) -> dict[int, tuple[LoadBalancerView, str]]:
    """NLBs an origin path reaches through their DNS name: ``{id(nlb): (nlb, label)}``."""
    out: dict[int, tuple[LoadBalancerView, str]] = {}
    for name, kind, item in origin_resolutions(model):
        for answer in item.resolution.answers:
            for lb in answer.load_balancers:
                view = lb.source
                if isinstance(view, LoadBalancerView) and view.may_be_network:
                    out.setdefault(id(view), (view, origin_label(name, kind)))
    for dist in model.distributions:
        for behavior in dist.behaviors:
            for origin in behavior.origins:
                if isinstance(origin.domain_name, str) or origin.vpc_origin_id is not None:
                    continue
                for view in model.load_balancers_for_origin(origin):
                    if view.may_be_network:
                        out.setdefault(id(view), (view, f"{dist.resource.logical_id} origin {origin.id}"))
    return out


def _health(records: list[RecordSetView]) -> str:
    checked = [
        r.health_check.resource.logical_id if r.health_check is not None else display_value(r.health_check_id)
        for r in records if r.health_check_id is not None
    ]
    bare = [r.label for r in records if r.health_check_id is None]
    text = f"the records' health checks ({', '.join(checked)}) fail" if checked else "nothing: no record has a health check"
    if checked and bare:
        text += f"; {', '.join(bare)} have none, so nothing moves them"
    return text


def _zonal_shift_prerequisite(lb: LoadBalancerView) -> Iterator[Finding]:
    """Zonal shift on a cross-zone NLB: every target group with unhealthy-target connection termination off
    (the ELB guide's prerequisite; the API default is on) and its own cross-zone not off."""
    attrs = lb.attributes
    shift = as_bool(attrs.get(ZONAL_SHIFT)) is True if attribute_known(attrs, ZONAL_SHIFT) else None
    if shift is False:
        return  # (nearly always: zonal shift off; cross-zone not read)
    cross = lb.cross_zone if attribute_known(attrs, TG_CROSS_ZONE) else None
    if cross is False:
        return
    if shift and cross:
        yield from _prerequisite(lb)
        return
    # zonal shift or cross-zone decided at deploy time: judged as both on; anything found is not judged, once
    found = sorted({f.resource for f in _prerequisite(lb)})
    if found:
        undecided = [key for key, state in ((ZONAL_SHIFT, shift), (TG_CROSS_ZONE, cross)) if state is None]
        yield not_judged(
            RULE.id, Severity.WARNING,
            subject=f"NLB {lb.resource.logical_id} zonal shift prerequisite ({' and '.join(undecided)}; target "
                    f"group{'s' if len(found) > 1 else ''} {', '.join(found)})",
            element=attribute_element(lb.resource, "LoadBalancerAttributes", attrs, undecided[0]),
            reason="decided at deploy time: with zonal shift on a cross-zone NLB, the ELB guide requires every target "
                   "group to have connection termination for unhealthy targets disabled",
            needs=f"a literal {' and '.join(undecided)}", at=lb.resource,
        )


def _prerequisite(lb: LoadBalancerView) -> Iterator[Finding]:
    """The prerequisite's verdict on each target group of an NLB with zonal shift and cross-zone on."""
    for tg in _target_groups(lb):
        problems = []
        # elbv2 TargetGroupAttribute.Key: it "can't be enabled for UDP and TCP_UDP target groups": off there.
        never_on = (tg.protocol or "").upper() in ("UDP", "TCP_UDP")
        if never_on:
            pass
        elif tg.protocol_undecided and as_bool(tg.attributes.get(UNHEALTHY_TERMINATION)) is not False:
            res = tg.resource  # TCP/TLS: unset or true fails the prerequisite; UDP/TCP_UDP cannot enable it
            yield not_judged(
                RULE.id, Severity.WARNING,
                subject=f"NLB {lb.resource.logical_id} zonal shift prerequisite: target group {res.logical_id} Protocol",
                element=props_of(res).raw("Protocol") or res.unknown_properties or "Protocol",
                reason=f"decided at deploy time: as TCP or TLS, {UNHEALTHY_TERMINATION} unset or true fails it; "
                       "UDP and TCP_UDP cannot enable it",
                needs=f"a literal Protocol, or {UNHEALTHY_TERMINATION}: false", at=res,
            )
        elif not attribute_known(tg.attributes, UNHEALTHY_TERMINATION):
            res = tg.resource
            yield not_judged(
                RULE.id, Severity.WARNING,
                subject=f"NLB {lb.resource.logical_id} zonal shift prerequisite: target group {res.logical_id} "
                        f"{UNHEALTHY_TERMINATION}",
                element=tg.attributes.get(UNHEALTHY_TERMINATION, "TargetGroupAttributes"),
                reason="decided at deploy time (unset or true, zonal shift on a cross-zone NLB is refused)",
                needs=f"a literal {UNHEALTHY_TERMINATION}: false",
                at=res,
            )
        elif UNHEALTHY_TERMINATION not in tg.attributes:
            problems.append(f"{UNHEALTHY_TERMINATION} unset (the API default is true)")
        elif attribute_known(tg.attributes, UNHEALTHY_TERMINATION) and as_bool(tg.attributes[UNHEALTHY_TERMINATION]) is not False:
            problems.append(f"{UNHEALTHY_TERMINATION} {display_value(tg.attributes[UNHEALTHY_TERMINATION])}")
        if attribute_known(tg.attributes, TG_CROSS_ZONE) and as_bool(tg.attributes.get(TG_CROSS_ZONE)) is False:
            problems.append(f"{TG_CROSS_ZONE} false")
        elif not attribute_known(tg.attributes, TG_CROSS_ZONE) and attribute_known(tg.attributes, UNHEALTHY_TERMINATION):
            res = tg.resource  # (an unknown termination above says not judged for this target group already)
            yield not_judged(
                RULE.id, Severity.WARNING,
                subject=f"NLB {lb.resource.logical_id} zonal shift prerequisite: target group {res.logical_id} "
                        f"{TG_CROSS_ZONE}",
                element=attribute_element(res, "TargetGroupAttributes", tg.attributes, TG_CROSS_ZONE),
                reason="decided at deploy time (false, zonal shift on a cross-zone NLB is refused)",
                needs=f"a literal {TG_CROSS_ZONE}: true or use_load_balancer_configuration",
                at=res,
            )
        if problems:
            yield finding(
                RULE.id, Severity.WARNING, tg.resource,
                f"NLB {lb.resource.logical_id} enables zonal shift with cross-zone load balancing on, and target group "
                f"{tg.resource.logical_id} has {' and '.join(problems)}: the ELB guide (enable-zonal-shift) requires "
                "every target group of a cross-zone NLB to have connection termination for unhealthy targets "
                "disabled (and target-group cross-zone not off) before zonal shift can be enabled",
                PREREQUISITE_FIX,
            )


#: What ``_unhealthy_state_routing`` reads of a target group's attributes: without any, it says nothing.
_HEALTH_READS = frozenset((MIN_COUNT, MIN_PERCENT, USR_COUNT, USR_PERCENT, UNKNOWN_ATTRIBUTES))


def _unhealthy_state_routing(lb: LoadBalancerView, published: bool) -> Iterator[Finding]:
    """``unhealthy_state_routing`` above its defaults (count 1, percentage off): unlike the DNS attributes it acts on
    every path, the EIPs included: below the threshold the NLB sends new connections to unhealthy targets too."""
    for tg in _target_groups(lb):
        if tg.attributes.keys().isdisjoint(_HEALTH_READS):
            continue  # none of the keys read below, no list decided at deploy time (nearly every target group)
        # a value decided at deploy time; a key a list decided at deploy time may hold (on an EIP-published path the
        # list's own not-judged finding names these keys: _settings)
        undecided = [key for key in (USR_COUNT, USR_PERCENT) if (_unknown(tg.attributes[key]) if key in tg.attributes
                                                                 else not published and UNKNOWN_ATTRIBUTES in tg.attributes)]
        if undecided:
            yield not_judged(
                RULE.id, Severity.WARNING,
                subject=f"NLB {lb.resource.logical_id} target group {tg.resource.logical_id} {' and '.join(undecided)}",
                element=attribute_element(tg.resource, "TargetGroupAttributes", tg.attributes, undecided[0]),
                reason="decided at deploy time: above its default, below the threshold the NLB sends new connections "
                       "to unhealthy targets too (fail-open), on every path",
                needs=f"a literal {' and '.join(undecided)}", at=tg.resource,
            )
        for key in (MIN_COUNT, MIN_PERCENT, USR_COUNT, USR_PERCENT):
            raw = tg.attributes.get(key)
            if key in tg.attributes and attribute_known(tg.attributes, key) and not _unknown(raw) and api_refuses(key, raw):
                yield finding(
                    RULE.id, Severity.ERROR, tg.resource,
                    f"NLB {lb.resource.logical_id} target group {tg.resource.logical_id} sets {key} "
                    f"{display_value(raw)}, which the API refuses (botocore elbv2 TargetGroupAttribute.Key: "
                    f"'{API_VALUES[key]}'): the deploy fails",
                    f"Set {key} to one of: {API_VALUES[key]}",
                )
        for key, quiet in ((USR_COUNT, ("1",)), (USR_PERCENT, ("off",))):
            raw = tg.attributes.get(key)
            if key not in tg.attributes or not attribute_known(tg.attributes, key) or _unknown(raw):
                continue
            if str(raw).strip().lower() in quiet or api_refuses(key, raw):
                continue
            yield finding(
                RULE.id, Severity.WARNING, tg.resource,
                f"NLB {lb.resource.logical_id} target group {tg.resource.logical_id} sets {key} "
                f"{display_value(raw)}: below it the NLB sends new connections to every target, unhealthy pods "
                "included (fail-open), on every path: the EIPs CloudFront connects to as well as the NLB's DNS name "
                "(unlike the dns_failover and DNS attributes, which act on the DNS name only)",
                USR_FIX,
            )


def check(model: TemplateModel) -> Iterator[Finding]:
    if not any(lb.may_be_network for lb in model.load_balancers):
        return
    published = _records_publishing(model)
    by_name = _dns_name_paths(model)
    for key, lb in {**{k: v[0] for k, v in published.items()}, **{k: v[0] for k, v in by_name.items()}}.items():
        names = published[key][1] if key in published else {}
        label = by_name[key][1] if key in by_name else None
        # a Type decided at deploy time: judged as an NLB, and said not judged once when that finds anything
        yield from as_if_network(RULE.id, lb, _lb_findings(lb, names, label), "its DNS attributes on an origin's path")


def _lb_findings(lb: LoadBalancerView, names: dict[str, tuple[str, list[RecordSetView]]], label: str | None) -> Iterator[Finding]:
    """One NLB's findings: ``names`` the origin names whose records publish its EIPs, ``label`` the origin path that
    reaches it through its DNS name (None: none does)."""
    yield from _zonal_shift_prerequisite(lb)
    yield from _unhealthy_state_routing(lb, bool(names))
    for setting in _settings(lb) if names else ():
        yield from _published(lb, setting, names)
    if label is not None:
        yield from _by_name(lb, label)


def _published(lb: LoadBalancerView, setting: Setting, names: dict[str, tuple[str, list[RecordSetView]]]) -> Iterator[Finding]:
    """A DNS attribute of an NLB whose EIPs ``names``' records publish."""
    if setting.attribute == ZONAL_SHIFT and not setting.may_hold and not _unknown(setting.value):
        if lb.cross_zone:
            return  # it acts on the EIP path: judged by its prerequisite
        if not attribute_known(lb.attributes, TG_CROSS_ZONE):  # on: the prerequisite; off: the EIP keeps its connections
            setting = Setting(TG_CROSS_ZONE, lb.attributes.get(TG_CROSS_ZONE, "LoadBalancerAttributes"), lb.resource)
    where = f"NLB {lb.resource.logical_id}" + (
        f" target group {setting.resource.logical_id}" if setting.resource is not lb.resource else ""
    )
    for name, (kind, records) in names.items():
        if setting.may_hold:
            yield not_judged(
                RULE.id, Severity.WARNING,
                subject=f"{where} {setting.attribute} ({origin_label(name, kind)} publishes its EIPs)",
                element=setting.value,
                reason=f"decided at deploy time: it may set {' or '.join(setting.may_hold)}",
                needs=f"a literal {setting.attribute} list with literal keys",
                template=setting.resource.template, stack=setting.resource.stack,
                resource=setting.resource.logical_id, path=setting.resource.path,
            )
            continue
        if _unknown(setting.value) or setting.attribute == TG_CROSS_ZONE:
            yield not_judged(
                RULE.id, Severity.WARNING,
                subject=f"{where} {setting.attribute} ({origin_label(name, kind)} publishes its EIPs)",
                element=setting.value,
                reason="decided at deploy time" + (f": with {ZONAL_SHIFT} true, off leaves a shifted zone's EIP its "
                                                   "connections" if setting.attribute == TG_CROSS_ZONE else ""),
                needs=f"a literal {setting.attribute}",
                template=setting.resource.template, stack=setting.resource.stack,
                resource=setting.resource.logical_id, path=setting.resource.path,
            )
            continue
        yield finding(
            RULE.id, Severity.WARNING, setting.resource,
            f"{origin_label(name, kind)}: {where} sets {setting.attribute} {display_value(setting.value)}, but its "
            f"EIPs are published in {', '.join(r.label for r in records)}: {ACTS_ON[setting.attribute]}, which "
            f"CloudFront does not resolve; CloudFront keeps connecting to an EIP until {_health(records)}",
            FIX,
        )


def _by_name(lb: LoadBalancerView, label: str) -> Iterator[Finding]:
    """A zonal-affinity ``client_routing_policy`` on an NLB an origin path reaches through its DNS name."""
    if not attribute_known(lb.attributes, ROUTING) or _may_be_set(lb.resource, "LoadBalancerAttributes", lb.attributes,
                                                                  ROUTING):
        yield not_judged(
            RULE.id, Severity.WARNING,
            subject=f"{label}: reaches NLB {lb.resource.logical_id} through its DNS name: {ROUTING}",
            element=attribute_element(lb.resource, "LoadBalancerAttributes", lb.attributes, ROUTING),
            reason="decided at deploy time: a zonal affinity favours the zone of wherever CloudFront resolves",
            needs=f"a literal {ROUTING} ({NEEDS_DEFAULT})", at=lb.resource,
        )
        return
    policy = affinity_policy(lb)
    if policy is None:
        return
    cross = "" if lb.cross_zone else "; with cross-zone load balancing off, the favoured zone's targets take every connection"
    if not attribute_known(lb.attributes, TG_CROSS_ZONE):
        cross = ("; cross-zone load balancing is decided at deploy time: off, the favoured zone's targets take every "
                 "connection")
    yield finding(
        RULE.id, Severity.WARNING, lb.resource,
        f"{label}: reaches NLB {lb.resource.logical_id} through its DNS name, which sets {ROUTING} "
        f"{display_value(policy)}. {PUBLIC_RESOLVER_NO_ZONE}: CloudFront resolves it on the public internet, so the "
        f"setting does nothing for CloudFront or favours the zone of wherever CloudFront resolves{cross}",
        FIX,
    )


RULE = Rule(
    id="EO-NLB4",
    severity=Severity.ERROR,
    lower="warning for everything but a target group health value the elbv2 API refuses",
    title="NLB DNS attributes that do not act on an EIP-published origin path; zonal shift without its prerequisite",
    catches=(
        f"An NLB whose EIPs an origin's records publish, with {ZONAL_SHIFT} true and cross-zone load balancing off "
        f"(with it on, a zonal shift stops routing to the zone's targets on every address: quiet, but every target group "
        f"must then set {UNHEALTHY_TERMINATION} false, the ELB guide's prerequisite, whose API default is true), {ROUTING} other than "
        f"any_availability_zone, or a target group's {MIN_COUNT} (other than 1/off) or {MIN_PERCENT} (other than off): "
        "these act on the NLB's own DNS name, which CloudFront never resolves here; only the record's health check moves "
        f"CloudFront. And an NLB an origin reaches through its DNS name with a zonal-affinity {ROUTING} (a public resolver "
        f"has no zone, as EO-VPC3). A target group of an origin NLB with {USR_COUNT} above 1 or {USR_PERCENT} set: "
        "fail-open to unhealthy targets on every path (warning). A value of those four keys the API refuses (count 0, "
        "a percentage outside 1..100, unhealthy_state_routing count off) is an error. Deploy-time values, and a LoadBalancerAttributes or TargetGroupAttributes list "
        "(or a key in it) decided at deploy time on an EIP-published path, are not judged (warning naming the "
        "attributes it may set, a literal key among them when an entry whose Key is decided at deploy time may set it "
        "again to a value judged here), never quiet; so are a client routing policy on a DNS-name path, a cross-zone setting "
        "beside zonal shift, zonal shift or cross-zone when the prerequisite would fail, an unhealthy_state_routing "
        "value (or a list that may hold one), and a load balancer Type decided at deploy time (once for the balancer). Attribute keys it knows: load balancer "
        f"{', '.join(LB_KEYS)}; target group {', '.join(TG_KEYS)} (botocore 1.44.8 elbv2 LoadBalancerAttribute.Key, "
        "TargetGroupAttribute.Key)."
    ),
    incident=(
        "A zone was impaired, zonal shift was on with cross-zone load balancing off, and CloudFront kept sending new "
        "connections to that zone's EIP: the shift removed the node from the NLB's DNS name, which nothing on the path "
        "resolved."
    ),
    fix=FIX,
    check=check,
    facts=("elbv2.zonal_shift.acts_on", "elbv2.lb.zonal_shift_default", "elbv2.lb.cross_zone_default",
           "elbv2.tg.unhealthy_connection_termination", "elbv2.tg.unhealthy_state_routing",
           "elbv2.tg.target_group_health_values"),
)
