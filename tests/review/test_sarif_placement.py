"""Issue 51 item 2: SARIF that places findings where the user works, valid against the SARIF 2.1.0
schema (tests/fixtures/sarif/, source in SOURCE.md) and within GitHub code scanning's documented
upload limits ("SARIF results exceed hard limit": 20 runs a file, 25,000 results and 25,000 rules a
run, 1,000 locations a result, 20 tags a rule; 10 MB gzip-compressed a file)."""

from __future__ import annotations

import gzip
import json
import os
import tomllib
from pathlib import Path

import jsonschema
import pytest

from edge_origin._version import __version__
from edge_origin.cli import main
from edge_origin.core.findings import Finding, Severity
from edge_origin.review import sarif as sarif_module
from edge_origin.review.checker import format_sarif
from edge_origin.review.sarif import PROJECT_URL
from edge_origin.rules import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
DNS1 = ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-dns1-fire.json"
APP = '''import aws_cdk as cdk
from aws_cdk import aws_route53 as route53

class Edge(cdk.Stack):
    def __init__(self, scope, id):
        super().__init__(scope, id)
        route53.ARecord(self, "Weighted1", zone=zone, weight=50)
        for i in range(2):
            route53.ARecord(self, f"Loop{i}", zone=zone)

Edge(cdk.App(), "Edge")
'''


def assert_github_limits(doc: dict) -> None:
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(doc)
    assert len(doc["runs"]) <= 20
    for run in doc["runs"]:
        assert len(run["results"]) <= 25_000 and len(run["tool"]["driver"]["rules"]) <= 25_000
        assert all(len(r.get("locations", [])) <= 1_000 for r in run["results"])
        assert all(len(rule.get("properties", {}).get("tags", [])) <= 20 for rule in run["tool"]["driver"]["rules"])
    assert len(gzip.compress(json.dumps(doc).encode())) <= 10 * 1024 * 1024


@pytest.fixture()
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with a CDK app (cdk.json, app.py) and its cdk.out holding the EO-DNS1 fixture,
    RecordA created as "Weighted1", RecordB in a loop (its id is no literal)."""
    (tmp_path / ".git").mkdir()
    infra = tmp_path / "infra"
    (infra / "cdk.out").mkdir(parents=True)
    (infra / "cdk.json").write_text(json.dumps({"app": "python3 app.py"}))
    (infra / "app.py").write_text(APP)
    body = json.loads(DNS1.read_text())
    body["Resources"]["RecordA"]["Metadata"] = {"aws:cdk:path": "Edge/Weighted1/Resource"}
    body["Resources"]["RecordB"]["Metadata"] = {"aws:cdk:path": "Edge/Loop1/Resource"}
    (infra / "cdk.out" / "Edge.template.json").write_text(json.dumps(body, indent=1))
    (infra / "cdk.out" / "manifest.json").write_text(json.dumps({"version": "36.0.0", "artifacts": {"Edge": {
        "type": "aws:cloudformation:stack", "properties": {"templateFile": "Edge.template.json"}}}}))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _sarif(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    main(["check", "--format", "sarif", "--config", "none", *argv])
    return json.loads(capsys.readouterr().out)


def test_findings_point_at_the_source_line_that_made_the_construct(app: Path, capsys) -> None:
    doc = _sarif(capsys, "infra/cdk.out")
    assert_github_limits(doc)
    (run,) = doc["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == app.resolve().as_uri() + "/"
    by_id = {r["locations"][0]["logicalLocations"][0]["properties"]["logicalId"]: r for r in run["results"]}
    a, b = by_id["RecordA"], by_id["RecordB"]
    assert a["locations"][0]["logicalLocations"][0] == {
        "name": "Weighted1", "fullyQualifiedName": "Edge/Weighted1/Resource", "kind": "resource",
        "properties": {"stack": "Edge", "logicalId": "RecordA"},
    }
    line = APP.splitlines().index('        route53.ARecord(self, "Weighted1", zone=zone, weight=50)') + 1
    assert a["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "infra/app.py", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": line},
    }
    (related,) = a["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"] == {"uri": "infra/cdk.out/Edge.template.json", "uriBaseId": "%SRCROOT%"}
    # RecordB: "Loop1" is no literal in the source, but its stack's id is: the stack's line, no better place
    assert b["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "infra/app.py"
    assert b["locations"][0]["physicalLocation"]["region"]["startLine"] == APP.splitlines().index('Edge(cdk.App(), "Edge")') + 1


def test_without_the_app_the_template_is_the_place_and_the_message_names_the_construct(app: Path, capsys) -> None:
    (app / "infra" / "cdk.json").unlink()
    doc = _sarif(capsys, "infra/cdk.out")
    assert_github_limits(doc)
    for result in doc["runs"][0]["results"]:
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": "infra/cdk.out/Edge.template.json", "uriBaseId": "%SRCROOT%"}
        assert physical["region"]["startLine"] > 1 and "relatedLocations" not in result
        assert result["message"]["text"].startswith(result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] + ": ")


def test_the_driver_and_every_rule_say_where_their_docs_are() -> None:
    driver = json.loads(format_sarif([]))["runs"][0]["tool"]["driver"]
    assert (driver["version"], driver["semanticVersion"], driver["informationUri"]) == (__version__, __version__, PROJECT_URL)
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert urls["Repository"] == PROJECT_URL
    headings = {line.lstrip("#").strip().lower().replace(" ", "-") for line in (ROOT / "RULES.md").read_text().splitlines()
                if line.startswith("## ") or line.startswith("### ")}
    assert [r["id"] for r in driver["rules"]][: len(CATALOGUE)] == [r.id for r in CATALOGUE]
    for rule in driver["rules"]:
        assert rule["helpUri"].startswith(f"{PROJECT_URL}/blob/main/RULES.md#")
        anchor = rule["helpUri"].rsplit("#", 1)[1]
        assert anchor in headings, rule["id"]  # EO-ACK1: the "Acknowledging a finding" section
        assert rule["fullDescription"]["markdown"] and rule["help"]["markdown"] and rule["help"]["text"]


def test_plain_templates_outside_any_app_are_valid_and_relative_to_the_repository(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "t.json").write_text(DNS1.read_text())
    monkeypatch.chdir(tmp_path)
    doc = _sarif(capsys, "t.json")
    assert_github_limits(doc)
    for result in doc["runs"][0]["results"]:
        assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "t.json", "uriBaseId": "%SRCROOT%"}
        assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].startswith("t/Record")


def test_more_results_than_github_takes_keep_the_most_severe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif_module, "MAX_RESULTS", 3)
    findings = [Finding("EO-DNS4", Severity.WARNING, f"w{i}", "f", "", "S", f"W{i}") for i in range(5)]
    findings += [Finding("EO-DNS1", Severity.ERROR, f"e{i}", "f", "", "S", f"E{i}") for i in range(2)]
    run = json.loads(format_sarif(findings))["runs"][0]
    assert [r["level"] for r in run["results"]] == ["error", "error", "warning"]
    assert run["properties"]["resultsLeftOut"] == 4


def test_the_source_index_is_bounded_and_reads_only_regular_files_inside_the_app(tmp_path: Path, monkeypatch) -> None:
    from edge_origin.review import placement

    app = tmp_path / "app"
    (app / "lib").mkdir(parents=True)
    (app / "cdk.json").write_text(json.dumps({"app": "python3 main.py"}))
    (app / "main.py").write_text('Stack(app, "Edge")\n')
    outside = tmp_path / "secret.py"
    outside.write_text('x = "Weighted1"\n')
    (app / "lib" / "linked.py").symlink_to(outside)
    if hasattr(os, "mkfifo"):
        os.mkfifo(app / "lib" / "pipe.py")  # never opened: it would block
    (app / "lib" / "z_big.py").write_text('y = "Later"\n' + "#" * 2000)
    index = placement._index(app)
    assert "Edge" in index and "Weighted1" not in index and "Later" in index
    monkeypatch.setattr(placement, "MAX_TOTAL_BYTES", 100)  # main.py fits, the big file does not
    assert "Later" not in placement._index(app) and "Edge" in placement._index(app)


@pytest.mark.parametrize("named", ["../secret.py", "{outside}", "lib/../../secret.py", "lib/up.py"])
def test_files_the_app_command_names_outside_the_app_are_not_read(tmp_path: Path, named: str) -> None:
    """cdk.json's ``app`` is the change's own text: ``python3 /abs/secret.py`` or ``../secret.py`` named a file
    outside the app folder, and it was read and indexed (``/proc/self/environ`` too) (redteam)."""
    from edge_origin.review import placement

    app = tmp_path / "app"
    (app / "lib").mkdir(parents=True)
    outside = tmp_path / "secret.py"
    outside.write_text('x = "Weighted1"\n')
    (app / "lib" / "up.py").symlink_to(outside)
    (app / "cdk.json").write_text(json.dumps({"app": f"python3 {named.format(outside=outside)}"}))
    (app / "main.py").write_text('Stack(app, "Edge")\n')
    index = placement._index(app)
    assert "Edge" in index and "Weighted1" not in index
