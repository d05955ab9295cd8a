"""The ``edge-origin`` command: argument parsing only; every command calls into the library.

Exit codes, for every subcommand: 0 clean, 1 findings (or a failed run), 2 bad input.
One module a command family; each has ``register(subparsers)``.
"""

from __future__ import annotations

import argparse
import os
import signal
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
    "watch",
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


#: What a shell reports for a process killed by SIGPIPE (128 + 13): ``cmd | head`` exits like this.
EXIT_CLOSED_PIPE = 128 + int(getattr(signal, "SIGPIPE", 13))


def _quiet_closed_stdout() -> int:
    """The reader went away (``| head``, ``| true``): say nothing, as Unix tools do. Point stdout at
    /dev/null so the interpreter's final flush does not raise again (Python docs, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout without a file descriptor (a test's StringIO)
        pass
    return EXIT_CLOSED_PIPE


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except BrokenPipeError:
        return _quiet_closed_stdout()


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from edge_origin.live.guard import RunGuard, Stop, default_deadline

    live = hasattr(args, "deadline")  # the live commands: signals, the deadline, redacted output
    guard = RunGuard(args.command, args.deadline or default_deadline(args)) if live else None
    try:
        if guard is not None:
            with guard:
                code = int(args.func(args))
                sys.stdout.flush()
            return code
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at exit
        return code
    except BrokenPipeError:
        raise
    except UsageError as exc:
        _say(f"edge-origin {args.command}: {one_line(str(exc))}", live)
        return EXIT_BAD_INPUT
    except Stop as exc:
        _say(f"edge-origin {args.command}: {one_line(str(exc))}", live)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"edge-origin {args.command}: interrupted", file=sys.stderr)
        return 130


def _say(line: str, live: bool) -> None:
    """One line on stderr; a live command's passes the redactor (it may quote an AWS answer)."""
    if live:
        from edge_origin.live.redact import redact

        line = redact(line)
    print(line, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
