"""EO-CF3: a ResponseCompletionTimeout on a gRPC origin, judged against the declared connection profile."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.rules import get_rule, run_rules
from edge_origin.rules.cf3_response_completion import FIX

QUIET = Path(__file__).parents[1] / "fixtures" / "templates" / "rules" / "eo-cf3-quiet.yaml"


def _body() -> dict[str, Any]:
    return copy.deepcopy(read_template_file(QUIET).body)


def _origin(body: dict[str, Any], dist: str = "Dist", index: int = 0) -> dict[str, Any]:
    return body["Resources"][dist]["Properties"]["DistributionConfig"]["Origins"][index]


def _cf3(body: dict[str, Any]) -> list[tuple[Severity, str, str]]:
    findings = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-CF3")])
    return [(f.severity, f.resource, f.message) for f in findings]


def test_origin_view_reads_response_completion_timeout_and_ip_address_type() -> None:
    body = _body()
    _origin(body)["CustomOriginConfig"]["IpAddressType"] = "dualstack"
    model = TemplateModel.from_templates({"S": body})
    o = model.distributions[0].origins[0]
    assert (o.response_completion_timeout, o.ip_address_type, o.dns_types()) == (900, "dualstack", ("A", "AAAA"))
    o2 = model.distributions[0].origins[1]
    assert (o2.response_completion_timeout, o2.ip_address_type, o2.dns_types()) == (None, None, ("A",))


def test_below_profile_p99_is_an_error() -> None:
    body = _body()
    body["Resources"]["Dist"]["Metadata"]["edge-origin:connection-profile"]["p99_rpc_duration_s"] = 60
    _origin(body)["ResponseCompletionTimeout"] = 45
    [(severity, resource, message)] = _cf3(body)
    assert (severity, resource) == (Severity.ERROR, "Dist")
    assert "45 s is below the declared connection profile's p99_rpc_duration_s 60 s" in message


def test_profile_without_max_connection_age_warns_at_any_value() -> None:
    body = _body()
    body["Resources"]["Dist"]["Metadata"]["edge-origin:connection-profile"]["server_max_connection_age_s"] = None
    [(severity, _, message)] = _cf3(body)
    assert severity is Severity.WARNING
    assert "ends every gRPC stream at 900 s" in message and "server_max_connection_age_s None" in message


def test_deploy_time_value_is_not_judged() -> None:
    body = _body()
    body["Parameters"] = {"Rct": {"Type": "Number"}}
    _origin(body)["ResponseCompletionTimeout"] = {"Ref": "Rct"}
    [(severity, _, message)] = _cf3(body)
    assert severity is Severity.WARNING and message.startswith("not judged: Dist origin o ResponseCompletionTimeout")


def test_non_grpc_origin_is_left_alone() -> None:
    body = _body()
    del body["Resources"]["Dist2"]["Properties"]["DistributionConfig"]["DefaultCacheBehavior"]["GrpcConfig"]
    _origin(body, "Dist2")["ResponseCompletionTimeout"] = 60
    assert _cf3(body) == []


def test_below_1_is_an_error_and_above_3600_is_not() -> None:
    """The API sets no maximum ("CloudFront doesn't enforce a maximum value" when unset; 3600 s is aws-cdk-lib's
    HttpOrigin check): only its own limit, whole seconds from 1, is an error."""
    body = _body()
    _origin(body, "Dist2")["ResponseCompletionTimeout"] = 0
    [(severity, resource, message)] = _cf3(body)
    assert (severity, resource) == (Severity.ERROR, "Dist2") and "is below 1 s" in message
    _origin(body, "Dist2")["ResponseCompletionTimeout"] = 86400
    assert [severity for severity, _, _ in _cf3(body)] == [Severity.WARNING]


# --- mutmut (issue 38): what a user reads, each side of each boundary ------------------------------------
def _findings(body: dict[str, Any]) -> list[Finding]:
    return run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-CF3")])


def _profile(body: dict[str, Any], **fields: Any) -> dict[str, Any]:
    body["Resources"]["Dist"]["Metadata"]["edge-origin:connection-profile"].update(fields)
    return body


def _says(message: str) -> str:
    return f"[CloudFront -> NLB] {message}"


def test_a_deploy_time_value_reads_in_full_and_the_next_origin_is_still_judged() -> None:
    body = _body()
    body["Parameters"] = {"Rct": {"Type": "Number"}}
    body["Resources"]["Dist"]["Metadata"]["aws:cdk:path"] = "S/Dist/Resource"
    _origin(body)["ResponseCompletionTimeout"] = {"Ref": "Rct"}
    _origin(body, index=1)["ResponseCompletionTimeout"] = 100
    found = _findings(body)
    assert found == [
        Finding("EO-CF3", Severity.WARNING, _says(
            "Dist origin o2: ResponseCompletionTimeout 100 s ends gRPC streams at 100 s, before the longest the declared "
            "connection profile lets a server keep one (720 s: server_max_connection_age_s 600 x 1.1 + grace 60)"),
            FIX, "S.template.json", "S", "Dist"),
        Finding("EO-CF3", Severity.WARNING,
                'not judged: Dist origin o ResponseCompletionTimeout: "<Ref Rct>" (decided at deploy time; a set value '
                "ends every gRPC stream at that age)",
                "To let edge-origin judge it: a literal ResponseCompletionTimeout, or none (CloudFront then enforces no "
                "maximum)", "S.template.json", "S", "Dist"),
    ]
    assert [f.path for f in found] == ["S/Dist/Resource", "S/Dist/Resource"]


def test_an_origin_without_the_timeout_does_not_stop_the_next_one() -> None:
    body = _body()
    del _origin(body)["ResponseCompletionTimeout"]
    _origin(body, index=1)["ResponseCompletionTimeout"] = 100
    assert [(f.severity, f.message) for f in _findings(body)] == [(Severity.WARNING, _says(
        "Dist origin o2: ResponseCompletionTimeout 100 s ends gRPC streams at 100 s, before the longest the declared "
        "connection profile lets a server keep one (720 s: server_max_connection_age_s 600 x 1.1 + grace 60)"))]


@pytest.mark.parametrize(("rct", "severity"), [(0, Severity.ERROR), (1, Severity.WARNING), (3600, Severity.WARNING),
                                               (3601, Severity.WARNING)])
def test_the_minimum_each_side_and_no_maximum(rct: int, severity: Severity) -> None:
    body = _body()
    _origin(body, "Dist2")["CustomOriginConfig"]["OriginReadTimeout"] = 1
    _origin(body, "Dist2")["ResponseCompletionTimeout"] = rct
    text = (f"Dist2 origin o: ResponseCompletionTimeout {rct} s is below 1 s" if severity is Severity.ERROR else
            f"Dist2 origin o: ResponseCompletionTimeout {rct} s on a gRPC origin ends every stream longer than {rct} s "
            "(no connection profile declared to judge it against)")
    assert _cf3(body) == [(severity, "Dist2", _says(text))]


@pytest.mark.parametrize(("read", "rct", "below"), [
    (None, 29, 30), (None, 30, None),  # unset: CloudFront's default 30 s
    (60, 59, 60), (60, 60, None),
])
def test_the_read_timeout_floor_each_side(read: int | None, rct: int, below: int | None) -> None:
    body = _body()
    if read is not None:
        _origin(body, "Dist2")["CustomOriginConfig"]["OriginReadTimeout"] = read
    _origin(body, "Dist2")["ResponseCompletionTimeout"] = rct
    text = (f"Dist2 origin o: ResponseCompletionTimeout {rct} s is below OriginReadTimeout {below} s (CloudFront requires >=)"
            if below is not None else
            f"Dist2 origin o: ResponseCompletionTimeout {rct} s on a gRPC origin ends every stream longer than {rct} s "
            "(no connection profile declared to judge it against)")
    assert _cf3(body) == [(Severity.ERROR if below else Severity.WARNING, "Dist2", _says(text))]


def test_a_deploy_time_read_timeout_is_not_held_against_it_but_named() -> None:
    """Not held against it (no error on a value nobody knows), never read as fine: not judged, and the rest judged."""
    body = _body()
    body["Parameters"] = {"Read": {"Type": "Number"}}
    _origin(body, "Dist2")["CustomOriginConfig"]["OriginReadTimeout"] = {"Ref": "Read"}
    _origin(body, "Dist2")["ResponseCompletionTimeout"] = 20
    assert sorted(_cf3(body)) == sorted([(Severity.WARNING, "Dist2", _says(
        "Dist2 origin o: ResponseCompletionTimeout 20 s on a gRPC origin ends every stream longer than 20 s "
        "(no connection profile declared to judge it against)")),
        (Severity.WARNING, "Dist2", "not judged: Dist2 origin o OriginReadTimeout: <Ref Read> (decided at deploy time: a "
         "parameter without Default; CloudFront requires ResponseCompletionTimeout (20 s) >= OriginReadTimeout, which "
         "may be up to 120 s)")])
    _origin(body, "Dist2")["ResponseCompletionTimeout"] = 120  # no read timeout of the default quota is above it
    assert [m for _, _, m in _cf3(body) if m.startswith("not judged")] == []


def _vpc_origin(body: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """Dist2's origin made a VPC origin (VpcOriginConfig, no CustomOriginConfig)."""
    o = _origin(body, "Dist2")
    del o["CustomOriginConfig"]
    o["VpcOriginConfig"] = {"VpcOriginId": "vo-123", **config}
    return o


@pytest.mark.parametrize(("config", "rct", "below"), [({}, 20, 30), ({"OriginReadTimeout": 60}, 45, 60)])
def test_a_vpc_origin_is_judged_against_its_own_read_timeout(config: dict[str, Any], rct: int, below: int) -> None:
    body = _body()
    _vpc_origin(body, config)["ResponseCompletionTimeout"] = rct
    assert _cf3(body) == [(Severity.ERROR, "Dist2", _says(
        f"Dist2 origin o: ResponseCompletionTimeout {rct} s is below OriginReadTimeout {below} s (CloudFront requires >=)"))]


def test_an_s3_origin_of_a_grpc_behavior_is_not_judged() -> None:
    body = _body()
    o = _origin(body, "Dist2")
    del o["CustomOriginConfig"]
    o["S3OriginConfig"] = {"OriginAccessIdentity": ""}
    o["ResponseCompletionTimeout"] = 10
    assert _cf3(body) == []


@pytest.mark.parametrize(("fields", "rct", "expected"), [
    ({"p99_rpc_duration_s": 60.5}, 60, (Severity.ERROR, "60.5")),
    ({"p99_rpc_duration_s": 1000000}, 3600, (Severity.ERROR, "1000000")),
    ({"p99_rpc_duration_s": 720}, 720, None),  # at p99 and at the longest stream (600 x 1.1 + 60): quiet
    ({"p99_rpc_duration_s": 720}, 719, (Severity.ERROR, "720")),
])
def test_the_profile_p99_each_side(fields: dict[str, Any], rct: int, expected: tuple[Severity, str] | None) -> None:
    body = _profile(_body(), **fields)
    _origin(body)["ResponseCompletionTimeout"] = rct
    assert _cf3(body) == ([] if expected is None else [(expected[0], "Dist", _says(
        f"Dist origin o: ResponseCompletionTimeout {rct} s is below the declared connection profile's p99_rpc_duration_s "
        f"{expected[1]} s: CloudFront ends RPCs the profile says must complete"))])


def test_the_longest_stream_names_age_and_grace() -> None:
    body = _profile(_body(), server_max_connection_age_s=1000, server_max_connection_age_grace_s=30)
    _origin(body)["ResponseCompletionTimeout"] = 1129
    assert _cf3(body) == [(Severity.WARNING, "Dist", _says(
        "Dist origin o: ResponseCompletionTimeout 1129 s ends gRPC streams at 1129 s, before the longest the declared "
        "connection profile lets a server keep one (1130 s: server_max_connection_age_s 1000 x 1.1 + grace 30)"))]


@pytest.mark.parametrize("unset", ["server_max_connection_age_s", "server_max_connection_age_grace_s"])
def test_an_unbounded_stream_names_the_field_left_unset(unset: str) -> None:
    body = _profile(_body(), **{unset: None})
    assert _cf3(body) == [(Severity.WARNING, "Dist", _says(
        f"Dist origin o: ResponseCompletionTimeout 900 s ends every gRPC stream at 900 s, while the declared connection "
        f"profile's {unset} None lets streams live without limit"))]
