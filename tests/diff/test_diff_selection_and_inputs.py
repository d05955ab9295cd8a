"""The diff's change model at its edges (mutation testing, issue 38): a rule selection (`--select`/`--ignore`)
keeps its findings and renumbers which are new, each refusal of the inputs is the whole line a user reads, and
diff_paths leaves the garbage collector as it found it."""

from __future__ import annotations

import gc
import json
from dataclasses import replace
from pathlib import Path

import pytest

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.review.diff import DiffInputError, diff_models, diff_paths
from edge_origin.rules.selection import RuleSelection

EMPTY = {"Resources": {"Topic": {"Type": "AWS::SNS::Topic", "Properties": {}}}}


def _finding(rule: str, resource: str) -> Finding:
    return Finding(rule, Severity.ERROR, f"{rule} on {resource}", "fix", "t.json", "Edge", resource)


def test_a_rule_selection_keeps_its_findings_and_renumbers_the_new_ones():
    model = TemplateModel.from_templates({"Edge": EMPTY})
    chg1, chg3 = _finding("EO-CHG1", "A"), _finding("EO-CHG3", "B")
    dns1, nlb1, dns2 = _finding("EO-DNS1", "C"), _finding("EO-NLB1", "D"), _finding("EO-DNS2", "E")
    dns3, nlb2 = _finding("EO-DNS3", "F"), _finding("EO-NLB2", "G")
    result = replace(diff_models(model, model), transition_findings=[chg1, chg3], head_findings=[dns1, nlb1, dns2],
                     new={1, 2}, fixed=[dns3, nlb2])
    assert result.selected(RuleSelection()) is result
    only = result.selected(RuleSelection(select=("EO-NLB", "EO-CHG1")))
    assert (only.transition_findings, only.head_findings, only.new, only.fixed) == ([chg1], [nlb1], {0}, [nlb2])
    without = result.selected(RuleSelection(ignore=("EO-NLB", "EO-CHG3")))
    assert (without.transition_findings, without.head_findings, without.new, without.fixed) == ([chg1], [dns1, dns2], {1}, [dns3])
    assert [(f.rule, source, new) for f, source, new in without.findings] == [
        ("EO-CHG1", "transition", True), ("EO-DNS1", "head", False), ("EO-DNS2", "head", True)]
    assert result.head_findings == [dns1, nlb1, dns2] and result.new == {1, 2}  # the result itself is unchanged


def _template(folder: Path, stack: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stack}.template.json"
    path.write_text(json.dumps(EMPTY))
    return path


def _assembly(folder: Path, stack: str) -> Path:
    _template(folder, stack)
    (folder / "manifest.json").write_text(json.dumps({"version": "36.0.0", "artifacts": {stack: {
        "type": "aws:cloudformation:stack", "properties": {"templateFile": f"{stack}.template.json"}}}}))
    return folder


@pytest.mark.parametrize(("base", "head", "message"), [
    ([], ["h"], "--base: no paths given (template files or a cdk.out directory)"),
    (["b"], [], "--head: no paths given (template files or a cdk.out directory)"),
])
def test_a_side_without_paths_is_named(base, head, message):
    with pytest.raises(DiffInputError) as exc:
        diff_paths(base, head)
    assert str(exc.value) == message


def test_no_stack_in_common_names_both_sides(tmp_path):
    base = [_template(tmp_path / "b", "Alpha"), _template(tmp_path / "b", "Beta")]
    with pytest.raises(DiffInputError) as exc:
        diff_paths(base, [_template(tmp_path / "h", "Gamma"), _template(tmp_path / "h", "Delta")])
    assert str(exc.value) == ("no stack in common (base: Alpha, Beta; head: Gamma, Delta): everything would count as removed and "
                              "added; stack names come from the file names (without .template.json...) or a cdk.out's stack names")


@pytest.mark.parametrize("head_kind", ["a folder of templates", "a cloud assembly (cdk.out)", "a mix of kinds"])
def test_no_stack_in_common_across_kinds_says_give_both_sides_the_same_kind(tmp_path, head_kind):
    base = [_template(tmp_path / "b", "Alpha")]
    head = {
        "a folder of templates": lambda: [_template(tmp_path / "h", "Gamma").parent],
        "a cloud assembly (cdk.out)": lambda: [_assembly(tmp_path / "out", "Delta")],
        "a mix of kinds": lambda: [_template(tmp_path / "h", "Gamma").parent, _template(tmp_path / "x", "Epsilon")],
    }[head_kind]()
    with pytest.raises(DiffInputError) as exc:
        diff_paths(base, head)
    assert str(exc.value).endswith(f"; --base is template files and --head is {head_kind}: give both sides the same kind")


@pytest.mark.parametrize("enabled", [True, False])
def test_diff_paths_leaves_the_garbage_collector_as_it_found_it(tmp_path, enabled):
    base, head = _template(tmp_path / "b", "Edge"), _template(tmp_path / "h", "Edge")
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        diff_paths([base], [head])
        assert gc.isenabled() is enabled
        with pytest.raises(DiffInputError):
            diff_paths([base], [_template(tmp_path / "o", "Other")])
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
