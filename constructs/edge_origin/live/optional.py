"""One way to call an AWS operation an endpoint may lack: the answer, or "not read: <operation> (<why>)".

The live commands call operations that not every endpoint has: CloudFront VPC origins, Route 53 record
set protections, change history and guardrails, TestDNSAnswer, GetAccountLimit, ELB capacity
reservations. An endpoint says "I do not have this" in many ways, and each one must read as "not read",
never as "none" and never as a traceback:

- the installed botocore has no such operation (the client has no method);
- moto in-process raises ``NotImplementedError`` ("The list_vpc_origins action has not been
  implemented", moto 5.2.6; ``boundary.guard_client`` turns it into :class:`OperationNotOffered`);
- moto server answers a bare HTTP 404 (no AWS error code), or HTTP 500/501 with no AWS error code
  (5.2.6's ``ListVpcOrigins``), or an HTML page;
- a real account answers ``UnknownOperationException``, ``InvalidAction``, ``NotImplemented``,
  ``UnsupportedOperation``, or denies it (``AccessDenied``...), or throttles.

:func:`call_optional` makes the call and returns its answer or a :class:`NotRead`; :func:`not_offered`
and :func:`why_not_read` classify an exception caught elsewhere. Bad credentials and an endpoint
that cannot be reached stay fatal (``LiveError``): they are not about one operation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import botocore.exceptions
import botocore.parsers
from botocore import xform_name

from edge_origin.live.boundary import OperationNotOffered
from edge_origin.live.paging import PagingError
from edge_origin.live.session import LiveError

#: Error codes that mean "this principal may not read that" or "slow down": the rules that need the
#: service are reported as not checked.
DENIED_CODES = frozenset(
    {
        "AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "Unauthorized",
        "Throttling", "ThrottlingException", "RequestLimitExceeded", "TooManyRequestsException",
        "PriorRequestNotComplete", "RequestThrottled", "SlowDown",
    }
)
#: Error codes that mean the credentials themselves are bad: no command can run.
CREDENTIAL_CODES = frozenset(
    {
        "InvalidClientTokenId", "UnrecognizedClientException", "AuthFailure", "SignatureDoesNotMatch",
        "ExpiredToken", "ExpiredTokenException", "InvalidAccessKeyId", "IncompleteSignature",
    }
)
CONNECTION_ERRORS = (
    botocore.exceptions.EndpointConnectionError,
    botocore.exceptions.ConnectTimeoutError,
    botocore.exceptions.ReadTimeoutError,
    botocore.exceptions.ConnectionClosedError,
)


def classify_error(exc: BaseException, service: str, operation: str = "") -> str:
    """The "not checked" reason for a denied/throttled/failed call; LiveError for fatal ones."""
    where = f"{service}{' ' + operation if operation else ''}"
    if isinstance(exc, CONNECTION_ERRORS):
        raise LiveError(f"{where}: cannot reach the endpoint ({exc})") from None
    if isinstance(exc, botocore.exceptions.NoCredentialsError):
        raise LiveError("no AWS credentials found (set AWS_PROFILE / --profile, or AWS_ACCESS_KEY_ID)") from None
    if isinstance(exc, botocore.exceptions.ClientError):
        err = exc.response.get("Error", {})
        code = str(err.get("Code") or exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or "?")
        if code in CREDENTIAL_CODES:
            raise LiveError(f"{where}: the credentials were refused ({code})") from None
        if code in DENIED_CODES:
            kind = "denied" if "Denied" in code or "Unauthorized" in code else "throttled"
        else:
            kind = "failed"
        return f"{where} {kind}: {code}"
    if isinstance(exc, PagingError):
        return f"{where}: {exc}"
    if isinstance(exc, botocore.exceptions.BotoCoreError):
        return f"{where} failed: {exc}"
    raise exc


#: AWS error codes that say "this endpoint has no such operation".
NOT_OFFERED_CODES = frozenset({
    "UnknownOperationException", "UnknownOperation", "InvalidAction", "NotImplemented", "NotImplementedError",
    "UnsupportedOperation", "UnsupportedOperationException", "OperationNotSupported",
})
#: HTTP statuses that, with no AWS error code in the body, mean the endpoint has no such route.
NOT_OFFERED_STATUSES = frozenset({404, 405, 500, 501})


@dataclass(frozen=True)
class NotRead:
    """An optional operation that gave no answer, and why."""

    operation: str
    why: str
    #: "sdk" (botocore lacks it), "not-offered" (the endpoint lacks it), "denied", "throttled", "failed"
    kind: str

    def __str__(self) -> str:
        return f"not read: {self.operation} ({self.why})"

    @property
    def line(self) -> str:
        return str(self)


def _code_and_status(exc: botocore.exceptions.ClientError) -> tuple[str, int | None]:
    response = getattr(exc, "response", {}) or {}
    code = str((response.get("Error") or {}).get("Code") or "")
    status = (response.get("ResponseMetadata") or {}).get("HTTPStatusCode")
    return code, status if isinstance(status, int) else None


def not_offered(exc: BaseException) -> str | None:
    """Why ``exc`` says the endpoint has no such operation, or None when it says something else."""
    if isinstance(exc, NotImplementedError):
        return f"the endpoint does not implement it: {' '.join(str(exc).split())[:160]}"
    if isinstance(exc, OperationNotOffered):
        return f"the endpoint does not implement it: {exc.kwargs.get('detail', '')}"
    if isinstance(exc, botocore.exceptions.ClientError):
        code, status = _code_and_status(exc)
        if code in NOT_OFFERED_CODES:
            return f"the endpoint does not offer it: {code}"
        # no AWS error code: botocore puts the HTTP status (or nothing) where the code goes
        if status in NOT_OFFERED_STATUSES and code in ("", str(status), "NotFound", "Not Found", "InternalServerError"):
            return f"the endpoint does not offer it: HTTP {status} with no AWS error code"
        return None
    status = getattr(exc, "kwargs", {}).get("status") if isinstance(exc, botocore.exceptions.BotoCoreError) else None
    if str(status) in {str(s) for s in NOT_OFFERED_STATUSES}:  # an HTML error page (live/boundary.py)
        return f"the endpoint does not offer it: HTTP {status}, an HTML page"
    return None


def why_not_read(exc: BaseException, service: str, operation: str, *, fatal: bool = True) -> NotRead:
    """The :class:`NotRead` for ``exc`` raised by an optional call. An unreachable endpoint or refused
    credentials raise ``LiveError`` (the command cannot go on), unless ``fatal`` is False (the change
    engine's guard reads: "cannot tell", kind "failed")."""
    offered = not_offered(exc)
    if offered is not None:
        return NotRead(operation, offered, "not-offered")
    try:
        return _classified(exc, service, operation)
    except LiveError as error:  # unreachable, refused credentials
        if fatal:
            raise
        return NotRead(operation, str(error), "failed")


def _classified(exc: BaseException, service: str, operation: str) -> NotRead:
    if isinstance(exc, botocore.exceptions.ClientError):
        code, _ = _code_and_status(exc)
        reason = classify_error(exc, service, operation)  # raises LiveError for refused credentials
        if code in DENIED_CODES:
            kind = "denied" if ("Denied" in code or "Unauthorized" in code) else "throttled"
            return NotRead(operation, reason, kind)
        return NotRead(operation, reason, "failed")
    if isinstance(exc, (botocore.exceptions.BotoCoreError, PagingError)):
        return NotRead(operation, classify_error(exc, service, operation), "failed")
    if isinstance(exc, (botocore.parsers.ResponseParserError, KeyError)):
        return NotRead(operation, f"{service} {operation}: the endpoint's answer is not an AWS response", "failed")
    raise exc


def sdk_not_read(service: str, operation: str) -> NotRead | None:
    """A :class:`NotRead` when the installed botocore has no ``operation`` (kind "sdk")."""
    from edge_origin.live.sdk_members import operation_not_read

    unread = operation_not_read(service, operation)
    if unread is None:
        return None
    return NotRead(operation, unread.removeprefix("not read (").removesuffix(")"), "sdk")


def call_optional(client: Any, service: str, operation: str, *, fatal: bool = True, **params: Any) -> Any:
    """``client.<operation>(**params)``'s answer, or a :class:`NotRead` saying why there is none
    (``fatal``: see :func:`why_not_read`)."""
    missing = sdk_not_read(service, operation)
    if missing is not None:
        return missing
    try:
        method = getattr(client, xform_name(operation), None)
        if method is None:  # a client made from another model than the installed one
            return NotRead(operation, f"this {service} client has no {operation}", "sdk")
        return method(**params)
    except (NotImplementedError, botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError,
            botocore.parsers.ResponseParserError, KeyError, PagingError) as exc:
        return why_not_read(exc, service, operation, fatal=fatal)


__all__ = ["CONNECTION_ERRORS", "CREDENTIAL_CODES", "DENIED_CODES", "NOT_OFFERED_CODES", "classify_error", "NotRead", "OperationNotOffered", "call_optional", "not_offered", "sdk_not_read", "why_not_read"]
