"""Renderers: the gRPC settings each language gets from one profile."""

from __future__ import annotations

import json

import pytest
import yaml

from edge_origin.profile import (
    ConnectionProfile,
    RenderError,
    client_service_config,
    configmap,
    python_channel_options,
    render,
)

PROFILE = ConnectionProfile.preset("internal-unary").replace(server_max_connection_idle_s=None)

# The real C-core keys (include/grpc/impl/channel_arg_names.h, and chttp2's internal ping timeout).
CLIENT_KEYS = {
    "grpc.keepalive_time_ms",
    "grpc.keepalive_timeout_ms",
    "grpc.http2.ping_timeout_ms",
    "grpc.keepalive_permit_without_calls",
    "grpc.http2.max_pings_without_data",
}
SERVER_KEYS = {
    "grpc.keepalive_permit_without_calls",
    "grpc.http2.min_ping_interval_without_data_ms",
    "grpc.http2.max_ping_strikes",
    "grpc.max_connection_age_ms",
    "grpc.max_connection_age_grace_ms",
    "grpc.max_connection_idle_ms",
    "grpc.keepalive_time_ms",
    "grpc.keepalive_timeout_ms",
}


def test_python_client_options() -> None:
    options = dict(python_channel_options(PROFILE, "client"))
    assert set(options) == CLIENT_KEYS
    assert options["grpc.keepalive_time_ms"] == 45_000
    assert options["grpc.keepalive_timeout_ms"] == options["grpc.http2.ping_timeout_ms"] == 10_000
    assert options["grpc.http2.max_pings_without_data"] == 0
    assert all(isinstance(v, int) for v in options.values())


def test_python_server_options_leave_out_unset_durations() -> None:
    options = dict(python_channel_options(PROFILE, "server"))
    assert set(options) == SERVER_KEYS - {"grpc.max_connection_idle_ms"}
    assert options["grpc.http2.min_ping_interval_without_data_ms"] == 30_000
    assert options["grpc.max_connection_age_ms"] == 300_000
    assert options["grpc.max_connection_age_grace_ms"] == 30_000
    full = dict(python_channel_options(ConnectionProfile(), "server"))
    assert set(full) == SERVER_KEYS and full["grpc.max_connection_idle_ms"] == 900_000


def test_sub_second_durations_render_in_ms() -> None:
    scaled = ConnectionProfile(client_keepalive_time_s=1.5, client_keepalive_timeout_s=0.75)
    options = dict(python_channel_options(scaled, "client"))
    assert options["grpc.keepalive_time_ms"] == 1500 and options["grpc.http2.ping_timeout_ms"] == 750
    assert "1500 * time.Millisecond" in render(scaled, "go")
    assert "keepAliveTime(1500, TimeUnit.MILLISECONDS)" in render(scaled, "java")


def test_unknown_role() -> None:
    with pytest.raises(RenderError, match="role"):
        python_channel_options(PROFILE, "proxy")  # type: ignore[arg-type]


def test_service_config() -> None:
    assert client_service_config(PROFILE) == {"loadBalancingConfig": [{"round_robin": {}}]}
    pinned = PROFILE.replace(client_lb_policy="pick_first")
    assert client_service_config(pinned) == {"loadBalancingConfig": [{"pick_first": {}}]}
    assert json.loads(render(PROFILE, "service-config")) == client_service_config(PROFILE)


def test_go() -> None:
    text = render(PROFILE, "go")
    for needle in (
        "keepalive.ServerParameters{",
        "MaxConnectionAge:      300 * time.Second,",
        "Time:                  60 * time.Second,",  # ServerParameters.Time: the server's own pings
        "MaxConnectionAgeGrace: 30 * time.Second,",
        "keepalive.EnforcementPolicy{",
        "MinTime:             30 * time.Second,",
        "keepalive.ClientParameters{",
        "Time:                45 * time.Second,",
        "Timeout:             10 * time.Second,",
        "PermitWithoutStream: true,",
        '{"loadBalancingConfig":[{"round_robin":{}}]}',
    ):
        assert needle in text, needle
    assert "MaxConnectionIdle" not in text


def test_java() -> None:
    text = render(PROFILE, "java")
    for needle in (
        "NettyServerBuilder.forPort(port)",
        ".permitKeepAliveTime(30, TimeUnit.SECONDS)",
        ".permitKeepAliveWithoutCalls(true)",
        ".maxConnectionAge(300, TimeUnit.SECONDS)",
        ".maxConnectionAgeGrace(30, TimeUnit.SECONDS);",
        "NettyChannelBuilder.forTarget(target)",
        ".keepAliveTime(45, TimeUnit.SECONDS)",
        ".keepAliveTimeout(10, TimeUnit.SECONDS)",
        ".keepAliveWithoutCalls(true)",
        '.defaultLoadBalancingPolicy("round_robin");',
    ):
        assert needle in text, needle


def test_python_text_is_valid_python_with_the_same_options() -> None:
    namespace: dict[str, object] = {}
    exec(compile(render(PROFILE, "python"), "<render>", "exec"), namespace)  # noqa: S102 (our own output)
    assert namespace["CLIENT_OPTIONS"] == python_channel_options(PROFILE, "client")
    assert namespace["SERVER_OPTIONS"] == python_channel_options(PROFILE, "server")
    assert json.loads(namespace["CLIENT_SERVICE_CONFIG"]) == client_service_config(PROFILE)  # type: ignore[arg-type]


def test_configmap() -> None:
    cm = configmap(PROFILE, "orders-grpc-profile", "orders")
    assert cm["apiVersion"] == "v1" and cm["kind"] == "ConfigMap"
    assert cm["metadata"]["name"] == "orders-grpc-profile" and cm["metadata"]["namespace"] == "orders"
    data = cm["data"]
    assert all(isinstance(v, str) for v in data.values())
    assert ConnectionProfile.from_metadata(json.loads(data["profile.json"])) == PROFILE
    assert [tuple(x) for x in json.loads(data["python-client-options.json"])] == python_channel_options(PROFILE)
    assert yaml.safe_load(yaml.safe_dump(cm)) == cm
    assert yaml.safe_load(render(PROFILE, "configmap"))["kind"] == "ConfigMap"


def test_configmap_needs_a_name() -> None:
    with pytest.raises(RenderError, match="name"):
        configmap(PROFILE, "")


def test_unknown_language() -> None:
    with pytest.raises(RenderError, match="lang"):
        render(PROFILE, "cobol")
