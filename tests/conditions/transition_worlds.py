"""Before/after pairs for the transition rules (EO-CHG1..5), built from the diff fixtures' small edge world
(tests/fixtures/diff/make_pairs.py: a gRPC distribution -> multivalue records, one per EIP -> NLBs with TCP
listeners declaring a connection profile), and the helpers that run one rule over a pair."""

from __future__ import annotations

import copy
import importlib
import sys
from pathlib import Path
from typing import Any

from worlds import single

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.rules import TRANSITION_RULES_BY_ID, run_transition_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "diff"))
make_pairs = importlib.import_module("make_pairs")

NAME: str = make_pairs.NAME
Stacks = dict[str, dict[str, Any]]


def world(**kwargs: Any) -> dict[str, Any]:
    """make_pairs.world (a fresh template each call)."""
    return make_pairs.world(**kwargs)


def resources(body: dict[str, Any]) -> dict[str, Any]:
    return body["Resources"]


def props(body: dict[str, Any], logical_id: str) -> dict[str, Any]:
    return body["Resources"][logical_id]["Properties"]


def record_ids(body: dict[str, Any]) -> list[str]:
    return make_pairs.records(body)


def set_policy(record: dict[str, Any], policy: str) -> None:
    """Make one record's properties ``weighted`` or ``multivalue``."""
    record.pop("Weight", None)
    record.pop("MultiValueAnswer", None)
    if policy == "weighted":
        record["Weight"] = 10
    else:
        record["MultiValueAnswer"] = True


def drop_record(body: dict[str, Any], logical_id: str) -> None:
    """Remove a record and its health check."""
    del body["Resources"][logical_id]
    body["Resources"].pop(logical_id.replace("Record", "Check"), None)


def copy_records(source: dict[str, Any], target: dict[str, Any], prefix: str) -> list[str]:
    """Copy ``source``'s records into ``target`` under ``prefix``-ed logical ids (their EIPs and checks are
    the same logical ids in both worlds); returns the new logical ids."""
    added = []
    for key in record_ids(source):
        target["Resources"][prefix + key] = copy.deepcopy(source["Resources"][key])
        added.append(prefix + key)
    return added


def transition_findings(base: Stacks | dict[str, Any], head: Stacks | dict[str, Any], rule_id: str) -> list[Finding]:
    """The findings of one transition rule over (base, head); a bare template is the stack ``Edge``."""
    def stacks(side: dict[str, Any]) -> Stacks:
        return {"Edge": side} if "Resources" in side else side
    models = TemplateModel.from_templates(stacks(base)), TemplateModel.from_templates(stacks(head))
    return run_transition_rules(*models, [TRANSITION_RULES_BY_ID[rule_id]])


def one_change(base: Any, head: Any, rule_id: str, resource: str, severity: Severity, *phrases: str) -> Finding:
    """The single finding of the rule: on that resource, at that severity, with every phrase."""
    return single(transition_findings(base, head, rule_id), rule_id, resource, severity, *phrases)


def quiet_change(base: Any, head: Any, rule_id: str) -> None:
    found = transition_findings(base, head, rule_id)
    assert found == [], [(f.resource, f.message) for f in found]
