"""EO-DNS3: too few origin IPs, all in one zone, or more multivalue records than a hosted zone takes.

Read from the answer model: every address any answer for the origin name holds (CNAME and
alias chains followed; a load balancer counts its zonal addresses), per hosted zone.

More than eight healthy multivalue records is not a finding: the Route 53 API (ResourceRecordSet.
MultiValueAnswer) says "If you have more than eight healthy records, Route 53 responds to different DNS
resolvers with different combinations of healthy records" (every record is answered, none is a spare:
a 3 NLB x 3 zone fleet's 9 addresses are fine). Only the zone's record quota is judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel, display_value
from edge_origin.model.read_elb import SUBNET
from edge_origin.model.template_model import ROUTE53_RECORDS_PER_ZONE
from edge_origin.model.values import deploy_time
from edge_origin.model.zones import OriginResolution
from edge_origin.rules.base import Rule, answer_views, finding, origin_label, origin_resolutions, with_cdk
from edge_origin.rules.not_judged import not_judged, undecided_needs, undecided_reason

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

FIX = with_cdk(
    "EO-DNS3",
    "Publish one health-checked multivalue record per NLB EIP, at least 2, spread over at least 2 zones.",
    'OriginFleet(nlb_count=2 or more, vpc= with subnets in 2+ zones) with MultivalueOriginRecords, or GrpcEdgeToOrigin(nlb_count=, max_azs=) / InternalGrpcOrigin, which make both.',
)


def _spread(model: TemplateModel, item: OriginResolution) -> tuple[set[str], set[str], bool]:
    """(addresses, availability zones, whether some address's zone is not known)."""
    ips: set[str] = set()
    zones: set[str] = set()
    unknown = False
    template_zones = model.zones
    for answer in item.resolution.answers:
        for address in answer.addresses:
            ips.add(address)
            eip = template_zones.eip_of(model, address)
            if eip is not None and eip.zone:
                zones.add(eip.zone)
            else:
                unknown = True
        for lb in answer.load_balancers:
            if not lb.zonal_addresses:
                ips.add(lb.dns_name)
                unknown = True
            for zone, address in lb.zonal_addresses:
                ips.add(address)
                if zone == "?":
                    unknown = True
                else:
                    zones.add(zone)
    return ips, zones, unknown


#: A subnet zone the model shows as an expression: ``Fn::GetAZs(<region>)[<index>]`` (its display).
_GET_AZS = re.compile(r"<Fn::GetAZs\((.*)\)\[(\d+)\]>")


def _undecided_zone(zone: str) -> bool:
    """A zone decided at deploy time, as the model shows it (``model.read_elb``: an expression's display): no
    literal zone name or id holds "<" or "/"."""
    return zone.startswith("<") or "/" in zone


def _certainly_apart(zones: set[str]) -> bool:
    """Two of the zones are different whatever is deployed: two literals, or two Fn::GetAZs items of one Region at
    different indexes (GetAZs lists each zone once). Any other expression may be any zone."""
    literal = {z for z in zones if not _undecided_zone(z)}
    if len(literal) > 1:
        return True
    indexes: dict[str, set[str]] = {}
    for zone in zones:
        match = _GET_AZS.fullmatch(zone)
        if match:
            indexes.setdefault(match.group(1), set()).add(match.group(2))
    return any(len(found) > 1 for found in indexes.values())


def _zone_not_judged(model: TemplateModel, first: Any, label: str, count: int, zones: set[str]) -> Finding:
    """Not judged: the origin IPs' zones include one decided at deploy time that may be the others' zone."""
    undecided = sorted(z for z in zones if _undecided_zone(z))
    raw = next((value for res in model.of_type(SUBNET) for key in ("AvailabilityZone", "AvailabilityZoneId")
                if deploy_time(value := res.properties.get(key)) and display_value(value) == undecided[0]), undecided[0])
    return not_judged(
        RULE.id, Severity.WARNING, subject=f"{label}: availability zones of its {count} origin IPs", element=", ".join(sorted(zones)),
        reason=f"{undecided_reason(raw)}; whether they are all in one zone is not judged",
        needs=undecided_needs(raw), at=first,
    )


def _leaves_the_model(item: OriginResolution) -> bool:
    """Some answer ends at a name the model does not follow (EO-NJ1 names it), or at a CloudFront
    distribution (its edges, not an NLB's addresses): not judged here."""
    return any(answer.end or any(lb.kind == "cloudfront" for lb in answer.load_balancers) for answer in item.resolution.answers)


def _multivalue_sets(model: TemplateModel, item: OriginResolution) -> int:
    # each zone + name + type once (not once per record key): linear in records per name. The sets of one group share
    # its zone, name and type, and the groups are apart: the distinct record keys are each group's distinct set ids
    groups = dict.fromkeys((key.zone, key.name, key.type) for key in item.resolution.record_keys)
    sets_of = model.zones.zone_set.record_sets
    return sum(len({r.key.set_id for r in sets_of(zone, name, rtype) if r.policy == "multivalue"})
               for zone, name, rtype in groups)


def check(model: TemplateModel) -> Iterator[Finding]:
    for name, kind, item in origin_resolutions(model):
        views = answer_views(model, item.resolution.record_keys)
        if not views:
            continue
        first = views[0].resource
        ips, zones, unknown_zone = _spread(model, item)
        label = f"{origin_label(name, kind)} ({item.zone.label})"
        if _leaves_the_model(item) or model.zones.undecided(model, name, item.zone):
            pass  # how many addresses lie behind what the model does not read: not judged (EO-NJ1, EO-NJ2)
        elif len(ips) < 2:
            yield finding(RULE.id, Severity.WARNING, first, f"{label} has {len(ips)} origin IP(s): one NLB takes every connection", FIX)
        elif zones and not unknown_zone and len(zones) == 1:
            yield finding(RULE.id, Severity.WARNING, first, f"{label}: all {len(ips)} origin IPs are in one zone ({next(iter(zones))})", FIX)
        elif not unknown_zone and len(zones) > 1 and not _certainly_apart(zones):
            yield _zone_not_judged(model, first, label, len(ips), zones)
        count = _multivalue_sets(model, item)
        if count > ROUTE53_RECORDS_PER_ZONE:
            yield finding(
                RULE.id, Severity.WARNING, first,
                f"{label} has {count} multivalue records: more than the {ROUTE53_RECORDS_PER_ZONE:,} records a hosted zone "
                "takes by default (Route 53 quota): the deploy fails unless the zone's quota was raised",
                FIX,
            )


RULE = Rule(
    id="EO-DNS3",
    severity=Severity.WARNING,
    title="Origin IPs: too few, or all in one zone",
    catches=(
        "Fewer than 2 origin IPs in the answers for an origin name (chains followed; a load balancer counts its zonal "
        "addresses), all of them in one availability zone, or more multivalue records than the hosted zone's default "
        "quota. More than 8 healthy records is fine: Route 53 answers different resolvers with different combinations. "
        "A subnet zone decided at deploy time that may be the other IPs' zone is not judged (two literal zones, or two "
        "Fn::GetAZs items of one Region at different indexes, are apart whatever is deployed)."
    ),
    incident="One NLB (or one zone) took every connection of a synchronized burst.",
    fix=FIX,
    check=check,
    facts=("route53.multivalue.max_answers", "route53.multivalue.over_eight", "route53.records_per_zone"),
)
