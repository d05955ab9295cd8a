"""Issue 48: one way to call an operation an endpoint may lack (``live/optional.py``).

Each way an endpoint says "I do not have this" reads as ``not read: <Operation> (<why>)``: botocore
without the method, moto in-process (``NotImplementedError``), moto server (a bare 404, a 500 with no
AWS error code), a real account (``UnknownOperationException``, ``InvalidAction``, ``NotImplemented``,
``UnsupportedOperation``), AccessDenied and throttling. Never a traceback, never "none"."""

from __future__ import annotations

from typing import Any

import botocore.exceptions
import pytest
from botocore.stub import Stubber
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.live import optional, sdk_members
from edge_origin.live.optional import NOT_OFFERED_CODES, NotRead, call_optional, not_offered

#: Every optional operation the live commands call, with parameters that botocore accepts.
OPTIONAL_CALLS = [
    ("cloudfront", "ListVpcOrigins", {}),
    ("cloudfront", "GetVpcOrigin", {"Id": "vo-1"}),
    ("route53", "ListResourceRecordSetProtections", {"HostedZoneId": "Z1"}),
    ("route53", "ListHostedZoneChangeBatches", {"HostedZoneId": "Z1"}),
    ("route53", "GetHostedZoneChangeBatch", {"HostedZoneId": "Z1", "ChangeId": "C1"}),
    ("route53", "TestDNSAnswer", {"HostedZoneId": "Z1", "RecordName": "a.example.com", "RecordType": "A"}),
    ("route53", "GetAccountLimit", {"Type": "MAX_HEALTH_CHECKS_BY_OWNER"}),
    ("elbv2", "DescribeCapacityReservation", {"LoadBalancerArn": "arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/net/a/1"}),
]
IDS = [op for _, op, _ in OPTIONAL_CALLS]


def _client_error(code: str, status: int, operation: str) -> botocore.exceptions.ClientError:
    return botocore.exceptions.ClientError(
        {"Error": {"Code": code, "Message": "x"}, "ResponseMetadata": {"HTTPStatusCode": status}}, operation)


@pytest.mark.parametrize(("service", "operation", "params"), OPTIONAL_CALLS, ids=IDS)
def test_moto_in_process_not_implemented_is_not_read(moto_session: Any, service: str, operation: str, params: dict[str, Any]) -> None:
    got = call_optional(moto_session.client(service), service, operation, **params)
    if not isinstance(got, NotRead):  # moto has this one (DescribeCapacityReservation): an answer, not a guess
        assert isinstance(got, dict) and "ResponseMetadata" in got
        return
    assert str(got).startswith(f"not read: {operation} (")
    assert got.kind in {"not-offered", "failed"}  # moto: NotImplementedError, or its error for a made-up id


def test_moto_5_2_6_list_vpc_origins_reads_as_not_offered(moto_session: Any) -> None:
    """The issue's case: moto 5.2.6 raises NotImplementedError in-process (5.2.5: a bare 404)."""
    got = call_optional(moto_session.client("cloudfront"), "cloudfront", "ListVpcOrigins")
    assert isinstance(got, NotRead) and got.kind == "not-offered"
    assert str(got).startswith("not read: ListVpcOrigins (the endpoint does not")


@pytest.mark.parametrize(("service", "operation", "params"), OPTIONAL_CALLS, ids=IDS)
def test_moto_server_answers_are_not_read(server: Any, service: str, operation: str, params: dict[str, Any]) -> None:
    got = call_optional(server.client(service), service, operation, **params)
    if not isinstance(got, NotRead):
        assert isinstance(got, dict) and "ResponseMetadata" in got
        return
    assert str(got).startswith(f"not read: {operation} (") and got.kind in {"not-offered", "failed"}


def test_moto_server_list_vpc_origins_and_protections(server: Any) -> None:
    vpc = call_optional(server.client("cloudfront"), "cloudfront", "ListVpcOrigins")
    protections = call_optional(server.client("route53"), "route53", "ListResourceRecordSetProtections", HostedZoneId="Z1")
    assert isinstance(vpc, NotRead) and vpc.kind == "not-offered", vpc
    assert isinstance(protections, NotRead) and protections.kind == "not-offered", protections


CODES = sorted(NOT_OFFERED_CODES)


@pytest.mark.parametrize("code", CODES)
def test_a_real_account_s_unknown_operation_codes(code: str) -> None:
    client = _stubbed_route53(code, 400)
    got = call_optional(client, "route53", "TestDNSAnswer", HostedZoneId="Z1", RecordName="a.example.com", RecordType="A")
    assert isinstance(got, NotRead) and got.kind == "not-offered" and code in got.why


@pytest.mark.parametrize(("code", "status", "kind"), [
    ("AccessDenied", 403, "denied"), ("AccessDeniedException", 403, "denied"), ("Throttling", 400, "throttled"),
    ("InternalError", 500, "failed"), ("ServiceUnavailable", 503, "failed"),
    ("", 404, "not-offered"), ("404", 404, "not-offered"), ("500", 500, "not-offered"), ("", 501, "not-offered"),
])
def test_denied_throttled_failed_and_bare_statuses(code: str, status: int, kind: str) -> None:
    got = call_optional(_stubbed_route53(code, status), "route53", "TestDNSAnswer",
                        HostedZoneId="Z1", RecordName="a.example.com", RecordType="A")
    assert isinstance(got, NotRead) and got.kind == kind, got
    assert str(got).startswith("not read: TestDNSAnswer (")


def _stubbed_route53(code: str, status: int) -> Any:
    import boto3

    client = boto3.client("route53", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b")
    stub = Stubber(client)
    stub.add_client_error("test_dns_answer", service_error_code=code, http_status_code=status)
    stub.activate()
    return client


def test_an_sdk_without_the_operation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sdk_members, "service_operations", lambda service: frozenset())
    monkeypatch.setattr(sdk_members, "installed_botocore", lambda: "1.35.10")

    class NoCalls:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"{name} called although the SDK has no such operation")

    got = call_optional(NoCalls(), "cloudfront", "ListVpcOrigins")
    assert isinstance(got, NotRead) and got.kind == "sdk"
    assert str(got) == ("not read: ListVpcOrigins (botocore 1.35.10 < 1.35.66: the SDK has no ListVpcOrigins; "
                        "upgrade botocore to read it)")


def test_an_unreachable_endpoint_is_one_line_or_not_read() -> None:
    """Fatal to a command (LiveError: one line, exit 2); to the change engine's guard reads, "cannot tell"."""
    from edge_origin.live.session import LiveError

    class Unreachable:
        def list_vpc_origins(self, **_: Any) -> Any:
            raise botocore.exceptions.EndpointConnectionError(endpoint_url="http://127.0.0.1:9")

    with pytest.raises(LiveError, match="cloudfront ListVpcOrigins: cannot reach the endpoint"):
        call_optional(Unreachable(), "cloudfront", "ListVpcOrigins")
    got = call_optional(Unreachable(), "cloudfront", "ListVpcOrigins", fatal=False)
    assert isinstance(got, NotRead) and got.kind == "failed" and "cannot reach the endpoint" in got.why


def test_other_exceptions_are_not_swallowed() -> None:
    class Broken:
        def list_vpc_origins(self, **_: Any) -> Any:
            raise ZeroDivisionError("a bug of ours")

    with pytest.raises(ZeroDivisionError):
        call_optional(Broken(), "cloudfront", "ListVpcOrigins")


@settings(max_examples=60, deadline=None)
@given(code=st.text(min_size=0, max_size=30), status=st.integers(min_value=100, max_value=599))
def test_not_offered_only_for_what_says_so(code: str, status: int) -> None:
    """A code says "not offered" only when it is one of those codes, or a bare 404/405/500/501."""
    said = not_offered(_client_error(code, status, "TestDNSAnswer"))
    bare = code in ("", str(status), "NotFound", "Not Found", "InternalServerError") and status in optional.NOT_OFFERED_STATUSES
    assert (said is not None) == (code in NOT_OFFERED_CODES or bare)


def test_guard_client_turns_moto_s_not_implemented_into_a_botocore_error(moto_session: Any) -> None:
    """Also a required call moto lacks: a BotoCoreError the readers already classify, never a traceback."""
    from edge_origin.live.boundary import OperationNotOffered

    with pytest.raises(OperationNotOffered, match="ListVpcOrigins: the endpoint does not implement it"):
        moto_session.client("cloudfront").list_vpc_origins()


def test_audit_reads_the_rest_when_vpc_origins_are_not_offered(moto_session: Any) -> None:
    from edge_origin.live.account import VPC_ORIGINS_SERVICE
    from edge_origin.live.audit import audit

    result = audit(moto_session)
    assert result.account.unavailable == {VPC_ORIGINS_SERVICE: result.account.unavailable[VPC_ORIGINS_SERVICE]}
    assert any(n.startswith("CloudFront VPC origins: not read: ListVpcOrigins (") for n in result.notes)


def test_audit_says_which_fields_the_endpoint_did_not_return(moto_session: Any) -> None:
    """Issue 51: moto drops CloudFront's GrpcConfig; audit names the field, the distributions, and what it
    does to EO-DNS1 (a warning, not an error) and how to judge the name as gRPC anyway."""
    import accounts

    from edge_origin.live.account import GRPC_CONFIG_FIELD
    from edge_origin.live.audit import audit

    built = accounts.incident(moto_session)
    result = audit(moto_session)
    (note,) = [n for n in result.notes if n.startswith(GRPC_CONFIG_FIELD)]
    assert "not returned by the endpoint for distribution(s) " in note and "--grpc-origin NAME" in note
    assert "a weighted pile-up is then a warning" in note
    assert result.account.not_returned[GRPC_CONFIG_FIELD]
    given = audit(moto_session, grpc_origins=[accounts.ORIGIN])
    (note,) = [n for n in given.notes if n.startswith(GRPC_CONFIG_FIELD)]
    assert "the names given with --grpc-origin are judged as gRPC origins" in note
    accounts.fill_moto_gaps(moto_session, built)  # GrpcConfig returned: nothing to say
    assert [n for n in audit(moto_session).notes if n.startswith(GRPC_CONFIG_FIELD)] == []
