"""EO-DNS1: weighted routing for a gRPC origin name; a lone simple record for it."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.findings import Finding, Severity
from edge_origin.model import RecordSetView, TemplateModel, display_value
from edge_origin.rules.base import Rule, finding, origin_label, origin_severity

FIX = (
    "Use multivalue answer routing: one A record per NLB EIP with MultiValueAnswer: true, a unique "
    "SetIdentifier and a HealthCheckId, and no Weight (Route 53 then answers with up to 8 healthy IPs)."
)


def check(model: TemplateModel) -> Iterator[Finding]:
    for name, kind in model.origin_names().items():
        records = [r for r in model.record_sets(name) if r.type in (None, "A", "AAAA")]
        for record in records:
            if record.routing_policy == "weighted":
                yield finding(
                    RULE.id, origin_severity(Severity.ERROR, kind), record.resource,
                    f"{record.label}: weighted record (Weight {display_value(record.weight)}, SetIdentifier "
                    f"{display_value(record.set_identifier)}) for {origin_label(name, kind)}: each resolver gets one IP "
                    "and every long-lived connection behind it lands on one NLB",
                    FIX,
                )
        if len(records) == 1 and records[0].routing_policy == "simple" and not records[0].unknown:
            record = records[0]
            yield finding(
                RULE.id, Severity.WARNING, record.resource,
                f"{record.label}: a lone simple {'alias' if record.alias_target else record.type or 'A'} record for "
                f"{origin_label(name, kind)}: {_lone_simple_problem(model, record)}",
                FIX,
            )


def _lone_simple_problem(model: TemplateModel, record: RecordSetView) -> str:
    """What goes wrong with this one simple record, from what it holds."""
    lbs = model.record_load_balancers(record)
    if record.alias_target is not None:
        target = lbs[0].resource.logical_id if lbs else display_value(record.alias_target.dns_name)
        return f"every connection follows one alias target ({target}), with no health check of its own"
    values = len(record.values)
    if values <= 1:
        where = f"NLB {lbs[0].resource.logical_id}" if lbs else f"one address ({display_value(record.values) or 'none'})"
        return f"{where} takes every connection"
    behind = f" (NLBs {', '.join(lb.resource.logical_id for lb in lbs)})" if lbs else ""
    return (
        f"its {values} addresses{behind} are answered without health checks: Route 53 keeps handing out a "
        "dead origin's address"
    )


RULE = Rule(
    id="EO-DNS1",
    severity=Severity.ERROR,
    title="Weighted routing for a gRPC origin",
    catches="Weight on a RecordSet (or a RecordSetGroup member) whose name is a gRPC origin; a lone simple A/alias record for one (warning: one address or NLB takes every connection, or several addresses are answered without health checks).",
    incident="Flash crowd at a broadcast start: weighted answers sent every CloudFront edge to one NLB, 79.8% errors (weighted-dns-flash-crowd-summary).",
    fix=FIX,
    check=check,
)
