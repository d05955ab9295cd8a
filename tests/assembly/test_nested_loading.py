"""Issue 49: loading follows nested stacks inside the assembly; values cross nested stacks, Regions
and environments through the one resolver."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.model import TemplateModel, load_model
from edge_origin.model.assembly import StackEnvironment, child_name, environment_of
from edge_origin.model.intrinsics import partition_of
from edge_origin.model.loader import LoadedTemplate, load_assembly, read_paths_result
from edge_origin.model.values import ModelError, ResourceRef, Unresolved

CORPUS = Path(__file__).resolve().parent / "corpus"
EIP = {"Type": "AWS::EC2::EIP"}


def _stack_resource(url: Any = "child.json", params: dict[str, Any] | None = None, asset: str | None = None) -> dict[str, Any]:
    res: dict[str, Any] = {"Type": "AWS::CloudFormation::Stack", "Properties": {"TemplateURL": url}}
    if params is not None:
        res["Properties"]["Parameters"] = params
    if asset is not None:
        res["Metadata"] = {"aws:asset:path": asset}
    return res


def _write(folder: Path, files: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        (folder / name).write_text(json.dumps(body))
    return folder


def _assembly(folder: Path, stacks: dict[str, tuple[dict[str, Any], str]], extra: dict[str, Any]) -> Path:
    """A cloud assembly: ``stacks`` {name: (template, environment)} plus extra files."""
    artifacts = {name: {"type": "aws:cloudformation:stack", "environment": env, "properties": {"templateFile": f"{name}.template.json"}}
                 for name, (_, env) in stacks.items()}
    return _write(folder, {"manifest.json": {"version": "55.0.0", "artifacts": artifacts},
                           **{f"{n}.template.json": t for n, (t, _) in stacks.items()}, **extra})


def _parent_and_child(params: dict[str, Any] | None = None, child_params: dict[str, Any] | None = None) -> tuple[dict, dict]:
    parent = {"Resources": {"Eip": EIP, "Kid": _stack_resource(params=params),
                            "Out": {"Type": "AWS::Route53::RecordSet",
                                    "Properties": {"Name": "a.example.com", "Type": "A", "HostedZoneName": "example.com.",
                                                   "ResourceRecords": [{"Fn::GetAtt": ["Kid", "Outputs.Ip"]}], "TTL": "60"}}}}
    child = {"Parameters": child_params or {"ParentIp": {"Type": "String"}},
             "Resources": {"ChildEip": EIP},
             "Outputs": {"Ip": {"Value": {"Ref": "ChildEip"}}, "Passed": {"Value": {"Ref": "ParentIp"}}}}
    return parent, child


# --- following ------------------------------------------------------------------------------------------
def test_a_folder_follows_a_local_template_url_and_the_child_is_not_a_stack_of_its_own(tmp_path: Path) -> None:
    parent, child = _parent_and_child(params={"ParentIp": {"Ref": "Eip"}})
    folder = _write(tmp_path / "t", {"parent.json": parent, "child.json": child})
    result = read_paths_result([folder])
    assert [(t.stack, t.parent) for t in result.templates] == [("parent", None), ("parent/Kid", ("parent", "Kid"))]
    model = TemplateModel(result.templates)
    record = model.record_sets("a.example.com")[0]
    assert record.values == [ResourceRef("parent/Kid", "ChildEip", None)]  # Outputs.Ip read through the child
    resolver = model._resolvers["parent/Kid"]
    assert resolver.resolve({"Ref": "ParentIp"}) == ResourceRef("parent", "Eip", None)  # the parameter the parent passes


def test_a_nested_path_that_leaves_the_assembly_is_refused(tmp_path: Path) -> None:
    parent = {"Resources": {"Kid": _stack_resource(url="https://x/y.json", asset="../outside.json")}}
    _write(tmp_path, {"outside.json": {"Resources": {"E": EIP}}})
    folder = _assembly(tmp_path / "cdk.out", {"App": (parent, "aws://111111111111/eu-west-1")}, {})
    with pytest.raises(ModelError, match=r"App\.template\.json: Kid: Metadata\.aws:asset:path '\.\./outside\.json' points outside the cloud assembly"):
        load_model([folder])


def test_a_nested_stack_that_nests_itself_is_a_cycle(tmp_path: Path) -> None:
    loop = {"Resources": {"Again": _stack_resource(asset="loop.json")}}
    folder = _assembly(tmp_path / "cdk.out", {"App": ({"Resources": {"Kid": _stack_resource(asset="loop.json")}}, "")}, {"loop.json": loop})
    with pytest.raises(ModelError, match="one of its own parents"):
        load_model([folder])


def test_one_nested_template_used_twice_is_two_stacks(tmp_path: Path) -> None:
    parent = {"Resources": {"A": _stack_resource(asset="kid.json"), "B": _stack_resource(asset="kid.json")}}
    folder = _assembly(tmp_path / "cdk.out", {"App": (parent, "aws://unknown-account/unknown-region")}, {"kid.json": {"Resources": {"E": EIP}}})
    model = load_model([folder])
    assert sorted(model.stacks) == ["App", "App/A", "App/B"]
    assert len(model.of_type("AWS::EC2::EIP")) == 2


def test_the_nested_file_given_too_is_read_once(tmp_path: Path) -> None:
    folder = _assembly(tmp_path / "cdk.out", {"App": ({"Resources": {"Kid": _stack_resource(asset="kid.json")}}, "")},
                       {"kid.json": {"Resources": {"E": EIP}}})
    for paths in ([folder, folder / "kid.json"], [folder / "kid.json", folder]):
        model = load_model(paths)
        assert [r.stack for r in model.of_type("AWS::EC2::EIP")] == ["App/Kid"]


def test_the_asset_manifest_maps_the_template_url_and_the_manifest_gives_the_environment(tmp_path: Path) -> None:
    url = {"Fn::Join": ["", ["https://s3.eu-west-1.", {"Ref": "AWS::URLSuffix"}, "/bucket/abc123.json"]]}
    parent = {"Resources": {"OriginsNestedStackOriginsNestedStackResource0DCC0FCC": _stack_resource(url=url)}}
    assets = {"files": {"abc123": {"source": {"path": "AppOrigins.nested.template.json", "packaging": "file"},
                                   "destinations": {"d": {"bucketName": "bucket", "objectKey": "abc123.json"}}}}}
    folder = _assembly(tmp_path / "cdk.out", {"App": (parent, "aws://111111111111/cn-north-1")},
                       {"App.assets.json": assets, "AppOrigins.nested.template.json": {"Resources": {"E": EIP}}})
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["artifacts"]["App.assets"] = {"type": "cdk:asset-manifest", "properties": {"file": "App.assets.json"}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    loaded = load_assembly(folder, [folder / "App.template.json"])  # what the synth plugin calls
    assert [(t.stack, t.environment) for t in loaded] == [("App", StackEnvironment("111111111111", "cn-north-1"))] * 1 + [
        ("App/Origins", StackEnvironment("111111111111", "cn-north-1"))]
    model = TemplateModel(loaded)
    resolver = model._resolvers["App/Origins"]
    assert resolver.resolve({"Fn::Sub": "${AWS::Partition}:${AWS::Region}:${AWS::AccountId}:${AWS::URLSuffix}"}) == (
        "aws-cn:cn-north-1:111111111111:amazonaws.com.cn")
    assert isinstance(resolver.resolve({"Ref": "AWS::StackName"}), Unresolved)  # a nested stack's name is made at deploy
    # a file of the assembly given alone (as CDK hands it to a validation plugin) is followed too
    assert [t.stack for t in read_paths_result([folder / "App.template.json"]).templates] == ["App", "App/Origins"]


def test_a_stack_resource_whose_template_is_not_in_the_assembly_stays_unknown(tmp_path: Path) -> None:
    """Its outputs are unknown, each its own value (they read as one resource's one address before)."""
    parent, _ = _parent_and_child()
    model = load_model([_write(tmp_path, {"parent.json": parent})])
    assert model.record_sets("a.example.com")[0].values == [Unresolved("nested", "parent/Kid.Outputs.Ip")]


# --- values across the nesting -------------------------------------------------------------------------
def _nested_model(parent: dict, child: dict, env: StackEnvironment | None = None) -> TemplateModel:
    env = env or StackEnvironment()
    return TemplateModel([LoadedTemplate("P", "p.json", parent, env), LoadedTemplate("P/Kid", "c.json", child, env, ("P", "Kid"))])


def test_parameters_lists_defaults_and_missing_outputs() -> None:
    parent, child = _parent_and_child(params={"Names": {"Fn::Join": [",", ["a", "b"]]}},
                                      child_params={"Names": {"Type": "CommaDelimitedList"}, "ParentIp": {"Type": "String", "Default": "d"}})
    model = _nested_model(parent, child)  # held: resolvers reach the model by a weak reference
    resolver = model._resolvers["P/Kid"]
    assert resolver.resolve({"Ref": "Names"}) == ["a", "b"]
    assert resolver.resolve({"Ref": "ParentIp"}) == "d"  # not passed: its Default
    assert model._resolvers["P"].resolve({"Fn::GetAtt": ["Kid", "Outputs.Nope"]}) == Unresolved("import", "P/Kid has no output Nope")


def test_a_cycle_through_parameters_and_outputs_is_unknown_not_a_hang() -> None:
    parent = {"Resources": {"Kid": _stack_resource(params={"X": {"Fn::GetAtt": ["Kid", "Outputs.Y"]}})}}
    child = {"Parameters": {"X": {"Type": "String"}}, "Resources": {"E": EIP}, "Outputs": {"Y": {"Value": {"Ref": "X"}}}}
    model = _nested_model(parent, child)
    value = model._resolvers["P/Kid"].resolve({"Ref": "X"})
    assert isinstance(value, Unresolved) and value.reason == "import"


def test_a_cross_region_reader_reads_the_writer_for_its_region() -> None:
    def writer(region: str, lb: str) -> dict:
        return {"Type": "Custom::CrossRegionExportWriter",
                "Properties": {"ServiceToken": "x", "WriterProps": {"region": region, "exports": {"/cdk/exports/Edge/Lb": {"Fn::GetAtt": [lb, "DNSName"]}}}}}
    lb = {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {"Type": "network"}}
    reader = {"Type": "Custom::CrossRegionExportReader", "Properties": {"ServiceToken": "x"}}
    read = {"Fn::GetAtt": ["Reader", "/cdk/exports/Edge/Lb"]}
    one = {"Resources": {"Lb": lb, "W": writer("us-east-1", "Lb")}}
    other = {"Resources": {"Lb2": lb, "W": writer("ap-south-1", "Lb2")}}
    edge = {"Resources": {"Reader": reader}}
    east = StackEnvironment("1", "us-east-1")
    model = TemplateModel([LoadedTemplate("A", "a.json", one, StackEnvironment("1", "eu-west-1")),
                           LoadedTemplate("B", "b.json", other), LoadedTemplate("Edge", "e.json", edge, east)])
    assert model._resolvers["Edge"].resolve(read) == ResourceRef("A", "Lb", "DNSName")
    agnostic = TemplateModel([LoadedTemplate("A", "a.json", one), LoadedTemplate("B", "b.json", other), LoadedTemplate("Edge", "e.json", edge)])
    assert agnostic._resolvers["Edge"].resolve(read).reason == "import"  # two writers, the reader's Region unknown
    alone = TemplateModel([LoadedTemplate("Edge", "e.json", edge, east)])
    assert "no writer" in alone._resolvers["Edge"].resolve(read).expr


# --- the environment ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("aws://111111111111/eu-west-1", StackEnvironment("111111111111", "eu-west-1")),
    ("aws://unknown-account/unknown-region", StackEnvironment()),
    ("aws://111111111111/unknown-region", StackEnvironment("111111111111", None)),
    ("aws://111111111111/eusc-de-east-1", StackEnvironment("111111111111", "eusc-de-east-1")),
    ("aws://111111111111/us-isob-east-1", StackEnvironment("111111111111", "us-isob-east-1")),
    ("aws://${Token}/x", StackEnvironment()),
    (None, StackEnvironment()),
    ("", StackEnvironment()),
])
def test_environment_of_the_manifest(text: Any, want: StackEnvironment) -> None:
    assert environment_of(text) == want


@pytest.mark.parametrize(("region", "want"), [("eu-west-1", ("aws", "amazonaws.com")), ("cn-northwest-1", ("aws-cn", "amazonaws.com.cn")),
                                              ("us-gov-west-1", ("aws-us-gov", "amazonaws.com")), ("us-isob-east-1", ("aws-iso-b", "sc2s.sgov.gov")),
                                              ("us-iso-east-1", ("aws-iso", "c2s.ic.gov")), ("eusc-de-east-1", ("aws-eusc", "amazonaws.eu"))])
def test_partition_of_a_region(region: str, want: tuple[str, str]) -> None:
    assert partition_of(region) == want


def test_an_unknown_environment_stays_unknown_and_a_known_one_decides_mappings_and_azs() -> None:
    body = {"Mappings": {"Nlbs": {"eu-west-1": {"A": "a.elb.eu-west-1.amazonaws.com"}, "us-east-1": {"A": "b.elb.us-east-1.amazonaws.com"}}},
            "Resources": {"E": EIP}}
    find = {"Fn::FindInMap": ["Nlbs", {"Ref": "AWS::Region"}, "A"]}
    unknown_model = TemplateModel([LoadedTemplate("S", "s.json", body)])
    unknown = unknown_model._resolvers["S"]
    for name in ("AWS::Region", "AWS::AccountId", "AWS::Partition"):
        assert unknown.resolve({"Ref": name}) == Unresolved("pseudo", name)
    assert isinstance(unknown.resolve(find), Unresolved)
    known_model = TemplateModel([LoadedTemplate("S", "s.json", body, StackEnvironment(None, "us-east-1"))])
    known = known_model._resolvers["S"]
    assert known.resolve(find) == "b.elb.us-east-1.amazonaws.com"
    assert isinstance(known.resolve({"Ref": "AWS::AccountId"}), Unresolved)
    zones = [known.resolve({"Fn::Select": [i, {"Fn::GetAZs": ""}]}) for i in (0, 1)]
    assert zones[0] != zones[1] and zones[0] == known.resolve({"Fn::Select": [0, {"Fn::GetAZs": {"Ref": "AWS::Region"}}]})


@pytest.mark.parametrize(("logical_id", "path", "want"), [
    ("OriginsNestedStackOriginsNestedStackResource0DCC0FCC", None, "Origins"),
    ("PartOriginsNestedStackOriginsNestedStackResourceABCDEF12", None, "Origins"),
    ("Hand", None, "Hand"),
    ("X", "App/Deep/Lbs.NestedStack/Lbs.NestedStackResource", "Lbs"),
])
def test_a_nested_stack_is_named_by_its_construct_id(logical_id: str, path: str | None, want: str) -> None:
    resource = {"Metadata": {"aws:cdk:path": path}} if path else {}
    assert child_name(logical_id, resource) == want


def test_the_corpus_nested_stack_is_named_after_its_construct() -> None:
    assert sorted(load_model([CORPUS / "weighted-nested"]).stacks) == ["App", "App/Origins"]


# --- EO-CF2 with an idle timeout decided at deploy time: judged both ways ---------------------------------
def _keepalive_world(keepalive: int | None, protocol: str = "TCP") -> dict[str, Any]:
    origin: dict[str, Any] = {"Id": "o", "DomainName": {"Fn::GetAtt": ["Lb", "DNSName"]},
                              "CustomOriginConfig": {"OriginProtocolPolicy": "https-only"}}
    if keepalive is not None:
        origin["CustomOriginConfig"]["OriginKeepaliveTimeout"] = keepalive
    return {
        "Parameters": {"Idle": {"Type": "String"}},
        "Resources": {
            "Lb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {"Type": "network"}},
            "Listener": {"Type": "AWS::ElasticLoadBalancingV2::Listener",
                         "Properties": {"LoadBalancerArn": {"Ref": "Lb"}, "Port": 443, "Protocol": protocol,
                                        "DefaultActions": [{"Type": "forward", "TargetGroupArn": "arn:tg"}],
                                        "ListenerAttributes": [{"Key": "tcp.idle_timeout.seconds", "Value": {"Ref": "Idle"}}]}},
            "Dist": {"Type": "AWS::CloudFront::Distribution", "Properties": {"DistributionConfig": {
                "Enabled": True, "Origins": [origin],
                "DefaultCacheBehavior": {"TargetOriginId": "o", "ViewerProtocolPolicy": "https-only"}}}},
        },
    }


@pytest.mark.parametrize(("keepalive", "protocol", "want"), [(None, "TCP", []), (50, "TCP", []), (60, "TCP", ["not judged"]),
                                                             (120, "TCP", ["not judged"]), (120, "UDP", [])])
def test_cf2_judges_a_deploy_time_idle_timeout_both_ways(keepalive: int | None, protocol: str, want: list[str]) -> None:
    from edge_origin.rules import RULES_BY_ID, run_rules

    model = TemplateModel.from_templates({"S": _keepalive_world(keepalive, protocol)})
    found = run_rules(model, [RULES_BY_ID["EO-CF2"]])
    assert [f.message[: len("not judged")] for f in found] == want
    assert all(f.severity.value == "warning" and "Listener tcp.idle_timeout.seconds" in f.message for f in found)


def test_an_ssm_parameter_type_reads_the_parameter_the_assembly_writes() -> None:
    """CDK's ssm.StringParameter in one stack, value_for_string_parameter in another: a parameter of type
    AWS::SSM::Parameter::Value<String> whose Default is the name; the Region must match where both are known."""
    def producer(value: str) -> dict:
        return {"Resources": {"P": {"Type": "AWS::SSM::Parameter", "Properties": {"Name": "/o/dns", "Type": "String", "Value": value}}}}
    consumer = {"Parameters": {"Dns": {"Type": "AWS::SSM::Parameter::Value<String>", "Default": "/o/dns"}}, "Resources": {"E": EIP}}
    eu, us = StackEnvironment("1", "eu-west-1"), StackEnvironment("1", "us-east-1")
    model = TemplateModel([LoadedTemplate("A", "a.json", producer("a.elb.eu-west-1.amazonaws.com"), eu),
                           LoadedTemplate("B", "b.json", producer("b.elb.us-east-1.amazonaws.com"), us),
                           LoadedTemplate("C", "c.json", consumer, us)])
    assert model._resolvers["C"].resolve({"Ref": "Dns"}) == "b.elb.us-east-1.amazonaws.com"
    agnostic = TemplateModel([LoadedTemplate("A", "a.json", producer("a"), eu), LoadedTemplate("B", "b.json", producer("b"), us),
                              LoadedTemplate("C", "c.json", consumer)])
    assert "more than one" in agnostic._resolvers["C"].resolve({"Ref": "Dns"}).expr
    alone = TemplateModel([LoadedTemplate("C", "c.json", consumer, us)])
    assert alone._resolvers["C"].resolve({"Ref": "Dns"}) == Unresolved("parameter", "Ref Dns (SSM parameter value)")


def test_a_bad_nested_template_is_unreadable_and_the_rest_is_checked(tmp_path: Path) -> None:
    parent = {"Resources": {"Good": _stack_resource(asset="good.json"), "Bad": _stack_resource(asset="bad.json"),
                            "Out": _stack_resource(asset="../../x.json")}}
    folder = _assembly(tmp_path / "cdk.out", {"App": (parent, "")}, {"good.json": {"Resources": {"E": EIP}}})
    (folder / "bad.json").write_text("{not json")
    model = load_model([folder], strict=False)
    assert sorted(model.stacks) == ["App", "App/Good"]
    messages = dict(model.unreadable)
    assert set(messages) == {str(folder / "bad.json"), str(folder / "App.template.json")}
    assert "points outside the cloud assembly" in messages[str(folder / "App.template.json")]
    with pytest.raises(ModelError, match="bad.json"):
        load_model([folder])  # strict: the first bad file
    single = read_paths_result([folder / "App.template.json"])  # given alone (a validation plugin's path)
    assert [t.stack for t in single.templates] == ["App", "App/Good"] and len(single.unreadable) == 2


# --- any shape of a Stack resource is read or refused in one line, never a traceback ---------------------
_JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["", "kid.json", "../x.json", "/etc/passwd",
                                                                                       "s3://b/kid.json", "https://b/kid.json", "Outputs.X"]),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["Ref", "Fn::Join", "X", "Value"]), inner, max_size=2),
                     max_leaves=6)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(url=_JSON, asset=_JSON, params=_JSON, outputs=_JSON, read=st.sampled_from(["Outputs.X", "Outputs.", "Outputs.Y"]))
def test_any_stack_resource_shape_is_read_or_refused_in_one_line(tmp_path: Path, url: Any, asset: Any, params: Any, outputs: Any,
                                                                 read: str) -> None:
    folder = tmp_path / "f"
    shutil.rmtree(folder, ignore_errors=True)
    kid: dict[str, Any] = {"Parameters": {"P": {"Type": "String"}}, "Resources": {"E": EIP}}
    if outputs is not None:
        kid["Outputs"] = {"X": outputs} if not isinstance(outputs, dict) else outputs
    stack: dict[str, Any] = {"Type": "AWS::CloudFormation::Stack", "Properties": {"TemplateURL": url, "Parameters": params},
                             "Metadata": {"aws:asset:path": asset}}
    parent = {"Resources": {"Kid": stack, "R": {"Type": "AWS::Route53::RecordSet", "Properties": {
        "Name": "a.example.com", "Type": "A", "HostedZoneName": "example.com.", "TTL": "60",
        "ResourceRecords": [{"Fn::GetAtt": ["Kid", read]}]}}}}
    _write(folder, {"parent.json": parent, "kid.json": kid})
    try:
        model = load_model([folder], strict=False)
    except ModelError as exc:
        assert "\n" not in str(exc)
        return
    for file, message in model.unreadable:
        assert "\n" not in message and file
    assert {r.stack for r in model.resources} <= {"parent", "parent/Kid", "kid"}


@pytest.mark.parametrize(("value", "fires"), [({"Ref": "Ip"}, True), ({"Fn::GetAtt": ["Kid", "Outputs.Ip"]}, True), ("192.0.2.1", False),
                                               ({"Ref": "Eip"}, False)])
def test_nj1_names_an_address_the_templates_do_not_decide(value: Any, fires: bool) -> None:
    """A multivalue record of a gRPC origin whose address is a parameter without Default or an output of a nested
    stack not given: not judged (it was quiet: two such values may be one address)."""
    from edge_origin.rules import RULES_BY_ID, run_rules

    body = _keepalive_world(None)
    body["Parameters"]["Ip"] = {"Type": "String"}
    body["Resources"]["Eip"] = EIP
    body["Resources"]["Kid"] = _stack_resource(url="https://b.s3.amazonaws.com/kid.json")
    dist = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]
    dist["Origins"][0]["DomainName"] = "api.example.com"
    dist["DefaultCacheBehavior"].update({"GrpcConfig": {"Enabled": True}, "AllowedMethods": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]})
    body["Resources"]["Rec"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "Name": "api.example.com", "Type": "A", "HostedZoneName": "example.com.", "TTL": "60", "MultiValueAnswer": True,
        "SetIdentifier": "m0", "ResourceRecords": [value]}}
    found = run_rules(TemplateModel.from_templates({"S": body}), [RULES_BY_ID["EO-NJ1"]])
    assert [f.resource for f in found if "address of api.example.com" in f.message] == (["Rec"] if fires else [])


def test_the_partition_table_is_botocores() -> None:
    """Every Region botocore's partitions.json lists gets that partition's id and DNS suffix."""
    import os

    import botocore

    data = json.loads((Path(os.path.dirname(botocore.__file__)) / "data" / "partitions.json").read_text())
    checked = 0
    for partition in data["partitions"]:
        for region in partition["regions"]:
            if region.endswith("-global"):
                continue
            assert partition_of(region) == (partition["id"], partition["outputs"]["dnsSuffix"]), region
            checked += 1
    assert checked > 30


@pytest.mark.parametrize(("name", "kind", "zone", "fires"), [
    ({"Ref": "Name"}, "A", "example.com.", "record set name"),      # may be api.example.com
    ({"Ref": "Name"}, "A", "example.org.", None),                   # another zone: not a record of the origin
    ("api.example.com", {"Ref": "Kind"}, "example.com.", "record type of api.example.com"),
    ("api.example.com", "A", "example.com.", None),
])
def test_nj1_names_a_record_whose_name_or_type_is_not_decided(name: Any, kind: Any, zone: str, fires: str | None) -> None:
    """A weighted record beside one whose Name (mapped by an unknown Region, a parameter) or Type is not decided: the
    origin's answers are not judged (the other record alone was judged)."""
    from edge_origin.rules import RULES_BY_ID, run_rules

    body = _keepalive_world(None)
    body["Parameters"].update({"Name": {"Type": "String"}, "Kind": {"Type": "String"}})
    dist = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]
    dist["Origins"][0]["DomainName"] = "api.example.com"
    dist["DefaultCacheBehavior"].update({"GrpcConfig": {"Enabled": True}, "AllowedMethods": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]})
    for i, (n, k, z) in enumerate([("api.example.com", "A", "example.com."), (name, kind, zone)]):
        body["Resources"][f"Rec{i}"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            "Name": n, "Type": k, "HostedZoneName": z, "TTL": "60", "Weight": 1, "SetIdentifier": f"w{i}",
            "ResourceRecords": ["192.0.2.1"]}}
    found = [f for f in run_rules(TemplateModel.from_templates({"S": body}), [RULES_BY_ID["EO-NJ1"]]) if f.resource == "Rec1"]
    assert [fires in f.message for f in found] == ([True] if fires else [])


@pytest.mark.parametrize(("target", "origin_id"), [({"Ref": "Kind"}, "o"), ("o", {"Ref": "Kind"}), ("o", "o")])
def test_a_one_origin_distribution_sends_every_behavior_to_it(target: Any, origin_id: Any) -> None:
    """TargetOriginId or the origin's Id decided at deploy time (a mapping by an unknown Region): with one origin the
    behavior can only target it (CloudFront refuses a target the distribution lacks), so the gRPC origin is judged."""
    body = _keepalive_world(60)
    body["Parameters"]["Kind"] = {"Type": "String"}
    dist = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]
    dist["Origins"][0]["Id"] = origin_id
    dist["DefaultCacheBehavior"]["TargetOriginId"] = target
    model = TemplateModel.from_templates({"S": body})
    (behavior,) = model.distributions[0].behaviors
    assert behavior.origins == [model.distributions[0].origins[0]]
    dist["Origins"].append({**dist["Origins"][0], "Id": "other"})  # two origins: the target is not guessed
    if target != "o":
        assert TemplateModel.from_templates({"S": body}).distributions[0].behaviors[0].origins == []
