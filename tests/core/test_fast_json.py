"""core.fast_json: the orjson parse is taken only when it reads a text exactly as the strict parse.

The property: for any text, ``loads_exact`` is None, or the strict parse (the loader's hooks: duplicate
keys, 64-bit integers, finite numbers refused) accepts the text and makes the same tree, type for type
(``1`` and ``1.0`` differ). Texts are generated around the shapes that tell the two apart: repeated keys
(also inside strings and escapes), integers at the 64-bit edges, long fractions, exponents past the
double range, ``\\u`` escapes of ``:``, lone surrogates, non-ASCII text, NaN/Infinity.
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


KEYS = st.sampled_from(["a", "A", "Type", "Fn::Join", "x:y", ":", "é", "Ref", "a\\u003a", "\\u0041"])
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
    return pairs.map(lambda ps: "{" + ",".join(f"{k}:{v}" for k, v in ps) + "}")


VALUES = st.recursive(
    st.one_of(NUMBERS, STRINGS, st.sampled_from(["true", "false", "null"])),
    lambda children: st.one_of(_object(children), st.lists(children, max_size=5).map(lambda xs: "[" + ",".join(xs) + "]")),
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
def test_fast_parse_is_the_strict_parse_or_declines(text: str) -> None:
    assert_same_or_declined(text)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(max_size=6), st.recursive(
    st.one_of(st.integers(min_value=-(2**63), max_value=2**63 - 1), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=8), st.booleans(), st.none()),
    lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.text(max_size=6), c, max_size=4)), max_leaves=20)))
def test_plain_documents_take_the_fast_path_unchanged(doc: dict[str, Any]) -> None:
    """What json.dumps writes (no repeated key by construction) is read by the fast path unless a \\u
    escape or a 19-digit run is in it, and always as the strict parse reads it."""
    text = json.dumps(doc, ensure_ascii=False)
    fast = fast_json.loads_exact(text)
    if fast is None:
        assert "\\u" in text or any(run for run in _digit_runs(text) if len(run) >= 19), text[:200]
        return
    assert typed(fast) == typed(strict(text))


def _digit_runs(text: str) -> list[str]:
    import re

    return re.findall(r"[0-9]+", text)


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
