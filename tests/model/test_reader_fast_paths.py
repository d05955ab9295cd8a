"""The readers' in-place reads (issue 53) return what the typed accessors return, or raise the same error,
for any value of the keys they read; and resolving a resource's Properties refuses depth as before."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.model import ModelError, Props, ResourceRef, Unresolved
from edge_origin.model.intrinsics import MAX_RESOLVE_DEPTH, StackResolver
from edge_origin.model.read_elb import _target_group
from edge_origin.model.read_route53 import HEALTH_CHECK, health_check_views
from edge_origin.model.views import Resource

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 70000), st.floats(allow_nan=False, width=32),
                    st.sampled_from(["TCP", "tcp", "443", " 80 ", "x", "", "true"]),
                    st.just(ResourceRef("S", "X", None)), st.just(Unresolved("parameter", "P")),
                    st.just([]), st.just({}), st.just(["a"]))
HC_KEYS = ("Type", "IPAddress", "FullyQualifiedDomainName", "Port", "ResourcePath", "RequestInterval", "FailureThreshold")
TG_KEYS = ("Protocol", "Port", "TargetType", "HealthCheckPort", "HealthCheckProtocol")


class _Model:
    def __init__(self, resources: list[Resource]) -> None:
        self.resources = resources

    def of_type(self, type_name: str) -> list[Resource]:
        return [r for r in self.resources if r.type == type_name]


def outcome(fn: Any, *args: Any) -> Any:
    """("ok", the view's fields) or ("error", its message)."""
    try:
        got = fn(*args)
    except ModelError as exc:
        return "error", str(exc)
    return "ok", {k: v for k, v in vars(got).items() if k != "resource"}


def _health_check_by_accessors(res: Resource) -> Any:
    cfg = Props(res.properties, res).mapping("HealthCheckConfig")
    return _Fields(
        type=cfg.literal_str("Type"), ip_address=cfg.str("IPAddress"), fqdn=cfg.str("FullyQualifiedDomainName"),
        port=cfg.int("Port"), resource_path=cfg.str("ResourcePath"), request_interval=cfg.int("RequestInterval"),
        failure_threshold=cfg.int("FailureThreshold"))


class _Fields:
    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(HC_KEYS), SCALARS))
def test_health_check_views_read_as_the_accessors(cfg: dict[str, Any]) -> None:
    res = Resource("S", "t.json", "Hc", HEALTH_CHECK, {"HealthCheckConfig": cfg}, {})
    assert outcome(lambda: health_check_views(_Model([res]))[0]) == outcome(_health_check_by_accessors, res)


def _target_group_by_accessors(res: Resource) -> Any:
    p = Props(res.properties, res)
    return _Fields(
        protocol=p.literal_str("Protocol"), port=p.int("Port"), target_type=p.literal_str("TargetType"),
        attributes=p.key_values("TargetGroupAttributes"), health_check_port=p.str("HealthCheckPort"),
        health_check_protocol=p.literal_str("HealthCheckProtocol"),
        protocol_undecided=isinstance(p.data.get("Protocol"), (ResourceRef, Unresolved)))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(TG_KEYS), SCALARS))
def test_target_group_reads_as_the_accessors(props: dict[str, Any]) -> None:
    props = {**props, "TargetGroupAttributes": [{"Key": "a", "Value": "b"}]}
    res = Resource("S", "t.json", "Tg", "AWS::ElasticLoadBalancingV2::TargetGroup", props, {})
    assert outcome(_target_group, res) == outcome(_target_group_by_accessors, res)


@pytest.mark.parametrize("leaf", [[1, "a"], [{"k": 1, "j": 2}], [[1]], {"a": 1, "b": [1]}], ids=repr)
@pytest.mark.parametrize("levels", range(MAX_RESOLVE_DEPTH - 3, MAX_RESOLVE_DEPTH + 2))
def test_properties_resolve_refuses_depth_as_the_general_path(levels: int, leaf: Any) -> None:
    """``resolve_mapping`` (a resource's Properties, lists walked without a leaf test) counts and refuses as
    ``resolve`` of a template that is not a tree (every container through the general path)."""
    value = leaf
    for _ in range(levels):
        value = {"x": value, "y": 1}
    props = {"P": value, "Q": 2}
    body = {"Resources": {"R": {"Type": "T", "Properties": props}}}

    def run(tree: bool) -> Any:
        resolver = StackResolver("S", "t.json", body, lambda name: None, tree=tree)
        try:
            got = resolver.resolve_mapping(props, "R") if tree else resolver.resolve(props, "R")
        except ModelError as exc:
            return "error", str(exc), resolver._steps
        return "ok", got == props, resolver._steps

    assert run(True) == run(False)
