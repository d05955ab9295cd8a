"""Issue 39, synth without the CLI: the pack's summary names the app's real output folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_nag_summary import _synth


def test_the_summary_names_the_apps_real_outdir(tmp_path: Path) -> None:
    out = tmp_path / "my-assembly"
    with pytest.raises(RuntimeError) as info:
        _synth(out, stage=True, acknowledge_at=None)
    report = json.loads((out / "validation-report.json").read_text())
    (pack,) = [r for r in report["pluginReports"] if r["pluginName"] == "EdgeOrigin"]
    (summary,) = [v for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-Summary"]
    assert f"listed under its resource in {out / 'validation-report.json'}" in summary["description"]
    assert str(out / "validation-report.json") in str(info.value)
