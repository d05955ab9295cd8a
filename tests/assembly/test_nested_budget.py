"""One budget for the nested templates of a read (redteam): intrinsic evaluation is budgeted per template,
and a nested stack is judged once for each stack resource that names it (their parameters differ), so
one 4 MB template (a Fn::Join of 300,000 Refs, under every per-template budget) named by 20 nested
stacks cost 63 s and 2 GB. The nested templates of a read now add up to at most ``--max-file-mib``
(16 MiB), each nested stack counting its template; past it the read stops with one line naming the
flag (the parent is not judged: exit 2 alone, an EO-READ1 error beside other files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.core.limits import using
from edge_origin.model import ModelError, load_model

BUDGET = 40_000


def _fan(folder: Path, nested: int, child_bytes: int) -> Path:
    child = {"Parameters": {"P": {"Type": "String", "Default": "x"}},
             "Resources": {"T": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": {"Fn::Join": ["", [{"Ref": "P"}]]}}}},
             "Metadata": {"Padding": "p" * child_bytes}}
    (folder / "child.json").write_text(json.dumps(child))
    parent = {"Resources": {f"K{i}": {"Type": "AWS::CloudFormation::Stack", "Properties": {"TemplateURL": "child.json"}}
                            for i in range(nested)}}
    (folder / "App.template.json").write_text(json.dumps(parent))
    return folder / "App.template.json"


@settings(max_examples=20, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(nested=st.integers(1, 30), child_bytes=st.integers(500, 6_000))
def test_the_nested_templates_of_a_read_share_one_budget(tmp_path_factory: pytest.TempPathFactory, nested: int, child_bytes: int) -> None:
    parent = _fan(tmp_path_factory.mktemp("fan"), nested, child_bytes)
    size = (parent.parent / "child.json").stat().st_size
    with using(file_bytes=BUDGET):
        if nested * size <= BUDGET:
            model = load_model([parent])
            assert len(model.templates) == nested + 1
        else:
            with pytest.raises(ModelError, match=r"add up to more than .*--max-file-mib") as info:
                load_model([parent])
            assert "\n" not in str(info.value) and str(parent) in str(info.value)


def test_the_budget_is_the_file_flag(tmp_path: Path) -> None:
    """Raising ``--max-file-mib`` raises it (the fan that was refused is read)."""
    parent = _fan(tmp_path, 12, 5_000)
    with using(file_bytes=BUDGET), pytest.raises(ModelError):
        load_model([parent])
    with using(file_bytes=BUDGET * 2):
        assert len(load_model([parent]).templates) == 13



def _assembly(folder: Path, artifacts: dict[str, dict]) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "T.template.json").write_text(json.dumps({"Resources": {"T": {"Type": "AWS::SNS::Topic"}}, "Metadata": {"Padding": "p" * 5_000}}))
    (folder / "manifest.json").write_text(json.dumps({"artifacts": artifacts}))


STACK = {"type": "aws:cloudformation:stack", "properties": {"templateFile": "T.template.json"}}


@pytest.mark.parametrize("shape", ["stack artifacts", "nested assemblies"])
def test_stack_artifacts_and_nested_assemblies_share_it(tmp_path: Path, shape: str) -> None:
    """A manifest naming one template as many stacks (10 artifacts of one 4 MB template: 10 s), or naming
    one folder as many nested assemblies, counts the template each time, in one budget for the read."""
    if shape == "stack artifacts":
        _assembly(tmp_path, {f"S{i}": STACK for i in range(12)})
    else:
        _assembly(tmp_path / "kid", {f"S{i}": STACK for i in range(3)})
        _assembly(tmp_path, {f"A{i}": {"type": "cdk:cloud-assembly", "properties": {"directoryName": "kid"}} for i in range(4)})
    with using(file_bytes=BUDGET), pytest.raises(ModelError, match=r"add up to more than .*--max-file-mib"):
        load_model([tmp_path])
    with using(file_bytes=BUDGET * 2):
        assert load_model([tmp_path]).templates
