"""The ``edge-origin`` command: argument parsing only; every command calls into the library.

Exit codes, for every subcommand: 0 clean, 1 findings (or a failed run), 2 bad input.
One module a command family; each has ``register(subparsers)``.

Layer 6. May import: core, data, answers, profile, model, rules, review, cdk, rehearsal, forecast, live, testing, cli.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import import_module

from edge_origin.cli.common import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK, UsageError, did_you_mean, one_line
from edge_origin.core.lazy_re import lazy

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["EXIT_BAD_INPUT", "EXIT_FINDINGS", "EXIT_OK", "UsageError", "build_parser", "main"]

DESCRIPTION = (
    "Check, review, rehearse and safely change the gRPC edge-to-origin path (CloudFront -> multivalue "
    "Route 53 -> NLB -> EKS), in templates and in live accounts. Exit codes, for every subcommand: 0 clean, "
    "1 findings (or a failed run or refusal), 2 bad input."
)

# Every command: (name, aliases, its module edge_origin.cli.<module>, its one-line help), in the order
# `--help` lists them. Only the module of the command being run is imported (``build_parser(argv)``);
# the others are listed from this table, so `--help` and `check` import no other command's
# library. tests/cli/test_lazy_parser.py holds this table to what the modules register.
COMMANDS: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("check", (), "check", "check CloudFormation templates (or a cdk.out) for edge-origin failure modes"),
    ("report", (), "check", "write a review report (Markdown + Mermaid) of the edge-to-origin paths"),
    ("rules", (), "rules", "list the rules (id, severity, title); `rules explain EO-DNS1`: why, source, fix, an example"),
    ("diff", (), "diff", "what deploying --head over --base does to the origin paths: changes and transition findings"),
    ("profile", (), "profile", "check or render a connection profile (keepalive, idle timeouts, age)"),
    ("origin-secret", (), "origin_secret", "rotate the origin verification secret (prints version ids, never values)"),
    ("rehearse", (), "rehearse", "replay a synchronized connection burst against the DNS plan"),
    ("forecast", ("model",), "forecast",
     "the internet-scale forecast: a planned event's burst (predict), the incident (fit)"),
    ("audit", (), "live", "read the live account (read-only) and run the rules on what is deployed"),
    ("verify", (), "live", "after cdk deploy: compare the deployed stacks with the cloud assembly"),
    ("preflight", (), "live", "before cdk deploy: what the templates create against the account's quotas"),
    ("ready", (), "live",
     "before an event: one read-only report (quotas, NLB capacity reservations per zone, origin records, alarms, "
     "Route 53 guards; optionally the forecast's prediction, a connection profile and a rehearsal result); exit 0 only "
     "when every line is ready"),
    ("dns-spread", (), "live", "ask a resolver N times for NAME and report how the answers spread"),
    ("watch", (), "watch",
     "read-only: CloudWatch metrics of an origin path -> spread verdict over time (exit 0 spread, 1 pile-up, 2 not "
     "readable)"),
    ("plan", (), "plan", "make or show DNS plans for an origin name (multivalue, health-checked)"),
    ("enact", (), "plan", "apply a DNS plan as one Route 53 change batch, guarded by the generation record"),
)
#: One module a command family, in the order `--help` lists them.
COMMAND_MODULES = tuple(dict.fromkeys(module for _, _, module, _ in COMMANDS))
_MODULE_OF = {word: module for name, aliases, module, _ in COMMANDS for word in (name, *aliases)}


_INVALID_CHOICE = lazy(r"argument (\S+): invalid choice: '((?:[^'\\]|\\.)*)' \(choose from (.*)\)$")
_UNRECOGNIZED = "unrecognized arguments: "


class _Parser(argparse.ArgumentParser):
    """argparse, but bad flags are one line and exit 2 (argparse's own usage dump goes to stderr too),
    with "did you mean" for a mistyped command, choice or flag (difflib, as git and pip do)."""

    #: the command line being parsed (set by ``main``), to name mistyped flags in any error
    argv: tuple[str, ...] = ()
    #: True while ``add_argument`` checks the new argument's metavar against its nargs (the one use it
    #: makes of a formatter, whose width it never reads): that formatter is given a width, so building
    #: the parser never asks the terminal's size (shutil's import and a query an argument: issue 53).
    _checking_metavar = False

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        self._checking_metavar = True
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._checking_metavar = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        if self._checking_metavar:
            return self.formatter_class(prog=self.prog, width=80)  # type: ignore[call-arg]
        return super()._get_formatter()

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


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``edge-origin`` parser. Without ``argv``: every command module registered (docs/cli.md, tests).
    With ``argv``: only the module of the command ``argv`` names is imported and registered; every other
    command is listed by its name and help from ``COMMANDS`` (the same ``--help`` text, a fraction of
    the imports)."""
    from edge_origin._version import __version__

    wanted = None if argv is None else _MODULE_OF.get(_command_word(argv), "")
    parser = _Parser(prog="edge-origin", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"edge-origin {__version__}")
    _add_limit_flags(parser)
    # prog: what argparse makes it without one (the usage of the parser's positionals, none: its prog),
    # without a formatter asking the terminal's width
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, prog=parser.prog)
    for module in COMMAND_MODULES:
        if wanted is None or module == wanted:
            import_module(f"edge_origin.cli.{module}").register(sub)
            continue
        sub._parser_class = _Unbuilt  # type: ignore[attr-defined]  # listed, not built (argparse's own add_parser)
        for name, aliases, owner, text in COMMANDS:
            if owner == module:  # listed, not built: its module is imported only when it runs
                sub.add_parser(name, aliases=list(aliases), help=text, add_help=False)
        sub._parser_class = _Parser  # type: ignore[attr-defined]
    return parser


class _Unbuilt:
    """A listed command's parser: ``_Parser(**kwargs)`` as ``add_parser`` makes it, made on first use (a run
    uses one command's parser; building the others cost ~3 ms: each asks gettext twice, issue 53)."""

    def __init__(self, **kwargs: Any) -> None:
        self.__dict__["_kwargs"] = kwargs

    def _built(self) -> _Parser:
        parser = self.__dict__.get("_parser")
        if parser is None:
            parser = self.__dict__["_parser"] = _Parser(**self.__dict__["_kwargs"])
        return parser  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._built(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._built(), name, value)


def _command_word(argv: Sequence[str]) -> str:
    """The command ``argv`` names: its first word that is not an option (the top-level options,
    ``--help`` and ``--version``, take no value; the limit flags take one, as ``--flag N`` or ``--flag=N``)."""
    from edge_origin.core.limits import FLAGS

    skip = False
    for word in argv:
        if skip:
            skip = False
            continue
        if word == "--":
            return ""
        if word in FLAGS.values():
            skip = True
            continue
        if not word.startswith("-"):
            return word
    return ""


def _add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """The flags that raise the bounds on one input's work (edge_origin.core.limits), before the command."""
    from edge_origin.cli.common import int_range
    from edge_origin.core.limits import DEFAULT, FLAGS

    g = parser.add_argument_group("bounds on the work any one input may cost (a file over one is refused, exit 2)")
    g.add_argument(FLAGS["file_bytes"], type=int_range(1, 4096), default=DEFAULT.file_bytes // (1024 * 1024), metavar="N",
                   help=f"largest input file read, MiB (1..4096; default {DEFAULT.file_bytes // (1024 * 1024)})")
    g.add_argument(FLAGS["eval_steps"], type=int_range(1000, 10**10), default=DEFAULT.eval_steps, metavar="N",
                   help=f"intrinsic-function evaluation steps a template may take (default {DEFAULT.eval_steps:,})")
    g.add_argument(FLAGS["eval_chars"], type=int_range(1000, 2**40), default=DEFAULT.eval_chars, metavar="N",
                   help="characters intrinsic functions or YAML aliases may build per template "
                   f"(default {DEFAULT.eval_chars:,})")


def _apply_limits(args: argparse.Namespace) -> None:
    from edge_origin.core.limits import Limits, set_for_process

    set_for_process(Limits(file_bytes=args.max_file_mib * 1024 * 1024, eval_steps=args.max_eval_steps,
                           eval_chars=args.max_eval_chars))


def _exit_closed_pipe() -> int:
    """What a shell reports for a process killed by SIGPIPE (128 + 13): ``cmd | head`` exits like this.
    (``signal`` is imported only here: its enums cost every command's start ~0.5 ms, issue 53.)"""
    import signal

    return 128 + int(getattr(signal, "SIGPIPE", 13))


def _quiet_closed_stdout() -> int:
    """The reader went away (``| head``, ``| true``): say nothing, as Unix tools do. Point stdout at
    /dev/null so the interpreter's final flush does not raise again (Python docs, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout without a file descriptor (a test's StringIO)
        pass
    return _exit_closed_pipe()


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, _Parser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)  # type: ignore[arg-type]
    return {}


def main(argv: Sequence[str] | None = None) -> int:
    import contextvars

    try:  # in a copy of the context: the limit flags (core.limits) end with the run, even in-process
        return contextvars.copy_context().run(_run, argv)
    except BrokenPipeError:
        return _quiet_closed_stdout()


#: Commands that only read files and print (no threads, child processes, sockets or temporary files
#: outlive them): the process ends by ``os._exit`` after they return, without the collector.
_FAST_EXIT = frozenset({"check", "report", "diff", "rules", "profile"})


def entry() -> None:
    """The ``edge-origin`` program (console script and ``python -m edge_origin.cli``): ``main``, then exit.

    For the read-and-print commands (``_FAST_EXIT``), the cyclic collector is off for the run (the
    model makes hundreds of thousands of objects and no garbage cycles) and, once stdout and stderr are
    flushed, the process ends with ``os._exit``: tearing a large model's heap down object by object
    costs about a third of a second on 10k resources and changes nothing. Every other command, and
    ``main`` called as a library function, exits normally."""
    import contextlib
    import gc

    if _command_word(sys.argv[1:]) not in _FAST_EXIT:
        sys.exit(main())
    gc.disable()
    from edge_origin.cli import common
    from edge_origin.core import fast_json, files

    common.HELD_UNTIL_EXIT = []  # what the command keeps is freed by the exit, not object by object
    files.SHORT_LIVED_PROCESS = True  # freed memory may stay with the process (large inputs: fewer page faults)
    fast_json.LIGHT_IMPORT = True  # nothing here hands orjson a UUID or a dataclass
    try:
        code = main()
    except SystemExit as exc:  # argparse's exit 2 (a bad flag), ``check --help``
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else _say_exit(exc.code))
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _quiet_closed_stdout()
    except (OSError, ValueError):
        pass
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)


def _say_exit(message: object) -> int:
    """``sys.exit("text")``: the text on stderr, exit code 1 (as the interpreter does)."""
    print(message, file=sys.stderr)
    return 1


def _run(argv: Sequence[str] | None) -> int:
    _Parser.argv = tuple(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_Parser.argv)
    args, extras = parser.parse_known_args(argv)
    if extras:  # name the flag the subcommand has that is nearest (argparse only says "unrecognized")
        subparser = _subparsers(parser).get(args.command, parser)
        subparser.error(_UNRECOGNIZED + " ".join(extras))
    _apply_limits(args)
    live = hasattr(args, "deadline")  # the live commands: signals, the deadline, redacted output
    guard = None
    if live:
        from edge_origin.live.guard import RunGuard, default_deadline

        guard = RunGuard(args.command, args.deadline or default_deadline(args))
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
    except KeyboardInterrupt:
        print(f"edge-origin {args.command}: interrupted", file=sys.stderr)
        return 130
    except BaseException as exc:
        if not _is_stop(exc):
            raise
        _say(f"edge-origin {args.command}: {one_line(str(exc))}", live)
        return exc.exit_code  # type: ignore[attr-defined]


def _is_stop(exc: BaseException) -> bool:
    """``exc`` is a live command's ``edge_origin.live.guard.Stop`` (a signal or the deadline); the
    guard is imported only by the commands that use it."""
    guard = sys.modules.get("edge_origin.live.guard")
    return guard is not None and isinstance(exc, guard.Stop)


def _say(line: str, live: bool) -> None:
    """One line on stderr; a live command's passes the redactor (it may quote an AWS answer)."""
    if live:
        from edge_origin.live.redact import redact

        line = redact(line)
    print(line, file=sys.stderr)


if __name__ == "__main__":
    entry()
