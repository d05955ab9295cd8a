"""A JSON parse at C speed that never reads a text differently from the strict one.

The template loader's strict parse (``model.loader``) refuses what CloudFormation or a second reader
could read otherwise: a key twice in one object (Python's ``json`` keeps the last silently), numbers
that are not finite or do not fit 64 bits. Its hooks run Python for every object and number, so the
parse of a 10k-resource template costs twice a plain ``json.loads``. :func:`loads_exact` parses with
orjson and returns the tree only when three scans of the text prove that the strict parse would have
made the same tree; otherwise None, and the caller parses strictly (which also words the error):

- **No key dropped.** Every ``:`` of a JSON text is either a pair's separator or inside a string, and
  orjson writes every string's ``:`` back as it read it unless the text spelled one as an escape
  (``\\u003a``). So when the text has no ``\\u`` escape, its ``:`` count equals that of
  ``orjson.dumps(tree)`` exactly when no pair was dropped: a repeated key drops one, with its separator.
- **Numbers as Python reads them.** orjson makes a float of an integer outside 64 bits (Python: an
  int), refuses ``NaN``, ``Infinity`` and ``1e400`` (Python reads them; the strict parse refuses them
  with its own words) and parses floats correctly rounded, as ``float()`` does. A run of 19 or more
  digits anywhere (an integer at the edge of 64 bits, or a long fraction) sends the text to the strict
  parse.
- **Anything orjson refuses** (a lone surrogate, a BOM, nesting past its limit, bad syntax) goes to
  the strict parse, which refuses it or reads it as before.

Without orjson installed (it is a dependency; a platform without its wheel), every text takes the
strict parse: slower, never different.
"""

from __future__ import annotations

from typing import Any

try:  # a dependency (pyproject.toml); without its wheel every text takes the strict parse
    import orjson as _orjson
except ImportError:  # pragma: no cover (installed with edge-origin)
    _orjson = None

#: Every digit as "0": a run of digits becomes a run of zeros, found with one substring search.
_DIGITS_AS_ZERO = bytes.maketrans(b"0123456789", b"0" * 10)
#: 19 digits in a row: an integer at or past the edge of 64 bits (the strict parse refuses 20), or a
#: fraction orjson and ``float()`` might round apart: such texts take the strict parse.
_LONG_DIGITS = b"0" * 19


def available() -> bool:
    """Whether the fast parse can run here (orjson importable)."""
    return _orjson is not None


def loads_exact(text: str | bytes) -> Any | None:
    """The tree of the JSON ``text`` (or its UTF-8 bytes: a file as read, never decoded when this
    succeeds; a BOM or bytes that are not UTF-8 are refused here, and the caller decodes as before)
    when orjson parses it exactly as the strict parse would (no key repeated, every number as Python
    reads it); None when it cannot prove that (the caller parses strictly: it refuses the text or
    reads it as before)."""
    if _orjson is None:
        return None
    try:
        tree = _orjson.loads(text)
        data = text if isinstance(text, bytes) else text.encode("utf-8")
    except (ValueError, TypeError, UnicodeError):
        return None
    if b"\\u" in data or _LONG_DIGITS in data.translate(_DIGITS_AS_ZERO):
        return None
    try:
        written = _orjson.dumps(tree)
    except (TypeError, ValueError):  # nested past orjson's writer limit: the strict parse judges the depth
        return None
    return tree if data.count(b":") == written.count(b":") else None
