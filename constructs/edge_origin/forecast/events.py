"""Events as the model's inputs: load over time (concurrent connections, requests/s) and the plan.

An event file is JSON: ``{"events": [{...}, ...]}``; each event names its ``routing`` (weighted or
multivalue), ``ips``, ``concurrent_connections`` and ``requests_per_second`` (either may be
``null`` when it was not published: ``concurrent_from: OTHER`` copies another event's
connections, ``scale_from: OTHER`` derives the missing figure from the other event's requests/s
per connection), ``ramp_seconds`` (zero to the peak), ``duration_seconds`` (the peak held, over
which the broadcast's mean is taken), ``ttl``, ``health_check_interval``, ``failure_threshold`` and a
``sources`` map quoting where each figure comes from. The event's whole window (optional, the
window a published mean is over): ``window_seconds`` (default: ``duration_seconds``) holding
``broadcasts`` bursts (default 1) of ``duration_seconds`` each, the rest of it quiet at
``quiet_share`` of the peak requests/s (default 0), no connect failing then. The shipped file is
``edge_origin/data/model_events.json`` (the incident's three events). Bad input is one
:class:`~edge_origin.forecast.inputs.ModelInputError` line naming the file, the event and the field.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from edge_origin.forecast.inputs import ModelInputError
from edge_origin.rehearsal.plan import DnsPlan, reference_plan

MAX_EVENT_BYTES = 1 << 20
MAX_CONNECTIONS = 10**10
MAX_REQUESTS_PER_SECOND = 10**10
MAX_WINDOW_SECONDS = 31 * 86_400
EVENT_ROUTINGS = ("weighted", "multivalue")
SHIPPED_EVENTS = "model_events.json"
SHIPPED_PUBLISHED = "model_published.json"
# Route 53 health checks: RequestInterval 10 or 30 s, FailureThreshold 1..10 (the API reference).
HEALTH_INTERVALS = (10, 30)
_NUMBERS: dict[str, tuple[float, float]] = {
    "ips": (1, 8),
    "ramp_seconds": (0, 3600),
    "duration_seconds": (1, 7 * 86_400),
    "ttl": (1, 86_400),
    "failure_threshold": (1, 10),
}


@dataclass(frozen=True)
class Event:
    """One event's inputs, with the missing load figures derived (see the module docstring)."""

    name: str
    label: str
    routing: str
    ips: int
    concurrent_connections: float
    requests_per_second: float
    ramp_seconds: float
    duration_seconds: float
    ttl: int
    health_check_interval: int
    failure_threshold: int
    sources: dict[str, str] = field(default_factory=dict)
    derived: tuple[str, ...] = ()
    window_seconds: float | None = None
    broadcasts: int = 1
    quiet_share: float = 0.0

    @property
    def window(self) -> float:
        """Seconds the event's mean is over: its window, or (none given) one broadcast."""
        return self.duration_seconds if self.window_seconds is None else self.window_seconds

    @property
    def quiet_requests(self) -> float:
        """Requests outside the broadcasts: ``quiet_share`` of the peak requests/s over the rest of the window."""
        return self.quiet_share * self.requests_per_second * max(0.0, self.window - self.broadcasts * self.duration_seconds)

    @property
    def requests_per_connection(self) -> float:
        """Requests a second one connected device sends (requests/s over connections)."""
        return self.requests_per_second / self.concurrent_connections

    def load_at(self, seconds: float) -> tuple[float, float]:
        """(concurrent connections, requests/s) at ``seconds`` after the start: a ramp from zero, then held."""
        if seconds < 0 or seconds > self.duration_seconds:
            return 0.0, 0.0
        frac = 1.0 if self.ramp_seconds <= 0 else min(1.0, seconds / self.ramp_seconds)
        return self.concurrent_connections * frac, self.requests_per_second * frac

    def plan(self) -> DnsPlan:
        """The reference plan of the event: ``ips`` addresses over two NLBs, one record and check each."""
        nlbs = 1 if self.ips == 1 else 2
        zones = math.ceil(self.ips / nlbs)
        plan = reference_plan(nlbs=nlbs, zones=zones, routing=self.routing, ttl=self.ttl,
                              request_interval=self.health_check_interval, failure_threshold=self.failure_threshold)
        if len(plan.origins) == self.ips:
            return plan
        keep = {o.key for o in plan.origins[: self.ips]}
        return DnsPlan(name=plan.name, records=tuple(r for r in plan.records if r.values[0] in keep),
                       origins=tuple(o for o in plan.origins if o.key in keep))


def _shipped_text(name: str) -> str:
    return resources.files("edge_origin.data").joinpath(name).read_text(encoding="utf-8")


def read_json_file(path: str | Path | None, shipped: str, flag: str) -> tuple[str, Any]:
    """(shown name, parsed JSON) of a user file or, with ``path=None``, the shipped one."""
    if path is None:
        return shipped, json.loads(_shipped_text(shipped))
    from edge_origin.core.files import InputFileError, read_text_file

    shown = str(path)[:120]
    try:
        text = read_text_file(str(path), MAX_EVENT_BYTES)
    except InputFileError as exc:
        raise ModelInputError(f"{flag}: {str(exc)[:200]}") from None
    except ValueError as exc:
        raise ModelInputError(f"{flag}: {shown!r} is not a usable file name ({exc})") from None
    try:
        return shown, json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelInputError(f"{flag}: {shown}: not JSON (line {exc.lineno}: {exc.msg})") from None


def _number(raw: dict[str, Any], key: str, where: str, lo: float, hi: float, integer: bool = False) -> float:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ModelInputError(f"{where}.{key}: expected a number {lo:g}..{hi:g} (got {str(value)[:40]!r})")
    if not math.isfinite(value) or not lo <= value <= hi:
        raise ModelInputError(f"{where}.{key}: must be {lo:g}..{hi:g} (got {value!r})")
    if integer and value != int(value):
        raise ModelInputError(f"{where}.{key}: must be a whole number (got {value!r})")
    return float(value)


def _load_figure(raw: dict[str, Any], key: str, where: str, hi: float) -> float | None:
    if raw.get(key) is None:
        return None
    value = _number(raw, key, where, 0, hi)
    if value <= 0:
        raise ModelInputError(f"{where}.{key}: must be > 0 or null (got {value!r})")
    return value


def _window(raw: dict[str, Any], where: str) -> tuple[float | None, int, float]:
    """(window_seconds, broadcasts, quiet_share) of an event; ModelInputError naming the field."""
    broadcasts = int(_number(raw, "broadcasts", where, 1, 31, integer=True)) if "broadcasts" in raw else 1
    quiet = _number(raw, "quiet_share", where, 0, 1) if "quiet_share" in raw else 0.0
    if raw.get("window_seconds") is None:
        return None, broadcasts, quiet
    window = _number(raw, "window_seconds", where, 1, MAX_WINDOW_SECONDS)
    need = broadcasts * float(raw["duration_seconds"])
    if window < need:
        raise ModelInputError(f"{where}.window_seconds: must be {need:g}..{MAX_WINDOW_SECONDS} (broadcasts x duration_seconds "
                         f"at least; got {window:g})")
    return window, broadcasts, quiet


def parse_events(data: Any, shown: str, flag: str = "--events") -> list[Event]:
    """Events from parsed JSON (see the module docstring); ModelInputError naming the field otherwise."""
    head = f"{flag}: {shown}"
    if not isinstance(data, dict) or not isinstance(data.get("events"), list) or not data["events"]:
        raise ModelInputError(f"{head}: expected an object with a non-empty 'events' list")
    raws: dict[str, dict[str, Any]] = {}
    for i, raw in enumerate(data["events"]):
        where = f"{head}: events[{i}]"
        if not isinstance(raw, dict):
            raise ModelInputError(f"{where}: expected an object")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ModelInputError(f"{where}.name: expected a non-empty string")
        if name in raws:
            raise ModelInputError(f"{where}.name: event {name!r} listed twice")
        raws[name] = raw
    conns: dict[str, float | None] = {}
    rps: dict[str, float | None] = {}
    for i, (name, raw) in enumerate(raws.items()):
        where = f"{head}: events[{i}] ({name})"
        if raw.get("routing") not in EVENT_ROUTINGS:
            raise ModelInputError(f"{where}.routing: must be one of {', '.join(EVENT_ROUTINGS)} (got {str(raw.get('routing'))[:40]!r})")
        for key, (lo, hi) in _NUMBERS.items():
            _number(raw, key, where, lo, hi, integer=key in ("ips", "ttl", "failure_threshold"))
        interval = raw.get("health_check_interval")
        if interval not in HEALTH_INTERVALS or isinstance(interval, bool):
            raise ModelInputError(f"{where}.health_check_interval: Route 53 allows 10 or 30 (got {str(interval)[:40]!r})")
        if not isinstance(raw.get("sources", {}), dict):
            raise ModelInputError(f"{where}.sources: expected an object of field -> source line")
        for key in ("concurrent_from", "scale_from"):
            other = raw.get(key)
            if other is not None and (other not in raws or other == name):
                raise ModelInputError(f"{where}.{key}: {str(other)[:40]!r} is not another event of the file")
        _window(raw, where)
        conns[name] = _load_figure(raw, "concurrent_connections", where, MAX_CONNECTIONS)
        rps[name] = _load_figure(raw, "requests_per_second", where, MAX_REQUESTS_PER_SECOND)
    derived: dict[str, list[str]] = {n: [] for n in raws}
    for name, raw in raws.items():  # copies first: concurrent_from
        other = raw.get("concurrent_from")
        if conns[name] is None and other is not None and conns[other] is not None:
            conns[name] = conns[other]
            derived[name].append(f"concurrent_connections = {other}'s")
    for name, raw in raws.items():  # then ratios: scale_from
        other = raw.get("scale_from")
        if other is None or (conns[name] is None) == (rps[name] is None):
            continue
        if conns[other] is None or rps[other] is None:
            raise ModelInputError(f"{head}: {name}.scale_from: {other!r} has no connections and requests/s of its own to scale by")
        per = rps[other] / conns[other]
        if conns[name] is None:
            conns[name] = rps[name] / per
            derived[name].append(f"concurrent_connections = requests/s / {other}'s requests/s per connection")
        else:
            rps[name] = conns[name] * per
            derived[name].append(f"requests_per_second = connections x {other}'s requests/s per connection")
    events = []
    for i, (name, raw) in enumerate(raws.items()):
        where = f"{head}: events[{i}] ({name})"
        for key, figures in (("concurrent_connections", conns), ("requests_per_second", rps)):
            if figures[name] is None:
                raise ModelInputError(f"{where}.{key}: null and not derivable (give it, or concurrent_from/scale_from an event that has it)")
        events.append(Event(
            name=name,
            label=str(raw.get("label") or name),
            routing=raw["routing"],
            ips=int(raw["ips"]),
            concurrent_connections=float(conns[name]),  # type: ignore[arg-type]
            requests_per_second=float(rps[name]),  # type: ignore[arg-type]
            ramp_seconds=float(raw["ramp_seconds"]),
            duration_seconds=float(raw["duration_seconds"]),
            ttl=int(raw["ttl"]),
            health_check_interval=int(raw["health_check_interval"]),
            failure_threshold=int(raw["failure_threshold"]),
            sources={str(k): str(v) for k, v in raw.get("sources", {}).items()},
            derived=tuple(derived[name]),
            **dict(zip(("window_seconds", "broadcasts", "quiet_share"), _window(raw, where), strict=True)),
        ))
    return events


def load_events(path: str | Path | None = None, flag: str = "--events") -> list[Event]:
    """The events of a JSON file, or (``None``) the shipped incident events."""
    shown, data = read_json_file(path, SHIPPED_EVENTS, flag)
    return parse_events(data, shown, flag)
