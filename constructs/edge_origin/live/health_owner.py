"""Health checks the change engine owns: tagged when created, deleted when no record uses them.

Every health check ``enact`` creates carries two tags: ``edge-origin:owner`` = the name
(``origin.example.com.``) and ``edge-origin:generation`` = the plan generation that created it.
After a plan is live and its read-back matches, ``clean_owned`` deletes the checks this name
owns that (1) were created by a generation below the live one (a concurrent enactor's newer check,
made but not yet in a batch, is never touched) and (2) no record set in ANY hosted zone of the
account references, nor any CALCULATED check as a child. Route 53 itself would not stop it: "Amazon
Route 53 does not prevent you from deleting a health check even if the health check is associated
with one or more resource record sets" (API reference, DeleteHealthCheck). Route 53 bills each
check and the account quota is 200 by default, so without this a name re-planned twenty times
keeps every check it ever had.

``unused_owned`` is the read-only half: what ``edge-origin audit`` reports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import botocore.exceptions

from edge_origin.core.dns_names import fqdn as core_fqdn
from edge_origin.live.paging import list_record_sets, paginate

OWNER_TAG = "edge-origin:owner"
GENERATION_TAG = "edge-origin:generation"
TAG_BATCH = 10  # ListTagsForResources takes at most 10 ids a call


@dataclass(frozen=True)
class OwnedCheck:
    id: str
    owner: str
    generation: int
    ip: str | None = None


def tag_owned(client: Any, health_check_id: str, name: str, generation: int) -> None:
    """Tag ``health_check_id`` as created by ``enact`` for ``name`` at ``generation``."""
    client.change_tags_for_resource(
        ResourceType="healthcheck", ResourceId=health_check_id,
        AddTags=[{"Key": OWNER_TAG, "Value": _fqdn(name)}, {"Key": GENERATION_TAG, "Value": str(generation)}],
    )


def _fqdn(name: str) -> str:
    return core_fqdn(name)


def _health_checks(client: Any) -> list[dict[str, Any]]:
    return [hc for page in paginate(client, "list_health_checks") for hc in page.get("HealthChecks", [])]


def owned_checks(client: Any, name: str | None = None, checks: list[dict[str, Any]] | None = None) -> list[OwnedCheck]:
    """The health checks tagged as enact's (for ``name`` only, when given)."""
    checks = _health_checks(client) if checks is None else checks
    ips = {hc["Id"]: hc.get("HealthCheckConfig", {}).get("IPAddress") for hc in checks}
    ids = list(ips)
    out = []
    for start in range(0, len(ids), TAG_BATCH):
        answer = client.list_tags_for_resources(ResourceType="healthcheck", ResourceIds=ids[start:start + TAG_BATCH])
        for tag_set in answer.get("ResourceTagSets", []):
            tags = {t["Key"]: t.get("Value", "") for t in tag_set.get("Tags", [])}
            owner = tags.get(OWNER_TAG)
            if owner is None or (name is not None and owner != _fqdn(name)):
                continue
            gen = tags.get(GENERATION_TAG, "")
            out.append(OwnedCheck(tag_set["ResourceId"], owner, int(gen) if gen.isdigit() else 0, ips.get(tag_set["ResourceId"])))
    return sorted(out, key=lambda c: (c.owner, c.generation, c.id))


def referenced_ids(client: Any, checks: Iterable[dict[str, Any]]) -> set[str]:
    """Health check ids some record set of some hosted zone references, or a CALCULATED check."""
    used: set[str] = set()
    for page in paginate(client, "list_hosted_zones"):
        for zone in page.get("HostedZones", []):
            for record in list_record_sets(client, zone["Id"].split("/")[-1]):
                if record.get("HealthCheckId"):
                    used.add(record["HealthCheckId"])
    for hc in checks:
        used.update(hc.get("HealthCheckConfig", {}).get("ChildHealthChecks") or [])
    return used


def unused_owned(client: Any, name: str | None = None) -> list[OwnedCheck]:
    """Owned checks no record and no calculated check references (read-only)."""
    checks = _health_checks(client)
    owned = owned_checks(client, name, checks)
    if not owned:
        return []
    used = referenced_ids(client, checks)
    return [c for c in owned if c.id not in used]


def _generation_now(client: Any, health_check_id: str) -> int | None:
    tags = client.list_tags_for_resource(ResourceType="healthcheck", ResourceId=health_check_id)["ResourceTagSet"].get("Tags", [])
    value = {t["Key"]: t.get("Value", "") for t in tags}.get(GENERATION_TAG, "")
    return int(value) if value.isdigit() else None


def clean_owned(client: Any, name: str, live_generation: int,
                still_live: Callable[[], bool] = lambda: True) -> tuple[list[str], list[str]]:
    """Delete this name's owned checks from generations below ``live_generation`` that nothing
    references: (deleted ids, notes). Right before each delete it re-reads the check's generation
    tag (another enactor re-tags a check it takes up again before sending its batch) and asks
    ``still_live`` (the generation record still holds ``live_generation``); either changed: stop."""
    deleted: list[str] = []
    notes: list[str] = []
    for check in unused_owned(client, name):
        if check.generation >= live_generation:
            continue  # a newer plan's check, maybe about to be used
        try:
            now = _generation_now(client, check.id)
            if now is None or now >= live_generation:
                continue
            if not still_live():
                notes.append("health check clean-up stopped: another generation became live meanwhile")
                break
            client.delete_health_check(HealthCheckId=check.id)
        except botocore.exceptions.ClientError as exc:
            code = exc.response.get("Error", {}).get("Code")
            if code == "NoSuchHealthCheck":
                continue
            notes.append(f"health check {check.id}: not deleted ({code})")
            continue
        deleted.append(check.id)
    return deleted, notes


AUDIT_RULE = "EO-LIVE-HC"
AUDIT_TITLE = "health checks edge-origin enact created are used by a record"


def audit_findings(client: Any, template: str, any_checks: bool = True) -> list[Any]:
    """``edge-origin audit``: one info finding per owned check no record uses (read-only: List
    calls). ``any_checks`` False (the account reader found no health check): no call at all."""
    from edge_origin.core.findings import Finding, Severity

    if not any_checks:
        return []
    try:
        unused = unused_owned(client)
    except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as exc:
        code = exc.response.get("Error", {}).get("Code") if isinstance(exc, botocore.exceptions.ClientError) else type(exc).__name__
        return [Finding(rule=AUDIT_RULE, severity=Severity.NOT_CHECKED, message=f"not checked: {AUDIT_TITLE}: {code}",
                        fix="Grant route53:ListTagsForResources (docs/iam/readonly-policy.json) or retry later.",
                        template=template, stack="route53", resource="*")]
    return [Finding(
        rule=AUDIT_RULE, severity=Severity.INFO,
        message=(f"health check {c.id}{f' ({c.ip})' if c.ip else ''} was created by edge-origin enact for {c.owner} "
                 f"(generation {c.generation}) and no record set uses it: Route 53 bills it and it counts against the "
                 "account's health-check quota (200 by default)"),
        fix=(f"the next `edge-origin enact` of {c.owner.rstrip('.')} deletes it (unless --keep-health-checks), or: "
             f"aws route53 delete-health-check --health-check-id {c.id}"),
        template=template, stack="route53", resource=c.id,
    ) for c in unused]
