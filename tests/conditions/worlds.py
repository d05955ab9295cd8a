"""One quiet world (tests/fixtures/templates/rules/eo-nlb3-quiet.json: CloudFront gRPC origin ->
multivalue records -> EIPs -> NLB -> TCP listener -> target group) and small edits of it, so each
condition test changes exactly one thing and asserts exactly which findings appear."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import LoadedTemplate
from edge_origin.rules import RULES_BY_ID, run_rules

RULES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "rules"
_QUIET = json.loads((RULES_DIR / "eo-nlb3-quiet.json").read_text())


def world() -> dict[str, Any]:
    """A fresh copy of the quiet world."""
    return copy.deepcopy(_QUIET)


def res(body: dict[str, Any], logical_id: str) -> dict[str, Any]:
    return body["Resources"][logical_id]["Properties"]


def dist_config(body: dict[str, Any]) -> dict[str, Any]:
    return res(body, "Dist")["DistributionConfig"]


def behavior(body: dict[str, Any]) -> dict[str, Any]:
    return dist_config(body)["DefaultCacheBehavior"]


def origin(body: dict[str, Any]) -> dict[str, Any]:
    return dist_config(body)["Origins"][0]


def set_attribute(props: dict[str, Any], field: str, key: str, value: Any) -> None:
    """Set (value not None) or drop (None) one Key/Value attribute of a resource's list ``field``."""
    items = [a for a in props.get(field, []) if a["Key"] != key]
    if value is not None:
        items.append({"Key": key, "Value": value})
    props[field] = items


def findings(body: dict[str, Any], rule_id: str) -> list[Finding]:
    model = TemplateModel([LoadedTemplate("S", "t.json", body)])
    return run_rules(model, [RULES_BY_ID[rule_id]])


def one(body: dict[str, Any], rule_id: str, resource: str, severity: Severity, *phrases: str) -> Finding:
    """The single finding of the rule: on that resource, at that severity, with every phrase."""
    return single(findings(body, rule_id), rule_id, resource, severity, *phrases)


def single(found: list[Finding], rule_id: str, resource: str, severity: Severity, *phrases: str) -> Finding:
    """The one finding in ``found``: of that rule, on that resource, at that severity, with every phrase."""
    assert len(found) == 1, [(f.resource, f.message) for f in found]
    (f,) = found
    assert (f.rule, f.resource, f.severity) == (rule_id, resource, severity), f
    for phrase in phrases:
        assert phrase in f.message, (phrase, f.message)
    return f


def quiet(body: dict[str, Any], rule_id: str) -> None:
    found = findings(body, rule_id)
    assert found == [], [(f.resource, f.message) for f in found]
