"""Issue 39, the review of a change: what the change fixes, one line per changed fact, the quotas a
change moves past, and fix texts that fit the finding's own change (read beside each finding)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from edge_origin.review.diff import diff_paths, format_diff
from edge_origin.review.quota_crossings import QUOTA_TABLE
from edge_origin.review.report import report_change_paths

PAIRS = Path(__file__).resolve().parents[1] / "fixtures" / "diff"


def _pair(name: str) -> tuple[list[str], list[str]]:
    return [str(PAIRS / name / "base")], [str(PAIRS / name / "head")]


def test_a_change_that_fixes_a_finding_shows_it_as_fixed() -> None:
    base, head = _pair("keepalive-with-idle")  # base's listeners at 400 s: EO-NLB1 (conntrack); head declares 1200 s
    result = diff_paths(base, head)
    assert {f.rule for f in result.fixed} == {"EO-NLB1"}
    assert not any(f.rule == "EO-NLB1" for f in result.head_findings)
    text = format_diff(result, "text")
    assert "fixed by this change: 2" in text and "fixed   warning EO-NLB1" in text
    report = report_change_paths(base, head)
    assert "#### Fixed by this change (2)" in report and "| warning | EO-NLB1 |" in report.split("Fixed by this change")[1]
    assert json.loads(format_diff(result, "json"))["fixed"][0]["rule"] == "EO-NLB1"


def test_nothing_fixed_says_none() -> None:
    assert "### Fixed by this change (0)" in format_diff(diff_paths(*_pair("ttl-raised")), "markdown")


def test_one_line_per_changed_fact() -> None:
    result = diff_paths(*_pair("keepalive-with-idle"))
    facts = [(c.stack, c.logical_id, c.field) for c in result.changes]
    assert len(facts) == len(set(facts))
    idle = [c for c in result.changes if c.logical_id == "Nlb1Tcp" and "idle" in c.field]
    assert [c.field for c in idle] == ["idle_timeout"], idle  # not again as "profile nlb_idle_timeout_s"
    assert "nlb_idle_timeout_s" in idle[0].note


def test_a_change_past_the_eip_quota_says_so() -> None:
    four, six = _pair("nlb-3-to-2")[::-1]  # head of that pair has 2 NLBs (4 EIPs), base 3 NLBs (6 EIPs)
    result = diff_paths(four, six)
    (eips,) = [q for q in result.quotas if q.quota_code == "L-0263D0A3"]
    assert (eips.base, eips.head, eips.default) == (4, 6, 5)
    assert "EC2-VPC Elastic IPs: 4 -> 6, moves past the AWS default quota of 5" in format_diff(result, "text")
    assert "### Quotas" in format_diff(result, "markdown")
    assert "#### Quotas" in report_change_paths(four, six)
    assert not diff_paths(*_pair("nlb-3-to-2")).quotas  # going down crosses nothing


def test_quota_defaults_match_the_synth_time_ledger() -> None:
    from edge_origin.cdk.quotas import QUOTAS

    assert {(code, default) for _, code, default, _, _ in QUOTA_TABLE} == {(q.quota_code, q.default) for q in QUOTAS.values()}


def test_chg4_fix_on_a_ttl_raise_speaks_of_the_ttl() -> None:
    result = diff_paths(*_pair("ttl-raised"))
    (f,) = [f for f in result.transition_findings if f.rule == "EO-CHG4"]
    assert "TTL raised" in f.message
    assert "TTL" in f.fix and "keepalive" not in f.fix.lower() and "idle" not in f.fix.lower()


def test_chg4_fix_on_a_keepalive_raise_says_idle_first() -> None:
    findings = diff_paths(*_pair("keepalive-with-idle")).transition_findings
    assert findings, "the keepalive raise with its idle timeout gives a transition finding"
    for f in findings:
        assert "idle timeout 400 s -> 1200 s" in f.message
        assert "raise the NLB idle timeout first" in f.fix and "TTL" not in f.fix


def test_chg4_fix_on_cloudfront_keepalive_speaks_of_the_origin_keepalive() -> None:
    chg4 = [f for f in diff_paths(*_pair("cloudfront-keepalive-with-idle")).transition_findings if f.rule == "EO-CHG4"]
    assert chg4, "the CloudFront keepalive raise gives EO-CHG4"
    for f in chg4:
        if f.rule == "EO-CHG4":
            assert "origin" in f.message and "CloudFront origin keepalive" in f.fix and "TTL" not in f.fix


def _accidental_weighted(tmp_path: Path) -> tuple[str, str]:
    base_dir = PAIRS / "ttl-raised" / "base"
    template = json.loads((base_dir / "Edge.template.json").read_text(encoding="utf-8"))
    head = copy.deepcopy(template)
    for i, eip in enumerate(("Nlb1EipA", "Nlb2EipA")):
        head["Resources"][f"Weighted{i}"] = {
            "Type": "AWS::Route53::RecordSet",
            "Properties": {"HostedZoneName": "example.com.", "Name": "origin.example.com", "Type": "A", "TTL": 60,
                           "SetIdentifier": f"w{i}", "Weight": 10, "ResourceRecords": [{"Ref": eip}]},
        }
    (tmp_path / "head").mkdir()
    (tmp_path / "head" / "Edge.template.json").write_text(json.dumps(head), encoding="utf-8")
    return str(base_dir), str(tmp_path / "head")


def test_chg1_fix_for_weighted_records_added_by_accident_says_remove_them(tmp_path: Path) -> None:
    base, head = _accidental_weighted(tmp_path)
    findings = [f for f in diff_paths([base], [head]).transition_findings if f.rule == "EO-CHG1"]
    assert findings
    for f in findings:
        assert "multivalue -> multivalue/weighted" in f.message
        assert f.fix.startswith("Remove the added weighted record set(s) Edge/Weighted0, Edge/Weighted1")
        assert "new record name" not in f.fix


def test_chg1_fix_for_a_real_migration_still_says_migrate() -> None:
    (f,) = [f for f in diff_paths(*_pair("naive-migration")).transition_findings if f.rule == "EO-CHG1"]
    assert "weighted -> multivalue" in f.message and "new record name" in f.fix


def test_diff_writes_junit_with_a_failure_per_error(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from edge_origin.review.diff import format_diff

    base, head = _accidental_weighted(tmp_path)
    result = diff_paths([base], [head])
    root = ET.fromstring(format_diff(result, "junit"))
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == "edge-origin diff"
    failures = [c for c in suite.findall("testcase") if c.find("failure") is not None]
    errors = [f for f, _, _ in result.findings if f.severity.value == "error"]
    assert errors and len(failures) == len(errors) == int(suite.get("failures", "0"))
    assert {c.get("classname") for c in failures} >= {"EO-CHG1"}
