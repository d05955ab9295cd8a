"""EO-NLB3, unhealthy-target connection termination (issue 52): AWS's default (the attribute unset) is true, so
unset is judged as true; a value decided at deploy time is not judged, never fine.

botocore elbv2 ``TargetGroupAttribute.Key``: "target_health_state.unhealthy.connection_termination.enabled ...
The default is true. This attribute can't be enabled for UDP and TCP_UDP target groups."
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.facts import value as fact_value
from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.views import ATTRIBUTES_NOT_RETURNED_KEY
from edge_origin.rules import get_rule, run_rules
from tests.hardening_support import examples

KEY = "target_health_state.unhealthy.connection_termination.enabled"
ABSENT = object()
PARAMETER = {"Ref": "Termination"}


def _template(protocol: str, value: Any, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    attrs = [{"Key": "deregistration_delay.connection_termination.enabled", "Value": "true"}]
    if value is not ABSENT:
        attrs.append({"Key": KEY, "Value": value})
    tg: dict[str, Any] = {"Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {
        "Protocol": protocol, "Port": 8443, "TargetType": "ip", "VpcId": "vpc-1", "TargetGroupAttributes": attrs}}
    if metadata:
        tg["Metadata"] = metadata
    return {"Parameters": {"Termination": {"Type": "String"}}, "Resources": {"Targets": tg}}


def _unhealthy(body: dict[str, Any]) -> list[tuple[Severity, str]]:
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB3")])
    return [(f.severity, f.message) for f in found if KEY in f.message]


def _expected(protocol: str, value: Any) -> str | None:
    """What the attribute's documented default says: ``fires``, ``not judged`` or None (quiet)."""
    if protocol in ("QUIC", "TCP_QUIC"):  # the reference does not describe the attribute there
        return None if value is not ABSENT and value is not PARAMETER and value.strip().lower() == "false" else "not judged"
    if protocol not in ("TCP", "TLS"):
        return None  # it cannot be enabled on UDP / TCP_UDP target groups
    if value is PARAMETER:
        return "not judged"
    on = fact_value("elbv2.tg.unhealthy_connection_termination") if value is ABSENT else value.strip().lower() == "true"
    return "fires" if on else None


def _spelled(word: str) -> st.SearchStrategy[str]:
    return st.sampled_from([word, word.upper(), word.capitalize(), f" {word} "])


@settings(max_examples=examples(40), deadline=None)
@given(protocol=st.sampled_from(["TCP", "TLS", "UDP", "TCP_UDP", "QUIC", "TCP_QUIC"]),
       value=st.one_of(st.just(ABSENT), _spelled("true"), _spelled("false"), st.just(PARAMETER)))
def test_unhealthy_termination_is_judged_as_its_default_says(protocol: str, value: Any) -> None:
    found = _unhealthy(_template(protocol, value))
    expected = _expected(protocol, value)
    if expected is None:
        assert found == []
    elif expected == "not judged":
        [(severity, message)] = found
        assert severity is Severity.WARNING and message.startswith("not judged: target group Targets")
    else:
        [(severity, message)] = found
        assert severity is Severity.WARNING and "resets every connection to a target that turns unhealthy" in message
        assert ("unset: AWS's default is true" in message) == (value is ABSENT)


def test_unset_fires_and_false_keeps_it_quiet() -> None:
    [(_, message)] = _unhealthy(_template("TCP", ABSENT))
    assert f"target group Targets (TCP) {KEY} unset: AWS's default is true" in message
    assert _unhealthy(_template("TCP", "false")) == []


def test_an_account_read_that_did_not_return_it_says_so() -> None:
    """moto omits attributes never set (AWS returns them all): judged as the default, and the message says why."""
    [(_, message)] = _unhealthy(_template("TCP", ABSENT, {ATTRIBUTES_NOT_RETURNED_KEY: [KEY]}))
    assert "is not returned by DescribeTargetGroupAttributes" in message and "AWS's default: true" in message


def test_a_deploy_time_attribute_list_is_not_judged() -> None:
    body = _template("TLS", ABSENT)
    body["Resources"]["Targets"]["Properties"]["TargetGroupAttributes"] = [{"Ref": "Termination"}]
    [(severity, message)] = _unhealthy(body)
    assert severity is Severity.WARNING and message.startswith("not judged:")
