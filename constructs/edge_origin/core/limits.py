"""The work any one input may cost: file size, nesting, intrinsic evaluation steps and characters.

A pull request's author controls the templates, the cdk.out, the config and the profile a review
reads, so every reader is bounded by these numbers, not by the size of the machine. Each limit
has a command-line flag that raises it (``edge-origin --max-eval-steps N check ...``: a flag of
the ``edge-origin`` command itself, before the subcommand); an input over a limit is refused with
one line naming the file, the limit and that flag (exit 2).

The defaults keep any input of up to 1 MiB (CloudFormation's own template limit from S3) within
about 10 s and 1 GiB on two cores (``benchmarks/bench_hostile.py`` prints the figures).
The current limits are a context variable (``using(...)``), so a test or an embedding program
can set its own without touching another thread's.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import namedtuple
from collections.abc import Iterator

#: Bounds on the work one input may cause (each raised by the flag in ``FLAGS``), in order:
#: - ``file_bytes``: largest input file read (templates, manifests, profiles, config, baselines, rehearsal
#:   files), 16 MiB;
#: - ``eval_steps``: intrinsic-function evaluation steps (values visited, memo hits included) per template,
#:   2,000,000;
#: - ``eval_chars``: characters intrinsic evaluation may build per template (Fn::Join/Fn::Sub/Fn::Split/
#:   Fn::ToJsonString results) and characters a YAML document's aliases may expand to, 32 MiB.
#: A named tuple, not a dataclass: ``edge-origin --help`` reads the defaults, and ``dataclasses`` (with
#: ``inspect``) would be most of its start-up; made by ``collections.namedtuple``, not ``typing.NamedTuple``,
#: whose string annotations cost a check its first ``compile`` (the ``ast`` types: issue 53).
Limits = namedtuple("Limits", ("file_bytes", "eval_steps", "eval_chars"),
                    defaults=(16 * 1024 * 1024, 2_000_000, 32 * 1024 * 1024))
Limits.__doc__ = """Bounds on the work one input may cause (each raised by the flag in ``FLAGS``)."""


#: The flag that raises each limit (given to ``edge-origin`` before the subcommand).
FLAGS = {
    "file_bytes": "--max-file-mib",
    "eval_steps": "--max-eval-steps",
    "eval_chars": "--max-eval-chars",
}

#: Deepest nesting of any document read (CloudFormation templates rarely pass 15; not a flag).
MAX_DEPTH = 100

DEFAULT = Limits()
_CURRENT: contextvars.ContextVar[Limits] = contextvars.ContextVar("edge_origin_limits", default=DEFAULT)


def current() -> Limits:
    """The limits in force."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(limits: Limits | None = None, **changes: int) -> Iterator[Limits]:
    """Run a block with other limits (``using(eval_steps=10_000)``)."""
    chosen = (limits or current())._replace(**changes)
    token = _CURRENT.set(chosen)
    try:
        yield chosen
    finally:
        _CURRENT.reset(token)


def set_for_process(limits: Limits) -> None:
    """Set the limits for the rest of this context (the CLI does, from its flags, inside a copied
    context: ``edge_origin.cli.main``)."""
    _CURRENT.set(limits)


def raise_hint(name: str) -> str:
    """``"(limit 2,000,000; raise with edge-origin --max-eval-steps N)"`` for a limit's field name."""
    value = getattr(current(), name)
    shown = f"{value // (1024 * 1024)} MiB" if name == "file_bytes" else f"{value:,}"
    return f"(limit {shown}; raise with edge-origin {FLAGS[name]} N)"



def _repr_pieces(value: object, cap: int) -> Iterator[str]:
    """Pieces of ``repr(value)`` in order; each is at most ``cap`` + a few characters long."""
    if isinstance(value, str):
        yield repr(value[: cap + 1])
    elif isinstance(value, dict):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield ", " if i else ""
            yield from _repr_pieces(key, cap)
            yield ": "
            yield from _repr_pieces(item, cap)
        yield "}"
    elif isinstance(value, (list, tuple)):
        yield "[" if isinstance(value, list) else "("
        for i, item in enumerate(value):
            yield ", " if i else ""
            yield from _repr_pieces(item, cap)
        yield "]" if isinstance(value, list) else ("," if len(value) == 1 else "") + ")"
    elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * cap:
        yield f"<an integer of {value.bit_length()} bits>"
    else:
        yield repr(value)[: cap + 1]


def short_repr(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (the first ``limit - 3`` and ``...``) while it is
    built: a 100 MB value or an alias bomb costs what a small one does."""
    out: list[str] = []
    size = 0
    for piece in _repr_pieces(value, limit):
        out.append(piece)
        size += len(piece)
        if size > limit:
            break
    text = "".join(out)
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."
