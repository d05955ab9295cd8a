"""A JSON parse at C speed that never reads a text differently from the strict one.

The template loader's strict parse (``model.loader``) refuses what CloudFormation or a second reader
could read otherwise: a key twice in one object (Python's ``json`` keeps the last silently), numbers
that are not finite or do not fit 64 bits. Its hooks run Python for every object and number, so the
parse of a 10k-resource template costs twice a plain ``json.loads``. :func:`loads_exact` parses with
orjson and returns the tree only when the text is, but for whitespace, what orjson writes of that
tree; otherwise None, and the caller parses strictly (which also words the error).

The proof: ``written = orjson.dumps(tree)`` (integers beyond 53 bits refused by the writer), then the
text with its whitespace (space, tab, CR, LF) deleted must equal ``written`` with its spaces deleted:
one deleting pass over the text, one over ``written`` (spaces only sit inside its strings: orjson writes
no whitespace between tokens and escapes tab, CR and LF), and one comparison. Why that is enough:

- **Same tokens.** A valid JSON text has whitespace only between tokens or as spaces inside strings (a
  raw tab, CR or LF in a string is refused by orjson, and a backslash is never followed by a space), so
  deleting it joins no tokens and moves no string's quotes or escapes: the two texts, both valid JSON
  (orjson parsed the one and wrote the other), spell the same tokens in the same order, strings alike but
  for their spaces, every number, ``true``, ``false``, ``null``, bracket, comma and colon byte for byte.
- **No key dropped.** ``written`` has as many pairs in each object as orjson's dict has entries; the text
  has as many as it spells. A key twice in one object leaves one entry (one pair fewer), so the token
  counts, hence the texts, would differ. The strict parse therefore sees no repeated key (the keys it
  decodes are orjson's: both parsers read strings by RFC 8259, and orjson refuses a lone surrogate, a
  BOM and bytes that are not UTF-8), and builds the same objects, in the same order.
- **Numbers as Python reads them.** Each number of the text is spelled as orjson writes the value it
  holds: an integer as its decimal digits, at most 16 of them (``OPT_STRICT_INTEGER``: within 53 bits, far
  inside the strict parse's 64), which the strict parse reads as the same ``int``; a float always with a
  ``.`` or an exponent (``100.0``, ``1e+16``, ``0.00001``), in the shortest digits that read back to that
  same double (ryu), which ``float()`` (correctly rounded) therefore returns: the same ``float``, finite
  (orjson writes a non-finite float as ``null``, which is no number; ``tests/core/test_fast_json.py``
  holds orjson's writer to all of this). How orjson itself rounded the
  text's digits does not matter: the spelling is its own. A number spelled otherwise (``1E2``, ``1.50``,
  ``-0``, 20 digits, an escape such as ``\\u003a`` or ``\\/`` in a string) makes the texts differ: the
  strict parse reads that text.
- **Anything orjson refuses** (a lone surrogate, a BOM, nesting past its reader's or writer's limit,
  bad syntax, an integer past 53 bits) goes to the strict parse, which refuses it or reads it as before.

A text already written compactly as orjson writes it (no whitespace between tokens) is compared as is,
without the deleting passes. Without orjson installed (it is a dependency; a platform without its
wheel), every text takes the strict parse: slower, never different.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

#: orjson once imported (None: not installed), or _UNLOADED. Importing it costs ~13 ms of CPU (it imports
#: uuid, platform, datetime, dataclasses, inspect, json); its parse saves ~3.5-5 ms a MB over the strict
#: one. So a process imports it only once its texts reach _IMPORT_AT bytes in all: a small template's check
#: takes the strict parse (the same tree, never different: see above), a 10k-resource one (8 MB) orjson's.
_UNLOADED: Any = object()
_orjson: Any = _UNLOADED
_IMPORT_AT = 3 * 1024 * 1024
_seen = 0


def _loaded(size: int) -> Any:
    """orjson, None when it is not installed, or when the texts so far (with this one) are under ``_IMPORT_AT``."""
    global _orjson, _seen
    if _orjson is _UNLOADED:
        _seen += size
        if _seen < _IMPORT_AT:
            return None
        try:  # a dependency (pyproject.toml); without its wheel every text takes the strict parse
            _orjson = _import_lightly() if LIGHT_IMPORT else _import()
        except ImportError:  # pragma: no cover (installed with edge-origin)
            _orjson = None
    return _orjson


#: Set by the ``edge-origin`` program for its read-and-print commands (``cli.entry``), which never hand orjson a
#: UUID or a dataclass: orjson is then imported without the modules it reads only to write those (below).
LIGHT_IMPORT = False
#: What orjson's import reads only to serialize a UUID or a dataclass's fields (its typeref.rs: ``uuid.UUID``,
#: ``dataclasses._FIELD``): ~9 ms of a process's start (dataclasses imports inspect, ast, dis, tokenize; uuid
#: imports platform), a tenth of a 10k-resource check's own work beside the parse.
_WRITE_ONLY = ("uuid", "dataclasses")


def _import() -> Any:
    import orjson

    return orjson


class _AnyName(dict):  # type: ignore[type-arg]
    """A stand-in's namespace: every name orjson looks up is a new class no real value is an instance of."""

    def __missing__(self, name: str) -> type:
        return type(f"_not_{name}", (), {})


class _StandIn:
    """Stands in ``sys.modules`` for a module orjson reads only to serialize its types, while orjson is imported;
    answers any name, as an item of its namespace (what orjson reads) or as an attribute."""

    def __init__(self, name: str) -> None:
        self.__dict__ = _AnyName(__name__=name)

    def __getattr__(self, name: str) -> Any:
        return self.__dict__[name]


def _import_lightly() -> Any:
    """orjson imported with stand-ins for ``_WRITE_ONLY`` not yet imported, removed again at once (a later
    ``import uuid`` gets the real module). In this process orjson then writes no UUID or dataclass (it refuses
    them with TypeError, as it refuses any type it does not know); it reads and writes JSON values as ever.
    Should orjson's import fail with them, it is imported again without."""
    import sys

    placed = [name for name in _WRITE_ONLY if name not in sys.modules]
    for name in placed:
        sys.modules[name] = _StandIn(name)  # type: ignore[assignment]
    try:
        return _import()
    except Exception:  # noqa: BLE001 (an orjson that reads more of them: the plain import below)
        sys.modules.pop("orjson.orjson", None)
        sys.modules.pop("orjson", None)
    finally:
        for name in placed:
            if sys.modules.get(name).__class__ is _StandIn:
                del sys.modules[name]
    return _import()


#: The whitespace JSON allows between tokens (RFC 8259): deleted from the text before the comparison.
_WHITESPACE = b" \t\n\r"


def available() -> bool:
    """Whether the fast parse can run here (orjson importable)."""
    return _loaded(_IMPORT_AT) is not None


def loads_exact(text: str | bytes) -> Any | None:
    """The tree of the JSON ``text`` (or its UTF-8 bytes: a file as read, never decoded when this
    succeeds; a BOM or bytes that are not UTF-8 are refused here, and the caller decodes as before)
    when orjson parses it exactly as the strict parse would (no key repeated, every number as Python
    reads it); None when it cannot prove that (the caller parses strictly: it refuses the text or
    reads it as before)."""
    orjson = _loaded(len(text))
    if orjson is None:
        return None
    try:
        tree = orjson.loads(text)
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        # an integer past 53 bits, nesting past the writer's limit: TypeError (the strict parse judges it)
        written = orjson.dumps(tree, option=orjson.OPT_STRICT_INTEGER)
    except (ValueError, TypeError, UnicodeError):
        return None
    if data == written:
        return tree
    written = written.replace(b" ", b"")  # the writing freed before the text's copy is made (one buffer fewer)
    return tree if data.translate(None, _WHITESPACE) == written else None
