"""The declared-profile memo's key (``rules.ka_profile._content_key``, issue 53: orjson's text, a tenth of
repr's cost) tells apart every pair of Metadata values repr tells apart, and falls back to repr where orjson
could blur a difference (null, which NaN also becomes; values that are not plain JSON)."""

from __future__ import annotations

import datetime
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.rules.ka_profile import _content_key

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.text(max_size=5), JSON, max_size=4), st.dictionaries(st.text(max_size=5), JSON, max_size=4))
def test_two_mappings_share_a_key_exactly_when_their_repr_is_one(a: dict, b: dict) -> None:
    assert (_content_key(a) == _content_key(b)) == (repr(a) == repr(b))


def test_one_one_point_oh_and_true_get_three_keys() -> None:
    keys = {_content_key({"x": v}) for v in (1, 1.0, True, "1")}
    assert len(keys) == 4


def test_null_nan_and_values_beyond_json_take_repr() -> None:
    assert _content_key({"x": None}) == repr({"x": None})
    assert _content_key({"x": math.nan}) == repr({"x": math.nan})  # orjson writes NaN as null
    assert _content_key({"x": 2**70}) == repr({"x": 2**70})
    when = datetime.datetime(2026, 1, 1)
    assert _content_key({"x": when}) == repr({"x": when}) != _content_key({"x": when.isoformat()})
    assert _content_key({1: "x"}) == repr({1: "x"})
