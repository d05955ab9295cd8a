"""The one error boundary every boto3 call of the live tools passes (installed by ``LiveSession``).

botocore raises ``ResponseParserError`` when an answer is not an AWS one (an HTML 500 page, a
text 503 from a proxy, an endpoint that is not AWS at all such as ``python -m http.server``). It
is a plain ``Exception``, not a ``BotoCoreError``, so code that handles botocore's errors lets it
through as a traceback. ``guard_client`` turns it into ``UnreadableResponse``, a ``BotoCoreError``
with one line: the operation and what came back. (A 200 HTML page to an ELBv2 call makes
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


def _detail(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 160 else text[:157] + "..."


def guard_client(client: Any) -> Any:
    """``client`` with ``ResponseParserError`` raised as ``UnreadableResponse`` (idempotent)."""
    if getattr(client, "_edge_origin_guarded", False):
        return client
    make_api_call = client._make_api_call

    @functools.wraps(make_api_call)
    def guarded(operation_name: str, api_params: Any) -> Any:
        try:
            return make_api_call(operation_name, api_params)
        except botocore.parsers.ResponseParserError as exc:
            raise UnreadableResponse(operation=operation_name, detail=_detail(exc)) from None
        except KeyError as exc:  # the query parser missing its result element
            raise UnreadableResponse(operation=operation_name, detail=f"no {exc} in the answer") from None

    client._make_api_call = guarded
    client._edge_origin_guarded = True
    return client
