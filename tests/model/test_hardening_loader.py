"""Reading templates: odd files, cloud assemblies, folders, YAML short forms, numbers, intrinsics."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hardening_support import examples, json_values
from hypothesis import example, given, settings
from hypothesis import strategies as st

from edge_origin import cli
from edge_origin.model import ModelError, ResourceRef, Unresolved, load_model, model_from_text
from edge_origin.model.loader import parse_template_text
from edge_origin.model.yaml_loader import load_yaml_template
from edge_origin.review.checker import check_paths

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "tests" / "fixtures" / "templates" / "rules"
MINIMAL = '{"Resources": {"R": {"Type": "AWS::SNS::Topic"}}}'


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- files -------------------------------------------------------------------------------------
def test_fifo_device_and_directory_are_named_for_what_they_are(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ModelError, match="pipe.yaml: is a named pipe"):
        load_model([fifo])
    with pytest.raises(ModelError, match="/dev/zero: is a character device"):
        load_model(["/dev/zero"])
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(ModelError, match="zero.json: is a character device"):
        load_model([link])


def test_empty_resources_says_no_resources(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"Resources": {}}')
    with pytest.raises(ModelError, match="no resources"):
        load_model([path])


# --- cloud assemblies --------------------------------------------------------------------------
def _assembly(directory: Path, artifacts: dict) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "manifest.json").write_text(json.dumps({"version": "1", "artifacts": artifacts}))
    return directory


def test_manifest_properties_as_a_list_names_the_artifact(tmp_path: Path) -> None:
    out = _assembly(tmp_path / "cdk.out", {"S": {"type": "aws:cloudformation:stack", "properties": []}})
    with pytest.raises(ModelError, match=r"artifacts\.S\.properties is a list"):
        load_model([out])


def test_nested_assembly_pointing_at_itself_is_a_cycle_not_a_recursion_error(tmp_path: Path) -> None:
    out = _assembly(tmp_path / "cdk.out", {"Me": {"type": "cdk:cloud-assembly", "properties": {"directoryName": "."}}})
    with pytest.raises(ModelError, match="points back at itself"):
        load_model([out])


def test_template_file_outside_the_assembly_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret.json").write_text(MINIMAL)
    out = _assembly(tmp_path / "cdk.out", {"S": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "../secret.json"}}})
    with pytest.raises(ModelError, match="points outside the cloud assembly"):
        load_model([out])


@pytest.mark.parametrize("report", ['{"pluginReports": 7}', "[1, 2]", "{not json", '{"pluginReports": [{"pluginName": "EdgeOrigin", "suppressedViolations": 7}]}'])
def test_malformed_validation_report_is_one_line(tmp_path: Path, report: str) -> None:
    out = _assembly(tmp_path / "cdk.out", {"S": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "S.template.json"}}})
    (out / "S.template.json").write_text(MINIMAL)
    (out / "validation-report.json").write_text(report)
    with pytest.raises(ModelError, match="validation-report.json"):
        load_model([out])
    result = check_paths([out])  # the check goes on and lists the report as unreadable
    assert [p for p, _ in result.unreadable] == [str(out / "validation-report.json")]


# --- folders and names -------------------------------------------------------------------------
def test_folder_of_templates_with_same_file_names_and_a_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for sub in ("api", "web/v2"):
        (tmp_path / sub).mkdir(parents=True)
        (tmp_path / sub / "template.yaml").write_text((RULES_DIR / "eo-dns1-fire.yaml").read_text())
    (tmp_path / "package.json").write_text('{"name": "not-a-template"}')
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.template.json").write_text("{broken")
    (tmp_path / "bad.template.json").write_text('{"Resources": 7}')
    result = check_paths([tmp_path])
    assert sorted(result.model.stacks) == ["api/template", "web/v2/template"]
    assert [Path(p).name for p, _ in result.unreadable] == ["bad.template.json"]
    assert {f.stack for f in result.findings if f.rule != "EO-READ1"} == {"api/template", "web/v2/template"}
    (read,) = [f for f in result.findings if f.rule == "EO-READ1"]  # the bad file is a finding too (redteam)
    assert read.template.endswith("bad.template.json") and read.message.startswith("not judged: ")
    code, out, err = _run(capsys, "check", str(tmp_path), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["unreadable"][0]["file"].endswith("bad.template.json")
    assert "Resources is a number" in err and err.count("\n") == 1


def test_two_files_with_one_name_get_unique_stack_names(tmp_path: Path) -> None:
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "template.yaml").write_text(MINIMAL)
    model = load_model([tmp_path / "a" / "template.yaml", tmp_path / "b" / "template.yaml"])
    assert sorted(model.stacks) == ["a/template", "b/template"]
    assert load_model([tmp_path / "a" / "template.yaml"]).stacks == ["template"]


def test_one_bad_file_among_good_ones_exits_1_and_none_readable_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(MINIMAL)
    bad.write_text("[]")
    code, out, err = _run(capsys, "check", str(good), str(bad))
    # not "no findings": the file that could not be read is an EO-READ1 error, counted as not judged
    assert code == 1 and "EO-READ1" in out and "bad.json" in out and "1 not judged" in out and "bad.json" in err
    code, out, err = _run(capsys, "check", str(bad))
    assert code == 2 and out == "" and err.count("\n") == 1


# --- YAML short forms ----------------------------------------------------------------------------
SHORT_FORMS = """
Parameters: {P: {Type: String, Default: x}}
Conditions: {C: !Equals [!Ref P, x], D: !Not [!Condition C], E: !And [!Condition C, !Condition C], F: !Or [!Condition C, !Condition D]}
Resources:
  A:
    Type: AWS::EC2::EIP
  B:
    Type: AWS::SNS::Topic
    Properties:
      Ref: !Ref A
      GetAttString: !GetAtt A.PublicIp
      GetAttDotted: !GetAtt A.Nested.Attr
      GetAttList: !GetAtt [A, AllocationId]
      Sub: !Sub "${P}-${A}"
      SubList: !Sub ["${x}", {x: !Ref P}]
      Join: !Join ["-", [a, !Ref P]]
      Select: !Select [1, [a, b]]
      Split: !Split [",", "a,b"]
      FindInMap: !FindInMap [M, k, v]
      If: !If [C, yes-branch, no-branch]
      Base64: !Base64 abc
      GetAZs: !GetAZs ""
      Cidr: !Cidr ["10.0.0.0/16", 2, 8]
      ImportValue: !ImportValue Nope
      Length: !Length [1, 2, 3]
      ToJsonString: !ToJsonString {a: 1}
      GetStackOutput: !GetStackOutput {StackName: s, OutputName: o}
      Transform: !Transform {Name: AWS::Include, Parameters: {Location: s3://x}}
      Date: 2010-09-09
      Unknown: !SomethingNew 1
Mappings: {M: {k: {v: mapped}}}
"""


def test_every_short_form_tag_is_read_like_its_long_form() -> None:
    doc = load_yaml_template(SHORT_FORMS)
    props = doc["Resources"]["B"]["Properties"]
    assert props["GetAttString"] == {"Fn::GetAtt": ["A", "PublicIp"]}
    assert props["GetAttDotted"] == {"Fn::GetAtt": ["A", "Nested.Attr"]}
    assert props["Ref"] == {"Ref": "A"} and doc["Conditions"]["D"] == {"Fn::Not": [{"Condition": "C"}]}
    assert props["Date"] == "2010-09-09"
    model = model_from_text(SHORT_FORMS)
    p = model.resource("Stack", "B").properties
    assert p["Ref"] == ResourceRef("Stack", "A", None)
    assert p["GetAttString"] == ResourceRef("Stack", "A", "PublicIp")
    assert p["GetAttList"] == ResourceRef("Stack", "A", "AllocationId")
    assert (p["Join"], p["Select"], p["Split"], p["FindInMap"], p["If"]) == ("a-x", "b", ["a", "b"], "mapped", "yes-branch")
    assert p["SubList"] == "x" and p["Length"] == 3 and p["ToJsonString"] == '{"a":1}'
    for key in ("Base64", "GetAZs", "Cidr", "ImportValue", "GetStackOutput", "Transform", "Unknown"):
        assert isinstance(p[key], Unresolved), key
    assert p["Unknown"].reason == "unknown"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Resources:\n  R: {Type: X}\n  R: {Type: Y}\n", "duplicate key 'R'"),
        ("Resources:\n  ? null\n  : {Type: X}\n", "null key"),
        ("a: &a [*a, *a]\nResources: {R: {Type: X}}\n", "recursive"),
        ("Resources:\n  R:\n    Type: X\n    Properties: {A: .nan}\n", "finite"),
        ("Resources:\n  R:\n    Type: X\n    Properties: {A: " + "9" * 30 + "}\n", "64 bits"),
        ("Resources:\n  R:\n    Type: X\n    Properties: {A: !!binary aGVsbG8=}\n", "not JSON"),
    ],
)
def test_yaml_that_cloudformation_refuses_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(ModelError, match=message) as info:
        load_model([path])
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_alias_amplification_is_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\nResources: {R: {Type: X}}\n")
    with pytest.raises(ModelError, match="alias"):
        load_model([path])


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400", "1" + "0" * 400, "9" * 5000])
def test_json_numbers_cloudformation_refuses_name_the_field(tmp_path: Path, number: str) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"Resources": {"R": {"Type": "X", "Metadata": {"nlb_idle_timeout_s": ' + number + "}}}}")
    with pytest.raises(ModelError, match="nlb_idle_timeout_s: .*(finite|64 bits)") as info:
        load_model([path])
    assert len(str(info.value)) < 300


def test_an_empty_path_is_bad_input_not_the_working_directory() -> None:
    with pytest.raises(ModelError, match="empty path"):
        load_model([""])


def test_refs_to_resources_a_macro_would_make_are_unknown() -> None:
    text = json.dumps({"Transform": "MyCompanyMacro", "Resources": {"R": {"Type": "X", "Properties": {"A": {"Ref": "Made"}, "B": {"Fn::GetAtt": ["Made", "Arn"]}}}}})
    props = model_from_text(text).resource("Stack", "R").properties
    assert props["A"].reason == "transform" and props["B"].reason == "transform"
    with pytest.raises(ModelError, match="no such resource"):
        model_from_text(json.dumps({"Resources": {"R": {"Type": "X", "Properties": {"A": {"Ref": "Made"}}}}}))


# --- generated text ------------------------------------------------------------------------------
TAGS = ["!Ref", "!GetAtt", "!Sub", "!If", "!Join", "!Select", "!Condition", "!Foo", "!!binary", "!!set", "&a", "*a", "<<:"]
yaml_like = st.lists(
    st.sampled_from(["Resources:", "  R:", "    Type: X", "    Properties:", "      A:", "- ", ": ", "{", "}", "[", "]", ",", "\n", "  "])
    | st.sampled_from(TAGS)
    | st.text(max_size=6),
    max_size=25,
).map(" ".join)


@settings(max_examples=examples(150), deadline=None)
@given(text=yaml_like | st.text(max_size=200) | json_values.map(json.dumps))
def test_any_text_is_a_template_or_one_clean_line(text: str) -> None:
    try:
        body = parse_template_text(text, "t.yaml")
    except ModelError as exc:
        assert str(exc).startswith("t.yaml") and "\n" not in str(exc)
        return
    model_or_error = None
    try:
        model_or_error = model_from_text(text, template="t.yaml")
    except ModelError as exc:
        assert str(exc).startswith("t.yaml")
    assert isinstance(body, dict) and (model_or_error is None or model_or_error.resources)


def test_plain_yaml_check_imports_neither_cfn_lint_nor_the_sam_translator() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from edge_origin.review.checker import check_paths; "
        f"check_paths([{str(RULES_DIR / 'eo-dns1-fire.yaml')!r}]); "
        "print(sorted(m for m in ('cfnlint', 'samtranslator', 'aws_cdk') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_json_and_yaml_twins_in_one_folder_keep_their_extension(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(MINIMAL)
    (tmp_path / "a.yaml").write_text(MINIMAL)
    (tmp_path / "b.template.json").write_text(MINIMAL)
    assert sorted(load_model([tmp_path]).stacks) == ["a.json", "a.yaml", "b"]


@pytest.mark.parametrize("where", ["Metadata", "Properties"])
def test_json_nested_past_the_limit_is_refused_in_any_section(tmp_path: Path, where: str) -> None:
    deep: object = 1
    for _ in range(150):
        deep = {"a": deep}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"Resources": {"R": {"Type": "X", where: {"k": deep}}}}))
    with pytest.raises(ModelError, match="nested deeper than 100 levels"):
        load_model([path])


_SHAPE_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["", "AWS::S3::Bucket", "x"]),
                          st.just([]), st.just(["A"]), st.just({}), st.just({"k": "v"}))
#: A resource's sections as a valid one has them; a generated resource has its Type and some of the others,
#: then (half the time) one section of any kind: a resource with one thing wrong, or none.
_VALID_SECTIONS = {"Type": "AWS::S3::Bucket", "Properties": {}, "Metadata": {"k": "v"}, "DependsOn": ["A"], "Condition": "C"}
_SHAPE_RESOURCE = st.builds(
    lambda kept, overrides: {"Type": "AWS::S3::Bucket", **{k: _VALID_SECTIONS[k] for k in sorted(kept)}, **overrides},
    st.sets(st.sampled_from(sorted(_VALID_SECTIONS))),
    st.dictionaries(st.sampled_from([*sorted(_VALID_SECTIONS), "DeletionPolicy"]), _SHAPE_VALUES, max_size=1))
_SHAPE_RESOURCES = st.dictionaries(st.sampled_from(["A", "B", "C", "Fn::ForEach::Loop"]),
                                   st.one_of(_SHAPE_RESOURCE, _SHAPE_RESOURCE, _SHAPE_RESOURCE, _SHAPE_VALUES),
                                   min_size=1, max_size=3)


@settings(max_examples=150, deadline=None)
@given(_SHAPE_RESOURCES)
@example({"A": {"Type": "x", "Condition": []}})
@example({"A": {"Type": ""}})
@example({"A": {"Type": "x", "DependsOn": 1}})
@example({"A": {"Type": "x", "Metadata": []}})
@example({"A": {"Type": "x", "Properties": "p"}})
@example({"Fn::ForEach::Loop": {"Type": "x"}})
@example({"A": ["Type"]})
def test_shape_check_fast_path_judges_as_the_full_check(resources: dict[str, Any]) -> None:
    """check_template_shape's few exact-type tests pass only what the full per-resource check passes, and
    every other resource gets the full check's words, first bad resource first (``full``: the loop as it was
    before the fast path)."""
    from edge_origin.model.loader import _kind, check_template_shape

    def outcome(check: Any) -> str:
        try:
            check()
        except ModelError as exc:
            return str(exc)
        return "ok"

    def full() -> None:
        where = "t.json"
        for logical_id, resource in resources.items():
            if not isinstance(resource, dict):
                raise ModelError(f"{where}: {logical_id}: the resource is a {_kind(resource)}, not a mapping")
            if logical_id.startswith("Fn::ForEach::"):
                raise ModelError(f"{where}: {logical_id}: Fn::ForEach needs Transform: AWS::LanguageExtensions")
            if not isinstance(resource.get("Type"), str) or not resource["Type"]:
                raise ModelError(f"{where}: {logical_id}: no Type (each resource needs a Type string)")
            props = resource.get("Properties")
            if props is not None and not isinstance(props, dict):
                raise ModelError(f"{where}: {logical_id}: Properties is a {_kind(props)}, not a mapping")
            for key, kinds, wanted in (("Condition", (str,), "a condition name"), ("Metadata", (dict,), "a mapping"),
                                       ("DependsOn", (str, list), "a logical id or a list of them")):
                if key in resource and resource[key] is not None and not isinstance(resource[key], kinds):
                    raise ModelError(f"{where}: {logical_id}: {key} is a {_kind(resource[key])}, not {wanted}")

    assert outcome(lambda: check_template_shape({"Resources": resources}, "t.json")) == outcome(full)


def _container_depth(value: Any, depth: int = 0) -> int:
    """The depth of the deepest container in ``value`` (``value`` itself at ``depth``), -1 for a scalar."""
    if isinstance(value, dict):
        return max([depth, *(_container_depth(v, depth + 1) for v in value.values())])
    if isinstance(value, list):
        return max([depth, *(_container_depth(v, depth + 1) for v in value)])
    return -1


@pytest.mark.parametrize("where", ["Outputs", "Metadata", "DependsOn", "UpdatePolicy", "Properties", "top"])
def test_depth_walk_refuses_exactly_past_the_limit_outside_properties(where: str) -> None:
    """The loader's depth walk (JSON: not into Properties, which the resolver walks) refuses a document exactly
    when a container outside Properties sits deeper than MAX_DEPTH (the root at 0), wherever it sits: every
    nesting from 94 to 104 levels, of mappings or of lists."""
    from edge_origin.model.loader import MAX_DEPTH, _check_depth_outside_properties

    assert 94 <= MAX_DEPTH < 104  # the nestings below straddle the limit
    for levels in range(94, 105):
        for lists in (False, True):
            deep: Any = "x"
            for _ in range(levels):
                deep = [deep] if lists else {"a": deep}
            resource: dict[str, Any] = {"Type": "X", "Properties": {"P": 1}, "Metadata": {"m": "v"}}
            body: Any = {"Resources": {"R": resource}}
            if where == "Outputs":
                body["Outputs"] = {"O": deep}
            elif where == "top":
                body = {"NoResources": deep}
            else:
                resource[where] = deep
            outside = {**body, "Resources": {"R": {k: v for k, v in resource.items() if k != "Properties"}}} if "Resources" in body else body
            try:
                _check_depth_outside_properties(body, "t.json")
                refused = False
            except ModelError as exc:
                assert str(exc) == f"t.json: document nested deeper than {MAX_DEPTH} levels"
                refused = True
            assert refused == (_container_depth(outside) > MAX_DEPTH), (levels, lists)
