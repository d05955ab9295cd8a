"""GrpcEdgeDistribution: a CloudFront distribution that carries gRPC to a multivalue origin name."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from edge_origin.core.dns_names import canonical_name
from edge_origin.core.errors import (
    ConstructLabel,
    EdgeOriginPropError,
    is_token,
    require_construct,
    require_one_of,
    require_port,
    require_seconds_range,
    require_str_list,
    suggest_props,
)
from edge_origin.core.origin_verification import (
    METADATA_KEY,
    OriginVerification,
    checked_prop,
    secret_kind,
    secret_template,
)
from edge_origin.profile.hops import (
    CF_ORIGIN_TIMEOUTS,
    CF_RESPONSE_COMPLETION_RANGE,
    CF_TIMEOUT_CEILING_S,
    origin_timeout_problem,
)

ORIGIN_KEEPALIVE_RANGE = (CF_ORIGIN_TIMEOUTS["keepalive"].minimum_s, CF_TIMEOUT_CEILING_S)
"""CloudFront origin keepalive timeout accepted: whole seconds from 1 (an adjustable quota: above its default,
120 s, a synth warning naming the quota; :data:`edge_origin.profile.hops.CF_ORIGIN_TIMEOUTS`)."""
ORIGIN_READ_TIMEOUT_RANGE = (CF_ORIGIN_TIMEOUTS["read"].minimum_s, CF_TIMEOUT_CEILING_S)
"""CloudFront origin response (read) timeout accepted: whole seconds from 1 (default quota 120 s, above: a warning)."""
DEFAULT_QUOTA_MAX = CF_ORIGIN_TIMEOUTS["read"].default_quota_s
HTTP_VERSIONS = {
    "http2": cloudfront.HttpVersion.HTTP2,
    "http2and3": cloudfront.HttpVersion.HTTP2_AND_3,
}
DOMAIN_NAME_PATTERN = re.compile(r"(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}")
"""A distribution's alternate domain name (CNAME), lower case without the trailing dot; ``*.`` allowed."""
ORIGIN_NAME_PATTERN = re.compile(r"([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?")
"""A custom origin's domain name: two labels or more, the last not numeric (CloudFront refuses IP addresses)."""
WEB_ACL_ARN = re.compile(r"arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global/webacl/[\w-]{1,128}/[\w-]{1,128}")
"""A WAFv2 web ACL of CLOUDFRONT scope: always in us-east-1, ``global/webacl/<name>/<id>``."""
CERTIFICATE_REGION = "us-east-1"
COMMENT_MAX = 128
"""CloudFront's limit on a distribution comment (CDK cuts a longer one silently)."""


def warn_origin_timeout_quotas(scope: Construct, keepalive_s: int, read_s: int) -> None:
    """A synth warning (never an error) for each origin timeout above its default CloudFront quota."""
    for prop, kind, value in (("keepalive_timeout", "keepalive", keepalive_s), ("read_timeout", "read", read_s)):
        problem = origin_timeout_problem(kind, value)
        if problem is not None:
            cdk.Annotations.of(scope).add_warning_v2(f"edge-origin:cloudfront-{prop}-quota", f"{prop}={problem[1]}")


ORIGIN_IP_ADDRESS_TYPES = {
    "ipv4": cloudfront.OriginIpAddressType.IPV4,
    "ipv6": cloudfront.OriginIpAddressType.IPV6,
    "dualstack": cloudfront.OriginIpAddressType.DUALSTACK,
}
"""``CustomOriginConfig.IpAddressType`` (botocore 1.44.8 cloudfront ``IpAddressType``: ipv4, ipv6, dualstack)."""


#: aws-cdk-lib releases older than the one this was measured on (2.264 at the floor of pyproject.toml)
#: refuse origin keepalive and read timeouts above 180 s at construction ("readTimeout: Must be an int
#: between 1 and 180 seconds"), though CloudFront takes what the account's quota allows (issue 37): the
#: L2 gets at most this, and a property override writes the value given (2.275 takes it directly).
L2_TIMEOUT_CAP_S = 180


def l2_timeout(seconds: int) -> cdk.Duration:
    """An origin timeout for the aws-cdk-lib L2 (capped, see ``L2_TIMEOUT_CAP_S``)."""
    return cdk.Duration.seconds(min(seconds, L2_TIMEOUT_CAP_S))


def response_completion_timeout_seconds(where: str | ConstructLabel, value: object, read_s: int) -> int | None:
    """``response_completion_timeout`` as whole seconds in 1..3600 and at least the read timeout, or None.

    botocore 1.44.8 cloudfront ``Origin.ResponseCompletionTimeout``: "The value for
    ResponseCompletionTimeout must be equal to or greater than the value for OriginReadTimeout";
    aws-cdk-lib 2.275 HttpOrigin: "Valid values are 1-3600 seconds, inclusive".
    """
    if value is None:
        return None
    low, high = CF_RESPONSE_COMPLETION_RANGE
    try:
        seconds = require_seconds_range(where, "response_completion_timeout", value, low, high)  # type: ignore[arg-type]
    except EdgeOriginPropError as exc:  # the maximum is aws-cdk-lib's, not CloudFront's: say so (issue 52)
        raise EdgeOriginPropError(
            where, exc.prop, exc.value,
            f"{exc.allowed} (aws-cdk-lib's HttpOrigin check; CloudFront's API sets no maximum, and unset means none: "
            "pass None for a stream that may live longer)",
        ) from None
    if seconds < read_s:
        raise EdgeOriginPropError(
            where, "response_completion_timeout", f"{seconds}s",
            f"at least read_timeout ({read_s}s): CloudFront requires ResponseCompletionTimeout >= OriginReadTimeout",
        )
    return seconds


def normalized_domain_name(name: str) -> str:
    """A domain name as CloudFront and Route 53 compare it (:func:`edge_origin.core.dns_names.canonical_name`:
    octal escapes decoded, lower case, no surrounding spaces or final dot)."""
    return canonical_name(name)


def validate_distribution_props(
    where: str | ConstructLabel,
    *,
    http_version: object,
    domain_names: object,
    certificate: object,
    web_acl_id: object,
    log_bucket: object,
    price_class: object,
    origin_request_policy: object = None,
) -> list[str]:
    """The CloudFront props ``GrpcEdgeDistribution`` and ``GrpcEdgeToOrigin`` share, checked before
    anything reaches jsii; returns ``domain_names`` as a list (empty when None)."""
    require_one_of(where, "http_version", http_version, HTTP_VERSIONS)
    names = require_str_list(where, "domain_names", domain_names) if domain_names is not None else []
    seen: set[str] = set()
    for name in names:
        norm = normalized_domain_name(name)
        if not is_token(name) and not DOMAIN_NAME_PATTERN.fullmatch(norm):
            raise EdgeOriginPropError(where, "domain_names", name, "DNS names like grpc.example.com (or *.example.com)")
        if norm in seen:
            raise EdgeOriginPropError(where, "domain_names", name, "each name once")
        seen.add(norm)
    require_construct(where, "certificate", certificate, acm.ICertificate, "an acm.ICertificate (us-east-1)")
    if certificate is not None:
        arn = certificate.certificate_arn
        if isinstance(arn, str) and not is_token(arn) and arn.count(":") >= 5:
            region, shown = arn.split(":")[3], arn
        else:  # a certificate made in this app: the region of its stack
            region, shown = certificate.env.region, f"{certificate.node.path} in {certificate.env.region}"
        if isinstance(region, str) and not is_token(region) and region != CERTIFICATE_REGION:
            raise EdgeOriginPropError(
                where, "certificate", shown, f"an ACM certificate in {CERTIFICATE_REGION} (the only region CloudFront reads)"
            )
        if not names:
            raise EdgeOriginPropError(where, "certificate", shown, "a certificate only with domain_names (the names it covers)")
    if names and certificate is None:
        raise EdgeOriginPropError(
            where, "domain_names", names, "names covered by certificate= (an ACM certificate in us-east-1); none without one"
        )
    if web_acl_id is not None and (
        not isinstance(web_acl_id, str) or not (is_token(web_acl_id) or WEB_ACL_ARN.fullmatch(web_acl_id))
    ):
        raise EdgeOriginPropError(where, "web_acl_id", web_acl_id, "a WAFv2 web ACL ARN (arn:aws:wafv2:us-east-1:...)")
    require_construct(where, "log_bucket", log_bucket, s3.IBucket, "an s3.IBucket")
    if not isinstance(price_class, cloudfront.PriceClass):
        raise EdgeOriginPropError(where, "price_class", price_class, "a cloudfront.PriceClass")
    require_construct(
        where, "origin_request_policy", origin_request_policy, cloudfront.IOriginRequestPolicy,
        "a cloudfront.IOriginRequestPolicy (e.g. OriginRequestPolicy.ALL_VIEWER), or None for AllViewerExceptHostHeader",
    )
    return names


@suggest_props
class OriginVerificationSecret(Construct):
    """The secret (created or given) and the header CloudFront sends, as a dynamic reference.

    Exposes ``secret``, ``header_name``, ``header_value`` (a ``{{resolve:secretsmanager:...}}``
    token: the value never enters the template), ``custom_headers`` for ``HttpOrigin`` and
    ``metadata`` (what the EO-SEC1 rule and the report read: no value). A created secret gets a
    stack output with its ARN, for the pods' secret mount (Secrets Store CSI driver or External
    Secrets).
    """

    def __init__(self, scope: Construct, construct_id: str, *, verification: OriginVerification) -> None:
        super().__init__(scope, construct_id)
        where = ConstructLabel("OriginVerificationSecret", self)
        if not isinstance(verification, OriginVerification):
            raise EdgeOriginPropError(where, "verification", verification, "an OriginVerification")
        try:
            self.verification = verification.validated(where)
        except EdgeOriginPropError as exc:  # the fields are props of `verification` here
            prop = exc.prop.replace("origin_verification", "verification", 1)
            raise EdgeOriginPropError(where, prop, exc.value, exc.allowed) from None
        kind = secret_kind(where, verification.secret)
        self.created = kind == "new"
        if kind == "new":
            self.secret: secretsmanager.ISecret = secretsmanager.Secret(
                self,
                "Secret",
                description="edge-origin: value CloudFront sends as the origin verification header "
                f"{verification.header_name} (JSON: {verification.json_field}, {verification.previous_json_field})",
                generate_secret_string=secretsmanager.SecretStringGenerator(
                    secret_string_template=secret_template(verification.previous_json_field),
                    generate_string_key=verification.json_field,
                    exclude_punctuation=True,
                    include_space=False,
                    password_length=verification.secret_length,
                ),
            )
            self.secret_arn_output = cdk.CfnOutput(
                self,
                "SecretArn",
                value=self.secret.secret_arn,
                description=f"Secrets Manager secret of the {verification.header_name} origin header: mount it in the pods",
            )
        elif kind == "arn":
            self.secret = secretsmanager.Secret.from_secret_complete_arn(self, "Secret", verification.secret)
        else:
            self.secret = verification.secret
        self.header_name = verification.header_name
        self.header_value: str = cdk.SecretValue.secrets_manager(
            self.secret.secret_arn,
            json_field=verification.json_field,
            version_id=verification.version_id,
        ).unsafe_unwrap()  # a dynamic reference: CloudFormation resolves it, the template holds none

    @property
    def custom_headers(self) -> dict[str, str]:
        return {self.header_name: self.header_value}

    @property
    def metadata(self) -> dict[str, Any]:
        v = self.verification
        return {
            "header": v.header_name,
            "source": "secretsmanager",
            "jsonField": v.json_field,
            "previousJsonField": v.previous_json_field,
            "versionId": v.version_id or "AWSCURRENT",
        }


@suggest_props
class GrpcEdgeDistribution(Construct):
    """CloudFront in front of a gRPC origin name: gRPC on, HTTP/2, no caching, HTTPS-only origin.

    The origin is the multivalue record name, so each CloudFront host resolves the whole fleet.
    By default CloudFront sends the origin name as Host and SNI (the viewer's Host is not
    forwarded), so the pods' certificate must cover the origin name.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        origin_name: str,
        origin_port: int = 443,
        keepalive_timeout: cdk.Duration = cdk.Duration.seconds(30),
        read_timeout: cdk.Duration = cdk.Duration.seconds(60),
        http_version: str = "http2and3",
        origin_request_policy: cloudfront.IOriginRequestPolicy | None = None,
        domain_names: Sequence[str] | None = None,
        certificate: acm.ICertificate | None = None,
        web_acl_id: str | None = None,
        log_bucket: s3.IBucket | None = None,
        price_class: cloudfront.PriceClass = cloudfront.PriceClass.PRICE_CLASS_ALL,
        comment: str | None = None,
        origin_verification: OriginVerification | None = None,
        response_completion_timeout: cdk.Duration | int | None = None,
        origin_ip_address_type: str | None = None,
    ) -> None:
        """
        :param origin_name: DNS name of the origin records (required, not empty).
        :param origin_port: HTTPS port of the origin (1..65535). Default 443.
        :param keepalive_timeout: origin keepalive timeout (whole seconds from 1; above the default
            quota, 120 s, a warning naming the quota). Keep it shorter than the NLB idle timeout. Default 30 s.
        :param read_timeout: origin response timeout (whole seconds from 1; above the default quota,
            120 s, a warning naming the quota). Default 60 s.
        :param http_version: ``http2`` or ``http2and3`` (default). gRPC needs HTTP/2 from viewers.
        :param origin_request_policy: what CloudFront forwards. Default: the managed
            AllViewerExceptHostHeader policy (all viewer headers gRPC uses, Host = origin name).
        :param domain_names: custom domain names. Default: none (the cloudfront.net name).
            Requires ``certificate``.
        :param certificate: ACM certificate in us-east-1 for ``domain_names`` (only with them). Default: none.
        :param web_acl_id: ARN of a WAFv2 web ACL (CLOUDFRONT scope, so in us-east-1). Default: none.
        :param log_bucket: standard access logs bucket. Default: no access logs.
        :param price_class: edge locations used. Default: all.
        :param comment: distribution comment (1..128 characters). Default: names the origin.
        :param origin_verification: the secret origin header only this distribution sends (value from
            Secrets Manager through a dynamic reference). Default: none here; ``GrpcEdgeToOrigin``
            turns it on by default.
        :param response_completion_timeout: the origin's ``ResponseCompletionTimeout`` (whole seconds
            1..3600, at least ``read_timeout``). CloudFront ends every request, so every gRPC stream,
            still open at this age (botocore 1.44.8 cloudfront ``Origin.ResponseCompletionTimeout``: "If
            the complete response isn't received from the origin by this time, CloudFront ends the
            connection"; "must be equal to or greater than the value for OriginReadTimeout"). EO-CF3
            judges it against the connection profile. Default None: unset, "CloudFront doesn't enforce
            a maximum value".
        :param origin_ip_address_type: ``"ipv4"``, ``"ipv6"`` or ``"dualstack"``: the IP protocol
            CloudFront uses to connect to the origin (``CustomOriginConfig.IpAddressType``). With
            ``dualstack`` or ``ipv6`` CloudFront also asks the origin name's AAAA set, which the DNS
            rules then judge like the A set. Not for VPC origins (``VpcOriginConfig`` has no such
            member). Default None: unset, CloudFront uses IPv4 (aws-cdk-lib: "Default: OriginIpAddressType.IPV4").
        """
        super().__init__(scope, construct_id)
        where = ConstructLabel("GrpcEdgeDistribution", self)
        if not isinstance(origin_name, str) or not origin_name.strip(" ."):
            raise EdgeOriginPropError(where, "origin_name", origin_name, "a non-empty DNS name")
        if not is_token(origin_name) and (
            len(normalized_domain_name(origin_name)) > 253
            or not ORIGIN_NAME_PATTERN.fullmatch(normalized_domain_name(origin_name))
        ):
            raise EdgeOriginPropError(
                where, "origin_name", origin_name, "a DNS name like origin.example.com (labels a-z 0-9 - <= 63; not an IP)"
            )
        require_port(where, "origin_port", origin_port)
        self.keepalive_timeout_seconds = require_seconds_range(
            where, "keepalive_timeout", keepalive_timeout, *ORIGIN_KEEPALIVE_RANGE
        )
        self.read_timeout_seconds = require_seconds_range(where, "read_timeout", read_timeout, *ORIGIN_READ_TIMEOUT_RANGE)
        warn_origin_timeout_quotas(self, self.keepalive_timeout_seconds, self.read_timeout_seconds)
        self.response_completion_timeout_seconds = response_completion_timeout_seconds(
            where, response_completion_timeout, self.read_timeout_seconds
        )
        self.origin_ip_address_type = (
            None if origin_ip_address_type is None
            else require_one_of(where, "origin_ip_address_type", origin_ip_address_type, tuple(ORIGIN_IP_ADDRESS_TYPES))
        )
        names = validate_distribution_props(
            where, http_version=http_version, domain_names=domain_names, certificate=certificate, web_acl_id=web_acl_id,
            log_bucket=log_bucket, price_class=price_class, origin_request_policy=origin_request_policy,
        )
        if comment is not None and (not isinstance(comment, str) or not comment.strip() or len(comment) > COMMENT_MAX):
            shown = f"{comment[:40]}... ({len(comment)} characters)" if isinstance(comment, str) and len(comment) > 60 else comment
            raise EdgeOriginPropError(
                where, "comment", shown, f"text of 1..{COMMENT_MAX} characters (CloudFront's limit), or None for the default"
            )
        self.origin_name = origin_name if is_token(origin_name) else normalized_domain_name(origin_name)
        origin_verification = checked_prop(where, origin_verification)
        self.origin_verification = (
            OriginVerificationSecret(self, "OriginVerify", verification=origin_verification)
            if origin_verification is not None
            else None
        )
        # the newer HttpOrigin props only when set: the floor aws-cdk-lib (pyproject) may not know them
        newer: dict = {}
        if self._response_completion_duration() is not None:
            newer["response_completion_timeout"] = self._response_completion_duration()
        if self.origin_ip_address_type:
            newer["ip_address_type"] = ORIGIN_IP_ADDRESS_TYPES[self.origin_ip_address_type]
        self.origin = origins.HttpOrigin(
            self.origin_name,
            protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
            https_port=origin_port,
            origin_ssl_protocols=[cloudfront.OriginSslPolicy.TLS_V1_2],
            keepalive_timeout=l2_timeout(self.keepalive_timeout_seconds),
            read_timeout=l2_timeout(self.read_timeout_seconds),
            custom_headers=self.origin_verification.custom_headers if self.origin_verification else None,
            **newer,
        )
        self.origin = self._chosen_origin(self.origin)
        self.distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment=comment or f"gRPC edge for {self.origin_name}",
            default_behavior=cloudfront.BehaviorOptions(
                origin=self.origin,
                enable_grpc=True,
                allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
                cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
                origin_request_policy=origin_request_policy
                or cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
                compress=False,
            ),
            http_version=HTTP_VERSIONS[http_version],
            domain_names=names or None,
            certificate=certificate,
            minimum_protocol_version=cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 if certificate else None,
            web_acl_id=web_acl_id,
            enable_logging=log_bucket is not None,
            log_bucket=log_bucket,
            price_class=price_class,
        )
        if self.origin_verification is not None:
            self.distribution.node.default_child.add_metadata(METADATA_KEY, self.origin_verification.metadata)
        self._write_timeouts_above_the_l2_cap()

    #: Where the origin's timeouts live in ``DistributionConfig.Origins[0]``.
    ORIGIN_CONFIG_KEY = "CustomOriginConfig"

    def _write_timeouts_above_the_l2_cap(self) -> None:
        """Timeouts above what older aws-cdk-lib L2s take, written to the template as given."""
        cfn = self.distribution.node.default_child
        for member, seconds in (("OriginKeepaliveTimeout", self.keepalive_timeout_seconds), ("OriginReadTimeout", self.read_timeout_seconds)):
            if seconds > L2_TIMEOUT_CAP_S:
                cfn.add_property_override(f"DistributionConfig.Origins.0.{self.ORIGIN_CONFIG_KEY}.{member}", seconds)

    def _response_completion_duration(self) -> cdk.Duration | None:
        seconds = self.response_completion_timeout_seconds
        return None if seconds is None else cdk.Duration.seconds(seconds)

    def _chosen_origin(self, http_origin: cloudfront.IOrigin) -> cloudfront.IOrigin:
        """The origin the distribution uses: the ``HttpOrigin`` here; ``GrpcVpcOriginDistribution``
        (edge_origin.cdk.vpc_origin) returns a VPC origin with the same timeouts and headers."""
        return http_origin
