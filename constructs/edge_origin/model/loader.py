"""Reading templates from files, folders and cloud assemblies (cdk.out) into plain dicts.

Rules
    A file is JSON when it parses as JSON, otherwise YAML with CloudFormation short-form tags
    (:mod:`edge_origin.model.yaml_loader`). Only regular files are read, at most
    ``MAX_TEMPLATE_BYTES`` each (a FIFO, a device or a directory is named as such). Numbers must
    be finite and fit in 64 bits (``NaN``, ``Infinity``, ``1e400`` are bad input); documents may
    nest at most ``MAX_DEPTH`` levels.

    A directory with a ``manifest.json`` is a cloud assembly: the manifest names the stack
    templates (nested assemblies of CDK Stages followed, never outside the assembly and never
    in a cycle). Any other directory is walked recursively for template files
    (``TEMPLATE_SUFFIXES``; hidden folders and ``node_modules`` skipped; a sub-folder with a
    ``manifest.json`` is read as an assembly); JSON/YAML files there that are no templates (no
    ``Resources`` and no ``AWSTemplateFormatVersion``) are skipped.

Stack names
    A file given on its own keeps its name minus the template extension
    (``Origins.template.json`` -> ``Origins``); files found in a folder are named by their path
    relative to that folder (``api/template.yaml`` -> ``api/template``); in a cloud assembly the
    artifact's stack name. Where names still collide, parent folders are prepended until they
    are unique.

Bad input
    ``read_paths`` reads what it can: each file (or assembly) that cannot be read becomes a
    ``(path, message)`` entry of ``ReadResult.unreadable``; only when nothing at all could be
    read does it raise ``ModelError``. Messages are one line: ``<file>: [<logical id>: ]<problem>``.
"""

from __future__ import annotations

import gc
import json
import math
import os
import stat
from collections.abc import Sequence
from operator import itemgetter
from pathlib import Path

from edge_origin.core.escape import reason_text, shorten
from edge_origin.core.fast_dataclass import dataclass, field, replace
from edge_origin.core.fast_json import loads_exact
from edge_origin.core.files import (
    InputFileError,
    decode_text,
    describe_mode,
    expect_several_files,
    give_back_kept_memory,
    read_bytes_file,
    read_text_file,
)
from edge_origin.core.lazy_re import lazy
from edge_origin.model.assembly import (
    NESTED_STACK,
    UNKNOWN_ENVIRONMENT,
    Follower,
    ReadBudget,
    StackEnvironment,
    asset_files,
    environment_of,
)
from edge_origin.model.values import ModelError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

#: Largest template file accepted (CloudFormation itself accepts 1 MB from S3; CDK apps stay
#: well below). Larger files are rejected before reading, so a 50 MB file costs nothing.
MAX_TEMPLATE_BYTES = 16 * 1024 * 1024
#: Largest manifest.json / validation-report.json read from a cloud assembly.
MAX_ASSEMBLY_FILE_BYTES = 16 * 1024 * 1024
#: Deepest nesting accepted anywhere in a template (CloudFormation templates rarely pass 15).
MAX_DEPTH = 100
#: Numbers must fit CloudFormation's 64-bit integers.
MAX_INT = 2**63
#: Most template files read from one folder walk.
MAX_FOLDER_FILES = 5000
#: Deepest chain of nested cloud assemblies followed.
MAX_ASSEMBLY_NESTING = 20
TEMPLATE_SUFFIXES = (".template.json", ".template.yaml", ".template.yml", ".json", ".yaml", ".yml", ".template")
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", ".git", ".venv", "venv"})
#: CloudFormation quotas (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html):
#: "Resources: maximum number of resources that you can declare in your template: 500"; outputs: 200.
#: ``Fn::ForEach`` loops are counted before they are expanded, so four nested loops of 40 items
#: (2.56 M resources) are refused at once instead of being built.
FOR_EACH_CAPS = {"Resources": 500, "Outputs": 200, "Conditions": 500}
QUOTAS_PAGE = "CloudFormation quotas, cloudformation-limits.html"
SECTIONS_THAT_ARE_MAPPINGS = ("Parameters", "Mappings", "Conditions", "Outputs", "Metadata", "Rules")


def template_limit() -> int:
    """Largest template or assembly file read now: ``--max-file-mib`` (default ``MAX_TEMPLATE_BYTES``)."""
    from edge_origin.core.limits import current

    return current().file_bytes


@dataclass(frozen=True)
class LoadedTemplate:
    """One template as read: its stack name, the file it came from, and the parsed dict.

    ``environment``: the account and Region the stack deploys to (from a cloud assembly's
    manifest; unknown otherwise). ``parent``: for a nested stack, ``(parent stack, logical id of
    its AWS::CloudFormation::Stack resource)``; its stack name is then ``<parent>/<child>``.
    """

    stack: str
    template: str
    body: dict[str, Any]
    environment: StackEnvironment = UNKNOWN_ENVIRONMENT
    parent: tuple[str, str] | None = None
    #: The body is a tree, as ``json.loads`` makes it: no node is reachable twice (no YAML alias, no
    #: fragment a transform reused), so the resolver memoises only intrinsics (``StackResolver(tree=)``).
    tree: bool = False


@dataclass
class ReadResult:
    """What ``read_paths`` read: templates, files that could not be read, assemblies read."""

    templates: list[LoadedTemplate] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    assemblies: list[Path] = field(default_factory=list)


def strip_template_suffix(name: str) -> str:
    for suffix in TEMPLATE_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _stack_name_from_file(path: Path) -> str:
    return strip_template_suffix(path.name)


def _json_constant(name: str) -> Any:
    raise ModelError(f"{name} is not a number CloudFormation accepts (numbers must be finite)")


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ModelError(f"number {text[:30]} is out of range (numbers must be finite)")
    return value


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > 19:
        raise ModelError(f"integer {text[:30]}{'...' if len(text) > 30 else ''} is out of range (at most 64 bits)")
    return int(text)


class _DuplicateKey(ModelError):
    """A JSON object with a key twice (raised by the parse hook; the message is located later)."""


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook``: a dict, or _DuplicateKey when a key repeats (Python's
    json keeps the last silently; YAML templates refuse duplicates, and so do JSON ones)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _DuplicateKey("duplicate key")
    return out


_JSON_TOKEN = lazy(r'"(?:[^"\\]|\\.)*"|[{}\[\],]')


def _duplicate_key_message(text: str) -> str:
    """The first repeated key of a JSON text in document order, with its lines (one linear scan
    of strings and brackets; only on the error path)."""
    stack: list[dict[str, int] | None] = []  # an object's keys -> line, or None for an array
    expect_key = False
    line, counted = 1, 0  # the line at offset ``counted`` (newlines counted once, in order: linear)
    for token in _JSON_TOKEN.finditer(text):
        t = token.group()
        if t in "{[":
            stack.append({} if t == "{" else None)
            expect_key = t == "{"
        elif t in "}]":
            if stack:
                stack.pop()
            expect_key = False
        elif t == ",":
            expect_key = bool(stack) and stack[-1] is not None
        elif expect_key and stack and stack[-1] is not None:
            expect_key = False
            if "\\" in t:
                try:
                    key = json.loads(t)
                except ValueError:
                    continue
            else:
                key = t[1:-1]  # no escape: the text is the key (json.loads per key costs 10x more)
            line += text.count("\n", counted, token.start())
            counted = token.start()
            if key in stack[-1]:
                return f"duplicate key {shorten(key)!r} at line {line} (first at line {stack[-1][key]}): refused, as in YAML (a JSON parser keeps only one)"
            stack[-1][key] = line
    return "duplicate key in a JSON object: refused, as in YAML (a JSON parser keeps only one)"


def _check_values(body: Any, where: str, *, scalars: bool = True) -> None:
    """Depth, and (``scalars``) JSON types only, finite 64-bit numbers, string keys: iterative.

    JSON text needs only the depth walk: its keys are strings and the parse hooks already
    refused non-finite and oversized numbers.
    """
    if not scalars:
        _check_depth_outside_properties(body, where)
        return
    stack: list[tuple[Any, int]] = [(body, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth >= MAX_DEPTH:
                raise ModelError(f"{where}: document nested deeper than {MAX_DEPTH} levels")
            for key, item in value.items():
                if not isinstance(key, str):
                    raise ModelError(f"{where}: mapping key {key!r} is not a string")
                if isinstance(item, (dict, list)):
                    stack.append((item, depth + 1))
                elif not isinstance(item, str):
                    _check_scalar(item, where, key)
        elif isinstance(value, list):
            if depth >= MAX_DEPTH:
                raise ModelError(f"{where}: document nested deeper than {MAX_DEPTH} levels")
            for item in value:
                if isinstance(item, (dict, list)):
                    stack.append((item, depth + 1))
                elif not isinstance(item, str):
                    _check_scalar(item, where, "a list item")
        elif not isinstance(value, str):
            _check_scalar(value, where, "the document")


def _check_depth_outside_properties(body: Any, where: str) -> None:
    """The depth walk, but not into resources' Properties: the resolver walks those anyway and
    refuses nesting past MAX_DEPTH there (naming the resource), so they are not walked twice.
    ``body`` is a JSON tree (its containers exact dicts and lists)."""
    if not isinstance(body, dict) or not isinstance(body.get("Resources"), dict):
        _check_depth(body, where)
        return
    rest = {k: v for k, v in body.items() if k != "Resources"}
    _check_depth(rest, where)
    # every resource's other sections (Metadata, DependsOn...) at once: their containers sit at depth 3
    _check_levels([v for resource in body["Resources"].values() if isinstance(resource, dict)
                   for k, v in resource.items() if type(v) in _CONTAINERS and k != "Properties"], where, 3)


#: A JSON tree's containers, by exact type (what json and orjson make).
_CONTAINERS = frozenset({dict, list})


def _check_depth(body: Any, where: str) -> None:
    """Nesting of at most MAX_DEPTH levels in a JSON tree, level by level (containers only)."""
    _check_levels([body] if type(body) in _CONTAINERS else [], where, 0)


def _check_levels(level: list[Any], where: str, depth: int) -> None:
    """The depth walk from ``level`` (containers at ``depth``) down."""
    while level:
        if depth > MAX_DEPTH:
            raise ModelError(f"{where}: document nested deeper than {MAX_DEPTH} levels")
        # a level's children at once: a mapping's values, a list's items (the interpreter's own traversal)
        level = [item for item in gc.get_referents(*level) if type(item) in _CONTAINERS]
        depth += 1


def check_values(body: Any, where: str) -> None:
    """ModelError unless ``body`` holds only JSON values: finite 64-bit numbers, string keys,
    at most ``MAX_DEPTH`` levels (for templates built in memory)."""
    try:
        _check_values(body, where)
    except RecursionError:
        raise ModelError(f"{where}: document nested deeper than {MAX_DEPTH} levels") from None


def _check_scalar(value: Any, where: str, key: str) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -MAX_INT <= value < MAX_INT:
            raise ModelError(f"{where}: {key}: integer out of range (CloudFormation numbers fit 64 bits: at most {MAX_INT - 1})")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ModelError(f"{where}: {key}: {value} is not a number CloudFormation accepts (numbers must be finite, within 64-bit range)")
        return
    raise ModelError(f"{where}: {key}: a {type(value).__name__} value is not JSON (templates hold strings, numbers, booleans, lists, mappings)")


def parse_template_text(text: str, where: str) -> dict[str, Any]:
    """Parse one template's text (JSON, else YAML with short-form tags), expand the transforms
    a library can expand (:mod:`edge_origin.model.transforms`), and check its shape."""
    return parse_template(text, where)[0]


#: ``_parse_document``'s default: try the fast parse on the text itself.
_TRY_FAST = object()


def parse_template(text: str, where: str, exact: Any = _TRY_FAST) -> tuple[dict[str, Any], bool]:
    """``parse_template_text``, and whether the body is a tree (``LoadedTemplate.tree``): JSON text,
    no transform expanded. ``exact``: what the fast parse already made of the file's bytes (its tree, or
    None when it declined: then only the strict parse runs)."""
    body, from_json = _parse_document(text, where, exact)
    out = finish_template(body, text, where)
    return out, from_json and out is body


def finish_template(body: Any, text: str, where: str) -> dict[str, Any]:
    """Expand LanguageExtensions / SAM (lazily imported, only when declared) and check the shape."""
    if isinstance(body, dict) and body.get("Transform") is not None:
        from edge_origin.model import transforms

        if set(transforms.transform_names(body)) & transforms.EXPANDED:
            if transforms.LANGUAGE_EXTENSIONS in transforms.transform_names(body):
                _check_for_each_counts(body, where)
            body = transforms.expand(body, text, where)
            _check_values(body, where)
    body = _section_includes(body)
    check_template_shape(body, where)
    return body


#: Template sections an ``Fn::Transform`` (``AWS::Include`` or a macro) may add entries to.
_SECTIONS = ("Resources", "Parameters", "Mappings", "Conditions", "Outputs")


def _section_includes(body: Any) -> Any:
    """``body`` with each section-level ``Fn::Transform`` (``Resources: {Fn::Transform: {Name: AWS::Include,
    ...}}``, valid CloudFormation: the section gets entries at deploy time) taken out of the section and kept
    as a transform of the template: refs to what it adds are unknown, and EO-NJ1 says the template is judged
    as written. It was refused as bad input ("Fn::Transform: no Type")."""
    if not isinstance(body, dict) or not any(isinstance(body.get(k), dict) and "Fn::Transform" in body[k] for k in _SECTIONS):
        return body
    body = dict(body)
    declared = body.get("Transform")
    added = list(declared) if isinstance(declared, list) else [] if declared is None else [declared]
    for key in _SECTIONS:
        section = body.get(key)
        if isinstance(section, dict) and "Fn::Transform" in section:
            section = dict(section)
            added.append(section.pop("Fn::Transform"))
            body[key] = section
    body["Transform"] = added
    return body


def _check_for_each_counts(body: dict[str, Any], where: str) -> None:
    """ModelError when a section's ``Fn::ForEach`` loops would make more entries than CloudFormation
    allows a stack (``FOR_EACH_CAPS``); counted from the collections, nothing is expanded."""
    from edge_origin.model.intrinsics import StackResolver

    resolver = StackResolver("", where, body, lambda name: None)
    for section, cap in FOR_EACH_CAPS.items():
        entries = body.get(section)
        if isinstance(entries, dict):
            count = _for_each_count(entries, resolver, cap, 0)
            if count > cap:
                raise ModelError(
                    f"{where}: {section}: Fn::ForEach loops make more than {cap} entries "
                    f"(CloudFormation allows at most {cap} {section.lower()} a stack: {QUOTAS_PAGE})"
                )
    _check_expanded_nodes(body, resolver, where)


def _check_expanded_nodes(body: dict[str, Any], resolver: Any, where: str) -> None:
    """ModelError when the loops anywhere in ``body`` (inside Properties too) would build more
    values than the step budget (``--max-eval-steps``): each value counted once (a memo by identity),
    a loop's fragment weighed by its collection's length."""
    from edge_origin.core.limits import current, raise_hint

    cap = current().eval_steps
    memo: dict[int, int] = {}

    def weight(value: Any, depth: int) -> int:
        if not isinstance(value, (dict, list)) or depth > MAX_DEPTH:
            return 1
        if id(value) in memo:
            return memo[id(value)]
        memo[id(value)] = 1  # a cycle (YAML refuses those before) weighs one
        total = 1
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            if isinstance(key, str) and key.startswith("Fn::ForEach::") and isinstance(item, list) and len(item) == 3:
                try:
                    collection = resolver.resolve(item[1], key)
                except ModelError:
                    collection = None
                total += (len(collection) if isinstance(collection, list) else 1) * weight(item[2], depth + 1)
            else:
                total += weight(item, depth + 1)
            if total > cap:
                raise ModelError(f"{where}: Fn::ForEach loops expand to too many values {raise_hint('eval_steps')}")
        memo[id(value)] = total
        return total

    weight(body, 0)


def _for_each_count(entries: dict[str, Any], resolver: Any, cap: int, depth: int) -> int:
    """Entries ``entries`` make once its loops are expanded (counting stops past ``cap``)."""
    total = 0
    for key, value in entries.items():
        if key.startswith("Fn::ForEach::") and isinstance(value, list) and len(value) == 3 and isinstance(value[2], dict):
            if depth >= MAX_DEPTH:
                raise ModelError(f"{resolver.template}: Fn::ForEach nested deeper than {MAX_DEPTH} levels")
            try:
                collection = resolver.resolve(value[1], key)
            except ModelError:
                collection = None  # the transform names what is wrong with it
            size = len(collection) if isinstance(collection, list) else 1
            total += size * _for_each_count(value[2], resolver, cap, depth + 1) if size else 0
        else:
            total += 1
        if total > cap:
            return total
    return total


def parse_document(text: str, where: str) -> Any:
    """JSON, else CloudFormation YAML -> plain data with checked values; ModelError otherwise."""
    return _parse_document(text, where)[0]


def _parse_document(text: str, where: str, exact: Any = _TRY_FAST) -> tuple[Any, bool]:
    """``parse_document``, and whether the text was JSON (a tree: no node shared). ``exact``: as in
    ``parse_template``."""
    # orjson, when it provably reads the text as the strict parse below
    body: Any = loads_exact(text) if exact is _TRY_FAST else exact
    if body is not None:
        _check_values(body, where, scalars=False)
        return body, True
    try:
        body = json.loads(
            text, parse_constant=_json_constant, parse_float=_json_float, parse_int=_json_int, object_pairs_hook=_json_object
        )
    except _DuplicateKey:
        raise ModelError(f"{where}: {_duplicate_key_message(text)}") from None
    except ModelError as exc:
        _name_the_bad_number(text, where)
        raise ModelError(f"{where}: {exc}") from None
    except RecursionError:
        raise ModelError(f"{where}: document nested too deeply to parse") from None
    except ValueError:
        body = _parse_yaml(text, where, json_hint=text.lstrip().startswith(("{", "[")))
        _check_values(body, where)
        return body, False
    _check_values(body, where, scalars=False)
    return body, True


def _name_the_bad_number(text: str, where: str) -> None:
    """Only on error: parse again leniently so the walk can name the key holding the number."""
    try:
        lenient = json.loads(text, parse_int=lambda t: MAX_INT if len(t.lstrip("-")) > 19 else int(t))
    except (ValueError, RecursionError):
        return
    _check_values(lenient, where)


def check_template_shape(body: Any, where: str) -> None:
    """Raise ModelError unless ``body`` is a template: a Resources mapping of typed resources."""
    if not isinstance(body, dict):
        raise ModelError(f"{where}: not a CloudFormation template (top level is not a mapping: a {_kind(body)})")
    if "Resources" not in body:
        raise ModelError(f"{where}: not a CloudFormation template (no Resources mapping)")
    resources = body["Resources"]
    if not isinstance(resources, dict):
        raise ModelError(f"{where}: Resources is a {_kind(resources)}, not a mapping")
    if not resources:
        raise ModelError(f"{where}: no resources (Resources is empty; CloudFormation needs at least one)")
    for section in SECTIONS_THAT_ARE_MAPPINGS:
        if section in body and body[section] is not None and not isinstance(body[section], dict):
            raise ModelError(f"{where}: {section} is a {_kind(body[section])}, not a mapping")
    for name, param in (body.get("Parameters") or {}).items():
        if not isinstance(param, dict):
            raise ModelError(f"{where}: Parameters.{name} is a {_kind(param)}, not a mapping")
        if "Type" in param and not isinstance(param["Type"], str):
            raise ModelError(f"{where}: Parameters.{name}.Type is a {_kind(param['Type'])}, not a string")
    for name, mapping in (body.get("Mappings") or {}).items():
        if not isinstance(mapping, dict) or not all(isinstance(v, dict) for v in mapping.values()):
            raise ModelError(f"{where}: Mappings.{name} must be a mapping of mappings")
    transform = body.get("Transform")
    if transform is not None and not isinstance(transform, (str, list, dict)):
        raise ModelError(f"{where}: Transform is a {_kind(transform)}, not a name or a list of names")
    for logical_id, resource in resources.items():
        # the common resource passes a few type tests (each implies _check_resource's); any other is judged by it
        if (
            type(resource) is not dict
            or type(resource.get("Type")) is not str
            or not resource["Type"]
            or type(resource.get("Properties")) not in _MAPPING_OR_NULL
            or type(resource.get("Metadata")) not in _MAPPING_OR_NULL
            or "DependsOn" in resource
            or "Condition" in resource
            or logical_id.startswith("Fn::ForEach::")
        ):
            _check_resource(logical_id, resource, where)


#: A mapping or null, by exact type (the JSON and YAML parsers make plain dicts).
_MAPPING_OR_NULL = frozenset({dict, type(None)})


def _check_resource(logical_id: str, resource: Any, where: str) -> None:
    """ModelError unless ``resource`` has the shape of one: a mapping with a Type string, its Properties and
    Metadata mappings, its Condition a name, its DependsOn a logical id or a list of them."""
    if not isinstance(resource, dict):
        raise ModelError(f"{where}: {logical_id}: the resource is a {_kind(resource)}, not a mapping")
    if logical_id.startswith("Fn::ForEach::"):
        raise ModelError(f"{where}: {logical_id}: Fn::ForEach needs Transform: AWS::LanguageExtensions")
    if not isinstance(resource.get("Type"), str) or not resource["Type"]:
        raise ModelError(f"{where}: {logical_id}: no Type (each resource needs a Type string)")
    props = resource.get("Properties")
    if props is not None and not isinstance(props, dict):
        raise ModelError(f"{where}: {logical_id}: Properties is a {_kind(props)}, not a mapping")
    for key, kinds, wanted in (
        ("Condition", (str,), "a condition name"),
        ("Metadata", (dict,), "a mapping"),
        ("DependsOn", (str, list), "a logical id or a list of them"),
    ):
        if key in resource and resource[key] is not None and not isinstance(resource[key], kinds):
            raise ModelError(f"{where}: {logical_id}: {key} is a {_kind(resource[key])}, not {wanted}")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


def _parse_yaml(text: str, where: str, json_hint: bool = False) -> Any:
    import yaml

    from edge_origin.model.yaml_loader import YamlTemplateError, load_yaml_template

    try:
        return load_yaml_template(text)
    except RecursionError:
        raise ModelError(f"{where}: document nested too deeply to parse") from None
    except YamlTemplateError as exc:
        raise ModelError(f"{where}: cannot decode template ({exc})") from None
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 1}" if mark is not None else ""
        what = "neither JSON nor YAML" + (" (looks like JSON)" if json_hint else "")
        raise ModelError(f"{where}: {what}{line} ({first})") from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. an integer too long to convert
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"{where}: cannot decode template ({first})") from None


def _read_text(path: Path, limit: int) -> str:
    try:
        return read_text_file(path, limit)
    except InputFileError as exc:
        raise ModelError(str(exc)) from None


def read_template_file(path: Path, stack: str | None = None) -> LoadedTemplate:
    """Read and parse one template file (regular files only, the size limit first). JSON that the fast
    parse reads exactly (``core.fast_json``) is parsed from the bytes as read; anything else is decoded
    (UTF-8, a BOM dropped) and parsed as ``parse_template`` parses text."""
    path = Path(path)
    try:
        raw = read_bytes_file(path, template_limit())
    except InputFileError as exc:
        raise ModelError(str(exc)) from None
    exact = loads_exact(raw)
    if exact is not None:  # valid UTF-8: decoded only for a transform, the one reader of the text
        text = raw.decode("utf-8") if isinstance(exact, dict) and exact.get("Transform") is not None else ""
    else:
        try:
            text = decode_text(raw, path)
        except InputFileError as exc:
            raise ModelError(str(exc)) from None
        if not text.strip():
            raise ModelError(f"{path}: empty file")
    body, tree = parse_template(text, str(path), exact)
    return LoadedTemplate(stack or _stack_name_from_file(path), str(path), body, tree=tree)


def _load_json_file(path: Path, what: str) -> Any:
    text = _read_text(path, template_limit())
    try:
        data = json.loads(text, parse_constant=_json_constant, parse_float=_json_float, parse_int=_json_int)
    except ModelError as exc:
        raise ModelError(f"{path}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ModelError(f"{path}: unreadable {what} ({type(exc).__name__}: {str(exc)[:80]})") from None
    return data


def _inside(child: Path, root: Path) -> bool:
    try:
        child.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def _manifest(directory: Path) -> dict[str, Any]:
    manifest_path = directory / "manifest.json"
    manifest = _load_json_file(manifest_path, "cloud assembly manifest")
    if not isinstance(manifest, dict):
        raise ModelError(f"{manifest_path}: the manifest is a {_kind(manifest)}, not a mapping")
    if not isinstance(manifest.get("artifacts"), dict):
        raise ModelError(f"{manifest_path}: manifest has no artifacts mapping")
    return manifest


def _follower(directory: Path, root: Path, manifest: dict[str, Any], unreadable: list[tuple[str, str]] | None = None,
              budget: ReadBudget | None = None) -> Follower:
    assets = asset_files(directory, manifest, root, _inside, _load_json_file)
    return Follower(root, assets, lambda path, stack: read_template_file(path, stack=stack), base=directory, unreadable=unreadable,
                    budget=budget or ReadBudget())


def _read_assembly(
    directory: Path, root: Path | None = None, chain: tuple[Path, ...] = (), unreadable: list[tuple[str, str]] | None = None,
    budget: ReadBudget | None = None,
) -> list[LoadedTemplate]:
    """Stack templates of a cloud assembly, their nested stacks (``model.assembly``) and its nested
    assemblies (inside ``root``, no cycles). A nested stack that is bad input goes to ``unreadable``
    (when given; else ModelError) and the rest is read. One ``ReadBudget`` for the whole read (stack
    artifacts, nested stacks, nested assemblies: a file named many times counts each time)."""
    root = root or directory
    budget = budget if budget is not None else ReadBudget()
    here = directory.resolve()
    if here in chain:
        raise ModelError(f"{directory}: nested cloud assembly points back at itself (a cycle of assemblies)")
    if len(chain) >= MAX_ASSEMBLY_NESTING:
        raise ModelError(f"{directory}: cloud assemblies nested deeper than {MAX_ASSEMBLY_NESTING} levels")
    manifest_path = directory / "manifest.json"
    manifest = _manifest(directory)
    artifacts = manifest["artifacts"]
    follower = _follower(directory, root, manifest, unreadable, budget)
    loaded: list[LoadedTemplate] = []
    for artifact_id in sorted(artifacts):
        artifact = artifacts[artifact_id]
        if not isinstance(artifact, dict):
            raise ModelError(f"{manifest_path}: artifacts.{artifact_id} is a {_kind(artifact)}, not a mapping")
        props = artifact.get("properties")
        if props is None:
            props = {}
        if not isinstance(props, dict):
            raise ModelError(f"{manifest_path}: artifacts.{artifact_id}.properties is a {_kind(props)}, not a mapping")
        kind = artifact.get("type")
        if kind == "aws:cloudformation:stack":
            template_file = props.get("templateFile")
            if not isinstance(template_file, str) or not template_file:
                raise ModelError(f"{manifest_path}: stack artifact {artifact_id} has no templateFile")
            target = directory / template_file
            if not _inside(target, root):
                raise ModelError(
                    f"{manifest_path}: artifacts.{artifact_id}.properties.templateFile {template_file!r} points outside the cloud assembly"
                )
            if isinstance(props.get("stackName"), str) and props["stackName"]:
                stack = props["stackName"]
            else:
                display = artifact.get("displayName")
                stack = (display if isinstance(display, str) and display else artifact_id).split("/")[-1]
            budget.charge(str(manifest_path), f"artifacts.{artifact_id}", target)
            top = replace(read_template_file(target, stack=stack), environment=environment_of(artifact.get("environment")))
            loaded.extend(follower.expand([top]))
        elif kind == "cdk:cloud-assembly":
            nested = props.get("directoryName")
            if not isinstance(nested, str) or not nested:
                raise ModelError(f"{manifest_path}: nested assembly artifact {artifact_id} has no directoryName")
            target = directory / nested
            if not _inside(target, root):
                raise ModelError(
                    f"{manifest_path}: artifacts.{artifact_id}.properties.directoryName {nested!r} points outside the cloud assembly"
                )
            if not (target / "manifest.json").is_file():
                raise ModelError(f"{target}: nested cloud assembly has no manifest.json")
            loaded.extend(_read_assembly(target, root, (*chain, here), unreadable, budget))
    if not loaded and not chain:
        raise ModelError(f"{manifest_path}: the cloud assembly has no stack templates")
    return loaded


def _assembly_index(directory: Path) -> tuple[Follower, dict[Path, tuple[str, StackEnvironment]]]:
    """The nested-stack follower of a cloud assembly and ``{template file: (stack name, environment)}``."""
    manifest = _manifest(directory) if (directory / "manifest.json").is_file() else {"artifacts": {}}
    by_file: dict[Path, tuple[str, StackEnvironment]] = {}
    for artifact_id, artifact in manifest["artifacts"].items():
        props = artifact.get("properties") if isinstance(artifact, dict) else None
        if isinstance(props, dict) and artifact.get("type") == "aws:cloudformation:stack" and isinstance(props.get("templateFile"), str):
            name = props.get("stackName") if isinstance(props.get("stackName"), str) and props["stackName"] else artifact_id.split("/")[-1]
            by_file[(directory / props["templateFile"]).resolve()] = (name, environment_of(artifact.get("environment")))
    return _follower(directory, directory, manifest), by_file


def _read_single(path: Path, indexes: dict[Path, Any] | None = None, unreadable: list[tuple[str, str]] | None = None) -> list[LoadedTemplate]:
    """A template given alone, with its nested stacks (inside its folder; a cloud assembly's
    asset manifests and environments when the folder is one). It keeps its file name as stack name.
    ``indexes`` keeps each folder's index for the files of one read."""
    top = read_template_file(path)
    # every resource is a mapping with a Type (check_template_shape): the types compared in C
    if NESTED_STACK not in map(itemgetter("Type"), top.body["Resources"].values()) and not (path.parent / "manifest.json").is_file():
        return [top]
    indexes = {} if indexes is None else indexes
    if path.parent not in indexes:
        try:
            indexes[path.parent] = _assembly_index(path.parent)
        except ModelError:  # an unreadable manifest beside the file: the folder still bounds the nesting
            indexes[path.parent] = (_follower(path.parent, path.parent, {"artifacts": {}}), {})
    follower, by_file = indexes[path.parent]
    follower.unreadable = unreadable
    environment = by_file.get(path.resolve(), ("", UNKNOWN_ENVIRONMENT))[1]
    return follower.expand([replace(top, environment=environment)])


def load_assembly(directory: str | Path, templates: Sequence[str | Path]) -> list[LoadedTemplate]:
    """The whole assembly behind some top-level stack templates, as CloudFormation deploys it.

    ``directory`` is a cloud assembly (a ``cdk.out`` or a CDK Stage's ``assembly-*`` folder, with
    its ``manifest.json``); ``templates`` are top-level stack template files in it (what a CDK
    validation plugin receives as ``context.template_paths``). Returns each given template
    followed by its nested stacks, recursively (``AWS::CloudFormation::Stack`` resources whose
    template is in the assembly: ``aws:asset:path`` metadata or the asset manifest's object key
    of the ``TemplateURL``), each nested one named ``<Parent>/<Child>`` with ``parent`` set, and
    every stack's ``environment`` (account, Region) from the manifest where it is concrete.
    Stack names are the manifest's (``stackName``), else the file name minus ``.template.json``.
    Feed the result to ``TemplateModel(...)``: parameters passed to nested stacks, ``Outputs.X``
    of them and cross-Region exports are then resolved across the stacks.

    Bad input (an unreadable template, a nested path that leaves the assembly, a cycle) raises
    ``ModelError`` with one line naming the file.
    """
    directory = Path(directory)
    follower, by_file = _assembly_index(directory)
    top: list[LoadedTemplate] = []
    for path in map(Path, templates):
        stack, environment = by_file.get(path.resolve(), (_stack_name_from_file(path), UNKNOWN_ENVIRONMENT))
        top.append(replace(read_template_file(path, stack=stack), environment=environment))
    return follower.expand(top)


def _follow_in_folder(found: list[LoadedTemplate], plain: list[bool], directory: Path, result: ReadResult) -> list[LoadedTemplate]:
    """Templates of a plain folder with their nested stacks followed (inside the folder; a cloud
    assembly in it followed its own already). A template whose nesting is bad input goes to
    ``result.unreadable`` with its nested stacks."""
    walked = {Path(t.template).resolve(): t for t, is_plain in zip(found, plain, strict=True) if is_plain}

    def read(path: Path, stack: str) -> LoadedTemplate:  # a file the walk parsed already is not parsed again
        known = walked.get(path.resolve())
        return replace(known, stack=stack) if known is not None else read_template_file(path, stack=stack)

    follower = Follower(directory, {}, read, unreadable=result.unreadable)
    expanded: list[LoadedTemplate] = []
    for item, is_plain in zip(found, plain, strict=True):
        if not is_plain:
            expanded.append(item)
            continue
        try:
            expanded.extend(follower.expand([item]))
        except ModelError as exc:
            result.unreadable.append((item.template, str(exc)))
    return expanded


def _without_nested_copies(items: list[tuple[LoadedTemplate, bool]]) -> list[tuple[LoadedTemplate, bool]]:
    """A template read both as a nested stack and as a stack of its own (a folder walk found the
    file, or it was given too) is the nested stack only: CloudFormation deploys it there, with its
    parameters; the stand-alone copy would count every resource twice."""
    nested = {Path(t.template).resolve() for t, _ in items if t.parent is not None}
    out: list[tuple[LoadedTemplate, bool]] = []
    dropping = False
    for item, single in items:
        if item.parent is None:
            dropping = Path(item.template).resolve() in nested
        if not dropping:
            out.append((item, single))
    return out


def _is_template_like(path: Path, body: Any) -> bool:
    return isinstance(body, dict) and ("Resources" in body or "AWSTemplateFormatVersion" in body)


def _outside_or_special(path: Path, directory: Path) -> str:
    """Why a file found in a folder walk is not read ("" when it is read): a symbolic link that
    leaves the folder (``linked.template.json -> ../outside/secret.template.json``, a link to
    ``/proc/self/environ``) or anything that is not a regular file, as a cloud assembly's
    ``templateFile`` may not point outside the assembly. Nothing outside the input is opened."""
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            try:
                path.resolve(strict=True)
            except (OSError, RuntimeError):
                return f"{path}: a symbolic link that does not lead to a file (missing target or a loop of links): not read"
            if not _inside(path, directory):
                return f"{path}: a symbolic link to {os.path.realpath(path)}, outside the folder {directory}: not read"
            info = path.stat()
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror or exc})"
    if not stat.S_ISREG(info.st_mode):
        return f"{path}: is {describe_mode(info.st_mode)}, not a regular file: not read"
    return ""


def _walk_folder(directory: Path, result: ReadResult) -> list[LoadedTemplate]:
    """Templates in a plain folder, recursively; names from the path relative to ``directory``."""
    found: list[LoadedTemplate] = []  # plain templates and (marked None in ``plain``) assembly stacks
    plain: list[bool] = []
    count = 0
    for current, dirs, files in os.walk(directory, followlinks=False):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS)
        if here != directory and (here / "manifest.json").is_file():
            dirs[:] = []
            prefix = here.relative_to(directory).as_posix()
            refused = _outside_or_special(here / "manifest.json", directory)
            if refused:
                result.unreadable.append((str(here), refused))
                continue
            try:
                items = _read_assembly(here, unreadable=result.unreadable)
            except ModelError as exc:
                result.unreadable.append((str(here), str(exc)))
                continue
            result.assemblies.append(here)
            found.extend(
                replace(t, stack=f"{prefix}/{t.stack}", parent=(f"{prefix}/{t.parent[0]}", t.parent[1]) if t.parent else None) for t in items
            )
            plain.extend(False for _ in items)
            continue
        for name in sorted(files):
            if not name.endswith(TEMPLATE_SUFFIXES) or name.startswith("."):
                continue
            path = here / name
            count += 1
            if count > MAX_FOLDER_FILES:
                result.unreadable.append((str(directory), f"{directory}: more than {MAX_FOLDER_FILES} template files; the rest were not read"))
                break
            rel = strip_template_suffix(path.relative_to(directory).as_posix())
            refused = _outside_or_special(path, directory)
            if refused:
                result.unreadable.append((str(path), refused))
                continue
            try:
                text = _read_text(path, template_limit())
                parsed, tree = _parse_document(text, str(path)) if text.strip() else (None, False)
                if not _is_template_like(path, parsed):
                    continue  # package.json, cdk.json, tsconfig.json ...: not a template
                body = finish_template(parsed, text, str(path))
            except ModelError as exc:
                plain_data = not name.endswith((".template", ".template.json", ".template.yaml", ".template.yml"))
                if plain_data and "Resources" not in _peek(path):
                    continue  # a data file that does not even parse is not taken for a template
                result.unreadable.append((str(path), str(exc)))
                continue
            found.append(LoadedTemplate(rel, str(path), body, tree=tree and body is parsed))
            plain.append(True)
        if count > MAX_FOLDER_FILES:
            break
    return _keep_extension_where_names_collide(_follow_in_folder(found, plain, directory, result), directory)


def _keep_extension_where_names_collide(found: list[LoadedTemplate], directory: Path) -> list[LoadedTemplate]:
    """``a.json`` and ``a.yaml`` in one folder: both keep their extension in the stack name."""
    counts: dict[str, int] = {}
    for item in found:
        counts[item.stack] = counts.get(item.stack, 0) + 1
    names = [
        Path(item.template).relative_to(directory).as_posix()
        if item.parent is None and counts[item.stack] > 1 and Path(item.template).is_relative_to(directory)
        else item.stack
        for item in found
    ]
    return _renamed(found, names)


def _renamed(items: Sequence[LoadedTemplate], names: Sequence[str]) -> list[LoadedTemplate]:
    """``items`` with new stack names; a nested stack keeps its place under its parent's new name
    (items come depth first: a parent before its nested stacks)."""
    renamed: dict[str, str] = {}
    out: list[LoadedTemplate] = []
    for item, name in zip(items, names, strict=True):
        parent = item.parent
        if parent is not None:
            new_parent = renamed.get(parent[0], parent[0])
            if name == item.stack and item.stack.startswith(parent[0] + "/"):
                name = new_parent + item.stack[len(parent[0]) :]
            parent = (new_parent, parent[1])
        renamed[item.stack] = name
        out.append(replace(item, stack=name, parent=parent))
    return out


def _peek(path: Path) -> str:
    try:  # the safe reader: a regular file only (never blocks on a FIFO swapped in meanwhile)
        return read_bytes_file(path, template_limit())[:65536].decode("utf-8", "replace")
    except InputFileError:
        return ""


def _unique_names(items: list[tuple[LoadedTemplate, bool]]) -> list[LoadedTemplate]:
    """Make stack names unique: for colliding files given alone, prepend parent folder names;
    nested stacks follow their parent's name."""
    names: dict[str, int] = {}
    for item, _ in items:
        names[item.stack] = names.get(item.stack, 0) + 1
    out: list[str] = []
    taken: set[str] = set()
    renamed: dict[str, str] = {}
    for item, single in items:
        name = item.stack
        if item.parent is not None and item.stack.startswith(item.parent[0] + "/"):
            name = renamed.get(item.parent[0], item.parent[0]) + item.stack[len(item.parent[0]) :]
        elif names[name] > 1 and single:
            parts = Path(item.template).resolve().parts[:-1]
            depth = 1
            while depth <= len(parts):
                candidate = "/".join([*parts[len(parts) - depth :], name]).lstrip("/")
                if candidate not in taken and candidate not in names:
                    name = candidate
                    break
                depth += 1
        base, n = name, 2
        while name in taken:
            name = f"{base}#{n}"
            n += 1
        taken.add(name)
        renamed[item.stack] = name
        out.append(name)
    return [
        replace(item, stack=name, parent=(renamed.get(item.parent[0], item.parent[0]), item.parent[1]) if item.parent else None)
        for (item, _), name in zip(items, out, strict=True)
    ]


def _a_folder(raw: str | Path) -> bool:
    """Whether ``raw`` names a folder (a name the system refuses, too long or a loop of links, is not one here:
    the read below words it)."""
    try:
        return Path(raw).is_dir()
    except (OSError, ValueError):
        return False


def read_paths_result(paths: Sequence[str | Path]) -> ReadResult:
    """Read every given file, folder or cloud assembly; bad ones go to ``unreadable``."""
    result = ReadResult()
    if not paths:
        raise ModelError("no templates given (pass template files, folders or a cdk.out directory)")
    collected: list[tuple[LoadedTemplate, bool]] = []
    seen: set[Path] = set()
    indexes: dict[Path, Any] = {}  # a folder's cloud assembly index, read once for all its files
    if len(paths) > 1 or _a_folder(paths[0]):
        expect_several_files()
    for raw in paths:
        path = Path(raw)
        try:
            if not str(raw).strip():
                raise ModelError("an empty path was given (pass template files, folders or a cdk.out directory)")
            if path.is_dir():
                if (path / "manifest.json").exists():
                    items = _read_assembly(path, unreadable=result.unreadable)
                    result.assemblies.append(path)
                else:
                    if not any(path.iterdir()):
                        raise ModelError(f"{path}: empty directory (expected templates or a cdk.out with manifest.json)")
                    items = _walk_folder(path, result)
                    if not items and not any(p == str(path) or p.startswith(str(path)) for p, _ in result.unreadable):
                        raise ModelError(f"{path}: no template files in this folder (looked for {', '.join(TEMPLATE_SUFFIXES)})")
                single = False
            elif path.exists() or path.is_symlink():
                items = _read_single(path, indexes, result.unreadable)
                single = True
            else:
                raise ModelError(f"{path}: no such file or directory")
        except ModelError as exc:
            result.unreadable.append((str(path), str(exc)))
            continue
        except OSError as exc:  # the name itself: too long, a loop of links, no permission on a folder
            result.unreadable.append((str(path), f"{path}: cannot read: {exc.strerror or exc}"))
            continue
        skipping = False
        for item in items:
            if item.parent is None:  # a top-level stack, and after it its nested stacks
                key = Path(item.template).resolve()
                skipping = key in seen
                seen.add(key)
            if not skipping:
                collected.append((item, single))
    result.templates = _unique_names(_without_nested_copies(collected))
    give_back_kept_memory()  # the parse buffers kept for the next file (the program's large inputs): no longer needed
    if not result.templates:
        if len(result.unreadable) == 1:
            raise ModelError(result.unreadable[0][1])
        first = result.unreadable[0][1] if result.unreadable else "no templates found"
        raise ModelError(f"no file could be read ({len(result.unreadable)} unreadable; first: {first})")
    return result


def read_paths(paths: Sequence[str | Path]) -> list[LoadedTemplate]:
    """Read every given path; ModelError on the first unreadable one (strict form)."""
    result = read_paths_result(paths)
    if result.unreadable:
        raise ModelError(result.unreadable[0][1])
    return result.templates


def read_validation_acknowledgements(directory: Path, plugin: str = "EdgeOrigin") -> dict[str, dict[str, str]]:
    """``{construct path: {rule id: reason}}`` from a cdk.out's ``validation-report.json``: the
    findings CDK suppressed for ``plugin`` because they were acknowledged with a reason."""
    report_path = directory / "validation-report.json"
    if not report_path.exists():
        return {}
    report = _load_json_file(report_path, "validation report")
    if not isinstance(report, dict):
        raise ModelError(f"{report_path}: the validation report is a {_kind(report)}, not a mapping")
    reports = report.get("pluginReports", [])
    if not isinstance(reports, list):
        raise ModelError(f"{report_path}: pluginReports is a {_kind(reports)}, not a list")
    out: dict[str, dict[str, str]] = {}
    for plugin_report in reports:
        if not isinstance(plugin_report, dict) or plugin_report.get("pluginName") != plugin:
            continue
        suppressed = plugin_report.get("suppressedViolations") or []
        if not isinstance(suppressed, list):
            raise ModelError(f"{report_path}: suppressedViolations is a {_kind(suppressed)}, not a list")
        for item in suppressed:
            if not isinstance(item, dict) or not reason_text(item.get("reason")):
                continue  # no reason (or one that shows nothing): not applied, EO-ACK1 in review.suppressions
            rule = str(item.get("ruleName", "")).removeprefix(f"{plugin}-").split("[", 1)[0]
            constructs = item.get("violatingConstructs") or item.get("violatingResources") or []
            for construct in constructs if isinstance(constructs, list) else []:
                if isinstance(construct, dict) and isinstance(construct.get("constructPath"), str):
                    out.setdefault(construct["constructPath"], {})[rule] = item["reason"]
    return out
