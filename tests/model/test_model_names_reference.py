"""What a DNS name in a template ends at (model/names.py), as EO-NJ1 and the answer model read it: every
resource kind, every AWS endpoint spelling and every reason an expression is not decided, to the whole
``NameTarget`` (mutmut, issue 38)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.model.names import RESOURCE_KINDS, NameTarget, classify, literal_kind
from edge_origin.model.values import ResourceRef, Unresolved


def _not_modelled(kind: str) -> NameTarget:
    return NameTarget(kind, False, f"edge-origin does not model what this {kind} answers")


@pytest.mark.parametrize(("name", "target"), [
    ("my-nlb-0123456789abcdef.elb.us-east-1.amazonaws.com", NameTarget("Network Load Balancer (not in these templates)", True)),
    ("DualStack.My-NLB-0123.ELB.us-east-1.amazonaws.com.", NameTarget("Network Load Balancer (not in these templates)", True)),
    ("my-nlb-0123.elb.cn-north-1.amazonaws.com.cn", NameTarget("Network Load Balancer (not in these templates)", True)),
    ("my-alb-123.us-east-1.elb.amazonaws.com", NameTarget("Application or Classic Load Balancer (not in these templates)", True)),
    ("d111111abcdef8.cloudfront.net", NameTarget("CloudFront distribution", True)),
    ("a1234567890abcdef.awsglobalaccelerator.com", _not_modelled("Global Accelerator")),
    ("www.example.com.s3-website-us-east-1.amazonaws.com", _not_modelled("S3 website")),
    ("s3-website.eu-west-1.amazonaws.com", _not_modelled("S3 website")),
    ("env.eba-abc.us-east-1.elasticbeanstalk.com", _not_modelled("Elastic Beanstalk environment")),
    ("vpce-0123-abcd.vpce-svc-0123.us-east-1.vpce.amazonaws.com", _not_modelled("VPC endpoint")),
    ("abc123.execute-api.us-east-1.amazonaws.com", _not_modelled("API Gateway endpoint")),
    ("abc123.appsync-api.eu-west-1.amazonaws.com", _not_modelled("AppSync endpoint")),
])
def test_literal_names_of_aws_endpoints(name: str, target: NameTarget) -> None:
    assert literal_kind(name) == target
    assert classify(name) == target


@pytest.mark.parametrize("name", ["o.example.com", "my-s3-website.example.com", "cloudfront.net.example.com",
                                  "execute-api.example.com", "elb.example.com"])
def test_other_literal_names_are_names_the_model_follows(name: str) -> None:
    assert literal_kind(name) is None
    assert classify(name) == NameTarget("name", True)


def test_every_resource_kind_and_whether_it_is_judged() -> None:
    ref = ResourceRef("S", "Target", "DNSName")
    judged = {t for t, (_, j) in RESOURCE_KINDS.items() if j}
    assert judged == {"AWS::ElasticLoadBalancingV2::LoadBalancer", "AWS::CloudFront::Distribution", "AWS::Route53::RecordSet"}
    assert classify(ref, "AWS::ElasticLoadBalancingV2::LoadBalancer") == NameTarget("Elastic Load Balancing v2 load balancer", True)
    assert classify(ref, "AWS::CloudFront::Distribution") == NameTarget("CloudFront distribution", True)
    assert classify(ref, "AWS::Route53::RecordSet") == NameTarget("another record", True)
    assert classify(ref, "AWS::ElasticLoadBalancing::LoadBalancer") == _not_modelled("Classic Load Balancer")
    assert classify(ref, "AWS::AppSync::DomainName") == _not_modelled("AppSync domain")
    assert classify(ref, "AWS::EC2::Instance") == _not_modelled("AWS::EC2::Instance")
    assert classify(ref) == NameTarget("resource not in these templates", False, "S/Target.DNSName is not a resource of the given templates")


@pytest.mark.parametrize(("reason", "why"), [
    ("parameter", "a parameter without a Default: its value is chosen at deploy"),
    ("pseudo", "a pseudo parameter only known at deploy"),
    ("import", "an Fn::ImportValue of an export none of the given templates declares: check the stacks together"),
    ("condition", "an Fn::If whose condition the templates do not decide"),
    ("composite", "an Fn::Join/Fn::Sub edge-origin cannot reduce to one name"),
    ("transform", "a macro edge-origin cannot expand"),
    ("other", "an expression edge-origin cannot evaluate"),
])
def test_each_expression_not_decided_says_why(reason: str, why: str) -> None:
    assert classify(Unresolved(reason, "x")) == NameTarget("expression", False, why)


def test_a_value_that_is_no_name() -> None:
    assert classify(42) == NameTarget("value", False, "42 is not a DNS name")
    assert classify(["a", "b"]).kind == "value"


def _every_pattern(name: str) -> NameTarget | None:
    """``literal_kind`` without its suffix test: every pattern searched."""
    from edge_origin.model import names

    normalized = names.normalize_name(name) or ""
    for pattern, kind, judged in names._LITERAL_KINDS:  # noqa: SLF001
        if pattern.search(normalized):
            return NameTarget(kind, judged, "" if judged else f"edge-origin does not model what this {kind} answers")
    return None


_PIECES = st.sampled_from(["elb", "ELB", "amazonaws", "com", "cn", "cloudfront", "net", "awsglobalaccelerator",
                           "s3-website", "s3-website-us-east-1", "elasticbeanstalk", "vpce", "execute-api", "appsync-api",
                           "us-east-1", "x", "", "\n", "\\010", "a-b"])


@settings(max_examples=50, deadline=None)
@given(parts=st.lists(_PIECES, max_size=7), dot=st.booleans(), newline=st.sampled_from(["", "\n", "\n\n"]))
def test_the_suffix_test_skips_only_names_no_pattern_matches(parts: list[str], dot: bool, newline: str) -> None:
    """Issue 53: a name not ending as one of the patterns must is answered None without compiling them."""
    name = ".".join(parts) + ("." if dot else "") + newline
    assert literal_kind(name) == _every_pattern(name)
