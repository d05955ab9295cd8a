"""A DNS plan: the Route 53 record sets of one name, and the origins they point at."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from edge_origin.rehearsal.answers import ROUTING_POLICIES, AnswerRecord, routing_of


class PlanError(ValueError):
    """The plan cannot be rehearsed (no records, nothing resolvable, mixed policies...)."""


@dataclass(frozen=True)
class HealthCheckSpec:
    """A Route 53 health check as the rehearsal uses it (interval in seconds, threshold in checks)."""

    key: str
    type: str = "TCP"
    port: int | None = None
    request_interval: int = 30
    failure_threshold: int = 3

    @property
    def window_seconds(self) -> float:
        """Seconds from the first failed check until Route 53 calls the endpoint unhealthy."""
        return float(self.request_interval * self.failure_threshold)


@dataclass(frozen=True)
class PlanRecord:
    """One record set: routing policy, weight, TTL, its origin values, its health check."""

    set_identifier: str
    routing: str
    values: tuple[str, ...]
    ttl: int = 60
    weight: int | None = None
    health_check: HealthCheckSpec | None = None
    stack: str = ""
    logical_id: str = ""

    def to_answer_record(self) -> AnswerRecord:
        return AnswerRecord(
            set_identifier=self.set_identifier,
            routing=self.routing,
            values=self.values,
            weight=self.weight,
            health_key=self.health_check.key if self.health_check else None,
        )


@dataclass(frozen=True)
class Origin:
    """A distinct origin value (EIP Ref, alias target or literal IP) and the NLB it belongs to."""

    key: str
    nlb: str = ""


@dataclass(frozen=True)
class DnsPlan:
    """The record sets for ``name`` and the origins they point at (keys in record values)."""

    name: str
    records: tuple[PlanRecord, ...]
    origins: tuple[Origin, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.records:
            raise PlanError(f"no Route 53 record sets for {self.name!r}")
        try:
            routing_of([r.to_answer_record() for r in self.records])
        except ValueError as exc:
            raise PlanError(f"{self.name}: {exc}") from exc
        if not self.origins:
            keys = dict.fromkeys(v for r in self.records for v in r.values)
            object.__setattr__(self, "origins", tuple(Origin(k) for k in keys))
        known = {o.key for o in self.origins}
        missing = sorted({v for r in self.records for v in r.values} - known)
        if missing:
            raise PlanError(f"{self.name}: record values with no origin: {missing}")
        if not known:
            raise PlanError(f"{self.name}: the records point at nothing resolvable")

    @property
    def routing(self) -> str:
        return self.records[0].routing

    @property
    def ttl(self) -> int:
        """The TTL resolvers cache the answer for (the smallest of the record sets)."""
        return min(r.ttl for r in self.records)

    @property
    def origin_keys(self) -> list[str]:
        return [o.key for o in self.origins]

    def nlb_of(self, key: str) -> str:
        for origin in self.origins:
            if origin.key == key:
                return origin.nlb or key
        raise KeyError(key)

    def answer_records(self) -> list[AnswerRecord]:
        return [r.to_answer_record() for r in self.records]

    def health_checks(self) -> dict[str, HealthCheckSpec]:
        """Health check key -> spec."""
        return {r.health_check.key: r.health_check for r in self.records if r.health_check}

    def origins_of_check(self, key: str) -> list[str]:
        """The origin keys a health check watches (the values of the records that use it)."""
        return sorted(
            {v for r in self.records if r.health_check and r.health_check.key == key for v in r.values}
        )


def reference_plan(
    name: str = "origin.example.com",
    nlbs: int = 2,
    zones: int = 3,
    routing: str = "multivalue",
    ttl: int = 60,
    request_interval: int = 10,
    failure_threshold: int = 3,
) -> DnsPlan:
    """The reference app's plan built in code: ``nlbs`` x ``zones`` EIPs, one record and health check each.

    ``routing="weighted"`` gives the weighted variant: one record per origin, equal weights.
    """
    if routing not in ROUTING_POLICIES:
        raise PlanError(f"routing {routing!r} is not one of {ROUTING_POLICIES}")
    records: list[PlanRecord] = []
    origins: list[Origin] = []
    for n in range(1, nlbs + 1):
        for z in range(1, zones + 1):
            key = f"Nlb{n}Eip{z}"
            origins.append(Origin(key, nlb=f"Nlb{n}"))
            hc = HealthCheckSpec(
                key=f"{key}HealthCheck",
                request_interval=request_interval,
                failure_threshold=failure_threshold,
            )
            records.append(
                PlanRecord(
                    set_identifier=key,
                    routing=routing,
                    values=(key,),
                    ttl=ttl,
                    weight=1 if routing == "weighted" else None,
                    health_check=hc if routing != "simple" else None,
                )
            )
    if routing == "simple":
        records = [PlanRecord(set_identifier="", routing="simple", values=tuple(o.key for o in origins), ttl=ttl)]
    return DnsPlan(name=name, records=tuple(records), origins=tuple(origins))


def plan_summary(plan: DnsPlan) -> dict[str, object]:
    """A JSON-ready description of the plan."""
    return {
        "name": plan.name,
        "routing": plan.routing,
        "ttl": plan.ttl,
        "records": len(plan.records),
        "origins": {o.key: o.nlb or o.key for o in plan.origins},
    }


def match_origin_key(keys: Sequence[str], text: str) -> str:
    """An origin key from its key, its logical id (``Stack/Id`` -> ``Id``) or a unique part of it.

    ``LookupError`` (message without the flag) when none or several match.
    """
    if text in keys:
        return text
    for matches in (
        [k for k in keys if k.rsplit("/", 1)[-1] == text],
        [k for k in keys if text.lower() in k.lower()],
    ):
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise LookupError(f"{text!r} matches several origins: {', '.join(matches)}")
    raise LookupError(f"no origin {text!r}; origins: {', '.join(keys)}")
