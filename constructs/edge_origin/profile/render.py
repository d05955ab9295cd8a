"""Render a connection profile as the service-side settings: grpc-go, grpc-java, C-core / Python.

The Python channel options are the ones the loopback proofs run with (tests/loopback), so every
key here is known to take effect: gRPC ignores unknown channel-arg keys silently.

Why ``grpc.http2.ping_timeout_ms`` is rendered next to ``grpc.keepalive_timeout_ms``. In the
chttp2 transport of current C-core (grpcio 1.85), when a write carrying a new ping completes, the
ping is guarded by one timer of ``ping_timeout``: the key ``grpc.http2.ping_timeout_ms``
(``GRPC_ARG_PING_TIMEOUT_MS``, defined in chttp2's internal header, not among the public channel
arg names), default 60 s whenever keepalive is on. That timer is armed only while
``keepalive_timeout`` is finite, so ``grpc.keepalive_timeout_ms`` acts as an on/off gate. The
keepalive-specific timer of ``keepalive_timeout`` is armed only when ``keepalive_timeout <
ping_timeout`` *and* a keepalive-timeout handle is already pending, and nothing else sets that
handle, so it never fires. Measured here (tests/loopback/test_keepalive_keys.py, 1 s keepalive,
flow dropped silently by the relay):

* ``keepalive_timeout_ms`` 1 s alone: the RPC hangs to its 10 s deadline (the wait is 60 s);
* ``keepalive_timeout_ms`` 1 s + ``ping_timeout_ms`` 6 s: UNAVAILABLE "ping timeout" after 6.3 s;
* both 1 s (rendered): UNAVAILABLE "ping timeout" after about 2.3 s;
* ``keepalive_timeout_ms`` INT_MAX + ``ping_timeout_ms`` 1 s: hangs to the deadline (gate closed).

So both keys get the profile's ``client_keepalive_timeout_s``: the client notices a dead flow
``keepalive_time + keepalive_timeout`` after its last read.
"""

from __future__ import annotations

import json

from edge_origin.profile import policy
from edge_origin.profile.core import PING_TIMEOUT_KEY, ConnectionProfile

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any, Literal

    Role = Literal["client", "server"]

LANGS = ("go", "java", "python", "service-config", "configmap", "go-interceptor", "java-interceptor", "python-interceptor")
"""The ``*-interceptor`` languages render the origin-verification interceptors (profile.interceptors)."""


class RenderError(ValueError):
    """Unknown language or role, or a profile the language's server cannot honour."""


def honour_problem(profile: ConnectionProfile, lang: str) -> str:
    """Why ``lang``'s rendering cannot carry ``profile`` as written ('' when it can): the policy table
    (:mod:`edge_origin.profile.policy`) says which settings each implementation has."""
    impl = policy.policy_for(lang)
    return impl.render_problem(profile.server_max_ping_strikes) if impl is not None else ""


def require_honoured(profile: ConnectionProfile, lang: str) -> None:
    problem = honour_problem(profile, lang)
    if problem:
        raise RenderError(f"--lang {lang}: not rendered: {problem}")


def server_keepalive_s(profile: ConnectionProfile, lang: str) -> float:
    """The server keepalive time rendered for ``lang``: the profile's, else the implementation default (2 h)."""
    impl = policy.POLICIES[lang]
    return impl.default_server_keepalive_s if profile.server_keepalive_time_s is None else profile.server_keepalive_time_s


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def python_channel_options(profile: ConnectionProfile, role: Role = "client") -> list[tuple[str, int]]:
    """C-core channel args (grpcio ``options=``) for a client channel or a server.

    Client: keepalive time, keepalive timeout *and* ``grpc.http2.ping_timeout_ms`` (see the module
    docstring), permit-without-calls, and ``grpc.http2.max_pings_without_data=0`` (otherwise a
    C-core client stops pinging after 2 pings without data, so idle connections go silent).
    Server: ping floor, strikes, permit-without-calls, server keepalive time / timeout, max
    connection age / grace / idle (only those that are set).
    """
    if role == "client":
        return [
            ("grpc.keepalive_time_ms", _ms(profile.client_keepalive_time_s)),
            ("grpc.keepalive_timeout_ms", _ms(profile.client_keepalive_timeout_s)),
            (PING_TIMEOUT_KEY, _ms(profile.client_keepalive_timeout_s)),
            ("grpc.keepalive_permit_without_calls", int(profile.client_permit_without_calls)),
            ("grpc.http2.max_pings_without_data", 0),
        ]
    if role == "server":
        options = [
            ("grpc.keepalive_permit_without_calls", int(profile.server_permit_without_calls)),
            ("grpc.http2.min_ping_interval_without_data_ms", _ms(profile.server_min_ping_interval_s)),
            ("grpc.http2.max_ping_strikes", int(profile.server_max_ping_strikes)),
            ("grpc.keepalive_time_ms", _ms(server_keepalive_s(profile, "python"))),
            ("grpc.keepalive_timeout_ms", _ms(profile.server_keepalive_timeout_s)),
        ]
        for key, value in (
            ("grpc.max_connection_age_ms", profile.server_max_connection_age_s),
            ("grpc.max_connection_age_grace_ms", profile.server_max_connection_age_grace_s),
            ("grpc.max_connection_idle_ms", profile.server_max_connection_idle_s),
        ):
            if value is not None:
                options.append((key, _ms(value)))
        return options
    raise RenderError(f"role: must be client or server, got {role!r}")


def client_service_config(profile: ConnectionProfile) -> dict[str, Any]:
    """The client's default service config: the load-balancing policy (round_robin for in-VPC clients)."""
    return {"loadBalancingConfig": [{profile.client_lb_policy: {}}]}


def _go_duration(seconds: float | None) -> str:
    if seconds is None:
        return "infinity"
    if float(seconds).is_integer():
        return f"{int(seconds)} * time.Second"
    return f"{_ms(seconds)} * time.Millisecond"


def render_go(profile: ConnectionProfile) -> str:
    """grpc-go server and client options; RenderError when grpc-go cannot honour the profile."""
    require_honoured(profile, "go")
    p = profile
    server = [
        f"\t\t{'Time:':<23}{_go_duration(server_keepalive_s(p, 'go'))},",
        f"\t\t{'Timeout:':<23}{_go_duration(p.server_keepalive_timeout_s)},",
    ]
    for field, value in (
        ("MaxConnectionIdle", p.server_max_connection_idle_s),
        ("MaxConnectionAge", p.server_max_connection_age_s),
        ("MaxConnectionAgeGrace", p.server_max_connection_age_grace_s),
    ):
        if value is not None:
            server.append(f"\t\t{field + ':':<23}{_go_duration(value)},")
    service_config = json.dumps(client_service_config(p), separators=(",", ":"))
    return "\n".join(
        [
            "// Generated by edge-origin from a connection profile: keep in step with the NLB and CloudFront.",
            "// import (\"time\"; \"google.golang.org/grpc\"; \"google.golang.org/grpc/keepalive\")",
            "",
            "// Server",
            "srv := grpc.NewServer(",
            "\tgrpc.KeepaliveParams(keepalive.ServerParameters{",
            *server,
            "\t}),",
            "\tgrpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{",
            f"\t\tMinTime:             {_go_duration(p.server_min_ping_interval_s)},",
            f"\t\tPermitWithoutStream: {str(p.server_permit_without_calls).lower()},",
            "\t}),",
            f"\t// max ping strikes: {policy.GO.fixed_strikes}, hard-coded ({policy.GO.source['strikes']})",
            ")",
            "",
            "// Client",
            "conn, err := grpc.NewClient(target,",
            "\tgrpc.WithKeepaliveParams(keepalive.ClientParameters{",
            f"\t\tTime:                {_go_duration(p.client_keepalive_time_s)},",
            f"\t\tTimeout:             {_go_duration(p.client_keepalive_timeout_s)},",
            f"\t\tPermitWithoutStream: {str(p.client_permit_without_calls).lower()},",
            "\t}),",
            f"\tgrpc.WithDefaultServiceConfig(`{service_config}`),",
            ")",
            "",
        ]
    )


def _java_duration(seconds: float) -> str:
    if float(seconds).is_integer():
        return f"{int(seconds)}, TimeUnit.SECONDS"
    return f"{_ms(seconds)}, TimeUnit.MILLISECONDS"


def render_java(profile: ConnectionProfile) -> str:
    """grpc-java (Netty) server and client builders; RenderError when grpc-java cannot honour the profile."""
    require_honoured(profile, "java")
    p = profile
    server = [
        "NettyServerBuilder.forPort(port)",
        f"    .keepAliveTime({_java_duration(server_keepalive_s(p, 'java'))})",
        f"    .keepAliveTimeout({_java_duration(p.server_keepalive_timeout_s)})",
        f"    .permitKeepAliveTime({_java_duration(p.server_min_ping_interval_s)})",
        f"    .permitKeepAliveWithoutCalls({str(p.server_permit_without_calls).lower()})",
    ]
    for method, value in (
        ("maxConnectionAge", p.server_max_connection_age_s),
        ("maxConnectionAgeGrace", p.server_max_connection_age_grace_s),
        ("maxConnectionIdle", p.server_max_connection_idle_s),
    ):
        if value is not None:
            server.append(f"    .{method}({_java_duration(value)})")
    server[-1] += ";"
    return "\n".join(
        [
            "// Generated by edge-origin from a connection profile: keep in step with the NLB and CloudFront.",
            "// import io.grpc.netty.NettyServerBuilder; io.grpc.netty.NettyChannelBuilder;",
            "// java.util.concurrent.TimeUnit;",
            f"// max ping strikes: {policy.JAVA.fixed_strikes}, hard-coded ({policy.JAVA.source['strikes']})",
            "",
            "// Server",
            *server,
            "",
            "// Client",
            "NettyChannelBuilder.forTarget(target)",
            f"    .keepAliveTime({_java_duration(p.client_keepalive_time_s)})",
            f"    .keepAliveTimeout({_java_duration(p.client_keepalive_timeout_s)})",
            f"    .keepAliveWithoutCalls({str(p.client_permit_without_calls).lower()})",
            f'    .defaultLoadBalancingPolicy("{p.client_lb_policy}");',
            "",
        ]
    )


def render_python(profile: ConnectionProfile) -> str:
    def block(name: str, options: list[tuple[str, int]]) -> list[str]:
        return [f"{name} = [", *(f"    ({k!r}, {v})," for k, v in options), "]"]

    service_config = json.dumps(client_service_config(profile))
    return "\n".join(
        [
            "# Generated by edge-origin from a connection profile: keep in step with the NLB and CloudFront.",
            "# grpc.http2.ping_timeout_ms is what bounds the wait for a keepalive ack in C-core;",
            "# grpc.keepalive_timeout_ms alone does not (see edge_origin.profile.render).",
            *block("CLIENT_OPTIONS", python_channel_options(profile, "client")),
            f"CLIENT_SERVICE_CONFIG = {service_config!r}",
            "# channel = grpc.insecure_channel(target, options=CLIENT_OPTIONS",
            "#     + [('grpc.service_config', CLIENT_SERVICE_CONFIG)])",
            "",
            *block("SERVER_OPTIONS", python_channel_options(profile, "server")),
            "# server = grpc.server(executor, options=SERVER_OPTIONS)",
            "",
        ]
    )


def configmap(profile: ConnectionProfile, name: str, namespace: str = "default") -> dict[str, Any]:
    """A Kubernetes ConfigMap carrying the profile and its rendered settings, for the pods."""
    if not name:
        raise RenderError("name: a ConfigMap needs a name")
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app.kubernetes.io/managed-by": "edge-origin"},
        },
        "data": {
            "profile.json": json.dumps(profile.to_metadata(), sort_keys=True),
            "client-service-config.json": json.dumps(client_service_config(profile)),
            "python-client-options.json": json.dumps(python_channel_options(profile, "client")),
            "python-server-options.json": json.dumps(python_channel_options(profile, "server")),
            "grpc-go.txt": _or_refusal(render_go, profile, "go"),
            "grpc-java.txt": _or_refusal(render_java, profile, "java"),
        },
    }


def _or_refusal(renderer: Any, profile: ConnectionProfile, lang: str) -> str:
    """The rendering, or (when that implementation cannot honour the profile) a comment saying why."""
    problem = honour_problem(profile, lang)
    return f"// not rendered: {problem}\n" if problem else renderer(profile)


def render(profile: ConnectionProfile, lang: str) -> str:
    """Text for ``lang``: go, java, python, service-config (JSON) or configmap (YAML)."""
    if lang == "go":
        return render_go(profile)
    if lang == "java":
        return render_java(profile)
    if lang == "python":
        return render_python(profile)
    if lang == "service-config":
        return json.dumps(client_service_config(profile), indent=2) + "\n"
    if lang == "configmap":
        import yaml

        return yaml.safe_dump(configmap(profile, "edge-origin-connection-profile"), sort_keys=False)
    if lang.endswith("-interceptor") and lang in LANGS:
        from edge_origin.profile.interceptors import render_interceptor

        return render_interceptor(lang)
    raise RenderError(f"lang: unknown language {lang!r}; known: {', '.join(LANGS)}")
