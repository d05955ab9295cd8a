"""EO-CF3: a ResponseCompletionTimeout on a gRPC origin, judged against the declared connection profile."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.rules import get_rule, run_rules

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


def test_out_of_range_is_an_error() -> None:
    body = _body()
    _origin(body, "Dist2")["ResponseCompletionTimeout"] = 3601
    [(severity, resource, message)] = _cf3(body)
    assert (severity, resource) == (Severity.ERROR, "Dist2") and "outside 1..3600 s" in message
