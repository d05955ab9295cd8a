"""EO-DNS3: too few origin IPs, all in one zone, or more than Route 53 answers (8).

Read from the answer model: every address any answer for the origin name holds (CNAME and
alias chains followed; a load balancer counts its zonal addresses), per hosted zone.
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.answers import MULTIVALUE_MAX
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.template_model import ROUTE53_RECORDS_PER_ZONE
from edge_origin.model.zones import OriginResolution
from edge_origin.rules.base import Rule, answer_views, finding, origin_label, origin_resolutions

MAX_ANSWERS = MULTIVALUE_MAX  # "Route 53 responds to DNS queries with up to eight healthy records"
FIX = "Publish one health-checked multivalue record per NLB EIP, at least 2 and at most 8, spread over at least 2 zones."


def _spread(model: TemplateModel, item: OriginResolution) -> tuple[set[str], set[str], bool]:
    """(addresses, availability zones, whether some address's zone is not known)."""
    ips: set[str] = set()
    zones: set[str] = set()
    unknown = False
    for answer in item.resolution.answers:
        for address in answer.addresses:
            ips.add(address)
            eip = model.eip(model.zones.values.get(address))
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


def _leaves_the_model(item: OriginResolution) -> bool:
    """Some answer ends at a name the model does not follow (EO-NJ1 names it), or at a CloudFront
    distribution (its edges, not an NLB's addresses): not judged here."""
    return any(answer.end or any(lb.kind == "cloudfront" for lb in answer.load_balancers) for answer in item.resolution.answers)


def _multivalue_sets(model: TemplateModel, item: OriginResolution) -> int:
    # each zone + name + type once (not once per record key): linear in records per name
    groups = dict.fromkeys((key.zone, key.name, key.type) for key in item.resolution.record_keys)
    keys = {r.key for zone, name, rtype in groups for r in model.zones.zone_set.record_sets(zone, name, rtype) if r.policy == "multivalue"}
    return len(keys)


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
        count = _multivalue_sets(model, item)
        if count > MAX_ANSWERS:
            over_quota = (
                f"; more than the {ROUTE53_RECORDS_PER_ZONE:,} records a hosted zone takes by default (Route 53 quota): "
                "the deploy fails unless the zone's quota was raised"
                if count > ROUTE53_RECORDS_PER_ZONE else ""
            )
            yield finding(
                RULE.id, Severity.WARNING, first,
                f"{label} has {count} multivalue records: Route 53 answers with at most {MAX_ANSWERS}, the rest only as spares{over_quota}",
                FIX,
            )


RULE = Rule(
    id="EO-DNS3",
    severity=Severity.WARNING,
    title="Origin IPs: too few, one zone, or more than 8",
    catches=(
        "Fewer than 2 origin IPs in the answers for an origin name (chains followed; a load balancer counts its zonal "
        "addresses), all of them in one availability zone, or more than 8 multivalue records."
    ),
    incident="One NLB (or one zone) took every connection of a synchronized burst; past 8 records Route 53 silently drops answers.",
    fix=FIX,
    check=check,
)
