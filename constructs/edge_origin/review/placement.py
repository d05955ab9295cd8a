"""Where a finding points in the user's repository (issue 51 item 2): the source line that created the
construct, else the template, with paths relative to the repository root.

A CDK app's construct path (``aws:cdk:path``: ``OrdersEdge/Weighted1/Resource``) names the ids the
app passed to each construct. The id is usually a string literal in the app's source
(``ARecord(self, "Weighted1", ...)``): the app's folder is the one holding the ``cdk.json`` found
above the template (a cdk.out's parent), its source files are read once (bounded: ``MAX_FILES``
files of at most ``MAX_FILE_BYTES``; ``cdk.out``, ``node_modules``, virtualenvs and hidden folders
skipped; ``MAX_TOTAL_BYTES`` in all, ``MAX_ENTRIES`` folder entries walked), every string literal
indexed with its first line. A finding is placed at the deepest id
of its path that is a literal exactly once (CDK's default child ids ``Resource`` / ``Default``
skipped); when none is, at the deepest that is a literal at all; else nowhere in the source (the
caller then points at the template and names the construct path in the message).

The repository root is the nearest folder holding ``.git`` above the app (or the template), else
the current folder; URIs are relative to it (``uriBaseId`` ``%SRCROOT%``), or absolute ``file:``
URIs for what lies outside it.

Layer 4. May import: core, model.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from edge_origin.core.fast_dataclass import dataclass

#: Source files read per app, bytes per file (larger ones are skipped), bytes in all, and folder
#: entries walked: the index costs a bounded amount of work whatever the repository holds.
MAX_FILES = 2000
MAX_FILE_BYTES = 1_000_000
MAX_TOTAL_BYTES = 16_000_000
MAX_ENTRIES = 50_000
SOURCE_SUFFIXES = (".py", ".ts", ".js", ".mjs", ".cjs", ".java", ".cs", ".go", ".kt", ".fs")
SKIP_DIRS = {"cdk.out", "node_modules", ".venv", "venv", "env", "__pycache__", "build", "dist", "target", "bin", "obj"}
#: CDK's ids for the default child of an L2 (``Resource``) and of a CfnResource wrapper (``Default``).
DEFAULT_IDS = {"Resource", "Default"}
SRCROOT = "%SRCROOT%"
_LITERAL = re.compile(r"""(["'`])([^"'`\\\r\n]{1,255})\1""")


@dataclass(frozen=True)
class Place:
    """A physical location: ``uri`` (relative to ``%SRCROOT%`` when ``base`` is set), 1-based ``line``."""

    uri: str
    line: int
    base: str | None = SRCROOT


@dataclass
class _App:
    folder: Path
    literals: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


def _find_up(start: Path, name: str, levels: int = 6) -> Path | None:
    for folder in [start, *start.parents][:levels]:
        if (folder / name).exists():
            return folder
    return None


def _source_files(app: Path, command: str) -> list[Path]:
    """The files the app's command names first, then every source file under the app folder."""
    named = [app / part for part in command.split() if Path(part).suffix in SOURCE_SUFFIXES]
    out = [p for p in named if p.is_file() and _inside(p, app)]  # `python /etc/x.py`, `../../x.py`: not read
    entries = 0
    for folder, dirs, files in os.walk(app):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        entries += len(dirs) + len(files)
        if entries > MAX_ENTRIES:
            return out
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix in SOURCE_SUFFIXES and path not in out:
                out.append(path)
            if len(out) >= MAX_FILES:
                return out
    return out


def _inside(path: Path, folder: Path) -> bool:
    """``path`` (links followed) lies inside ``folder``: cdk.json's ``app`` command is the change's own
    text, and what it names outside the app's folder (``/proc/self/environ``, a file of another checkout)
    is not the app's source."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return False


#: Indexes already built in this process, by app folder and the signature of what says how the app is run
#: (a CLI run, a test session or a synth that formats many times indexes each app once).
_INDEXES: dict[tuple[Any, ...], dict[str, list[tuple[str, int]]]] = {}
MAX_CACHED_APPS = 16


def _signature(app: Path, command: str) -> tuple[tuple[str, int, int], ...]:
    """cdk.json and the files its ``app`` command names: (name, size, mtime) each (a changed app reindexes)."""
    out = []
    for path in [app / "cdk.json", *(app / part for part in command.split() if Path(part).suffix in SOURCE_SUFFIXES)]:
        try:
            st = path.stat()
            out.append((str(path), st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((str(path), -1, -1))
    return tuple(out)


def _index(app: Path) -> dict[str, list[tuple[str, int]]]:
    try:
        command = json.loads((app / "cdk.json").read_text(encoding="utf-8")).get("app", "")
    except (OSError, ValueError, AttributeError):
        command = ""
    command = command if isinstance(command, str) else ""
    key = (app, _signature(app, command), MAX_FILES, MAX_FILE_BYTES, MAX_TOTAL_BYTES, MAX_ENTRIES)
    if key not in _INDEXES:
        if len(_INDEXES) >= MAX_CACHED_APPS:
            _INDEXES.pop(next(iter(_INDEXES)))
        _INDEXES[key] = _build_index(app, command)
    return _INDEXES[key]


def _build_index(app: Path, command: str) -> dict[str, list[tuple[str, int]]]:
    literals: dict[str, list[tuple[str, int]]] = {}
    total = 0
    for path in _source_files(app, command):
        try:
            if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            total += path.stat().st_size
            if total > MAX_TOTAL_BYTES:
                break
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        seen: set[str] = set()
        for number, line in enumerate(text.splitlines(), start=1):
            for m in _LITERAL.finditer(line):
                value = m.group(2)
                if value not in seen:  # one entry per file: "exactly once" counts files
                    seen.add(value)
                    literals.setdefault(value, []).append((str(path), number))
    return literals


class Placer:
    """Places findings for one run; every app folder is indexed once."""

    def __init__(self, root: str | Path | None = None) -> None:
        self._apps: dict[Path, _App] = {}
        self._app_of: dict[str, Path | None] = {}
        self._root = Path(root).resolve() if root is not None else None

    def root(self, template: str = "") -> Path:
        """The repository root: the folder with ``.git`` above the template (or the current folder)."""
        if self._root is None:
            start = Path(template).resolve().parent if template else Path.cwd().resolve()
            self._root = _find_up(start, ".git", 40) or _find_up(Path.cwd().resolve(), ".git", 40) or Path.cwd().resolve()
        return self._root

    def uri(self, path: str) -> Place:
        """``path`` as a URI relative to the repository root, or an absolute ``file:`` URI outside it."""
        absolute = Path(path).resolve()
        root = self.root(path)
        try:
            relative = absolute.relative_to(root)
        except ValueError:
            return Place(absolute.as_uri(), 1, None)
        return Place(quote(relative.as_posix(), safe="/"), 1)

    def _app(self, template: str) -> _App | None:
        if template not in self._app_of:
            self._app_of[template] = _find_up(Path(template).resolve().parent, "cdk.json") if template else None
        folder = self._app_of[template]
        if folder is None:
            return None
        if folder not in self._apps:
            self._apps[folder] = _App(folder, _index(folder))
        return self._apps[folder]

    def source(self, template: str, construct_path: str) -> Place | None:
        """The source line that created the construct at ``construct_path`` (see the module doc), or None."""
        app = self._app(template) if construct_path else None
        if app is None:
            return None
        ids = [s for s in reversed(construct_path.split("/")) if s and s not in DEFAULT_IDS]
        hits = [(i, app.literals[i]) for i in ids if i in app.literals]
        chosen = next((h for _, h in hits if len(h) == 1), hits[0][1] if hits else None)
        if not chosen:
            return None
        file, line = chosen[0]
        place = self.uri(file)
        return Place(place.uri, line, place.base)


__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "SRCROOT", "Place", "Placer"]
