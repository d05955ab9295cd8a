"""The rendered Python origin-verification interceptor on real grpcio, loopback only.

The interceptor source is what ``edge-origin profile render --lang python-interceptor`` prints
(and the ConfigMap carries), imported from a file. One server (127.0.0.1, port 0) serves the
standard health service plus raw-bytes echo methods (unary and bidi streaming, no protoc); every
call has a deadline; the server and the channel are stopped in ``finally``.
"""

from __future__ import annotations

import importlib.util
import json
import os
from concurrent import futures
from pathlib import Path
from types import ModuleType

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from edge_origin.core.origin_verification import OriginVerification
from edge_origin.profile.interceptors import render_interceptor

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]

CURRENT, PREVIOUS, NEWER = "cUrReNt0123456789abcdefABCDEF", "pReViOuS0123456789abcdefABCDEF", "nEwEr0123456789abcdefABCDEFxyz"
DEADLINE_S = 5


def _load(tmp_path: Path, header: str) -> ModuleType:
    source = tmp_path / "origin_verify.py"
    source.write_text(render_interceptor("python-interceptor", OriginVerification(header_name=header)))
    spec = importlib.util.spec_from_file_location("rendered_origin_verify", source)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write_secret(path: Path, data: dict[str, str]) -> None:
    """Replace the file atomically, as the kubelet swaps a mounted secret."""
    staged = path.with_suffix(".tmp")
    staged.write_text(json.dumps(data))
    os.replace(staged, path)


def _echo_handlers() -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(
        "test.Echo",
        {
            "Say": grpc.unary_unary_rpc_method_handler(lambda request, context: request),
            "Chat": grpc.stream_stream_rpc_method_handler(lambda requests, context: (r for r in requests)),
        },
    )


def _code(call) -> str:  # noqa: ANN001 - a callable that makes one RPC
    try:
        call()
        return "OK"
    except grpc.RpcError as exc:
        assert CURRENT not in (exc.details() or "") and PREVIOUS not in (exc.details() or "")
        return exc.code().name


def test_rendered_interceptor_refuses_without_header_passes_both_values_and_health(tmp_path: Path) -> None:
    header = "x-origin-verify"
    module = _load(tmp_path, header)
    secret_file = tmp_path / "origin-verify"
    _write_secret(secret_file, {"current": CURRENT, "previous": PREVIOUS})
    interceptor = module.OriginVerifyInterceptor(module.OriginVerifySecret(path=str(secret_file), reload_s=0))
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4), interceptors=[interceptor], options=[("grpc.so_reuseport", 0)]
    )
    channel = None
    try:
        health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
        server.add_generic_rpc_handlers((_echo_handlers(),))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1)])
        say = channel.unary_unary("/test.Echo/Say")
        chat = channel.stream_stream("/test.Echo/Chat")
        check = health_pb2_grpc.HealthStub(channel).Check

        def unary(*metadata: tuple[str, str]):  # noqa: ANN202
            return lambda: say(b"ping", timeout=DEADLINE_S, metadata=metadata)

        def stream(*metadata: tuple[str, str]):  # noqa: ANN202
            return lambda: list(chat(iter([b"a", b"b"]), timeout=DEADLINE_S, metadata=metadata))

        assert _code(unary()) == "UNAUTHENTICATED"
        assert _code(unary((header, "wrong"))) == "UNAUTHENTICATED"
        assert _code(unary((header, CURRENT[:-1]))) == "UNAUTHENTICATED"  # a prefix is not the value
        assert _code(unary(("x-other", CURRENT))) == "UNAUTHENTICATED"  # the value under another name
        assert _code(unary((header, CURRENT), (header, "wrong"))) == "UNAUTHENTICATED"  # exactly one header
        assert _code(unary((header, CURRENT))) == "OK"
        assert _code(unary((header, PREVIOUS))) == "OK"
        assert say(b"ping", timeout=DEADLINE_S, metadata=((header, CURRENT),)) == b"ping"
        assert _code(stream()) == "UNAUTHENTICATED"
        assert _code(stream((header, PREVIOUS))) == "OK"
        # health checks carry no header (the NLB and Route 53 do not come through CloudFront)
        assert check(health_pb2.HealthCheckRequest(), timeout=DEADLINE_S).status == health_pb2.HealthCheckResponse.SERVING
        refused_before = interceptor.refused

        # rotation: the mounted secret moves on; the old previous is refused, the rest pass
        _write_secret(secret_file, {"current": NEWER, "previous": CURRENT})
        assert _code(unary((header, PREVIOUS))) == "UNAUTHENTICATED"
        assert _code(unary((header, CURRENT))) == "OK"
        assert _code(unary((header, NEWER))) == "OK"
        assert interceptor.refused == refused_before + 1

        # the secret disappears: the last loaded values stay (a kubelet swap is never half-done)
        secret_file.unlink()
        assert _code(unary((header, NEWER))) == "OK"
    finally:
        if channel is not None:
            channel.close()
        server.stop(grace=None).wait(timeout=5)


def test_rendered_interceptor_fails_closed_without_a_secret(tmp_path: Path) -> None:
    module = _load(tmp_path, "x-proof-of-origin")
    interceptor = module.OriginVerifyInterceptor(module.OriginVerifySecret(path=str(tmp_path / "absent"), reload_s=0))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), interceptors=[interceptor], options=[("grpc.so_reuseport", 0)])
    channel = None
    try:
        health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
        server.add_generic_rpc_handlers((_echo_handlers(),))
        port = server.add_insecure_port("127.0.0.2:0")
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.2:{port}", options=[("grpc.use_local_subchannel_pool", 1)])
        say = channel.unary_unary("/test.Echo/Say")
        assert _code(lambda: say(b"x", timeout=DEADLINE_S, metadata=(("x-proof-of-origin", ""),))) == "UNAUTHENTICATED"
        assert _code(lambda: say(b"x", timeout=DEADLINE_S, metadata=(("x-proof-of-origin", "anything"),))) == "UNAUTHENTICATED"
        check = health_pb2_grpc.HealthStub(channel).Check
        assert check(health_pb2.HealthCheckRequest(), timeout=DEADLINE_S).status == health_pb2.HealthCheckResponse.SERVING
    finally:
        if channel is not None:
            channel.close()
        server.stop(grace=None).wait(timeout=5)


def test_rendered_async_interceptor_on_a_grpc_aio_server(tmp_path: Path) -> None:
    """The same checks on grpc.aio (what the rehearsal origins run): one event loop, bounded, stopped."""
    import asyncio

    header = "x-origin-verify"
    module = _load(tmp_path, header)
    interceptor = module.AsyncOriginVerifyInterceptor(module.OriginVerifySecret(value=json.dumps({"current": CURRENT, "previous": PREVIOUS})))

    async def scenario() -> list[str]:
        server = grpc.aio.server(interceptors=[interceptor], options=[("grpc.so_reuseport", 0)])
        channel = None
        try:
            health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
            server.add_generic_rpc_handlers((_echo_handlers_async(),))
            port = server.add_insecure_port("127.0.0.3:0")
            await server.start()
            channel = grpc.aio.insecure_channel(f"127.0.0.3:{port}", options=[("grpc.use_local_subchannel_pool", 1)])
            say = channel.unary_unary("/test.Echo/Say")
            chat = channel.stream_stream("/test.Echo/Chat")

            async def code(coro_factory) -> str:  # noqa: ANN001
                try:
                    await coro_factory()
                    return "OK"
                except grpc.aio.AioRpcError as exc:
                    assert CURRENT not in (exc.details() or "")
                    return exc.code().name

            async def chat_all(*metadata: tuple[str, str]) -> list[bytes]:
                call = chat(iter([b"a", b"b"]), timeout=DEADLINE_S, metadata=metadata)
                return [m async for m in call]

            check = health_pb2_grpc.HealthStub(channel).Check
            return [
                await code(lambda: say(b"x", timeout=DEADLINE_S)),
                await code(lambda: say(b"x", timeout=DEADLINE_S, metadata=((header, "nope"),))),
                await code(lambda: say(b"x", timeout=DEADLINE_S, metadata=((header, CURRENT),))),
                await code(lambda: say(b"x", timeout=DEADLINE_S, metadata=((header, PREVIOUS),))),
                await code(lambda: chat_all()),
                await code(lambda: chat_all((header, CURRENT))),
                await code(lambda: check(health_pb2.HealthCheckRequest(), timeout=DEADLINE_S)),
            ]
        finally:
            if channel is not None:
                await channel.close()
            await server.stop(grace=None)

    codes = asyncio.run(asyncio.wait_for(scenario(), timeout=30))
    # The refused bidi stream: the server aborts with UNAUTHENTICATED, but the aio client can lose the
    # race with its own request-writer task (the call ends while it still sends) and report INTERNAL
    # (seen once in CI). Either way the call is refused; the interceptor's count says it refused it.
    assert codes[4] in ("UNAUTHENTICATED", "INTERNAL"), codes
    codes[4] = "UNAUTHENTICATED"
    assert codes == ["UNAUTHENTICATED", "UNAUTHENTICATED", "OK", "OK", "UNAUTHENTICATED", "OK", "OK"]
    assert interceptor.refused == 3


def _echo_handlers_async() -> grpc.GenericRpcHandler:
    async def say(request: bytes, context) -> bytes:  # noqa: ANN001
        return request

    async def chat(requests, context):  # noqa: ANN001, ANN201
        async for r in requests:
            yield r

    return grpc.method_handlers_generic_handler(
        "test.Echo",
        {"Say": grpc.unary_unary_rpc_method_handler(say), "Chat": grpc.stream_stream_rpc_method_handler(chat)},
    )
