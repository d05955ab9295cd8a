"""``edge-origin audit``: Route 53's own guards on each origin name (read-only).

For every origin name the answer model finds (``rules.base.origin_resolutions``) in a public zone
read from the account: which change guardrails are on (``GetHostedZone`` ``Features``: the API
does not name the tier; guardrails are offered by the ADVANCED tier), whether change history is
on, and whether the name's A/AAAA record sets are protected (``ListResourceRecordSetProtections``).
An origin name with neither a protection nor ACTIVE_RECORD_CHECK is an INFO finding (advisory:
both cost money) with the fix. Where the endpoint reports none of it (moto 5.2.5, an older
Route 53 API, AccessDenied) the name is reported as "not known" and no finding is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from edge_origin.core.findings import Finding, Severity
from edge_origin.live.account import ZONE_KEY, LiveAccount
from edge_origin.live.zone_guards import enabled_guardrails, features, protections
from edge_origin.rules.base import origin_resolutions

RULE = "EO-LIVE-GUARD"


@dataclass(frozen=True)
class NameGuards:
    name: str
    zone: str
    zone_id: str
    guardrails: tuple[str, ...] | None  # None: not reported
    history: bool | None
    protected: tuple[str, ...] | None  # record types protected; None: cannot tell

    @property
    def guarded(self) -> bool | None:
        """Route 53 itself refuses a change that empties the name: a record set protection or the zone's
        ACTIVE_RECORD_CHECK; None when what is not guarded could not be read."""
        if self.protected or (self.guardrails and "ACTIVE_RECORD_CHECK" in self.guardrails):
            return True
        if self.protected is None or self.guardrails is None:
            return None
        return False

    def line(self) -> str:
        rails = "not known" if self.guardrails is None else (", ".join(self.guardrails) or "none on")
        hist = "not known" if self.history is None else ("on" if self.history else "off")
        prot = "not known" if self.protected is None else (", ".join(self.protected) or "no")
        return f"{self.name} (zone {self.zone}): guardrails {rails}; change history {hist}; protected: {prot}"


def name_guards(account: LiveAccount, model: Any, route53: Any) -> list[NameGuards]:
    out: dict[tuple[str, str], NameGuards] = {}
    feats: dict[str, Any] = {}
    for name, _kind, item in origin_resolutions(model):
        zone = item.zone
        if zone is None or zone.private:
            continue
        meta = account.template["Resources"].get(zone.id.split("/", 1)[-1], {}).get("Metadata", {}).get(ZONE_KEY)
        if not meta or (name, meta["id"]) in out:
            continue
        if meta["id"] not in feats:
            feats[meta["id"]] = features(route53, meta["id"])
        found = feats[meta["id"]]
        prot = protections(route53, meta["id"], [(name, "A"), (name, "AAAA")])
        history = None if found is None or "ChangeHistory" not in found else (found["ChangeHistory"] or {}).get("Status") == "ENABLED"
        out[(name, meta["id"])] = NameGuards(
            name, meta["name"], meta["id"],
            None if found is None else tuple(enabled_guardrails(found)), history,
            None if prot is None else tuple(sorted({p.type for p in prot})))
    return list(out.values())


def findings(account: LiveAccount, guards: list[NameGuards]) -> list[Finding]:
    out = []
    for g in guards:
        if g.guarded is not False:
            continue
        out.append(Finding(
            rule=RULE, severity=Severity.INFO,
            message=(f"origin name {g.name} (zone {g.zone}) has no Route 53 record set protection and its zone has "
                     "ACTIVE_RECORD_CHECK off: Route 53 accepts a change that leaves it without addresses (the DNS plan race)"),
            fix=(f"aws route53 create-resource-record-set-protections --hosted-zone-id {g.zone_id} --protections "
                 f"RecordName={g.name},RecordType=A (then edge-origin enact --unprotect for planned changes), or move the zone "
                 "to the ADVANCED tier and turn on ACTIVE_RECORD_CHECK (both cost money: Route 53 pricing)"),
            template=account.template_name, stack="route53", resource=g.zone_id,
        ))
    return out
