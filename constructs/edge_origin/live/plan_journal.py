"""The plan store's write-ahead journal, and how any run brings the store back to Route 53's truth.

Beside each applied plan ``<dir>/<name>/<G>.json`` the store keeps ``<G>.state.json``:
``{"generation", "digest", "state", "change_id", "updated", "notes", "plan"}``. The change
engine writes it AHEAD: ``intent`` (with the whole plan) before the batch is sent, ``sent`` with
the change id once Route 53 answered, then the outcome: ``applied`` (and the plan file),
``not-applied`` or ``unknown``. Every write is a temporary file renamed over the old one, so a
kill at any point leaves the old file or the new one, never half of one.

``reconcile`` (run by every ``enact`` with ``--plan-store``, before it reads anything else)
reads the name and makes the store agree with it: the live generation (and the previous one the
generation record names) is recorded as applied, from its journal entry (with the change id when
one was recorded) or, with no entry, from the records Route 53 holds; an entry left at
``intent``/``sent``/``unknown`` whose generation is not live is settled (``not-applied`` when it
is above the live one, ``not-live`` when below: superseded, or never applied).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge_origin.core.files import load_data_file
from edge_origin.live import steps
from edge_origin.live.plans import LivePlanRecord, Plan, loads_plan
from edge_origin.live.redact import redact

PENDING = ("intent", "sent", "unknown")
STALE_TEMP_S = 600.0


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        steps.reach("during-store-write")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def state_path(folder: Path, generation: int) -> Path:
    return folder / f"{generation}.state.json"


def read_state(folder: Path, generation: int) -> dict[str, Any] | None:
    try:
        data = load_data_file(state_path(folder, generation))  # the one safe reader: a regular file, bounded
    except (OSError, ValueError):  # InputFileError is a ValueError
        return None
    return data if isinstance(data, dict) else None


def state_generations(folder: Path) -> list[int]:
    out = []
    for p in folder.glob("*.state.json"):
        stem = p.name.removesuffix(".state.json")
        if stem.isdigit() and p.is_file():
            out.append(int(stem))
    return sorted(out)


def write_state(folder: Path, plan: Plan, state: str, change_id: str | None = None, notes: list[str] | None = None) -> None:
    entry = {
        "generation": plan.generation, "digest": plan.digest(), "state": state, "change_id": change_id,
        "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "notes": [redact(n) for n in notes or []], "plan": plan.to_json(),
    }
    atomic_write(state_path(folder, plan.generation), json.dumps(entry, indent=2, sort_keys=True) + "\n")


def write_plan_file(folder: Path, plan: Plan) -> Path:
    path = folder / f"{plan.generation}.json"
    text = plan.dumps()
    loads_plan(text, str(path))  # what is written can be read back
    atomic_write(path, text)
    return path


@dataclass
class Journal:
    """The write-ahead entries of one plan (``PlanStore.journal(plan)``)."""

    folder: Path
    plan: Plan
    change_id: str | None = None
    written: list[str] = field(default_factory=list)

    def intent(self) -> None:
        write_state(self.folder, self.plan, "intent")
        self.written.append("intent")

    def sent(self, change_id: str | None) -> None:
        self.change_id = change_id
        write_state(self.folder, self.plan, "sent", change_id)
        self.written.append("sent")

    def outcome(self, state: str, notes: list[str] | None = None) -> None:
        """``applied`` (the plan file first, then the entry), ``not-applied`` or ``unknown``."""
        if state == "applied":
            write_plan_file(self.folder, self.plan)
        write_state(self.folder, self.plan, state, self.change_id, notes)
        self.written.append(state)


LIFTED_FILE = "protections-lifted.json"


def note_lifted(folder: Path, zone_id: str, items: list[Any]) -> None:
    """Written BEFORE ``--unprotect`` deletes protections: a kill before they are back leaves this
    file, and the next run's ``reconcile`` puts them back."""
    body = {"zone_id": zone_id, "protections": [{"name": p.name, "type": p.type, "comment": p.comment} for p in items]}
    atomic_write(folder / LIFTED_FILE, json.dumps(body, indent=2, sort_keys=True) + "\n")


def clear_lifted(folder: Path) -> None:
    with contextlib.suppress(OSError):
        (folder / LIFTED_FILE).unlink()


def lifted(folder: Path) -> tuple[str, list[Any]] | None:
    """The protections a run lifted and did not put back (zone id, protections), if any."""
    from edge_origin.live.zone_guards import Protection

    try:
        body = load_data_file(folder / LIFTED_FILE)
        return body["zone_id"], [Protection(p["name"], p["type"], p.get("comment")) for p in body["protections"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def plan_from_records(name: str, zone_id: str, generation: int, records: list[dict[str, Any]]) -> Plan:
    """The plan a live name holds, for a generation nobody recorded (health checks by id)."""
    out = []
    ttl = 60
    for r in records:
        values = [v["Value"] for v in r.get("ResourceRecords") or []]
        if len(values) != 1 or r.get("AliasTarget"):
            continue
        ttl = int(r.get("TTL", ttl))
        out.append(LivePlanRecord(str(r.get("SetIdentifier") or values[0]), values[0], None, r.get("HealthCheckId") or None, None))
    return Plan(name.rstrip("."), zone_id, generation, ttl, tuple(out),
                comment="recorded from Route 53 by edge-origin (no plan file of this generation was found)")


def reconcile(folder: Path, live: Any, zone_id: str) -> list[str]:
    """Make the store at ``folder`` agree with ``live`` (a ``LiveName``); notes of what changed."""
    notes: list[str] = []
    gen = live.generation
    if gen is None:
        return notes
    _remove_stale_temps(folder)
    known = {gen.number: gen.digest}
    if gen.previous is not None and gen.previous_digest is not None:
        known[gen.previous] = gen.previous_digest
    for number, digest in known.items():
        entry = read_state(folder, number)
        has_plan = (folder / f"{number}.json").is_file()
        if entry is not None and entry.get("digest") == digest and entry.get("state") in PENDING:
            plan = loads_plan(json.dumps(entry["plan"]), str(state_path(folder, number)))
            if not has_plan:
                write_plan_file(folder, plan)
            write_state(folder, plan, "applied", entry.get("change_id"),
                        list(entry.get("notes") or []) + [f"reconciled: generation {number} found live in Route 53"])
            shown = f" (change {entry['change_id']})" if entry.get("change_id") else ""
            notes.append(f"plan store: generation {number} was {entry['state']} in the store and is live in Route 53: recorded as applied{shown}")
        elif not has_plan and number == gen.number and (entry is None or entry.get("digest") != digest):
            plan = plan_from_records(live.name, zone_id, number, live.records)
            if plan.records:
                write_plan_file(folder, plan)
                write_state(folder, plan, "applied", None, [
                    f"recorded from Route 53: generation {number} digest {digest} was live with no plan in the store; "
                    "change id unknown"])
                notes.append(f"plan store: generation {number} is live in Route 53 but was not recorded: recorded from the live records (change id unknown)")
    for number in state_generations(folder):
        if number in known:
            continue
        entry = read_state(folder, number)
        if entry is None or entry.get("state") not in PENDING:
            continue
        settled = "not-applied" if number > gen.number else "not-live"  # below: superseded, or never applied
        plan = loads_plan(json.dumps(entry["plan"]), str(state_path(folder, number)))
        write_state(folder, plan, settled, entry.get("change_id"), list(entry.get("notes") or []) + [
            f"reconciled: live generation is {gen.number}"])
        notes.append(f"plan store: generation {number} was {entry['state']}; live generation is {gen.number}: marked {settled}")
    return notes


def _remove_stale_temps(folder: Path) -> None:
    now = time.time()
    for tmp in folder.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            if now - tmp.stat().st_mtime > STALE_TEMP_S:
                tmp.unlink()
