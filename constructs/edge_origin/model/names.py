"""What a DNS name in a template ends at: the one table every reader of names asks.

A record's alias target, a CNAME value and a CloudFront origin domain are names. The template
model resolves their intrinsics (``model/intrinsics.py``: ``Fn::Join``/``Fn::Sub`` around a
reference, the ``dualstack.``/``ipv6.`` prefixes Route 53 accepts on ELB alias targets, trailing
dots, ``Fn::ImportValue`` of an export in the given templates); this module says what the result
names, as aws-cdk-lib's ``aws_route53_targets`` classes write them (aws-cdk-lib 2.275):

========================================  =======================================  ==========
target class                              what the alias DNSName holds             judged
========================================  =======================================  ==========
LoadBalancerTarget                        dualstack. + GetAtt Lb.DNSName (ELBv2)   yes
ClassicLoadBalancerTarget                 dualstack. + GetAtt Clb.DNSName          no
CloudFrontTarget                          GetAtt Distribution.DomainName           yes
Route53RecordTarget                       Ref RecordSet (its name)                 yes
GlobalAcceleratorTarget / DomainTarget    GetAtt Accelerator.DnsName / a literal   no
ApiGateway / ApiGatewayDomain / v2        GetAtt DomainName.RegionalDomainName     no
AppSyncTarget                             GetAtt DomainName.AppSyncDomainName      no
BucketWebsiteTarget                       s3-website-<region>.amazonaws.com        no
InterfaceVpcEndpointTarget                Fn::Select over GetAtt DnsEntries        no
UserPoolDomainTarget                      GetAtt <custom resource>.Domain...        no
ElasticBeanstalkEnvironmentEndpointTarget <env>.<region>.elasticbeanstalk.com      no
========================================  =======================================  ==========

"Judged" means the answer model knows what a resolver receives behind the name; everything else
is named by EO-NJ1 ("not judged: <kind>"), never read as one address or as absent.
"""

from __future__ import annotations

from edge_origin.answers.types import ALB_DNS_NAME, NLB_DNS_NAME
from edge_origin.core.fast_dataclass import dataclass
from edge_origin.core.lazy_re import lazy
from edge_origin.model.values import ResourceRef, Unresolved, display_value, normalize_name

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

#: Resource type -> what its DNS-name attribute names (``judged``: the answer model follows it).
RESOURCE_KINDS: dict[str, tuple[str, bool]] = {
    "AWS::ElasticLoadBalancingV2::LoadBalancer": ("Elastic Load Balancing v2 load balancer", True),
    "AWS::CloudFront::Distribution": ("CloudFront distribution", True),
    "AWS::Route53::RecordSet": ("another record", True),
    "AWS::ElasticLoadBalancing::LoadBalancer": ("Classic Load Balancer", False),
    "AWS::GlobalAccelerator::Accelerator": ("Global Accelerator", False),
    "AWS::ApiGateway::DomainName": ("API Gateway domain", False),
    "AWS::ApiGatewayV2::DomainName": ("API Gateway (v2) domain", False),
    "AWS::AppSync::DomainName": ("AppSync domain", False),
    "AWS::EC2::VPCEndpoint": ("VPC endpoint", False),
    "AWS::Cognito::UserPoolDomain": ("Cognito user pool domain", False),
    "AWS::ElasticBeanstalk::Environment": ("Elastic Beanstalk environment", False),
    "AWS::S3::Bucket": ("S3 website", False),
}

#: Literal names of AWS endpoints (suffix patterns of the public DNS names AWS gives them).
_LITERAL_KINDS: tuple[tuple[Any, str, bool], ...] = (  # re.Pattern, compiled on first use
    (NLB_DNS_NAME, "Network Load Balancer (not in these templates)", True),
    (ALB_DNS_NAME, "Application or Classic Load Balancer (not in these templates)", True),
    (lazy(r"\.cloudfront\.net$"), "CloudFront distribution", True),
    (lazy(r"\.awsglobalaccelerator\.com$"), "Global Accelerator", False),
    (lazy(r"(^|\.)s3-website[.-][a-z0-9-]+\.amazonaws\.com$"), "S3 website", False),
    (lazy(r"\.elasticbeanstalk\.com$"), "Elastic Beanstalk environment", False),
    (lazy(r"\.vpce\.amazonaws\.com$"), "VPC endpoint", False),
    (lazy(r"\.execute-api\.[a-z0-9-]+\.amazonaws\.com$"), "API Gateway endpoint", False),
    (lazy(r"\.appsync-api\.[a-z0-9-]+\.amazonaws\.com$"), "AppSync endpoint", False),
)

@dataclass(frozen=True)
class NameTarget:
    """What a name in a template ends at. ``kind`` names it for people; ``judged``: the answer
    model knows what a resolver receives behind it; ``reason``: why not, when not."""

    kind: str
    judged: bool
    reason: str = ""


#: What every pattern of ``_LITERAL_KINDS`` ends with (then ``$``: the end, or before a final newline): a
#: name ending otherwise matches none of them, and none is compiled for it (issue 53).
_LITERAL_SUFFIXES = (".amazonaws.com", ".amazonaws.com.cn", ".cloudfront.net", ".awsglobalaccelerator.com",
                     ".elasticbeanstalk.com")


def literal_kind(name: str) -> NameTarget | None:
    """An AWS endpoint's kind from its public DNS name (None: not one AWS names)."""
    name = normalize_name(name) or ""
    if not (name[:-1] if name.endswith("\n") else name).endswith(_LITERAL_SUFFIXES):
        return None
    for pattern, kind, judged in _LITERAL_KINDS:
        if pattern.search(name):
            return NameTarget(kind, judged, "" if judged else f"edge-origin does not model what this {kind} answers")
    return None


def classify(value: Any, resource_type: str | None = None) -> NameTarget:
    """What ``value`` (a resolved alias target, CNAME value or origin domain) names.
    ``resource_type``: the CloudFormation type of the resource a ``ResourceRef`` points at."""
    if isinstance(value, Unresolved):
        return NameTarget("expression", False, _unresolved_reason(value))
    if isinstance(value, ResourceRef):
        if resource_type is None:
            return NameTarget("resource not in these templates", False, f"{value.display()} is not a resource of the given templates")
        kind, judged = RESOURCE_KINDS.get(resource_type, (resource_type, False))
        return NameTarget(kind, judged, "" if judged else f"edge-origin does not model what this {kind} answers")
    if isinstance(value, str):
        known = literal_kind(value)
        return known if known is not None else NameTarget("name", True)
    return NameTarget("value", False, f"{display_value(value)} is not a DNS name")


def _unresolved_reason(value: Unresolved) -> str:
    return {
        "parameter": "a parameter without a Default: its value is chosen at deploy",
        "pseudo": "a pseudo parameter only known at deploy",
        "import": "an Fn::ImportValue of an export none of the given templates declares: check the stacks together",
        "nested": "an output of a nested stack whose template is not among the given templates",
        "condition": "an Fn::If whose condition the templates do not decide",
        "composite": "an Fn::Join/Fn::Sub edge-origin cannot reduce to one name",
        "transform": "a macro edge-origin cannot expand",
    }.get(value.reason, "an expression edge-origin cannot evaluate")
