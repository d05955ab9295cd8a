"""The ``edge-origin`` command: argument parsing only; every command calls into the library.

Exit codes, for every subcommand: 0 clean, 1 findings (or a failed run), 2 bad input.
One module a command family; each has ``register(subparsers)``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from edge_origin.cli.common import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK, UsageError, one_line

__all__ = ["EXIT_BAD_INPUT", "EXIT_FINDINGS", "EXIT_OK", "UsageError", "build_parser", "main"]

DESCRIPTION = (
    "Check, review, rehearse and safely change the gRPC edge-to-origin path (CloudFront -> multivalue "
    "Route 53 -> NLB -> EKS), in templates and in live accounts. Exit codes, for every subcommand: 0 clean, "
    "1 findings (or a failed run or refusal), 2 bad input."
)

# One line a command family (module edge_origin.cli.<name>), in the order `--help` lists them.
COMMAND_MODULES = (
    "check",
    "diff",
    "profile",
    "origin_secret",
    "rehearse",
    "model",
    "live",
    "plan",
)


class _Parser(argparse.ArgumentParser):
    """argparse, but bad flags are one line and exit 2 (argparse's own usage dump goes to stderr too)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {one_line(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="edge-origin", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        import_module(f"edge_origin.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"edge-origin {args.command}: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"edge-origin {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
