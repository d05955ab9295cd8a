"""Real public templates (tests/corpus, licences in its README): the checker's verdict on each."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from edge_origin.core.findings import Severity
from edge_origin.review.checker import CheckResult
from edge_origin.review.checker import check_paths as _check_paths

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@cache
def _cached(paths: tuple[Path, ...]) -> CheckResult:
    return _check_paths(list(paths))


def check_paths(paths: list[Path]) -> CheckResult:
    """Each set of files is checked once (the SAM and LanguageExtensions imports cost ~1 s)."""
    return _cached(tuple(paths))


def _summary(paths: list[Path]) -> list[tuple[str, str, str]]:
    result = check_paths(paths)
    assert result.unreadable == []
    return sorted((f.rule, f.severity.value, f.resource) for f in result.findings)


def test_aws_cdk_grpc_distribution_with_caching_policy_is_a_warning_not_an_error() -> None:
    found = check_paths([CORPUS / "aws-cdk-integ-distribution-grpc.template.json"]).findings
    findings = [f for f in found if f.rule != "EO-NJ1"]
    assert [(f.rule, f.severity) for f in findings] == [("EO-CF1", Severity.WARNING)]
    assert "passes gRPC through uncached" in findings[0].message
    # its origin's records are not in the template: what CloudFront reaches is not judged, and says so
    assert [(f.rule, f.severity) for f in found if f.rule == "EO-NJ1"] == [("EO-NJ1", Severity.WARNING)]


def test_separate_zones_that_share_a_name_are_not_mixed_routing_policies() -> None:
    assert _summary(sorted((CORPUS / "same-zone-name").glob("*.json"))) == []
    # the folder itself, walked: both stacks, named by their paths
    result = check_paths([CORPUS / "same-zone-name"])
    assert sorted(result.model.stacks) == ["multi-value-answer-routing", "weighted-record"]
    assert result.findings == []


@pytest.mark.parametrize(
    "name",
    [
        "cfn-lint-language_extension.yaml",
        "cfn-lint-auto_publish_alias.yaml",
        "cfn-lint-get_stack_output.yaml",
        "cfn-lint-billing_mode.yaml",
        "cfn-lint-recordset_name.yaml",
    ],
)
def test_valid_templates_with_transforms_and_new_intrinsics_are_read(name: str) -> None:
    result = check_paths([CORPUS / name])
    assert result.unreadable == [] and result.findings == []
    assert result.model.resources


def test_sam_implicit_resources_exist_after_the_transform() -> None:
    model = check_paths([CORPUS / "cfn-lint-auto_publish_alias.yaml"]).model
    ids = {r.logical_id for r in model.resources}
    assert {"SkillFunctionRole", "SkillFunction2Role"} <= ids
    assert not any(r.type.startswith("AWS::Serverless::") for r in model.resources)


def test_language_extensions_then_sam_are_both_expanded() -> None:
    model = check_paths([CORPUS / "cfn-lint-language_extension.yaml"]).model
    types = {r.type for r in model.resources}
    assert "AWS::Lambda::Function" in types and "AWS::StepFunctions::StateMachine" in types


def test_undecidable_if_is_unknown_and_names_are_normalized() -> None:
    table = check_paths([CORPUS / "cfn-lint-billing_mode.yaml"]).model.resource("cfn-lint-billing_mode", "DynamoDbConditioned")
    assert table is not None and type(table.properties["BillingMode"]).__name__ == "Unresolved"
    model = check_paths([CORPUS / "cfn-lint-recordset_name.yaml"]).model
    assert sorted(r.name for r in model.record_sets()) == ["example.com", "example.com", "rs1.example.com", "rs2.example.com"]
    assert {r.hosted_zone_name for r in model.record_sets()} == {"example.com"}


def test_the_whole_corpus_at_once() -> None:
    paths = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".json", ".yaml"))
    result = check_paths(paths)
    assert result.unreadable == []
    assert {(f.rule, f.severity) for f in result.findings} == {("EO-CF1", Severity.WARNING), ("EO-NJ1", Severity.WARNING)}
