"""core.fast_json: the orjson parse is taken only when it reads a text exactly as the strict parse.

The property: for any text, ``loads_exact`` is None, or the strict parse (the loader's hooks: duplicate
keys, 64-bit integers, finite numbers refused) accepts the text and makes the same tree, type for type
(``1`` and ``1.0`` differ). Texts are generated around the shapes that tell the two apart: repeated keys
(also inside strings, behind escapes and with spaces that the proof's whitespace deletion removes),
integers at the 53- and 64-bit edges, long fractions, exponents past the double range, ``\\u`` escapes of
``:``, lone surrogates, non-ASCII text, NaN/Infinity, in every layout (compact, spaced, indented with
spaces, tabs or CRLF). And the other way: what orjson writes back (however laid out) is taken.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from edge_origin.core import fast_json
from edge_origin.model import ModelError, load_model
from edge_origin.model.loader import _json_constant, _json_float, _json_int, _json_object, _parse_document

pytestmark = pytest.mark.skipif(not fast_json.available(), reason="orjson is not installed")


def strict(text: str) -> Any:
    """The loader's strict parse (what it used before the fast path), or the exception it raises."""
    try:
        return json.loads(text, parse_constant=_json_constant, parse_float=_json_float, parse_int=_json_int,
                          object_pairs_hook=_json_object)
    except (ValueError, RecursionError) as exc:
        return exc


def typed(value: Any) -> Any:
    """``value`` with every scalar tagged by its exact type, keys in order: equal only when identical."""
    if isinstance(value, dict):
        return ("dict", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


def assert_same_or_declined(text: str) -> None:
    fast = fast_json.loads_exact(text)
    if fast is None:
        return
    slow = strict(text)
    assert not isinstance(slow, Exception), f"fast path accepted what the strict parse refuses ({slow}): {text[:200]!r}"
    assert typed(fast) == typed(slow), text[:200]


KEYS = st.sampled_from(["a", "A", "Type", "Fn::Join", "x:y", ":", "é", "Ref", "a\\u003a", "\\u0041", "a b", "ab", " a", "a\\/"])
#: Whitespace between tokens: the proof deletes it (and the spaces inside strings) before comparing.
SPACE = st.sampled_from(["", " ", "\n ", "\t", "\r\n  ", "  "])
NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(["9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                     "18446744073709551615", "18446744073709551616", "9999999999999999999", "1e400", "-1e400",
                     "1.7976931348623157e308", "1.7976931348623159e308", "4.9e-324", "2.4703282292062327e-324",
                     "0.1", "-0.0", "1E2", "1.00000000000000000001", "123456789012345678.5", "NaN", "Infinity"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    # decimal literals whose digit runs stay under 19 (the fast path takes them): orjson must round as float()
    st.builds(lambda sign, whole, fraction, exponent: f"{sign}{whole}.{fraction}{exponent}",
              st.sampled_from(["", "-"]), st.integers(0, 10**18 - 1), st.from_regex(r"[0-9]{1,18}", fullmatch=True),
              st.sampled_from(["", "e5", "E+300", "e-320", "e308", "e-5", "E16"])),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f"{f:.25e}"),
)
STRINGS = st.one_of(
    st.text(max_size=12).map(json.dumps),
    st.text(max_size=12).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.sampled_from(['":"', '"a\\":"', '"\\u003a"', '"\\ud800"', '"\\ud83d\\ude00"', '"\\\\u003a"', '"{\\"a\\":1}"']),
)


def _object(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.lists(st.tuples(st.one_of(KEYS.map(lambda k: f'"{k}"'), STRINGS), children), max_size=5)
    return st.builds(lambda ps, ws: "{" + ws + f",{ws}".join(f"{k}{ws}:{ws}{v}" for k, v in ps) + ws + "}", pairs, SPACE)


def _array(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(lambda xs, ws: "[" + ws + f",{ws}".join(xs) + ws + "]", st.lists(children, max_size=5), SPACE)


VALUES = st.recursive(
    st.one_of(NUMBERS, STRINGS, st.sampled_from(["true", "false", "null"])),
    lambda children: st.one_of(_object(children), _array(children)),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(VALUES)
@example('{"a":1,"a":1}')
@example('{"a":{"b":":"},"a":{"b":":"}}')
@example('{"a\\u003a":1,"a\\u003a":2}')
@example('{"x":"\\u003a","a":1,"a":2}')
@example("[18446744073709551615]")
@example("[-9223372036854775809]")
@example('{"A":1e400}')
@example('{"a b":1,"a b":1}')
@example('{"a b":1,"ab":1}')
@example('{ "a" : 1 , "a" : 1 }')
@example('[10000000000000000000]')
@example('[9007199254740993]')
@example('[1E2, 1.50, -0, 0.1000000000000000000001]')
def test_fast_parse_is_the_strict_parse_or_declines(text: str) -> None:
    assert_same_or_declined(text)


JSON_DOCS = st.dictionaries(st.text(max_size=6), st.recursive(
    st.one_of(st.integers(min_value=-(2**64), max_value=2**64), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=8), st.booleans(), st.none()),
    lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.text(max_size=6), c, max_size=4)), max_leaves=20))
#: How a writer may lay a document out: json.dumps's separators and indents, CRLF line ends.
LAYOUTS = st.sampled_from([{"separators": (",", ":")}, {}, {"indent": 1}, {"indent": 2}, {"indent": "\t"},
                           {"indent": 1, "crlf": True}])


def _dump(doc: Any, layout: dict[str, Any], ascii_only: bool) -> str:
    options = {k: v for k, v in layout.items() if k != "crlf"}
    text = json.dumps(doc, ensure_ascii=ascii_only, **options)
    return text.replace("\n", "\r\n") if layout.get("crlf") else text  # a newline in a string is written \\n


def _scalars(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in _scalars(v))]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [value]


@settings(max_examples=60, deadline=None)
@given(JSON_DOCS, LAYOUTS, st.booleans())
@example({"\x7f": [1e-05, 2**53 - 1]}, {"indent": 1, "crlf": True}, True)
@example({"\x7f": [1e-05, 2**53 - 1]}, {"indent": 1, "crlf": True}, False)
def test_what_orjson_writes_is_taken_in_any_layout(doc: dict[str, Any], layout: dict[str, Any], ascii_only: bool) -> None:
    """A document (no repeated key by construction) written by json.dumps (the same string escapes as
    orjson) is taken whatever the layout, exactly when its integers fit 53 bits, its floats are spelled as
    orjson spells them (``repr`` mostly; ``0.00001`` for ``1e-05``) and (with ``ensure_ascii``) its strings
    hold nothing past ``~``; and always as the strict parse reads it."""
    import orjson

    text = _dump(doc, layout, ascii_only)
    scalars = _scalars(doc)
    big = any(isinstance(s, int) and not isinstance(s, bool) and abs(s) >= 2**53 for s in scalars)
    respelled = any(isinstance(s, float) and orjson.dumps(s).decode() != repr(s) for s in scalars)
    # ensure_ascii escapes every character past "~" (DEL too), orjson writes them as they are
    escaped = ascii_only and any(isinstance(s, str) and any(c > "~" for c in s) for s in scalars)
    fast = fast_json.loads_exact(text)
    assert (fast is not None) == (not big and not respelled and not escaped), text[:200]
    if fast is not None:
        assert typed(fast) == typed(strict(text))


@settings(max_examples=60, deadline=None)
@given(JSON_DOCS.filter(bool), LAYOUTS, st.data())
def test_a_repeated_key_is_refused_in_any_layout(doc: dict[str, Any], layout: dict[str, Any], data: st.DataObject) -> None:
    """A key written twice in one object (the same value or another; at the top or nested) is refused,
    whatever the whitespace around it or inside the keys (the proof deletes both)."""
    key = data.draw(st.sampled_from(sorted(doc)))
    again = data.draw(st.one_of(st.just(doc[key]), st.integers(-5, 5), st.text(max_size=3)))
    text = _dump(doc, layout, False)
    space = data.draw(SPACE)
    text = "{" + space + json.dumps(key, ensure_ascii=False) + space + ":" + space + json.dumps(again) + "," + text[1:]
    text = data.draw(st.sampled_from([text, f'{{"Resources": {text}}}', f"[1, {text}]"]))
    assert isinstance(strict(text), Exception)
    assert fast_json.loads_exact(text) is None, text[:200]


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.integers(min_value=2**53, max_value=2**64 - 1), st.integers(min_value=-(2**63), max_value=-(2**53))),
       LAYOUTS)
def test_integers_past_53_bits_take_the_strict_parse(number: int, layout: dict[str, Any]) -> None:
    """orjson reads an integer up to 2**64 - 1 as an int; the strict parse refuses 20 digits (past 64 bits):
    the fast path declines every integer past 53 bits, so the strict parse judges them."""
    assert fast_json.loads_exact(_dump({"A": [number]}, layout, False)) is None


@settings(max_examples=80, deadline=None)
@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-(2**53) + 1, 2**53 - 1)))
def test_orjson_writes_numbers_as_the_proof_says(number: float | int) -> None:
    """What the proof rests on: orjson writes an integer within 53 bits as its decimal digits and a finite
    float with a ``.`` or an exponent, in a spelling ``float()`` reads back to the same double."""
    import orjson

    written = orjson.dumps(number, option=orjson.OPT_STRICT_INTEGER).decode()
    if isinstance(number, int):
        assert written == str(number)
    else:
        assert any(c in written for c in ".eE")
        assert float(written).hex() == number.hex()


@pytest.mark.parametrize("text", [
    '{"Resources": {"R": {"Type": "X"}, "R": {"Type": "Y"}}}',
    '{"Resources": {"R": {"Type": "X", "Properties": {"A": 1, "A": 2}}}}',
    '{"Resources": {"R": {"Type": "X", "Properties": {"A\\u003a": 1, "A\\u003a": 2}}}}',
])
def test_a_repeated_key_is_refused_with_its_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(ModelError, match="duplicate key"):
        load_model([path])


def test_the_fast_path_is_what_reads_a_template() -> None:
    """A CDK template (the reference app's) is read by the fast path, and as the strict parse reads it."""
    text = (Path(__file__).parents[1] / "snapshots" / "TelemetryIngest.template.json").read_text()
    fast = fast_json.loads_exact(text)
    assert fast is not None
    assert typed(fast) == typed(strict(text))
    body, tree = _parse_document(text, "t.json")
    assert tree and typed(body) == typed(fast)


def test_orjson_is_imported_only_once_the_texts_reach_the_threshold() -> None:
    """Importing orjson costs a small check more than its parse saves: the texts of a process take the
    strict parse (the same tree) until they reach ``_IMPORT_AT`` bytes in all, orjson's from then on."""
    import subprocess
    import sys

    probe = """
import sys
from edge_origin.core import fast_json
small = b'{"a": [1, 2.5, "x"]}'
assert fast_json.loads_exact(small) is None and "orjson" not in sys.modules
fast_json._seen = fast_json._IMPORT_AT - len(small)
assert fast_json.loads_exact(small) == {"a": [1, 2.5, "x"]} and "orjson" in sys.modules
print("ok")
"""
    env = {"PYTHONPATH": str(Path(fast_json.__file__).resolve().parents[2]), "PATH": ""}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60, check=True)
    assert out.stdout.strip() == "ok"
