"""The Locust rehearsal's configuration: what the master reads and hands to every worker.

Pure standard library (importable anywhere; :mod:`edge_origin.rehearsal.locust` is not). The
engine writes it for a loopback run; a multi-machine run against a staging origin writes it by
hand (fields below) and must say ``"allow_remote": true`` to reach anything but 127.0.0.0/8, with
the client count and duration bounded.
"""

from __future__ import annotations

import ipaddress
import json
import math
from pathlib import Path
from typing import Any

from edge_origin.rehearsal.clients import LB_POLICIES

LOCUSTFILE = str(Path(__file__).resolve().parent / "locustfiles" / "rehearsal.py")
"""The locustfile the package ships (``locust -f LOCUSTFILE --master`` / ``--worker``)."""
MAX_CLIENTS = 100_000
MAX_REMOTE_CLIENTS = 20_000  # a staging origin: bounded, whatever the file says
MAX_REMOTE_SECONDS = 900.0
MAX_EDGES = 1_000

FIELDS = {
    "name": "the origin DNS name the edges resolve",
    "port": "the origin gRPC port (1..65535)",
    "resolvers": "edge resolvers as IP:PORT (client i asks resolver i % len); [] = the system resolver",
    "edges": "how many edges (Locust users), 1..1000",
    "clients": "gRPC clients in the burst, client i on edge i % edges",
    "policy": f"gRPC load-balancing policy: {', '.join(LB_POLICIES)}",
    "duration": "seconds each client keeps doing RPCs",
    "rpc_interval": "seconds between a client's RPCs",
    "rpc_timeout": "seconds an RPC may take",
    "max_seconds": "bound on the whole run",
    "min_resolution_ms": "gRPC's minimum time between re-resolutions",
    "allow_remote": "true to reach a non-loopback resolver or the system resolver (staging runs)",
    "status_path": "(optional) where the master writes its start time",
    "result_path": "(optional) where the master writes the merged result; '-' = one stdout line 'edge-origin result: {...}'",
}


class LocustConfigError(ValueError):
    """The configuration cannot run: one line naming the field and the allowed range."""


def _number(cfg: dict[str, Any], key: str, lo: float, hi: float, *, integer: bool = False) -> float:
    value = cfg.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        raise LocustConfigError(f"locust config: {key!r} must be a{'n integer' if integer else ' number'} {lo:g}..{hi:g} ({FIELDS[key]})")
    if not (math.isfinite(value) and lo <= value <= hi):
        raise LocustConfigError(f"locust config: {key!r} must be {lo:g}..{hi:g} (got {value!r})")
    return float(value)


def _is_loopback(resolver: str) -> bool:
    host, sep, port = resolver.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise LocustConfigError(f"locust config: resolver {resolver[:80]!r} must be IP:PORT")
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        raise LocustConfigError(f"locust config: resolver {resolver[:80]!r} must be an IP address and port") from None


def validate_config(cfg: Any) -> dict[str, Any]:
    """The configuration, checked; a non-loopback target only with ``allow_remote`` and bounds."""
    if not isinstance(cfg, dict):
        raise LocustConfigError("locust config: must be a JSON object")
    unknown = sorted(set(cfg) - set(FIELDS))
    if unknown:
        raise LocustConfigError(f"locust config: unknown field {unknown[0]!r} (fields: {', '.join(FIELDS)})")
    name = cfg.get("name")
    if not isinstance(name, str) or not 0 < len(name) <= 253 or any(c.isspace() for c in name):
        raise LocustConfigError("locust config: 'name' must be a DNS name (1..253 characters, no spaces)")
    _number(cfg, "port", 1, 65535, integer=True)
    edges = int(_number(cfg, "edges", 1, MAX_EDGES, integer=True))
    clients = int(_number(cfg, "clients", 1, MAX_CLIENTS, integer=True))
    if clients < edges:
        raise LocustConfigError(f"locust config: 'clients' ({clients}) must be at least 'edges' ({edges})")
    duration = _number(cfg, "duration", 0.001, 86400)
    _number(cfg, "rpc_interval", 0.001, 3600)
    _number(cfg, "rpc_timeout", 0.001, 3600)
    max_seconds = _number(cfg, "max_seconds", 1, 86400)
    _number(cfg, "min_resolution_ms", 0, 3_600_000, integer=True)
    if cfg.get("policy") not in LB_POLICIES:
        raise LocustConfigError(f"locust config: 'policy' must be one of {', '.join(LB_POLICIES)}")
    resolvers = cfg.get("resolvers")
    if not isinstance(resolvers, list) or not all(isinstance(r, str) for r in resolvers):
        raise LocustConfigError("locust config: 'resolvers' must be a list of IP:PORT strings ([] = the system resolver)")
    allow_remote = cfg.get("allow_remote", False)
    if not isinstance(allow_remote, bool):
        raise LocustConfigError("locust config: 'allow_remote' must be true or false")
    remote = not resolvers or not all(_is_loopback(r) for r in resolvers)
    if remote and not allow_remote:
        raise LocustConfigError(
            "locust config: the resolvers are not all on 127.0.0.0/8 (or none is given: the system resolver); "
            "set 'allow_remote': true to rehearse against a staging origin"
        )
    if remote and (clients > MAX_REMOTE_CLIENTS or max_seconds > MAX_REMOTE_SECONDS or duration > MAX_REMOTE_SECONDS):
        raise LocustConfigError(
            f"locust config: a remote target is bounded: 'clients' <= {MAX_REMOTE_CLIENTS}, "
            f"'duration' and 'max_seconds' <= {MAX_REMOTE_SECONDS:g}"
        )
    for key in ("status_path", "result_path"):
        if key in cfg and not isinstance(cfg[key], str):
            raise LocustConfigError(f"locust config: {key!r} must be a path string")
    return {**cfg, "allow_remote": allow_remote, "remote": remote}


def load_config(path: str) -> dict[str, Any]:
    """Read and check the configuration file."""
    try:
        with open(path, encoding="utf-8") as fh:
            raw = json.load(fh)
    except OSError as exc:
        raise LocustConfigError(f"locust config: cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise LocustConfigError(f"locust config: {path} is not JSON: {exc}") from None
    return validate_config(raw)


def clients_of_edge(edge: int, edges: int, clients: int) -> list[int]:
    """Client ``i`` uses edge ``i % edges`` (the built-in engine's assignment)."""
    return list(range(edge, clients, edges))


def target_of(cfg: dict[str, Any], edge: int) -> tuple[str, str]:
    """(gRPC target, resolver label) of an edge: ``dns://IP:PORT/name:port``, or the system resolver's."""
    resolvers = cfg.get("resolvers") or []
    host = f"{cfg['name']}:{cfg['port']}"
    if not resolvers:
        return f"dns:///{host}", "system"
    resolver = resolvers[edge % len(resolvers)]
    return f"dns://{resolver}/{host}", resolver.rpartition(":")[0]
