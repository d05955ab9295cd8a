"""Loopback helpers for rehearsing a connection profile on real gRPC (tests and users alike)."""

from edge_origin.testing.relay import Flow, Frame, Relay

__all__ = ["Flow", "Frame", "Relay"]
