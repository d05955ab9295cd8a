"""Issue 49: an app and its rewrites as aws-cdk-lib deploys them get the flat app's findings.

The corpus (``tests/assembly/corpus``, aws-cdk-lib version in ``VERSION``) holds each scenario in every
layout CDK writes: nested stacks (both directions), two stacks, two Regions with
``crossRegionReferences`` (both directions), ``CfnInclude`` of a legacy template whose names come
from ``Fn::FindInMap`` by Region. ``generate.py`` rewrites it; the slow test at the end synthesizes it
again and compares.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_origin.cli import main as cli_main
from edge_origin.core.findings import Severity
from edge_origin.model import load_model
from edge_origin.model.values import ResourceRef
from edge_origin.review.checker import check_paths
from tests.cdk_apps import load_corpus_generator

CORPUS = Path(__file__).resolve().parent / "corpus"
ASSEMBLIES = sorted(p for p in CORPUS.iterdir() if p.is_dir() and "-" in p.name)
SCENARIOS = sorted({p.name.split("-")[0] for p in ASSEMBLIES})
LAYOUTS = ["flat", "nested", "nestedfront", "nestedtwice", "staged", "split", "splitnested", "regions", "regionsnested",
           "regionsreverse", "include", "includenested", "ssm", "accounts"]


def _findings(assembly: Path) -> list:
    result = check_paths([assembly])
    assert result.unreadable == []
    return result.findings


def _shape(findings: list) -> list[tuple[str, str, str]]:
    """What must not change when CDK moves resources between stacks: rule, severity, logical id."""
    return sorted((f.rule, f.severity.value, f.resource) for f in findings)


@pytest.fixture(scope="module")
def judged() -> dict[str, list]:
    return {p.name: _findings(p) for p in ASSEMBLIES}


def test_corpus_records_its_aws_cdk_lib_and_holds_every_layout() -> None:
    assert (CORPUS / "VERSION").read_text().startswith("aws-cdk-lib 2.")
    names = {p.name for p in ASSEMBLIES}
    for scenario in ("weighted", "keepalive", "fleet"):
        assert {f"{scenario}-{layout}" for layout in LAYOUTS} <= names
    assert {"mapped-flat", "mapped-include", "mapped-agnostic"} <= names


@pytest.mark.parametrize("assembly", [p.name for p in ASSEMBLIES if not p.name.endswith(("-flat", "-agnostic"))])
def test_every_layout_gets_the_flat_apps_findings(judged: dict[str, list], assembly: str) -> None:
    flat = assembly.split("-")[0] + "-flat"
    assert _shape(judged[assembly]) == _shape(judged[flat])


def test_the_flat_apps_are_judged_as_the_issue_wants(judged: dict[str, list]) -> None:
    assert [(f.rule, f.severity) for f in judged["weighted-flat"]] == [("EO-DNS1", Severity.ERROR)] * 2
    assert [(f.rule, f.severity) for f in judged["mapped-flat"]] == [("EO-DNS1", Severity.ERROR)] * 2
    assert [(f.rule, f.severity) for f in judged["keepalive-flat"]] == [("EO-CF2", Severity.ERROR)]
    assert judged["fleet-flat"] == []


@pytest.mark.parametrize("layout", LAYOUTS[1:])
def test_the_fleet_reads_four_addresses_in_every_layout(layout: str) -> None:
    """Quiet because judged: the four multivalue records hold four different EIPs of two NLBs (it read
    as one address through the nesting, with a false "1 origin IP" warning)."""
    model = load_model([CORPUS / f"fleet-{layout}"])
    values = [r.values for r in model.record_sets("api.example.com")]
    assert len(values) == 4 and all(len(v) == 1 and isinstance(v[0], ResourceRef) for v in values)
    eips = {model.eip(v[0]) for v in values}
    assert None not in eips and len(eips) == 4
    assert len({lb.resource.key for e in eips for lb in e.load_balancers}) == 2


@pytest.mark.parametrize(("assembly", "stacks"), [
    ("weighted-nested", ["App", "App/Origins"]),
    ("weighted-nestedfront", ["App", "App/Front"]),
    ("keepalive-nestedfront", ["App", "App/Front"]),
    ("weighted-nestedtwice", ["App", "App/Front", "App/Outer", "App/Outer/Origins"]),
    ("weighted-staged", ["Prod-App", "Prod-App/Origins"]),
    ("weighted-regionsnested", ["Front", "Front/Records", "Origins", "Origins/Lbs"]),
    ("fleet-splitnested", ["Front", "Front/Records", "Origins", "Origins/Lbs"]),
])
def test_findings_in_a_nested_stack_name_its_path(judged: dict[str, list], assembly: str, stacks: list[str]) -> None:
    """A nested stack is <Parent>/<construct id>; every finding on its resources says so, with its file."""
    model = load_model([CORPUS / assembly])
    assert sorted(model.stacks) == stacks
    where = {r.logical_id: (r.stack, r.template) for r in model.resources}
    for finding in judged[assembly]:
        assert (finding.stack, finding.template) == where[finding.resource]
    assert all(f.stack == "App/Front" for f in judged[assembly]) if assembly.endswith("nestedfront") else True


def test_an_unknown_region_leaves_the_mapping_unjudged_never_fine(judged: dict[str, list]) -> None:
    """An environment-agnostic stack: AWS::Region is unknown, so names read through the mapping are
    not judged (EO-NJ1), not called fine."""
    findings = judged["mapped-agnostic"]
    assert [f.rule for f in findings] == ["EO-NJ1"]
    assert "AWS::Region" in findings[0].message


@pytest.mark.parametrize(("assembly", "code"), [("weighted-nested", 1), ("weighted-nestedfront", 1), ("weighted-regions", 1),
                                                ("weighted-regionsreverse", 1), ("mapped-include", 1), ("keepalive-nestedfront", 1),
                                                ("keepalive-nested", 1), ("fleet-nested", 0), ("fleet-nestedfront", 0)])
def test_check_exits_as_the_issue_says(assembly: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["check", str(CORPUS / assembly)]) == code
    out = capsys.readouterr().out
    if code:
        assert "EO-DNS1" in out or "EO-CF2" in out


@pytest.mark.slow
def test_the_corpus_is_what_the_installed_aws_cdk_lib_writes(tmp_path: Path) -> None:
    """Synthesize every app again (one process, validation off) and compare templates and manifests."""
    import importlib.metadata

    generate = load_corpus_generator(CORPUS / "generate.py", "assembly_corpus_generate")  # by path: tests/*/generate.py are two modules
    if (CORPUS / "VERSION").read_text().split()[-1] != importlib.metadata.version("aws-cdk-lib"):
        pytest.skip("the corpus was written by another aws-cdk-lib: run generate.py and review the change")
    fresh = generate.synthesize_all(tmp_path)
    assert len(fresh) == len([p for p in CORPUS.iterdir() if p.is_dir() and (p / "manifest.json").exists()])
    for out in fresh:
        committed = CORPUS / out.name
        files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
        assert files == sorted(p.relative_to(committed).as_posix() for p in committed.rglob("*.json")), out.name
        for name in files:
            assert json.loads((out / name).read_text()) == json.loads((committed / name).read_text()), f"{out.name}/{name}"


def test_the_review_draws_the_nesting() -> None:
    from edge_origin.review.report import render_report

    text = render_report(load_model([CORPUS / "weighted-nestedtwice"]), "markdown")
    assert ("4 stack(s): `App`, `App/Front` (nested in `App`), `App/Outer` (nested in `App`), "
            "`App/Outer/Origins` (nested in `App/Outer`)") in text
    assert "`App/Outer/Origins/Nlb042BBACA5`" in text  # the NLB named by its nested stack path


@pytest.mark.parametrize("assembly", ["weighted-nested", "keepalive-nestedtwice", "fleet-staged", "weighted-regionsnested"])
def test_without_asset_metadata_the_asset_manifest_finds_the_nested_templates(tmp_path: Path, judged: dict[str, list],
                                                                              assembly: str) -> None:
    """``python app.py`` writes no aws:asset:path (the CLI's context turns it on): the asset manifest's object key of
    each TemplateURL finds the same files."""
    import shutil

    copy = tmp_path / assembly
    shutil.copytree(CORPUS / assembly, copy)
    stripped = 0
    for template in copy.rglob("*.template.json"):
        body = json.loads(template.read_text())
        for resource in body["Resources"].values():
            if resource.get("Metadata", {}).pop("aws:asset:path", None) is not None:
                stripped += 1
        template.write_text(json.dumps(body))
    assert stripped
    assert _shape(_findings(copy)) == _shape(judged[assembly])
    assert sorted(load_model([copy]).stacks) == sorted(load_model([CORPUS / assembly]).stacks)


def test_load_assembly_from_the_top_level_templates_a_validation_plugin_gets() -> None:
    from edge_origin.model import TemplateModel
    from edge_origin.model.loader import load_assembly
    from edge_origin.rules import run_rules

    folder = CORPUS / "weighted-regionsnested"
    loaded = load_assembly(folder, [folder / "Front.template.json", folder / "Origins.template.json"])
    assert [(t.stack, t.environment.region) for t in loaded] == [
        ("Front", "us-east-1"), ("Front/Records", "us-east-1"), ("Origins", "eu-west-1"), ("Origins/Lbs", "eu-west-1")]
    assert _shape(run_rules(TemplateModel(loaded))) == _shape(_findings(CORPUS / "weighted-flat"))


@pytest.mark.parametrize("assembly", ["weighted-nested", "keepalive-nested"])
def test_a_parent_template_alone_is_not_judged_never_fine(tmp_path: Path, assembly: str) -> None:
    """The parent's template given without its nested template (no metadata, no asset manifest beside it):
    what crosses the nesting is not judged (EO-NJ1 naming the nested stack's output), never an error or quiet."""
    body = json.loads((CORPUS / assembly / "App.template.json").read_text())
    for resource in body["Resources"].values():
        resource.get("Metadata", {}).pop("aws:asset:path", None)
    (tmp_path / "App.template.json").write_text(json.dumps(body))
    findings = _findings(tmp_path / "App.template.json")
    assert findings and all(f.rule == "EO-NJ1" and "nested stack" in f.message + f.fix for f in findings), findings


@pytest.mark.parametrize("assembly", [p.name for p in ASSEMBLIES if p.name.split("-")[1] in ("accounts", "regions", "ssm", "staged", "include")])
def test_an_app_folder_holding_its_cdk_out_is_judged_as_the_cdk_out(judged: dict[str, list], tmp_path: Path, assembly: str) -> None:
    """``edge-origin check .`` from the app's folder finds cdk.out in the walk and names its stacks
    ``cdk.out/<Stack>`` (redteam): a cross-account ``Fn::GetStackOutput`` of stack ``Origins`` was then
    read as a stack not given ("not judged" where the cdk.out alone gets EO-CF2 / EO-DNS1)."""
    import shutil

    app = tmp_path / "app"
    shutil.copytree(CORPUS / assembly, app / "cdk.out")
    (app / "cdk.json").write_text('{"app": "python3 app.py"}')
    result = check_paths([app])
    assert result.unreadable == [] and _shape(result.findings) == _shape(judged[assembly])
