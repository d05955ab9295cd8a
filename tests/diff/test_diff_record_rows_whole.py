"""`edge-origin diff`'s record rows whole (field, before, after, note): what a reviewer reads for each way a
record's values, health check or identity change (mutation testing, issue 38)."""

from __future__ import annotations

import copy
import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from edge_origin.model import TemplateModel
from edge_origin.review.diff import diff_models

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "diff"))
make_pairs = importlib.import_module("make_pairs")

NAME = "origin.example.com"


def _rows(base: dict[str, Any], head: dict[str, Any]) -> list[tuple[str, str, str, Any, Any, str]]:
    result = diff_models(TemplateModel.from_templates({"Edge": base}), TemplateModel.from_templates({"Edge": head}))
    return [(c.logical_id, c.kind, c.field, c.before, c.after, c.note) for c in result.changes if c.name == NAME]


def _props(body: dict[str, Any], logical_id: str) -> dict[str, Any]:
    return body["Resources"][logical_id]["Properties"]


def test_a_replaced_eip_and_a_check_following_it_and_a_check_whose_tags_only_follow_a_replacement():
    base = make_pairs.world(nlbs=1)
    check = _props(base, "CheckNlb1A")
    check["HealthCheckConfig"]["IPAddress"] = "203.0.113.10"
    check["HealthCheckTags"] = [{"Key": "eip", "Value": {"Ref": "Side"}}]  # tags only: not worth a line
    base["Resources"]["Side"] = {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}}
    head = copy.deepcopy(base)
    _props(head, "Side")["NetworkBorderGroup"] = "us-east-1-bos-1"
    _props(head, "Nlb1EipB")["NetworkBorderGroup"] = "us-east-1-bos-1"
    assert _rows(base, head) == [
        ("RecordNlb1B", "record", "values", "EIP Edge/Nlb1EipB", "EIP Edge/Nlb1EipB (replaced)", ""),
        ("RecordNlb1B", "record", "health_check", "CheckNlb1B TCP:443",
         "CheckNlb1B TCP:443 (updated (HealthCheckConfig Nlb1EipB replaced))", ""),
        ("Nlb1EipB", "eip", "eip", "EIP Edge/Nlb1EipB", "replaced (NetworkBorderGroup unset -> us-east-1-bos-1)",
         "replaced: a new resource, new addresses"),
        ("Nlb1", "nlb", "nlb", "NLB Edge/Nlb1", "updated (SubnetMappings Nlb1EipB replaced)", "updated"),
    ]


def test_values_of_two_addresses_and_of_none_and_a_new_check_without_a_status():
    base = make_pairs.world(nlbs=1)
    head = copy.deepcopy(base)
    _props(head, "RecordNlb1A")["ResourceRecords"] = [{"Ref": "Nlb1EipA"}, {"Ref": "Nlb1EipB"}]
    _props(head, "RecordNlb1B")["ResourceRecords"] = []
    head["Resources"]["CheckNew"] = copy.deepcopy(head["Resources"]["CheckNlb1A"])
    _props(head, "CheckNew")["HealthCheckConfig"]["Port"] = 8443
    _props(head, "RecordNlb1A")["HealthCheckId"] = {"Ref": "CheckNew"}
    rows = [r for r in _rows(base, head) if r[1] == "record"]
    assert rows == [
        ("RecordNlb1A", "record", "values", "EIP Edge/Nlb1EipA", "EIP Edge/Nlb1EipA, EIP Edge/Nlb1EipB", ""),
        ("RecordNlb1A", "record", "health_check", "CheckNlb1A TCP:443", "CheckNew TCP:8443", ""),
        ("RecordNlb1B", "record", "values", "EIP Edge/Nlb1EipB", "-", ""),
    ]


def test_a_record_renamed_in_place_says_the_resource_now_names_another_name():
    base = make_pairs.world(nlbs=1)
    head = copy.deepcopy(base)
    _props(head, "RecordNlb1A")["Name"] = "other.example.com"
    renamed = [r for r in _rows(base, head) if r[0] == "RecordNlb1A"]
    assert renamed == [(
        "RecordNlb1A", "record", "record",
        "A multivalue set nlb1-us-east-1a TTL 60 -> EIP Edge/Nlb1EipA; health check CheckNlb1A", None,
        "the same resource now names other.example.com: replaced (Name origin.example.com -> other.example.com); "
        "CloudFormation creates the new record first and deletes this one in clean-up",
    )]


def test_a_record_under_another_logical_id_is_a_move_on_both_sides():
    base = make_pairs.world(nlbs=1)
    head = copy.deepcopy(base)
    head["Resources"]["RecordMoved"] = head["Resources"].pop("RecordNlb1A")
    rows = [r for r in _rows(base, head) if r[2] == "record"]
    assert [(r[0], r[5]) for r in rows] == [
        ("RecordNlb1A", "moves to Edge/RecordMoved (another logical id): a removal here and an addition there"),
        ("RecordMoved", "moved from Edge/RecordNlb1A (another logical id): an addition here and a removal there"),
    ]


def test_templates_too_deep_for_the_model_are_one_line_naming_the_side(monkeypatch, tmp_path):
    """The loader refuses a document nested too deeply to parse; deeper structures that only the model's walk
    meets end as one line naming the side, never a RecursionError."""
    import edge_origin.review.diff as diff_module
    from edge_origin.review.diff import DiffInputError, diff_paths

    template = tmp_path / "Edge.template.json"
    template.write_text('{"Resources": {}}')

    def too_deep(paths):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(diff_module, "load_model", too_deep)
    with pytest.raises(DiffInputError) as exc:
        diff_paths([template], [template.parent])
    assert str(exc.value) == "--base: cannot read templates (nested too deeply)"
