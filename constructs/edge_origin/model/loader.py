"""Reading templates from files and cloud assemblies (cdk.out) into plain dicts.

Rules: a file is JSON when it parses as JSON, otherwise YAML with CloudFormation short-form
tags (decoded by cfn-lint's maintained decoder). A directory must be a cloud assembly: it has
a ``manifest.json`` naming its stack templates (nested assemblies of CDK Stages included).
Files larger than ``MAX_TEMPLATE_BYTES`` are rejected before parsing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edge_origin.model.values import ModelError

#: Largest template file accepted (CloudFormation itself accepts 1 MB from S3; CDK apps stay
#: well below). Larger files are rejected before reading, so a 50 MB file costs nothing.
MAX_TEMPLATE_BYTES = 16 * 1024 * 1024
#: Deepest nesting accepted anywhere in a template (CloudFormation templates rarely pass 15).
MAX_DEPTH = 100
TEMPLATE_SUFFIXES = (".json", ".yaml", ".yml", ".template")


@dataclass(frozen=True)
class LoadedTemplate:
    """One template as read: its stack name, the file it came from, and the parsed dict."""

    stack: str
    template: str
    body: dict[str, Any]


def _stack_name_from_file(path: Path) -> str:
    name = path.name
    for suffix in (".template.json", ".template.yaml", ".template.yml", ".json", ".yaml", ".yml", ".template"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or name
    return path.stem


def _check_depth(value: Any, where: str, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise ModelError(f"{where}: document nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        for item in value.values():
            if isinstance(item, (dict, list)):
                _check_depth(item, where, depth + 1)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                _check_depth(item, where, depth + 1)


def _to_plain(value: Any) -> Any:
    """cfn-lint's YAML nodes are dict/list/str subclasses; make them plain (fast, picklable)."""
    if isinstance(value, dict):
        return {str(k): _to_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def parse_template_text(text: str, where: str) -> dict[str, Any]:
    """Parse one template's text (JSON, else YAML with short-form tags) and check its shape."""
    body: Any
    try:
        body = json.loads(text)
    except RecursionError as exc:
        raise ModelError(f"{where}: document nested too deeply to parse") from exc
    except ValueError:
        body = _parse_yaml(text, where)
    check_template_shape(body, where)
    return body


def check_template_shape(body: Any, where: str) -> None:
    """Raise ModelError unless ``body`` looks like a template: a Resources mapping of typed resources."""
    if not isinstance(body, dict):
        raise ModelError(f"{where}: not a CloudFormation template (top level is not a mapping)")
    resources = body.get("Resources")
    if not isinstance(resources, dict) or not resources:
        raise ModelError(f"{where}: not a CloudFormation template (no Resources mapping)")
    try:
        _check_depth(body, where)
    except RecursionError as exc:
        raise ModelError(f"{where}: document nested deeper than {MAX_DEPTH} levels") from exc
    for logical_id, resource in resources.items():
        if not isinstance(resource, dict) or not isinstance(resource.get("Type"), str):
            raise ModelError(f"{where}: resource {logical_id}: no Type (each resource needs a Type string)")
        props = resource.get("Properties", {})
        if props is not None and not isinstance(props, dict):
            raise ModelError(f"{where}: resource {logical_id}: Properties is not a mapping")


def _parse_yaml(text: str, where: str) -> Any:
    import yaml
    from cfnlint.decode import cfn_yaml

    try:
        return _to_plain(cfn_yaml.loads(text))
    except RecursionError as exc:
        raise ModelError(f"{where}: document nested too deeply to parse") from exc
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"{where}: neither JSON nor YAML ({first})") from exc
    except Exception as exc:  # cfn-lint raises its own decode errors (duplicate keys, bad tags)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"{where}: cannot decode template ({first})") from exc


def read_template_file(path: Path, stack: str | None = None) -> LoadedTemplate:
    """Read and parse one template file, enforcing the size limit first."""
    where = str(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError as exc:
        raise ModelError(f"{where}: no such file") from exc
    except OSError as exc:
        raise ModelError(f"{where}: cannot read ({exc.strerror})") from exc
    if size > MAX_TEMPLATE_BYTES:
        raise ModelError(
            f"{where}: file is {size // (1024 * 1024)} MiB, larger than the {MAX_TEMPLATE_BYTES // (1024 * 1024)} MiB limit"
        )
    if size == 0:
        raise ModelError(f"{where}: empty file")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"{where}: cannot read ({exc.strerror})") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ModelError(f"{where}: not UTF-8 text (byte {exc.start})") from exc
    body = parse_template_text(text, where)
    return LoadedTemplate(stack or _stack_name_from_file(path), where, body)


def _read_assembly(directory: Path) -> list[LoadedTemplate]:
    manifest_path = directory / "manifest.json"
    if not manifest_path.is_file():
        if not any(directory.iterdir()):
            raise ModelError(f"{directory}: empty directory (expected a cdk.out with manifest.json)")
        raise ModelError(f"{directory}: no manifest.json: not a cdk.out (pass template files instead)")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"{manifest_path}: unreadable cloud assembly manifest ({exc})") from exc
    artifacts = manifest.get("artifacts") if isinstance(manifest, dict) else None
    if not isinstance(artifacts, dict):
        raise ModelError(f"{manifest_path}: manifest has no artifacts mapping")
    loaded: list[LoadedTemplate] = []
    for artifact_id in sorted(artifacts):
        artifact = artifacts[artifact_id]
        if not isinstance(artifact, dict):
            continue
        props = artifact.get("properties") or {}
        kind = artifact.get("type")
        if kind == "aws:cloudformation:stack":
            template_file = props.get("templateFile")
            if not isinstance(template_file, str):
                raise ModelError(f"{manifest_path}: stack artifact {artifact_id} has no templateFile")
            stack = props.get("stackName") or artifact.get("displayName") or artifact_id
            stack = str(stack).split("/")[-1] if "stackName" not in props else str(stack)
            loaded.append(read_template_file(directory / template_file, stack=stack))
        elif kind == "cdk:cloud-assembly" and isinstance(props.get("directoryName"), str):
            loaded.extend(_read_assembly(directory / props["directoryName"]))
    if not loaded:
        raise ModelError(f"{manifest_path}: the cloud assembly has no stack templates")
    return loaded


def read_paths(paths: Sequence[str | Path]) -> list[LoadedTemplate]:
    """Read every given file or cloud-assembly directory; the same file given twice counts once."""
    if not paths:
        raise ModelError("no templates given (pass template files or a cdk.out directory)")
    loaded: list[LoadedTemplate] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            items = _read_assembly(path)
        elif path.exists() or path.is_symlink():
            items = [read_template_file(path)]
        else:
            raise ModelError(f"{path}: no such file or directory")
        for item in items:
            key = Path(item.template).resolve()
            if key in seen:
                continue
            seen.add(key)
            loaded.append(item)
    names: dict[str, str] = {}
    for item in loaded:
        if item.stack in names:
            raise ModelError(
                f"{item.template}: stack name {item.stack!r} also comes from {names[item.stack]} (rename one file)"
            )
        names[item.stack] = item.template
    return loaded
