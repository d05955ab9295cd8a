"""``read_routing`` shares one ``Routing`` per set of carried elements (issue 53): for any members it
reads what the table-walking reader it replaced read (kept here as the reference), and raises
where that raised (a ``truth`` that refuses a value)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.answers import routing as r
from edge_origin.answers.routing import (
    AZ_AFFINITY_BOTOCORE,
    KNOWN_MEMBERS,
    ROUTING_ELEMENTS,
    ROUTING_ELEMENTS_BY_MEMBER,
    Routing,
    read_routing,
)


def reference(members: Mapping[str, Any], truth: Callable[[Any], bool | None], sdk: bool) -> Routing:
    """read_routing as it was: every element of the table looked up, a new Routing each time."""
    unknown = sorted(k for k in members if k not in KNOWN_MEMBERS)
    if unknown:
        return Routing(
            "unknown", unknown[0],
            f"ResourceRecordSet member(s) {', '.join(unknown)} not in edge-origin's table of Route 53 routing elements: "
            "what Route 53 answers for this set is not known",
        )
    if members.get("TrafficPolicyInstanceId") is not None:
        return Routing("unknown", "TrafficPolicyInstanceId", "a traffic policy instance decides this record's answers; edge-origin does not read traffic policies")
    present = [e for e in ROUTING_ELEMENTS if members.get(e.member) is not None
               and not (e.member == "MultiValueAnswer" and truth(members[e.member]) is False)]
    if present and present[0].member == "MultiValueAnswer" and truth(members["MultiValueAnswer"]) is None:
        return Routing("unknown", "MultiValueAnswer")
    if not present:
        if members.get("SetIdentifier") is not None:
            if not sdk:
                return Routing(
                    "unknown", "SetIdentifier",
                    f"a SetIdentifier with no routing element, read with a botocore older than {AZ_AFFINITY_BOTOCORE} "
                    "that drops AZAffinity: the routing element was not read",
                )
            names = ", ".join(e.member for e in ROUTING_ELEMENTS)
            return Routing(
                "unknown", "SetIdentifier",
                f"a SetIdentifier with no routing element edge-origin knows ({names}): Route 53 refuses a set id "
                "without one, so an element edge-origin does not read may be missing here",
            )
        return Routing("simple")
    extra = tuple(e.member for e in present[1:])
    if present[0].member == "AZAffinity":
        az = r._az_location(members["AZAffinity"], r._literal)
        if isinstance(az, str):
            return Routing("unknown", "AZAffinity", az)
        return Routing("azaffinity", "AZAffinity", az=az, extra=extra)
    return Routing(present[0].policy, present[0].member, extra=extra)


def refusing(value: Any) -> bool | None:
    if value == "bad":
        raise ValueError("refused")
    return r._default_truth(value)


VALUES = st.one_of(st.none(), st.booleans(), st.integers(0, 3), st.sampled_from(["true", "FALSE", "x", "bad", "*"]),
                   st.just({"LocationType": "AvailabilityZone", "LocationId": "use1-az1"}), st.just({}))
MEMBERS = st.dictionaries(st.sampled_from(sorted(KNOWN_MEMBERS) + ["Frob"]), VALUES, max_size=6)


def outcome(fn: Callable[[], Routing]) -> Any:
    try:
        return fn()
    except ValueError as exc:
        return str(exc)


@settings(max_examples=50, deadline=None)
@given(MEMBERS, st.sampled_from([r._default_truth, refusing]), st.booleans())
def test_read_routing_reads_as_the_table_walk(members: dict[str, Any], truth: Any, sdk: bool) -> None:
    got = outcome(lambda: read_routing(members, truth=truth, sdk_reads_az_affinity=sdk))
    assert got == outcome(lambda: reference(members, truth, sdk))
    assert outcome(lambda: read_routing(members, truth=truth, sdk_reads_az_affinity=sdk)) == got  # asked again


def test_the_shared_routing_is_the_one_per_carried_elements() -> None:
    first = read_routing({"Weight": 1, "Region": "eu-west-1", "Name": "a"})
    assert first is read_routing({"Region": "us-east-1", "Weight": 7})
    assert first == Routing("weighted", "Weight", extra=("Region",))
    assert read_routing({"Region": "us-east-1"}) == Routing(ROUTING_ELEMENTS_BY_MEMBER["Region"].policy, "Region")
    assert len(r._BY_ELEMENTS) <= 2 ** len(ROUTING_ELEMENTS)
    assert read_routing({}) is read_routing({"Name": "n"}) == Routing("simple")
