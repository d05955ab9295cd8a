"""The project's settings for ``edge-origin check`` / ``report`` / ``diff``: ``[tool.edge-origin]`` in
``pyproject.toml`` or a ``.edge-origin.yaml``, read from the repository root.

Where: the nearest folder, from the current one up to the repository root (the folder holding
``.git``), with a ``.edge-origin.yaml`` (or ``.yml``) or a ``pyproject.toml`` that has a
``[tool.edge-origin]`` table; both in one folder is bad input (keep one). ``--config FILE`` names
the file instead.

Keys (``KEYS``): ``select`` and ``ignore`` (rule ids or prefixes, see
``edge_origin.rules.selection``, each with its reason) and ``fail-on`` (``error`` | ``warning`` |
``info``). An unknown key is bad input naming it and the allowed keys. On the command line,
``--select`` and ``--fail-on`` replace the file's value; ``--ignore`` adds to the file's list.

Every ``ignore`` / ``select`` entry needs a reason (``edge_origin.review.suppressions``): one
without is not applied and is an ``EO-ACK1`` error finding naming the file. The forms::

    ignore:                       # a mapping: selector(s) -> reason
      EO-NLB3: cross-zone is on by design (ADR 12)
    ignore:                       # or a list of "selectors: reason", or {id, reason} mappings
      - "EO-KA1, EO-KA2: profile owned by the platform team"
      - {id: EO-SEC1, reason: origin verification is done by the WAF}

(TOML: ``ignore = {"EO-NLB3" = "reason"}`` or ``ignore = ["EO-NLB3: reason"]``.)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from edge_origin.core.fast_dataclass import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

YAML_NAMES = (".edge-origin.yaml", ".edge-origin.yml")
PYPROJECT = "pyproject.toml"
TABLE = "tool.edge-origin"
KEYS = ("select", "ignore", "fail-on")


class ConfigError(ValueError):
    """A config file that cannot be used: the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    """The settings a file gave (``source``: the file, or "" when there was none)."""

    source: str = ""
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: str | None = None
    #: Every ignore/select entry with its reason ("" when none was given) and where it is.
    entries: tuple[Any, ...] = ()


def _load_toml(path: Path) -> dict:
    import tomllib

    try:
        return tomllib.loads(_read(path))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it: {exc}") from None


def _read(path: Path) -> str:
    """A config file's text through the one safe reader (a regular file within --max-file-mib)."""
    from edge_origin.core.files import InputFileError, read_text_file
    from edge_origin.core.limits import current

    try:
        return read_text_file(path, current().file_bytes)
    except InputFileError as exc:
        raise ConfigError(str(exc)) from None


def _may_hold_table(text: str) -> bool:
    """Whether a TOML ``text`` may define ``[tool.edge-origin]``: some ``edge-origin`` followed (past closing
    quotes, spaces and tabs) by ``=``, ``.`` or ``]``, the only characters that can end a key (a table header, a
    dotted key, a key/value pair, inline tables included). Conservative: it may say yes for a string value (then
    the file is parsed, as before); it never says no for a document that holds the table, but for a key spelled
    with an escape (``"edge\\u002Dorigin"``), which no earlier release read either. A project that only depends on
    edge-origin (``name``, ``dependencies``, URLs, comments) is not parsed: parsing costs a check ~15 ms."""
    headers_known = '"""' not in text and "'''" not in text  # no multi-line string: a line opening "[" is a header
    at = text.find("edge-origin")
    while at >= 0:
        rest = text[at + 11:at + 200].lstrip("\"'").lstrip(" \t")
        if rest[:1] in (".", "]") or (rest[:1] == "=" and not (headers_known and _key_of_another_table(text, at))):
            return True
        at = text.find("edge-origin", at + 11)
    return False


def _key_of_another_table(text: str, at: int) -> bool:
    """The ``edge-origin`` at ``at`` opens its line (a key of the table the last header opened) and that table is
    surely not ``[tool]`` (``[project.scripts]``'s ``edge-origin = ...``: a console script, not the settings). The
    lines before it are read for headers outside arrays (brackets counted outside strings and comments); any doubt
    (a line this reading cannot follow) answers False, and the file is parsed."""
    start = text.rfind("\n", 0, at) + 1
    if text[start:at].strip(" \t\"'"):
        return False  # something before it on its line: an inline table, or another key's value
    header, depth = None, 0
    for line in text[:start].splitlines():
        opened = _brackets(line)
        if opened is None:
            return False
        if depth == 0 and line.lstrip(" \t").startswith("["):
            header = line.split("#", 1)[0]
        depth += opened
        if depth < 0:
            return False
    if depth != 0 or header is None or "\\" in header:
        return False  # inside an array, no header, or a header spelled with an escape: parse it
    return "".join(header.split()).replace('"', "").replace("'", "") != "[tool]"


def _brackets(line: str) -> int | None:
    """``[`` less ``]`` on a TOML line outside strings and its comment; None when a string does not close on it."""
    count, quote, i = 0, "", 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char == "[":
            count += 1
        elif char == "]":
            count -= 1
        i += 1
    return None if quote else count


def _pyproject_table(path: Path) -> dict | None:
    try:
        text = _read(path)
    except ConfigError:
        return None
    if not _may_hold_table(text):  # most pyproject.toml files, a project depending on edge-origin's too: not parsed
        return None
    tool = _load_toml(path).get("tool", {})
    table = tool.get("edge-origin") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{TABLE}] must be a table")
    return table


def _yaml_table(path: Path) -> dict:
    from edge_origin.core.files import InputFileError, load_data_file

    try:
        data = load_data_file(path)
    except InputFileError as exc:
        raise ConfigError(f"cannot read it: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must be a mapping of {', '.join(KEYS)}")
    return data


def find_config(start: Path | str | None = None) -> Path | None:
    """The config file that applies in ``start`` (default: the current folder), or None."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        found = [folder / n for n in YAML_NAMES if (folder / n).is_file()]
        pyproject = folder / PYPROJECT
        if pyproject.is_file() and _pyproject_table(pyproject) is not None:
            found.append(pyproject)
        if len(found) > 1:
            raise ConfigError(f"{folder}: both {' and '.join(p.name for p in found)} hold edge-origin settings; keep one")
        if found:
            return found[0]
        if (folder / ".git").exists():
            return None  # the repository root: settings above it belong to something else
    return None


def split_reason(text: str) -> tuple[str, str]:
    """``"EO-NLB3, EO-KA: the reason"`` -> ``("EO-NLB3, EO-KA", "the reason")``; no ``:``: no reason."""
    from edge_origin.core.escape import reason_text

    selectors, _, reason = text.partition(":")
    return selectors, reason_text(reason)


def _pairs(path: Path, key: str, value: object) -> list[tuple[str, str]]:
    """``(selectors, reason)`` pairs of one ``ignore`` / ``select`` value, in any of the forms (a
    reason that shows nothing is none: ``core.escape.reason_text``)."""
    from edge_origin.core.escape import reason_text

    shape = (
        f"{path}: {key} must be a list of rule ids or prefixes with reasons "
        f'(e.g. {{EO-NLB3: "why"}} or ["EO-NLB3: why"] or [{{id: EO-NLB3, reason: why}}])'
    )
    if isinstance(value, str):
        value = [value]
    if isinstance(value, dict):
        value = [{k: v} for k, v in value.items()]
    if not isinstance(value, list):
        raise ConfigError(shape)
    out = []
    for item in value:
        if isinstance(item, str):
            out.append(split_reason(item))
        elif isinstance(item, dict) and "id" in item and set(item) <= {"id", "reason"}:
            rule, reason = item.get("id"), item.get("reason", "")
            if not isinstance(rule, str) or not isinstance(reason, (str, type(None))):
                raise ConfigError(shape)
            out.append((rule, reason_text(reason)))
        elif isinstance(item, dict) and len(item) == 1:
            ((rule, reason),) = item.items()
            if not isinstance(rule, str) or not isinstance(reason, (str, type(None))):
                raise ConfigError(shape)
            out.append((rule, reason_text(reason)))
        else:
            raise ConfigError(shape)
    return out


def _entries(path: Path, key: str, value: object) -> tuple[Any, ...]:
    from edge_origin.review.suppressions import SetAside
    from edge_origin.rules.selection import parse_selectors

    out = []
    for selectors, reason in _pairs(path, key, value):
        if not selectors.replace(",", " ").strip():
            raise ConfigError(f"{path}: {key}: an entry with no rule id before its reason ({reason[:60]!r})")
        out.append(SetAside(key, parse_selectors([selectors], what=key), reason, f"{path} {key}"))
    return tuple(out)


def parse_config(path: Path, table: Mapping[str, object]) -> Config:
    """Check the keys and types of ``table`` (read from ``path``)."""
    for key in table:
        if key not in KEYS:
            import difflib  # only for a mistyped key

            near = difflib.get_close_matches(str(key).replace("_", "-"), KEYS, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise ConfigError(f"{path}: unknown key {key!r}{hint} (allowed keys: {', '.join(KEYS)})")
    fail_on = table.get("fail-on")
    if fail_on is not None and fail_on not in ("error", "warning", "info"):
        raise ConfigError(f"{path}: fail-on {fail_on!r}: allowed error, warning, info")
    try:
        entries = _entries(path, "select", table.get("select", [])) + _entries(path, "ignore", table.get("ignore", []))
    except ConfigError:
        raise
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    select = tuple(dict.fromkeys(s for e in entries if e.action == "select" for s in e.selectors))
    ignore = tuple(dict.fromkeys(s for e in entries if e.action == "ignore" for s in e.selectors))
    return Config(source=str(path), select=select, ignore=ignore, fail_on=fail_on, entries=entries)  # type: ignore[arg-type]


def load_config(path: Path | str | None = None, *, start: Path | str | None = None) -> Config:
    """The settings from ``path`` (a ``.edge-origin.yaml`` or a ``pyproject.toml``), else from the
    file ``find_config(start)`` finds; ``Config()`` when there is none. ConfigError on bad input."""
    if path is None:
        found = find_config(start)
        if found is None:
            return Config()
        path = found
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    if path.name == PYPROJECT or path.suffix == ".toml":
        table = _pyproject_table(path)
        if table is None:
            raise ConfigError(f"{path}: no [{TABLE}] table")
    else:
        table = _yaml_table(path)
    return parse_config(path, table)


__all__ = ["KEYS", "Config", "ConfigError", "find_config", "load_config", "parse_config", "split_reason"]
