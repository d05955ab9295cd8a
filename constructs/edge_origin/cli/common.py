"""What every ``edge-origin`` subcommand shares: exit codes, the bad-input error, argument types.

Argument types raise ``argparse.ArgumentTypeError`` with the allowed range; ``UsageError`` is
printed as one line naming the command, exit code 2.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from importlib import import_module
from types import ModuleType

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from edge_origin.core.findings import Severity

#: Set to a list by ``cli.entry`` for a read-and-print command that ends with ``os._exit``: a command
#: puts its large results (the model) here, so returning from it frees nothing object by object (the
#: process ends without tearing its heap down). None otherwise (``main`` called as a library function).
HELD_UNTIL_EXIT: list[object] | None = None


def hold_until_exit(value: object) -> None:
    """Keep ``value`` alive until the process ends, when it ends by ``os._exit`` (``HELD_UNTIL_EXIT``)."""
    if HELD_UNTIL_EXIT is not None:
        HELD_UNTIL_EXIT.append(value)


EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped (a file named ``a\\nb``),
    long names shortened: ``edge_origin.core.escape.plain``."""
    from edge_origin.core.escape import MAX_TEXT, plain

    return plain(text, 4 * MAX_TEXT)


def finite_float(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite float in [lo, hi] (``lo_open``: strictly above lo)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if lo is not None and (value <= lo if lo_open else value < lo):
            raise argparse.ArgumentTypeError(f"{text!r} must be {'>' if lo_open else '>='} {lo:g}")
        if hi is not None and value > hi:
            raise argparse.ArgumentTypeError(f"{text!r} must be <= {hi:g}")
        return value

    parse.__name__ = "number"
    return parse


def int_range(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [lo, hi]."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip().replace("_", ""), 10) if len(text) <= 40 else None
        except ValueError:
            value = None
        if value is None:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer")
        if lo is not None and value < lo:
            raise argparse.ArgumentTypeError(f"{value} must be >= {lo}")
        if hi is not None and value > hi:
            raise argparse.ArgumentTypeError(f"{value} must be <= {hi}")
        return value

    parse.__name__ = "integer"
    return parse


def findings_flags(args: argparse.Namespace, formats: Sequence[str]) -> Severity:
    """Check ``--format`` against ``formats`` and parse ``--fail-on``: the severity, or UsageError."""
    from edge_origin.review.checker import parse_severity

    if args.format not in formats:
        raise UsageError(f"--format {args.format!r}: allowed {', '.join(formats)}")
    try:
        return parse_severity(args.fail_on if args.fail_on is not None else "error")
    except ValueError as exc:
        raise UsageError(f"--fail-on: {exc}") from None


PORT = int_range(1, 65535)
PORT_OR_FREE = int_range(0, 65535)  # 0: a free port


def require_extra(module: str, extra: str, command: str) -> ModuleType:
    """Import ``module`` or raise UsageError telling which extra to install."""
    try:
        return import_module(module)
    except ImportError as exc:
        raise UsageError(
            f"{command} needs the '{extra}' extra ({exc.name or module} is not installed): {install_hint(extra)}"
        ) from None


def install_hint(extra: str) -> str:
    """The pip command that adds ``extra`` to THIS install: from the clone or the wheel it was installed
    from (PEP 610 ``direct_url.json``), since ``edge-origin[extra]`` from PyPI exists only once released."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    released = f"pip install 'edge-origin[{extra}]'"
    try:
        direct = json.loads(metadata.distribution("edge-origin").read_text("direct_url.json") or "null")
    except (metadata.PackageNotFoundError, ValueError, OSError):
        direct = None
    if not isinstance(direct, dict) or not str(direct.get("url", "")).startswith("file://"):
        return released
    where = unquote(urlparse(direct["url"]).path)
    editable = bool((direct.get("dir_info") or {}).get("editable"))
    return f"pip install {'-e ' if editable else ''}'{where}[{extra}]' (once released: {released})"


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """``"; did you mean 'check'?"`` for the nearest of ``choices`` (difflib), else ``""``."""
    import difflib

    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {near[0]!r}?" if near else ""


# --- rule selection and the project's config file (check, report, diff) ---------------------------
def add_selection_flags(p: argparse.ArgumentParser) -> None:
    """``--select`` / ``--ignore`` / ``--config``: which rules a run reports (see edge_origin.cli.config)."""
    p.add_argument(
        "--select", action="append", default=None, metavar="IDS[: REASON]",
        help="report only these rules: ids or prefixes, comma-separated or repeated (e.g. EO-DNS,EO-NLB1); "
        "replaces the config file's select; the others are listed as set aside",
    )
    p.add_argument(
        "--ignore", action="append", default=None, metavar="IDS: REASON",
        help="set these rules aside, with the reason: 'EO-NLB3: cross-zone on by design' (ids or prefixes); added to "
        "the config file's ignore; the findings are still listed as acknowledged; without a reason: not applied, "
        "an EO-ACK1 error",
    )
    p.add_argument(
        "--config", metavar="FILE", default=None,
        help="settings file (.edge-origin.yaml or a pyproject.toml with [tool.edge-origin]); default: the one found "
        "from the current folder up to the repository root; --config none reads no file",
    )
    p.add_argument(
        "--head-config", metavar="FILE", default=None,
        help="the change's own settings file when --config is the base's (a pull request's head: the Action passes it): "
        "not applied; what it would set aside beyond --config is said at the top of the output ('none': the head has none)",
    )


def load_settings_file(value: str | None):  # -> Config
    """The config file ``--config`` names (``none``: no file; None: the one found), UsageError on a bad one."""
    from edge_origin.cli.config import Config, ConfigError, load_config

    try:
        return Config() if value == "none" else load_config(value)
    except ConfigError as exc:
        raise UsageError(f"config: {exc}") from None


def flag_entries(flag: str, values: Sequence[str] | None) -> list:
    """``--ignore`` / ``--select`` values (``"IDS"`` or ``"IDS: reason"``) as SetAside entries."""
    from edge_origin.cli.config import split_reason
    from edge_origin.review.suppressions import SetAside
    from edge_origin.rules.selection import parse_selectors

    out = []
    for value in values or ():
        selectors, reason = split_reason(value)
        try:
            parsed = parse_selectors([selectors], what=flag)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not parsed:
            raise UsageError(f"{flag} {value!r}: no rule id before the reason (e.g. {flag} 'EO-NLB3: why')")
        out.append(SetAside(flag.lstrip("-"), parsed, reason, flag))
    return out


def project_settings(args: argparse.Namespace):  # -> edge_origin.review.suppressions.Settings
    """Merge the config file with the command line: sets ``args.fail_on`` when the command line did
    not, and returns the Settings (a RuleSelection that keeps each entry's reason and source).
    UsageError (one line) on a bad file or selector."""
    from edge_origin.review.suppressions import Settings

    config = load_settings_file(args.config)
    entries = [*config.entries, *flag_entries("--select", args.select), *flag_entries("--ignore", args.ignore)]
    if args.select:  # --select replaces the file's select
        entries = [e for e in entries if not (e.action == "select" and not e.from_flag)]
    if getattr(args, "fail_on", None) is None and hasattr(args, "fail_on"):
        args.fail_on = config.fail_on or "error"
    settings = Settings.of(entries)
    args.setting_notices = _head_config_notices(args, config, settings)
    return settings


def _head_config_notices(args: argparse.Namespace, config, settings) -> list[str]:  # noqa: ANN001
    """What ``--head-config`` would set aside beyond the settings in use (lines for the top of the output)."""
    from edge_origin.review.suppressions import Settings, setting_changes

    head_file = getattr(args, "head_config", None)
    if head_file is None:
        return []
    head = load_settings_file(head_file)
    flags = [e for e in settings.entries if e.from_flag]
    notices = setting_changes(settings, Settings.of([*head.entries, *flags]), config.fail_on, head.fail_on)
    return [f"{n} (in {head_file}, not applied: this run reads {config.source or 'no config file'})" for n in notices]
