"""Sides in different file formats: a JSON base and a YAML head of one stack compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from edge_origin.cli import main

PAIRS = Path(__file__).resolve().parents[1] / "fixtures" / "diff"
BASE = PAIRS / "ttl-lowered" / "base" / "Edge.template.json"
HEAD = PAIRS / "ttl-lowered" / "head" / "Edge.template.json"


def test_json_base_and_yaml_head_of_one_stack_compare(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    head = tmp_path / "Edge.template.yaml"
    head.write_text(yaml.safe_dump(json.loads(HEAD.read_text())))
    assert main(["diff", "--base", str(BASE), "--head", str(head)]) == 0
    assert "ttl 60 -> 30" in capsys.readouterr().out
