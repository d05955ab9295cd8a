"""Generated bad templates: every rule fixture and the reference template, one property at any
depth replaced by any JSON value (or a malformed intrinsic). ``check``, ``report`` and the model
raise nothing but ``ModelError``, and a weighted gRPC origin record the mutation did not touch
is never reported clean."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hardening_support import all_paths, examples, replacements, set_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.model import ModelError, TemplateModel
from edge_origin.model.loader import LoadedTemplate, parse_template_text
from edge_origin.review.checker import FORMATS, format_findings
from edge_origin.review.report import REPORT_FORMATS, render_report
from edge_origin.rules import run_rules

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "templates" / "rules").glob("*.json")) + [
    ROOT / "tests" / "fixtures" / "templates" / "world" / "Edge.json",
    ROOT / "tests" / "snapshots" / "TelemetryIngest.template.json",
]
BODIES = {p.name: json.loads(p.read_text()) for p in FIXTURES}
PATHS = {name: all_paths(body) for name, body in BODIES.items()}
ADDED_KEYS = ("Transform", "Condition", "Properties", "Metadata", "Fn::If", "Ref", "Type", "Weight", "Name")


def _weighted_grpc_records(body: dict[str, Any]) -> set[str]:
    """Logical ids of records EO-DNS1 reports as weighted gRPC origin records, unmutated."""
    model = TemplateModel([LoadedTemplate("S", "t.json", copy.deepcopy(body))])
    return {f.resource for f in run_rules(model) if f.rule == "EO-DNS1" and "weighted record" in f.message}


WEIGHTED = {name: _weighted_grpc_records(body) for name, body in BODIES.items()}
DISTRIBUTIONS = {
    name: {k for k, r in body["Resources"].items() if r.get("Type") == "AWS::CloudFront::Distribution"}
    for name, body in BODIES.items()
}


def _exercise(text: str) -> TemplateModel | None:
    """Everything a user can run on a template; None when it is bad input (ModelError)."""
    try:
        model = TemplateModel([LoadedTemplate("S", "t.json", parse_template_text(text, "t.json"))])
        findings = run_rules(model)
    except ModelError as exc:
        assert str(exc).startswith("t.json"), str(exc)
        assert "\n" not in str(exc) and len(str(exc)) < 600, str(exc)
        return None
    for fmt in FORMATS:
        format_findings(findings, fmt)
    for fmt in REPORT_FORMATS:
        render_report(model, fmt, findings)
    model._test_findings = findings  # type: ignore[attr-defined]
    return model


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_mutation_is_checked_or_clean_bad_input(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(BODIES)), label="fixture")
    body = copy.deepcopy(BODIES[name])
    if data.draw(st.booleans(), label="add a key"):
        mappings = [()] + [p for p in PATHS[name] if isinstance(_get(body, p), dict)]
        where = data.draw(st.sampled_from(mappings), label="mapping")
        path = (*where, data.draw(st.sampled_from(ADDED_KEYS), label="key"))
    else:
        path = data.draw(st.sampled_from(PATHS[name]), label="path")
    value = data.draw(replacements, label="value")
    set_path(body, path, value)
    model = _exercise(json.dumps(body))
    if model is None:
        return
    if path[0] == "Resources" and len(path) == 1:
        return  # the whole Resources replaced: nothing left to compare
    if path[0] in ("Parameters", "Conditions", "Mappings", "Transform", "Outputs"):
        return  # what could decide the record or the origin changed
    if path[0] == "Resources" and path[1] in DISTRIBUTIONS[name]:
        return  # the gRPC origin itself changed
    # reported: EO-DNS1, or EO-NJ2 naming the record as not judged (a member the routing table does not
    # know was added to it: issue 34 reads that as "not judged", never as a record it can pass)
    reported = {f.resource for f in model._test_findings if f.rule == "EO-DNS1"}  # type: ignore[attr-defined]
    reported |= {f.resource for f in model._test_findings if f.rule == "EO-NJ2"}  # type: ignore[attr-defined]
    for record in WEIGHTED[name]:
        if path[:2] == ("Resources", record) and not _keeps_weighted_record(path[2:]):
            continue
        if path[:2] == ("Resources", record) and path[2:] == ("Properties", "ResourceRecords") and (
                not value or value == {"Ref": "AWS::NoValue"}):
            continue  # a record that holds no address pins nothing (EO-DNS3 still counts the name's addresses)
        assert record in reported, f"{name}: mutation at {path} left weighted gRPC record {record} unreported"


def _keeps_weighted_record(inner: tuple[Any, ...]) -> bool:
    """A mutation inside a weighted record that leaves it a weighted record of the same name:
    anything under Properties but Name, Weight and Type (and not Properties as a whole)."""
    return len(inner) >= 2 and inner[0] == "Properties" and inner[1] not in ("Name", "Weight", "Type")


def _get(body: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        body = body[key]
    return body


def test_the_oracle_has_something_to_guard() -> None:
    assert WEIGHTED["eo-dns1-fire.json"], "the DNS1 fixture must hold a weighted gRPC record"


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"Name": ["o.example.com"]}, "Properties.Name is a list"),
        ({"Weight": {"a": 1}}, "Properties.Weight is a mapping"),
        ({"ResourceRecords": 7}, "Properties.ResourceRecords is a number"),
        ({"HealthCheckId": [1]}, "Properties.HealthCheckId is a list"),
    ],
)
def test_record_shapes_cloudformation_refuses_name_the_property(patch: dict[str, Any], message: str) -> None:
    body = copy.deepcopy(BODIES["eo-dns1-fire.json"])
    record = sorted(WEIGHTED["eo-dns1-fire.json"])[0]
    body["Resources"][record]["Properties"].update(patch)
    with pytest.raises(ModelError, match=rf"t\.json: {record}: {message}"):
        TemplateModel([LoadedTemplate("S", "t.json", body)])


@pytest.mark.parametrize(
    ("type_name", "prop", "value", "message"),
    [
        ("AWS::ElasticLoadBalancingV2::LoadBalancer", "SubnetMappings", 7, "SubnetMappings is a number"),
        ("AWS::ElasticLoadBalancingV2::Listener", "DefaultActions", 7, "DefaultActions is a number"),
        ("AWS::EC2::SecurityGroup", "SecurityGroupIngress", 7, "SecurityGroupIngress is a number"),
        ("AWS::CloudFront::Distribution", "DistributionConfig", [], "DistributionConfig is a list"),
    ],
)
def test_resource_shapes_name_file_resource_property(type_name: str, prop: str, value: Any, message: str) -> None:
    body = {"Resources": {"R": {"Type": type_name, "Properties": {prop: value}}}}
    with pytest.raises(ModelError, match=rf"t\.json: R: Properties\.{message}"):
        TemplateModel([LoadedTemplate("S", "t.json", body)])


def test_prefix_list_as_a_list_and_origins_as_a_mapping_are_refused() -> None:
    sg = {"Type": "AWS::EC2::SecurityGroup", "Properties": {"SecurityGroupIngress": [{"IpProtocol": "tcp", "SourcePrefixListId": ["pl-1"]}]}}
    with pytest.raises(ModelError, match=r"SecurityGroupIngress\[0\]\.SourcePrefixListId is a list"):
        TemplateModel([LoadedTemplate("S", "t.json", {"Resources": {"Sg": sg}})])
    dist = {"Type": "AWS::CloudFront::Distribution", "Properties": {"DistributionConfig": {"Origins": {"Id": "o"}}}}
    with pytest.raises(ModelError, match=r"DistributionConfig\.Origins is a mapping"):
        TemplateModel([LoadedTemplate("S", "t.json", {"Resources": {"D": dist}})])


def test_parameters_as_a_list_is_refused() -> None:
    with pytest.raises(ModelError, match="Parameters is a list, not a mapping"):
        parse_template_text(json.dumps({"Parameters": [], "Resources": {"R": {"Type": "X"}}}), "t.json")


def test_undecidable_properties_are_unknown_not_a_crash() -> None:
    body = copy.deepcopy(BODIES["eo-dns1-fire.json"])
    body["Parameters"] = {"Flip": {"Type": "String"}}
    body["Conditions"] = {"On": {"Fn::Equals": [{"Ref": "Flip"}, "on"]}}
    for res in body["Resources"].values():
        props = res.get("Properties", {})
        res["Properties"] = {"Fn::If": ["On", props, {"Ref": "AWS::NoValue"}]}
    model = TemplateModel([LoadedTemplate("S", "t.json", body)])
    run_rules(model)
    render_report(model, "markdown")
    assert all(r.unknown_properties is not None for r in model.resources)
    assert all(r.unknown for r in model.record_sets())


READ_TYPES = {
    "AWS::Route53::RecordSet", "AWS::Route53::RecordSetGroup", "AWS::Route53::HealthCheck", "AWS::Route53::HostedZone",
    "AWS::EC2::EIP", "AWS::EC2::Subnet", "AWS::EC2::SecurityGroup", "AWS::EC2::SecurityGroupIngress",
    "AWS::ElasticLoadBalancingV2::LoadBalancer", "AWS::ElasticLoadBalancingV2::Listener",
    "AWS::ElasticLoadBalancingV2::TargetGroup", "AWS::CloudFront::Distribution", "AWS::CloudFront::CachePolicy",
}


def _sweep_cases() -> list[tuple[str, tuple[Any, ...]]]:
    """One (fixture, path) for each distinct (resource type, property path) of the types the
    model reads, in the fixtures."""
    seen: set[tuple[Any, ...]] = set()
    cases = []
    for name in sorted(BODIES):
        if name == "TelemetryIngest.template.json":
            continue  # large; the generated test covers it
        resources = BODIES[name]["Resources"]
        for path in PATHS[name]:
            if len(path) < 3 or path[0] != "Resources" or path[2] not in ("Properties", "Metadata"):
                continue
            if resources[path[1]].get("Type") not in READ_TYPES:
                continue
            resource = resources[path[1]]
            declares = tuple(sorted(resource.get("Metadata", {})))  # a declared profile brings the KA rules in
            shape = (resource.get("Type"), declares, *(0 if isinstance(p, int) else p for p in path[2:]))
            if shape not in seen:
                seen.add(shape)
                cases.append((name, path))
    return cases


SWEEP = _sweep_cases()


@pytest.mark.parametrize(
    "value",
    [{"Ref": "AWS::Region"}, 7, [], {}, "nonsense", True, -(2**62)],
    ids=["unresolved", "number", "list", "mapping", "string", "boolean", "negative"],
)
def test_every_property_shape_of_the_fixtures_with_an_odd_value(value: Any) -> None:
    """Deterministic sweep: each property path the fixtures hold, per resource type, set to an
    unresolvable value or a wrong JSON type: checked, or one clean ModelError."""
    assert len(SWEEP) > 100
    for name, path in SWEEP:
        body = copy.deepcopy(BODIES[name])
        set_path(body, path, copy.deepcopy(value))
        _exercise(json.dumps(body))
