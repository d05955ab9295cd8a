"""The review report of a pattern in an imported VPC: the templates hold subnet ids, not subnets,
so the zone is unknown; the report names the subnet and says "imported" instead of `?`."""

from __future__ import annotations

import re

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_route53 as route53
from aws_cdk.assertions import Template

from edge_origin import GrpcEdgeToOrigin
from edge_origin.model import TemplateModel
from edge_origin.review.report import render_report

SUBNETS = ["subnet-0aaa1111", "subnet-0bbb2222"]


@pytest.fixture(scope="module")
def model() -> TemplateModel:
    stack = cdk.Stack(cdk.App(), "Ingest", env=cdk.Environment(account="123456789012", region="us-east-1"))
    vpc = ec2.Vpc.from_vpc_attributes(stack, "Vpc", vpc_id="vpc-0123", vpc_cidr_block="10.0.0.0/16",
                                      availability_zones=["us-east-1a", "us-east-1b"], public_subnet_ids=SUBNETS)
    zone = route53.PublicHostedZone.from_public_hosted_zone_attributes(stack, "Zone", hosted_zone_id="Z1", zone_name="example.com")
    GrpcEdgeToOrigin(stack, "P", zone=zone, origin_name="origin.example.com", service_name="ingest", vpc=vpc, nlb_count=1)
    return TemplateModel.from_templates({"Ingest": Template.from_stack(stack).to_json()})


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_imported_subnets_are_named_not_question_marks(model: TemplateModel, fmt: str) -> None:
    report = render_report(model, fmt)
    assert "(?)" not in report and "[?]" not in report and "| ? |" not in report
    assert not re.search(r"zones \?", report)
    for subnet in SUBNETS:
        assert subnet in report
    assert "imported" in report
