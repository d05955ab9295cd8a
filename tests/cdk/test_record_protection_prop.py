"""Issue 30: MultivalueOriginRecords(protect=True): CloudFormation has no record set protection resource,
so the construct writes the post-deploy command (an output) and warns until it runs."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_route53 as route53
from aws_cdk.assertions import Annotations, Match, Template

from edge_origin import MultivalueOriginRecords, OriginAddress


def _records(protect: bool) -> tuple[cdk.Stack, MultivalueOriginRecords]:
    app = cdk.App()
    stack = cdk.Stack(app, "S")
    zone = route53.PublicHostedZone(stack, "Zone", zone_name="example.com")
    records = MultivalueOriginRecords(
        stack, "Origin", zone=zone, record_name="origin.example.com",
        addresses=[OriginAddress("192.0.2.1", "a"), OriginAddress("192.0.2.2", "b")], protect=protect,
    )
    return stack, records


def test_protect_writes_the_post_deploy_command_and_warns() -> None:
    stack, records = _records(True)
    assert records.protect_command is not None
    assert records.protect_command.startswith("aws route53 create-resource-record-set-protections --hosted-zone-id ")
    assert records.protect_command.endswith("--protections RecordName=origin.example.com.,RecordType=A")
    outputs = Template.from_stack(stack).find_outputs("*", {"Description": Match.string_like_regexp("record set protections")})
    assert len(outputs) == 1
    warnings = Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp("CloudFormation cannot create Route 53 record set protections"))
    assert len(warnings) == 1


def test_without_protect_there_is_no_command_output_or_warning() -> None:
    stack, records = _records(False)
    assert records.protect_command is None
    assert Template.from_stack(stack).find_outputs("*", {"Description": Match.string_like_regexp("record set protections")}) == {}
    assert Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp("record set protections")) == []
