"""An unknown keyword prop names the nearest prop and lists them all (issue 39); the signature and
keyword-only props stay as aws-cdk-lib's Python classes have them."""

from __future__ import annotations

import inspect

import aws_cdk as cdk
import pytest
from aws_cdk import aws_route53 as r53

import edge_origin
from edge_origin import GrpcEdgeToOrigin

CONSTRUCTS = ["GrpcEdgeToOrigin", "InternalGrpcOrigin", "OriginFleet", "MultivalueOriginRecords",
              "GrpcEdgeDistribution", "TargetGroupBindings", "OriginWatch"]


def test_hosted_zone_suggests_zone() -> None:
    stack = cdk.Stack(cdk.App(), "S")
    zone = r53.PublicHostedZone(stack, "Z", zone_name="example.com")
    with pytest.raises(TypeError) as info:
        GrpcEdgeToOrigin(stack, "I", hosted_zone=zone, origin_name="o.example.com", service_name="s", namespace="n")
    text = str(info.value)
    assert text.startswith("GrpcEdgeToOrigin: unknown prop 'hosted_zone'; did you mean 'zone'?")
    assert "(props: zone, origin_name," in text


@pytest.mark.parametrize("name", CONSTRUCTS)
def test_props_stay_keyword_only_and_visible(name: str) -> None:
    cls = getattr(edge_origin, name)
    params = inspect.signature(cls.__init__).parameters
    assert list(params)[:3] == ["self", "scope", "construct_id"] or list(params)[:3] == ["self", "scope", "id"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in list(params.values())[3:])
    with pytest.raises(TypeError, match=rf"^{name}: unknown prop 'nope'"):
        cls(cdk.Stack(cdk.App(), "S"), "X", nope=1)
