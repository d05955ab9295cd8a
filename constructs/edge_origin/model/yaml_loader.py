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


def _expanded_size(doc: Any) -> None:
    """Refuse alias amplification: more than ``MAX_EXPANDED_NODES`` nodes or more string characters
    than ``--max-eval-chars`` once aliases are expanded (40,000 aliases of one 100 KB string are 4 GB
    once anything reads them), or a node that holds itself: counted once per distinct node by the
    one bound every data file shares (:func:`edge_origin.core.files.check_expansion`)."""
    from edge_origin.core.files import InputFileError, check_expansion

    try:
        check_expansion(doc, "", MAX_EXPANDED_NODES)
    except InputFileError as exc:
        raise YamlTemplateError(str(exc).removeprefix(": ")) from None


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
