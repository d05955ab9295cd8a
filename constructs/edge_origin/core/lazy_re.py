"""``lazy``: a regular expression compiled on first use (issue 53).

A module-level ``re.compile`` costs every process that imports the module (0.05-1 ms each; ~5 ms for the
patterns a check imports), though many are used only on some paths (an error message, a Markdown report,
an origin-verification header). ``lazy(pattern, flags)`` stands for ``re.compile(pattern, flags)``: its
first attribute read compiles it (``re.compile``, with its cache) and keeps the compiled pattern's
methods and attributes as its own, so every later ``.match``/``.search``/``.sub``... is the compiled
pattern's bound method, found in the instance's ``__dict__``: the same call, the same result. Use it for
method calls and the attributes below only (not where a ``re.Pattern`` itself is passed on).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

_KEPT = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer", "scanner",
         "pattern", "flags", "groups", "groupindex")


class LazyPattern:
    """``re.compile(pattern, flags)`` on first use; then its methods and attributes."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(*self._source)
        for kept in _KEPT:
            self.__dict__[kept] = getattr(compiled, kept)
        self.__dict__["compiled"] = compiled
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r}, {self._source[1]!r})"


def lazy(pattern: str, flags: int = 0) -> Any:
    """``re.compile(pattern, flags)``, compiled on first use (a ``LazyPattern``)."""
    return LazyPattern(pattern, flags)
