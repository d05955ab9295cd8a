"""CloudFormation YAML: PyYAML's safe loader (libyaml when present) with the short-form tags.

``!Ref x`` -> ``{"Ref": "x"}``, ``!Condition c`` -> ``{"Condition": "c"}``, every other ``!Name``
-> ``{"Fn::Name": value}`` (scalar, sequence or mapping), and ``!GetAtt a.b`` -> ``{"Fn::GetAtt":
["a", "b"]}`` (split at the first dot, as CloudFormation does). Like cfn-lint's decoder: duplicate
and null keys are errors; timestamps stay strings (``2010-09-09``); a document whose aliases
expand to more than ``MAX_EXPANDED_NODES`` nodes, or to more characters than ``--max-eval-chars``,
is refused (alias amplification). Importing
this module costs PyYAML only (cfn-lint's decoder imports all of cfn-lint: ~0.35 s).
"""

from __future__ import annotations

from typing import Any

import yaml

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Largest alias-expanded size accepted (cfn-lint's bound is 250,000; ours matches it).
MAX_EXPANDED_NODES = 250_000
UNCONVERTED = ("Ref", "Condition")


class YamlTemplateError(ValueError):
    """A YAML document that is not a template CloudFormation would read (one line)."""


def _line(node: yaml.Node) -> str:
    return f"line {node.start_mark.line + 1}"


class CfnLoader(_Base):  # type: ignore[misc,valid-type]
    """Safe loader plus CloudFormation's short-form intrinsic tags."""


def _construct_mapping(loader: CfnLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key is None:
            raise YamlTemplateError(f"null key ({_line(key_node)})")
        if isinstance(key, (list, dict)):
            raise YamlTemplateError(f"a mapping key must be a scalar ({_line(key_node)})")
        key = key if isinstance(key, str) else str(key).lower() if isinstance(key, bool) else str(key)
        if key in out:
            raise YamlTemplateError(f"duplicate key {key!r} ({_line(key_node)})")
        out[key] = loader.construct_object(value_node, deep=True)
    return out


def _construct_timestamp(loader: CfnLoader, node: yaml.ScalarNode) -> str:
    return str(loader.construct_scalar(node))


def _short_form(loader: CfnLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = suffix if suffix in UNCONVERTED else f"Fn::{suffix}"
    if name == "Fn::GetAtt" and isinstance(node, yaml.ScalarNode):
        text = str(loader.construct_scalar(node))
        return {name: text.split(".", 1)}
    if isinstance(node, yaml.ScalarNode):
        return {name: loader.construct_scalar(node)}
    if isinstance(node, yaml.SequenceNode):
        return {name: loader.construct_sequence(node, deep=True)}
    return {name: _construct_mapping(loader, node)}


CfnLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
CfnLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)
CfnLoader.add_multi_constructor("!", _short_form)


def _expanded_size(doc: Any) -> int:
    """Nodes of ``doc`` with aliases expanded, in O(distinct nodes) (memo by identity); refuses more
    than ``MAX_EXPANDED_NODES`` nodes or more characters of strings than ``--max-eval-chars``
    (40,000 aliases of one 100 KB string are 4 GB once anything reads them)."""
    from edge_origin.core.limits import current, raise_hint

    max_chars = current().eval_chars
    memo: dict[int, tuple[int, int]] = {}  # id -> (nodes, characters); (-1, -1) while in progress
    stack: list[tuple[Any, bool]] = [(doc, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        nid = id(node)
        if nid in memo and not done:
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        if not done:
            memo[nid] = (-1, -1)  # in progress
            stack.append((node, True))
            stack.extend((c, False) for c in children if isinstance(c, (dict, list)) and id(c) not in memo)
            continue
        total, chars = 1, sum(len(k) for k in node) if isinstance(node, dict) else 0
        for child in children:
            if isinstance(child, (dict, list)):
                size, text = memo.get(id(child), (1, 0))
            else:
                size, text = 1, len(child) if isinstance(child, str) else 8
            if size < 0:
                raise YamlTemplateError("a recursive alias (a node that contains itself)")
            total += size
            chars += text
            if total > MAX_EXPANDED_NODES:
                raise YamlTemplateError(
                    f"aliases expand to more than {MAX_EXPANDED_NODES} nodes (alias amplification is not accepted)"
                )
            if chars > max_chars:
                raise YamlTemplateError(f"aliases expand to too many characters {raise_hint('eval_chars')}")
        memo[nid] = (total, chars)
    return memo.get(id(doc), (1, 0))[0]


def load_yaml_template(text: str) -> Any:
    """Parse one CloudFormation YAML document; YamlTemplateError (or yaml.YAMLError) when it is not one."""
    loader = CfnLoader(text)
    try:
        doc = loader.get_single_data()
    finally:
        loader.dispose()
    if "*" in text:  # aliases are only possible with '*'
        _expanded_size(doc)
    return doc
