"""The assembly as CloudFormation deploys it: stack environments and nested stacks followed.

Environments
    A cloud assembly's ``manifest.json`` gives each stack artifact an ``environment``
    (``aws://<account>/<region>``); ``unknown-account`` / ``unknown-region`` (an environment-agnostic
    stack) stay unknown. A nested stack deploys in its parent's environment.

Nested stacks
    Every ``AWS::CloudFormation::Stack`` resource whose template is in the assembly is followed,
    recursively: CDK's ``aws:asset:path`` metadata on the resource, else the ``TemplateURL`` whose
    object key an asset manifest of the assembly (``*.assets.json``, ``files.*.destinations.*.
    objectKey``) maps to a file, else a ``TemplateURL`` that is a relative path (a template before
    ``aws cloudformation package``) or whose last segment names a file beside the parent. A path that
    leaves the root folder (the assembly, or the folder given) is refused with a ``ModelError``
    naming the file, the resource and the path; so is a cycle. A nested stack is named
    ``<Parent>/<Child>``: the NestedStack's construct id (from ``aws:cdk:path`` or CDK's logical id
    ``<Id>NestedStack<Id>NestedStackResource<hash>``), else the resource's logical id. A ``Stack``
    resource whose template is not in the assembly stays a plain resource (its outputs unknown).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from edge_origin.core.fast_dataclass import dataclass, field, replace
from edge_origin.core.lazy_re import lazy
from edge_origin.model.values import ModelError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

    from edge_origin.model.loader import LoadedTemplate

NESTED_STACK = "AWS::CloudFormation::Stack"
#: Deepest chain of nested stacks followed (CloudFormation documents no depth limit; CDK apps
#: nest two or three levels).
MAX_STACK_NESTING = 20
#: Most nested stacks read from one root (a template may name one file many times: the budget
#: keeps a fan-out of fan-outs from costing more than the files would).
MAX_NESTED_STACKS = 5000
_CDK_NESTED_ID = lazy(r"^.*?([A-Za-z0-9]+)NestedStack\1NestedStackResource[0-9A-F]{8}$")
_UNKNOWN = ("unknown-account", "unknown-region", "")


@dataclass(frozen=True)
class StackEnvironment:
    """Where a stack deploys, as far as the assembly says: account and Region, or None (unknown)."""

    account: str | None = None
    region: str | None = None


UNKNOWN_ENVIRONMENT = StackEnvironment()


def environment_of(value: Any) -> StackEnvironment:
    """A manifest artifact's ``environment`` (``aws://account/region``) -> StackEnvironment."""
    if not isinstance(value, str) or not value.startswith("aws://"):
        return UNKNOWN_ENVIRONMENT
    account, _, region = value[len("aws://") :].partition("/")
    return StackEnvironment(
        account if account not in _UNKNOWN and account.isdigit() else None,
        region if region not in _UNKNOWN and re.fullmatch(r"[a-z]{2,4}(-[a-z]+)+-\d+", region) else None,
    )


def asset_files(directory: Path, manifest: dict[str, Any], root: Path, inside: Callable[[Path, Path], bool],
                load_json: Callable[[Path, str], Any]) -> dict[str, Path]:
    """``{object key: file}`` from the asset manifests a cloud assembly's manifest lists (file assets
    only; an asset manifest outside ``root`` is not read, and a TemplateURL naming an asset whose file
    is outside ``root`` is refused by the Follower)."""
    out: dict[str, Path] = {}
    artifacts = manifest.get("artifacts")
    for artifact in (artifacts or {}).values() if isinstance(artifacts, dict) else ():
        if not isinstance(artifact, dict) or artifact.get("type") != "cdk:asset-manifest":
            continue
        name = (artifact.get("properties") or {}).get("file") if isinstance(artifact.get("properties"), dict) else None
        if not isinstance(name, str) or not name or not inside(directory / name, root) or not (directory / name).is_file():
            continue
        assets = load_json(directory / name, "asset manifest")
        files = assets.get("files") if isinstance(assets, dict) else None
        for asset_id, asset in (files or {}).items() if isinstance(files, dict) else ():
            source = asset.get("source") if isinstance(asset, dict) else None
            path = source.get("path") if isinstance(source, dict) else None
            if not isinstance(path, str) or not path:
                continue
            destinations = asset.get("destinations")
            keys = [d.get("objectKey") for d in destinations.values() if isinstance(d, dict)] if isinstance(destinations, dict) else []
            for key in [*keys, f"{asset_id}.json"]:
                if isinstance(key, str) and key:
                    out.setdefault(key, directory / path)
    return out


def _strings(value: Any) -> Iterable[str]:
    """Every string inside a (raw) TemplateURL value: Fn::Join pieces, an Fn::Sub text..."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())


def child_name(logical_id: str, resource: dict[str, Any]) -> str:
    """The nested stack's name under its parent: CDK's construct id where it can be read."""
    metadata = resource.get("Metadata")
    path = metadata.get("aws:cdk:path") if isinstance(metadata, dict) else None
    if isinstance(path, str) and path.endswith(".NestedStackResource"):
        return path.rsplit("/", 1)[-1].removesuffix(".NestedStackResource") or logical_id
    match = _CDK_NESTED_ID.match(logical_id)
    return match.group(1) if match else logical_id


class _OverBudget(ModelError):
    """Past MAX_NESTED_STACKS: the whole read stops (not one nested stack left out)."""


@dataclass
class ReadBudget:
    """Bytes of templates one read of an assembly judges, each stack counting its template (a file
    named by many stacks, nested stacks or nested assemblies is judged once for each): at most
    ``--max-file-mib`` (16 MiB) in all. The intrinsic budgets are per template, so one 4 MB template
    named by 20 nested stacks cost 63 s and 2 GB, and by 10 stack artifacts 10 s."""

    used: int = 0
    stacks: int = 0

    def charge(self, where: str, what: str, target: Path) -> None:
        """Count ``target`` (read for ``what`` of ``where``); past the budget the whole read stops."""
        from edge_origin.core.limits import current, raise_hint

        try:
            self.used += target.stat().st_size
        except OSError:
            return  # the reader names it
        self.stacks += 1
        if self.used > current().file_bytes:
            raise _OverBudget(
                f"{where}: {what}: the templates of its stacks add up to more than the budget of one read "
                f"({self.stacks} stacks; each counts its template) {raise_hint('file_bytes')}", template=where)


@dataclass
class Follower:
    """Follows nested stacks from parent templates inside ``root`` (one budget for the whole read).
    ``base``: the folder ``aws:asset:path`` is relative to (the cloud assembly's; None: the parent
    template's own folder)."""

    root: Path
    assets: dict[str, Path]
    read: Callable[[Path, str], LoadedTemplate]
    base: Path | None = None
    #: Where a nested stack that is bad input goes (``(file, message)``), the rest still read; None: raise.
    unreadable: list[tuple[str, str]] | None = None
    followed: int = 0
    #: Bytes of templates read, shared by every follower of one assembly read (``ReadBudget``).
    budget: ReadBudget = field(default_factory=ReadBudget)

    def __post_init__(self) -> None:
        self._root = self.root.resolve()
        #: an object key's last segment -> (object key, file): one lookup a TemplateURL piece
        self._by_last = {key.rsplit("/", 1)[-1]: (key, path) for key, path in self.assets.items()}

    def expand(self, items: Sequence[LoadedTemplate]) -> list[LoadedTemplate]:
        """Each template followed by its nested stacks (depth first, template order)."""
        out: list[LoadedTemplate] = []
        for item in items:
            out.extend(self._tree(item, (Path(item.template).resolve(),)))
        return out

    def _tree(self, item: LoadedTemplate, chain: tuple[Path, ...]) -> list[LoadedTemplate]:
        out = [item]
        resources = item.body.get("Resources") or {}
        for logical_id, resource in resources.items():
            if not isinstance(resource, dict) or resource.get("Type") != NESTED_STACK:
                continue
            try:
                out.extend(self._child(item, logical_id, resource, chain))
            except ModelError as exc:
                if self.unreadable is None or isinstance(exc, _OverBudget):
                    raise
                self.unreadable.append((exc.template or item.template, str(exc)))
        return out

    def _child(self, item: LoadedTemplate, logical_id: str, resource: dict[str, Any], chain: tuple[Path, ...]) -> list[LoadedTemplate]:
        """One nested stack and its own nested stacks ([] when its template is not in the assembly)."""
        found = self.template_of(item.template, logical_id, resource)
        if found is None:
            return []
        target, resolved = found
        if resolved in chain:
            raise ModelError(f"{item.template}: {logical_id}: the nested stack's template {target} is one of its own parents (a cycle of nested stacks)", template=item.template)
        if len(chain) > MAX_STACK_NESTING:
            raise ModelError(f"{item.template}: {logical_id}: nested stacks deeper than {MAX_STACK_NESTING} levels", template=item.template)
        self.followed += 1
        if self.followed > MAX_NESTED_STACKS:
            raise _OverBudget(f"{item.template}: {logical_id}: more than {MAX_NESTED_STACKS} nested stacks in one assembly", template=item.template)
        self.budget.charge(item.template, logical_id, target)
        try:
            child = self.read(target, f"{item.stack}/{child_name(logical_id, resource)}")
        except ModelError as exc:
            raise ModelError(str(exc), template=str(target)) from None
        child = replace(child, environment=item.environment, parent=(item.stack, logical_id))
        return self._tree(child, (*chain, resolved))

    def template_of(self, template: str, logical_id: str, resource: dict[str, Any]) -> tuple[Path, Path] | None:
        """``(file, its resolved path)`` of the nested template of one ``AWS::CloudFormation::Stack``
        resource, or None when it is not in the assembly; ModelError when its path leaves the root."""
        here = Path(template).parent
        metadata = resource.get("Metadata")
        asset_path = metadata.get("aws:asset:path") if isinstance(metadata, dict) else None
        if isinstance(asset_path, str) and asset_path:
            return self._checked((self.base or here) / asset_path, template, logical_id, f"Metadata.aws:asset:path {asset_path!r}")
        props = resource.get("Properties")
        url = props.get("TemplateURL") if isinstance(props, dict) else None
        for text in _strings(url):
            key, path = self._by_last.get(text.rsplit("/", 1)[-1], ("", None))
            if path is not None and (text.endswith("/" + key) or text == key):
                return self._checked(path, template, logical_id, f"the asset of TemplateURL {key!r}")
        if isinstance(url, str) and url and "://" not in url and not url.startswith("s3:"):
            return self._checked(here / url, template, logical_id, f"Properties.TemplateURL {url!r}")
        if isinstance(url, str) and "/" in url and url.rsplit("/", 1)[-1]:
            last = here / url.rsplit("/", 1)[-1]
            resolved = self._inside(last)
            return (last, resolved) if resolved is not None and last.is_file() else None
        return None

    def _inside(self, path: Path) -> Path | None:
        """``path`` resolved, when it stays inside the root (links followed)."""
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError):
            return None
        return resolved if resolved.is_relative_to(self._root) else None

    def _checked(self, path: Path, template: str, logical_id: str, what: str) -> tuple[Path, Path] | None:
        resolved = self._inside(path)
        if resolved is None:
            raise ModelError(f"{template}: {logical_id}: {what} points outside the cloud assembly ({self.root})", template=template)
        return (path, resolved) if path.is_file() else None
