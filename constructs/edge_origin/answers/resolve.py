"""Resolution: which zone answers a name from a vantage, and every answer, chains followed.

Zone visibility: a public resolver (CloudFront's) sees public zones only; a resolver in a VPC
sees the private zones associated with that VPC and, for names no such zone holds, the public
zones (Route 53 developer guide, "Considerations when working with a private hosted zone": the
private zone answers for its names inside the VPC; outside it the public DNS answers). The most
specific zone (longest name suffix) holds the name.

Chains: an alias to a load balancer answers with the load balancer's zonal addresses; an alias
to another record of the zone answers with that record's answer ("You configure the alias
resource record set to route traffic to a non-alias resource record set in the same hosted
zone"); a CNAME is followed by the resolver for the queried type, across zones. At most
``MAX_CHAIN`` hops; a loop or a longer chain is a problem of the resolution.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from edge_origin.answers import health as health_mod
from edge_origin.answers.health import ALL_HEALTHY, HealthCheck, HealthState
from edge_origin.answers.select import Choice, choices
from edge_origin.answers.types import (
    MAX_CHAIN,
    PUBLIC,
    Answer,
    Hop,
    HostedZone,
    LoadBalancer,
    Record,
    Resolution,
    Vantage,
    normalize,
    undeclared_load_balancer,
)
from edge_origin.core.fast_dataclass import dataclass

_NONE: list[Record] = []


class ZoneSet:
    """Hosted zones with their record sets, health checks and known alias targets: the input of
    the answer model, built from a template model or from an account (the same shape)."""

    def __init__(
        self,
        zones: Iterable[HostedZone],
        records: Iterable[Record],
        health_checks: Iterable[HealthCheck] = (),
        load_balancers: Iterable[LoadBalancer] = (),
    ) -> None:
        self.zones: dict[str, HostedZone] = {z.id: z for z in zones}
        self.records: list[Record] = list(records)
        self.health_checks: dict[str, HealthCheck] = {h.id: h for h in health_checks}
        self.load_balancers: dict[str, LoadBalancer] = {lb.dns_name: lb for lb in load_balancers}
        self._by_name: dict[tuple[str, str, str], list[Record]] = defaultdict(list)
        self._names: dict[str, set[str]] = defaultdict(set)
        known, by_name, names = self.zones, self._by_name, self._names
        for record in self.records:
            key = record.key
            if key.zone not in known:
                raise ValueError(f"{key}: no hosted zone {key.zone!r} in the zone set")
            by_name[(key.zone, key.name, key.type)].append(record)
            names[key.zone].add(key.name)
        self._cache: dict[tuple[object, ...], Resolution] = {}
        self._too_deep: dict[str, bool] = {}
        self._holding: dict[str, list[HostedZone]] | None = None
        #: Whether any check is CALCULATED: without one, no record's check nests (``nested_too_deep`` is False).
        self._calculated = any(h.type == "CALCULATED" for h in self.health_checks.values())

    def nested_too_deep(self, check_id: str) -> bool:
        """``health.nested_too_deep`` over this set's checks, judged once per check."""
        check = self.health_checks.get(check_id)
        if check is None or check.type != "CALCULATED" or check.disabled:
            return False  # no children below it: nothing to nest (health.nested_too_deep's first level)
        found = self._too_deep.get(check_id)
        if found is None:
            found = self._too_deep[check_id] = health_mod.nested_too_deep(check_id, self.health_checks)
        return found

    def record_sets(self, zone_id: str, name: str, rtype: str) -> list[Record]:
        """The record sets of one name and type in one zone."""
        return list(self._sets(zone_id, normalize(name), rtype))

    def holds(self, zone_id: str, name: str, types: tuple[str, ...]) -> bool:
        """Whether the zone has a record set of ``name`` of one of ``types`` (``record_sets``, without the copies)."""
        name, by_name = normalize(name), self._by_name
        return any(by_name.get((zone_id, name, rtype)) for rtype in types)

    def _sets(self, zone_id: str, name: str, rtype: str) -> list[Record]:
        """``record_sets`` for a normalized name, not copied (internal)."""
        return self._by_name.get((zone_id, name, rtype), _NONE)

    def visible_zones(self, vantage: Vantage) -> list[HostedZone]:
        """The zones a resolver at ``vantage`` consults, private (its VPC's) before public."""
        private = [z for z in self.zones.values() if z.private and vantage.kind == "vpc" and vantage.vpc_id in z.vpcs]
        public = [z for z in self.zones.values() if not z.private]
        return private + public

    def zone_for(self, name: str, vantage: Vantage = PUBLIC) -> HostedZone | None:
        """The zone that answers ``name`` at ``vantage``: the most specific visible zone whose
        name is a suffix of ``name`` (private zones of the VPC first); None when none is."""
        name = normalize(name)
        matching = [z for z in self.visible_zones(vantage) if name == z.name or name.endswith("." + z.name)]
        if not matching:
            return None
        # the most specific; a VPC's private zone before a public one; then a zone that holds the name
        # (two public zones of one name: only one is delegated, the one with the records is meant)
        return max(matching, key=lambda z: (len(z.name), z.private, name in self._names.get(z.id, ())))

    def record_healthy(self, record: Record, state: HealthState = ALL_HEALTHY, depth: int = 0) -> bool:
        """Route 53's view of a record: its health check (none = healthy), and with
        EvaluateTargetHealth the health of its alias target."""
        if record.health_check_id is not None and not health_mod.check_healthy(record.health_check_id, self.health_checks, state):
            return False
        alias = record.alias
        if alias is not None and alias.evaluate_target_health:
            lb = self.load_balancer(alias.dns_name)
            if lb is not None:
                return lb.dns_name not in state.load_balancers_down
            targets = self._sets(record.key.zone, alias.dns_name, record.key.type)
            if targets and depth < MAX_CHAIN:
                return any(self.record_healthy(t, state, depth + 1) for t in targets)
        return True

    def healthy_now(self, record: Record) -> bool:
        """``record_healthy(record)`` in the all-healthy state, with ``check_healthy``'s answer there read in place: a
        record with no check, or an enabled endpoint/alarm check not Inverted (nearly every one), is healthy as far as
        its check goes; the rest take the general path (one call a record instead of three: every resolution asks)."""
        check_id = record.health_check_id
        if check_id is not None:
            check = self.health_checks.get(check_id)
            if check is not None and not check.disabled and (check.inverted or check.type == "CALCULATED"):
                return self.record_healthy(record)
        alias = record.alias
        if alias is not None and alias.evaluate_target_health:
            return self.record_healthy(record)
        return True

    def load_balancer(self, dns_name: str) -> LoadBalancer | None:
        """The known load balancer of a DNS name (Route 53's ``dualstack.`` alias prefix ignored)."""
        found = self.load_balancers.get(dns_name)
        for prefix in ("dualstack.", "ipv6."):
            if found is None and dns_name.startswith(prefix):
                found = self.load_balancers.get(dns_name.removeprefix(prefix))
        return found if found is not None else undeclared_load_balancer(dns_name)

    def zones_holding(self, name: str) -> list[HostedZone]:
        """Every zone with a record set of this name (any type), public and private, in zone order (an index
        built on the first call: linear in names, not names x zones)."""
        if self._holding is None:
            self._holding = defaultdict(list)
            for zone in self.zones.values():
                for held in self._names.get(zone.id, ()):
                    self._holding[held].append(zone)
        return list(self._holding.get(normalize(name), ()))

    def resolve(
        self,
        name: str,
        rtype: str = "A",
        vantage: Vantage = PUBLIC,
        state: HealthState = ALL_HEALTHY,
        zone_id: str | None = None,
        scenarios: bool = False,
    ) -> Resolution:
        """Every answer a resolver at ``vantage`` can receive for ``name``/``rtype`` (cached when
        ``state`` is the default, all-healthy). ``zone_id`` starts in that zone instead of the
        one the vantage would consult (to judge a zone a resolver elsewhere sees).
        ``scenarios`` adds the answers given when sets fail (failover secondary, zero weights),
        each under its condition."""
        name = normalize(name)
        # the public vantage (nearly every call) keyed by None: a Vantage hashes eight fields in Python
        key = (name, rtype, None if vantage is PUBLIC else vantage, zone_id, scenarios) if state is ALL_HEALTHY else None
        if key is not None:
            found = self._cache.get(key)
            if found is not None:
                return found
        result = _Resolver(self, vantage, state, scenarios).run(name, rtype, self.zones.get(zone_id) if zone_id else None)
        if key is not None:
            self._cache[key] = result
        return result


@dataclass
class _Partial:
    probability: float
    chain: tuple[Hop, ...]
    condition: str
    ttl: int | None


class _Resolver:
    def __init__(self, zones: ZoneSet, vantage: Vantage, state: HealthState, scenarios: bool = False) -> None:
        self.zones = zones
        self.vantage = vantage
        self.state = state
        self.scenarios = scenarios
        self.problems: list[str] = []
        self.stopped: list[str] = []  # where the model gave up: also in problems

    def _stop(self, problem: str) -> None:
        self.problems.append(problem)
        self.stopped.append(problem)

    def run(self, name: str, rtype: str, zone: HostedZone | None = None) -> Resolution:
        zone = zone or self.zones.zone_for(name, self.vantage)
        if zone is None:
            return Resolution(name, rtype, self.vantage, problems=(f"no {'visible ' if self.zones.zones else ''}hosted zone holds {name}",))
        records = self.zones._sets(zone.id, name, rtype) or self.zones._sets(zone.id, name, "CNAME")
        policy = _policy(records)
        answers = self._answers(zone, name, rtype, _Partial(1.0, (), "", None), "query", 0)
        return Resolution(name, rtype, self.vantage, tuple(answers), zone, policy, tuple(dict.fromkeys(self.problems)),
                          tuple(dict.fromkeys(self.stopped)))

    def _answers(self, zone: HostedZone, name: str, rtype: str, partial: _Partial, via: str, depth: int) -> list[Answer]:
        records = self.zones._sets(zone.id, name, rtype)
        if not records and rtype != "CNAME":
            records = self.zones._sets(zone.id, name, "CNAME")
        if not records:
            if depth == 0:
                return []
            return [Answer(partial.probability, (), chain=partial.chain, condition=partial.condition, ttl=partial.ttl, empty=True)]
        for r in records if self.zones._calculated else ():
            if r.health_check_id is not None and self.zones.nested_too_deep(r.health_check_id):
                self._stop(f"{name} {rtype}: health check {r.health_check_id} of {r.key.set_id or 'the record set'} "
                           f"nests CALCULATED checks deeper than {health_mod.MAX_DEPTH} levels: its status is not judged")
        state = self.state
        healthy = self.zones.healthy_now if state is ALL_HEALTHY else lambda r: self.zones.record_healthy(r, state)
        groups: dict[str, list[Record]] = {}
        for r in records:  # one pass: linear in records per name
            groups.setdefault(r.policy, []).append(r)
        outcomes: list[Choice] = []
        if len(groups) > 1:
            # Route 53 refuses the change; judge each policy's sets as if only they were deployed.
            self.problems.append(f"{name} {rtype} in zone {zone.id}: records mix routing policies: {sorted(groups)}")
            for policy, group in groups.items():
                for c in choices(group, healthy, self.vantage, self.scenarios):
                    condition = " and ".join(x for x in (f"only the {policy} record sets deployed", c.condition) if x)
                    outcomes.append(Choice(c.probability, c.records, condition, c.pick))
        else:
            outcomes = choices(records, healthy, self.vantage, self.scenarios)
        out: list[Answer] = []
        for outcome in outcomes:
            out.extend(self._outcome(zone, rtype, partial, outcome, via, depth))
        return out

    def _outcome(self, zone: HostedZone, rtype: str, partial: _Partial, outcome: Choice, via: str, depth: int) -> list[Answer]:
        before, now = partial.condition, outcome.condition
        condition = f"{before} and {now}" if before and now else before or now  # the non-empty ones, " and "-joined
        probability = partial.probability * outcome.probability
        records = outcome.records
        if not records:
            return [Answer(probability, (), chain=partial.chain, condition=condition, ttl=partial.ttl, empty=True)]
        first = records[0]  # the chain goes on through the first set (several: a multivalue answer)
        chain = partial.chain + (Hop(first.key, first.policy, via, first.routing_detail, first),)
        if len(records) == 1:  # one set (weighted, failover, latency ...): as below, without the loops
            ttl = _min_ttl(partial.ttl, first.ttl)
            if first.alias is not None:
                return self._alias(zone, rtype, first, _Partial(probability, chain, condition, ttl), depth)
            values = first.values
            if first.key.type == "CNAME" and rtype != "CNAME" and values:
                return self._cname(rtype, values[0], _Partial(probability, chain, condition, ttl), depth)
            addresses = values if values.__class__ is tuple else tuple(values)
            return [Answer(probability, addresses, (), outcome.pick, ttl, chain, (first.key,), condition)]
        ttls = [r.ttl for r in records if r.ttl is not None]
        ttl = _min_ttl(partial.ttl, min(ttls) if ttls else None)
        record_keys = tuple([r.key for r in records])
        addresses = tuple([v for r in records for v in r.values])
        lbs = tuple([lb for r in records if r.alias is not None for lb in [self.zones.load_balancer(r.alias.dns_name)] if lb])
        return [Answer(probability, addresses, lbs, outcome.pick, ttl, chain, record_keys, condition)]

    def _too_deep(self, partial: _Partial, depth: int, target: str) -> bool:
        names = [h.key.name for h in partial.chain]
        if target in names:
            self._stop(f"alias/CNAME loop: {' -> '.join(names)} -> {target}")
            return True
        if depth + 1 >= MAX_CHAIN:
            self._stop(f"chain longer than {MAX_CHAIN} hops: {' -> '.join(names)} -> {target}")
            return True
        return False

    def _alias(self, zone: HostedZone, rtype: str, record: Record, partial: _Partial, depth: int) -> list[Answer]:
        assert record.alias is not None
        target = record.alias.dns_name
        lb = self.zones.load_balancer(target)
        if lb is not None:
            # An alias to a load balancer answers with its zonal addresses (every zone's).
            return [Answer(partial.probability, (), (lb,), None, partial.ttl, partial.chain, (record.key,), partial.condition)]
        if target == zone.name or target.endswith("." + zone.name):
            if self._too_deep(partial, depth, target):
                return []
            before = len(self.problems)
            found = self._answers(zone, target, rtype, partial, "alias", depth + 1)
            if found or len(self.problems) > before:
                return found  # answers, or nothing when the chain behind it loops or runs too long
        if target.endswith(".cloudfront.net"):
            dist = LoadBalancer(target, "cloudfront", label=target)
            return [Answer(partial.probability, (), (dist,), None, partial.ttl, partial.chain, (record.key,), partial.condition)]
        return [Answer(partial.probability, (), (), None, partial.ttl, partial.chain, (record.key,), partial.condition, end=target)]

    def _cname(self, rtype: str, target: str, partial: _Partial, depth: int) -> list[Answer]:
        target = normalize(target)
        lb = self.zones.load_balancer(target)
        if lb is not None:
            return [Answer(partial.probability, (), (lb,), None, partial.ttl, partial.chain, (partial.chain[-1].key,), partial.condition)]
        if self._too_deep(partial, depth, target):
            return []
        zone = self.zones.zone_for(target, self.vantage)
        if zone is not None and (self.zones._sets(zone.id, target, rtype) or self.zones._sets(zone.id, target, "CNAME")):
            return self._answers(zone, target, rtype, partial, "cname", depth + 1)
        return [Answer(partial.probability, (), (), None, partial.ttl, partial.chain, (partial.chain[-1].key,), partial.condition, end=target)]


def _policy(records: list[Record]) -> str | None:
    policies = {r.policy for r in records}
    return policies.pop() if len(policies) == 1 else None


def _min_ttl(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def resolve(
    zones: ZoneSet,
    name: str,
    rtype: str = "A",
    vantage: Vantage = PUBLIC,
    state: HealthState = ALL_HEALTHY,
    zone_id: str | None = None,
    scenarios: bool = False,
) -> Resolution:
    """Every answer a resolver at ``vantage`` can receive for ``name``/``rtype``: the answer
    model's main entry (``ZoneSet.resolve``)."""
    return zones.resolve(name, rtype, vantage, state, zone_id, scenarios)

