"""``fills_dict``: the answer model's hot frozen dataclasses get an ``__init__`` that fills ``__dict__`` directly
(issue 53: 3x cheaper than one ``object.__setattr__`` per field). Same parameters, defaults, ``__post_init__``
and frozenness as the ``__init__`` dataclasses generates."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from edge_origin.answers import (
    AliasTarget,
    Answer,
    HealthCheck,
    Hop,
    HostedZone,
    LoadBalancer,
    Record,
    RecordKey,
    Resolution,
)
from edge_origin.answers.types import fills_dict

FILLED = (RecordKey, HostedZone, AliasTarget, Record, LoadBalancer, Hop, Answer, Resolution, HealthCheck)


@pytest.mark.parametrize("cls", FILLED, ids=lambda c: c.__name__)
def test_the_signature_is_the_fields_with_their_defaults(cls: type) -> None:
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    for param, f in zip(params, fields, strict=True):
        assert param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert param.default is (inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default)


def test_instances_stay_frozen_equal_and_hashable() -> None:
    key = RecordKey("Z", "o.example.com", "A", "a")
    assert key == RecordKey(zone="Z", name="o.example.com", type="A", set_id="a")
    assert hash(key) == hash(RecordKey("Z", "o.example.com", "A", "a"))
    assert RecordKey("Z", "a", "A") < RecordKey("Z", "b", "A")  # order=True kept
    with pytest.raises(dataclasses.FrozenInstanceError):
        key.name = "x"  # type: ignore[misc]
    record = Record(key, "multivalue", ("1.2.3.4",))
    assert dataclasses.replace(record, ttl=60) == Record(key, "multivalue", ("1.2.3.4",), ttl=60)
    assert record.source is None and record.weight is None  # defaults


def test_post_init_still_runs() -> None:
    assert HostedZone("Z", "Example.COM.").name == "example.com"
    assert AliasTarget("DualStack.Nlb.ELB.us-east-1.amazonaws.com.").dns_name == "dualstack.nlb.elb.us-east-1.amazonaws.com"
    with pytest.raises(ValueError, match="routing policy 'roundrobin'"):
        Record(RecordKey("Z", "o", "A"), "roundrobin")


def test_a_field_it_cannot_fill_is_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class WithFactory:
        items: list[str] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="WithFactory.items"):
        fills_dict(WithFactory)


def test_the_template_model_fills_records_and_checks_by_position_in_field_order() -> None:
    """model.zones builds Record and HealthCheck by position (a 14-keyword call costs twice as much): the
    fields' order is what that call assumes, so a field moved or added shows here first."""
    assert [f.name for f in dataclasses.fields(Record)] == [
        "key", "policy", "values", "ttl", "alias", "health_check_id", "weight", "failover", "region", "geo",
        "geoproximity", "cidr", "az", "source"]
    assert [f.name for f in dataclasses.fields(HealthCheck)] == [
        "id", "type", "disabled", "inverted", "children", "health_threshold", "regions", "ip_address", "fqdn", "port",
        "alarm", "insufficient_data", "label", "endpoint_type"]
