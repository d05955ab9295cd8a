"""The scaled connection profile the loopback keepalive proofs share: it passes its own checks
(pings every 1 s, the server allows one every 0.5 s, a 3 s NLB idle timeout)."""

from __future__ import annotations

from edge_origin.profile import ConnectionProfile

SCALED_PROFILE = ConnectionProfile(
    client_keepalive_time_s=1,
    client_keepalive_timeout_s=1,
    client_permit_without_calls=True,
    server_min_ping_interval_s=0.5,
    server_permit_without_calls=True,
    server_max_ping_strikes=2,
    server_max_connection_age_s=None,
    server_max_connection_age_grace_s=None,
    server_max_connection_idle_s=None,
    nlb_idle_timeout_s=3,
    cloudfront_keepalive_timeout_s=1,
    cloudfront_read_timeout_s=2,
    longest_stream_gap_s=1,
    p99_rpc_duration_s=0.05,
)
