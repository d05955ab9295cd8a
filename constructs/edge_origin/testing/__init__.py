"""Loopback helpers for rehearsing a connection profile on real gRPC (tests and users alike).

Layer 5. May import: core, data, answers, profile, model, rules, review, cdk, rehearsal, forecast, live, testing.
"""

from edge_origin.testing.relay import Flow, Frame, Relay

__all__ = ["Flow", "Frame", "Relay"]
