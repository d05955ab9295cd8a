"""The one error boundary every boto3 call of the live tools passes (installed by ``LiveSession``).

botocore raises ``ResponseParserError`` when an answer is not an AWS one (an HTML 500 page, a
text 503 from a proxy, an endpoint that is not AWS at all such as ``python -m http.server``). It
is a plain ``Exception``, not a ``BotoCoreError``, so code that handles botocore's errors lets it
through as a traceback. ``guard_client`` turns it into ``UnreadableResponse``, a ``BotoCoreError``
with one line: the operation and what came back. moto in-process raises ``NotImplementedError`` for an
operation it lacks: ``OperationNotOffered``, also a ``BotoCoreError`` (``live/optional.py`` reads both
as "not read: <operation> (...)"). (A 200 HTML page to an ELBv2 call makes
botocore's query parser raise ``KeyError``: the same.)
"""

from __future__ import annotations

import functools
from typing import Any

import botocore.exceptions
import botocore.parsers


class UnreadableResponse(botocore.exceptions.BotoCoreError):
    """The endpoint answered, but not as AWS does (botocore could not parse the answer)."""

    fmt = "{operation}: the endpoint's answer is not an AWS response ({detail})"


class OperationNotOffered(botocore.exceptions.BotoCoreError):
    """The endpoint does not implement the operation: moto in-process raises ``NotImplementedError``
    ("The list_vpc_origins action has not been implemented", moto 5.2.6) from inside the call."""

    fmt = "{operation}: the endpoint does not implement it ({detail})"


def _detail(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 160 else text[:157] + "..."


XML_PROTOCOLS = ("rest-xml", "query", "ec2")


def _looks_like_html(response_dict: dict[str, Any]) -> bool:
    headers = {k.lower(): v for k, v in (response_dict.get("headers") or {}).items()}
    body = response_dict.get("body") or b""
    if isinstance(body, bytes) and not body.strip() and response_dict.get("status_code") == 200:
        return False  # an empty answer (moto's ChangeTagsForResource says text/html): nothing to misread
    if str(headers.get("content-type", "")).lower().startswith("text/html"):
        return True
    head = body[:200].lstrip().lower() if isinstance(body, bytes) else b""
    return head.startswith((b"<!doctype html", b"<html"))


def _refuse_html(operation_model: Any, response_dict: dict[str, Any], **_: Any) -> None:
    """``before-parse``: botocore's rest-xml parser reads an HTML page as an empty answer (a web
    server's 200 "Directory listing" becomes ``{}``), so the callers fail later with KeyError."""
    if operation_model.service_model.protocol in XML_PROTOCOLS and _looks_like_html(response_dict):
        status = response_dict.get("status_code")
        body = response_dict.get("body") or b""
        excerpt = " ".join(body[:120].decode("utf-8", "replace").split()) if isinstance(body, bytes) else ""
        raise UnreadableResponse(
            operation=operation_model.name, detail=f"HTTP {status}, an HTML page: {excerpt!r}", status=status
        )


def guard_client(client: Any) -> Any:
    """``client`` with ``ResponseParserError`` (and HTML pages) raised as ``UnreadableResponse``
    (idempotent)."""
    if getattr(client, "_edge_origin_guarded", False):
        return client
    client.meta.events.register("before-parse", _refuse_html)
    make_api_call = client._make_api_call

    @functools.wraps(make_api_call)
    def guarded(operation_name: str, api_params: Any) -> Any:
        try:
            return make_api_call(operation_name, api_params)
        except botocore.parsers.ResponseParserError as exc:
            raise UnreadableResponse(operation=operation_name, detail=_detail(exc)) from None
        except KeyError as exc:  # the query parser missing its result element
            raise UnreadableResponse(operation=operation_name, detail=f"no {exc} in the answer") from None
        except NotImplementedError as exc:  # moto in-process, an operation it lacks
            raise OperationNotOffered(operation=operation_name, detail=_detail(exc)) from None

    client._make_api_call = guarded
    client._edge_origin_guarded = True
    return client
