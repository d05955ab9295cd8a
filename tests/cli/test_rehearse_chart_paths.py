"""`rehearse --chart` into a folder that cannot be written: refused before the run, one line,
exit 2 (permission bits say nothing for root or a pseudo filesystem: the check writes for real)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.cli.common import UsageError
from edge_origin.cli.rehearse import check_chart_path

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "tests" / "snapshots" / "TelemetryIngest.template.json"
UNWRITABLE = [d for d in ("/proc", "/proc/self", "/proc/self/fd", "/sys", "/sys/kernel", "/sys/fs") if os.path.isdir(d)]


@pytest.mark.skipif(not UNWRITABLE, reason="no /proc or /sys here")
@settings(database=None, max_examples=30, deadline=None)
@given(folder=st.sampled_from(UNWRITABLE or ["/"]), stem=st.text("abcxyz-_0123456789", min_size=1, max_size=20),
       suffix=st.sampled_from([".png", ".svg", ".pdf"]))
def test_folders_that_cannot_be_written_are_refused(folder: str, stem: str, suffix: str) -> None:
    path = f"{folder}/{stem}{suffix}"
    with pytest.raises(UsageError, match=r"^--chart .*(cannot be written|not writable|does not exist)"):
        check_chart_path(path)
    assert not os.path.exists(path)


def test_writable_folder_passes_and_leaves_nothing(tmp_path: Path) -> None:
    assert check_chart_path(str(tmp_path / "chart.png")) == tmp_path / "chart.png"
    assert list(tmp_path.iterdir()) == []


def test_existing_chart_is_not_truncated_by_the_check(tmp_path: Path) -> None:
    chart = tmp_path / "chart.svg"
    chart.write_text("<svg/>")
    check_chart_path(str(chart))
    assert chart.read_text() == "<svg/>"


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="no /proc")
def test_cli_refuses_before_the_run() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "edge_origin.cli", "rehearse", str(SNAPSHOT), "--name", "origin.telemetry.example.com",
         "--model", "--chart", "/proc/connections.png"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "constructs")}, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""  # no run happened, nothing printed
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--chart" in lines[0] and "cannot be written" in lines[0], proc.stderr
