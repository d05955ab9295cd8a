"""The facts table: every number or behaviour of AWS, aws-cdk-lib or gRPC that a verdict, a default,
the forecast or the rehearsal rests on, once, with its source, the date it was read and its owner.

Rules, constructs, the profile checks, the forecast and the docs read a fact by key
(:func:`fact`, :func:`value`); ``rules explain`` and RULES.md cite the facts a rule names
(``Rule.facts``). Where the fact is documented in a botocore service model (a default, a range, an
enum, a sentence such as "up to eight healthy records"), ``model`` says where, and
``tests/core/test_facts.py`` holds the fact against the installed botocore
(:mod:`edge_origin.core.facts_check`); ``make drift`` holds it against the newest botocore.

Owners: ``AWS`` (the service's API reference or guide: a change there changes what AWS does),
``aws-cdk-lib`` (a check of the CDK library, not of AWS: a template written without CDK is not
bound by it), ``gRPC``, ``Kubernetes`` / ``AWS Load Balancer Controller`` (the EKS side).
A quota (adjustable per account) is never an error: above its default it is a warning naming the
quota; only the API's own limits are errors.
"""

from __future__ import annotations

from edge_origin.core.fast_dataclass import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

AWS = "AWS"
CDK = "aws-cdk-lib"
GRPC = "gRPC"
LBC = "AWS Load Balancer Controller"
HOUSE = "edge-origin"
"""A judgement of this project (a margin, a ceiling), not a published fact: its reason is the source."""
OWNERS = (AWS, CDK, GRPC, LBC, HOUSE)


@dataclass(frozen=True)
class ModelRef:
    """Where a botocore service model documents a fact, and what it must say there.

    ``quote``: a sentence the member's (or shape's) documentation contains, compared with tags
    stripped and white space collapsed; ``enum``: values the shape's enum must hold; ``range``:
    the shape's ``(min, max)``.
    """

    service: str
    shape: str
    member: str | None = None
    quote: str | None = None
    enum: tuple[str, ...] | None = None
    range: tuple[int, int] | None = None

    @property
    def label(self) -> str:
        return f"botocore {self.service} {self.shape}" + (f".{self.member}" if self.member else "")


@dataclass(frozen=True)
class Fact:
    """One fact: ``value`` (a number, a tuple, a word), what it ``says``, its owner and source."""

    key: str
    value: Any
    says: str
    owner: str
    source: str
    read: str
    model: tuple[ModelRef, ...] = ()

    def cite(self) -> str:
        """One line: what it says, whose it is, where it was read and when."""
        return f"{self.says} ({self.owner}; {self.source}; read {self.read})"


R53_RRS = "route53 ResourceRecordSet"
D0 = "2026-12-06"
ELB_IDLE = "https://docs.aws.amazon.com/elasticloadbalancing/latest/network/update-idle-timeout.html"
ELB_TG = "https://docs.aws.amazon.com/elasticloadbalancing/latest/network/edit-target-group-attributes.html"
ELB_TG_HEALTH = "https://docs.aws.amazon.com/elasticloadbalancing/latest/network/target-group-health.html"
ELB_ZONAL = "https://docs.aws.amazon.com/elasticloadbalancing/latest/network/zonal-shift.html"
ELB_QUOTAS = "https://docs.aws.amazon.com/elasticloadbalancing/latest/network/load-balancer-limits.html"
R53_HEALTH = "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/dns-failover-determining-health-of-endpoints.html"
R53_SOA = "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/SOA-NSrecords.html"
R53_PRIVATE = "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/health-checks-private-endpoints.html"
R53_RANGES = "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/route-53-ip-addresses.html"
CF_QUOTAS = "https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html"
LBC_2366 = "https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/2366"
LBC_3270 = "https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/3270"
LBC_DEPLOY = "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/deploy/pod_readiness_gate/"


_MV = ModelRef("route53", "ResourceRecordSet", "MultiValueAnswer", quote="Route 53 responds to DNS queries with up to eight healthy records")
_TG_KEY = ("elbv2", "TargetGroupAttribute", "Key")
_LB_KEY = ("elbv2", "LoadBalancerAttribute", "Key")
_CONNTRACK = ("ec2", "ConnectionTrackingSpecificationRequest", "TcpEstablishedTimeout")

_TABLE: tuple[Fact, ...] = (
    # --- Route 53: answers --------------------------------------------------------------------
    Fact("route53.multivalue.max_answers", 8, "a multivalue answer holds up to eight healthy records", AWS,
         f"{R53_RRS}.MultiValueAnswer", D0, (_MV,)),
    Fact("route53.multivalue.over_eight", "different combinations",
         "with more than eight healthy multivalue records Route 53 answers different resolvers with different "
         "combinations of them (none is a spare)", AWS, f"{R53_RRS}.MultiValueAnswer", D0,
         (ModelRef("route53", "ResourceRecordSet", "MultiValueAnswer", quote=(
             "If you have more than eight healthy records, Route 53 responds to different DNS resolvers with "
             "different combinations of healthy records")),)),
    Fact("route53.multivalue.all_unhealthy", "up to eight unhealthy",
         "when every multivalue record is unhealthy Route 53 answers with up to eight of them (fail-open)", AWS,
         f"{R53_RRS}.MultiValueAnswer", D0,
         (ModelRef("route53", "ResourceRecordSet", "MultiValueAnswer", quote=(
             "When all records are unhealthy, Route 53 responds to DNS queries with up to eight unhealthy records")),)),
    Fact("route53.ttl.health_checked", 60,
         "on a record with a health check AWS recommends a TTL of 60 seconds or less", AWS, f"{R53_RRS}.TTL", D0,
         (ModelRef("route53", "ResourceRecordSet", "TTL", quote=(
             "we recommend that you specify a TTL of 60 seconds or less so clients respond quickly to changes "
             "in health status")),)),
    Fact("route53.ttl.origin_max", 300,
         "edge-origin's ceiling for an origin record without a health check: resolvers keep a failed NLB's "
         "address for the whole TTL", HOUSE,
         "https://github.com/edge-origin/edge-origin/blob/main/docs/incidents.md", D0),
    Fact("route53.negative_cache_s", 900,
         "Route 53's default SOA (TTL 900 s, minimum 86,400 s) lets resolvers cache 'no such record' for up to "
         "900 s (RFC 2308: the lower of the SOA's TTL and its minimum)", AWS, R53_SOA, D0),
    Fact("route53.records_per_zone", 10_000, "records a hosted zone takes by default (an adjustable quota)", AWS,
         "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/DNSLimitations.html", D0),
    # --- Route 53: health checks --------------------------------------------------------------
    Fact("route53.health.healthy_share", 0.18, "an endpoint is healthy when more than 18 % of the checkers say so",
         AWS, R53_HEALTH, D0),
    Fact("route53.health.request_interval", (10, 30), "RequestInterval: 10..30 s, default 30", AWS,
         "route53 HealthCheckConfig.RequestInterval", D0,
         (ModelRef("route53", "RequestInterval", range=(10, 30)),
          ModelRef("route53", "HealthCheckConfig", "RequestInterval",
                   quote="If you don't specify a value for RequestInterval , the default value is 30 seconds")),),
    Fact("route53.health.failure_threshold", (1, 10), "FailureThreshold: 1..10, default 3", AWS,
         "route53 HealthCheckConfig.FailureThreshold", D0,
         (ModelRef("route53", "FailureThreshold", range=(1, 10)),
          ModelRef("route53", "HealthCheckConfig", "FailureThreshold",
                   quote="if you don't specify a value for FailureThreshold , the default value is three health checks")),),
    Fact("route53.health.https_tls", "TLS 1.0-1.2",
         "an HTTPS health check needs TLS 1.0, 1.1 or 1.2 and sends an HTTP/1.1 request: it is not documented to "
         "speak HTTP/2, so an HTTP/2-only (h2 ALPN only, or prior-knowledge) gRPC port can fail every check", AWS,
         "route53 HealthCheckConfig.Type", D0,
         (ModelRef("route53", "HealthCheckConfig", "Type",
                   quote="If you specify HTTPS for the value of Type , the endpoint must support TLS v1.0, v1.1, or v1.2"),)),
    Fact("route53.health.endpoint_types", ("PUBLIC", "PRIVATE"),
         "a health check targets a PUBLIC endpoint (the default) or a PRIVATE one in a VPC through a health check "
         "source (HealthCheckSourceId); PRIVATE is not for CALCULATED, CLOUDWATCH_METRIC, RECOVERY_CONTROL", AWS,
         f"route53 HealthCheckConfig.EndpointType; {R53_PRIVATE}", D0,
         (ModelRef("route53", "EndpointType", enum=("PUBLIC", "PRIVATE")),
          ModelRef("route53", "HealthCheckConfig", "EndpointType",
                   quote="PRIVATE : The health check targets a private endpoint in your virtual private cloud. You "
                         "must also specify HealthCheckSourceId")),),
    Fact("route53.health.cfn_private", True,
         "CloudFormation declares private endpoint health checks: an AWS::Route53::HealthCheckSource (VPC, one subnet "
         "a zone Route 53 probes from, security groups) and an AWS::Route53::HealthCheck whose HealthCheckConfig has "
         "EndpointType PRIVATE and HealthCheckSourceId (the tools here lag: cfn-lint 1.58's bundled schemas and "
         "aws-cdk-lib 2.275 do not know them; aws-cdk-lib 2.278 has CfnHealthCheckSource)", AWS,
         "https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-route53-healthchecksource.html; "
         + R53_PRIVATE, D0),
    Fact("route53.health.checker_prefix_list", "com.amazonaws.{region}.route53-healthchecks",
         "the AWS-managed prefix list of Route 53 health checker addresses (weight 25 in a security group)", AWS,
         R53_RANGES, D0),
    Fact("route53.health.checker_prefix_list_weight", 25,
         "entries the route53-healthchecks prefix list counts against a security group's rule quota", AWS,
         R53_RANGES, D0),
    Fact("route53.health.checks_quota", 200, "health checks per account (quota L-ACB674F3)", AWS,
         "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/DNSLimitations.html", D0),
    # --- EC2 ----------------------------------------------------------------------------------
    Fact("ec2.conntrack.tcp_established.nitro_v6", 350,
         "ENI connection tracking TcpEstablishedTimeout default on Nitro v6 instance types", AWS,
         "ec2 ConnectionTrackingSpecificationRequest.TcpEstablishedTimeout", D0,
         (ModelRef(*_CONNTRACK, quote="Default: 350 seconds for Nitro v6 instance types"),)),
    Fact("ec2.conntrack.tcp_established.other", 432_000,
         "ENI connection tracking TcpEstablishedTimeout default on every other instance type", AWS,
         "ec2 ConnectionTrackingSpecificationRequest.TcpEstablishedTimeout", D0,
         (ModelRef(*_CONNTRACK, quote="432000 seconds for all other instance types"),)),
    Fact("ec2.conntrack.tcp_established.range", (60, 432_000), "TcpEstablishedTimeout: 60..432,000 s", AWS,
         "ec2 ConnectionTrackingSpecificationRequest.TcpEstablishedTimeout", D0,
         (ModelRef(*_CONNTRACK, quote="Min: 60 seconds. Max: 432000 seconds (5 days)"),)),
    Fact("ec2.elastic_ips_quota", 5, "Elastic IPs per region (quota L-0263D0A3)", AWS,
         "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/elastic-ip-addresses-eip.html", D0),
    # --- ELB (NLB) ----------------------------------------------------------------------------
    Fact("elbv2.nlb.idle_default", 350, "an NLB TCP listener's idle timeout when unset", AWS, ELB_IDLE, D0),
    Fact("elbv2.nlb.idle_tls", 350, "a TLS listener's idle timeout: fixed", AWS, ELB_IDLE, D0),
    Fact("elbv2.nlb.idle_udp", 120, "UDP flows' idle timeout: fixed", AWS, ELB_IDLE, D0),
    Fact("elbv2.nlb.idle_range", (60, 6000), "tcp.idle_timeout.seconds: 60..6000, TCP listeners only", AWS,
         ELB_IDLE, D0),
    Fact("elbv2.listener.protocols",
         (("application", ("HTTP", "HTTPS")), ("network", ("TCP", "TLS", "UDP", "TCP_UDP", "QUIC", "TCP_QUIC")),
          ("gateway", ("GENEVE",))),
         "the protocols a listener may have, by its load balancer's type (a listener whose Protocol is decided at "
         "deploy time is judged over these)", AWS, "elbv2 CreateListenerInput.Protocol, ProtocolEnum", D0,
         (ModelRef("elbv2", "CreateListenerInput", "Protocol", quote=(
             "For Application Load Balancers, the supported protocols are HTTP and HTTPS. For Network Load Balancers, "
             "the supported protocols are TCP, TLS, UDP, TCP_UDP, QUIC, and TCP_QUIC.")),
          ModelRef("elbv2", "ProtocolEnum", enum=("HTTP", "HTTPS", "TCP", "TLS", "UDP", "TCP_UDP", "GENEVE", "QUIC",
                                                 "TCP_QUIC")))),
    Fact("elbv2.tg.unhealthy_connection_termination", True,
         "by default (the attribute unset) an NLB terminates every connection to a target that turns unhealthy "
         "(TCP and TLS target groups; it cannot be enabled on UDP and TCP_UDP ones)", AWS,
         "elbv2 TargetGroupAttribute.Key target_health_state.unhealthy.connection_termination.enabled; "
         f"{ELB_TG_HEALTH}#unhealthy-target-connection-termination; {ELB_TG} (Connection termination for unhealthy "
         "targets)", D0,
         (ModelRef(*_TG_KEY, quote=(
             "target_health_state.unhealthy.connection_termination.enabled - Indicates whether the load balancer "
             "terminates connections to unhealthy targets. The value is true or false . The default is true")),)),
    Fact("elbv2.tg.deregistration_delay", (300, 0, 3600),
         "deregistration_delay.timeout_seconds: default 300, 0..3600", AWS,
         "elbv2 TargetGroupAttribute.Key deregistration_delay.timeout_seconds", D0,
         (ModelRef(*_TG_KEY, quote="The range is 0-3600 seconds. The default value is 300 seconds"),)),
    Fact("elbv2.tg.unhealthy_state_routing", "fail open",
         "below target_group_health.unhealthy_state_routing.minimum_healthy_targets (count default 1) the NLB "
         "sends traffic to all targets, unhealthy ones included, on every path (its DNS name and its EIPs)", AWS,
         "elbv2 TargetGroupAttribute.Key target_group_health.unhealthy_state_routing.*", D0,
         (ModelRef(*_TG_KEY, quote=(
             "If the number of healthy targets is below this value, send traffic to all targets, including "
             "unhealthy targets")),)),
    Fact("elbv2.tg.target_group_health_values", (1, 100),
         "target_group_health.*.minimum_healthy_targets: a count of 1 up to the number of targets (dns_failover also "
         "'off'), a percentage 'off' or 1..100; any other value is refused", AWS,
         "elbv2 TargetGroupAttribute.Key target_group_health.*", D0,
         (ModelRef(*_TG_KEY, quote="The possible values are off or an integer from 1 to the maximum number of targets"),
          ModelRef(*_TG_KEY, quote="The possible values are off or an integer from 1 to 100"),
          ModelRef(*_TG_KEY, quote="The possible values are 1 to the maximum number of targets"))),
    Fact("elbv2.lb.cross_zone_default", False, "an NLB's load_balancing.cross_zone.enabled default", AWS,
         "elbv2 LoadBalancerAttribute.Key load_balancing.cross_zone.enabled", D0,
         (ModelRef(*_LB_KEY, quote="The default for Network Load Balancers and Gateway Load Balancers is false"),)),
    Fact("elbv2.lb.zonal_shift_default", False, "zonal_shift.config.enabled default", AWS,
         "elbv2 LoadBalancerAttribute.Key zonal_shift.config.enabled", D0,
         (ModelRef(*_LB_KEY, quote="zonal_shift.config.enabled - Indicates whether zonal shift is enabled"),)),
    Fact("elbv2.zonal_shift.acts_on", "targets",
         "a zonal shift stops routing traffic to targets in the affected zone (it also takes the zone's address "
         "out of the NLB's DNS name); with cross-zone on, traffic arriving on any address avoids that zone's "
         "targets; cross-zone NLBs need target_health_state.unhealthy.connection_termination.enabled false", AWS,
         ELB_ZONAL, D0),
    Fact("elbv2.nlb.targets_per_zone", 500,
         "quota 'Targets per Availability Zone per Network Load Balancer': default 500, adjustable; 'If a target is "
         "registered with N target groups, it counts as N targets toward this limit', an Application Load Balancer "
         "target as 50 (cross-zone off) or 100 (on); with cross-zone load balancing on, 500 targets per load "
         "balancer whatever its number of zones (note 3, read in the page's ja/de translations)", AWS,
         ELB_QUOTAS + " (Load balancer quotas, notes 2 and 3)", D0),
    Fact("elbv2.nlb.targets_max", 3000,
         "quota 'Targets per Network Load Balancer': default 3,000, adjustable (with cross-zone on, 500)", AWS,
         ELB_QUOTAS, D0),
    Fact("elbv2.nlb.draining_window_s", 120,
         "a draining IP target keeps getting new connections for about two minutes after deregistration starts, "
         "whatever deregistration_delay says: a pod must keep serving that long (preStop) before it stops", LBC,
         f"{LBC_2366}; {LBC_3270}", D0),
    Fact("elbv2.nlb.quota", 50, "NLBs per region (quota L-69A177A2)", AWS, ELB_QUOTAS, D0),
    Fact("elbv2.nlb.capacity_units_per_zone", (2750, 45000),
         "an NLB capacity reservation's units per zone as aws-cdk-lib checks them (AWS states no range)", CDK,
         "aws-cdk-lib 2.275 aws_elasticloadbalancingv2 README (minimumCapacityUnit)", D0),
    # --- CloudFront ---------------------------------------------------------------------------
    Fact("cloudfront.origin_read_timeout", (1, 120, 30),
         "OriginReadTimeout: 1 s up to the default quota 120 s (adjustable: 'Response timeout per origin'), "
         "default 30", AWS, "cloudfront CustomOriginConfig.OriginReadTimeout; " + CF_QUOTAS, D0,
         (ModelRef("cloudfront", "CustomOriginConfig", "OriginReadTimeout",
                   quote="The minimum timeout is 1 second, the maximum is 120 seconds, and the default (if you "
                         "don't specify otherwise) is 30 seconds"),)),
    Fact("cloudfront.origin_keepalive_timeout", (1, 120, 5),
         "OriginKeepaliveTimeout: 1 s up to the default quota 120 s (adjustable: 'Keep-alive timeout per origin'), "
         "default 5", AWS, "cloudfront CustomOriginConfig.OriginKeepaliveTimeout; " + CF_QUOTAS, D0,
         (ModelRef("cloudfront", "CustomOriginConfig", "OriginKeepaliveTimeout",
                   quote="The minimum timeout is 1 second, the maximum is 120 seconds, and the default (if you "
                         "don't specify otherwise) is 5 seconds"),)),
    Fact("cloudfront.response_completion.api_max", None,
         "ResponseCompletionTimeout has no API maximum ('CloudFront doesn't enforce a maximum value' when unset) "
         "and must be at least OriginReadTimeout", AWS, "cloudfront Origin.ResponseCompletionTimeout", D0,
         (ModelRef("cloudfront", "Origin", "ResponseCompletionTimeout",
                   quote="The value for ResponseCompletionTimeout must be equal to or greater than the value for "
                         "OriginReadTimeout"),
          ModelRef("cloudfront", "Origin", "ResponseCompletionTimeout",
                   quote="If you don't set a value for ResponseCompletionTimeout , CloudFront doesn't enforce a "
                         "maximum value"))),
    Fact("cloudfront.response_completion.cdk_range", (1, 3600),
         "aws-cdk-lib's HttpOrigin accepts response_completion_timeout 1..3600 s (its check, not AWS's)", CDK,
         "aws-cdk-lib 2.275 aws_cloudfront_origins HttpOrigin response_completion_timeout", D0),
    Fact("cloudfront.connection_attempts", 3, "CloudFront tries an origin 3 times by default", AWS,
         "cloudfront Origin.ConnectionAttempts", D0,
         (ModelRef("cloudfront", "Origin", "ConnectionAttempts", quote="The minimum number is 1, the maximum is 3, and the default (if you don't specify otherwise) is 3"),)),
    Fact("cloudfront.origin_facing_prefix_list_weight", 55,
         "entries the com.amazonaws.global.cloudfront.origin-facing prefix list counts against a security group",
         AWS, "https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/LocationsOfEdgeServers.html", D0),
    # --- gRPC ---------------------------------------------------------------------------------
    Fact("grpc.max_connection_age_jitter", 0.1, "servers jitter MaxConnectionAge by +-10 %", GRPC,
         "https://github.com/grpc/proposal/blob/master/A9-server-side-conn-mgt.md", D0),
    Fact("grpc.backoff", (1.0, 1.6, 0.2, 120.0),
         "reconnect backoff: initial 1 s, multiplier 1.6, jitter 0.2, max 120 s", GRPC,
         "https://github.com/grpc/grpc/blob/master/doc/connection-backoff.md", D0),
)


FACTS: dict[str, Fact] = {f.key: f for f in _TABLE}
"""Every fact by key."""


def fact(key: str) -> Fact:
    """The fact named ``key`` (KeyError names the key: a typo is a bug, not a missing fact)."""
    return FACTS[key]


def value(key: str) -> Any:
    """The value of the fact named ``key``."""
    return FACTS[key].value


def cite(*keys: str) -> str:
    """The facts' citations, one a line: what ``rules explain`` and RULES.md print."""
    return "\n".join(f"- {k}: {FACTS[k].cite()}" for k in keys)


__all__ = ["AWS", "CDK", "FACTS", "GRPC", "LBC", "OWNERS", "Fact", "ModelRef", "cite", "fact", "value"]
