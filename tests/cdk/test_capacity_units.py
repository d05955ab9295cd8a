"""``capacity_units`` (issue 33): an NLB LCU reservation written as ``MinimumLoadBalancerCapacity``,
validated per zone (2750..45000 a zone, the aws-cdk-lib bound), refused with a TLS listener, a warning
when it does not divide evenly over the zones; threaded through both patterns."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_route53 as route53
from aws_cdk.assertions import Annotations, Match, Template

from edge_origin import EdgeOriginPropError, GrpcEdgeToOrigin, InternalGrpcOrigin, OriginFleet

ENV = cdk.Environment(account="123456789012", region="us-east-1")
CERT = "arn:aws:acm:us-east-1:123456789012:certificate/c1"


def _stack() -> cdk.Stack:
    return cdk.Stack(cdk.App(), "S", env=ENV)


def _vpc(stack: cdk.Stack, zones: int = 3) -> ec2.IVpc:
    names = [f"us-east-1{c}" for c in "abcdef"[:zones]]
    return ec2.Vpc.from_vpc_attributes(
        stack, "Vpc", vpc_id="vpc-1", vpc_cidr_block="10.0.0.0/16", availability_zones=names,
        public_subnet_ids=[f"subnet-{i}" for i in range(zones)],
        private_subnet_ids=[f"subnet-p{i}" for i in range(zones)],
        private_subnet_ipv4_cidr_blocks=[f"10.0.{16 * (i + 8)}.0/20" for i in range(zones)],
    )


def _fleet(zones: int = 3, **props: object) -> tuple[cdk.Stack, OriginFleet]:
    stack = _stack()
    fleet = OriginFleet(stack, "Fleet", vpc=_vpc(stack, zones), nlb_count=2, **props)
    return stack, fleet


def _capacities(stack: cdk.Stack) -> list[object]:
    lbs = Template.from_stack(stack).find_resources("AWS::ElasticLoadBalancingV2::LoadBalancer")
    return [r["Properties"].get("MinimumLoadBalancerCapacity") for r in lbs.values()]


def _uneven_warnings(stack: cdk.Stack) -> list:
    return Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp("does not divide evenly"))


def test_fires_reservation_written_on_every_nlb() -> None:
    stack, fleet = _fleet(capacity_units=9000)
    assert _capacities(stack) == [{"CapacityUnits": 9000}] * 2
    assert fleet.capacity_units == 9000 and fleet.capacity_units_per_zone == 3000
    assert not _uneven_warnings(stack)


def test_quiet_no_reservation_by_default() -> None:
    stack, fleet = _fleet()
    assert _capacities(stack) == [None, None]
    assert fleet.capacity_units is None and fleet.capacity_units_per_zone is None


@pytest.mark.parametrize(("zones", "low", "high"), [(2, 5500, 90000), (3, 8250, 135000)])
def test_range_is_per_zone_and_named_in_the_error(zones: int, low: int, high: int) -> None:
    for bad in (low - 1, high + 1):
        with pytest.raises(EdgeOriginPropError) as info:
            _fleet(zones, capacity_units=bad)
        assert info.value.prop == "capacity_units" and info.value.value == bad
        assert f"{low}..{high} with {zones} zones" in info.value.allowed and "2750..45000" in info.value.allowed
    for good in (low, high):
        stack, _ = _fleet(zones, capacity_units=good)
        assert _capacities(stack) == [{"CapacityUnits": good}] * 2


@pytest.mark.parametrize("bad", [True, "9000", 9000.0, -1, 0, [9000]])
def test_wrong_types_name_the_prop(bad: object) -> None:
    with pytest.raises(EdgeOriginPropError) as info:
        _fleet(capacity_units=bad)
    assert info.value.prop == "capacity_units" and "integer number of LCUs" in info.value.allowed


def test_fires_refused_with_a_tls_listener() -> None:
    with pytest.raises(EdgeOriginPropError) as info:
        _fleet(capacity_units=9000, listener_protocol="TLS", listener_certificate_arns=[CERT])
    assert info.value.prop == "capacity_units"
    assert "not supported on NLBs using TLS listeners" in info.value.allowed


def test_quiet_tls_listener_without_reservation() -> None:
    stack, _ = _fleet(listener_protocol="TLS", listener_certificate_arns=[CERT])
    assert _capacities(stack) == [None, None]


def test_fires_uneven_spread_is_a_warning_with_the_share() -> None:
    stack, fleet = _fleet(capacity_units=9001)
    warnings = _uneven_warnings(stack)
    assert len(warnings) == 1
    text = str(warnings[0].entry.data)
    assert "capacity_units=9001" in text and "3 zones" in text and "3000.33" in text and "9000 or 9003" in text
    assert _capacities(stack) == [{"CapacityUnits": 9001}] * 2
    assert fleet.capacity_units_per_zone == pytest.approx(3000.333, abs=0.001)


def test_patterns_thread_capacity_units_to_the_fleet() -> None:
    stack = _stack()
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Zone", hosted_zone_id="Z1", zone_name="example.com")
    vpc = _vpc(stack, 2)
    edge = GrpcEdgeToOrigin(stack, "Edge", zone=zone, origin_name="o.example.com", service_name="ingest", vpc=vpc,
                            nlb_count=1, capacity_units=6000)
    assert edge.fleet.capacity_units == 6000 and edge.props.capacity_units == 6000
    private = route53.PrivateHostedZone.from_private_hosted_zone_attributes(
        stack, "Private", hosted_zone_id="Z2", zone_name="svc.example.com")
    internal = InternalGrpcOrigin(stack, "Tax", zone=private, origin_name="tax.svc.example.com", service_name="tax",
                                  vpc=vpc, nlb_count=1, capacity_units=5500)
    assert internal.fleet.capacity_units == 5500
    assert sorted(c["CapacityUnits"] for c in _capacities(stack)) == [5500, 6000]


def test_pattern_range_error_names_the_pattern() -> None:
    stack = _stack()
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Zone", hosted_zone_id="Z1", zone_name="example.com")
    with pytest.raises(EdgeOriginPropError) as info:
        GrpcEdgeToOrigin(stack, "Edge", zone=zone, origin_name="o.example.com", service_name="ingest",
                         vpc=_vpc(stack, 2), nlb_count=1, capacity_units=100)
    assert str(info.value).startswith("GrpcEdgeToOrigin S/Edge: invalid capacity_units=100")


# -- the template model and the report (part 2) ----------------------------------------------------


def _lb_template(capacity: object) -> dict:
    props: dict = {"Type": "network", "Subnets": ["subnet-1", "subnet-2"]}
    if capacity is not None:
        props["MinimumLoadBalancerCapacity"] = capacity
    return {
        "Parameters": {"Units": {"Type": "Number", "Default": 6000}},
        "Resources": {"Nlb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": props}},
    }


@pytest.mark.parametrize(
    ("capacity", "units", "unknown", "share"),
    [({"CapacityUnits": 6000}, 6000, False, 3000), ({"CapacityUnits": "6001"}, 6001, False, 3000.5),
     (None, None, False, None)],
)
def test_model_reads_minimum_load_balancer_capacity(capacity: object, units: object, unknown: bool, share: object) -> None:
    from edge_origin.model import TemplateModel

    (lb,) = TemplateModel.from_templates({"S": _lb_template(capacity)}).load_balancers
    assert (lb.capacity_units, lb.capacity_unknown, lb.capacity_per_zone) == (units, unknown, share)


def test_model_capacity_from_an_undecided_import_is_unknown() -> None:
    from edge_origin.model import TemplateModel

    template = _lb_template({"CapacityUnits": {"Fn::ImportValue": "other-units"}})
    (lb,) = TemplateModel.from_templates({"S": template}).load_balancers
    assert lb.capacity_units is None and lb.capacity_unknown


def test_report_shows_capacity_per_nlb() -> None:
    from edge_origin.model import TemplateModel
    from edge_origin.review.report import render_report

    stack = _stack()
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Zone", hosted_zone_id="Z1", zone_name="example.com")
    GrpcEdgeToOrigin(stack, "Edge", zone=zone, origin_name="o.example.com", service_name="ingest", vpc=_vpc(stack, 3),
                     nlb_count=1, capacity_units=9000)
    model = TemplateModel.from_templates({"S": Template.from_stack(stack).to_json()})
    text = render_report(model, "text")
    assert "; capacity 9000 LCU, 3000 a zone over 3" in text
    markdown = render_report(model, "markdown")
    assert "### NLB capacity reservations" in markdown
    assert "| 3 | 9000 | 3000 |" in markdown


def test_readme_capacity_example_runs_verbatim() -> None:
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "live.md").read_text(encoding="utf-8")
    section = page.split("## Ready for the event", 1)[1].split("\n## ", 1)[0]
    source = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(source, "docs/live.md", "exec"), namespace)  # noqa: S102 - the page's own example
    assert namespace["fleet"].capacity_units == 9000
