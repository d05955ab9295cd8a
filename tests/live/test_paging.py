"""Pagination guards: a repeated page or cursor is an error, never a hang (moto never returns
NextRecordIdentifier on list_resource_record_sets, so many records of one name loop there)."""

from __future__ import annotations

from typing import Any

import accounts
import botocore.session
import pytest
from botocore.stub import Stubber

from edge_origin.core.findings import Severity
from edge_origin.live.audit import audit
from edge_origin.live.paging import PagingError, list_record_sets, paginate


def _one_name_many_records(session: Any, count: int) -> str:
    built = accounts.Built()
    zone = accounts.zone(session, built)
    accounts.change(session, zone, [
        {"Name": accounts.ORIGIN, "Type": "A", "SetIdentifier": f"s{i:04d}", "MultiValueAnswer": True, "TTL": 60,
         "ResourceRecords": [{"Value": f"198.51.100.{i % 250}"}]}
        for i in range(count)
    ])
    return zone


@pytest.mark.timeout(120)  # "no hang" is bounded by this timeout, not a wall-clock assert
def test_moto_repeats_the_cursor_for_many_records_of_one_name(moto_session: Any) -> None:
    zone = _one_name_many_records(moto_session, 320)
    with pytest.raises(PagingError, match="repeated the cursor"):
        list_record_sets(moto_session.client("route53"), zone)


def test_audit_reports_route53_not_checked_instead_of_hanging(moto_session: Any) -> None:
    _one_name_many_records(moto_session, 320)
    result = audit(moto_session)
    dns = [f for f in result.findings if f.rule == "EO-DNS5"]
    assert dns and dns[0].severity is Severity.NOT_CHECKED and "repeated the cursor" in dns[0].message


def test_aws_style_cursor_with_record_identifier_is_followed() -> None:
    """Real Route 53 continues inside one name with NextRecordIdentifier (stubbed: moto never sends it)."""
    client = botocore.session.get_session().create_client("route53", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    stub = Stubber(client)

    def record(i: int) -> dict[str, Any]:
        return {"Name": "api.example.com.", "Type": "A", "SetIdentifier": f"s{i}", "MultiValueAnswer": True, "TTL": 60,
                "ResourceRecords": [{"Value": f"192.0.2.{i}"}]}

    stub.add_response("list_resource_record_sets", {
        "ResourceRecordSets": [record(0), record(1)], "IsTruncated": True, "MaxItems": "2",
        "NextRecordName": "api.example.com.", "NextRecordType": "A", "NextRecordIdentifier": "s2"}, {"HostedZoneId": "Z1"})
    stub.add_response("list_resource_record_sets", {
        "ResourceRecordSets": [record(2)], "IsTruncated": False, "MaxItems": "2"},
        {"HostedZoneId": "Z1", "StartRecordName": "api.example.com.", "StartRecordType": "A", "StartRecordIdentifier": "s2"})
    with stub:
        found = list_record_sets(client, "Z1")
    assert [r["SetIdentifier"] for r in found] == ["s0", "s1", "s2"]


class _Paginator:
    def __init__(self, pages: list[dict[str, Any]]) -> None:
        self.pages = pages

    def paginate(self, **_: Any) -> Any:
        return iter(self.pages)


class _Client:
    def __init__(self, pages: list[dict[str, Any]]) -> None:
        self.pages = pages

    def get_paginator(self, _: str) -> _Paginator:
        return _Paginator(self.pages)


def test_paginate_refuses_a_repeated_page() -> None:
    page = {"Items": [1], "NextToken": "a"}
    with pytest.raises(PagingError, match="same page twice"):
        list(paginate(_Client([page, dict(page)]), "list_things"))


def test_paginate_refuses_a_repeated_token() -> None:
    pages = [{"Items": [1], "NextMarker": "t"}, {"Items": [2], "NextMarker": "t"}]
    with pytest.raises(PagingError, match="repeated the page token"):
        list(paginate(_Client(pages), "list_things"))


def test_paginate_passes_distinct_pages() -> None:
    pages = [{"Items": [1], "NextToken": "a"}, {"Items": [2], "NextToken": "b"}, {"Items": [3]}]
    assert [p["Items"][0] for p in paginate(_Client(pages), "list_things")] == [1, 2, 3]
