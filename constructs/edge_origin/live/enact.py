"""The change engine: a plan becomes ONE Route 53 change batch, guarded by the generation record.

``enact(client, plan, options)`` (``client``: a boto3 ``route53`` client, moto's, or
``edge_origin.testing.route53.StrictRoute53``):

1. reads the name's A and AAAA record sets and its generation record (``name_state.read_name``);
2. refuses before calling Route 53 (``Refusal``, exit 1 in the CLI): a generation not above the
   live one (``StalePlan``; the same generation with the same digest is a no-op instead), a plan
   without records, a plan none of whose records is healthy now, more than ``max_change_share``
   of the records changed at once (unless ``allow_full_change``, which a routing-policy
   migration needs), a batch above Route 53's 1,000 values, a name holding an address type (A or
   AAAA) the plan has no records of (its sets would stay on the old routing policy);
3. creates the missing health checks (idempotent: the CallerReference is derived from the name,
   the set identifier and the config, and an existing check with it is reused);
4. sends one batch: DELETE the exact generation record + CREATE the next one, DELETE every live
   A/AAAA record set of the name that the plan does not keep (whatever its routing policy), DELETE +
   CREATE the ones it changes, CREATE the new ones. Route 53 applies it all or nothing and
   refuses a DELETE that does not match exactly, so a writer whose view went stale loses the
   whole batch. After ANY error once the batch may have been sent (a refusal, a 5xx, a timeout, a
   reset connection: botocore may have resent it, and its first copy may have landed) it
   re-reads the name and decides (``judge``): applied (the generation record holds this plan's
   digest), not applied (the state read before: ``EnactFailed`` or ``TransientFailure``),
   another writer's generation (``stale plan: live generation is G``, or, if this plan is still
   above it, plan again from the fresh state, every guard re-checked, at most ``retries`` times),
   or ``OutcomeUnknown``. It never resends an old batch itself;
5. waits for INSYNC with bounded exponential backoff (``get_change``; a failure there leaves the
   plan applied, "INSYNC not confirmed"), then reads the name back and notes how it departs from
   the plan (another writer's records beside these: moto lets that happen).

``dry_run`` stops after step 2 and returns the batch in Route 53's own shape (no health check
is created). ``PlanStore`` keeps applied plans on disk; its ``cleanup`` re-reads the generation
record and never deletes the live generation nor the one before it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import botocore.exceptions
import botocore.parsers

from edge_origin.answers.routing import read_routing
from edge_origin.core.dns_names import canonical_name, fqdn
from edge_origin.live import steps
from edge_origin.live.boundary import UnreadableResponse
from edge_origin.live.guard import Stop
from edge_origin.live.guard import active as active_guard
from edge_origin.live.health_owner import clean_owned, tag_owned
from edge_origin.live.name_state import (
    ADDRESS_TYPES,
    Generation,
    LiveName,
    NameStateError,
    plan_blocker,
    read_name,
    routing_policy,
    zone_name,
)
from edge_origin.live.paging import PagingError, paginate
from edge_origin.live.plan_journal import (
    Journal,
    clear_lifted,
    lifted,
    note_lifted,
    reconcile,
    state_generations,
    state_path,
    write_plan_file,
)
from edge_origin.live.plans import LivePlanError, LivePlanRecord, Plan, load_plan, shown_path
from edge_origin.live.redact import redact
from edge_origin.live.zone_guards import (
    Protection,
    guardrail_named,
    history_enabled,
    outcome_from_history,
    protections,
    set_protections,
)

MAX_BATCH_VALUES = 1000
HEALTHY_CHECKER_SHARE = 0.18  # Route 53: healthy when more than 18 % of its checkers say so
DEFAULT_MAX_CHANGE_SHARE = 0.5
DEFAULT_WAIT_S = 300.0
DEFAULT_RETRIES = 3
NEW_HEALTH_CHECK = "<created by enact: {sid}>"


class NotApplied(RuntimeError):
    """The plan is not applied: the name holds the state enact read before (the reason, one line).
    ``retry_safe``: running the same plan again as is may succeed (a transient AWS error)."""

    retry_safe = False


class Refusal(NotApplied):
    """enact will not apply the plan (nothing was changed): the reason, one line."""


class StalePlan(Refusal):
    """The plan's generation is not above the live one."""

    def __init__(self, live_generation: int, detail: str = "") -> None:
        self.live_generation = live_generation
        super().__init__(f"stale plan: live generation is {live_generation}" + (f" ({detail})" if detail else ""))


class EnactFailed(NotApplied):
    """AWS refused a call for another reason than a stale view (its code and message); re-read
    after the batch, the name holds the state read before it."""


class TransientFailure(NotApplied):
    """An AWS error that may pass (throttling, 5xx, timeout, reset connection); re-read after
    it, the name holds the state read before: nothing changed, safe to run the same plan again."""

    retry_safe = True


class OutcomeUnknown(RuntimeError):
    """After an error once the batch may have been sent, the name holds neither this plan's
    generation nor the state read before it (or could not be read back): look before acting."""

    def __init__(self, message: str, show_command: str) -> None:
        self.show_command = show_command
        super().__init__(f"{message}; see what is live: {show_command}")


class Interrupted(OutcomeUnknown):
    """SIGINT, SIGTERM or the deadline once the batch may have been sent: the run did not finish
    (exit 4). ``outcome`` is what the read-back found (``applied``, ``not-applied``,
    ``other-writer``) or None when it could not finish; ``change_id`` when Route 53 answered."""

    def __init__(self, message: str, show_command: str, outcome: str | None, change_id: str | None) -> None:
        self.outcome, self.change_id = outcome, change_id
        super().__init__(message, show_command)


@dataclass(frozen=True)
class EnactOptions:
    dry_run: bool = False
    max_change_share: float = DEFAULT_MAX_CHANGE_SHARE
    allow_full_change: bool = False
    wait_s: float = DEFAULT_WAIT_S
    retries: int = DEFAULT_RETRIES
    keep_health_checks: bool = False  # True: never delete the owned health checks no record uses
    unprotect: bool = False  # lift Route 53 record set protections for the batch, and put them back

    def __post_init__(self) -> None:
        if not 0.0 < self.max_change_share <= 1.0:
            raise LivePlanError(f"max_change_share: {self.max_change_share} is out of range (0, 1]")
        if not 0.0 <= self.wait_s <= 3600.0:
            raise LivePlanError(f"wait: {self.wait_s} s is out of range 0..3600")
        if not 0 <= self.retries <= 100:
            raise LivePlanError(f"retries: {self.retries} is out of range 0..100")


@dataclass
class Prepared:
    """A batch computed from one read of the live state (nothing sent yet)."""

    plan: Plan
    live: LiveName
    changes: list[dict[str, Any]]
    health_checks_to_create: list[dict[str, Any]]
    added: list[str]
    modified: list[str]
    removed: list[str]
    kept: list[str]
    change_share: float
    noop: bool = False
    notes: list[str] = field(default_factory=list)
    kept_records: list[dict[str, Any]] = field(default_factory=list)
    reused_health_checks: dict[str, str] = field(default_factory=dict)  # re-tagged with this generation before sending
    protected: list[Protection] = field(default_factory=list)  # lifted for the batch (--unprotect), put back after
    sent_at: Any = None  # when the batch call started (UTC): where to look in the change history

    def change_batch(self) -> dict[str, Any]:
        return {"Comment": _comment(self.plan), "Changes": self.changes}


@dataclass
class EnactResult:
    status: str  # applied | no-op | dry-run
    name: str
    hosted_zone_id: str
    generation: int
    live_generation: int
    change_batch: dict[str, Any]
    health_checks_to_create: list[dict[str, Any]]
    health_checks_created: dict[str, str] = field(default_factory=dict)
    change_id: str | None = None
    insync: bool | None = None
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    change_share: float = 0.0
    attempts: int = 1
    notes: list[str] = field(default_factory=list)
    read_back: str | None = None  # matches | differs | not read (after applying)
    health_checks_deleted: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "change_batch": self.change_batch,
            "health_checks_to_create": self.health_checks_to_create,
            "status": self.status,
            "name": self.name,
            "hosted_zone_id": self.hosted_zone_id,
            "generation": self.generation,
            "live_generation": self.live_generation,
            "change_share": round(self.change_share, 4),
            "added": self.added,
            "modified": self.modified,
            "removed": self.removed,
            "kept": self.kept,
            "health_checks_created": self.health_checks_created,
            "change_id": self.change_id,
            "insync": self.insync,
            "attempts": self.attempts,
            "read_back": self.read_back,
            "health_checks_deleted": self.health_checks_deleted,
            "notes": self.notes,
        }

    def text(self) -> str:
        verb = {"applied": "applied", "no-op": "nothing to do", "dry-run": "dry run (nothing changed)"}[self.status]
        lines = [f"{self.name} generation {self.generation}: {verb} (live generation was {self.live_generation})"]
        if self.status != "no-op":
            lines.append(
                f"  records: {len(self.added)} added, {len(self.modified)} changed, {len(self.removed)} removed, "
                f"{len(self.kept)} kept ({self.change_share:.0%} changed); {len(self.change_batch['Changes'])} changes in one batch"
            )
            for c in self.change_batch["Changes"]:
                rr = c["ResourceRecordSet"]
                what = ", ".join(v["Value"] for v in rr.get("ResourceRecords", [])) or (rr.get("AliasTarget") or {}).get("DNSName", "")
                sid = f" [{rr['SetIdentifier']}]" if rr.get("SetIdentifier") else ""
                lines.append(f"  {c['Action']:<6} {rr['Name']} {rr['Type']}{sid} {what}")
        if self.health_checks_to_create:
            done = "created" if self.health_checks_created else "to create"
            lines.append(f"  health checks {done}: {len(self.health_checks_to_create)}")
        if self.change_id:
            lines.append(f"  change {self.change_id}: {'INSYNC' if self.insync else 'not yet INSYNC' if self.insync is False else 'INSYNC not confirmed'}")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines) + "\n"


# --- helpers -----------------------------------------------------------------------------------
def _comment(plan: Plan) -> str:
    base = f"edge-origin enact {plan.fqdn} generation {plan.generation} digest {plan.digest()}"
    return (base + f": {plan.comment}")[:256] if plan.comment else base


def caller_reference(plan: Plan, record: LivePlanRecord) -> str:
    """Idempotent CallerReference: the same name, set identifier and config give the same one."""
    assert record.health_check is not None
    body = json.dumps([plan.fqdn, record.set_identifier, record.health_check.config(record.ip)], sort_keys=True)
    return "edge-origin-" + hashlib.sha256(body.encode()).hexdigest()[:40]


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if number == 0:
            return out


def creation_reference(plan: Plan, record: LivePlanRecord, attempt: int = 1) -> str:
    """The CallerReference a new check is created with: ``caller_reference`` + the generation
    (base 36, at most 64 characters in all). Route 53 never takes the CallerReference of a DELETED
    check again (API reference, CreateHealthCheck), and enact deletes the checks it owns once no
    record uses them: a later plan with the same address gets a fresh reference. Retries of one
    generation reuse theirs; a check of any generation is found again by ``caller_reference``
    (its first 32 hex digits). ``attempt`` > 1 (planning again after a lost race) adds itself."""
    again = f"-{_base36(attempt)}" if attempt > 1 else ""
    return f"{caller_reference(plan, record)[:_BASE_REFERENCE_LENGTH]}-{_base36(plan.generation)}{again}"


_BASE_REFERENCE_LENGTH = len("edge-origin-") + 32


def _existing_health_checks(client: Any) -> dict[str, dict[str, Any]]:
    """Existing checks by ``caller_reference`` (with or without the generation suffix)."""
    out: dict[str, dict[str, Any]] = {}
    for page in paginate(client, "list_health_checks"):
        for hc in page.get("HealthChecks", []):
            ref = hc["CallerReference"]
            out.setdefault(ref[:_BASE_REFERENCE_LENGTH] if ref.startswith("edge-origin-") else ref, hc)
    return out


def health_state(client: Any, health_check_id: str) -> str | None:
    """Route 53's view now: ``healthy`` when more than 18 % of its checkers report success,
    ``unhealthy``, ``pending`` when no checker has reported yet (Route 53 treats a new check as
    healthy until it has data), None when there is no such health check."""
    try:
        observations = client.get_health_check_status(HealthCheckId=health_check_id)["HealthCheckObservations"]
    except botocore.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("NoSuchHealthCheck", "InvalidInput"):
            return None
        raise
    reports = [o.get("StatusReport", {}).get("Status", "") for o in observations]
    if not reports:
        return "pending"
    share = sum(r.startswith("Success") for r in reports) / len(reports)
    return "healthy" if share > HEALTHY_CHECKER_SHARE else "unhealthy"


def is_healthy(client: Any, health_check_id: str) -> bool:
    """Healthy now, or new and not yet reported (as Route 53 counts it)."""
    return health_state(client, health_check_id) in ("healthy", "pending")


def desired_record(plan: Plan, record: LivePlanRecord, health_check_id: str) -> dict[str, Any]:
    return {
        "Name": plan.fqdn,
        "Type": record.type,
        "SetIdentifier": record.set_identifier,
        "MultiValueAnswer": True,
        "TTL": plan.ttl,
        "ResourceRecords": [{"Value": record.ip}],
        "HealthCheckId": health_check_id,
    }


def _same_record(live: dict[str, Any], want: dict[str, Any]) -> bool:
    """``live`` (paired with ``want`` by set identifier and type in ``prepare``) as enact would write it."""
    # the policy as the one table of routing elements reads it (answers.routing): an element it does not know,
    # or any element besides MultiValueAnswer (AZAffinity included), is not the record enact writes
    routing = read_routing(live)
    if routing.policy != "multivalue" or routing.extra or live.get("AliasTarget") is not None:
        return False
    return (
        live.get("SetIdentifier") == want["SetIdentifier"]
        and live.get("TTL") == want["TTL"]
        and sorted(v["Value"] for v in live.get("ResourceRecords") or []) == [want["ResourceRecords"][0]["Value"]]
        and live.get("HealthCheckId") == want["HealthCheckId"]
    )


def _batch_values(changes: list[dict[str, Any]]) -> int:
    return sum(len(c["ResourceRecordSet"].get("ResourceRecords") or [1]) for c in changes)


# --- the engine --------------------------------------------------------------------------------
def prepare(client: Any, plan: Plan, options: EnactOptions, *, zone: str | None = None, attempt: int = 1) -> Prepared:
    """Read the live state and compute the batch; refuse (``Refusal``) before anything is sent.

    Named steps, each read at the edge and in the order Route 53 sees the calls (a refusal stops
    the reads after it): read the name; the guards on it alone; read the health checks a plan
    record may reuse; pair the plan with the live records (pure); the guards on the pairing;
    read each record's health and judge it; build the batch (pure) and guard its size; read the
    record set protections it meets (and guard them).
    """
    live = read_name(client, plan.zone_id, plan.name, zone)  # looks the zone's name up when not given
    _refuse_blocked(live)
    if _already_live(plan, live):
        return Prepared(plan, live, [], [], [], [], [], [], 0.0, noop=True,
                        notes=[f"generation {plan.generation} is already live with the same digest: nothing to do"])
    _refuse_stale(plan, live)
    _refuse_empty(plan)
    pairing = pair_records(plan, live, _read_reusable_health_checks(client, plan), attempt)
    _refuse_other_address_types(plan, live)
    notes: list[str] = []
    share = _guard_change_share(plan, live, pairing, options, notes)
    _judge_health(plan, pairing, _read_health(client, plan, pairing), attempt, notes)
    changes = build_batch(plan, live, pairing)
    _refuse_oversized(changes)
    notes.extend(plan.notes())
    guarded = _protections_met(client, plan, changes, options, notes)
    return Prepared(plan, live, changes, pairing.to_create, pairing.added, pairing.modified, pairing.removed, pairing.kept,
                    share, notes=notes, kept_records=[pairing.live_by_sid[sid] for sid in pairing.kept],
                    reused_health_checks={sid: hc for sid, hc in pairing.reused.items()
                                          if sid in pairing.added or sid in pairing.modified},
                    protected=guarded)


@dataclass
class Pairing:
    """The plan's records paired with the name's live record sets (by set identifier and type)."""

    wanted: dict[str, dict[str, Any]]  # set identifier -> the record set enact writes
    to_create: list[dict[str, Any]]  # health checks to create before the batch
    reused: dict[str, str]  # set identifier -> an existing check found by its CallerReference
    live_by_sid: dict[Any, dict[str, Any]]  # set identifier -> its live record set
    extra: list[dict[str, Any]]  # live record sets no plan record pairs with: deleted
    kept: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)

    @property
    def removed(self) -> list[str]:
        return [_label(r) for r in self.extra]

    @property
    def changed(self) -> int:
        return len(self.added) + len(self.modified) + len(self.extra)


# the reads
def _read_reusable_health_checks(client: Any, plan: Plan) -> dict[str, dict[str, Any]]:
    """Existing checks by CallerReference, read only when a plan record has no health check id."""
    return _existing_health_checks(client) if any(r.health_check_id is None for r in plan.records) else {}


def _read_health(client: Any, plan: Plan, pairing: Pairing) -> Iterator[tuple[int, LivePlanRecord, str, str | None]]:
    """``(index, record, check id, health_state)`` of every record whose check exists, read one at a
    time as the judge asks for it (a judge that refuses reads no further)."""
    for index, record in enumerate(plan.records):
        hc_id = pairing.wanted[record.set_identifier]["HealthCheckId"]
        if not hc_id.startswith("<"):
            yield index, record, hc_id, health_state(client, hc_id)


# the pure steps
def _new_health_check(plan: Plan, record: LivePlanRecord, attempt: int) -> dict[str, Any]:
    return {"set_identifier": record.set_identifier, "CallerReference": creation_reference(plan, record, attempt),
            "HealthCheckConfig": record.health_check.config(record.ip)}  # type: ignore[union-attr]


def pair_records(plan: Plan, live: LiveName, existing: dict[str, dict[str, Any]], attempt: int = 1) -> Pairing:
    """Each plan record's wanted record set (its health check given, reused by CallerReference or
    to be created), paired with the live one of the same set identifier and type: kept (the same),
    modified or added; the live record sets left over are deleted."""
    to_create: list[dict[str, Any]] = []
    reused: dict[str, str] = {}
    wanted: dict[str, dict[str, Any]] = {}
    for record in plan.records:
        hc_id = record.health_check_id
        if hc_id is None:
            found = existing.get(caller_reference(plan, record)[:_BASE_REFERENCE_LENGTH])
            if found is not None:
                hc_id = found["Id"]
                reused[record.set_identifier] = hc_id
            else:
                hc_id = NEW_HEALTH_CHECK.format(sid=record.set_identifier)
                to_create.append(_new_health_check(plan, record, attempt))
        wanted[record.set_identifier] = desired_record(plan, record, hc_id)
    live_by_sid: dict[Any, dict[str, Any]] = {}
    extra: list[dict[str, Any]] = []
    for rec in live.records:
        sid = rec.get("SetIdentifier")
        if sid in wanted and wanted[sid]["Type"] == rec.get("Type") and sid not in live_by_sid:
            live_by_sid[sid] = rec
        else:
            extra.append(rec)
    pairing = Pairing(wanted, to_create, reused, live_by_sid, extra)
    for sid, want in wanted.items():
        current = live_by_sid.get(sid)
        if current is None:
            pairing.added.append(sid)
        elif _same_record(current, want):
            pairing.kept.append(sid)
        else:
            pairing.modified.append(sid)
    return pairing


def build_batch(plan: Plan, live: LiveName, pairing: Pairing) -> list[dict[str, Any]]:
    """The one change batch: the generation record swapped, the left-over record sets deleted,
    the modified ones deleted and created, the new ones created."""
    live_gen = live.generation
    next_gen = Generation(plan.generation, plan.digest(), live_gen.number if live_gen else None, live_gen.digest if live_gen else None)
    changes: list[dict[str, Any]] = []
    if live.generation_record is not None:
        changes.append({"Action": "DELETE", "ResourceRecordSet": live.generation_record})
    changes.append({"Action": "CREATE", "ResourceRecordSet": next_gen.record_set(plan.name)})
    changes.extend({"Action": "DELETE", "ResourceRecordSet": rec} for rec in pairing.extra)
    changes.extend({"Action": "DELETE", "ResourceRecordSet": pairing.live_by_sid[sid]} for sid in pairing.modified)
    changes.extend({"Action": "CREATE", "ResourceRecordSet": pairing.wanted[sid]} for sid in pairing.modified + pairing.added)
    return changes


# the guards: each one refusal (or a note it leaves)
def _refuse_blocked(live: LiveName) -> None:
    if (why := plan_blocker(live)) is not None:  # a CNAME, or a generation record not ours
        raise Refusal(why)


def _already_live(plan: Plan, live: LiveName) -> bool:
    live_gen = live.generation
    return live_gen is not None and plan.generation == live_gen.number and plan.digest() == live_gen.digest


def _refuse_stale(plan: Plan, live: LiveName) -> None:
    if plan.generation <= live.live_generation:
        detail = "same generation, different records: give the plan a new generation" if plan.generation == live.live_generation else ""
        raise StalePlan(live.live_generation, detail)


def _refuse_empty(plan: Plan) -> None:
    if not plan.records:
        raise Refusal(f"plan generation {plan.generation} has no records: enact never leaves {plan.fqdn} without addresses")


def _refuse_other_address_types(plan: Plan, live: LiveName) -> None:
    lacking = sorted({r.get("Type", "A") for r in live.records} - set(plan.types()))
    if lacking:
        stays = [r for r in live.records if r.get("Type") in lacking]
        sets = ", ".join(f"{_label(r)} ({routing_policy(r)})" for r in stays)
        raise Refusal(
            f"{plan.fqdn} also holds {'/'.join(lacking)} record sets ({sets}) and plan generation {plan.generation} has no "
            f"{'/'.join(lacking)} records: migrating only {'/'.join(plan.types())} would leave them as they are. Add the "
            "IPv6 addresses (--address 2001:db8::10@us-east-1a, or --from-load-balancers with dualstack NLBs) so every "
            "address type moves in the same batch"
        )


def _guard_change_share(plan: Plan, live: LiveName, pairing: Pairing, options: EnactOptions, notes: list[str]) -> float:
    """The share of record sets the batch changes; above ``max_change_share`` a refusal unless
    ``allow_full_change`` (then a note), and a routing-policy migration noted."""
    changed = pairing.changed
    total = len(live.records) + len(pairing.added)
    share = changed / total  # total >= 1: the plan has records, each one live (paired) or added
    policies = {routing_policy(r) for r in live.records}
    migration = bool(policies - {"multivalue"})
    if live.records and share > options.max_change_share:
        if not options.allow_full_change:
            why = (
                f"moving {plan.fqdn} from {'/'.join(sorted(policies))} to multivalue replaces every record set in one batch "
                "(Route 53 lets one name and type hold only one routing policy)"
                if migration else f"{changed} of {total} record sets would change at once"
            )
            raise Refusal(
                f"{why}: {share:.0%} changed is above --max-change-share {options.max_change_share:g}; "
                "pass --allow-full-change to apply it"
            )
        notes.append(f"{share:.0%} of the record sets change at once (--allow-full-change)")
    if migration:  # a policy other than multivalue is live, so the name has records
        notes.append(f"routing-policy migration: {'/'.join(sorted(policies))} -> multivalue in one batch")
    return share


def _judge_health(plan: Plan, pairing: Pairing, states: Iterable[tuple[int, LivePlanRecord, str, str | None]],
                  attempt: int, notes: list[str]) -> None:
    """Refuse a plan none of whose records is healthy now. A reused check deleted since it was
    found (another enactor's clean-up) becomes a new one in ``pairing``; a given check id that
    does not exist is a ``LivePlanError`` naming the record."""
    healthy = []
    for index, record, hc_id, state in states:
        if state is None and pairing.reused.pop(record.set_identifier, None) is not None:
            pairing.wanted[record.set_identifier]["HealthCheckId"] = NEW_HEALTH_CHECK.format(sid=record.set_identifier)
            pairing.to_create.append(_new_health_check(plan, record, attempt))
            continue
        if state is None:
            raise LivePlanError(f"records[{index}].health_check_id: {hc_id!r}: no such health check")
        if state != "unhealthy":
            healthy.append(hc_id)
    if not healthy and not pairing.to_create:
        raise Refusal(f"no record of plan generation {plan.generation} is healthy now (Route 53 health checks): refusing to move {plan.fqdn} onto them")
    if pairing.to_create and not healthy:
        notes.append(f"health is known for none of the records yet: {len(pairing.to_create)} health checks are new")


def _refuse_oversized(changes: list[dict[str, Any]]) -> None:
    if _batch_values(changes) > MAX_BATCH_VALUES:
        raise Refusal(f"the batch would hold {_batch_values(changes)} values, Route 53 takes at most {MAX_BATCH_VALUES} in one batch")


def _guards_met(client: Any, plan: Plan) -> list[str]:
    """What of Route 53's own guards the batch will meet (a dry run says it)."""
    from edge_origin.live.zone_guards import enabled_guardrails, features

    found = features(client, plan.zone_id)
    if found is None:
        return []
    rails = enabled_guardrails(found)
    history = (found.get("ChangeHistory") or {}).get("Status") == "ENABLED"
    return [f"Route 53 guards on the zone: guardrails {', '.join(rails) or 'none on'}; change history "
            + ("on (a lost answer is read from it)" if history else "off")]


def _protections_met(client: Any, plan: Plan, changes: list[dict[str, Any]], options: EnactOptions, notes: list[str]) -> list[Protection]:
    """Route 53's record set protections on the names and types the batch touches: refused before
    sending unless ``unprotect`` (then lifted for the batch and put back); a dry run notes them."""
    touched = sorted({(c["ResourceRecordSet"]["Name"], c["ResourceRecordSet"]["Type"]) for c in changes})
    found = protections(client, plan.zone_id, touched)
    if not found:
        return []
    shown = ", ".join(f"{p.name} {p.type}" + (f" ({p.comment})" if p.comment else "") for p in found)
    if options.dry_run:
        notes.append(f"protected by Route 53 record set protections: {shown}: enact refuses unless --unprotect")
        return []
    if not options.unprotect:
        raise Refusal(f"protected by Route 53 record set protections: {shown}: remove the protection or pass --unprotect")
    return found


def _raise(exc: BaseException) -> None:
    raise exc


def _result(prepared: Prepared, status: str) -> EnactResult:
    return EnactResult(
        status=status, name=prepared.plan.fqdn, hosted_zone_id=prepared.plan.zone_id,
        generation=prepared.plan.generation, live_generation=prepared.live.live_generation,
        change_batch=prepared.change_batch(), health_checks_to_create=prepared.health_checks_to_create,
        added=prepared.added, modified=prepared.modified, removed=prepared.removed, kept=prepared.kept,
        change_share=prepared.change_share, notes=list(prepared.notes),
    )


def create_health_checks(client: Any, prepared: Prepared) -> dict[str, str]:
    """Create (or find again) the plan's missing health checks; fill their ids into the batch; tag
    them, and re-tag the checks the plan takes up again, with this generation (another enactor's
    clean-up deletes only checks of generations below the live one). A check deleted since
    planning, or a reference Route 53 will not take again, is a lost race: plan again."""
    created: dict[str, str] = {}
    plan = prepared.plan
    try:
        for spec in prepared.health_checks_to_create:
            hc = _before_send(
                lambda spec=spec: _race_on_deleted(lambda: client.create_health_check(
                    CallerReference=spec["CallerReference"], HealthCheckConfig=spec["HealthCheckConfig"])),
                f"create_health_check for {spec['set_identifier']}",
            )
            created[spec["set_identifier"]] = hc["HealthCheck"]["Id"]
        for sid, hc_id in [*created.items(), *prepared.reused_health_checks.items()]:
            _before_send(lambda hc_id=hc_id: _race_on_deleted(lambda: tag_owned(client, hc_id, plan.name, plan.generation)),
                         f"change_tags_for_resource for {sid}")
    except _DeletedMeanwhile as gone:
        fresh = _before_send(lambda: read_name(client, plan.zone_id, plan.name, prepared.live.zone_name), "reading the name")
        raise _LostRace(f"a health check was deleted while this plan waited ({gone})", fresh) from None
    for change in prepared.changes:
        rr = change["ResourceRecordSet"]
        placeholder = rr.get("HealthCheckId", "")
        if change["Action"] == "CREATE" and placeholder.startswith("<"):
            rr["HealthCheckId"] = created[rr["SetIdentifier"]]
    return created


class _DeletedMeanwhile(Exception):
    pass


def _race_on_deleted(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except botocore.exceptions.ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        if code in ("NoSuchHealthCheck", "HealthCheckAlreadyExists"):
            raise _DeletedMeanwhile(_aws_error(exc)[0]) from None
        raise


# --- sending and deciding what happened ----------------------------------------------------
# botocore's standard retry mode resends these (botocore/retries/standard.py); after the last
# attempt they leave the outcome to the re-read, never to a guess.
TRANSIENT_CODES = frozenset({
    "Throttling", "ThrottlingException", "RequestLimitExceeded", "PriorRequestNotComplete",
    "RequestTimeout", "RequestTimeoutException", "InternalError", "InternalFailure", "ServiceUnavailable",
})
# What a boto3 call raises when AWS (or what stands in front of it) answers with an error, no
# answer, or an answer botocore cannot parse (an HTML 500 page: ResponseParserError is not a
# BotoCoreError).
AWS_ERRORS = (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError, botocore.parsers.ResponseParserError)
# Route 53 refuses a batch whose DELETE no longer matches with these (a lost race or a lost answer).
REFUSED_BATCH_CODES = frozenset({"InvalidChangeBatch", "InvalidInput"})


def _aws_error(exc: BaseException) -> tuple[str, bool]:
    """One line for an AWS error, and whether it may pass on its own."""
    if isinstance(exc, botocore.exceptions.ClientError):
        err = exc.response.get("Error", {})
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        code = err.get("Code") or f"HTTP {status}"
        text = redact(f"{code}: {err.get('Message') or ''}".rstrip(": "))
        return text, code in TRANSIENT_CODES or (status or 0) >= 500
    return redact(" ".join(str(exc).split())), True


# Not an outcome but the setup (exit 2 in the CLI, raised as botocore raises them): an endpoint
# that cannot be reached or is not AWS, no credentials, a request botocore refuses to send.
SETUP_ERRORS = (botocore.exceptions.EndpointConnectionError, botocore.exceptions.NoCredentialsError,
                botocore.exceptions.ParamValidationError, UnreadableResponse)


def _before_send(fn: Callable[[], Any], what: str) -> Any:
    """Run a step before the batch is sent: an AWS error there means nothing changed."""
    try:
        return fn()
    except SETUP_ERRORS:
        raise
    except NameStateError as exc:
        raise TransientFailure(f"{what}: {exc}") from None
    except AWS_ERRORS as exc:
        text, transient = _aws_error(exc)
        cls = TransientFailure if transient else EnactFailed
        raise cls(f"{what}: {text} (before the batch was sent: nothing changed)") from None


def show_command(plan: Plan) -> str:
    return f"edge-origin plan show --name {plan.name.rstrip('.')} --zone-id {plan.zone_id}"


def is_this_plan(live: LiveName, plan: Plan) -> bool:
    g = live.generation
    return g is not None and g.number == plan.generation and g.digest == plan.digest()


def superseded_this_plan(live: LiveName, plan: Plan) -> bool:
    """A later batch replaced this plan's generation (its record names this plan as previous)."""
    g = live.generation
    return g is not None and g.previous == plan.generation and g.previous_digest == plan.digest()


def judge(fresh: LiveName, prepared: Prepared) -> str:
    """What the re-read says about the batch: ``applied`` (the generation record holds this
    plan's digest, or names it as the previous one), ``not-applied`` (the state read before),
    ``other-writer`` (another edge-origin generation landed instead) or ``unknown``."""
    if is_this_plan(fresh, prepared.plan) or superseded_this_plan(fresh, prepared.plan):
        return "applied"
    if _same_state(fresh, prepared.live):
        return "not-applied"
    if fresh.generation is not None and fresh.generation_record != prepared.live.generation_record:
        return "other-writer"
    return "unknown"


def submit(client: Any, prepared: Prepared, options: EnactOptions, *,
           sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
           journal: Journal | None = None) -> EnactResult:
    """Create health checks, re-check health, send the batch; after any error once it may have
    been sent, re-read the name and decide (``judge``); wait for INSYNC; read the name back.
    ``journal``: the plan store's write-ahead entries (intent before the batch, the outcome after).
    SIGINT, SIGTERM or the deadline (``Stop``, ``KeyboardInterrupt``) once the batch may have been
    sent: read the name back and raise ``Interrupted``."""
    result = _result(prepared, "applied")
    result.health_checks_created = create_health_checks(client, prepared)
    plan = prepared.plan
    ids = [c["ResourceRecordSet"]["HealthCheckId"] for c in prepared.changes
           if c["Action"] == "CREATE" and c["ResourceRecordSet"]["Type"] in ADDRESS_TYPES]
    kept_ids = [r["HealthCheckId"] for r in prepared.kept_records]
    states = _before_send(lambda: [health_state(client, hc) for hc in ids + kept_ids], "get_health_check_status")
    if not any(state in ("healthy", "pending") for state in states):
        if None in states:  # a check of this plan deleted meanwhile (a newer plan's clean-up): plan again
            fresh = _before_send(lambda: read_name(client, plan.zone_id, plan.name, prepared.live.zone_name), "reading the name")
            raise _LostRace("a health check of this plan was deleted while it waited", fresh)
        raise Refusal(f"no record of plan generation {plan.generation} is healthy now (Route 53 health checks): refusing to move {plan.fqdn} onto them")
    if journal is not None:
        journal.intent()  # written ahead: a kill from here on leaves the intent for the next run
    steps.reach("before-send")
    if not prepared.protected:
        try:
            return _send_and_settle(client, prepared, options, result, journal, sleep=sleep, clock=clock)
        except (Stop, KeyboardInterrupt) as stop:
            raise _interrupted(client, prepared, result, stop, journal) from None
    return _unprotected_send(client, prepared, options, result, journal, sleep=sleep, clock=clock)


def _unprotected_send(client: Any, prepared: Prepared, options: EnactOptions, result: EnactResult, journal: Journal | None, *,
                      sleep: Callable[[float], None], clock: Callable[[], float]) -> EnactResult:
    """``--unprotect``: delete the protections, send, put them back on EVERY path out (success,
    refusal, unknown, interrupt, deadline); the window the name was unprotected is reported."""
    plan = prepared.plan
    if journal is not None:
        note_lifted(journal.folder, plan.zone_id, prepared.protected)  # a kill from here on: the next run puts them back
    try:
        _before_send(lambda: set_protections(client, plan.zone_id, prepared.protected, on=False), "delete_resource_record_set_protections")
    except BaseException:
        note = _reprotect(client, prepared, clock, None)
        if journal is not None and not note.startswith("PROTECTION NOT RESTORED"):
            clear_lifted(journal.folder)  # in place again (or never lifted): nothing for the next run to put back
        raise _with_note(sys.exc_info()[1], note) from None
    lifted_at = clock()
    failure: BaseException | None = None
    try:
        outcome = _send_and_settle(client, prepared, options, result, journal, sleep=sleep, clock=clock)
    except (Stop, KeyboardInterrupt) as stop:
        failure = _interrupted(client, prepared, result, stop, journal)
    except BaseException as exc:  # noqa: BLE001 - re-raised below, after the protections are back
        failure = exc
    note = _reprotect(client, prepared, clock, lifted_at)
    if journal is not None and not note.startswith("PROTECTION NOT RESTORED"):
        clear_lifted(journal.folder)
    if failure is not None:
        if isinstance(failure, _LostRace):  # planned again or refused as stale by enact: the note goes on with it
            failure.notes.append(note)
        raise _with_note(failure, note)
    outcome.notes.append(note)
    return outcome


def _with_note(exc: BaseException | None, note: str) -> BaseException:
    assert exc is not None
    if exc.args and isinstance(exc.args[0], str):
        exc.args = (f"{exc.args[0]}; {note}", *exc.args[1:])
    return exc


def _reprotect(client: Any, prepared: Prepared, clock: Callable[[], float], lifted: float | None) -> str:
    """Put the protections back (three tries, shielded from a second interrupt); the note to report."""
    plan = prepared.plan
    shown = ", ".join(f"{p.name} {p.type}" for p in prepared.protected)
    last = ""
    in_place = False
    for _ in range(3):
        try:
            set_protections(client, plan.zone_id, prepared.protected, on=True)
        except botocore.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ProtectionAlreadyExists":
                in_place = True
                break
            last = _aws_error(exc)[0]
            continue
        except (*AWS_ERRORS, Stop, KeyboardInterrupt) as exc:
            last = str(exc) if isinstance(exc, Stop) else _aws_error(exc)[0] if not isinstance(exc, KeyboardInterrupt) else "interrupted"
            continue
        break
    else:
        # Every put-back refused: read what Route 53 holds before saying so. A lift that was refused
        # (AccessDenied on the delete) left the protections in place; only those missing are reported.
        held = protections(client, plan.zone_id, [(p.name, p.type) for p in prepared.protected])
        missing = prepared.protected if held is None else [
            p for p in prepared.protected if (fqdn(p.name), p.type) not in {(h.name, h.type) for h in held}]
        if not missing:
            return f"record set protections still in place (the put-back was refused: {last}): {shown}"
        keys = " ".join(f"RecordName={p.name},RecordType={p.type}" for p in missing)
        unread = "" if held is not None else "; ListResourceRecordSetProtections could not tell which are in place"
        return (f"PROTECTION NOT RESTORED on {', '.join(f'{p.name} {p.type}' for p in missing)} ({last}{unread}): run aws "
                f"route53 create-resource-record-set-protections --hosted-zone-id {plan.zone_id} --protections {keys}")
    if lifted is None:  # the lift itself failed: say what the put-back found
        if in_place:
            return f"record set protections still in place (the lift was refused): {shown}"
        return f"record set protections put back after a lift that failed: {shown}"
    return f"record set protections lifted for the batch for {clock() - lifted:.1f} s and put back: {shown}"


def _send_and_settle(client: Any, prepared: Prepared, options: EnactOptions, result: EnactResult, journal: Journal | None, *,
                     sleep: Callable[[float], None], clock: Callable[[], float]) -> EnactResult:
    """From the batch on: send it, decide, wait, read back, record the outcome, clean up."""
    plan = prepared.plan
    prepared.sent_at = datetime.now(UTC)
    try:
        info = client.change_resource_record_sets(HostedZoneId=plan.zone_id, ChangeBatch=prepared.change_batch())["ChangeInfo"]
    except AWS_ERRORS as exc:
        try:
            settled = _after_error(client, prepared, result, exc)
        except NotApplied as failed:
            _record(journal, "not-applied", [str(failed)])
            raise
        except OutcomeUnknown as unknown:
            _record(journal, "unknown", [str(unknown)])
            raise
        except _LostRace as race:
            landed = race.landed(prepared.live.live_generation)
            _record(journal, "not-applied", [race.cause if landed is None else f"another writer's generation {landed} landed: {race.cause}"])
            raise
        _record(journal, "applied", settled.notes)
        _clean_health_checks(client, prepared, options, settled)
        return settled
    steps.reach("after-send")
    result.change_id = info["Id"]
    if journal is not None:
        journal.sent(info["Id"])
    try:
        result.insync = wait_insync(client, info, options.wait_s, sleep=sleep, clock=clock)
    except AWS_ERRORS as exc:
        result.insync = None
        result.notes.append(f"applied; INSYNC not confirmed: get_change {info['Id']}: {_aws_error(exc)[0]}")
    if result.insync is False and options.wait_s > 0:
        result.notes.append(f"change {info['Id']} applied but not INSYNC after {options.wait_s:g} s")
    _read_back(client, prepared, result)
    _record(journal, "applied", result.notes)
    _clean_health_checks(client, prepared, options, result)
    return result


def _record(journal: Journal | None, state: str, notes: list[str]) -> None:
    if journal is not None:
        journal.outcome(state, notes)


def _clean_health_checks(client: Any, prepared: Prepared, options: EnactOptions, result: EnactResult) -> None:
    """Once the plan is live and read back as planned: delete the checks this name owns that no
    record uses (``health_owner.clean_owned``), unless ``keep_health_checks``."""
    if options.keep_health_checks or result.read_back != "matches":
        return
    try:
        plan = prepared.plan
        deleted, notes = clean_owned(client, plan.name, plan.generation, still_live=lambda: read_name(
            client, plan.zone_id, plan.name, prepared.live.zone_name).live_generation == plan.generation)
    except (*AWS_ERRORS, PagingError) as exc:
        text = exc if isinstance(exc, PagingError) else _aws_error(exc)[0]
        result.notes.append(f"unused health checks not cleaned ({text}); the plan is applied")
        return
    result.health_checks_deleted = deleted
    result.notes.extend(notes)
    if deleted:
        result.notes.append(f"deleted {len(deleted)} health check(s) this name owned that no record uses (--keep-health-checks keeps them)")


INTERRUPT_OUTCOMES = {
    "applied": "applied: generation {gen} of this plan is live{change}",
    "not-applied": "not applied: the name holds the state read before{change}",
    "other-writer": "not applied: another writer's generation {live} is live",
}


def _interrupted(client: Any, prepared: Prepared, result: EnactResult, stop: BaseException, journal: Journal | None) -> Interrupted:
    """A stop once the batch may have been sent: read the name back (a short grace of its own),
    record what is known, and say it."""
    plan = prepared.plan
    what = str(stop) if isinstance(stop, Stop) else "interrupted (KeyboardInterrupt)"
    guard = active_guard()
    if guard is not None:
        guard.grace()
    verdict: str | None = None
    fresh = None
    try:
        steps.reach("during-read-back")
        fresh = read_name(client, plan.zone_id, plan.name, prepared.live.zone_name)
        verdict = judge(fresh, prepared)
        if verdict == "unknown":
            verdict = None
        if journal is not None:
            journal.outcome({"applied": "applied", None: "unknown"}.get(verdict, "not-applied"), [what])
    except (Stop, KeyboardInterrupt, *AWS_ERRORS, PagingError, NameStateError, OSError, LivePlanError):
        pass
    finally:
        if guard is not None:
            guard.disarm()
    change = f" (change {result.change_id})" if result.change_id else ""
    if verdict is None:
        found = "the read-back did not finish: outcome unknown" if fresh is None else \
            f"read back: {plan.fqdn} holds neither this plan nor the state read before (generation {fresh.live_generation}): outcome unknown"
    else:
        found = "read back: " + INTERRUPT_OUTCOMES[verdict].format(gen=plan.generation, change=change, live=fresh.live_generation if fresh else "?")
    return Interrupted(f"{what} after the batch may have been sent; {found}", show_command(plan), verdict, result.change_id)


def _after_error(client: Any, prepared: Prepared, result: EnactResult, exc: BaseException) -> EnactResult:
    """The batch call failed: re-read the name and return (applied) or raise what happened."""
    plan = prepared.plan
    cause, transient = _aws_error(exc)
    code = exc.response.get("Error", {}).get("Code") if isinstance(exc, botocore.exceptions.ClientError) else None
    logged = _history_verdict(client, prepared)  # a resend refused after the first copy landed is the usual case
    if logged is not None and logged[0] == "applied":
        result.change_id, result.insync = f"/change/{logged[1]}", None
        result.notes.append(f"the answer to the batch was lost ({cause}); Route 53's change history holds it "
                            f"(change {logged[1]}, GetHostedZoneChangeBatch): applied")
        _read_back(client, prepared, result)
        return result
    try:
        fresh = read_name(client, plan.zone_id, plan.name, prepared.live.zone_name)
    except (*AWS_ERRORS, PagingError) as reread:
        text = reread if isinstance(reread, PagingError) else _aws_error(reread)[0]
        if logged is not None:  # the history says not applied: nothing of ours changed
            raise TransientFailure(f"change_resource_record_sets: {cause}; Route 53's change history holds no such batch: "
                                   f"not applied (the name could not be read back: {text}); safe to run the same plan again") from None
        raise OutcomeUnknown(f"change_resource_record_sets failed ({cause}) and the name could not be read back ({text})",
                             show_command(plan)) from None
    verdict = judge(fresh, prepared)
    if verdict == "not-applied" and code in REFUSED_BATCH_CODES:
        if (guardrail := guardrail_named(cause)) is not None:
            raise EnactFailed(f"refused by Route 53's guardrail {guardrail}, nothing applied ({cause})") from None
        if "protect" in cause.lower():
            raise EnactFailed(f"refused: a Route 53 record set protection covers the batch (made after enact looked), nothing applied "
                              f"({cause}): remove the protection or pass --unprotect") from None
    if verdict == "applied":
        result.insync = None
        result.notes.append(
            f"the answer to the batch was lost ({cause}); re-read: the generation record holds this plan's digest, "
            "so the batch is applied; INSYNC not confirmed (no change id)"
        )
        _read_back(client, prepared, result, fresh)
        return result
    if verdict == "not-applied" and code == "NoSuchHealthCheck":
        raise _LostRace(f"a health check of this plan was deleted while it waited ({cause})", fresh)  # plan again
    if verdict == "not-applied":
        if code in REFUSED_BATCH_CODES or not transient:
            raise EnactFailed(f"Route 53 refused the batch: {cause} (re-read: the name holds the state read before; nothing changed)") from None
        raise TransientFailure(f"change_resource_record_sets: {cause}; re-read: the name holds the state read before, "
                               "nothing changed: safe to run the same plan again") from None
    if verdict == "other-writer":
        raise _LostRace(cause, fresh)
    if logged is not None:
        raise EnactFailed(f"change_resource_record_sets failed ({cause}); Route 53's change history holds no such batch: not applied "
                          f"(the name changed meanwhile: generation {fresh.live_generation})") from None
    raise OutcomeUnknown(
        f"change_resource_record_sets failed ({cause}); re-read: {fresh.name} holds neither generation {plan.generation} "
        f"of this plan nor the state read before it (generation {fresh.live_generation})", show_command(plan)) from None


def _history_verdict(client: Any, prepared: Prepared) -> tuple[str, str | None] | None:
    """Route 53's change history on a batch whose answer was lost (None: no history here)."""
    if prepared.sent_at is None or not history_enabled(client, prepared.plan.zone_id):
        return None
    return outcome_from_history(client, prepared.plan.zone_id, _comment(prepared.plan), prepared.sent_at, len(prepared.changes))


def _expected_records(prepared: Prepared) -> dict[str, tuple[Any, ...]]:
    wanted = [c["ResourceRecordSet"] for c in prepared.changes
              if c["Action"] == "CREATE" and c["ResourceRecordSet"]["Type"] in ADDRESS_TYPES] + prepared.kept_records
    return {_label(r): _record_shape(r) for r in wanted}


def _label(record: dict[str, Any]) -> str:
    """A record set's name in messages: its set identifier, with the type when it is not A."""
    sid = str(record.get("SetIdentifier") or "(simple)")
    return sid if record.get("Type", "A") == "A" else f"{sid} ({record['Type']})"


def _record_shape(r: dict[str, Any]) -> tuple[Any, ...]:
    return (r.get("Type"), routing_policy(r), r.get("TTL"), tuple(sorted(v["Value"] for v in r.get("ResourceRecords") or [])), r.get("HealthCheckId"))


def read_back(fresh: LiveName, prepared: Prepared) -> list[str]:
    """How the name as read now departs from the plan (empty: exactly the plan's records)."""
    plan = prepared.plan
    notes = []
    if not is_this_plan(fresh, plan):
        notes.append(f"read back: live generation is now {fresh.live_generation} (another batch landed after this one)")
        return notes
    want = _expected_records(prepared)
    have: dict[str, list[tuple[Any, ...]]] = {}
    for r in fresh.records:
        have.setdefault(_label(r), []).append(_record_shape(r))
    extra = sorted(sid for sid in have if sid not in want)
    missing = sorted(sid for sid in want if sid not in have)
    differ = sorted(sid for sid in want if sid in have and have[sid] != [want[sid]])
    if extra:
        notes.append(f"read back: {fresh.name} also holds record sets this plan does not: {', '.join(extra)} "
                     "(another writer's batch landed beside this one; Route 53 refuses that, moto does not)")
    if missing:
        notes.append(f"read back: record sets of this plan missing: {', '.join(missing)}")
    if differ:
        notes.append(f"read back: record sets that differ from the plan: {', '.join(differ)}")
    return notes


def _read_back(client: Any, prepared: Prepared, result: EnactResult, fresh: LiveName | None = None) -> None:
    if fresh is None:
        steps.reach("during-read-back")
        try:
            fresh = read_name(client, prepared.plan.zone_id, prepared.plan.name, prepared.live.zone_name)
        except (*AWS_ERRORS, PagingError) as exc:
            result.read_back = "not read"
            text = exc if isinstance(exc, PagingError) else _aws_error(exc)[0]
            result.notes.append(f"read back failed ({text}): the batch is applied; check with {show_command(prepared.plan)}")
            return
    problems = read_back(fresh, prepared)
    result.read_back = "differs" if problems else "matches"
    result.notes.extend(problems)


class _LostRace(Exception):
    def __init__(self, cause: str, fresh: LiveName) -> None:
        self.cause, self.fresh = cause, fresh
        self.notes: list[str] = []  # what the attempt that lost has to say (--unprotect: the protections' note)
        super().__init__(cause)

    def landed(self, read_generation: int) -> int | None:
        """The generation another writer applied while this plan waited; None when the live generation is
        still the one read before (the race was a health check deleted meanwhile: :attr:`cause` says so)."""
        live = self.fresh.live_generation
        return None if live == read_generation else live


def wait_insync(client: Any, info: dict[str, Any], wait_s: float, *,
                sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> bool:
    """Poll ``get_change`` with exponential backoff (0.5 s doubling, at most 8 s a wait) up to ``wait_s``."""
    if info.get("Status") == "INSYNC":
        return True
    if wait_s <= 0:
        return False
    deadline = clock() + wait_s
    delay = 0.5
    while True:
        steps.reach("during-wait")
        status = client.get_change(Id=info["Id"])["ChangeInfo"]["Status"]
        if status == "INSYNC":
            return True
        remaining = deadline - clock()
        if remaining <= 0:
            return False
        sleep(min(delay, remaining))
        delay = min(delay * 2, 8.0)


def enact(client: Any, plan: Plan, options: EnactOptions | None = None, *,
          sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
          after_read: Callable[[Prepared], None] | None = None, journal: Journal | None = None) -> EnactResult:
    """Apply ``plan`` (see the module docstring). Returns an ``EnactResult`` (applied, no-op,
    dry-run), raises ``NotApplied`` (``Refusal``/``StalePlan``/``EnactFailed``: nothing changed;
    ``TransientFailure``: nothing changed, safe to retry) or ``OutcomeUnknown`` (``Interrupted``:
    a stop once the batch may have been sent). ``after_read`` runs between read and send (tests);
    ``journal`` (``PlanStore.journal(plan)``) gets the write-ahead entries. A ``Stop`` before the
    batch is sent propagates, saying nothing was sent."""
    carried: list[str] = []  # notes of attempts that lost a race (--unprotect: what became of the protections)
    try:
        result = _enact(client, plan, options, sleep=sleep, clock=clock, after_read=after_read, journal=journal, carried=carried)
    except Stop as stop:
        raise Stop(stop.kind, f"{stop} (before the batch was sent: nothing changed)" + "".join(f"; {n}" for n in carried)) from None
    except BaseException as exc:
        for note in carried:
            _with_note(exc, note)
        raise
    result.notes[:0] = carried
    return result


def _enact(client: Any, plan: Plan, options: EnactOptions | None, *, sleep: Callable[[float], None], clock: Callable[[], float],
           after_read: Callable[[Prepared], None] | None, journal: Journal | None, carried: list[str]) -> EnactResult:
    options = options or EnactOptions()
    zone = _before_send(lambda: zone_name(client, plan.zone_id), "get_hosted_zone")
    attempts = 0
    last_race = ""
    while True:
        attempts += 1
        prepared = _before_send(lambda n=attempts: prepare(client, plan, options, zone=zone, attempt=n), "reading the name")
        if prepared.noop:
            result = _result(prepared, "no-op")
            result.attempts = attempts
            return result
        if options.dry_run:
            result = _result(prepared, "dry-run")
            result.notes.extend(_guards_met(client, plan))
            if prepared.health_checks_to_create:
                result.notes.append(
                    "HealthCheckId values in <...> are placeholders for the health checks in health_checks_to_create"
                )
            return result
        if after_read is not None:
            after_read(prepared)
        try:
            result = submit(client, prepared, options, sleep=sleep, clock=clock, journal=journal)
        except _LostRace as race:
            carried.extend(race.notes)
            fresh = race.fresh
            if plan.generation <= fresh.live_generation:
                raise StalePlan(fresh.live_generation) from None
            landed = race.landed(prepared.live.live_generation)
            last_race = race.cause if landed is None else f"generation {landed} was applied while this plan waited"
            if attempts > options.retries:
                raise Refusal(f"lost {attempts} races in a row ({last_race}); not retrying further") from None
            continue
        result.attempts = attempts
        if attempts > 1:
            result.notes.append(f"planned again {attempts - 1} time(s) from fresh reads ({last_race})")
        return result


def _same_state(a: LiveName, b: LiveName) -> bool:
    return a.generation_record == b.generation_record and sorted(map(_key, a.records)) == sorted(map(_key, b.records))


def _key(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, default=str)


# --- plan store and clean-up -------------------------------------------------------------------
class PlanStore:
    """Applied plans on disk, one file a generation: ``<dir>/<name>/<generation>.json``."""

    def __init__(self, directory: str | Path) -> None:
        self.given = str(directory)
        self.directory = Path(directory)

    def check_writable(self, name: str | None = None, generation: int | None = None) -> None:
        """LivePlanError unless the store directory (and ``name``'s folder in it, when given) exists or
        can be made, and is writable: checked before the batch, so a bad store never follows an apply."""
        if not self.given.strip() or "\x00" in self.given:
            raise LivePlanError(f"--plan-store {self.given!r}: not a usable folder name")
        shown = shown_path(self.given)
        try:
            exists_not_folder = self.directory.exists() and not self.directory.is_dir()
            if not exists_not_folder:
                self.directory.mkdir(parents=True, exist_ok=True)
        except (OSError, ValueError) as exc:
            raise LivePlanError(f"--plan-store {shown}: cannot create ({getattr(exc, 'strerror', None) or exc})") from None
        if exists_not_folder:
            raise LivePlanError(f"--plan-store {shown}: exists and is not a folder")
        if not os.access(self.directory, os.W_OK | os.X_OK):
            raise LivePlanError(f"--plan-store {shown}: not writable")
        if name is not None:
            folder = self._dir(name)
            if folder.exists() and not folder.is_dir():
                raise LivePlanError(f"--plan-store {shown}: {shown_path(folder)} exists and is not a folder")
            if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
                raise LivePlanError(f"--plan-store {shown}: {shown_path(folder)} is not writable")
            target = folder / f"{generation}.json"
            if generation is not None and (target.exists() or target.is_symlink()) and not target.is_file():
                raise LivePlanError(f"--plan-store {shown}: {shown_path(target)} exists and is not a regular file")

    def _dir(self, name: str) -> Path:
        return self.directory / name.lower().rstrip(".")

    def save(self, plan: Plan) -> Path:
        return write_plan_file(self._dir(plan.name), plan)

    def journal(self, plan: Plan) -> Journal:
        """The write-ahead entries of ``plan`` (``edge_origin.live.plan_journal``)."""
        return Journal(self._dir(plan.name), plan)

    def reconcile(self, client: Any, zone_id: str, name: str) -> list[str]:
        """Make the store agree with Route 53 for ``name`` (``plan_journal.reconcile``): notes."""
        live = read_name(client, zone_id, name)
        folder = self._dir(name)
        if not folder.is_dir() and live.generation is None:
            return []
        return self._put_back(client, folder) + reconcile(folder, live, zone_id)

    @staticmethod
    def _put_back(client: Any, folder: Path) -> list[str]:
        """Protections a run lifted (``--unprotect``) and never put back (it was killed): put them back."""
        found = lifted(folder)
        if found is None:
            return []
        zone_id, items = found
        try:
            set_protections(client, zone_id, items, on=True)
        except botocore.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ProtectionAlreadyExists":
                return [f"plan store: record set protections a stopped run lifted could not be put back ({_aws_error(exc)[0]})"]
        clear_lifted(folder)
        return ["plan store: record set protections a stopped run lifted were put back: "
                + ", ".join(f"{p.name} {p.type}" for p in items)]

    def state(self, name: str, generation: int) -> dict[str, Any] | None:
        from edge_origin.live.plan_journal import read_state

        return read_state(self._dir(name), generation)

    def generations(self, name: str) -> list[int]:
        # glob finds nothing in a folder that does not exist (or is a file): no plans
        return sorted(int(p.stem) for p in self._dir(name).glob("*.json") if p.stem.isdigit() and p.is_file())

    def load(self, name: str, generation: int) -> Plan:
        return load_plan(self._dir(name) / f"{generation}.json")

    def cleanup(self, client: Any, zone_id: str, name: str, keep: int = 2) -> list[int]:
        """Delete stored plans older than the newest ``keep``, re-reading the live generation
        first: the live generation and the one before it are never deleted, nor anything newer."""
        live = read_name(client, zone_id, name)
        protected = {live.live_generation}
        if live.generation is not None and live.generation.previous is not None:
            protected.add(live.generation.previous)
        stored = self.generations(name)
        newest = set(stored[-keep:]) if keep > 0 else set()
        removed = []
        for gen in stored:
            if gen in protected or gen in newest or gen > live.live_generation:
                continue
            (self._dir(name) / f"{gen}.json").unlink(missing_ok=True)
            state_path(self._dir(name), gen).unlink(missing_ok=True)
            removed.append(gen)
        oldest_kept = min([g for g in stored if g not in removed] or [live.live_generation])
        for gen in state_generations(self._dir(name)):  # entries of plans never applied, older than every kept plan
            if gen < oldest_kept and gen not in protected and not (self._dir(name) / f"{gen}.json").exists():
                state_path(self._dir(name), gen).unlink(missing_ok=True)
        return removed


# --- least privilege ---------------------------------------------------------------------------
def iam_policy(zone_id: str, name: str) -> dict[str, Any]:
    """The IAM policy enact needs for one name (``docs/iam/enact-policy.json`` is this for
    ``Z1234567890ABC`` / ``origin.example.com``). Names are normalized as the
    ``route53:ChangeResourceRecordSetsNormalizedRecordNames`` key wants: lower case, no trailing dot."""
    from edge_origin.live.name_state import generation_name

    zone_arn = f"arn:aws:route53:::hostedzone/{zone_id.removeprefix('/hostedzone/')}"
    names = [canonical_name(name), generation_name(name).rstrip(".")]
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "ReadTheZone", "Effect": "Allow",
             "Action": ["route53:GetHostedZone", "route53:ListResourceRecordSets"], "Resource": zone_arn},
            {"Sid": "RouteFiftyThreesOwnGuards", "Effect": "Allow",
             "Action": ["route53:ListResourceRecordSetProtections", "route53:ListHostedZoneChangeBatches",
                        "route53:GetHostedZoneChangeBatch", "route53:DeleteResourceRecordSetProtections",
                        "route53:CreateResourceRecordSetProtections"], "Resource": zone_arn},
            {"Sid": "ChangeOnlyTheOriginNameAndItsGenerationRecord", "Effect": "Allow",
             "Action": "route53:ChangeResourceRecordSets", "Resource": zone_arn,
             "Condition": {"ForAllValues:StringEquals": {
                 "route53:ChangeResourceRecordSetsNormalizedRecordNames": names,
                 "route53:ChangeResourceRecordSetsRecordTypes": ["A", "AAAA", "TXT"],
                 "route53:ChangeResourceRecordSetsActions": ["CREATE", "DELETE"],
             }}},
            {"Sid": "WaitForInsync", "Effect": "Allow", "Action": "route53:GetChange", "Resource": "arn:aws:route53:::change/*"},
            {"Sid": "HealthChecksOfThePlan", "Effect": "Allow",
             "Action": ["route53:ListHealthChecks", "route53:CreateHealthCheck", "route53:GetHealthCheckStatus",
                        "route53:ChangeTagsForResource", "route53:ListTagsForResource", "route53:ListTagsForResources",
                        "route53:DeleteHealthCheck"], "Resource": "*"},
            {"Sid": "NoRecordAnywhereUsesACheckBeforeItIsDeleted", "Effect": "Allow",
             "Action": ["route53:ListHostedZones", "route53:ListResourceRecordSets"], "Resource": "*"},
        ],
    }
