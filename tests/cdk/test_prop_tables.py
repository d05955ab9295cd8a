"""Validation as data (issue 32): every prop of OriginFleet and MultivalueOriginRecords has a row in
its table, so a new prop cannot skip its check; the rows run in order and the first bad prop is the
one a user reads."""

from __future__ import annotations

import inspect

import pytest

from edge_origin.cdk.origin_fleet import FLEET_PROP_CHECKS, OriginFleet
from edge_origin.cdk.origin_records import RECORDS_PROP_CHECKS, MultivalueOriginRecords
from edge_origin.core.errors import EdgeOriginPropError, check_props, each, require_int_range, require_port


def _props(cls: type) -> list[str]:
    init = inspect.unwrap(cls.__init__)
    return [n for n, p in inspect.signature(init).parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY]


@pytest.mark.parametrize(("cls", "rows", "elsewhere"), [
    # vpc_origin_security_group_id is checked in vpc_origin's row (it is allowed only with it)
    (OriginFleet, FLEET_PROP_CHECKS, {"vpc_origin_security_group_id"}),
    (MultivalueOriginRecords, RECORDS_PROP_CHECKS, {"record_name"}),  # normalized against the zone after the rows
])
def test_every_prop_has_one_row(cls: type, rows: tuple, elsewhere: set[str]) -> None:
    names = [prop for prop, _check in rows]
    assert len(names) == len(set(names))
    assert set(names) | elsewhere == set(_props(cls))
    assert not set(names) & elsewhere


def test_rows_run_in_order_and_the_first_bad_prop_is_reported() -> None:
    rows = (("port", each(require_port)), ("count", each(require_int_range, 1, 3)), ("name", each(lambda *_: "x", skip_none=True)))
    assert check_props("Thing T", rows, {"port": 443, "count": 2, "name": None}) == {"port": 443, "count": 2, "name": None}
    with pytest.raises(EdgeOriginPropError) as caught:
        check_props("Thing T", rows, {"port": 0, "count": 9, "name": "n"})
    assert str(caught.value).startswith("Thing T: invalid port=0; allowed: ")
