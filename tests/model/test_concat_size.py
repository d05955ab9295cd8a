"""``_concat_size`` (what a Fn::Join / Fn::Sub charges before it is built) counts a list of text and references in C;
any other list one part at a time: the same answer for every list (issue 53)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.model import intrinsics
from edge_origin.model.values import ResourceRef, Unresolved
from tests.hardening_support import examples


class Text(str):
    """A str subclass (never in a parsed tree; counted as text one by one)."""


parts = st.lists(st.one_of(
    st.text(max_size=12), st.builds(Text, st.text(max_size=5)), st.integers(-5, 10**6), st.floats(allow_nan=False),
    st.booleans(), st.none(),
    st.builds(ResourceRef, st.just("S"), st.sampled_from(["Lb", "Rec"]), st.sampled_from([None, "DNSName", "Arn"])),
    st.builds(Unresolved, st.sampled_from(["parameter", "composite"]), st.text(max_size=8)),
), max_size=12)


def _one_by_one(items: list[Any]) -> tuple[bool, Any, int]:
    text, others, numbers, refs = intrinsics._sized_one_by_one(items)
    if not others:
        return True, None, text + 24 * numbers
    named = intrinsics.dns_name_parts(items) if refs == 1 and not numbers and others == 1 else None
    return False, named, 0 if named is not None else text + (intrinsics.MAX_DISPLAY + 3) * (numbers + others)


@settings(max_examples=examples(200), deadline=None)
@given(parts)
def test_concat_size_is_the_one_by_one_count(items: list[Any]) -> None:
    assert intrinsics._concat_size(items) == _one_by_one(items)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.one_of(st.text(max_size=12), st.builds(ResourceRef, st.just("S"), st.just("Lb"), st.just("DNSName"))),
                max_size=12))
def test_text_and_references_take_the_count_in_c(items: list[Any]) -> None:
    """The dashboards' shape: the C count, and what it gives (characters of the text, each reference its display)."""
    literal, named, chars = intrinsics._concat_size(items)
    refs = sum(isinstance(p, ResourceRef) for p in items)
    text = sum(len(p) for p in items if isinstance(p, str))
    assert literal == (refs == 0)
    if refs == 0:
        assert (named, chars) == (None, text)
    elif named is None:
        assert chars == text + (intrinsics.MAX_DISPLAY + 3) * refs
