"""The ``edge-origin`` command: argument parsing only; every command calls into the library.

Exit codes, for every subcommand: 0 clean, 1 findings (or a failed run), 2 bad input.
One module a command family; each has ``register(subparsers)``.

Layer 6. May import: core, data, answers, profile, model, rules, review, cdk, rehearsal, forecast, live, testing, cli.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
from collections.abc import Sequence
from importlib import import_module

from edge_origin.cli.common import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK, UsageError, did_you_mean, one_line

__all__ = ["EXIT_BAD_INPUT", "EXIT_FINDINGS", "EXIT_OK", "UsageError", "build_parser", "main"]

DESCRIPTION = (
    "Check, review, rehearse and safely change the gRPC edge-to-origin path (CloudFront -> multivalue "
    "Route 53 -> NLB -> EKS), in templates and in live accounts. Exit codes, for every subcommand: 0 clean, "
    "1 findings (or a failed run or refusal), 2 bad input."
)

# One line a command family (module edge_origin.cli.<name>), in the order `--help` lists them.
COMMAND_MODULES = (
    "check",
    "rules",
    "diff",
    "profile",
    "origin_secret",
    "rehearse",
    "model",
    "live",
    "watch",
    "plan",
)


_INVALID_CHOICE = re.compile(r"argument (\S+): invalid choice: '((?:[^'\\]|\\.)*)' \(choose from (.*)\)$")
_UNRECOGNIZED = "unrecognized arguments: "


class _Parser(argparse.ArgumentParser):
    """argparse, but bad flags are one line and exit 2 (argparse's own usage dump goes to stderr too),
    with "did you mean" for a mistyped command, choice or flag (difflib, as git and pip do)."""

    #: the command line being parsed (set by ``main``), to name mistyped flags in any error
    argv: tuple[str, ...] = ()

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {one_line(self._explain(message))}\n")

    def known_flags(self) -> list[str]:
        return [o for o in self._option_string_actions if o.startswith("--") and o != "--help"]

    def _explain(self, message: str) -> str:
        choice = _INVALID_CHOICE.match(message)
        if choice:
            what, word = choice.group(1), choice.group(2)
            choices = [c.strip().strip("'") for c in choice.group(3).split(",")]
            noun = "command" if what == "command" else f"{what} value"
            return f"unknown {noun} {word!r}{did_you_mean(word, choices)} (choose from {', '.join(choices)})"
        if message.startswith(_UNRECOGNIZED):
            words = message[len(_UNRECOGNIZED):].split()
            return _UNRECOGNIZED + " ".join(words) + self.flag_hints(words)
        if message.startswith("the following arguments are required"):
            return message + self.flag_hints(self.argv)
        return message

    def flag_hints(self, words: Sequence[str]) -> str:
        """"; did you mean --head?" for each ``--flag`` in ``words`` this parser does not know."""
        known = self.known_flags()
        hints = []
        for word in words:
            flag = word.split("=", 1)[0]
            if flag.startswith("--") and flag not in known:
                hint = did_you_mean(flag, known)
                if hint:
                    hints.append(f"{flag}{hint[1:].replace(' did', ': did', 1)}")
        return "; " + "; ".join(hints) if hints else ""


def build_parser() -> argparse.ArgumentParser:
    from edge_origin._version import __version__

    parser = _Parser(prog="edge-origin", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"edge-origin {__version__}")
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


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, _Parser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)  # type: ignore[arg-type]
    return {}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except BrokenPipeError:
        return _quiet_closed_stdout()


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    _Parser.argv = tuple(sys.argv[1:] if argv is None else argv)
    args, extras = parser.parse_known_args(argv)
    if extras:  # name the flag the subcommand has that is nearest (argparse only says "unrecognized")
        subparser = _subparsers(parser).get(args.command, parser)
        subparser.error(_UNRECOGNIZED + " ".join(extras))
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
