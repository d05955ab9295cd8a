"""What Route 53's own guards say about a name (botocore 1.44.8 route53: record set protections,
the hosted zone's change guardrails and change history), read for the change engine.

Every reader returns None when it cannot tell (an SDK or endpoint without the operation, as moto,
AccessDenied, a zone without the feature: ``live/optional.call_optional``): the engine then behaves as before these features and
Route 53 still refuses what they refuse.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import botocore.exceptions
import botocore.parsers

from edge_origin.core.dns_names import fqdn as core_fqdn

GUARDRAIL_NAMES = ("NS_FORMAT_CHECK", "NS_DELEGATION_AUTHORITY_CHECK", "NS_OCCLUSION_CHECK", "ALIAS_TARGET_CHECK",
                   "ACTIVE_RECORD_CHECK", "ACTIVE_DELEGATION_CHECK")
_ERRORS = (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError, botocore.parsers.ResponseParserError, KeyError)
HISTORY_SKEW = timedelta(minutes=5)  # look this far before the send for the batch (clock skew)
MAX_PAGES = 50


@dataclass(frozen=True)
class Protection:
    name: str
    type: str
    comment: str | None = None

    def key(self) -> dict[str, str]:
        return {"RecordName": self.name, "RecordType": self.type}


def _norm(name: str) -> str:
    return core_fqdn(name)


def features(client: Any, zone_id: str) -> dict[str, Any] | None:
    """``GetHostedZone``'s ``Features`` (None: not reported, also by a botocore older than 1.44,
    whose ``HostedZoneFeatures`` has no ChangeGuardrails/ChangeHistory: never read as "none on")."""
    from edge_origin.live.sdk_members import not_read

    if not_read("route53", "HostedZoneFeatures", "ChangeGuardrails") or not_read("route53", "HostedZoneFeatures", "ChangeHistory"):
        return None
    try:
        return client.get_hosted_zone(Id=zone_id)["HostedZone"].get("Features")
    except _ERRORS:
        return None


def history_enabled(client: Any, zone_id: str) -> bool | None:
    found = features(client, zone_id)
    if found is None:
        return None
    return (found.get("ChangeHistory") or {}).get("Status") == "ENABLED"


def enabled_guardrails(found: dict[str, Any] | None) -> list[str]:
    return sorted(g["Name"] for g in (found or {}).get("ChangeGuardrails") or [] if g.get("Status") == "ENABLED")


def protections(client: Any, zone_id: str, keys: list[tuple[str, str]]) -> list[Protection] | None:
    """The protections among ``keys`` (name, type); None when they cannot be listed (also with a
    botocore older than 1.44, which has no ListResourceRecordSetProtections)."""
    from edge_origin.live.optional import NotRead, call_optional

    wanted = {(_norm(n), t) for n, t in keys}
    found: list[Protection] = []
    for name in sorted({n for n, _ in wanted}):
        params: dict[str, Any] = {"HostedZoneId": zone_id, "StartRecordName": name}
        for _ in range(MAX_PAGES):
            page = call_optional(client, "route53", "ListResourceRecordSetProtections", fatal=False, **params)
            if isinstance(page, NotRead):
                return None
            rows = page.get("ResourceRecordSetProtections") or []
            for row in rows:
                key = (_norm(row["RecordName"]), row["RecordType"])
                if key in wanted:
                    found.append(Protection(key[0], key[1], row.get("Comment")))
            past = rows and _norm(rows[-1]["RecordName"]) > name
            if past or not page.get("NextToken"):
                break
            params["NextToken"] = page["NextToken"]
    return sorted(set(found), key=lambda p: (p.name, p.type))


def outcome_from_history(client: Any, zone_id: str, comment: str, sent_at: datetime, change_count: int) -> tuple[str, str | None] | None:
    """Route 53's own log of a batch whose answer was lost: ("applied", change id) when a batch with
    this exact ``comment`` (enact's comment names the name, generation and digest) and as many
    changes was submitted since ``sent_at`` (less a skew), ("not-applied", None) when the history
    is readable and holds none; None when the zone has no history or it cannot be read."""
    from edge_origin.live.optional import NotRead, call_optional

    since = (sent_at - HISTORY_SKEW).strftime("%Y-%m-%dT%H:%M:%SZ")  # ChangeHistoryTimeBound is a string (ISO 8601)
    params: dict[str, Any] = {"HostedZoneId": zone_id, "SubmittedAfter": since}
    for _ in range(MAX_PAGES):
        page = call_optional(client, "route53", "ListHostedZoneChangeBatches", fatal=False, **params)
        if isinstance(page, NotRead):
            return None
        for summary in page.get("ChangeBatchSummaries") or []:
            if summary.get("Comment") == comment and summary.get("Operation") == "ChangeResourceRecordSets":
                batch = call_optional(client, "route53", "GetHostedZoneChangeBatch", fatal=False, HostedZoneId=zone_id, ChangeId=summary["ChangeId"])
                if isinstance(batch, NotRead):
                    return None
                if len(batch["ChangeBatch"].get("Changes") or []) == change_count:
                    return "applied", summary["ChangeId"]
        if not page.get("NextToken"):
            return "not-applied", None
        params["NextToken"] = page["NextToken"]
    return None


def guardrail_named(message: str) -> str | None:
    """The guardrail a refusal names, if any."""
    return next((g for g in GUARDRAIL_NAMES if g in (message or "")), None)


def set_protections(client: Any, zone_id: str, items: list[Protection], on: bool) -> None:
    """Create (``on``) or delete the protections ``items`` (one atomic call)."""
    if not items:
        return
    if on:
        client.create_resource_record_set_protections(HostedZoneId=zone_id, Protections=[
            {**p.key(), **({"Comment": p.comment} if p.comment else {})} for p in items])
    else:
        client.delete_resource_record_set_protections(HostedZoneId=zone_id, Protections=[p.key() for p in items])
