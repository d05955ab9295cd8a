"""The constructs page (docs/constructs.md) matches the code: every prop with its real default; and
the README walk-through's "Use a construct from your stack" example runs verbatim."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CONSTRUCTS_PAGE = ROOT / "docs" / "constructs.md"


def default_text(default: Any) -> str:
    """How the props tables write a signature default."""
    import aws_cdk as cdk

    if default is inspect.Parameter.empty:
        return "required"
    if default is None:
        return "none"
    if isinstance(default, cdk.Duration):
        return default.to_human_string().replace(" seconds", " s").replace(" second", " s")
    if isinstance(default, bool):
        return str(default)
    if isinstance(default, (int, float)):
        return str(default)
    if isinstance(default, str):
        return f"`{default}`"
    from edge_origin.core.origin_verification import OriginVerification

    if isinstance(default, OriginVerification):
        return f"on: `{default.header_name}` from a new secret"
    from edge_origin.cdk.watch import WatchOptions

    if isinstance(default, WatchOptions):
        return "on: `WatchOptions()`" if default == WatchOptions() else repr(default)
    name = getattr(default, "name", None)  # enums: RemovalPolicy.RETAIN, PriceClass.PRICE_CLASS_ALL
    return f"`{name}`" if name else repr(default)


def _table(text: str, construct: str) -> dict[str, str]:
    match = re.search(rf"#### `{construct}`\n\n\| prop \|.*?\n\|---.*?\n((?:\|.*\n)+)", text)
    assert match, f"docs/constructs.md has no props table for {construct}"
    rows = {}
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1]
    return rows


@pytest.mark.parametrize(
    "construct",
    ["GrpcEdgeToOrigin", "InternalGrpcOrigin", "OriginFleet", "MultivalueOriginRecords", "GrpcEdgeDistribution",
     "TargetGroupBindings", "OriginWatch"],
)
def test_props_table_lists_every_prop_with_its_default(construct: str) -> None:
    import edge_origin

    klass = getattr(edge_origin, construct)
    params = {
        p.name: default_text(p.default)
        for p in inspect.signature(klass.__init__).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }
    rows = _table(CONSTRUCTS_PAGE.read_text(encoding="utf-8"), construct)
    assert set(rows) == set(params), "docs/constructs.md props table and the signature differ"
    for prop, default in params.items():
        if default == "none":  # None stands for a computed default: the table says which
            assert rows[prop] and rows[prop] != "required", prop
        else:
            assert rows[prop] == default, f"{prop}: docs/constructs.md says {rows[prop]!r}, the code {default!r}"


def test_use_it_from_your_stack_runs_verbatim(tmp_path: Path) -> None:
    import aws_cdk as cdk

    section = README.read_text(encoding="utf-8").split("### 1. Use a construct from your stack", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "no python example in the README's 'Use a construct from your stack'"
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    source = blocks[0].replace("app.synth()", "assembly = app.synth()")
    exec(compile(source, "README.md", "exec"), namespace)  # noqa: S102 - the README's own example
    assembly = namespace["assembly"]
    assert isinstance(assembly, cdk.cx_api.CloudAssembly)
    template = assembly.stacks[0].template
    records = [r for r in template["Resources"].values() if r["Type"] == "AWS::Route53::RecordSet"]
    assert records and all(r["Properties"]["SetIdentifier"].startswith("origin-nlb") for r in records)
