"""The golden template is what the CDK CLI compares: `cdk diff --template` of the snapshot against
a fresh synth of the reference app shows no differences (no `[+] Metadata`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_cdk_diff_of_the_snapshot_shows_no_differences(tmp_path: Path) -> None:
    cli = next((b / "node_modules" / ".bin" / "cdk" for b in (ROOT, Path("/work/main"))
                if (b / "node_modules" / ".bin" / "cdk").exists()), None)
    if cli is None:
        pytest.skip("CDK CLI not installed (npm ci)")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT / "constructs"), "CDK_VALIDATION": "false",
           "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20", "CDK_DISABLE_CLI_TELEMETRY": "true"}
    proc = subprocess.run(
        [str(cli), "diff", "TelemetryIngest", "--no-notices", "--template",
         "tests/snapshots/TelemetryIngest.template.json", "-o", str(tmp_path / "cdk.out")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "There were no differences" in output, output[-3000:]
    assert "Number of stacks with differences: 0" in output
