"""Route 53's own guards in ``StrictRoute53``: record set protections, hosted zone tiers with change
guardrails, and change history, as botocore 1.44.8's ``route53`` model documents them (the
sentences quoted below are from its operation and shape documentation). moto 5.2.5 has none of
these operations.

* **Protections** (``Create/Delete/ListResourceRecordSetProtections``): "While a protection
  exists, Route 53 rejects any ChangeResourceRecordSets request that creates, updates, or deletes
  a resource record set with that name and type, and returns an InvalidChangeBatch error"; "You
  can create a protection for a name and type that doesn't have a resource record set yet";
  "The request is atomic"; "If every entry already has a protection, Route 53 returns a
  ProtectionAlreadyExists error. For any other combination of failures, ...
  InvalidResourceRecordSetProtectionBatch"; "up to 100 protections in one request"; the zone's
  quota (``max_protections``) gives ``LimitsExceeded``.
* **Tier and guardrails** (``UpdateHostedZoneTier``, ``UpdateHostedZoneFeatures``): ``STANDARD``
  or ``ADVANCED``; "When the hosted zone moves to a new tier, Route 53 turns on the features that
  the new tier includes ... disables any enabled features that the new tier doesn't include";
  "Before you move a hosted zone to a tier that doesn't offer an optional feature that you turned
  on, turn off that feature". The model does not list which tier includes what; this double
  assumes (and says so here): ADVANCED includes Change History (turned on with the tier) and offers
  the guardrails (each off until turned on); STANDARD offers neither. Guardrails: "Route 53
  checks each change against every guardrail that is turned on. If a check fails, Route 53
  rejects the whole request and returns an error that identifies the guardrail". Modelled:
  ``ACTIVE_RECORD_CHECK`` (deleting the last record set of a name and type that receives queries;
  every name receives queries unless ``set_queried(zone, name, type, False)``) and
  ``ALIAS_TARGET_CHECK`` ("suppose that ALIAS_TARGET_CHECK is turned on, and an alias record
  points to www.example.com. If you try to delete www.example.com, Route 53 rejects the
  request"). The NS_* and ACTIVE_DELEGATION checks can be turned on and are not judged.
* **Change history** (``ListHostedZoneChangeBatches``, ``GetHostedZoneChangeBatch``,
  ``ListResourceRecordSetChanges``): "Each change batch records one ChangeResourceRecordSets or
  CreateHostedZone request"; "If Change History isn't turned on for the hosted zone, Route 53
  returns a FeatureNotEnabled error"; "If the change batch isn't in the hosted zone's retained
  change history ... Route 53 returns a NoSuchChange error"; "A change can take a few seconds to
  appear in ListResourceRecordSetChanges after it appears in ListHostedZoneChangeBatches"
  (``history_lag_s``). Only batches after ``RetentionStartsAt`` (the moment history was turned on)
  are kept. Pages: ``MaxResults`` and an opaque ``NextToken``.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from edge_origin.core.dns_names import fqdn as core_fqdn

GUARDRAILS = ("NS_FORMAT_CHECK", "NS_DELEGATION_AUTHORITY_CHECK", "NS_OCCLUSION_CHECK", "ALIAS_TARGET_CHECK",
              "ACTIVE_RECORD_CHECK", "ACTIVE_DELEGATION_CHECK")
TIERS = ("STANDARD", "ADVANCED")
MAX_PROTECTIONS_PER_REQUEST = 100
DEFAULT_MAX_PROTECTIONS = 1000


def _norm(name: str) -> str:
    return core_fqdn(name)


class _ZoneGuards:
    def __init__(self) -> None:
        self.tier = "STANDARD"
        self.guardrails: dict[str, str] = {}
        self.history_on = False
        self.retention_starts_at: datetime | None = None
        self.history: list[dict[str, Any]] = []  # {"summary", "changes", "at" (clock)}
        self.protections: dict[tuple[str, str], str | None] = {}
        self.unqueried: set[tuple[str, str]] = set()


class GuardsMixin:
    """The guards' operations and checks; ``StrictRoute53`` inherits them (see the module docstring)."""

    history_lag_s: float = 0.0
    max_protections: int = DEFAULT_MAX_PROTECTIONS
    submitted_by: str = "arn:aws:iam::123456789012:user/edge-origin-test"

    # --- state -------------------------------------------------------------------------------
    def _guards(self, zone_id: str) -> _ZoneGuards:
        table = self.__dict__.setdefault("_zone_guards", {})
        return table.setdefault(zone_id, _ZoneGuards())

    def set_queried(self, zone_id: str, name: str, rtype: str, queried: bool) -> None:
        """Tests: whether a name and type "still receives queries" (ACTIVE_RECORD_CHECK)."""
        zone = self._zone(zone_id, "SetQueried")  # type: ignore[attr-defined]
        key = (_norm(name), rtype)
        guards = self._guards(zone.id)
        (guards.unqueried.discard if queried else guards.unqueried.add)(key)

    def _features(self, zone_id: str) -> dict[str, Any]:
        guards = self._guards(zone_id)
        history: dict[str, Any] = {"Status": "ENABLED" if guards.history_on else "DISABLED"}
        if guards.retention_starts_at is not None:
            history["RetentionStartsAt"] = guards.retention_starts_at
        return {"ChangeHistory": history,
                "ChangeGuardrails": [{"Name": n, "Status": guards.guardrails.get(n, "DISABLED")} for n in GUARDRAILS]
                if guards.tier == "ADVANCED" else []}

    def hosted_zone_tier(self, zone_id: str) -> str:
        """Tests: the zone's tier (GetHostedZone shows the features, not the tier name)."""
        return self._guards(self._zone(zone_id, "GetHostedZone").id).tier  # type: ignore[attr-defined]

    # --- tier and features ---------------------------------------------------------------------
    def update_hosted_zone_tier(self, **params: Any) -> dict[str, Any]:
        op = "UpdateHostedZoneTier"
        self._enter(op, params)  # type: ignore[attr-defined]
        with self._lock:  # type: ignore[attr-defined]
            zone = self._zone(params["HostedZoneId"], op)  # type: ignore[attr-defined]
            guards = self._guards(zone.id)
            tier = params["HostedZoneTier"]
            if tier not in TIERS:
                raise self._error("InvalidInput", f"Invalid parameter: HostedZoneTier {tier!r} must be one of {', '.join(TIERS)}", op)  # type: ignore[attr-defined]
            if tier == "STANDARD" and any(s == "ENABLED" for s in guards.guardrails.values()):
                on = sorted(n for n, s in guards.guardrails.items() if s == "ENABLED")
                raise self._error("InvalidInput", f"Turn off the change guardrails the STANDARD tier doesn't offer first: {', '.join(on)}", op)  # type: ignore[attr-defined]
            if params.get("DryRun"):
                return self._ok({})  # type: ignore[attr-defined]
            if tier == "ADVANCED" and guards.tier != "ADVANCED":
                guards.history_on = True
                guards.retention_starts_at = datetime.now(UTC)
            if tier == "STANDARD":
                guards.history_on = False
                guards.guardrails.clear()
            guards.tier = tier
            return self._ok({})  # type: ignore[attr-defined]

    def update_hosted_zone_features(self, **params: Any) -> dict[str, Any]:
        op = "UpdateHostedZoneFeatures"
        self._enter(op, params)  # type: ignore[attr-defined]
        with self._lock:  # type: ignore[attr-defined]
            zone = self._zone(params["HostedZoneId"], op)  # type: ignore[attr-defined]
            guards = self._guards(zone.id)
            wanted = params.get("ChangeGuardrails") or []
            if wanted and guards.tier != "ADVANCED":
                raise self._error("InvalidInput", "Change guardrails need the ADVANCED hosted zone tier (UpdateHostedZoneTier)", op)  # type: ignore[attr-defined]
            for g in wanted:
                if g.get("Name") not in GUARDRAILS or g.get("Status") not in ("ENABLED", "DISABLED"):
                    raise self._error("InvalidInput", f"Invalid parameter: ChangeGuardrail {g!r}", op)  # type: ignore[attr-defined]
            if not params.get("DryRun"):
                for g in wanted:
                    guards.guardrails[g["Name"]] = g["Status"]
            return self._ok({})  # type: ignore[attr-defined]

    # --- protections -----------------------------------------------------------------------------
    def _protection_entries(self, zone: Any, entries: list[dict[str, Any]], op: str) -> list[tuple[str, str, str | None]]:
        if not 1 <= len(entries) <= MAX_PROTECTIONS_PER_REQUEST:
            raise self._error("InvalidInput", f"Invalid parameter: Protections must hold 1..{MAX_PROTECTIONS_PER_REQUEST} entries", op)  # type: ignore[attr-defined]
        out, invalid = [], []
        for e in entries:
            name = _norm(e["RecordName"])
            if not (name == zone.name or name.endswith("." + zone.name)):
                invalid.append({"RecordName": e["RecordName"], "RecordType": e["RecordType"], "Code": "InvalidInput",
                                "Message": f"{name} is not in the hosted zone {zone.name}"})
            out.append((name, e["RecordType"], e.get("Comment")))
        if invalid:  # "Route 53 checks for invalid entries before it checks for existing protections"
            raise self._batch_error(op, invalid)
        return out

    def _batch_error(self, op: str, errors: list[dict[str, Any]]) -> Any:
        exc = self._error("InvalidResourceRecordSetProtectionBatch",  # type: ignore[attr-defined]
                          f"{len(errors)} entries could not be processed: " + "; ".join(f"{e['RecordName']} {e['RecordType']}: {e['Message']}" for e in errors), op)
        exc.response["Errors"] = errors
        return exc

    def create_resource_record_set_protections(self, **params: Any) -> dict[str, Any]:
        op = "CreateResourceRecordSetProtections"
        self._enter(op, params)  # type: ignore[attr-defined]
        with self._lock:  # type: ignore[attr-defined]
            zone = self._zone(params["HostedZoneId"], op)  # type: ignore[attr-defined]
            guards = self._guards(zone.id)
            entries = self._protection_entries(zone, params["Protections"], op)
            existing = [(n, t) for n, t, _ in entries if (n, t) in guards.protections]
            if existing and len(existing) == len(entries):
                raise self._error("ProtectionAlreadyExists", "Every entry already has a protection: " + ", ".join(f"{n} {t}" for n, t in existing), op, 409)  # type: ignore[attr-defined]
            if existing:
                raise self._batch_error(op, [{"RecordName": n, "RecordType": t, "Code": "ProtectionAlreadyExists",
                                              "Message": "a protection already exists"} for n, t in existing])
            if len(guards.protections) + len(entries) > self.max_protections:
                raise self._error("LimitsExceeded", f"The hosted zone would have more than {self.max_protections} protections", op)  # type: ignore[attr-defined]
            for n, t, comment in entries:
                guards.protections[(n, t)] = comment
            return self._ok({})  # type: ignore[attr-defined]

    def delete_resource_record_set_protections(self, **params: Any) -> dict[str, Any]:
        op = "DeleteResourceRecordSetProtections"
        self._enter(op, params)  # type: ignore[attr-defined]
        with self._lock:  # type: ignore[attr-defined]
            zone = self._zone(params["HostedZoneId"], op)  # type: ignore[attr-defined]
            guards = self._guards(zone.id)
            entries = self._protection_entries(zone, params["Protections"], op)
            missing = [(n, t) for n, t, _ in entries if (n, t) not in guards.protections]
            if missing:  # "If one or more entries fail, for example because no protection exists"
                raise self._batch_error(op, [{"RecordName": n, "RecordType": t, "Code": "NoSuchProtection",
                                              "Message": "no protection exists for this name and type"} for n, t in missing])
            for n, t, _ in entries:
                del guards.protections[(n, t)]
            return self._ok({})  # type: ignore[attr-defined]

    def list_resource_record_set_protections(self, **params: Any) -> dict[str, Any]:
        op = "ListResourceRecordSetProtections"
        self._enter(op, params)  # type: ignore[attr-defined]
        with self._lock:  # type: ignore[attr-defined]
            zone = self._zone(params["HostedZoneId"], op)  # type: ignore[attr-defined]
            rows = sorted(self._guards(zone.id).protections.items())
            if params.get("StartRecordName"):
                start = (_norm(params["StartRecordName"]), params.get("StartRecordType") or "")
                rows = [r for r in rows if r[0] >= start]
            return self._ok(self._page(rows, params, lambda r: {  # type: ignore[attr-defined]
                "RecordName": r[0][0], "RecordType": r[0][1], **({"Comment": r[1]} if r[1] else {})}, "ResourceRecordSetProtections"))

    def _page(self, rows: list[Any], params: dict[str, Any], shape: Any, key: str) -> dict[str, Any]:
        start = int(params["NextToken"]) if str(params.get("NextToken") or "").isdigit() else 0
        if params.get("NextToken") and not str(params["NextToken"]).isdigit():
            raise self._error("InvalidPaginationToken", "The pagination token is not valid", key)  # type: ignore[attr-defined]
        limit = max(1, min(int(params.get("MaxResults") or 100), 100))
        page = rows[start:start + limit]
        out: dict[str, Any] = {key: [shape(r) for r in page]}
        if start + limit < len(rows):
            out["NextToken"] = str(start + limit)
        return out

    # --- inside ChangeResourceRecordSets ---------------------------------------------------------
    def _check_guards(self, zone: Any, changes: list[dict[str, Any]], working: dict[Any, dict[str, Any]]) -> None:
        """Raise InvalidChangeBatch for a protected name and type, or a guardrail that fails."""
        op = "ChangeResourceRecordSets"
        guards = self._guards(zone.id)
        for c in changes:
            rr = c["ResourceRecordSet"]
            key = (_norm(rr["Name"]), rr["Type"])
            if key in guards.protections:
                raise self._error("InvalidChangeBatch", f"[Tried to {c['Action'].lower()} resource record set [name='{key[0]}', type='{key[1]}'] "  # type: ignore[attr-defined]
                                  "but it is protected by a resource record set protection (DeleteResourceRecordSetProtections first)]", op)
        on = {n for n, s in guards.guardrails.items() if s == "ENABLED"} if guards.tier == "ADVANCED" else set()
        remaining = {(_norm(r["Name"]), r["Type"]) for r in working.values()}
        if "ACTIVE_RECORD_CHECK" in on:
            for c in changes:
                rr = c["ResourceRecordSet"]
                key = (_norm(rr["Name"]), rr["Type"])
                if c["Action"] == "DELETE" and key not in remaining and key not in guards.unqueried:
                    raise self._error("InvalidChangeBatch", f"[ChangeGuardrail ACTIVE_RECORD_CHECK: deleting {key[0]} {key[1]} would leave "  # type: ignore[attr-defined]
                                      "no record of that name and type while it still receives queries]", op)
        if "ALIAS_TARGET_CHECK" in on:
            for r in working.values():
                target = (r.get("AliasTarget") or {}).get("DNSName")
                if target and _norm(target).endswith(zone.name) and not any(n == _norm(target) for n, _ in remaining):
                    raise self._error("InvalidChangeBatch", f"[ChangeGuardrail ALIAS_TARGET_CHECK: {_norm(r['Name'])} is an alias to "  # type: ignore[attr-defined]
                                      f"{_norm(target)}, which this batch deletes]", op)

    def _record_history(self, zone: Any, batch: dict[str, Any], change: dict[str, Any], operation: str = "ChangeResourceRecordSets") -> None:
        guards = self._guards(zone.id)
        if not guards.history_on:
            return
        summary = {"ChangeId": change["Id"].split("/")[-1], "Operation": operation, "SubmittedAt": change["SubmittedAt"],
                   "SubmittedBy": self.submitted_by, "RequestId": change["Id"].split("/")[-1].lower(),
                   "ChangeCount": len(batch.get("Changes") or [])}
        if batch.get("Comment"):
            summary["Comment"] = batch["Comment"]
        changes = [{"Action": c["Action"], "ResourceRecordSet": _listed(c["ResourceRecordSet"], c["Action"])} for c in batch.get("Changes") or []]
        guards.history.append({"summary": summary, "changes": changes, "at": self._clock()})  # type: ignore[attr-defined]

    # --- change history ----------------------------------------------------------------------------
    def _history(self, zone_id: str, op: str) -> _ZoneGuards:
        zone = self._zone(zone_id, op)  # type: ignore[attr-defined]
        guards = self._guards(zone.id)
        if not guards.history_on:
            raise self._error("FeatureNotEnabled", "Change History isn't turned on for the hosted zone: move it to a tier that includes it", op, 400)  # type: ignore[attr-defined]
        return guards

    def list_hosted_zone_change_batches(self, **params: Any) -> dict[str, Any]:
        op = "ListHostedZoneChangeBatches"
        self._enter(op, params)  # type: ignore[attr-defined]
        with self._lock:  # type: ignore[attr-defined]
            rows = [h["summary"] for h in self._history(params["HostedZoneId"], op).history]
            rows = _time_bound(rows, params)
            if params.get("StartAfterChangeId"):
                ids = [r["ChangeId"] for r in rows]
                after = params["StartAfterChangeId"].split("/")[-1]
                rows = rows[ids.index(after) + 1:] if after in ids else rows
            if params.get("SortOrder") == "DESCENDING":
                rows = rows[::-1]
            return self._ok(self._page(copy.deepcopy(rows), params, lambda r: r, "ChangeBatchSummaries"))  # type: ignore[attr-defined]

    def get_hosted_zone_change_batch(self, **params: Any) -> dict[str, Any]:
        op = "GetHostedZoneChangeBatch"
        self._enter(op, params)  # type: ignore[attr-defined]
        with self._lock:  # type: ignore[attr-defined]
            guards = self._history(params["HostedZoneId"], op)
            wanted = params["ChangeId"].split("/")[-1]
            for h in guards.history:
                if h["summary"]["ChangeId"] == wanted:
                    return self._ok({"ChangeBatchSummary": copy.deepcopy(h["summary"]),  # type: ignore[attr-defined]
                                     "ChangeBatch": {**({"Comment": h["summary"]["Comment"]} if "Comment" in h["summary"] else {}),
                                                     "Changes": copy.deepcopy(h["changes"])}})
            raise self._error("NoSuchChange", f"The change batch {wanted} isn't in the retained change history of the hosted zone", op, 404)  # type: ignore[attr-defined]

    def list_resource_record_set_changes(self, **params: Any) -> dict[str, Any]:
        op = "ListResourceRecordSetChanges"
        self._enter(op, params)  # type: ignore[attr-defined]
        with self._lock:  # type: ignore[attr-defined]
            guards = self._history(params["HostedZoneId"], op)
            now = self._clock()  # type: ignore[attr-defined]
            rows = []
            for h in guards.history:
                if now - h["at"] < self.history_lag_s:
                    continue  # "A change can take a few seconds to appear in ListResourceRecordSetChanges"
                s = h["summary"]
                for c in h["changes"]:
                    rr = c["ResourceRecordSet"]
                    if params.get("RecordName") and _norm(rr["Name"]) != _norm(params["RecordName"]):
                        continue
                    if params.get("RecordType") and rr["Type"] != params["RecordType"]:
                        continue
                    rows.append({"ChangeId": s["ChangeId"], "Operation": s["Operation"], "SubmittedAt": s["SubmittedAt"],
                                 "SubmittedBy": s["SubmittedBy"], "RequestId": s["RequestId"], "Action": c["Action"], "ResourceRecordSet": rr})
            rows = _time_bound(rows, params)
            if params.get("SortOrder") == "DESCENDING":
                rows = rows[::-1]
            return self._ok(self._page(copy.deepcopy(rows), params, lambda r: r, "ResourceRecordSetChanges"))  # type: ignore[attr-defined]


def _listed(record: dict[str, Any], action: str) -> dict[str, Any]:
    """A record set as ListResourceRecordSets spells it ("the name is in lowercase and ends with a dot")."""
    out = copy.deepcopy(record)
    out["Name"] = _norm(out["Name"])
    return out


def _bound(text: str | None) -> datetime | None:
    """A ChangeHistoryTimeBound (a string: ISO 8601) as a time."""
    if text is None:
        return None
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _time_bound(rows: list[dict[str, Any]], params: dict[str, Any]) -> list[dict[str, Any]]:
    after, before = _bound(params.get("SubmittedAfter")), _bound(params.get("SubmittedBefore"))
    return [r for r in rows if (after is None or r["SubmittedAt"] > after) and (before is None or r["SubmittedAt"] < before)]
