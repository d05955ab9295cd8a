"""`edge-origin check` (what the pre-commit hooks run, installed without dependencies) imports no
CDK, cdk-nag, boto3 or cfn-lint for plain JSON/YAML templates."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("aws_cdk", "jsii", "constructs", "cdk_nag", "boto3", "botocore", "cfnlint", "samtranslator")
PROBE = """
import sys
from edge_origin.cli import main
code = main(sys.argv[1:])
print("MODULES=" + ",".join(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_check_imports_no_heavy_package(tmp_path: Path) -> None:
    yaml_template = tmp_path / "Records.template.yaml"
    yaml_template.write_text("Resources:\n  Zone:\n    Type: AWS::Route53::HostedZone\n    Properties: {Name: example.com}\n")
    args = ["check", str(ROOT / "tests" / "snapshots" / "TelemetryIngest.template.json"), str(yaml_template),
            "--format", "json"]
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], env={**os.environ, "PYTHONPATH": str(ROOT / "constructs")},
                          capture_output=True, text=True, timeout=120)
    body, _, modules = proc.stdout.rpartition("MODULES=")
    doc = json.loads(body)
    assert (doc["findings"], doc["acknowledged"], doc["summary"]["failed"]) == ([], [], 0), proc.stderr
    loaded = set(modules.strip().split(","))
    assert "edge_origin" in loaded and "yaml" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_language_extensions_without_cfn_lint_is_one_line(tmp_path: Path) -> None:
    """The hooks' checker-only environment has no cfn-lint: such a template names what it needs."""
    template = tmp_path / "Lang.template.yaml"
    template.write_text("Transform: AWS::LanguageExtensions\nResources:\n  Zone:\n    Type: AWS::Route53::HostedZone\n"
                        "    Properties: {Name: example.com}\n")
    probe = "import sys\nsys.modules['cfnlint'] = None\nfrom edge_origin.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    proc = subprocess.run([sys.executable, "-c", probe, "check", str(template)],
                          env={**os.environ, "PYTHONPATH": str(ROOT / "constructs")}, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Lang.template.yaml" in lines[0] and "needs cfn-lint" in lines[0], proc.stderr
