"""EO-DNS3: too few origin IPs, all in one zone, or more than Route 53 answers (8)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.findings import Finding, Severity
from edge_origin.model import TemplateModel, display_value
from edge_origin.rules.base import Rule, finding, origin_label

MAX_ANSWERS = 8
FIX = "Publish one health-checked multivalue record per NLB EIP, at least 2 and at most 8, spread over at least 2 zones."


def check(model: TemplateModel) -> Iterator[Finding]:
    for name, kind in model.origin_names().items():
        records = [r for r in model.record_sets(name) if r.type in (None, "A", "AAAA")]
        if not records:
            continue
        first = records[0].resource
        ips: set[str] = set()
        zones: set[str] = set()
        unknown_zone = False
        for record in records:
            for value in record.values:
                ips.add(display_value(value))
                eip = model.eip(value)
                if eip is not None and eip.zone:
                    zones.add(eip.zone)
                else:
                    unknown_zone = True
            for lb in model.record_load_balancers(record) if record.alias_target else []:
                for mapping in lb.subnet_mappings or [None]:
                    ips.add(f"{lb.resource.logical_id}:{display_value(mapping.subnet) if mapping else '?'}")
                zones.update(lb.zones)
                unknown_zone = unknown_zone or not lb.zones
            if record.alias_target and not model.record_load_balancers(record):
                ips.add(display_value(record.alias_target.dns_name))
                unknown_zone = True
        label = origin_label(name, kind)
        if len(ips) < 2:
            yield finding(RULE.id, Severity.WARNING, first, f"{label} has {len(ips)} origin IP(s): one NLB takes every connection", FIX)
        elif zones and not unknown_zone and len(zones) == 1:
            yield finding(RULE.id, Severity.WARNING, first, f"{label}: all {len(ips)} origin IPs are in one zone ({next(iter(zones))})", FIX)
        multivalue = [r for r in records if r.routing_policy == "multivalue"]
        if len(multivalue) > MAX_ANSWERS:
            yield finding(
                RULE.id, Severity.WARNING, first,
                f"{label} has {len(multivalue)} multivalue records: Route 53 answers with at most {MAX_ANSWERS}, the rest only as spares",
                FIX,
            )


RULE = Rule(
    id="EO-DNS3",
    severity=Severity.WARNING,
    title="Origin IPs: too few, one zone, or more than 8",
    catches="Fewer than 2 origin IPs for an origin name, all of them in one availability zone, or more than 8 multivalue records.",
    incident="One NLB (or one zone) took every connection of a synchronized burst; past 8 records Route 53 silently drops answers.",
    fix=FIX,
    check=check,
)
