"""InternalGrpcOrigin with a public hosted zone: an error naming ``zone`` (every way a public zone
is made or imported), unless ``allow_public_zone=True`` (then a warning); a private zone is quiet;
a plain imported HostedZone (privacy unknown) gets a warning."""

from __future__ import annotations

from collections.abc import Callable

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_route53 as route53
from aws_cdk.assertions import Annotations, Match

from edge_origin import InternalGrpcOrigin
from edge_origin.core.errors import EdgeOriginPropError

ENV = cdk.Environment(account="123456789012", region="us-east-1")


def _vpc(stack: cdk.Stack) -> ec2.IVpc:
    return ec2.Vpc(stack, "Vpc", max_azs=2, nat_gateways=0, subnet_configuration=[
        ec2.SubnetConfiguration(name="private", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)])


PUBLIC: dict[str, Callable[[cdk.Stack], route53.IHostedZone]] = {
    "new PublicHostedZone": lambda s: route53.PublicHostedZone(s, "Zone", zone_name="svc.example.com"),
    "PublicHostedZone.from_public_hosted_zone_attributes": lambda s: (
        route53.PublicHostedZone.from_public_hosted_zone_attributes(s, "Zone", hosted_zone_id="Z1", zone_name="svc.example.com")),
}
PRIVATE: dict[str, Callable[[cdk.Stack], route53.IHostedZone]] = {
    "PrivateHostedZone.from_private_hosted_zone_attributes": lambda s: (
        route53.PrivateHostedZone.from_private_hosted_zone_attributes(s, "Zone", hosted_zone_id="Z1", zone_name="svc.example.com")),
    "new PrivateHostedZone": lambda s: route53.PrivateHostedZone(
        s, "Zone", zone_name="svc.example.com", vpc=ec2.Vpc.from_lookup(s, "Other", vpc_id="vpc-12345678")),
}


def _build(make_zone: Callable[[cdk.Stack], route53.IHostedZone], **props: object) -> cdk.Stack:
    stack = cdk.Stack(cdk.App(), "S", env=ENV)
    InternalGrpcOrigin(stack, "Tax", zone=make_zone(stack), origin_name="tax.svc.example.com", service_name="tax",
                       vpc=_vpc(stack), nlb_count=1, **props)
    return stack


def _warnings(stack: cdk.Stack, text: str) -> list:
    return Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp(text))


@pytest.mark.parametrize("kind", sorted(PUBLIC))
def test_public_zone_is_an_error_naming_the_prop(kind: str) -> None:
    with pytest.raises(EdgeOriginPropError) as info:
        _build(PUBLIC[kind])
    text = str(info.value)
    assert "zone" in text and "allow_public_zone=True" in text and "svc.example.com" in text


@pytest.mark.parametrize("kind", sorted(PUBLIC))
def test_public_zone_meant_is_a_warning(kind: str) -> None:
    stack = _build(PUBLIC[kind], allow_public_zone=True)
    assert _warnings(stack, "is public \\(allow_public_zone=True\\)")


@pytest.mark.parametrize("kind", sorted(PRIVATE))
def test_private_zone_is_quiet(kind: str) -> None:
    stack = _build(PRIVATE[kind])
    assert not _warnings(stack, "is public|cannot tell whether it is private")


@pytest.mark.parametrize("importer", [route53.HostedZone, route53.PublicHostedZone, route53.PrivateHostedZone])
def test_plain_imported_zone_is_a_warning(importer: type) -> None:
    """``from_hosted_zone_attributes`` returns a plain IHostedZone whatever class it is called on."""
    stack = _build(lambda s: importer.from_hosted_zone_attributes(s, "Zone", hosted_zone_id="Z1", zone_name="svc.example.com"))
    assert _warnings(stack, "cannot tell whether it is private")


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_allow_public_zone_must_be_a_bool(value: object) -> None:
    with pytest.raises(EdgeOriginPropError, match="allow_public_zone"):
        _build(PRIVATE["PrivateHostedZone.from_private_hosted_zone_attributes"], allow_public_zone=value)
