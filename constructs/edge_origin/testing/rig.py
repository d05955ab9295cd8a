"""A rehearsal rig: gRPC health servers -> NLB-like relay -> one gRPC client channel, on loopback."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import grpc

from edge_origin.testing.health import HealthServer, health_servers
from edge_origin.testing.relay import Relay


@dataclass
class Rig:
    servers: list[HealthServer]
    relay: Relay
    channel: grpc.Channel

    def per_backend(self) -> list[int]:
        """Check RPCs answered by each backend, in backend order."""
        return [s.servicer.checks for s in self.servers]


@contextmanager
def rig(
    server_options: Sequence[tuple[str, int]],
    client_options: Sequence[tuple[str, int | str]],
    *,
    backends: int = 1,
    hosts: Sequence[str] = ("127.0.0.1",),
    idle_timeout_s: float | None = None,
) -> Iterator[Rig]:
    """Servers with ``server_options``, a relay in front, a client channel with ``client_options``.

    The channel gets its own subchannel pool, so rigs in one process never share a connection.
    Everything is stopped on exit, also on failure.
    """
    with health_servers(backends, server_options, hosts=hosts) as servers:
        relay = Relay([s.address for s in servers], idle_timeout_s=idle_timeout_s).start()
        channel = None
        try:
            channel = grpc.insecure_channel(
                relay.target, options=[*client_options, ("grpc.use_local_subchannel_pool", 1)]
            )
            yield Rig(servers, relay, channel)
        finally:
            if channel is not None:
                channel.close()
            relay.stop()
