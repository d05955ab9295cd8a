"""A suppression's reason must show something (redteam): a reason made only of spaces, zero-width or
format characters, a BOM, Hangul fillers, variation selectors... reads as empty in every format, so it
is no reason: the suppression is not applied and is an EO-ACK1 error, in each of the five ways a
finding is set aside (``--ignore``, the YAML config, the pyproject config, template Metadata, CDK's
validation report). One visible character anywhere makes it a reason again."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.cli import main
from edge_origin.core.escape import _INVISIBLE, reason_text
from edge_origin.review.suppressions import SetAside, Settings

ROOT = Path(__file__).resolve().parents[2]
DNS4 = ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-dns4-fire.json"

#: every character that shows nothing: the invisible class of core.escape, and the other spaces
BLANK_CHARS = sorted({chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF and _INVISIBLE.fullmatch(chr(c))}
                     | {" ", "\t", "\n", "\u3000", "\u2002"})
blank = st.text(alphabet=st.sampled_from(BLANK_CHARS), max_size=12)
visible = st.characters(categories=("L", "N", "P", "S")).filter(lambda c: not _INVISIBLE.match(c))


@settings(max_examples=200, deadline=None)
@given(blank)
def test_a_reason_of_invisible_characters_is_none(text: str) -> None:
    assert reason_text(text) == ""
    assert SetAside("ignore", ("EO-DNS4",), text, "--ignore").reason == ""
    assert not Settings.of([SetAside("ignore", ("EO-DNS4",), text, "--ignore")]).ignore


@settings(max_examples=200, deadline=None)
@given(blank, visible, blank)
def test_one_visible_character_makes_a_reason(before: str, shown: str, after: str) -> None:
    assert reason_text(before + shown + after) != ""


def _cdk_out(tmp: Path, reason: str) -> list[str]:
    out = tmp / "cdk.out"
    out.mkdir()
    body = json.loads(DNS4.read_text())
    body["Resources"]["RecordA"]["Metadata"] = {"aws:cdk:path": "Origins/RecordA/Resource"}
    (out / "Origins.template.json").write_text(json.dumps(body))
    (out / "manifest.json").write_text(json.dumps({"artifacts": {"Origins": {
        "type": "aws:cloudformation:stack", "properties": {"templateFile": "Origins.template.json"}}}}))
    (out / "validation-report.json").write_text(json.dumps({"pluginReports": [{"pluginName": "EdgeOrigin", "suppressedViolations": [{
        "ruleName": "EdgeOrigin-EO-DNS4", "reason": reason, "violatingConstructs": [{"constructPath": "Origins/RecordA/Resource"}]}]}]}))
    return [str(out), "--config", "none"]


def _metadata(tmp: Path, reason: str) -> list[str]:
    body = json.loads(DNS4.read_text())
    body["Resources"]["RecordA"]["Metadata"] = {"edge-origin:acknowledge": [{"id": "EO-DNS4", "reason": reason}]}
    (tmp / "t.json").write_text(json.dumps(body))
    return [str(tmp / "t.json"), "--config", "none"]


def _yaml(tmp: Path, reason: str) -> list[str]:
    import yaml

    (tmp / "c.yaml").write_text(yaml.safe_dump({"ignore": [{"id": "EO-DNS4", "reason": reason}]}), encoding="utf-8")
    return [str(DNS4), "--config", str(tmp / "c.yaml")]


def _toml(tmp: Path, reason: str) -> list[str]:
    escaped = "".join(f"\\U{ord(c):08X}" for c in reason)  # a TOML basic string: every character as an escape
    (tmp / "pyproject.toml").write_text(f'[tool.edge-origin]\nignore = ["EO-DNS4: {escaped}"]\n', encoding="utf-8")
    return [str(DNS4), "--config", str(tmp / "pyproject.toml")]


def _flag(tmp: Path, reason: str) -> list[str]:
    return [str(DNS4), "--config", "none", "--ignore", f"EO-DNS4: {reason}"]


FORMS = {"flag": _flag, "yaml": _yaml, "toml": _toml, "metadata": _metadata, "cdk": _cdk_out}


def _check(capsys: pytest.CaptureFixture[str], tmp: Path, how: str, reason: str) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory(dir=tmp) as sub:
        argv = FORMS[how](Path(sub), reason)
        with contextlib.suppress(SystemExit):
            main(["check", "--format", "json", "--fail-on", "warning", *argv])
        return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("how", list(FORMS))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reason=blank.filter(lambda r: "\x00" not in r and "\r" not in r))
def test_every_way_refuses_a_reason_that_shows_nothing(capsys, tmp_path: Path, how: str, reason: str) -> None:
    doc = _check(capsys, tmp_path, how, reason)
    rules = [f["rule"] for f in doc["findings"]]
    assert "EO-ACK1" in rules and "EO-DNS4" in rules, (how, reason)  # refused, and the finding stays open
    assert doc["acknowledged"] == []


@pytest.mark.parametrize("how", list(FORMS))
def test_every_way_applies_a_reason_with_something_to_read(capsys, tmp_path: Path, how: str) -> None:
    doc = _check(capsys, tmp_path, how, "\u200b TTL kept on purpose \u200b")
    assert "EO-ACK1" not in [f["rule"] for f in doc["findings"]]
    assert [f["rule"] for f in doc["acknowledged"]] == ["EO-DNS4"]
