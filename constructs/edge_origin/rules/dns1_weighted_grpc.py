"""EO-DNS1: answers for a long-lived-connection origin that hold one address (or one load
balancer) while the name has more; a name that only ever answers with one.

Judged from the answer model (``edge_origin.answers``): every routing policy, CNAME and alias
chains followed, from the vantage that sees the zone. Each weighted, latency, failover,
geolocation, geoproximity or CIDR answer is one record set ("Route 53 then returns the value that
is associated with the selected resource record set", ResourceRecordSet.Region), so when each set
holds one address every resolver, and every connection behind it, lands on one NLB.
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.answers import Answer, Resolution
from edge_origin.core.facts import value as fact_value
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import RecordSetView, TemplateModel
from edge_origin.model.zones import OriginResolution
from edge_origin.rules.base import (
    Rule,
    answer_views,
    finding,
    origin_label,
    origin_resolutions,
    origin_severity,
    with_cdk,
)

NEGATIVE_CACHE_S: int = fact_value("route53.negative_cache_s")
"""How long a resolver may cache "no answer" for a name (Route 53's default SOA): the facts table."""

FIX = with_cdk(
    "EO-DNS1",
    "Use multivalue answer routing: one A record per NLB EIP with MultiValueAnswer: true, a unique "
    "SetIdentifier and a HealthCheckId, and no Weight (Route 53 then answers with up to 8 healthy IPs).",
    "replace the weighted/simple ARecord (or the alias to the NLB, `route53_targets.LoadBalancerTarget`, which answers one zonal address a query) with edge-origin's MultivalueOriginRecords(zone=, record_name=, addresses=fleet.addresses) over an OriginFleet, or use GrpcEdgeToOrigin, which makes the fleet, the records and their health checks; by hand `route53.ARecord(multi_value_answer=True, set_identifier=..., health_check=...)` per EIP (weight=None).",
)
#: The fix per policy of the pile-up: what to point each record set at instead.
FIX_BY_POLICY = {
    "weighted": FIX,
    "failover": (
        "Point the PRIMARY (and SECONDARY) failover record at an alias of a multivalue record set of the same zone "
        "(one health-checked A record per NLB EIP), with EvaluateTargetHealth: true, so each answer holds every address."
    ),
    "latency": (
        "Point each region's latency record at an alias (EvaluateTargetHealth: true) of a multivalue record set holding "
        "every NLB EIP of that region (one health-checked A record per EIP), so each region's answer holds all its addresses."
    ),
    "geolocation": (
        "Point each location's geolocation record (and the * default) at an alias (EvaluateTargetHealth: true) of a "
        "multivalue record set holding every NLB EIP that serves it, so each answer holds all those addresses."
    ),
    "geoproximity": (
        "Point each geoproximity record at an alias (EvaluateTargetHealth: true) of a multivalue record set holding every "
        "NLB EIP of that region, so each answer holds all its addresses."
    ),
    "cidr": (
        "Point each CIDR location's record (and the * default) at an alias (EvaluateTargetHealth: true) of a multivalue "
        "record set holding every NLB EIP that serves it."
    ),
    "simple": FIX,
    "multivalue": FIX,
}
FIX_BY_POLICY["azaffinity"] = (
    "Give the name a Global AZ-affinity record (CloudFront's queries match only it) that aliases a multivalue record set "
    "holding every NLB EIP (one health-checked A record per EIP, EvaluateTargetHealth: true), or use multivalue records."
)
#: The fix when some resolver gets no answer.
NO_ANSWER_FIX = {
    "azaffinity": (
        "Add a record with AZAffinity LocationType Global (LocationId global): 'If Route 53 doesn't know which AZ a query "
        "came from, the query matches only the record for the Global location type' (API reference, AZAffinity)."
    ),
    "geolocation": "Add a default geolocation record (CountryCode *) so queries from every other location get an answer.",
    "cidr": "Add a default CIDR record (LocationName *) so clients in no CIDR location get an answer.",
}
ONE_VALUE_FIX = (
    "Publish one value per weighted record set (the API reference: 'You can only specify one ResourceRecord per weighted "
    "resource record set'), or better, multivalue records: one health-checked A record per NLB EIP."
)


def _targets(resolution: Resolution) -> set[str]:
    return set(resolution.all_addresses)


def _one(answer: Answer) -> str:
    if answer.load_balancers and not answer.addresses:
        lb = answer.load_balancers[0]
        return f"one {lb.kind_label} ({lb.label or lb.dns_name})"
    return f"one address ({answer.addresses[0] if answer.addresses else 'none'})"


def _first_views(answers: list[Answer]) -> list[tuple[Answer, RecordSetView]]:
    """Each answer's first record set (the one the policy chose), as the template's view."""
    out: dict[int, tuple[Answer, RecordSetView]] = {}
    for answer in answers:
        record = answer.chain[0].record if answer.chain else None
        view = record.source if record is not None else None
        if isinstance(view, RecordSetView):
            out.setdefault(id(view), (answer, view))
    return list(out.values())


def _name_targets(model: TemplateModel, item: OriginResolution) -> set[str]:
    """What the name's answers hold, from every vantage: for AZ affinity, every location's record
    set (a public resolver, CloudFront's, is answered by the Global record only)."""
    total = _targets(item.resolution)
    if item.resolution.policy != "azaffinity":
        return total
    for key in dict.fromkeys((k.zone, k.name, k.type) for k in item.resolution.record_keys):
        for record in model.zones.zone_set.record_sets(*key):
            total.update(record.values)
            if record.alias is not None:
                total.add(record.alias.dns_name)
    return total


def _no_answer(model: TemplateModel, name: str, kind: str, item: OriginResolution) -> Iterator[Finding]:
    """Some resolver of the origin's vantage gets no answer (AZ affinity without a Global record,
    geolocation without a default): CloudFront edges in that case reach nothing."""
    for answer in item.resolution.answers:
        if not answer.empty or not answer.condition or item.resolution.policy is None:
            continue
        views = [v for v in model.record_sets(name) if v.type == item.resolution.type and model.zones.zone(v) is item.zone]
        if not views:
            continue
        yield finding(
            RULE.id, origin_severity(Severity.ERROR, kind), views[0].resource,
            f"{origin_label(name, kind)} ({item.zone.label}, {item.resolution.type}): {item.resolution.policy} records give "
            f"{answer.condition.replace(' (no record: no answer)', '')} no answer (p={answer.probability:.2f}); {item.resolution.vantage.label}s, CloudFront's among "
            "them, resolve the origin to nothing and its connections fail; a resolver caches that empty answer for up "
            f"to {NEGATIVE_CACHE_S} s (Route 53's default SOA), so a record added later is not seen for up to that long, "
            "whatever its TTL",
            NO_ANSWER_FIX.get(item.resolution.policy or "", FIX),
        )
        return


def _pileups(model: TemplateModel, name: str, kind: str, item: OriginResolution) -> Iterator[Finding]:
    resolution = item.resolution
    total = _name_targets(model, item)
    undecided = model.zones.undecided(model, name, item.zone)
    if len(total) < 2 and not (undecided and total):
        return
    has = f"{len(total)}" + (" (and records decided at deploy)" if undecided else "")
    singles = [a for a in resolution.answers if not a.empty and a.targets == 1]
    if undecided:
        # a multivalue answer holds every healthy set of the name, the undecided ones too: how many
        # it holds is not known (EO-NJ1/EO-NJ2 name what was not read); a weighted, latency, ...
        # answer holds one set whatever the others are
        singles = [a for a in singles if a.policy != "multivalue"]
    for answer, view in _first_views(singles):
        hop = answer.chain[0]
        when = f" for {answer.condition}" if answer.condition else ""
        policy = answer.policy
        yield finding(
            RULE.id, origin_severity(Severity.ERROR, kind), view.resource,
            f"{view.label}: {policy} record ({hop.detail or 'no routing field'}, SetIdentifier {hop.key.set_id or '-'}) in "
            f"{item.zone.label} for {origin_label(name, kind)}: its answer{when} holds {_one(answer)} "
            f"(p={answer.probability:.2f}) while the name has {has}; chain {answer.chain_text}: each resolver gets "
            "one address and every long-lived connection behind it lands on one NLB",
            FIX_BY_POLICY.get(policy, FIX),
        )


def _lone(model: TemplateModel, name: str, kind: str, item: OriginResolution) -> Iterator[Finding]:
    resolution = item.resolution
    if len(_name_targets(model, item)) != 1 or model.zones.undecided(model, name, item.zone):
        return
    singles = [a for a in resolution.answers if not a.empty and a.targets == 1 and a.policy != "multivalue"]
    for answer, view in _first_views(singles):  # multivalue with one address: EO-DNS3 (too few)
        if answer.load_balancers and not answer.addresses:
            lb = answer.load_balancers[0]
            if len(lb.addresses) >= 2 or lb.kind == "cloudfront":
                continue  # an alias to a load balancer answers with every zonal address it has
            where = f"{_one(answer)} with {len(lb.addresses) or 'no known'} zonal address(es)"
        else:
            where = _one(answer)
        yield finding(
            RULE.id, Severity.WARNING, view.resource,
            f"{view.label}: a lone {answer.policy} {'alias' if view.alias_target else view.type} record in "
            f"{item.zone.label} for {origin_label(name, kind)}: every answer holds it alone: {where} takes every "
            f"connection (chain {answer.chain_text})",
            FIX,
        )


def _unchecked_simple(model: TemplateModel, name: str, kind: str, item: OriginResolution) -> Iterator[Finding]:
    """A simple record with several addresses: answered without health checks."""
    for answer in item.resolution.answers:
        if answer.policy != "simple" or len(answer.chain) != 1 or len(answer.addresses) < 2:
            continue
        for view in answer_views(model, answer.records):
            yield finding(
                RULE.id, Severity.WARNING, view.resource,
                f"{view.label}: a lone simple {view.type} record in {item.zone.label} for {origin_label(name, kind)}: its "
                f"{len(answer.addresses)} addresses are answered without health checks: Route 53 keeps handing out a dead "
                "origin's address",
                FIX,
            )


def _several_values_per_set(model: TemplateModel, name: str, kind: str, item: OriginResolution) -> Iterator[Finding]:
    for _key, view, record in model.zones.key_views(item.resolution.record_keys):  # zones.view_of, record_by_key
        if record is None or record.policy != "weighted" or len(record.values) < 2:
            continue
        yield finding(
            RULE.id, Severity.WARNING, view.resource,
            f"{view.label}: weighted record set in {item.zone.label} for {origin_label(name, kind)} holds "
            f"{len(record.values)} values; the API reference documents one value per weighted set ('You can only specify "
            "one ResourceRecord per weighted resource record set'): Route 53 may refuse it",
            ONE_VALUE_FIX,
        )


def _types_cloudfront_never_gets(model: TemplateModel) -> Iterator[Finding]:
    """A CloudFront origin name whose public zone holds records of it, none of a type CloudFront
    asks for (an ``ipv4`` origin asks A only, botocore 1.44.8 cloudfront ``IpAddressType``): every
    edge resolves the origin to nothing."""
    cloudfront = model.cloudfront_origin_names()
    zone_of = model.zones.zone_of  # model.zones.zone(v), inlined
    zone_set = model.zones.zone_set
    for name, kind in model.origin_names().items():
        if name not in cloudfront:
            continue
        asked = model.cloudfront_origin_types(name)
        for zone in zone_set.zones_holding(name):
            if zone.private:
                continue
            if zone_set.holds(zone.id, name, (*asked, "CNAME")):
                continue  # the zone answers a type CloudFront asks (nearly always): every such set is one of the views below
            held = [v for v in model.record_sets(name) if zone_of.get(id(v)) is zone]
            present = sorted({v.type for v in held if v.type})
            if not held or any(t in present for t in (*asked, "CNAME")) or model.zones.undecided(model, name, zone):
                continue
            yield finding(
                RULE.id, origin_severity(Severity.ERROR, kind), held[0].resource,
                f"{origin_label(name, kind)} ({zone.label}) has {', '.join(present)} records only, and CloudFront asks "
                f"{' and '.join(asked)} for it (the origin's IpAddressType): queries from CloudFront get no answer and "
                "its connections fail",
                "Set the origin's IpAddressType to dualstack (or ipv6) so CloudFront asks AAAA, or publish A records "
                "(one health-checked multivalue A record per NLB EIP).",
            )


def check(model: TemplateModel) -> Iterator[Finding]:
    yield from _types_cloudfront_never_gets(model)
    for name, kind, item in origin_resolutions(model):
        yield from _no_answer(model, name, kind, item)
        yield from _pileups(model, name, kind, item)
        yield from _lone(model, name, kind, item)
        yield from _unchecked_simple(model, name, kind, item)
        yield from _several_values_per_set(model, name, kind, item)


RULE = Rule(
    id="EO-DNS1",
    lower="warning for a lone record, a simple record whose several addresses have no health checks, or a weighted set holding several values",
    severity=Severity.ERROR,
    title="Origin answers that hold one address",
    catches=(
        "An answer (weighted, latency, failover, geolocation, geoproximity or CIDR record set, CNAME and alias chains "
        "followed) for a gRPC or long-lived origin name that holds one address or one load balancer while the name has "
        "more; a name that only ever answers with one address (warning); a simple record answering several addresses "
        "without health checks (warning); a weighted set with several values (warning: the API reference documents one)."
    ),
    incident="Flash crowd at a broadcast start: weighted answers sent every CloudFront edge to one NLB, 79.8% errors (weighted-dns-flash-crowd-summary).",
    fix=FIX,
    check=check,
    facts=("route53.multivalue.max_answers", "route53.multivalue.over_eight", "route53.multivalue.all_unhealthy",
           "route53.negative_cache_s"),
)
