"""Every rule fires on its hand-written template and stays quiet on its twin, in YAML and JSON."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel, load_model
from edge_origin.model.loader import read_template_file
from edge_origin.rules import RULES, RULES_BY_ID, get_rule, run_rules

RULES_DIR = Path(__file__).parents[1] / "fixtures" / "templates" / "rules"
WORLD = Path(__file__).parents[1] / "fixtures" / "templates" / "world"
FIRE = sorted(RULES_DIR.glob("*-fire*.yaml"))
QUIET = sorted(RULES_DIR.glob("*-quiet.yaml"))


def _rule_id(path: Path) -> str:
    return "-".join(path.stem.split("-")[:2]).upper()


def test_every_rule_has_fire_and_quiet_fixtures() -> None:
    assert {_rule_id(p) for p in FIRE} == set(RULES_BY_ID)
    assert {_rule_id(p) for p in QUIET} == set(RULES_BY_ID)


@pytest.mark.parametrize("path", sorted(RULES_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_json_twin_matches_yaml(path: Path) -> None:
    twin = path.with_suffix(".json")
    assert json.loads(twin.read_text()) == read_template_file(path).body


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize("path", FIRE, ids=lambda p: p.stem)
def test_rule_fires(path: Path, suffix: str) -> None:
    rule = get_rule(_rule_id(path))
    findings = run_rules(load_model([path.with_suffix(suffix)]))
    assert findings, f"{rule.id} did not fire"
    assert {f.rule for f in findings} == {rule.id}
    top = max(f.severity.rank for f in findings)  # the catalogue's severity, or a grade its `lower` names
    assert top == rule.severity.rank or (rule.lower and top < rule.severity.rank), (rule.id, top)
    for f in findings:
        assert f.template.endswith(suffix) and f.stack and f.resource and f.message and f.fix


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize("path", QUIET, ids=lambda p: p.stem)
def test_rule_stays_quiet(path: Path, suffix: str) -> None:
    assert run_rules(load_model([path.with_suffix(suffix)])) == []


def test_reference_world_is_clean() -> None:
    assert run_rules(load_model([WORLD / "Origins.yaml", WORLD / "Edge.json"])) == []


def _body(path: Path) -> dict[str, Any]:
    return copy.deepcopy(read_template_file(path).body)


def test_dns1_lone_simple_record_is_a_warning() -> None:
    body = _body(RULES_DIR / "eo-dns3-fire.yaml")
    rec = body["Resources"]["RecordA"]["Properties"]
    del rec["MultiValueAnswer"], rec["SetIdentifier"], rec["HealthCheckId"]
    findings = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-DNS1")])
    assert [(f.rule, f.severity, f.resource) for f in findings] == [("EO-DNS1", Severity.WARNING, "RecordA")]
    assert "lone simple" in findings[0].message


def test_dns1_weighted_member_of_record_set_group_marked_by_metadata() -> None:
    body = {
        "Resources": {
            "Group": {
                "Type": "AWS::Route53::RecordSetGroup",
                "Metadata": {"edge-origin:grpc-origin": True},
                "Properties": {
                    "HostedZoneName": "example.com.",
                    "RecordSets": [
                        {"Name": "g.example.com", "Type": "A", "TTL": 60, "SetIdentifier": "a", "Weight": 1, "ResourceRecords": ["192.0.2.1"]},
                        {"Name": "g.example.com", "Type": "A", "TTL": 60, "SetIdentifier": "b", "Weight": 1, "ResourceRecords": ["192.0.2.2"]},
                    ],
                },
            }
        }
    }
    model = TemplateModel.from_templates({"S": body})
    assert model.grpc_origin_names() == {"g.example.com"}
    findings = run_rules(model, [get_rule("EO-DNS1")])
    assert [f.message.split(":")[0] for f in findings] == ["Group[0]", "Group[1]"]
    assert {f.severity for f in findings} == {Severity.ERROR}


def test_long_lived_origin_downgrades_to_warning() -> None:
    body = _body(RULES_DIR / "eo-dns1-fire.yaml")
    del body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["DefaultCacheBehavior"]["GrpcConfig"]
    model = TemplateModel.from_templates({"S": body})
    assert model.origin_names() == {"o.example.com": "long-lived"}
    findings = run_rules(model, [get_rule("EO-DNS1")])
    assert findings and {f.severity for f in findings} == {Severity.WARNING}


def test_cross_stack_weighted_records_fire_through_import_value() -> None:
    edge = _body(WORLD / "Edge.json")
    origins = _body(WORLD / "Origins.yaml")
    origins["Resources"]["RecordA"]["Properties"].pop("MultiValueAnswer")
    origins["Resources"]["RecordA"]["Properties"]["Weight"] = 10
    model = TemplateModel.from_templates({"Origins": origins, "Edge": edge})
    findings = run_rules(model)
    assert {(f.rule, f.stack, f.resource) for f in findings if f.severity is Severity.ERROR} == {
        ("EO-DNS1", "Origins", "RecordA"),
        ("EO-DNS5", "Origins", "RecordA"),
    }


def test_acknowledgement_in_metadata_drops_the_finding() -> None:
    body = _body(RULES_DIR / "eo-dns4-fire.yaml")
    body["Resources"]["RecordA"]["Metadata"] = {"edge-origin:acknowledge": [{"id": "EO-DNS4", "reason": "legacy resolver pinning"}]}
    assert run_rules(TemplateModel.from_templates({"S": body})) == []
    body["Resources"]["RecordA"]["Metadata"] = {"edge-origin:acknowledge": [{"id": "EO-DNS4"}]}  # no reason: ignored
    assert [f.rule for f in run_rules(TemplateModel.from_templates({"S": body}))] == ["EO-DNS4"]


def test_property_override_style_raw_values_are_seen() -> None:
    """Values as strings (what add_property_override or hand-written YAML give) count the same."""
    body = _body(RULES_DIR / "eo-nlb3-quiet.yaml")
    body["Resources"]["Nlb"]["Properties"]["LoadBalancerAttributes"] = [{"Key": "load_balancing.cross_zone.enabled", "Value": False}]
    findings = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-NLB3")])
    assert [f.resource for f in findings] == ["Nlb"]


def test_registry_is_complete() -> None:
    assert len(RULES) == 26  # 11 from issue 3, EO-KA1..3 from issue 4, EO-SEC1 from issue 14, EO-VPC1..4 from issue 31, EO-NJ1 from issue 36, EO-NJ2, EO-CF3 and EO-NLB4 from issue 34, EO-NLB5 from issue 33, EO-NLB6 and EO-CF4 from issue 52
    for rule in RULES:
        assert rule.title and rule.catches and rule.incident and rule.fix and rule.id in rule.acknowledge
    with pytest.raises(ValueError, match="allowed: EO-DNS1"):
        get_rule("EO-NOPE")
