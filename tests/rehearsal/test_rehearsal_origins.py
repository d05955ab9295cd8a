"""Origins and the connection sampler on loopback: the asyncio health service, netlink vs /proc."""

from __future__ import annotations

import socket
import time
from contextlib import ExitStack

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from edge_origin.rehearsal.origins import ConnectionSampler, OriginLoop, OriginServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


def _free_port(ip: str) -> int:
    with socket.socket() as s:
        s.bind((ip, 0))
        return int(s.getsockname()[1])


def test_origin_answers_check_names_itself_and_counts() -> None:
    loop = OriginLoop()
    port = _free_port("127.0.10.1")
    origin = OriginServer("o1", "127.0.10.1", port, loop=loop)
    try:
        origin.start()
        with grpc.insecure_channel(f"127.0.10.1:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply, call = stub.Check.with_call(health_pb2.HealthCheckRequest(service=""), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            assert dict(call.trailing_metadata())["x-origin"] == "o1"
            with pytest.raises(grpc.RpcError) as err:
                stub.Check(health_pb2.HealthCheckRequest(service="other"), timeout=5)
            assert err.value.code() == grpc.StatusCode.NOT_FOUND
        assert origin.rpcs == 2
        assert origin.connections == 1
    finally:
        origin.stop()
        loop.close()


def test_netlink_sampler_sees_what_proc_sees() -> None:
    port = _free_port("127.0.10.1")
    with ExitStack() as stack:
        listeners = []
        for ip in ("127.0.10.1", "127.0.10.2"):
            lst = stack.enter_context(socket.socket())
            lst.bind((ip, port))
            lst.listen(64)
            listeners.append(lst)
        for i in range(40):
            s = stack.enter_context(socket.socket())
            s.connect((f"127.0.10.{1 + i % 2}", port))
        time.sleep(0.2)
        origins = [OriginServer(f"o{i}", f"127.0.10.{i}", port) for i in (1, 2)]  # not started: ip/port only
        netlink = ConnectionSampler(origins)
        netlink.sample()
        proc = ConnectionSampler(origins)
        proc.netlink = False
        proc.sample()
        if not netlink.netlink:
            pytest.skip("sock_diag netlink not available here")
        assert {k: len(v) for k, v in netlink.seen.items()} == {"o1": 20, "o2": 20}
        assert netlink.seen == proc.seen


@pytest.mark.timeout(10)
def test_one_sample_counts_a_connection_once_when_the_table_read_repeats_a_row(tmp_path) -> None:
    """/proc/net/tcp is read a page at a time while the table changes; a row may appear twice."""
    from edge_origin.rehearsal.origins import _hex_endpoint

    origin = OriginServer("o1", "127.0.10.1", 50051)
    local = _hex_endpoint("127.0.10.1", 50051)
    peer = _hex_endpoint("127.0.0.1", 58032)
    other = _hex_endpoint("127.0.0.1", 58033)
    rows = [f"   0: {local} {peer} 01 0\n", f"   1: {local} {other} 01 0\n", f"   2: {local} {peer} 01 0\n"]
    table = tmp_path / "tcp"
    table.write_text("  sl  local_address rem_address   st\n" + "".join(rows))
    sampler = ConnectionSampler([origin])
    sampler.netlink = False
    sampler.PROCS = (str(table),)
    sampler.sample()
    assert sampler.seen["o1"] == {"127.0.0.1:58032": 1, "127.0.0.1:58033": 1}
    sampler.sample()
    assert sampler.seen["o1"] == {"127.0.0.1:58032": 2, "127.0.0.1:58033": 2}


def test_a_stopped_origin_counts_after_the_stop_only_what_begins_once_its_server_stopped() -> None:
    """``stop()`` marks the origin stopping once its server has stopped (an RPC the transport took before the stop may
    still run while it shuts down: served before the kill); a handler that begins after that is counted, and a client
    can no longer reach the origin."""
    loop = OriginLoop()
    port = _free_port("127.0.10.3")
    origin = OriginServer("o3", "127.0.10.3", port, loop=loop)
    try:
        origin.start()
        with grpc.insecure_channel(f"127.0.10.3:{port}") as channel:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
        service = origin._service  # noqa: SLF001
        assert not service.stopping and origin.rpcs_after_stop == 0
        origin.stop(grace=None)
        assert service.stopping and origin.rpcs_after_stop == 0 and origin.stopped_at is not None
        with grpc.insecure_channel(f"127.0.10.3:{port}") as channel, pytest.raises(grpc.RpcError) as err:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=2)
        assert err.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    finally:
        origin.stop()
        loop.close()
