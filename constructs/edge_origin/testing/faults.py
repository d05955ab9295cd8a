"""Faults for boto3 clients: what real AWS endpoints do and moto never does.

``Faults`` is a list of faults, each hitting the calls of one operation (or ``"*"``) counted at
the wire: every attempt botocore sends is one call, so a fault on "the 2nd call of
ChangeResourceRecordSets" hits botocore's first resend. ``attach(client)`` installs it:

* on a botocore client (``boto3.client(...)``, in-process ``moto.mock_aws`` or a moto server)
  as a ``before-send`` event hook, registered first: botocore's own retries see the fault exactly
  as they would see it from AWS (a 500 is resent, ``Throttling`` backs off, a reset connection
  or a read timeout is retried);
* on anything else called like a client (``edge_origin.testing.route53.StrictRoute53``) as a
  wrapper that also resends as botocore's standard retry mode does (``max_attempts`` in all).

Faults (``times``: calls hit, None for every call; ``skip``: matching calls let through first):

* ``throttle``: ``Throttling: Rate exceeded`` (HTTP 400), nothing applied;
* ``prior_request_not_complete``: Route 53's ``PriorRequestNotComplete`` (HTTP 400);
* ``server_error``: HTTP 5xx, nothing applied; ``server_error_after_apply``: the request is
  applied, the answer is replaced by a 5xx (botocore resends the same request);
* ``reset_after_apply``: the request is applied, then the connection is reset;
* ``stall``: the endpoint does not answer before the read timeout (``ReadTimeoutError``) and
  the request lands ``"never"``, ``"before"`` the timeout, or ``"later"`` (just before the next
  call reaches the endpoint, or when ``release()`` is called);
* ``deny``: ``AccessDenied`` (HTTP 403), nothing applied;
* ``garbage``: an answer that is not an AWS one (an HTML 500 page, a text 503, a web server
  that is not AWS): botocore raises ``ResponseParserError``.

``log`` lists ``(operation, what happened)`` for every call, in order.

Example::

    from edge_origin.testing.faults import Faults
    faults = Faults().server_error_after_apply("ChangeResourceRecordSets")
    route53 = faults.attach(boto3.client("route53", endpoint_url=moto_url))
    my_dns_automation(route53)   # its batch lands, the answer is lost, botocore resends it
"""

from __future__ import annotations

import contextlib
import copy
import functools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import botocore.awsrequest
import botocore.client
import botocore.exceptions
import botocore.hooks
import botocore.paginate
import botocore.parsers
import botocore.session

KINDS = ("throttle", "prior_request_not_complete", "server_error", "server_error_after_apply",
         "reset_after_apply", "stall", "deny", "garbage")
STALL_LANDS = ("never", "before", "later")
DEFAULT_MAX_ATTEMPTS = 3
# botocore's standard retry mode (botocore/retries/standard.py): these are resent.
RETRYABLE_CODES = frozenset({
    "Throttling", "ThrottlingException", "RequestLimitExceeded", "PriorRequestNotComplete",
    "RequestTimeout", "RequestTimeoutException", "InternalError", "InternalFailure", "ServiceUnavailable",
})
RETRYABLE_STATUS = frozenset({500, 502, 503, 504})


@dataclass
class Fault:
    """One fault: ``kind`` on the calls of ``operation`` after ``skip``, ``times`` of them."""

    kind: str
    operation: str = "*"
    times: int | None = 1
    skip: int = 0
    status: int = 0
    code: str = ""
    message: str = ""
    lands: str = "never"
    body: bytes = b""
    content_type: str = ""
    seen: int = 0
    hits: int = 0

    def matches(self, operation: str) -> bool:
        return self.operation in ("*", operation)

    def take(self) -> bool:
        """Count one matching call; True when this fault hits it."""
        self.seen += 1
        if self.seen <= self.skip or (self.times is not None and self.hits >= self.times):
            return False
        self.hits += 1
        return True


def _error_body(protocol: str, code: str, message: str) -> tuple[bytes, str]:
    if protocol == "json":
        return f'{{"__type": "{code}", "message": "{message}"}}'.encode(), "application/x-amz-json-1.1"
    if protocol == "ec2":
        return (f"<Response><Errors><Error><Code>{code}</Code><Message>{message}</Message></Error></Errors>"
                "<RequestID>edge-origin-faults</RequestID></Response>").encode(), "text/xml"
    return (f'<?xml version="1.0"?>\n<ErrorResponse><Error><Type>Sender</Type><Code>{code}</Code>'
            f"<Message>{message}</Message></Error><RequestId>edge-origin-faults</RequestId></ErrorResponse>").encode(), "text/xml"


class _Raw:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Any:
        yield self._body


def _operation_of(event_name: str) -> str:
    return event_name.rsplit(".", 1)[-1]


class Faults:
    """Faults to inject into boto3 clients (see the module docstring)."""

    def __init__(self) -> None:
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str]] = []
        self._pending: list[Callable[[], Any]] = []
        self._lock = threading.RLock()
        self._local = threading.local()

    # --- building ---------------------------------------------------------------------------
    def add(self, fault: Fault) -> Faults:
        if fault.kind not in KINDS:
            raise ValueError(f"kind: {fault.kind!r}: allowed {', '.join(KINDS)}")
        if fault.lands not in STALL_LANDS:
            raise ValueError(f"lands: {fault.lands!r}: allowed {', '.join(STALL_LANDS)}")
        if fault.times is not None and fault.times < 1 or fault.skip < 0:
            raise ValueError("times must be >= 1 (or None for every call) and skip >= 0")
        self.faults.append(fault)
        return self

    def throttle(self, operation: str = "*", times: int | None = 1, *, skip: int = 0) -> Faults:
        return self.add(Fault("throttle", operation, times, skip, 400, "Throttling", "Rate exceeded"))

    def prior_request_not_complete(self, operation: str = "ChangeResourceRecordSets", times: int | None = 1, *, skip: int = 0) -> Faults:
        # Route 53 API reference, PriorRequestNotComplete: "If you submit a second request with the
        # same client ID while Route 53 is still processing the first request, you'll get this error."
        return self.add(Fault("prior_request_not_complete", operation, times, skip, 400, "PriorRequestNotComplete",
                              "The request was rejected because Route 53 was still processing a prior request."))

    def server_error(self, operation: str = "*", times: int | None = 1, *, skip: int = 0, status: int = 500) -> Faults:
        return self.add(Fault("server_error", operation, times, skip, status, "InternalFailure", "We encountered an internal error. Please try again."))

    def server_error_after_apply(self, operation: str, times: int | None = 1, *, skip: int = 0, status: int = 500) -> Faults:
        return self.add(Fault("server_error_after_apply", operation, times, skip, status, "InternalFailure",
                              "We encountered an internal error. Please try again."))

    def reset_after_apply(self, operation: str, times: int | None = 1, *, skip: int = 0) -> Faults:
        return self.add(Fault("reset_after_apply", operation, times, skip))

    def stall(self, operation: str, times: int | None = 1, *, skip: int = 0, lands: str = "never") -> Faults:
        return self.add(Fault("stall", operation, times, skip, lands=lands))

    def deny(self, operation: str = "*", times: int | None = None, *, skip: int = 0) -> Faults:
        return self.add(Fault("deny", operation, times, skip, 403, "AccessDenied",
                              f"User: arn:aws:iam::123456789012:user/edge-origin-test is not authorized to perform: {operation}"))

    def garbage(self, operation: str = "*", times: int | None = 1, *, skip: int = 0, status: int = 500,
                body: str = "<html><body><h1>500 Internal Server Error</h1></body></html>", content_type: str = "text/html") -> Faults:
        return self.add(Fault("garbage", operation, times, skip, status, body=body.encode(), content_type=content_type))

    # --- state ------------------------------------------------------------------------------
    def hits(self, kind: str | None = None) -> int:
        return sum(f.hits for f in self.faults if kind in (None, f.kind))

    def release(self) -> int:
        """Apply the stalled requests that land ``"later"`` now; how many."""
        with self._lock:
            pending, self._pending = self._pending, []
        for deliver in pending:
            deliver()
        return len(pending)

    def _choose(self, operation: str) -> Fault | None:
        with self._lock:
            chosen = None
            for fault in self.faults:
                if fault.matches(operation) and fault.take() and chosen is None:
                    chosen = fault
            self.log.append((operation, chosen.kind if chosen else "ok"))
            return chosen

    # --- attaching --------------------------------------------------------------------------
    def attach(self, client: Any, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS, service: str = "route53") -> Any:
        """Install the faults on ``client``: a hook on a botocore client (returned as is), a
        wrapper resending as botocore does (``max_attempts`` in all) on anything else."""
        if isinstance(client, botocore.client.BaseClient):
            client.meta.events.register_first("before-send", self._hook(client))
            return client
        return FaultyClient(client, self, max_attempts=max_attempts, service=service)

    def _hook(self, client: Any) -> Callable[..., Any]:
        protocol = client.meta.service_model.protocol

        def deliver(request: Any, event_name: str) -> Any:
            """Send ``request`` on: moto's in-process stub, else the client's HTTP session."""
            self._local.passthrough = True
            try:
                responses = client.meta.events.emit(event_name, request=request)
            finally:
                self._local.passthrough = False
            response = botocore.hooks.first_non_none_response(responses)
            if response is None:
                response = client._endpoint.http_session.send(request)
            return response

        def before_send(request: Any, event_name: str, **_: Any) -> Any:
            if getattr(self._local, "passthrough", False):
                return None
            self.release()
            fault = self._choose(_operation_of(event_name))
            if fault is None:
                return None
            return self._botocore_outcome(fault, protocol, request, lambda: deliver(request, event_name))

        return before_send

    def _botocore_outcome(self, fault: Fault, protocol: str, request: Any, deliver: Callable[[], Any]) -> Any:
        def response(status: int, body: bytes, content_type: str) -> Any:
            return botocore.awsrequest.AWSResponse(request.url, status, {"Content-Type": content_type}, _Raw(body))

        if fault.kind in ("server_error_after_apply", "reset_after_apply") or (fault.kind == "stall" and fault.lands == "before"):
            deliver()
        if fault.kind == "reset_after_apply":
            raise botocore.exceptions.ConnectionClosedError(endpoint_url=request.url)
        if fault.kind == "stall":
            if fault.lands == "later":
                with self._lock:
                    self._pending.append(deliver)
            raise botocore.exceptions.ReadTimeoutError(endpoint_url=request.url)
        if fault.kind == "garbage":
            return response(fault.status, fault.body, fault.content_type)
        return response(fault.status, *_error_body(protocol, fault.code, fault.message))


def _client_error(fault: Fault, operation: str) -> botocore.exceptions.ClientError:
    return botocore.exceptions.ClientError(
        {"Error": {"Code": fault.code, "Message": fault.message, "Type": "Sender"},
         "ResponseMetadata": {"HTTPStatusCode": fault.status, "RequestId": "edge-origin-faults"}},
        operation,
    )


def _retryable(exc: BaseException) -> bool:
    """Would botocore's standard retry mode resend after ``exc``?"""
    if isinstance(exc, botocore.exceptions.ClientError):
        meta = exc.response.get("ResponseMetadata", {})
        return exc.response.get("Error", {}).get("Code") in RETRYABLE_CODES or meta.get("HTTPStatusCode") in RETRYABLE_STATUS
    return isinstance(exc, (botocore.exceptions.HTTPClientError, botocore.exceptions.ConnectionError))


def _snake(operation: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()


@functools.cache
def _service_model(service: str) -> tuple[Any, Any, dict[str, str]]:
    """botocore's service model, paginator model and method -> operation names (loaded once)."""
    session = botocore.session.get_session()
    model = session.get_service_model(service)
    return model, session.get_paginator_model(service), {_snake(op): op for op in model.operation_names}


class FaultyClient:
    """A client-like object (StrictRoute53) behind ``Faults``, resending as botocore's standard
    retry mode does. Attributes that are not API operations pass through unchanged."""

    def __init__(self, target: Any, faults: Faults, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS, service: str = "route53") -> None:
        if not 1 <= max_attempts <= 20:
            raise ValueError(f"max_attempts: {max_attempts} is out of range 1..20")
        self._target, self._faults, self._max_attempts = target, faults, max_attempts
        self._model, self._paginators, self._operations = _service_model(service)

    @property
    def target(self) -> Any:
        return self._target

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        operation = self._operations.get(name)
        if operation is None or not callable(attr):
            return attr
        return lambda **params: self._call(operation, attr, params)

    def get_paginator(self, operation_name: str) -> botocore.paginate.Paginator:
        op = self._operations[operation_name]
        return botocore.paginate.Paginator(getattr(self, operation_name), self._paginators.get_paginator(op), self._model.operation_model(op))

    def _call(self, operation: str, method: Callable[..., Any], params: dict[str, Any]) -> Any:
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._attempt(operation, method, params)
            except Exception as exc:
                if attempt >= self._max_attempts or not _retryable(exc):
                    raise

    def _attempt(self, operation: str, method: Callable[..., Any], params: dict[str, Any]) -> Any:
        self._faults.release()
        fault = self._faults._choose(operation)

        def deliver() -> Any:
            return method(**copy.deepcopy(params))

        if fault is None:
            return deliver()
        if fault.kind in ("server_error_after_apply", "reset_after_apply") or (fault.kind == "stall" and fault.lands == "before"):
            _quietly(deliver)  # the answer is lost either way
        if fault.kind == "reset_after_apply":
            raise botocore.exceptions.ConnectionClosedError(endpoint_url=f"https://{operation}")
        if fault.kind == "stall":
            if fault.lands == "later":
                with self._faults._lock:
                    self._faults._pending.append(lambda: _quietly(deliver))
            raise botocore.exceptions.ReadTimeoutError(endpoint_url=f"https://{operation}")
        if fault.kind == "garbage":
            raise botocore.parsers.ResponseParserError(f"Unable to parse response ({fault.status}): {fault.body[:80]!r}")
        raise _client_error(fault, operation)


def _quietly(fn: Callable[[], Any]) -> None:
    with contextlib.suppress(botocore.exceptions.ClientError):
        fn()
