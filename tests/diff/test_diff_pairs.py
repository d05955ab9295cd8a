"""Template pairs (tests/fixtures/diff/<case>/{base,head}): every transition rule fires and stays quiet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_origin.cli import main
from edge_origin.core.findings import Severity
from edge_origin.review.diff import diff_paths
from edge_origin.rules import TRANSITION_RULES_BY_ID

PAIRS = Path(__file__).resolve().parents[1] / "fixtures" / "diff"


def sides(case: str) -> tuple[list[Path], list[Path]]:
    folder = PAIRS / case
    return sorted((folder / "base").glob("*.json")), sorted((folder / "head").glob("*.json"))


def transition(case: str) -> list[tuple[str, Severity]]:
    base, head = sides(case)
    return sorted((f.rule, f.severity) for f in diff_paths(base, head).transition_findings)


# case -> the transition findings expected, exactly
EXPECTED: dict[str, list[tuple[str, Severity]]] = {
    "naive-migration": [("EO-CHG1", Severity.ERROR)],
    "safe-migration": [],
    "new-name-unordered": [("EO-CHG3", Severity.WARNING)],
    "single-record-in-place": [],
    "group-policy-flip": [],
    "nlb-3-to-2": [("EO-CHG2", Severity.WARNING)],
    "eip-address-changed": [("EO-CHG2", Severity.WARNING)],
    "nlb-replaced": [("EO-CHG2", Severity.WARNING)],
    "nlb-renamed": [("EO-CHG2", Severity.WARNING)],
    "set-identifier-changed": [("EO-CHG2", Severity.WARNING)],
    "env-added": [("EO-CHG2", Severity.ERROR)],
    "ttl-lowered": [],
    "tags-only": [],
    "ttl-raised": [("EO-CHG4", Severity.WARNING)],
    "all-records-removed": [("EO-CHG3", Severity.ERROR)],
    "health-checks-removed": [("EO-CHG3", Severity.ERROR)],
    "cross-stack-move": [("EO-CHG5", Severity.ERROR), ("EO-CHG5", Severity.ERROR)],
    "record-logical-id-renamed": [("EO-CHG5", Severity.ERROR)],
    "keepalive-with-idle": [("EO-CHG4", Severity.WARNING), ("EO-CHG4", Severity.WARNING)],
    "idle-raised-first": [],
    "cloudfront-keepalive-with-idle": [("EO-CHG4", Severity.WARNING), ("EO-CHG4", Severity.WARNING)],
}
FIRES = {rule for found in EXPECTED.values() for rule, _ in found}
QUIET_FOR = {rule: [c for c, found in EXPECTED.items() if rule not in {r for r, _ in found}] for rule in TRANSITION_RULES_BY_ID}


def test_every_fixture_pair_is_listed_and_every_rule_fires() -> None:
    assert {p.name for p in PAIRS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))} == set(EXPECTED)
    assert set(TRANSITION_RULES_BY_ID) == FIRES


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_pair(case: str) -> None:
    assert transition(case) == sorted(EXPECTED[case])


def test_every_rule_has_quiet_pairs_that_change_its_subject() -> None:
    # quiet cases that touch what each rule looks at (not just unrelated pairs)
    subjects = {
        "EO-CHG1": "safe-migration", "EO-CHG2": "tags-only", "EO-CHG3": "safe-migration",
        "EO-CHG4": "idle-raised-first", "EO-CHG5": "set-identifier-changed",
    }
    assert set(subjects) == set(QUIET_FOR)  # every transition rule has its subject case
    for rule, case in subjects.items():
        assert case in QUIET_FOR[rule], (rule, case)


def test_nlb_3_to_2_names_the_removed_addresses_and_the_ones_that_stay() -> None:
    base, head = sides("nlb-3-to-2")
    result = diff_paths(base, head)
    (finding,) = result.transition_findings
    assert "2 of its 6 addresses are removed or replaced (4 stay)" in finding.message
    assert "Nlb3EipA" in finding.message and "Nlb1EipA" not in finding.message
    removed = {(c.kind, c.logical_id) for c in result.changes if c.after is None}
    assert {("nlb", "Nlb3"), ("eip", "Nlb3EipA"), ("record", "RecordNlb3B"), ("listener", "Nlb3Tcp")} <= removed


def test_env_added_flags_every_eip_replaced() -> None:
    base, head = sides("env-added")
    result = diff_paths(base, head)
    (finding,) = result.transition_findings
    assert finding.severity is Severity.ERROR and "all 6 of its addresses change at once" in finding.message
    eips = [c for c in result.changes if c.kind == "eip"]
    assert sum(c.after is None for c in eips) == 6 and sum(c.before is None for c in eips) == 6


def test_cross_stack_move_is_a_removal_plus_an_addition() -> None:
    base, head = sides("cross-stack-move")
    result = diff_paths(base, head)
    notes = {(c.stack, c.logical_id): c.note for c in result.changes if c.kind == "record"}
    assert "moves to Dns/RecordNlb2A (another stack): a removal here and an addition there" in notes[("Edge", "RecordNlb2A")]
    assert "moved from Edge/RecordNlb2A (another stack)" in notes[("Dns", "RecordNlb2A")]
    assert result.transition.added_stacks == ["Dns"]


def test_eip_address_change_is_a_replacement_from_the_schema() -> None:
    base, head = sides("eip-address-changed")
    result = diff_paths(base, head)
    st = result.transition.status(("Edge", "Nlb1EipA"))
    assert st.status == "replaced" and "Address" in st.reasons[0]
    # the NLB mapping that EIP is updated in place (SubnetMappings is not create-only), the record's value changes
    assert result.transition.status(("Edge", "Nlb1")).status == "updated"
    values = [c for c in result.changes if c.field == "values"]
    assert values and values[0].after.endswith("(replaced)")


def test_nlb_replacement_names_the_nlb_and_its_listener() -> None:
    base, head = sides("nlb-replaced")
    result = diff_paths(base, head)
    (finding,) = result.transition_findings
    assert "its NLB Nlb2 replaced (Scheme internet-facing -> internal)" in finding.message
    assert "2 of its 4 addresses are removed or replaced" in finding.message
    fields = {(c.kind, c.logical_id, c.field) for c in result.changes}
    assert {("nlb", "Nlb2", "nlb"), ("listener", "Nlb2Tcp", "listener")} <= fields


def test_nlb_renamed_under_kept_eips() -> None:
    base, head = sides("nlb-renamed")
    (finding,) = diff_paths(base, head).transition_findings
    assert "its NLB Nlb2 removed: a new NLB cannot take the EIP while the old one holds it" in finding.message


def test_declared_profile_changes_are_listed() -> None:
    base, head = sides("keepalive-with-idle")
    changes = {(c.logical_id, c.field): (c.before, c.after) for c in diff_paths(base, head).changes}
    assert changes[("Nlb1Tcp", "idle_timeout")] == ("400", "1200")
    assert changes[("Nlb1Tcp", "profile client_keepalive_time_s")][1] == 600


def test_ttl_and_policy_changes_are_listed_with_before_and_after() -> None:
    base, head = sides("ttl-lowered")
    changes = diff_paths(base, head).changes
    assert {(c.field, c.before, c.after) for c in changes} == {("ttl", 60, 30)}
    base, head = sides("single-record-in-place")
    (change,) = diff_paths(base, head).changes
    assert (change.field, change.before, change.after) == ("routing_policy", "weighted 10", "multivalue")


def test_json_output_shape_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    base, head = sides("naive-migration")
    code = main(["diff", "--base", *map(str, base), "--head", *map(str, head), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert set(doc) >= {"changes", "findings"}
    for change in doc["changes"]:
        assert {"name", "stack", "logical_id", "field", "before", "after"} <= set(change)
    assert [f["rule"] for f in doc["findings"] if f["source"] == "transition"] == ["EO-CHG1"]
    base, head = sides("nlb-3-to-2")
    assert main(["diff", "--base", *map(str, base), "--head", *map(str, head)]) == 0
    assert main(["diff", "--base", *map(str, base), "--head", *map(str, head), "--fail-on", "warning"]) == 1
    capsys.readouterr()


def test_fail_on_new_only_ignores_what_base_already_had(capsys: pytest.CaptureFixture[str]) -> None:
    # one record set in both: EO-DNS3 (a warning) on head, and already on base
    base, head = sides("single-record-in-place")
    result = diff_paths(base, head)
    # EO-SEC1 (no origin-verification header in these hand-written fixtures) is on both sides too
    assert [f.rule for f in result.head_findings if f.rule != "EO-SEC1"] == ["EO-DNS3"] and not result.new
    args = ["diff", "--base", *map(str, base), "--head", *map(str, head), "--fail-on", "warning"]
    assert main(args) == 1
    assert main([*args, "--fail-on-new-only"]) == 0
    capsys.readouterr()


def test_new_head_findings_are_marked_new(capsys: pytest.CaptureFixture[str]) -> None:
    base, head = sides("health-checks-removed")
    result = diff_paths(base, head)
    introduced = {i for i, f in enumerate(result.head_findings) if f.rule != "EO-SEC1"}  # SEC1: on base too
    assert introduced and result.new == introduced
    assert all(result.head_findings[i].rule == "EO-DNS2" for i in introduced)
    assert main(["diff", "--base", *map(str, base), "--head", *map(str, head), "--fail-on-new-only"]) == 1
    out = capsys.readouterr().out
    assert "new warning" in out or "new error" in out


def test_sarif_has_fingerprints_and_baseline_state(capsys: pytest.CaptureFixture[str]) -> None:
    base, head = sides("health-checks-removed")
    main(["diff", "--base", *map(str, base), "--head", *map(str, head), "--format", "sarif"])
    doc = json.loads(capsys.readouterr().out)
    results = [r for r in doc["runs"][0]["results"] if r["ruleId"] != "EO-SEC1"]  # SEC1: already on base
    assert {r["ruleId"] for r in results} == {"EO-CHG3", "EO-DNS2"}
    prints = [r["partialFingerprints"]["edgeOriginFinding/v1"] for r in results]
    assert len(set(prints)) == len(prints)
    assert {r["baselineState"] for r in results} == {"new"}
    assert "EO-CHG3" in {r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]}


def test_markdown_lists_changes_per_name(capsys: pytest.CaptureFixture[str]) -> None:
    base, head = sides("safe-migration")
    assert main(["diff", "--base", *map(str, base), "--head", *map(str, head), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "### origin-mv.example.com" in out and "### origin.example.com" in out
    assert "| distribution `Edge/Dist` | origin o1 domain_name | origin.example.com | origin-mv.example.com |" in out
