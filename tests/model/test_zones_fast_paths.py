"""model.zones' shortcuts (issue 53) give what the full walks give: an AAAA resolution skipped where the zone
holds no AAAA or CNAME set of the name, a literal HostedZoneId's zone id worked out once, a zone's name from
its distinct record names."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.answers import PUBLIC
from edge_origin.model.zones import OriginResolution, _zone_name, zone_id_of
from tests.answers.answer_templates import base, eip, model, nlb_alias, record

NAMES = ("o.example.com", "www.example.com", "a.o.example.com", "example.com")
RECORD = st.fixed_dictionaries({
    "name": st.sampled_from(NAMES),
    "rtype": st.sampled_from(("A", "AAAA", "CNAME")),
    "how": st.sampled_from(("simple", "weighted", "alias", "cname", "literal zone", "another literal zone")),
})


def _record(i: int, spec: dict[str, Any]) -> dict[str, Any]:
    rtype, how = spec["rtype"], spec["how"]
    if how == "alias":
        return record(spec["name"], "A" if rtype == "CNAME" else rtype, AliasTarget=nlb_alias("NlbA"))
    if rtype == "CNAME" or how == "cname":
        return record(spec["name"], "CNAME", ResourceRecords=["www.example.com" if spec["name"] != "www.example.com" else "o.example.com"])
    props: dict[str, Any] = {"ResourceRecords": [eip(i % 4) if rtype == "A" else "2001:db8::1"]}
    if how == "weighted":
        props.update(SetIdentifier=f"s{i}", Weight=i)
    body = record(spec["name"], rtype, **props)
    if how in ("literal zone", "another literal zone"):
        body["Properties"]["HostedZoneId"] = " /hostedzone/zlit " if how == "literal zone" else "Z2"
    return body


def _reference(zones: Any, name: str) -> list[OriginResolution]:
    """name_resolutions(name, cloudfront=False) as it was: A and AAAA resolved in every public zone holding it."""
    out = []
    for zone in zones.zone_set.zones_holding(name):
        for rtype in ("A", "AAAA"):
            resolution = zones.zone_set.resolve(name, rtype, PUBLIC, zone_id=zone.id, scenarios=True)
            if resolution.answers or (rtype == "A" and resolution.problems):
                out.append(OriginResolution(name, zone, PUBLIC, resolution))
    return out


@settings(max_examples=40, deadline=None)
@given(st.lists(RECORD, min_size=1, max_size=6))
def test_name_resolutions_and_zone_ids_as_the_full_walks(specs: list[dict[str, Any]]) -> None:
    m = model(base(), **{f"R{i}": _record(i, spec) for i, spec in enumerate(specs)})
    zones = m.zones
    assert NAMES  # the loop below ran
    for name in NAMES:
        assert zones.name_resolutions(name, cloudfront=False) == _reference(zones, name)
    for view in m.all_record_sets:
        zone = zones.zone(view)
        if zone is not None:
            assert zone.id == zone_id_of(view)


class _View:
    def __init__(self, name: Any) -> None:
        self.name = name


@settings(max_examples=50, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(NAMES + ("b.example.org", "x.y.example.com")), st.none()), min_size=1, max_size=8))
def test_zone_name_from_distinct_names_as_from_all(names: list[Any]) -> None:
    views = [_View(n) for n in names]
    every = [n.split(".") for n in names if isinstance(n, str)]
    if not every:
        assert _zone_name(views) == "?"
        return
    common: list[str] = []
    for labels in zip(*(list(reversed(n)) for n in every), strict=False):
        if len(set(labels)) != 1:
            break
        common.append(labels[0])
    if len(common) == len(min(every, key=len)) and len(common) > 2:
        common = common[:-1]
    assert _zone_name(views) == (".".join(reversed(common)) or "?")
