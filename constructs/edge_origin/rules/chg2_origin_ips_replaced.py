"""EO-CHG2: a change replaces or removes origin IPs of a live name (EIPs, NLBs, replaced records)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.transition import MAY_REPLACE, REPLACED, UNCHANGED, record_label, transition_of
from edge_origin.rules.base import TransitionRule, finding, with_cdk

FIX = with_cdk(
    "EO-CHG2",
    "Keep the EIPs (and the NLBs holding them): the same logical ids and no change to a create-only property "
    "(Address, NetworkBorderGroup...; an NLB's Type, Scheme, Name). Where addresses must change, add the new ones "
    "first (a deploy that only adds records), wait at least the TTL, then remove the old ones; never all of a "
    "name's addresses at once. Keep explicit, stable set identifiers (a changed one replaces the record).",
    "keep OriginFleet's construct ids and eip_removal_policy=RemovalPolicy.RETAIN (the default); add a second fleet before removing the first.",
)

WHY = (
    "Every CloudFront edge that resolved the name keeps connecting to the addresses it cached until the TTL "
    "ends, and long-lived gRPC connections stay on the address they opened. An EIP that is replaced (a new "
    "logical id, a create-only property, adding an env to an environment-agnostic stack) is released with its "
    "records and health checks; an NLB that is replaced takes its address with it. When some addresses remain, "
    "Route 53 answers with those (warning); when none of base's addresses remains, every cached answer points "
    "at nothing until it expires (error)."
)


def check(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    tr = transition_of(base, head)
    for name in base.record_names():
        if not isinstance(name, str) or tr.name_unchanged(name) or not tr.live_in_head(name):
            continue
        before = tr.name_addresses(base, name)
        if not before:
            continue
        head_records = head.record_sets(name)
        if not head_records:
            continue  # every record removed: EO-CHG3's business
        after = tr.name_addresses(head, name)
        lost: list[str] = []
        maybe: list[str] = []
        for address in before:
            fate = tr.address_fate(address, after)
            if fate.status == UNCHANGED:
                continue
            text = f"{address.label} {fate.describe()}"
            (maybe if fate.status == MAY_REPLACE else lost).append(text)
        replaced_records = []
        for record in base.record_sets(name):
            st = tr.status(record.resource.key)
            if record.member_index is None and st.status == REPLACED and head.resource(*record.resource.key) is not None:
                replaced_records.append(f"{record_label(record)} replaced ({'; '.join(st.reasons)})")
        if not lost and not maybe and not replaced_records:
            continue
        kept = len(before) - len(lost) - len(maybe)
        all_gone = kept == 0 and not maybe
        severity = Severity.ERROR if all_gone else Severity.WARNING
        ttl = max((r.ttl for r in base.record_sets(name) if r.ttl is not None), default=None)
        cached = f"until their TTL ({ttl} s) ends" if ttl is not None else "until their cached answer expires"
        parts = lost + [m + " (the schema does not decide)" for m in maybe] + replaced_records
        if all_gone:
            summary = f"all {len(before)} of its addresses change at once"
        elif lost or maybe:
            summary = f"{len(lost) + len(maybe)} of its {len(before)} addresses are removed or replaced ({kept} {'stays' if kept == 1 else 'stay'})"
        else:
            summary = "records are replaced"
        effect = (
            f"edges keep connecting to the old addresses {cached}" if lost or maybe else
            "Route 53 gets a new record and the old one is deleted in clean-up: whatever manages these records by "
            "set identifier (plans, runbooks, edge-origin enact) no longer finds them"
        )
        yield finding(RULE.id, severity, head_records[0].resource, f"{name}: {summary}: {'; '.join(parts)}; {effect}", FIX)


RULE = TransitionRule(
    id="EO-CHG2",
    lower="warning while some of the name's base addresses remain (or the schema does not decide)",
    severity=Severity.ERROR,
    title="Origin IPs replaced or removed",
    catches="A live origin name whose base addresses (EIPs, literal IPs, NLBs behind aliases) are replaced or no longer answered in head, or whose record sets are replaced (a set identifier, name or type change); an error when none of its base addresses remains.",
    incident="Adding an env to the environment-agnostic reference stack renamed every EIP: all origin IPs changed in one deploy (issue 12); the DNS plan race left a name with no valid address.",
    fix=FIX,
    check=check,
    why=WHY,
)
