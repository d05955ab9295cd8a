"""Hostile inputs of a few KB to 1 MiB, as a pull request's author could write them (issue 50).

Each builder returns ``(file name, text)``; the shapes are the ones that once cost exponential time,
gigabytes or a hang: nested ``Fn::Sub`` variables, ``Fn::Join`` of many ``Ref``s to a large
parameter ``Default``, YAML aliases of one large string, ``Fn::FindInMap`` chains, nested
``Fn::ForEach``, one long JSON line, a duplicate key after many keys, a profile alias bomb.
Shared by ``tests/*/test_hardening_budget*.py`` and ``benchmarks/bench_hostile.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

MIB = 1024 * 1024
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "templates" / "rules"
RECORD = {"Type": "AWS::Route53::RecordSet", "Properties": {"HostedZoneName": "example.com.", "Type": "A", "TTL": "60",
                                                           "ResourceRecords": ["192.0.2.1"]}}


def _template(name_value: object, *, parameters: dict | None = None, mappings: dict | None = None) -> dict:
    record = json.loads(json.dumps(RECORD))
    record["Properties"]["Name"] = name_value
    body: dict = {"Resources": {"Rec": record}}
    if parameters:
        body["Parameters"] = parameters
    if mappings:
        body["Mappings"] = mappings
    return body


def sub_nested(depth: int = 8, uses: int = 10) -> tuple[str, str]:
    """``Fn::Sub`` whose variable is a ``Fn::Sub`` ... ``depth`` deep, each using it ``uses`` times."""
    value: object = "o"
    for _ in range(depth):
        value = {"Fn::Sub": ["${A}" * uses, {"A": value}]}
    return "sub.template.json", json.dumps(_template(value))


def join_of_refs(refs: int = 30_000, default_bytes: int = 100_000) -> tuple[str, str]:
    """A ``Fn::Join`` of ``refs`` ``Ref``s to a parameter whose ``Default`` is ``default_bytes`` long."""
    params = {"P": {"Type": "String", "Default": "a" * default_bytes}}
    return "join.template.json", json.dumps(_template({"Fn::Join": ["", [{"Ref": "P"}] * refs]}, parameters=params))


def yaml_alias_join(aliases: int = 40_000, string_bytes: int = 100_000) -> tuple[str, str]:
    """YAML ``!Join`` of ``aliases`` aliases of one ``string_bytes`` string."""
    refs = ", ".join(["*s"] * aliases)
    text = (
        "Resources:\n  Rec:\n    Type: AWS::Route53::RecordSet\n    Properties:\n      HostedZoneName: example.com.\n"
        f"      Type: A\n      TTL: '60'\n      ResourceRecords: [192.0.2.1]\n      Comment: &s {'a' * string_bytes}\n"
        f"      Name: !Join ['', [{refs}]]\n"
    )
    return "alias.template.yaml", text


def find_in_map_chain(links: int = 60) -> tuple[str, str]:
    """Mapping values that are ``Fn::FindInMap``s of the next two (a chain CloudFormation refuses)."""
    entries = {f"k{i}": {"v": [{"Fn::FindInMap": ["M", f"k{i + 1}", "v"]}] * 2} for i in range(links)}
    entries[f"k{links}"] = {"v": "o.example.com"}
    return "map.template.json", json.dumps(_template({"Fn::FindInMap": ["M", "k0", "v"]}, mappings={"M": entries}))


def for_each_nested(levels: int = 4, items: int = 40) -> tuple[str, str]:
    """``levels`` nested ``Fn::ForEach`` loops of ``items`` each (``items ** levels`` resources)."""
    fragment: dict = {"Rec${L0}" + "".join(f"x${{L{i}}}" for i in range(1, levels)): RECORD}
    for level in reversed(range(levels)):
        fragment = {f"Fn::ForEach::Loop{level}": [f"L{level}", [f"i{n}" for n in range(items)], fragment]}
    body = {"Transform": "AWS::LanguageExtensions", "Resources": fragment}
    return "foreach.template.json", json.dumps(body)


def long_json_line(spaces: int = 300_000) -> tuple[str, str]:
    """A template with findings whose first line is ``[`` + spaces (the SARIF/GitHub line lookup of
    each finding's logical id once took > 60 s on it)."""
    body = json.loads((FIXTURES / "eo-dns1-fire.json").read_text(encoding="utf-8"))
    assert "Metadata" not in body
    text = json.dumps(body, indent=1)
    return "line.template.json", '{"Metadata": {"Pad":\n[' + " " * spaces + "]},\n" + text[1:]


def duplicate_key_late(keys: int = 300_000) -> tuple[str, str]:
    """A JSON object with ``keys`` keys, one per line, and then one of them again."""
    lines = ",\n".join(f'"k{i}": 1' for i in range(keys))
    return "dup.template.json", '{"Resources": {"R": {"Type": "X"}},\n"Metadata": {\n' + lines + ',\n"k0": 2}}'


def profile_alias_bomb(levels: int = 9) -> tuple[str, str]:
    """A connection profile of a few hundred bytes whose aliases expand ~10**levels times."""
    lines = ['a0: &a0 ["xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"]']
    for i in range(1, levels):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    lines.append(f"edges: *a{levels - 1}")
    return "profile.yaml", "\n".join(lines) + "\n"


def deep_json(levels: int = 200_000) -> tuple[str, str]:
    """``[[[[...]]]]``: a document nested ``levels`` deep."""
    return "deep.json", "[" * levels + "]" * levels


TEMPLATE_CASES = {
    "sub-nested-8x10": sub_nested,
    "join-30k-refs-100k-default": join_of_refs,
    "yaml-40k-aliases-100k": yaml_alias_join,
    "findinmap-chain": find_in_map_chain,
    "foreach-4x40": for_each_nested,
    "json-line-300k-spaces": long_json_line,
    "duplicate-key-after-75k": lambda: duplicate_key_late(75_000),
    "duplicate-key-after-300k": duplicate_key_late,
    "deep-json": deep_json,
}
