"""The prop validators over classes of input (hypothesis): a value is accepted as what it is, or
refused with EdgeOriginPropError naming the prop; never another exception, never NaN to jsii."""

from __future__ import annotations

import ipaddress
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin import AccountQuotas, EdgeOriginPropError, OriginAddress
from edge_origin.core.errors import (
    require_int_range,
    require_path,
    require_seconds_range,
    require_str_list,
    require_tags,
    seconds_of,
)

ANY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
FAST = settings(max_examples=60, deadline=None)


def _refused(fn: Any, *args: Any) -> EdgeOriginPropError | None:
    try:
        fn(*args)
    except EdgeOriginPropError as exc:
        return exc
    return None


@FAST
@given(st.text(max_size=40) | ANY)
def test_origin_address_takes_ipv4_or_says_what_is_allowed(value: Any) -> None:
    error = _refused(OriginAddress, value, "a")
    try:
        valid = isinstance(value, str) and ipaddress.IPv4Address(value) is not None
    except ValueError:
        valid = False
    assert (error is None) == valid, value
    if error is not None:
        assert error.prop == "ip_address" and "IPv4" in error.allowed


@FAST
@given(ANY)
def test_seconds_take_finite_numbers_only(value: Any) -> None:
    error = _refused(seconds_of, "C", "ttl", value)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    assert (error is None) == (number and math.isfinite(value)), value


@FAST
@given(st.integers(min_value=-10**6, max_value=10**6) | st.floats(allow_nan=True) | ANY)
def test_whole_seconds_in_range(value: Any) -> None:
    error = _refused(require_seconds_range, "C", "idle_timeout", value, 60, 6000)
    ok = (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        and value == int(value) and 60 <= value <= 6000
    )
    assert (error is None) == ok, value
    if error is not None:
        assert error.prop == "idle_timeout"


@FAST
@given(ANY)
def test_int_ranges_refuse_bools_floats_and_strings(value: Any) -> None:
    error = _refused(require_int_range, "C", "nlb_count", value, 1, 20)
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 20
    assert (error is None) == ok, value


@FAST
@given(ANY)
def test_string_lists_are_lists_of_non_empty_strings(value: Any) -> None:
    error = _refused(require_str_list, "C", "domain_names", value)
    ok = isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)
    assert (error is None) == ok, value


@FAST
@given(ANY)
def test_paths_start_with_a_slash(value: Any) -> None:
    error = _refused(require_path, "C", "health_check_path", value, 255)
    if error is None:
        assert isinstance(value, str) and value.startswith("/") and " " not in value and len(value) <= 255


@FAST
@given(st.dictionaries(st.text(max_size=10), st.text(max_size=10), max_size=4) | ANY)
def test_tags_are_refused_or_kept_as_given(value: Any) -> None:
    error = _refused(require_tags, "C", "tags", value)
    if error is None:
        assert require_tags("C", "tags", value) == dict(value)
        assert not any(k.lower().startswith("aws:") for k in value)


@FAST
@given(st.dictionaries(st.sampled_from(["elastic_ips", "health_checks", "network_load_balancers"]), ANY, max_size=3))
def test_account_quotas_take_positive_integers(values: dict[str, Any]) -> None:
    error = _refused(lambda: AccountQuotas(**values))
    ok = all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 1_000_000 for v in values.values())
    assert (error is None) == ok, values
