"""Which property changes replace a resource: from the CloudFormation resource schemas cfn-lint ships.

``replacing_pointers(type)`` -> the JSON pointers (``/properties/Name``...) whose change makes
CloudFormation create a new resource: the schema's ``createOnlyProperties`` plus the writable
parts of its ``primaryIdentifier`` (a new identity is a new resource: a record set's name, type
and set identifier). None when cfn-lint has no schema for the type (then a change "may replace").

The schemas are read from cfn-lint's bundled data files (``cfnlint/data/schemas``), located without
importing cfn-lint (its import costs ~0.8 s, more than a whole diff of 10k resources); when that
layout is not found, ``cfnlint.schema.PROVIDER_SCHEMA_MANAGER.get_resource_schema`` is asked.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

DEFAULT_REGION = "us-east-1"


@dataclass(frozen=True)
class ReplacementRules:
    """What a resource type's schema says about replacement."""

    type: str
    create_only: tuple[str, ...]
    identifier: tuple[str, ...]
    conditional: tuple[str, ...]

    @property
    def replacing(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.create_only + self.identifier))


@lru_cache(maxsize=1)
def _bundled_dir() -> Path | None:
    spec = importlib.util.find_spec("cfnlint")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / "data" / "schemas"
    return root if (root / "providers").is_dir() and (root / "resources").is_dir() else None


@lru_cache(maxsize=8)
def _provider_index(region: str) -> dict[str, str] | None:
    root = _bundled_dir()
    if root is None:
        return None
    path = root / "providers" / f"{region.replace('_', '-')}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _schema_from_files(region: str, type_name: str) -> dict[str, Any] | None | bool:
    """The schema dict; None if the type is unknown; False if the files cannot answer."""
    index = _provider_index(region)
    root = _bundled_dir()
    if index is None or root is None:
        return False
    digest = index.get(type_name)
    if not isinstance(digest, str):
        return None
    try:
        data = json.loads((root / "resources" / f"{digest}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return data if isinstance(data, dict) else False


def _schema_from_cfn_lint(region: str, type_name: str) -> dict[str, Any] | None:
    from cfnlint.schema import PROVIDER_SCHEMA_MANAGER
    from cfnlint.schema._exceptions import ResourceNotFoundError

    try:
        return dict(PROVIDER_SCHEMA_MANAGER.get_resource_schema(region, type_name).schema)
    except ResourceNotFoundError:
        return None


@lru_cache(maxsize=512)
def resource_schema(type_name: str, region: str = DEFAULT_REGION) -> dict[str, Any] | None:
    """cfn-lint's schema of ``type_name`` in ``region`` (None when it has none: custom resources...)."""
    if not type_name.startswith("AWS::"):
        return None
    found = _schema_from_files(region, type_name)
    if found is False:
        return _schema_from_cfn_lint(region, type_name)
    return found  # type: ignore[return-value]


@lru_cache(maxsize=512)
def replacement_rules(type_name: str, region: str = DEFAULT_REGION) -> ReplacementRules | None:
    """The replacing pointers of a type, or None when no schema decides."""
    schema = resource_schema(type_name, region)
    if schema is None:
        return None
    read_only = set(_strings(schema.get("readOnlyProperties")))
    return ReplacementRules(
        type=type_name,
        create_only=_strings(schema.get("createOnlyProperties")),
        identifier=tuple(p for p in _strings(schema.get("primaryIdentifier")) if p not in read_only),
        conditional=_strings(schema.get("conditionalCreateOnlyProperties")),
    )


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()
