"""Which record sets Route 53 answers with, per routing policy: the one implementation.

``choices(records, healthy, vantage)`` lists every outcome (probability within a condition,
the record sets whose values form the answer, and ``pick`` when a resolver gets a random subset);
``draw(records, healthy, rng, vantage)`` draws one answer's values from the same outcomes. The
loopback DNS server, the rehearsal model and the rules all go through these two functions.

Each rule cites the API reference (botocore route53 2013-04-01, ``ResourceRecordSet`` members):
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from edge_origin.answers.types import GLOBAL, MULTIVALUE_MAX, PUBLIC, AzLocation, Geo, Vantage
from edge_origin.core.fast_dataclass import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    import random  # imported by ``draw`` when it makes its own generator (the rules never draw)
    from typing import Any, Protocol

    class RecordLike(Protocol):
        """What selection reads of a record set (``Record`` and the rehearsal's ``AnswerRecord``)."""

        policy: str
        values: tuple[str, ...]
        weight: int | None
        failover: str | None
        region: str | None
        geo: Geo | None
        geoproximity: Any
        cidr: Any
        az: AzLocation | None

    HealthyFn = Callable[[Any], bool]


@dataclass(frozen=True)
class Choice:
    """One outcome: ``records`` answered with ``probability`` (within ``condition``)."""

    probability: float
    records: tuple[Any, ...]
    condition: str = ""
    pick: int | None = None


def policy_of(records: Sequence[RecordLike]) -> str:
    """The routing policy the records share. "You can't create non-latency resource record sets
    that have the same values for the Name and Type elements as latency resource record sets"
    (and likewise for weighted, failover, geolocation): mixing is refused."""
    if records and all(r.policy == records[0].policy for r in records):
        return records[0].policy
    policies = {r.policy for r in records}
    if not policies:
        raise ValueError("no records")
    if len(policies) > 1:
        raise ValueError(f"records mix routing policies: {sorted(policies)}")
    return policies.pop()


def _weighted_pool(records: Sequence[RecordLike], healthy: HealthyFn) -> tuple[list[Any], list[int]]:
    """The weighted sets Route 53 chooses among now, and their weights (see ``_weighted``)."""
    alive = [r for r in records if healthy(r)]
    nonzero = [r for r in alive if (r.weight or 0) > 0]
    if nonzero:
        pool = nonzero
    elif alive:
        pool = alive
    else:
        pool = [r for r in records if (r.weight or 0) > 0] or list(records)
    return pool, [max(0, r.weight or 0) for r in pool]


def _weighted(records: Sequence[RecordLike], healthy: HealthyFn, scenarios: bool = False) -> list[Choice]:
    # Weight: "Route 53 then responds to queries based on the ratio of a resource's weight to the
    # total"; "if you set Weight to 0 for a resource record set, Route 53 never responds to
    # queries with the applicable value"; "if you set Weight to 0 for all resource record sets
    # ... traffic is routed to all resources with equal probability". With health checks
    # (developer guide, active-active/active-passive): zero-weight sets answer only when no
    # non-zero set is healthy; HealthCheckId: "If the health check status for all resource
    # record sets in the group is unhealthy, Route 53 considers all resource record sets in the
    # group healthy".
    pool, weights = _weighted_pool(records, healthy)
    total = sum(weights)
    if total <= 0:
        return [Choice(1.0 / len(pool), (r,)) for r in pool]
    out = [Choice(w / total, (r,)) for r, w in zip(pool, weights, strict=True)]  # total > 0: no zero weight in the pool
    spares = [r for r in records if (r.weight or 0) <= 0]
    if scenarios and spares:
        out.extend(Choice(1.0 / len(spares), (r,), "while every non-zero-weight set is unhealthy") for r in spares)
    return out


def _multivalue(records: Sequence[RecordLike], healthy: HealthyFn) -> list[Choice]:
    # MultiValueAnswer: "Route 53 responds to DNS queries with up to eight healthy records; if you
    # have eight or fewer healthy records, Route 53 responds to all DNS queries with all the
    # healthy records. If you have more than eight healthy records, Route 53 responds to
    # different DNS resolvers with different combinations of healthy records. When all records
    # are unhealthy, Route 53 responds to DNS queries with up to eight unhealthy records."
    alive = [r for r in records if healthy(r)] or list(records)
    pick = MULTIVALUE_MAX if len(alive) > MULTIVALUE_MAX else None
    return [Choice(1.0, tuple(alive), pick=pick)]


def _failover(records: Sequence[RecordLike], healthy: HealthyFn, scenarios: bool = False) -> list[Choice]:
    # Failover: "When the primary resource record set is healthy, Route 53 responds to DNS queries
    # with the applicable value from the primary resource record set regardless of the health of
    # the secondary resource record set. When the primary resource record set is unhealthy and
    # the secondary resource record set is healthy, Route 53 responds ... from the secondary ...
    # When the secondary resource record set is unhealthy, Route 53 responds ... from the primary
    # resource record set regardless of the health of the primary." ("If you omit the
    # HealthCheckId element for the secondary ... Route 53 always responds ... with the secondary":
    # a record without a check is healthy, so the same rule covers it.)
    primary = [r for r in records if (r.failover or "").upper() == "PRIMARY"]
    secondary = [r for r in records if (r.failover or "").upper() == "SECONDARY"]
    if primary and (healthy(primary[0]) or not secondary or not healthy(secondary[0])):
        out = [Choice(1.0, (primary[0],))]
        if scenarios and secondary:
            out.append(Choice(1.0, (secondary[0],), "while the primary is unhealthy"))
        return out
    if secondary:
        return [Choice(1.0, (secondary[0],))]
    return [Choice(1.0, (records[0],))]


def _nearest(records: Sequence[RecordLike], healthy: HealthyFn, where: str | None, where_of: Callable[[Any], str | None], what: str) -> list[Choice]:
    """Latency and geoproximity: the set for the resolver's own place, or the next healthy one.

    Region (latency): "Route 53 selects the latency resource record set that has the lowest
    latency between the end user and the associated Amazon EC2 Region"; unhealthy sets are
    skipped (the next-lowest latency healthy set answers); when none is healthy, all count.
    """
    alive = [r for r in records if healthy(r)] or list(records)
    places = [(where_of(r), r) for r in records]
    if where is not None:
        mine = [r for p, r in places if p == where and r in alive]
        if mine:
            return [Choice(1.0, (mine[0],), f"resolver nearest {where}")]
        others = [r for r in alive]
        return [Choice(1.0 / len(others), (r,), f"resolver nearest {where} (no healthy set there)") for r in others]
    out = []
    for place, record in places:
        condition = f"resolver nearest {what} {place}"
        if record in alive:
            out.append(Choice(1.0, (record,), condition))
        else:
            rest = [r for r in alive if r is not record]
            out.extend(Choice(1.0 / len(rest), (r,), condition + " (unhealthy: next nearest)") for r in rest)
    return out


def _geolocation(records: Sequence[RecordLike], healthy: HealthyFn, where: Geo | None) -> list[Choice]:
    # GeoLocation: "priority goes to the smallest geographic region"; "The value * in the
    # CountryCode element matches all geographic locations that aren't specified in other
    # geolocation resource record sets"; "If you don't create a * resource record set, Route 53
    # returns a "no answer" response for queries from those locations." HealthCheckId: "if an
    # endpoint is unhealthy, Route 53 looks for a resource record set for the larger, associated
    # geographic region".
    def answer_for(place: Geo, condition: str) -> Choice:
        covering = sorted((r for r in records if r.geo is not None and r.geo.covers(place)), key=lambda r: -r.geo.specificity)
        for record in covering:
            if healthy(record):
                return Choice(1.0, (record,), condition)
        if covering:
            return Choice(1.0, (covering[0],), condition + " (none healthy: the most specific)")
        return Choice(1.0, (), condition + " (no record: no answer)")

    if where is not None:
        return [answer_for(where, f"queries from {where}")]
    out = [answer_for(r.geo, f"queries from {r.geo}") for r in records if r.geo is not None and not r.geo.is_default]
    # Locations no record names (and addresses Route 53 cannot map): the * default or no answer.
    out.append(answer_for(Geo(continent="??", country="??"), "queries from other locations"))
    return out


def _cidr(records: Sequence[RecordLike], healthy: HealthyFn, where: str | None) -> list[Choice]:
    # CidrRoutingConfig: "A LocationName with an asterisk "*" can be used to create a default CIDR
    # record"; clients outside every CIDR location get the default, else no answer.
    def location(r: RecordLike) -> str | None:
        return r.cidr.location_name if r.cidr is not None else None

    def answer_for(place: str, condition: str) -> Choice:
        for candidates in ([r for r in records if location(r) == place], [r for r in records if location(r) == "*"]):
            alive = [r for r in candidates if healthy(r)]
            if alive:
                return Choice(1.0, (alive[0],), condition)
            if candidates:
                return Choice(1.0, (candidates[0],), condition + " (unhealthy)")
        return Choice(1.0, (), condition + " (no record: no answer)")

    if where is not None:
        return [answer_for(where, f"clients in CIDR location {where}")]
    places = [location(r) for r in records if location(r) not in (None, "*")]
    out = [answer_for(p, f"clients in CIDR location {p}") for p in dict.fromkeys(p for p in places if p)]
    out.append(answer_for("\x00other", "clients in no CIDR location"))
    return out


#: The condition of the answer a query Route 53 cannot place in an AZ receives (CloudFront's).
NO_AZ_CONDITION = "queries Route 53 cannot place in an AZ (public resolvers, CloudFront)"


def _azaffinity(records: Sequence[RecordLike], healthy: HealthyFn, vantage: Vantage) -> list[Choice]:
    # AZAffinity: "A query matches a location when Route 53 VPC Resolver reports that the query
    # came from an Availability Zone (AZ) in that location. If Route 53 doesn't know which AZ a
    # query came from, the query matches only the record for the Global location type." "For each
    # query, Route 53 starts with the most specific location that the query matches and falls back
    # to a less specific location when there's no record for that location or the record is
    # unhealthy". "If every record that matches a query is unhealthy, Route 53 responds with the
    # most specific one." LocationType: "Without a Global record, Route 53 returns a "no answer"
    # response to queries that don't match any other record."
    def answer_for(locations: Sequence[AzLocation], condition: str) -> Choice:
        matching = [r for loc in locations for r in records if r.az == loc]
        for record in matching:
            if healthy(record):
                return Choice(1.0, (record,), condition)
        if matching:
            return Choice(1.0, (matching[0],), condition + " (none healthy: the most specific)")
        return Choice(1.0, (), condition + " (no record: no answer)")

    locations = vantage.az_locations
    if locations == (GLOBAL,):
        return [answer_for(locations, NO_AZ_CONDITION)]
    if locations is not None:
        return [answer_for(locations, f"queries from {vantage.az}")]
    # A VPC resolver in any AZ: each named location's answer (falling back to Global: the
    # hierarchy between AZ, zone group and region is not in the records), then the rest.
    named = dict.fromkeys(r.az for r in records if r.az is not None and not r.az.is_global)
    out = [answer_for((loc, GLOBAL), f"queries from {loc}") for loc in named]
    out.append(answer_for((GLOBAL,), "queries from AZs no record names, or that Route 53 cannot place"))
    return out


def _simple(records: Sequence[RecordLike]) -> list[Choice]:
    # Simple routing: one record set per name and type; every value in the answer.
    return [Choice(1.0, tuple(records))]


def choices(
    records: Sequence[RecordLike], healthy: HealthyFn = lambda _r: True, vantage: Vantage = PUBLIC, scenarios: bool = False
) -> list[Choice]:
    """Every outcome Route 53 can answer with for these record sets (one name, type and zone)
    in this health state; ``scenarios`` adds what it answers when sets fail (the failover
    secondary, zero-weight sets), each under its condition (for judging, never for drawing)."""
    if not records:
        return []
    policy = policy_of(records)
    if policy == "weighted":
        return _weighted(records, healthy, scenarios)
    if policy == "multivalue":
        return _multivalue(records, healthy)
    if policy == "failover":
        return _failover(records, healthy, scenarios)
    if policy == "latency":
        return _nearest(records, healthy, vantage.region, lambda r: r.region, "region")
    if policy == "geoproximity":
        return _nearest(records, healthy, vantage.region, lambda r: getattr(r.geoproximity, "region", None) or str(r.geoproximity), "place")
    if policy == "geolocation":
        return _geolocation(records, healthy, vantage.location)
    if policy == "cidr":
        return _cidr(records, healthy, vantage.cidr_location)
    if policy == "azaffinity":
        return _azaffinity(records, healthy, vantage)
    return _simple(records)


def pick_choice(outcomes: Sequence[Choice], rng: random.Random) -> Choice:
    """One outcome: conditions weigh equally, probabilities within a condition as given."""
    if len(outcomes) == 1:
        return outcomes[0]
    pool: Sequence[Choice] = outcomes
    first = outcomes[0].condition
    if any(c.condition != first for c in outcomes):
        condition = rng.choice(list(dict.fromkeys(c.condition for c in outcomes)))
        pool = [c for c in outcomes if c.condition == condition]
        if len(pool) == 1:
            return pool[0]
    # one draw against the cumulative probabilities (what rng.choices does, without its set-up)
    point = rng.random() * sum(c.probability for c in pool)
    for choice in pool:
        point -= choice.probability
        if point < 0:
            return choice
    return pool[-1]


def values_of(choice: Choice, rng: random.Random) -> list[str]:
    """The values one resolver receives for an outcome, in answer order."""
    chosen = list(choice.records)
    if choice.pick is not None and len(chosen) > choice.pick:
        chosen = rng.sample(chosen, k=choice.pick)
    rng.shuffle(chosen)
    values = [v for r in chosen for v in r.values]
    if len(chosen) == 1:
        rng.shuffle(values)
    return values


def draw(records: Sequence[RecordLike], healthy: HealthyFn = lambda _r: True, rng: random.Random | None = None, vantage: Vantage = PUBLIC) -> list[str]:
    """One answer's values, drawn from :func:`choices` (what the DNS server sends)."""
    if not records:
        return []
    if not rng:
        import random

        rng = random.Random()
    if policy_of(records) == "weighted":  # the hot path of the rehearsal model: no Choice objects
        pool, weights = _weighted_pool(records, healthy)
        total = sum(weights)
        record = rng.choice(pool) if total <= 0 else rng.choices(pool, weights=weights, k=1)[0]
        values = list(record.values)
        rng.shuffle(values)
        return values
    outcomes = choices(records, healthy, vantage)
    if not outcomes:
        return []
    return values_of(pick_choice(outcomes, rng), rng)
