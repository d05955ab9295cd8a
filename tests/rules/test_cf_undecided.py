"""The CloudFront rules (EO-CF1, EO-CF2, EO-CF3, EO-VPC1, EO-SEC1) on values decided at deploy time.

Each case: one value of a fire fixture made a String parameter. Without Default the rule says "not judged" naming
the property and the value as written; with the original value as Default it judges as before (the same
findings as the fixture's). Cases where the rule can decide whatever the value is keep their verdict.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.model import LoadedTemplate, TemplateModel
from edge_origin.rules import RULES_BY_ID, run_rules

RULES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "rules"
DC = ("Resources", "Dist", "Properties", "DistributionConfig")


def _with(fixture: str, path: tuple[Any, ...], default: Any = None, edits: dict[tuple[Any, ...], Any] | None = None) -> dict:
    body = json.loads((RULES_DIR / f"{fixture}.json").read_text())
    for where, value in (edits or {}).items():
        _put(body, where, value)
    original = _put(body, path, {"Ref": "P"})
    body.setdefault("Parameters", {})["P"] = {"Type": "String"}
    if default is not None:
        body["Parameters"]["P"]["Default"] = str(original) if default == "original" else default
    return body


def _put(body: dict, path: tuple[Any, ...], value: Any) -> Any:
    node = body
    for key in path[:-1]:
        node = node[key]
    old, node[path[-1]] = node[path[-1]], value
    return old


def _run(body: dict, rule: str) -> tuple[list[str], list[str]]:
    """(judged messages, not-judged messages) of ``rule``."""
    found = run_rules(TemplateModel([LoadedTemplate("S", "t.json", body)]), [RULES_BY_ID[rule]])
    judged = [f.message for f in found if not f.message.startswith("not judged")]
    said = [f.message for f in found if f.message.startswith("not judged")]
    assert all(f.severity is Severity.WARNING for f in found if f.message.startswith("not judged"))
    return judged, said


CASES = [
    ("eo-cf1-fire", "EO-CF1", (*DC, "HttpVersion"), "HttpVersion: <Ref P>"),
    ("eo-cf1-fire", "EO-CF1", (*DC, "Origins", 0, "CustomOriginConfig", "OriginProtocolPolicy"),
     "origin o CustomOriginConfig.OriginProtocolPolicy: <Ref P>"),
    ("eo-cf1-fire", "EO-CF1", (*DC, "DefaultCacheBehavior", "GrpcConfig", "Enabled"), "GrpcConfig.Enabled: <Ref P>"),
    ("eo-cf1-fire", "EO-CF1", (*DC, "DefaultCacheBehavior", "CachePolicyId"), "CachePolicyId: <Ref P>"),
    ("eo-cf2-fire", "EO-CF2", (*DC, "Origins", 0, "CustomOriginConfig", "OriginKeepaliveTimeout"),
     "CustomOriginConfig.OriginKeepaliveTimeout: <Ref P>"),
    ("eo-cf3-fire", "EO-CF3", (*DC, "DefaultCacheBehavior", "TargetOriginId"), "TargetOriginId: <Ref P>"),
    ("eo-cf3-fire", "EO-CF3", (*DC, "CacheBehaviors", 0, "GrpcConfig", "Enabled"),
     "behavior /svc.Other/* GrpcConfig.Enabled: <Ref P>"),
    ("eo-vpc1-fire", "EO-VPC1", (*DC, "Origins", 0, "VpcOriginConfig", "OriginKeepaliveTimeout"),
     "VpcOriginConfig.OriginKeepaliveTimeout: <Ref P>"),
]


@pytest.mark.parametrize(("fixture", "rule", "path", "named"), CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_a_parameter_without_default_is_not_judged_and_with_one_judged(fixture: str, rule: str, path: tuple, named: str) -> None:
    base_judged, base_said = _run(_with(fixture, path, "original"), rule)
    original = json.loads((RULES_DIR / f"{fixture}.json").read_text())
    assert sorted(base_judged) == sorted(_run(original, rule)[0]) and not base_said  # the Default: judged as before
    judged, said = _run(_with(fixture, path), rule)
    assert len(judged) < len(base_judged)
    assert any(named in m and "decided at deploy time: a parameter without Default" in m for m in said), said


def test_cf1_allowed_methods_that_can_never_be_all_seven_still_fire() -> None:
    """A list of 2 items is never CloudFront's 7-method set, whatever its undecided item is."""
    judged, said = _run(_with("eo-cf1-fire", (*DC, "DefaultCacheBehavior", "AllowedMethods", 0)), "EO-CF1")
    assert any("AllowedMethods is [<Ref P>, HEAD]: never all 7" in m for m in judged), judged
    assert not any("AllowedMethods" in m for m in said)


def test_cf1_an_undecided_item_of_seven_methods_is_not_judged() -> None:
    path = (*DC, "DefaultCacheBehavior", "AllowedMethods", 5)  # POST, in the fixture's 7-method list
    judged, said = _run(_with("eo-cf2-fire", path), "EO-CF1")
    assert not judged and said and "AllowedMethods[5]: <Ref P>" in said[0]
    assert _run(_with("eo-cf2-fire", path, "POST"), "EO-CF1") == ([], [])
    judged, said = _run(_with("eo-cf2-fire", path, "GET"), "EO-CF1")  # a duplicate: 6 methods
    assert judged and not said


def test_cf1_an_undecided_grpc_flag_on_a_well_set_behavior_is_quiet() -> None:
    """Judged both ways: as a gRPC behavior it has no finding, so whether it is one does not matter."""
    assert _run(_with("eo-cf2-fire", (*DC, "DefaultCacheBehavior", "GrpcConfig", "Enabled")), "EO-CF1") == ([], [])


def test_cf2_an_undecided_keepalive_well_below_the_idle_timeout_is_quiet() -> None:
    """Every keepalive up to the default quota (120 s) is well below a 350 s idle timeout: judged, quiet."""
    idle = ("Resources", "Listener", "Properties", "ListenerAttributes", 0, "Value")
    path = (*DC, "Origins", 0, "CustomOriginConfig", "OriginKeepaliveTimeout")
    assert _run(_with("eo-cf2-fire", path, edits={idle: "350"}), "EO-CF2") == ([], [])
    assert _run(_with("eo-cf2-fire", path, edits={idle: "120"}), "EO-CF2")[1]  # 120 s keepalive reaches it


def test_cf3_an_undecided_target_of_quiet_origins_is_quiet() -> None:
    """Neither origin the behavior may target has a ResponseCompletionTimeout: nothing to say."""
    edits = {(*DC, "Origins", i, "ResponseCompletionTimeout"): None for i in (0, 1)}
    body = _with("eo-cf3-fire", (*DC, "DefaultCacheBehavior", "TargetOriginId"), edits=edits)
    for origin in body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"]:
        origin.pop("ResponseCompletionTimeout")
    judged, said = _run(body, "EO-CF3")
    assert not [m for m in said if "Dist " in m] and not [m for m in judged if "Dist " in m]


def test_a_literal_target_with_one_origin_whose_id_is_undecided_is_decided() -> None:
    """CloudFront refuses a TargetOriginId that names no origin: the one origin whose Id may match is the target."""
    body = _with("eo-cf3-fire", (*DC, "Origins", 1, "Id"))
    model = TemplateModel([LoadedTemplate("S", "t.json", copy.deepcopy(body))])
    dist = next(d for d in model.distributions if d.resource.logical_id == "Dist")
    behavior = dist.behaviors[1]
    assert [o.raw["ResponseCompletionTimeout"] for o in behavior.origins] == [20] and not behavior.target_candidates
    judged, said = _run(body, "EO-CF3")
    assert any("origin <Ref P>: ResponseCompletionTimeout 20 s is below OriginReadTimeout" in m for m in judged), judged


def test_a_literal_target_two_origins_with_undecided_ids_may_name_is_not_judged() -> None:
    body = _with("eo-cf3-fire", (*DC, "Origins", 1, "Id"), edits={(*DC, "Origins", 0, "Id"): {"Ref": "Q"}})
    body["Parameters"]["Q"] = {"Type": "String"}
    judged, said = _run(body, "EO-CF3")
    assert not [m for m in judged if "Dist " in m]
    # each origin a gRPC behavior may reach, once: both have a ResponseCompletionTimeout this rule judges
    assert len(said) == 2 and all("origin Id (the target of " in m for m in said), said
    assert any("<Ref Q>" in m for m in said) and any("<Ref P>" in m for m in said), said


# --- EO-SEC1: the verification header's value and the ingress prefix list ----------------------------------------
HEADER = ("Resources", "DistPlain", "Properties", "DistributionConfig", "Origins", 0, "OriginCustomHeaders", 0, "HeaderValue")
PREFIX_LIST = ("Resources", "NlbSg", "Properties", "SecurityGroupIngress", 0, "SourcePrefixListId")


def _plain(messages: list[str]) -> list[str]:
    return [m for m in messages if m.startswith(("DistPlain", "not judged: DistPlain"))]


def test_sec1_a_header_from_a_parameter_without_noecho_still_fires() -> None:
    """DescribeStacks returns such a parameter's value: readable outside the pods, as a plaintext value is."""
    judged, said = _run(_with("eo-sec1-fire", HEADER), "EO-SEC1")
    assert any("from stack parameter P, which is not NoEcho" in m for m in _plain(judged)), judged
    assert not _plain(said)
    judged, said = _run(_with("eo-sec1-fire", HEADER, "original"), "EO-SEC1")  # a Default: in the template
    assert any("with a plaintext value in the template" in m for m in _plain(judged)) and not said


@pytest.mark.parametrize(("value", "shown"), [
    ({"Ref": "P"}, "<Ref P>"),  # made NoEcho below
    ({"Fn::ImportValue": "verify-secret"}, "<Fn::ImportValue verify-secret>"),
])
def test_sec1_a_header_from_a_noecho_parameter_or_an_import_is_not_judged(value: Any, shown: str) -> None:
    body = _with("eo-sec1-fire", HEADER, edits={})
    _put(body, HEADER, value)
    body["Parameters"]["P"]["NoEcho"] = "true"
    found = run_rules(TemplateModel([LoadedTemplate("S", "t.json", body)]), [RULES_BY_ID["EO-SEC1"]])
    plain = [f for f in found if f.resource == "DistPlain"]
    assert len(plain) == 1 and plain[0].severity is Severity.WARNING, plain
    assert plain[0].message.startswith(f"not judged: DistPlain origin o (gRPC, o.example.com): OriginCustomHeaders "
                                       f"x-origin-verify HeaderValue: {shown}")
    assert ("NoEcho parameter P is masked in DescribeStacks" in plain[0].message) is (value == {"Ref": "P"})
    assert "{{resolve:secretsmanager:" in plain[0].fix  # never "give the parameter a Default": that is plaintext


def test_sec1_an_undecided_prefix_list_is_not_judged_and_with_a_default_judged() -> None:
    judged, said = _run(_with("eo-sec1-fire", PREFIX_LIST), "EO-SEC1")
    assert not judged and len(said) == 2, (judged, said)
    assert all("NLB Nlb SourcePrefixListId: <Ref P>" in m and "may be CloudFront's origin-facing prefix list" in m
               for m in said)
    assert any("sends no origin verification header" in m for m in said)
    base = _run(json.loads((RULES_DIR / "eo-sec1-fire.json").read_text()), "EO-SEC1")
    assert _run(_with("eo-sec1-fire", PREFIX_LIST, "original"), "EO-SEC1") == base
    assert _run(_with("eo-sec1-fire", PREFIX_LIST, "pl-0123456789abcdef0"), "EO-SEC1") == ([], [])  # the customer's list


def test_sec1_an_undecided_prefix_list_before_a_verified_origin_is_quiet() -> None:
    """Whatever the list is, a dynamic reference verifies the origin: decided, quiet."""
    body = _with("eo-sec1-fire", PREFIX_LIST)
    _put(body, HEADER, "{{resolve:secretsmanager:arn:aws:secretsmanager:us-east-1:123456789012:secret:v:SecretString:current}}")
    assert not _plain(_run(body, "EO-SEC1")[1]) and not _plain(_run(body, "EO-SEC1")[0])


def test_sec1_a_prefix_list_mapped_by_an_undecided_region_is_judged_over_the_mapping() -> None:
    """Fn::FindInMap by AWS::Region (an environment-agnostic stack): no row CloudFront's list -> quiet; some row
    CloudFront's (another map name than OriginFleet's) -> not judged."""
    lookup = {"Fn::FindInMap": ["Lists", {"Ref": "AWS::Region"}, "Id"]}
    body = _with("eo-sec1-fire", PREFIX_LIST, edits={PREFIX_LIST: lookup})
    _put(body, PREFIX_LIST, lookup)
    body["Mappings"] = {"Lists": {"us-east-1": {"Id": "pl-0123456789abcdef0"}, "eu-west-1": {"Id": "pl-0fedcba987654321f"}}}
    assert _run(body, "EO-SEC1") == ([], [])
    body["Mappings"]["Lists"]["eu-west-1"]["Id"] = "pl-3b927c52"  # CloudFront's origin-facing list in us-east-1
    judged, said = _run(body, "EO-SEC1")
    assert not judged and len(said) == 2 and all("<Fn::FindInMap Lists/<AWS::Region>/Id>" in m for m in said), said


# --- generated: "judged both ways" holds for every value the undecided one may take ------------------------------
METHODS = ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]
METHODS_PATH = (*DC, "DefaultCacheBehavior", "AllowedMethods")


def _methods_verdict(body: dict) -> str:
    """EO-CF1's verdict on the methods alone: "fires", "not judged" or "quiet"."""
    judged, said = _run(body, "EO-CF1")
    if any("AllowedMethods" in m for m in judged):
        return "fires"
    return "not judged" if any("AllowedMethods" in m for m in said) else "quiet"


@settings(max_examples=40, deadline=None)
@given(methods=st.lists(st.sampled_from(METHODS), min_size=1, max_size=8), data=st.data())
def test_cf1_an_undecided_method_fires_only_when_every_method_would(methods: list[str], data: st.DataObject) -> None:
    """Fires: every method in its place fires; quiet only when every method in its place is quiet (the literal
    items already hold all seven); not judged: some method fires and some does not."""
    index = data.draw(st.integers(0, len(methods) - 1))
    body = _with("eo-cf2-fire", (*METHODS_PATH,), edits={METHODS_PATH: methods})
    _put(body, METHODS_PATH, [*methods[:index], {"Ref": "P"}, *methods[index + 1:]])
    said = _methods_verdict(body)
    each = set()
    for method in METHODS:
        literal = copy.deepcopy(body)
        _put(literal, (*METHODS_PATH, index), method)
        each.add(_methods_verdict(literal))
    assert (said == "quiet") is (each == {"quiet"}), (methods, index, said, each)
    assert (said == "fires") is (each == {"fires"}), (methods, index, said, each)


@settings(max_examples=30, deadline=None)
@given(idle=st.integers(60, 6000), keepalive=st.integers(1, 120))
def test_cf2_an_undecided_keepalive_is_quiet_only_when_every_keepalive_up_to_the_quota_is(idle: int, keepalive: int) -> None:
    path = (*DC, "Origins", 0, "CustomOriginConfig", "OriginKeepaliveTimeout")
    edits = {("Resources", "Listener", "Properties", "ListenerAttributes", 0, "Value"): str(idle)}
    undecided = _run(_with("eo-cf2-fire", path, edits=edits), "EO-CF2")
    assert not undecided[0]  # never a judged finding on a value nobody knows
    worst = _run(_with("eo-cf2-fire", path, "120", edits=edits), "EO-CF2")
    assert bool(undecided[1]) is bool(worst[0]), (idle, undecided, worst)
    if not undecided[1]:  # quiet: fine for the drawn keepalive too
        assert _run(_with("eo-cf2-fire", path, str(keepalive), edits=edits), "EO-CF2") == ([], [])


@pytest.mark.parametrize("where", ["VpcOriginId", "Arn"])
def test_vpc1_an_undecided_vpc_origin_is_judged_over_every_idle_timeout(where: str) -> None:
    """Its NLB is not known: quiet when the timeouts are well below 60 s (the lowest idle timeout), else not judged."""
    vpc_id = (*DC, "Origins", 0, "VpcOriginConfig", "VpcOriginId")
    arn = ("Resources", "VpcOrigin", "Properties", "VpcOriginEndpointConfig", "Arn")
    timeouts = {(*DC, "Origins", 0, "VpcOriginConfig", "OriginKeepaliveTimeout"): 5,
                (*DC, "Origins", 0, "VpcOriginConfig", "OriginReadTimeout"): 30}
    body = _with("eo-vpc1-fire", vpc_id if where == "VpcOriginId" else arn, edits=timeouts)
    assert _run(body, "EO-VPC1") == ([], [])
    _put(body, (*DC, "Origins", 0, "VpcOriginConfig", "OriginReadTimeout"), 60)
    judged, said = _run(body, "EO-VPC1")
    assert not judged and len(said) == 1 and f"{where}: <Ref P>" in said[0] and "read timeout 60 s" in said[0], said


def test_cf1_a_vpc_origin_outside_the_templates_is_not_judged_as_such() -> None:
    """A literal VpcOriginId the templates do not create: its protocol policy is not in them (not 'deploy time')."""
    body = json.loads((RULES_DIR / "eo-cf2-fire.json").read_text())
    origin = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]
    del origin["CustomOriginConfig"]
    origin["VpcOriginConfig"] = {"VpcOriginId": "vo-0123456789abcdef0"}
    found = run_rules(TemplateModel([LoadedTemplate("S", "t.json", body)]), [RULES_BY_ID["EO-CF1"]])
    assert [f.message for f in found] == [
        "not judged: Dist default behavior origin o VpcOriginConfig.VpcOriginId: vo-0123456789abcdef0 (a VPC origin "
        "outside these templates: its OriginProtocolPolicy is not in them; gRPC needs an origin reached over HTTPS)"]
    assert "the template that creates the VPC origin" in found[0].fix
