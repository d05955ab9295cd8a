"""A planned event's burst against the NLBs' zonal nodes, one LCU dimension at a time.

``edge-origin model predict --devices N`` runs this. Devices join over ``ramp_seconds`` (linearly,
from zero) and Route 53's multivalue answer spreads them evenly over the EIPs, one zonal node of an
NLB each (``nlbs x zones`` nodes). Each node's capacity is counted in LCUs per dimension:

* **what a reservation buys: throughput.** "LCU reservation only supports reserving throughput
  capacity for Network Load Balancers ... using the conversion rate of 1 LCU to 2.2 Mbps";
  "Capacity is reserved at the regional level and is evenly distributed across availability zones";
  "Most requests are typically fulfilled within an hour, but can take up to a few hours" (Elastic
  Load Balancing user guide, "Request Load balancer Capacity Unit reservation for your Network Load
  Balancer", https://docs.aws.amazon.com/elasticloadbalancing/latest/network/request-capacity-unit-reservation.html).
  A node of an NLB reserving ``U`` LCUs over ``Z`` zones holds at least ``U / Z x 2.2`` Mbps.
* **what the burst needs: new flows a second and active flows**, the NLB's LCU dimensions: an NLCU
  is, for TCP, "800 new connections/sec, 100,000 active connections, 1 GB per hour" (Elastic Load
  Balancing pricing, https://aws.amazon.com/elasticloadbalancing/pricing/; 1 GB an hour is the same
  2.2 Mbps). AWS does not say that a reservation raises these two, so by default it does not
  (``reservation_covers="throughput"``); ``"all"`` is the optimistic assumption that it does.

What AWS publishes nowhere, and is therefore an assumption the user overrides by flag:

* ``node_lcus``: the LCUs a zonal node holds in every dimension before it scales (``--node-lcus``);
* ``scale_lcus_per_second``: how fast a loaded node gains LCUs (``--scale-lcus-per-second``);
* ``device_kbps``: what a connected device sends and receives (``--device-kbps``);
* ``retry_seconds``: the mean time a refused device waits before it tries again
  (``--retry-seconds``; the default 5 s is gRPC's connection backoff, 1 s x1.6 a try, averaged
  over its first six tries, 26 s / 6 = 4.4 s: grpc ``doc/connection-backoff.md``).

The dynamics, per node and second (all nodes of an NLB are alike, so one is simulated): ``a``
devices arrive, ``P`` wait to retry and try at rate ``1 / retry_seconds``; a node accepts at most
its new-flow capacity, and no more than its active-flow limit (the lower of the active-flow and the
throughput capacity over ``device_kbps``) minus the flows it holds. A refused try is a failed
connect (one 5xx at CloudFront) and the device waits again. Failed connects are ``sum(P) / retry
+ P(end)``-like sums of the waiting pool, which never grows when any capacity grows: more
reservation, more NLBs, or a longer ramp never give more failures (the property tests).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from edge_origin.forecast.inputs import ModelInputError
from edge_origin.model.nlb_capacity import CAPACITY_UNITS_PER_ZONE_RANGE, LCU_MBPS

# Elastic Load Balancing pricing (NLCU, TCP): https://aws.amazon.com/elasticloadbalancing/pricing/
LCU_NEW_FLOWS_PER_SECOND = 800.0
LCU_ACTIVE_FLOWS = 100_000.0
# "the conversion rate of 1 LCU to 2.2 Mbps" and the per-zone range (aws-cdk-lib's) are imported from
# edge_origin.model.nlb_capacity: one place, shared with the constructs' validator and EO-NLB5
RESERVED_PER_ZONE = CAPACITY_UNITS_PER_ZONE_RANGE
COVERS = ("throughput", "all")
DIMENSIONS = ("new flows/s", "active flows", "throughput")
MAX_STEPS = 200_000

# name: (default, low, high, why it is an assumption)
ASSUMPTIONS: dict[str, tuple[float, float, float, str]] = {
    "node_lcus": (100.0, 1.0, 1e6, "LCUs a zonal node holds before it scales: not published by AWS"),
    "scale_lcus_per_second": (1.0, 0.0, 1e6, "LCUs a loaded node gains a second: not published by AWS"),
    "device_kbps": (0.1, 0.0, 1e6, "kbit/s a connected device sends and receives: your app's, not AWS's"),
    "retry_seconds": (5.0, 1.0, 3600.0, "mean wait before a refused device retries: gRPC backoff 1 s x1.6, first 6 tries"),
}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Nlb:
    """One NLB: its zonal nodes (one EIP each) and the LCUs reserved on it (0: none)."""

    name: str
    zones: int
    capacity_units: int = 0

    @property
    def reserved_per_zone(self) -> float:
        return self.capacity_units / self.zones


@dataclass(frozen=True)
class PlannedEvent:
    """The event and the assumptions (see the module docstring); ``check()`` refuses bad values."""

    devices: float
    ramp_seconds: float
    nlbs: tuple[Nlb, ...]
    reservation_covers: str = "throughput"
    node_lcus: float = ASSUMPTIONS["node_lcus"][0]
    scale_lcus_per_second: float = ASSUMPTIONS["scale_lcus_per_second"][0]
    device_kbps: float = ASSUMPTIONS["device_kbps"][0]
    retry_seconds: float = ASSUMPTIONS["retry_seconds"][0]
    horizon_seconds: float | None = None
    overridden: tuple[str, ...] = field(default=())

    @property
    def nodes(self) -> int:
        return sum(n.zones for n in self.nlbs)

    @property
    def horizon(self) -> float:
        return self.horizon_seconds if self.horizon_seconds is not None else self.ramp_seconds + 600.0

    def check(self) -> PlannedEvent:
        def number(flag: str, value: float, lo: float, hi: float) -> None:
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not lo <= value <= hi:
                raise ModelInputError(f"{flag}: must be {lo:g}..{hi:g} (got {value!r})")

        number("--devices", self.devices, 1, 1e10)
        number("--ramp-seconds", self.ramp_seconds, 0, 86_400)
        for name, (_default, lo, hi, _why) in ASSUMPTIONS.items():
            number(_flag(name), getattr(self, name), lo, hi)
        if self.horizon_seconds is not None:
            number("--horizon", self.horizon_seconds, 1, 7 * 86_400)
        if self.reservation_covers not in COVERS:
            raise ModelInputError(f"--reservation-covers: must be one of {', '.join(COVERS)} (got {self.reservation_covers!r})")
        if not self.nlbs:
            raise ModelInputError("--nlbs: at least one NLB is needed (1..50)")
        low, high = RESERVED_PER_ZONE
        for nlb in self.nlbs:
            if not 1 <= nlb.zones <= 6:
                raise ModelInputError(f"--zones: an NLB has 1..6 zonal nodes (EIPs) (got {nlb.zones} on {nlb.name})")
            if nlb.capacity_units and not low <= nlb.reserved_per_zone <= high:
                raise ModelInputError(f"--capacity-units: {nlb.capacity_units} on {nlb.name} is {nlb.reserved_per_zone:g} a zone over "
                                 f"{nlb.zones} zones; must be 0 (none) or {low * nlb.zones}..{high * nlb.zones} "
                                 f"({low}..{high} a zone, spread evenly: aws-cdk-lib's range, AWS states none)")
        if math.ceil(self.horizon) > MAX_STEPS:
            raise ModelInputError(f"--horizon: at most {MAX_STEPS} simulated seconds (got {self.horizon:g})")
        return self


@dataclass
class NodeOutcome:
    """One zonal node of one NLB under its share of the burst."""

    nlb: str
    reserved_lcus: float
    peak_need: dict[str, float]  # dimension -> the most the node is asked for (flows/s, flows, Mbps)
    start_capacity: dict[str, float]  # dimension -> what it holds at t = 0
    need_lcus: dict[str, float]  # dimension -> LCUs the peak need is
    first_short: dict[str, float | None]  # dimension -> second it first refused a try because of it (None: never)
    failed_connects: float
    attempts: float
    waiting_at_end: float


@dataclass
class Prediction:
    event: PlannedEvent
    nodes: list[NodeOutcome]
    failed_connects: float
    attempts: float
    waiting_at_end: float
    first_dimension: str | None
    first_seconds: float | None

    @property
    def fails(self) -> bool:
        """At least one whole connect fails (the model's counts are fluid)."""
        return self.failed_connects >= 0.5

    @property
    def failed_share(self) -> float:
        return self.failed_connects / self.attempts if self.attempts else 0.0

    def to_dict(self) -> dict[str, object]:
        event = asdict(self.event)
        event["nodes"] = self.event.nodes
        event["horizon_seconds"] = self.event.horizon
        return {"event": event, "failed_connects": self.failed_connects, "attempts": self.attempts,
                "failed_share": self.failed_share, "waiting_at_end": self.waiting_at_end,
                "first_dimension": self.first_dimension, "first_seconds": self.first_seconds,
                "nodes": [asdict(n) for n in self.nodes],
                "assumptions": {k: {"value": getattr(self.event, k), "overridden": k in self.event.overridden,
                                    "why": v[3]} for k, v in ASSUMPTIONS.items()}}


def _capacities(event: PlannedEvent, reserved: float, t: float) -> tuple[float, float]:
    """(new flows a second, active-flow limit) of one node at second ``t``."""
    grown = event.node_lcus + event.scale_lcus_per_second * t
    burst = max(grown, reserved) if event.reservation_covers == "all" else grown
    throughput_mbps = max(grown, reserved) * LCU_MBPS
    active = burst * LCU_ACTIVE_FLOWS
    if event.device_kbps > 0:
        active = min(active, throughput_mbps * 1000.0 / event.device_kbps)
    return burst * LCU_NEW_FLOWS_PER_SECOND, active


def _active_dimension(event: PlannedEvent, reserved: float, t: float) -> str:
    grown = event.node_lcus + event.scale_lcus_per_second * t
    burst = max(grown, reserved) if event.reservation_covers == "all" else grown
    if event.device_kbps <= 0:
        return "active flows"
    by_throughput = max(grown, reserved) * LCU_MBPS * 1000.0 / event.device_kbps
    return "throughput" if by_throughput < burst * LCU_ACTIVE_FLOWS else "active flows"


def _node(event: PlannedEvent, nlb: Nlb) -> NodeOutcome:
    share = event.devices / event.nodes  # multivalue: every EIP an equal share
    reserved = float(nlb.reserved_per_zone)
    rate = 1.0 / event.retry_seconds
    steps = max(1, math.ceil(event.horizon))
    ramp = event.ramp_seconds
    waiting = arrived = active = 0.0
    failed = attempts = 0.0
    first: dict[str, float | None] = dict.fromkeys(DIMENSIONS)
    peak_rate = share / ramp if ramp >= 1 else share
    for t in range(steps):
        frac_now = 1.0 if ramp <= 0 else min(1.0, (t + 1) / ramp)
        frac_before = 1.0 if ramp <= 0 and t > 0 else (0.0 if ramp <= 0 else min(1.0, t / ramp))
        new = share * (frac_now - frac_before)
        tries = new + rate * waiting
        flows, limit = _capacities(event, reserved, float(t))
        headroom = max(0.0, limit - active)
        accepted = min(tries, flows, headroom)
        refused = tries - accepted
        if refused > 1e-9 * max(1.0, tries):
            dim = "new flows/s" if flows <= headroom else _active_dimension(event, reserved, float(t))
            if first[dim] is None:
                first[dim] = float(t)
        failed += refused
        attempts += tries
        arrived += new
        active += accepted
        waiting = arrived - active
        if waiting < 0:  # float dust
            waiting = 0.0
    flows0, _ = _capacities(event, reserved, 0.0)
    grown0 = event.node_lcus
    start = {"new flows/s": flows0,
             "active flows": (max(grown0, reserved) if event.reservation_covers == "all" else grown0) * LCU_ACTIVE_FLOWS,
             "throughput": max(grown0, reserved) * LCU_MBPS}
    need = {"new flows/s": peak_rate, "active flows": share, "throughput": share * event.device_kbps / 1000.0}
    need_lcus = {"new flows/s": need["new flows/s"] / LCU_NEW_FLOWS_PER_SECOND,
                 "active flows": need["active flows"] / LCU_ACTIVE_FLOWS,
                 "throughput": need["throughput"] / LCU_MBPS}
    return NodeOutcome(nlb.name, reserved, need, start, need_lcus, first, failed, attempts, waiting)


def predict_event(event: PlannedEvent) -> Prediction:
    """The event's outcome per node and in total (ModelInputError on bad input)."""
    event.check()
    nodes = [_node(event, nlb) for nlb in event.nlbs]
    zones = [nlb.zones for nlb in event.nlbs]
    failed = sum(n.failed_connects * z for n, z in zip(nodes, zones, strict=True))
    attempts = sum(n.attempts * z for n, z in zip(nodes, zones, strict=True))
    waiting = sum(n.waiting_at_end * z for n, z in zip(nodes, zones, strict=True))
    firsts = [(t, dim) for n in nodes for dim, t in n.first_short.items() if t is not None]
    first_seconds, first_dim = min(firsts, key=lambda x: (x[0], DIMENSIONS.index(x[1]))) if firsts else (None, None)
    return Prediction(event, nodes, failed, attempts, waiting, first_dim, first_seconds)


def nlbs_from_template(paths: list[str]) -> tuple[Nlb, ...]:
    """The network load balancers of synthesized templates / a cdk.out, with their reservations."""
    from edge_origin.model.template_model import load_model
    from edge_origin.model.values import ModelError as TemplateError

    try:
        model = load_model(paths)
    except TemplateError as exc:
        raise ModelInputError(f"--template: {str(exc)[:200]}") from None
    out = []
    for lb in model.load_balancers:
        name = lb.resource.logical_id
        if lb.type_undecided:
            raise ModelInputError(f"--template: {name}'s Type is decided at deploy time (network or not: not read); "
                                  "pass --nlbs and --zones")
        if not lb.is_network:
            continue
        if lb.capacity_unknown:
            raise ModelInputError(f"--template: {name}'s MinimumLoadBalancerCapacity is decided at deploy time (not read); "
                             "pass --capacity-units")
        if not lb.zone_count:
            raise ModelInputError(f"--template: {name} has no subnet mappings the model can count (zones not read); pass --nlbs and --zones")
        out.append(Nlb(name, lb.zone_count, lb.capacity_units or 0))
    if not out:
        raise ModelInputError("--template: no network load balancer (AWS::ElasticLoadBalancingV2::LoadBalancer, Type network) in it")
    return tuple(out)


def report_text(p: Prediction) -> str:
    e = p.event
    lines = []
    total_units = sum(n.capacity_units for n in e.nlbs)
    zones = sorted({n.zones for n in e.nlbs})
    lines.append(f"planned event: {e.devices:,.0f} devices joining over {e.ramp_seconds:g} s; {len(e.nlbs)} NLB(s), "
                 f"{e.nodes} zonal nodes ({'/'.join(map(str, zones))} a NLB; multivalue: an even share each); "
                 f"reserved {total_units:,} LCUs in all (covers {e.reservation_covers})")
    groups: dict[tuple[int, float], list[str]] = {}
    for nlb in e.nlbs:
        groups.setdefault((nlb.zones, nlb.reserved_per_zone), []).append(nlb.name)
    shown = {names[0] for names in groups.values()}
    for node in p.nodes:
        if node.nlb not in shown:
            continue
        names = next(v for v in groups.values() if v[0] == node.nlb)
        who = node.nlb if len(names) == 1 else f"{names[0]} (and {len(names) - 1} more NLB(s) alike)"
        lines.append(f"a zonal node of {who}, reserved {node.reserved_lcus:,.0f} LCUs:")
        lines.append(f"  {'dimension':<14} {'needs at peak':>18} {'holds at start':>18} {'LCUs needed':>12}  first short")
        units = {"new flows/s": "/s", "active flows": "", "throughput": " Mbps"}
        for dim in DIMENSIONS:
            short = node.first_short[dim]
            lines.append(f"  {dim:<14} {node.peak_need[dim]:>15,.1f}{units[dim]:<3} {node.start_capacity[dim]:>15,.1f}"
                         f"{units[dim]:<3} {node.need_lcus[dim]:>12,.1f}  {'never' if short is None else f'{short:g} s'}")
    if not p.fails:
        lines.append(f"verdict: no connect fails within {e.horizon:g} s")
    else:
        lines.append(f"verdict: {p.first_dimension} runs out first, {p.first_seconds:g} s into the ramp; "
                     f"{p.failed_connects:,.0f} connects fail ({p.failed_share * 100:.3f} % of {p.attempts:,.0f} tries); "
                     f"{p.waiting_at_end:,.0f} devices still waiting at {e.horizon:g} s")
    worst = max(p.nodes, key=lambda n: n.need_lcus["throughput"])
    per_zone = max(RESERVED_PER_ZONE[0], math.ceil(worst.need_lcus["throughput"]))
    if per_zone <= RESERVED_PER_ZONE[1]:
        cover = f"{per_zone:,} a zone, e.g. {per_zone * e.nlbs[0].zones:,} on an NLB of {e.nlbs[0].zones} zones"
    else:
        cover = f"more than AWS's {RESERVED_PER_ZONE[1]:,} a zone: add NLBs or EIPs"
    lines.append(f"throughput a reservation must cover at the peak: {cover} (aws-cdk-lib's range is {RESERVED_PER_ZONE[0]:,}..{RESERVED_PER_ZONE[1]:,} a zone; AWS states none)")
    if p.fails and p.first_dimension == "new flows/s":
        lines.append("fix: a reservation buys throughput, not new flows (AWS); a longer ramp or more NLBs/EIPs lower each "
                     "node's new flows/s (measure yours and pass --node-lcus/--scale-lcus-per-second)")
    elif p.fails and p.first_dimension == "active flows":
        lines.append("fix: more NLBs/EIPs lower each node's active flows")
    elif p.fails:
        lines.append("fix: reserve the throughput above, hours before the event")
    if total_units:
        lines.append("reservation: request it hours before the event: \"Most requests are typically fulfilled within an "
                     "hour, but can take up to a few hours\" (`edge-origin ready` reads its state per zone)")
    lines.append("sources: LCU dimensions (800 new flows/s, 100,000 active flows, 2.2 Mbps an LCU): "
                 "https://aws.amazon.com/elasticloadbalancing/pricing/; a reservation is throughput only, spread evenly "
                 "over the zones: https://docs.aws.amazon.com/elasticloadbalancing/latest/network/request-capacity-unit-reservation.html")
    for name, (_d, _lo, _hi, why) in ASSUMPTIONS.items():
        mark = "set by you" if name in e.overridden else "assumption"
        lines.append(f"  {mark}: {_flag(name)} {getattr(e, name):g} ({why})")
    if e.reservation_covers == "all":
        lines.append("  assumption: --reservation-covers all (AWS documents a reservation as throughput only)")
    return "\n".join(lines)
