"""EO-SG1's blocked checker ranges: ``_missing`` tests containment on the addresses as integers; it keeps
exactly the ranges ``ipaddress``'s ``subnet_of`` keeps (issue 53: a check computes it once per region)."""

from __future__ import annotations

import ipaddress

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.rules import sg1_health_checkers as sg1

REGIONS = sorted(sg1._region_ranges())
#: Networks around the checkers' ranges (their supernets, subnets and neighbours) and anywhere.
NEAR = [str(net.supernet(k)) for nets in sg1._region_ranges().values() for net in nets for k in (0, 1, 4, 9)]
CIDRS = st.one_of(
    st.sampled_from(NEAR),
    st.builds(lambda a, p: f"{ipaddress.IPv4Address(a)}/{p}", st.integers(0, 2**32 - 1), st.integers(0, 32)),
    st.sampled_from(["0.0.0.0/0", "10.0.0.0/8", "not a cidr", "2001:db8::/32"]),
)


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(REGIONS), st.frozensets(CIDRS, max_size=6))
def test_missing_keeps_what_subnet_of_keeps(region: str, admitted: frozenset[str]) -> None:
    nets = [net for net in map(sg1._network, admitted) if net is not None]
    expected = tuple(c for c in sg1._region_ranges()[region] if not any(c.subnet_of(n) for n in nets))
    assert sg1._missing.__wrapped__(region, admitted) == expected


def test_a_supernet_admits_and_a_subnet_does_not() -> None:
    region = REGIONS[0]
    first = sg1._region_ranges()[region][0]
    assert first not in sg1._missing.__wrapped__(region, frozenset({str(first.supernet(3))}))
    assert first in sg1._missing.__wrapped__(region, frozenset({str(next(first.subnets(1)))}))
    assert sg1._missing.__wrapped__(region, frozenset({"0.0.0.0/0"})) == ()
