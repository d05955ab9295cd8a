"""Issue 39, the CLI conventions a cfn-lint / checkov / cdk-nag user expects: --version, the rule
catalogue and `rules explain`, --select/--ignore, the config file, JUnit XML, "did you mean"."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from edge_origin._version import __version__
from edge_origin.cli import main
from edge_origin.cli.config import ConfigError, load_config
from edge_origin.rules import CATALOGUE, RULES
from edge_origin.rules.selection import RuleSelection, parse_selectors

ROOT = Path(__file__).resolve().parents[2]
RULE_FIXTURES = ROOT / "tests" / "fixtures" / "templates" / "rules"
NLB3 = str(RULE_FIXTURES / "eo-nlb3-fire.yaml")
DNS1 = str(RULE_FIXTURES / "eo-dns1-fire.yaml")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's --version / errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _no_config_above(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test runs in its own repository root (a .git folder), so no config file leaks in."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_version(capsys) -> None:
    assert run(capsys, "--version") == (0, f"edge-origin {__version__}\n", "")


def test_rules_lists_every_rule_with_id_severity_title(capsys) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0
    for rule in CATALOGUE:
        assert any(line.split()[:2] == [rule.id, rule.severity.value] and rule.title in line for line in out.splitlines())
    code, out, _ = run(capsys, "rules", "--format", "json")
    assert [r["id"] for r in json.loads(out)] == [r.id for r in CATALOGUE]


def test_rules_explain_gives_why_source_fix_and_an_example_that_fires(capsys, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "rules", "explain", "eo-dns1")
    assert code == 0
    for part in ("Why: ", "Source: edge_origin/rules/dns1_weighted_grpc.py", "Fix: ", "Example: ", "error   EO-DNS1"):
        assert part in out, part
    code, example, _ = run(capsys, "rules", "explain", "EO-DNS1", "--example")
    (tmp_path / "example.yaml").write_text(example, encoding="utf-8")
    code, out, _ = run(capsys, "check", str(tmp_path / "example.yaml"))
    assert code == 1 and "EO-DNS1" in out


def test_every_bundled_example_is_the_tests_fire_fixture() -> None:
    from edge_origin.rules.explain import example_template

    assert len(RULES) >= 19
    for rule in RULES:
        assert example_template(rule.id) == (RULE_FIXTURES / f"{rule.id.lower()}-fire.yaml").read_text(encoding="utf-8")


def test_rules_explain_unknown_id_suggests_the_nearest(capsys) -> None:
    code, _, err = run(capsys, "rules", "explain", "EO-DSN1")
    assert code == 2 and "did you mean EO-DNS1?" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["chek", "x"], "did you mean 'check'?"),
        (["diff", "--base", "a", "--haed", "b"], "--haed: did you mean '--head'?"),
        (["report", "--base", "a", "--haed", "b"], "--haed: did you mean '--head'?"),
        (["check", "--ignroe", "EO-NLB3", "x"], "--ignroe: did you mean '--ignore'?"),
        (["--versoin"], "did you mean '--version'?"),
    ],
)
def test_typos_get_a_suggestion_on_one_line(capsys, argv: list[str], hint: str) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and hint in err and len(err.strip().splitlines()) == 1, err


def test_selectors_take_ids_and_prefixes_and_refuse_typos() -> None:
    assert parse_selectors(["eo-nlb3,EO-DNS", "EO-KA1"]) == ("EO-NLB3", "EO-DNS", "EO-KA1")
    selection = RuleSelection(select=("EO-DNS", "EO-NLB"), ignore=("EO-NLB3",))
    assert selection.allows("EO-DNS4") and selection.allows("EO-NLB1")
    assert not selection.allows("EO-NLB3") and not selection.allows("EO-KA1")
    with pytest.raises(ValueError, match="did you mean EO-NLB3"):
        parse_selectors(["EO-NBL3"])


def test_check_ignore_and_select(capsys) -> None:
    assert run(capsys, "check", "--fail-on", "warning", NLB3)[0] == 1  # EO-NLB3: warnings
    # issue 50: a set-aside finding is still shown, with its reason and source
    code, out, _ = run(capsys, "check", "--fail-on", "warning", "--ignore", "EO-NLB3: cross-zone on by design", NLB3)
    opened, _, acked = out.partition("\nacknowledged: ")
    assert code == 0 and "EO-NLB3" not in opened and "no findings" in opened
    assert "ack     EO-NLB3" in acked and "reason: cross-zone on by design (ignored (--ignore: EO-NLB3); --ignore)" in acked
    code, out, _ = run(capsys, "check", "--fail-on", "warning", "--select", "EO-DNS", NLB3, DNS1)
    opened, _, acked = out.partition("\nacknowledged: ")
    assert code == 1 and "EO-DNS1" in opened and "EO-NLB3" not in opened and "ack     EO-NLB3" in acked
    assert "not selected (--select: EO-DNS)" in acked
    code, _, err = run(capsys, "check", "--ignore", "EO-NBL3", NLB3)
    assert code == 2 and "did you mean EO-NLB3" in err


def test_diff_and_report_honour_ignore(capsys) -> None:
    pair = ROOT / "tests" / "fixtures" / "diff" / "ttl-raised"
    base, head = str(pair / "base"), str(pair / "head")
    assert "EO-CHG4" in run(capsys, "diff", "--base", base, "--head", head)[1]
    out = run(capsys, "diff", "--base", base, "--head", head, "--ignore", "EO-CHG: staged rollout")[1]
    shown, _, acked = out.partition("\nacknowledged: ")
    assert "EO-CHG4" not in shown and "ack     EO-CHG4" in acked and "reason: staged rollout" in acked  # set aside, still listed
    out = run(capsys, "report", "--base", base, "--head", head, "--ignore", "EO-CHG4: staged")[1]
    shown, _, acked = out.partition("### Acknowledged")
    assert "EO-CHG4" not in shown and "EO-CHG4" in acked


def test_config_in_pyproject_is_read_from_the_repository_root(capsys, _no_config_above: Path, monkeypatch) -> None:
    root = _no_config_above
    (root / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.edge-origin]\nignore = {"EO-NLB3" = "cross-zone on"}\nfail-on = "warning"\n', encoding="utf-8"
    )
    sub = root / "infra"
    sub.mkdir()
    monkeypatch.chdir(sub)
    assert load_config().ignore == ("EO-NLB3",)
    assert run(capsys, "check", NLB3)[0] == 0
    assert run(capsys, "check", "--config", "none", "--fail-on", "warning", NLB3)[0] == 1


def test_config_yaml_and_fail_on(capsys, _no_config_above: Path) -> None:
    (_no_config_above / ".edge-origin.yaml").write_text("fail-on: warning\nselect: ['EO-DNS4: DNS rules only here']\n", encoding="utf-8")
    code, out, _ = run(capsys, "check", str(RULE_FIXTURES / "eo-dns4-fire.yaml"))
    assert code == 1 and "EO-DNS4" in out  # EO-DNS4 is a warning: fails only with fail-on warning
    assert run(capsys, "check", "--fail-on", "error", str(RULE_FIXTURES / "eo-dns4-fire.yaml"))[0] == 0


def test_config_unknown_key_names_it_and_the_allowed_keys(capsys, _no_config_above: Path) -> None:
    (_no_config_above / ".edge-origin.yaml").write_text("ignore_checks: [EO-NLB3]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown key 'ignore_checks'.*allowed keys: select, ignore, fail-on"):
        load_config()
    code, _, err = run(capsys, "check", NLB3)
    assert code == 2 and "unknown key 'ignore_checks'" in err and len(err.strip().splitlines()) == 1


def test_config_in_both_files_is_refused(_no_config_above: Path) -> None:
    (_no_config_above / ".edge-origin.yaml").write_text("ignore: [EO-NLB3]\n", encoding="utf-8")
    (_no_config_above / "pyproject.toml").write_text("[tool.edge-origin]\nignore = []\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="keep one"):
        load_config()


def _junit(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    for element in (root, suite):
        assert int(element.get("tests")) == len(cases)
        assert int(element.get("failures")) == sum(c.find("failure") is not None for c in cases)
        assert int(element.get("skipped")) == sum(c.find("skipped") is not None for c in cases)
    for case in cases:
        assert case.get("classname") and case.get("name")
    return suite


def test_junit_shape_failures_match_the_exit_code(capsys) -> None:
    code, out, _ = run(capsys, "check", "--format", "junit", "--fail-on", "warning", "--ignore", "EO-SEC1: no verification", NLB3)
    assert code == 1
    suite = _junit(out)
    failed = [c for c in suite.findall("testcase") if c.find("failure") is not None]
    assert failed and all(c.get("classname") == "EO-NLB3" for c in failed)
    assert "fix: " in failed[0].find("failure").text
    skipped = [c.get("classname") for c in suite.findall("testcase") if c.find("skipped") is not None]
    assert skipped == ["EO-SEC1"]
    code, out, _ = run(capsys, "check", "--format", "junit", "--fail-on", "warning", "--ignore", "EO-NLB3: on purpose", NLB3)
    suite = _junit(out)
    assert code == 0 and int(suite.get("failures")) == 0
    acked = [c for c in suite.findall("testcase") if c.get("classname") == "EO-NLB3"]
    assert acked and all(c.find("skipped").get("message").startswith("acknowledged: on purpose (ignored (--ignore") for c in acked)


def test_junit_escapes_what_a_template_controls() -> None:
    from edge_origin.core.findings import Finding, Severity
    from edge_origin.review.junit import format_junit

    bad = Finding(rule="EO-DNS1", severity=Severity.ERROR, message='a <b> & "c" \x00\x1b]', fix="f",
                  template="t.json", stack="S<", resource="R&")
    suite = _junit(format_junit([bad]))
    (case,) = [c for c in suite.findall("testcase") if c.find("failure") is not None]
    assert case.find("failure").get("message") == 'a <b> & "c" \\x00\\x1b]'
