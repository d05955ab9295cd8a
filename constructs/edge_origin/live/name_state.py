"""What Route 53 holds for one origin name: its A and AAAA record sets and its generation record.

The generation record is a TXT record at ``_edge-origin-generation.<name>`` whose values are
``"edge-origin generation=G digest=D"`` and, after the first change, ``"edge-origin previous=P
digest=E"``. It lives in Route 53 beside the name, so the freshness check happens inside the
change batch itself (its exact DELETE), not in a separate store a slow writer could outrun.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import botocore.exceptions
import botocore.session

from edge_origin.answers.routing import ROUTING_ELEMENTS, read_routing
from edge_origin.core.dns_names import fqdn as core_fqdn
from edge_origin.live.paging import PagingError, list_record_sets
from edge_origin.live.plans import GENERATION_LABEL, LivePlanError

GENERATION_TTL = 60
_CURRENT = re.compile(r'^"edge-origin generation=(\d{1,16}) digest=([0-9a-f]{1,64})"$')
_PREVIOUS = re.compile(r'^"edge-origin previous=(\d{1,16}) digest=([0-9a-f]{1,64})"$')
ADDRESS_TYPES = ("A", "AAAA")  # every address type of a name: a plan migrates them together
#: Every routing element of ``ResourceRecordSet``: the answer model's one table (``answers.routing``).
ROUTING_FIELDS = tuple(e.member for e in ROUTING_ELEMENTS)


def fqdn(name: str) -> str:
    """Route 53's spelling: one trailing dot (:func:`edge_origin.core.dns_names.fqdn`)."""
    return core_fqdn(name)


def generation_name(name: str) -> str:
    return f"{GENERATION_LABEL}.{fqdn(name)}"


@dataclass(frozen=True)
class Generation:
    """The generation record's content."""

    number: int
    digest: str
    previous: int | None = None
    previous_digest: str | None = None

    def values(self) -> list[str]:
        out = [f'"edge-origin generation={self.number} digest={self.digest}"']
        if self.previous is not None:
            out.append(f'"edge-origin previous={self.previous} digest={self.previous_digest}"')
        return out

    def record_set(self, name: str) -> dict[str, Any]:
        return {
            "Name": generation_name(name),
            "Type": "TXT",
            "TTL": GENERATION_TTL,
            "ResourceRecords": [{"Value": v} for v in self.values()],
        }

    @classmethod
    def from_record_set(cls, record: dict[str, Any]) -> Generation | None:
        """The content of a generation TXT record, or None when edge-origin did not write it."""
        current = previous = None
        for rr in record.get("ResourceRecords") or []:
            value = rr.get("Value", "")
            current = current or _CURRENT.match(value)
            previous = previous or _PREVIOUS.match(value)
        if current is None:
            return None
        return cls(
            int(current.group(1)), current.group(2),
            int(previous.group(1)) if previous else None, previous.group(2) if previous else None,
        )


def routing_policy(record: dict[str, Any]) -> str:
    """``weighted`` | ``multivalue`` | ``failover`` | ... | ``azaffinity`` | ``simple`` (alias or
    not), read by the answer model's one table; ``unknown`` when it does not judge the set (an
    element it does not know, or a set id whose routing element this botocore dropped)."""
    return read_routing(record, sdk_reads_az_affinity=sdk_reads("AZAffinity")).policy


def unread_routing(record: dict[str, Any]) -> str | None:
    """Why the routing of a listed record set is not judged (None: it is)."""
    routing = read_routing(record, sdk_reads_az_affinity=sdk_reads("AZAffinity"))
    return None if routing.judged else f"{routing.element}: {routing.reason or 'decided elsewhere'}"


def sdk_reads(member: str) -> bool:
    """Whether the installed botocore's Route 53 model has ``ResourceRecordSet.<member>`` (a
    listed record loses members its botocore does not know: AZAffinity needs botocore >= 1.44)."""
    return member in _record_members()


@functools.lru_cache(maxsize=1)
def _record_members() -> frozenset[str]:
    model = botocore.session.get_session().get_service_model("route53")
    return frozenset(model.shape_for("ResourceRecordSet").members)


@dataclass
class LiveName:
    """One name as Route 53 holds it now."""

    name: str
    zone_id: str
    zone_name: str
    records: list[dict[str, Any]] = field(default_factory=list)
    generation_record: dict[str, Any] | None = None
    generation: Generation | None = None
    cname: dict[str, Any] | None = None  # a CNAME at the name: Route 53 lets it share the name with nothing

    @property
    def live_generation(self) -> int:
        return self.generation.number if self.generation else 0

    @property
    def routing_policy(self) -> str:
        """The name's routing policy (``none`` without records, ``mixed`` if Route 53 let it mix)."""
        policies = {routing_policy(r) for r in self.records}
        if not policies:
            return "none"
        return policies.pop() if len(policies) == 1 else "mixed"

    def policies_by_type(self) -> dict[str, str]:
        """The routing policy of each address type the name holds (``A``/``AAAA``)."""
        out: dict[str, set[str]] = {}
        for r in self.records:
            out.setdefault(r.get("Type", "A"), set()).add(routing_policy(r))
        return {t: (p.pop() if len(p) == 1 else "mixed") for t, p in sorted(out.items())}

    @property
    def foreign_generation_record(self) -> bool:
        """A TXT record at the reserved label that edge-origin did not write."""
        return self.generation_record is not None and self.generation is None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "hosted_zone_id": self.zone_id,
            "zone_name": self.zone_name,
            "routing_policy": self.routing_policy,
            "routing_policy_by_type": self.policies_by_type(),
            "generation": self.live_generation,
            "digest": self.generation.digest if self.generation else None,
            "previous_generation": self.generation.previous if self.generation else None,
            "records": self.records,
        }


def zone_name(client: Any, zone_id: str) -> str:
    """The hosted zone's name (trailing dot); LivePlanError when there is no such zone."""
    try:
        zone = client.get_hosted_zone(Id=zone_id)["HostedZone"]
    except botocore.exceptions.ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        if code in ("NoSuchHostedZone", "InvalidInput"):
            raise LivePlanError(f"hosted_zone_id: {zone_id!r}: no such hosted zone ({code})") from None
        raise
    return fqdn(zone["Name"])


def check_inside(name: str, zone: str) -> None:
    """LivePlanError unless ``name`` is the zone's apex or below it."""
    n = fqdn(name)
    if not (n == zone or n.endswith("." + zone)):
        raise LivePlanError(f"name: {name.rstrip('.')!r} is not inside the hosted zone {zone.rstrip('.')}")


CONSISTENT_READ_ATTEMPTS = 20


class NameStateError(PagingError):
    """No consistent view of the name could be read (its generation record kept moving)."""


def _generation_record(client: Any, zone_id: str, name: str) -> dict[str, Any] | None:
    found = list_record_sets(client, zone_id, generation_name(name), "TXT")
    return found[0] if found else None


def read_name(client: Any, zone_id: str, name: str, zone: str | None = None) -> LiveName:
    """The name's A and AAAA record sets and its generation record, read now."""
    zone = zone or zone_name(client, zone_id)
    check_inside(name, zone)
    # One consistent view: the records are listed between two reads of the generation record, and
    # read again if it moved. Every enact batch rewrites that record, so an unchanged one means no
    # batch landed in between (records from one state and the generation of the next would let a
    # batch that only swaps the generation record pass Route 53's exact-match check).
    gen_record = _generation_record(client, zone_id, name)
    for _ in range(CONSISTENT_READ_ATTEMPTS):
        records = [r for rtype in ADDRESS_TYPES for r in list_record_sets(client, zone_id, fqdn(name), rtype)]
        after = _generation_record(client, zone_id, name)
        if after == gen_record:
            break
        gen_record = after
    else:
        raise NameStateError(
            f"{fqdn(name)}: the generation record changed on each of {CONSISTENT_READ_ATTEMPTS} reads "
            "(other writers are busy); try again"
        )
    cnames = [] if records else list_record_sets(client, zone_id, fqdn(name), "CNAME")
    return LiveName(
        name=fqdn(name), zone_id=zone_id, zone_name=zone, records=records,
        generation_record=gen_record,
        generation=Generation.from_record_set(gen_record) if gen_record else None,
        cname=cnames[0] if cnames else None,
    )


def plan_blocker(live: LiveName) -> str | None:
    """Why no plan can be applied to ``live.name`` (it holds a CNAME, or a generation TXT record
    edge-origin did not write), or None."""
    if live.foreign_generation_record:
        return (f"{live.generation_record['Name']} holds a TXT record edge-origin did not write: "
                "remove it or pick another name; enact will not overwrite it")
    if live.cname is None:
        return None
    target = ", ".join(v.get("Value", "?") for v in live.cname.get("ResourceRecords") or []) or "an alias"
    return (f"{live.name} holds a CNAME ({target}): Route 53 lets a CNAME share its name with no other record; "
            "remove the CNAME first (or plan another name)")
