"""Issue 34: CloudFront ``OriginHttpVersion`` (and, in verify, ``ResponseCompletionTimeout``/``IpAddressType``) read by `audit` and `verify` when the installed botocore
reads it, and "not read (botocore X < 1.44 ...)" when its model lacks the member (the SDK then drops
the value from every response: an unread value is never reported as unset).

botocore 1.44.8 cloudfront ``CustomOriginConfig``/``VpcOriginConfig.OriginHttpVersion``: "Valid values
are http1.1 and http2. If you don't specify a value, CloudFront uses HTTP/1.1. [...] If you use a version
of an AWS SDK or the AWS CLI that doesn't support this field, an update that sends back a configuration
you got from CloudFront removes the value". moto 5.2.5 drops the field, so the account is moto's and an
``after-call`` hook puts the value back where CloudFront's answer holds it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from helpers import run_cli
from test_verify import _fleet, assembly, fleet_template

from edge_origin.live import sdk_members
from edge_origin.live.audit import audit
from edge_origin.live.verify import verify

ALL_MEMBERS = sdk_members.shape_members


def _without_origin_http_version(service: str, shape: str) -> frozenset[str]:
    """The member table of a botocore older than 1.44 (no OriginHttpVersion)."""
    return ALL_MEMBERS(service, shape) - {"OriginHttpVersion"}


@pytest.fixture()
def old_botocore() -> Iterator[None]:
    with mock.patch.object(sdk_members, "shape_members", _without_origin_http_version), \
            mock.patch.object(sdk_members, "installed_botocore", return_value="1.43.2"):
        yield


def _origin(origin_id: str) -> dict[str, Any]:
    return {"Id": origin_id, "DomainName": f"{origin_id}.example.com", "CustomOriginConfig": {
        "HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "https-only", "OriginKeepaliveTimeout": 60, "OriginReadTimeout": 60}}


def _distribution(session: Any, http2_origins: tuple[str, ...] = ("o1",)) -> str:
    """A distribution of two custom origins in moto; ``http2_origins`` read back with OriginHttpVersion http2."""
    cfg = {
        "CallerReference": str(uuid.uuid4()), "Comment": "edge", "Enabled": True, "HttpVersion": "http2",
        "Origins": {"Quantity": 2, "Items": [_origin("o1"), _origin("o2")]},
        "DefaultCacheBehavior": {"TargetOriginId": "o1", "ViewerProtocolPolicy": "https-only",
                                 "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"},
    }
    cloudfront = session.client("cloudfront")
    dist_id = cloudfront.create_distribution(DistributionConfig=cfg)["Distribution"]["Id"]

    def put_back(parsed: dict[str, Any], **_: Any) -> None:  # moto 5.2.5 drops the field
        for dist in (parsed.get("DistributionList") or {}).get("Items") or []:
            for origin in (dist.get("Origins") or {}).get("Items") or []:
                if origin["Id"] in http2_origins:
                    origin["CustomOriginConfig"]["OriginHttpVersion"] = "http2"

    cloudfront.meta.events.register("after-call.cloudfront.ListDistributions", put_back)
    return dist_id


def test_audit_reads_origin_http_version_where_it_is_set(moto_session: Any) -> None:
    dist = _distribution(moto_session)
    result = audit(moto_session)
    assert result.origin_http == (f"origin {dist}/o1: OriginHttpVersion http2",)  # o2 unset: CloudFront's http1.1, no line


def test_audit_with_a_botocore_that_lacks_the_member_says_not_read(moto_session: Any, old_botocore: None) -> None:
    dist = _distribution(moto_session)
    result = audit(moto_session)
    assert [line.split(": ", 1)[0] for line in result.origin_http] == [f"origin {dist}/o1", f"origin {dist}/o2"]
    for line in result.origin_http:  # never "not set", never a value
        assert line.endswith("OriginHttpVersion not read (botocore 1.43.2 < 1.44: the SDK drops OriginHttpVersion "
                             "from every response; upgrade botocore to read it)"), line


def test_a_model_without_the_member_at_1_44_names_the_model_not_the_version(moto_session: Any) -> None:
    dist = _distribution(moto_session)
    with mock.patch.object(sdk_members, "shape_members", _without_origin_http_version):
        result = audit(moto_session)
    assert f"origin {dist}/o1: OriginHttpVersion not read (botocore {sdk_members.installed_botocore()}'s cloudfront model has no CustomOriginConfig.OriginHttpVersion" in result.origin_http[0]


def test_the_audit_command_prints_the_line(server: Any, old_botocore: None) -> None:
    dist = _distribution(server)  # the hook is on this session only: the command's own client reads what moto holds
    code, _out, err = run_cli("audit", "--endpoint-url", server.endpoint_url)
    assert code == 0, err
    assert f"audit: origin {dist}/o1: OriginHttpVersion not read (botocore 1.43.2 < 1.44: " in err


def test_the_audit_command_prints_nothing_for_an_unset_value_it_can_read(server: Any) -> None:
    _distribution(server)  # moto holds no OriginHttpVersion
    code, _out, err = run_cli("audit", "--endpoint-url", server.endpoint_url)
    assert code == 0, err
    assert "OriginHttpVersion" not in err


# --- verify: the stubbed fleet of test_verify, with OriginHttpVersion declared or not ---------------------

def _verify(tmp_path: Path, declared: str | None, live: str | None) -> Any:
    template = fleet_template()
    custom = template["Resources"]["Edge"]["Properties"]["DistributionConfig"]["Origins"][0]["CustomOriginConfig"]
    if declared is not None:
        custom["OriginHttpVersion"] = declared
    clients, stubs = _fleet("600", "true", True, 60, origin_http_version=live)
    for stub in stubs:
        stub.activate()
    tmp_path.mkdir(parents=True, exist_ok=True)
    return verify(clients, assembly(tmp_path, template, "Fleet"))


def test_verify_compares_a_declared_origin_http_version(tmp_path: Path) -> None:
    result = _verify(tmp_path, "http2", "http1.1")
    assert [(d.resource, d.what, d.declared, d.live) for d in result.drifts] == [("Edge", "origin o1 OriginHttpVersion", "http2", "http1.1")]
    assert "origin o1 OriginHttpVersion: declared http2, live http1.1" in result.text()


def test_verify_reads_unset_as_http1_1_and_notes_an_undeclared_live_value(tmp_path: Path) -> None:
    assert _verify(tmp_path / "a", "http1.1", None).ok  # unset: CloudFront uses HTTP/1.1
    result = _verify(tmp_path / "b", None, "http2")
    assert result.ok and result.notes == ["Fleet/Edge (E2QWRUHAPOMQZL): origin o1 OriginHttpVersion: live http2, not declared in the assembly"]
    assert "note     Fleet/Edge (E2QWRUHAPOMQZL): origin o1 OriginHttpVersion: live http2" in result.text()


def test_verify_with_an_old_botocore_does_not_compare(tmp_path: Path, old_botocore: None) -> None:
    declared = _verify(tmp_path / "a", "http2", None)
    assert not declared.ok and declared.drifts == []
    assert declared.not_checked == ["Fleet/Edge (E2QWRUHAPOMQZL): origin o1 OriginHttpVersion not read (botocore 1.43.2 < 1.44: "
                                    "the SDK drops OriginHttpVersion from every response; upgrade botocore to read it)"]
    undeclared = _verify(tmp_path / "b", None, None)
    assert undeclared.ok and len(undeclared.notes) == 1 and "OriginHttpVersion not read (botocore 1.43.2 < 1.44" in undeclared.notes[0]


def _verify_declaring(tmp_path: Path, **declared: Any) -> Any:
    """verify of the stubbed fleet whose template declares ``declared`` (Origin or CustomOriginConfig members)."""
    template = fleet_template()
    origin = template["Resources"]["Edge"]["Properties"]["DistributionConfig"]["Origins"][0]
    for member, value in declared.items():
        (origin if member == "ResponseCompletionTimeout" else origin["CustomOriginConfig"])[member] = value
    clients, stubs = _fleet("600", "true", True, 60)
    for stub in stubs:
        stub.activate()
    tmp_path.mkdir(parents=True, exist_ok=True)
    return verify(clients, assembly(tmp_path, template, "Fleet"))


def test_verify_compares_response_completion_timeout_and_ip_address_type(tmp_path: Path) -> None:
    result = _verify_declaring(tmp_path, ResponseCompletionTimeout=600, IpAddressType="dualstack")
    assert {(d.what, d.declared, d.live) for d in result.drifts} == {
        ("origin o1 ResponseCompletionTimeout", "600", "absent"),  # live: no maximum
        ("origin o1 IpAddressType", "dualstack", "ipv4"),  # live: unset, CloudFront's ipv4
    }
    assert _verify_declaring(tmp_path / "b", IpAddressType="ipv4").ok


def test_verify_with_a_botocore_older_than_1_39_17_does_not_compare_response_completion_timeout(tmp_path: Path) -> None:
    dropped = {("cloudfront", "Origin"): {"ResponseCompletionTimeout"}}
    with mock.patch.object(sdk_members, "shape_members", lambda s, shape: ALL_MEMBERS(s, shape) - dropped.get((s, shape), set())), \
            mock.patch.object(sdk_members, "installed_botocore", return_value="1.38.0"):
        result = _verify_declaring(tmp_path, ResponseCompletionTimeout=600)
    assert result.drifts == [] and result.not_checked == [
        "Fleet/Edge (E2QWRUHAPOMQZL): origin o1 ResponseCompletionTimeout not read (botocore 1.38.0 < 1.39.17: the SDK drops "
        "ResponseCompletionTimeout from every response; upgrade botocore to read it)"]
