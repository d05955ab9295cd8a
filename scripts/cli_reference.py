"""Write docs/cli.md, the ``edge-origin`` CLI reference, from the argparse parsers themselves.

    PYTHONPATH=constructs python scripts/cli_reference.py           # rewrite docs/cli.md
    PYTHONPATH=constructs python scripts/cli_reference.py --check   # exit 1 when docs/cli.md is stale

One section per command (subcommands included, in the order ``--help`` lists them): its
description, a synopsis, and a table of its arguments with their values, defaults and help.
Nothing here depends on the terminal width or the Python version's help layout, so the file is
the same wherever it is written; ``tests/test_cli_reference.py`` fails when it is stale.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "cli.md"
REGENERATE = "PYTHONPATH=constructs python scripts/cli_reference.py"


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each subcommand, in the order they were added; an alias
    (``forecast``'s ``model``) is named in its command's help, not listed again."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            names: dict[int, list[str]] = {}
            for name, sub in action.choices.items():
                names.setdefault(id(sub), []).append(name)
            out = []
            for name, sub in action.choices.items():
                first, *aliases = names[id(sub)]
                if name == first:
                    alias = f" (alias: {', '.join(aliases)})" if aliases else ""
                    out.append((name, helps.get(name, "") + alias, sub))
            return out
    return []


def walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str, argparse.ArgumentParser]]:
    for name, summary, sub in _subcommands(parser):
        yield (*path, name), summary, sub
        yield from walk(sub, (*path, name))


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _value(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None:
        return "`" + "`, `".join(map(str, action.choices)) + "`"
    metavar = action.metavar if isinstance(action.metavar, str) else None
    return f"`{metavar or action.dest.upper()}`"


def _default(action: argparse.Action) -> str:
    default = action.default
    if action.nargs == 0 or default is None or default is argparse.SUPPRESS or default == []:
        return ""
    return f"`{default}`"


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help:
        return ""
    formatter = argparse.HelpFormatter(parser.prog)
    return _cell(formatter._expand_help(action))


def _synopsis(prog: str, parser: argparse.ArgumentParser) -> str:
    words = [prog]
    if any(a.option_strings and a.help is not argparse.SUPPRESS for a in parser._actions
           if not isinstance(a, argparse._HelpAction)):
        words.append("[options]")
    for action in parser._actions:
        if action.option_strings or isinstance(action, argparse._SubParsersAction):
            continue
        name = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
        words.append({"?": f"[{name}]", "*": f"[{name} ...]", "+": f"{name} ..."}.get(action.nargs, name))
    if _subcommands(parser):
        words.append("COMMAND ...")
    return " ".join(words)


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or action.help is argparse.SUPPRESS:
            continue
        name = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{_value(action).strip('`') or action.dest}`"
        value = _value(action) if action.option_strings else ""
        rows.append(f"| {name} | {value} | {_default(action)} | {_help(parser, action)} |")
    if not rows:
        return []
    return ["| argument | value | default | what it does |", "|---|---|---|---|", *rows, ""]


def render() -> str:
    from edge_origin.cli import build_parser

    root = build_parser()
    commands = list(walk(root))
    lines = [
        "# The `edge-origin` command line",
        "",
        f"Generated from the argparse parsers by `{REGENERATE}`; do not edit by hand",
        "(`tests/test_cli_reference.py` fails when this page and the parsers differ).",
        "",
        _cell(root.description or ""),
        "",
        "```text",
        _synopsis("edge-origin", root),
        "```",
        "",
        *_arguments(root),
        "| command | what it does |",
        "|---|---|",
    ]
    for path, summary, _ in commands:
        anchor = "edge-origin-" + "-".join(path)
        lines.append(f"| [`edge-origin {' '.join(path)}`](#{anchor}) | {_cell(summary)} |")
    lines.append("")
    for path, summary, parser in commands:
        prog = "edge-origin " + " ".join(path)
        lines += [f"{'#' * min(1 + len(path), 4)} {prog}", ""]
        description = parser.description or summary
        if description:
            lines += [_cell(description), ""]
        lines += ["```text", _synopsis(prog, parser), "```", "", *_arguments(parser)]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write docs/cli.md from the edge-origin parsers.")
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/cli.md differs, write nothing")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if OUTPUT.exists() and OUTPUT.read_text(encoding="utf-8") == text:
            return 0
        print(f"docs/cli.md is stale: run {REGENERATE}", file=sys.stderr)
        return 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
