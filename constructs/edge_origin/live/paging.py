"""Guarded pagination: every list call follows its pages, and a repeated page is an error, not a hang.

moto 5.2.5 never returns ``NextRecordIdentifier`` and ignores ``StartRecordIdentifier`` on
``list_resource_record_sets``, so a naive loop over many records of one name never ends there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from edge_origin.core.dns_names import canonical_name

MAX_PAGES = 100_000


class PagingError(RuntimeError):
    """A paginated API repeated a page (token or content): the listing cannot be trusted."""


def _fingerprint(page: dict[str, Any]) -> str:
    body = {k: v for k, v in page.items() if k != "ResponseMetadata"}
    return json.dumps(body, sort_keys=True, default=str)


def paginate(client: Any, operation: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
    """Pages of ``operation`` through botocore's paginator, refusing a repeated token or page."""
    seen_tokens: set[str] = set()
    seen_pages: set[str] = set()
    paginator = client.get_paginator(operation)
    for count, page in enumerate(paginator.paginate(**kwargs), start=1):
        fingerprint = _fingerprint(page)
        if fingerprint in seen_pages or count > MAX_PAGES:
            raise PagingError(f"{operation}: the API returned the same page twice (page {count}); stopping")
        seen_pages.add(fingerprint)
        token = _next_token(page)
        if token is not None:
            if token in seen_tokens:
                raise PagingError(f"{operation}: the API repeated the page token {token[:40]!r}; stopping")
            seen_tokens.add(token)
        yield page


def _next_token(page: dict[str, Any]) -> str | None:
    for key in ("NextToken", "NextMarker", "Marker", "NextContinuationToken"):
        value = page.get(key)
        if isinstance(value, str) and value and key != "Marker":
            return value
    return None


def list_record_sets(client: Any, zone_id: str, name: str | None = None, rtype: str | None = None) -> list[dict[str, Any]]:
    """Every record set of a zone (or, from ``name``/``rtype`` on, those of that name and type).

    Follows ``NextRecordName``/``NextRecordType``/``NextRecordIdentifier`` by hand (the three-part
    cursor botocore's paginator also uses) and stops with ``PagingError`` when a cursor repeats.
    """
    kwargs: dict[str, Any] = {"HostedZoneId": zone_id}
    if name is not None:
        kwargs["StartRecordName"] = name
        if rtype is not None:
            kwargs["StartRecordType"] = rtype
    out: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    want = _norm(name) if name is not None else None
    for _ in range(MAX_PAGES):
        page = client.list_resource_record_sets(**kwargs)
        for record in page.get("ResourceRecordSets", []):
            if want is not None and (_norm(record["Name"]) != want or (rtype and record["Type"] != rtype)):
                return out
            out.append(record)
        if not page.get("IsTruncated"):
            return out
        cursor = (page.get("NextRecordName"), page.get("NextRecordType"), page.get("NextRecordIdentifier"))
        if cursor in seen or cursor[0] is None:
            raise PagingError(
                f"list_resource_record_sets {zone_id}: the API repeated the cursor {cursor} "
                "(moto never returns NextRecordIdentifier); stopping"
            )
        seen.add(cursor)
        kwargs = {"HostedZoneId": zone_id, "StartRecordName": cursor[0]}
        if cursor[1]:
            kwargs["StartRecordType"] = cursor[1]
        if cursor[2]:
            kwargs["StartRecordIdentifier"] = cursor[2]
    raise PagingError(f"list_resource_record_sets {zone_id}: more than {MAX_PAGES} pages; stopping")


def _norm(name: str) -> str:
    return canonical_name(name)
