"""Which response members the installed botocore reads, for the fields AWS added lately.

botocore parses a response by its own service model: a member the model does not have is dropped
from what the SDK returns, silently. A field read with an SDK that predates it is therefore "not
read", never "absent" (an absent ``OriginHttpVersion`` means HTTP/1.1; an unread one means
nothing). The live commands ask :func:`not_read` before they report or compare such a field.

``SDK_MEMBERS`` records, for each field the live commands read that needs a recent botocore, the
first release whose model has it (measured: botocore 1.44.8 has every one; FACTS.md, "Measured
2026-12-03": "botocore 1.44.8 ... knows: Route 53 ``ResourceRecordSet.AZAffinity`` ... CloudFront
``OriginHttpVersion``"; the issue's "new in botocore 1.44") and the service model sentence that
defines it. docs/aws-today.md lists them for users.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import botocore
import botocore.session


@dataclass(frozen=True)
class SdkMember:
    """A response member of ``service``'s ``shape`` and the botocore release that first reads it."""

    service: str
    shape: str
    member: str
    since: str
    source: str

    @property
    def label(self) -> str:
        return f"{self.service} {self.shape}.{self.member}"


_ORIGIN_HTTP_VERSION = (
    "botocore 1.44.8 cloudfront/2020-05-31 service-2.json, {shape}.OriginHttpVersion: 'The HTTP version that "
    "CloudFront uses for requests to your [custom|VPC] origin. Valid values are http1.1 and http2. If you don't specify "
    "a value, CloudFront uses HTTP/1.1. [...] If you use a version of an AWS SDK or the AWS CLI that doesn't support "
    "this field, an update that sends back a configuration you got from CloudFront removes the value, and CloudFront "
    "then uses HTTP/1.1.'"
)

SDK_MEMBERS: tuple[SdkMember, ...] = (
    SdkMember("route53", "ResourceRecordSet", "AZAffinity", "1.44",
              "botocore 1.44.8 route53/2013-04-01 service-2.json, ResourceRecordSet.AZAffinity"),
    # measured in botocore's git history (service-2.json at each release tag; .changes/<version>.json):
    SdkMember("cloudfront", "Origin", "VpcOriginConfig", "1.35.66",
              "botocore .changes/1.35.66.json: 'Add support for gRPC, VPC origins, and Anycast IP Lists'"),
    SdkMember("route53", "HostedZoneFeatures", "ChangeGuardrails", "1.44",
              "botocore 1.44.8 route53 HostedZoneFeatures.ChangeGuardrails (1.43.67 has only AcceleratedRecoveryStatus, FailureReasons)"),
    SdkMember("route53", "HostedZoneFeatures", "ChangeHistory", "1.44", "botocore 1.44.8 route53 HostedZoneFeatures.ChangeHistory"),
    SdkMember("cloudfront", "VpcOriginConfig", "OriginKeepaliveTimeout", "1.35.83",
              "botocore .changes/1.35.83.json: 'Adds support for OriginReadTimeout and OriginKeepaliveTimeout to create "
              "CloudFront Distributions with VPC Origins'"),
    SdkMember("cloudfront", "VpcOriginConfig", "OriginReadTimeout", "1.35.83", "botocore .changes/1.35.83.json (as above)"),
    SdkMember("cloudfront", "VpcOriginEndpointConfig", "IpAddressType", "1.44",
              "botocore 1.44.8 cloudfront VpcOriginEndpointConfig.IpAddressType (absent from 1.43.67)"),
    SdkMember("cloudfront", "Origin", "ResponseCompletionTimeout", "1.39.17",
              "botocore .changes/1.39.17.json: 'This release adds new origin timeout options: 1) ResponseCompletionTimeout'"),
    SdkMember("cloudfront", "CustomOriginConfig", "IpAddressType", "1.40.23",
              "botocore .changes/1.40.23.json: 'Adding an optional field IpAddressType in CustomOriginConfig'"),
    SdkMember("cloudfront", "CustomOriginConfig", "OriginHttpVersion", "1.44", _ORIGIN_HTTP_VERSION.format(shape="CustomOriginConfig")),
    SdkMember("cloudfront", "VpcOriginConfig", "OriginHttpVersion", "1.44", _ORIGIN_HTTP_VERSION.format(shape="VpcOriginConfig")),
)
SDK_MEMBERS_BY_KEY = {(m.service, m.shape, m.member): m for m in SDK_MEMBERS}


@dataclass(frozen=True)
class SdkOperation:
    """An API operation the live commands call and the botocore release that first has it."""

    service: str
    operation: str
    since: str
    source: str


SDK_OPERATIONS: tuple[SdkOperation, ...] = (
    SdkOperation("cloudfront", "ListVpcOrigins", "1.35.66", "botocore .changes/1.35.66.json (cloudfront: VPC origins)"),
    SdkOperation("cloudfront", "GetVpcOrigin", "1.35.66", "botocore .changes/1.35.66.json (cloudfront: VPC origins)"),
    SdkOperation("elbv2", "DescribeCapacityReservation", "1.35.66",
                 "botocore .changes/1.35.66.json: 'This release adds support for configuring Load balancer Capacity Unit reservations'"),
    SdkOperation("route53", "ListResourceRecordSetProtections", "1.44",
                 "botocore 1.44.8 route53 service model (record set protections; absent from 1.43.67)"),
)
SDK_OPERATIONS_BY_KEY = {(o.service, o.operation): o for o in SDK_OPERATIONS}
#: CloudFront's answer for an origin without ``OriginHttpVersion`` ("If you don't specify a value,
#: CloudFront uses HTTP/1.1").
ORIGIN_HTTP_VERSION_DEFAULT = "http1.1"


#: How every "this SDK cannot read it" text starts (:func:`not_read`, :func:`operation_not_read`).
SDK_NOT_READ = "not read (botocore "


def installed_botocore() -> str:
    """The installed botocore's version."""
    return str(botocore.__version__)


@functools.cache
def shape_members(service: str, shape: str) -> frozenset[str]:
    """The members of ``shape`` in the installed botocore's ``service`` model (empty: no such shape)."""
    model = botocore.session.get_session().get_service_model(service)
    try:
        return frozenset(model.shape_for(shape).members)
    except Exception:  # botocore.model.NoShapeFoundError: an older model without the shape
        return frozenset()


@functools.cache
def service_operations(service: str) -> frozenset[str]:
    """The operation names of the installed botocore's ``service`` model."""
    return frozenset(botocore.session.get_session().get_service_model(service).operation_names)


def _older(version: str, than: str) -> bool:
    def parts(v: str) -> tuple[int, ...]:
        out = []
        for piece in v.split("."):
            digits = "".join(c for c in piece if c.isdigit())
            out.append(int(digits or 0))
        return tuple(out)

    return parts(version)[: len(parts(than))] < parts(than)


def not_read(service: str, shape: str, member: str) -> str | None:
    """None when the installed botocore reads ``shape.member``; else the words for the line that
    reports it: ``not read (botocore 1.43.2 < 1.44: ...)``."""
    if member in shape_members(service, shape):
        return None
    known = SDK_MEMBERS_BY_KEY.get((service, shape, member))
    version = installed_botocore()
    if known is not None and _older(version, known.since):
        why = f"botocore {version} < {known.since}"
    else:
        why = f"botocore {version}'s {service} model has no {shape}.{member}"
    return f"{SDK_NOT_READ}{why.removeprefix('botocore ')}: the SDK drops {member} from every response; upgrade botocore to read it)"


def operation_not_read(service: str, operation: str) -> str | None:
    """None when the installed botocore has ``operation``; else ``not read (botocore 1.35.10 <
    1.35.66: ...)`` (an older client has no method for it at all)."""
    if operation in service_operations(service):
        return None
    known = SDK_OPERATIONS_BY_KEY.get((service, operation))
    version = installed_botocore()
    if known is not None and _older(version, known.since):
        why = f"botocore {version} < {known.since}"
    else:
        why = f"botocore {version}'s {service} model has no {operation}"
    return f"{SDK_NOT_READ}{why.removeprefix('botocore ')}: the SDK has no {operation}; upgrade botocore to read it)"


__all__ = [
    "SDK_NOT_READ",
    "SDK_OPERATIONS",
    "SdkOperation",
    "operation_not_read",
    "service_operations",
    "ORIGIN_HTTP_VERSION_DEFAULT",
    "SDK_MEMBERS",
    "SdkMember",
    "installed_botocore",
    "not_read",
    "shape_members",
]
