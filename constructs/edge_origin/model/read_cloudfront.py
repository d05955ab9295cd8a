"""The CloudFront readers of :class:`~edge_origin.model.template_model.TemplateModel`: distributions (their
origins and cache behaviors) and VPC origins as typed views, a ``VpcOriginConfig`` origin joined to its
``AWS::CloudFront::VpcOrigin``.

Functions of the model (its resources by type, ``vpc_origins``); the model calls them once and caches the views.
"""

from __future__ import annotations

from edge_origin.model.values import ResourceRef, deploy_time, display_value, normalize_name
from edge_origin.model.views import (
    BehaviorView,
    DistributionView,
    OriginView,
    Props,
    VpcOriginView,
    props_of,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from edge_origin.model.template_model import TemplateModel

DISTRIBUTION = "AWS::CloudFront::Distribution"
VPC_ORIGIN = "AWS::CloudFront::VpcOrigin"


#: CloudFront ``Origin`` members (botocore API names) ``origin_view`` reads (``CustomHeaders`` is
#: CloudFormation's ``OriginCustomHeaders``; ``S3OriginConfig`` only as "not a custom origin");
#: benchmarks/aws_drift.py lists the documented members missing here and in the two below.
ORIGIN_KNOWN_MEMBERS = (
    "Id", "DomainName", "CustomHeaders", "S3OriginConfig", "CustomOriginConfig", "VpcOriginConfig",
    "ResponseCompletionTimeout",
)
CUSTOM_ORIGIN_CONFIG_KNOWN_MEMBERS = (
    "HTTPPort", "HTTPSPort", "OriginProtocolPolicy", "OriginReadTimeout", "OriginKeepaliveTimeout", "IpAddressType",
    "OriginHttpVersion",
)
VPC_ORIGIN_CONFIG_KNOWN_MEMBERS = ("VpcOriginId", "OriginReadTimeout", "OriginKeepaliveTimeout", "OriginHttpVersion")


def distribution_views(model: TemplateModel) -> list[DistributionView]:
    views = []
    for res in model.of_type(DISTRIBUTION):
        cfg = props_of(res).mapping("DistributionConfig")
        origins = [_with_vpc_origin(model, origin_view(o)) for o in cfg.mappings("Origins")]
        by_id = {o.id: o for o in origins}
        groups: dict[str, list[OriginView]] = {}
        undecided_ids = [o for o in origins if o.id_undecided]  # origins (and groups' members) a literal target may name
        for item in cfg.mapping("OriginGroups").mappings("Items"):
            members = item.mapping("Members").mappings("Items")
            group_id = item.str("Id")
            groups[display_value(group_id)] = found = [
                by_id[m.str("OriginId")] for m in members if isinstance(m.str("OriginId"), str) and m.str("OriginId") in by_id
            ]
            if deploy_time(group_id):
                undecided_ids.extend(found)
        targets = _Targets(origins, by_id, groups, undecided_ids)
        behaviors = []
        if cfg.has("DefaultCacheBehavior"):
            behaviors.append(behavior_view(cfg.mapping("DefaultCacheBehavior"), None, by_id, groups, targets))
        for beh in cfg.mappings("CacheBehaviors"):
            behaviors.append(behavior_view(beh, display_value(beh.str("PathPattern")), by_id, groups, targets))
        views.append(
            DistributionView(
                resource=res,
                origins=origins,
                behaviors=behaviors,
                http_version=cfg.literal_str("HttpVersion"),
                enabled=cfg.bool("Enabled"),
                http_version_unknown=deploy_time(cfg.raw("HttpVersion")) or cfg.unknown,
                origins_undecided=_origins_undecided(props_of(res), cfg),
            )
        )
    return views


def _origins_undecided(props: Props, cfg: Props) -> str:
    """Where the distribution's origins are decided at deploy time ("" when they are all read): its
    Properties or DistributionConfig (an ``Fn::If`` the templates cannot decide, an ``AWS::Include``),
    its Origins list, or one origin of it (read as absent by the views: CloudFront may reach anything)."""
    for where, value, unknown in (("Properties", None, props.unknown),
                                  ("DistributionConfig", props.raw("DistributionConfig"), cfg.unknown)):
        if unknown:
            return f"{where} {display_value(value)}" if value is not None else where
    origins = cfg.raw("Origins")
    if deploy_time(origins):
        return f"Origins {display_value(origins)}"
    for i, item in enumerate(origins if isinstance(origins, list) else []):
        if deploy_time(item):
            return f"Origins[{i}] {display_value(item)}"
    return ""


def vpc_origin_views(model: TemplateModel) -> list[VpcOriginView]:
    """Every ``AWS::CloudFront::VpcOrigin`` (issue 31: CloudFront -> VPC origin -> internal NLB)."""
    views = []
    for res in model.of_type(VPC_ORIGIN):
        cfg = props_of(res).mapping("VpcOriginEndpointConfig")
        address_type = cfg.literal_str("IpAddressType")
        views.append(VpcOriginView(
            resource=res,
            endpoint=cfg.str("Arn"),
            name=cfg.str("Name"),
            protocol_policy=cfg.literal_str("OriginProtocolPolicy"),
            https_port=cfg.int("HTTPSPort"),
            http_port=cfg.int("HTTPPort"),
            ip_address_type=address_type.lower() if address_type is not None else None,
            protocol_policy_unknown=cfg.unknown or deploy_time(cfg.raw("OriginProtocolPolicy")),
        ))
    return views


def _with_vpc_origin(model: TemplateModel, origin: OriginView) -> OriginView:
    """A ``VpcOriginConfig`` origin joined to its ``AWS::CloudFront::VpcOrigin`` (when in the
    templates): protocol policy and port come from the VPC origin's endpoint config."""
    if origin.vpc_origin_id is None:
        return origin
    ref = origin.vpc_origin_id
    by_key = {v.resource.key: v for v in model.vpc_origins}
    view = by_key.get((ref.stack, ref.logical_id)) if isinstance(ref, ResourceRef) else None
    origin.vpc_origin = view
    origin.protocol_policy_unknown = view is None  # the policy lives in a VPC origin outside these templates
    if view is not None:
        origin.protocol_policy = view.protocol_policy
        origin.protocol_policy_unknown = view.protocol_policy_unknown
        origin.https_port = view.https_port
        origin.http_port = view.http_port
    return origin


def origin_view(o: Props) -> OriginView:
    """An ``OriginView``; the members it reads are ``ORIGIN_KNOWN_MEMBERS`` and friends (module level)."""
    custom_config = custom = o.mapping("CustomOriginConfig")  # one Props: read alike
    domain = o.str("DomainName")
    vpc = o.mapping("VpcOriginConfig")
    if o.has("VpcOriginConfig") and not o.has("CustomOriginConfig"):
        custom = vpc  # the timeouts live in VpcOriginConfig (1..120 s, defaults 5 and 30)
    ip_type = custom_config.str("IpAddressType")  # not a VpcOriginConfig member
    http_version = custom.str("OriginHttpVersion")  # CustomOriginConfig or VpcOriginConfig
    origin_id = o.str("Id")
    return OriginView(
        id=display_value(origin_id),
        id_undecided=deploy_time(origin_id),
        domain_name=normalize_name(domain) if isinstance(domain, str) else domain,
        custom=o.has("CustomOriginConfig"),
        protocol_policy=custom.literal_str("OriginProtocolPolicy"),
        keepalive_timeout=custom.int("OriginKeepaliveTimeout"),
        read_timeout=custom.int("OriginReadTimeout"),
        https_port=custom.int("HTTPSPort"),
        http_port=custom.int("HTTPPort"),
        raw=o.data,
        protocol_policy_unknown=custom.unknown or deploy_time(custom.raw("OriginProtocolPolicy")),
        vpc_origin_id=vpc.str("VpcOriginId") if o.has("VpcOriginConfig") else None,
        response_completion_timeout=o.int("ResponseCompletionTimeout"),
        response_completion_timeout_unknown=deploy_time(o.raw("ResponseCompletionTimeout")),
        ip_address_type=ip_type.lower() if isinstance(ip_type, str) else None,
        ip_address_type_unknown=custom_config.unknown or deploy_time(ip_type)
        or (isinstance(ip_type, str) and ip_type.lower() not in ("ipv4", "ipv6", "dualstack")),
        http_version=http_version.lower() if isinstance(http_version, str) else None,
        http_version_unknown=deploy_time(custom.raw("OriginHttpVersion")),
    )


def behavior_view(b: Props, pattern: str | None, by_id: dict[str, OriginView], groups: dict[str, list[OriginView]],
                  targets: _Targets | None = None) -> BehaviorView:
    """A ``BehaviorView``; ``targets`` (built from ``by_id`` and ``groups`` when not given) also knows the origins
    whose ``Id`` is decided at deploy time."""
    target = b.str("TargetOriginId")
    origins, candidates = (targets or _Targets(list(by_id.values()), by_id, groups, [])).of(target)
    methods = b.strs("AllowedMethods") if b.has("AllowedMethods") else None
    allowed, some_deploy_time = None, False
    if methods is not None:
        allowed = []
        for m in methods:
            if m.__class__ is str:
                allowed.append(m.upper())  # display_value of a str is itself
            else:
                allowed.append(display_value(m).upper())
                some_deploy_time = some_deploy_time or deploy_time(m)
    grpc = b.mapping("GrpcConfig")
    return BehaviorView(
        path_pattern=pattern,
        target_origin_id=target,
        origins=origins,
        grpc_enabled=grpc.bool("Enabled") is True,
        allowed_methods=allowed,
        cache_policy_id=b.str("CachePolicyId"),
        forwarded_values=b.raw("ForwardedValues"),
        raw=b.data,
        grpc_unknown=grpc.unknown or deploy_time(grpc.raw("Enabled")),
        methods_unknown=deploy_time(b.raw("AllowedMethods")) or some_deploy_time,
        target_candidates=candidates,
    )


class _Targets:
    """What a behavior's ``TargetOriginId`` may name: the distribution's origins, by literal ``Id``, its origin
    groups, and the origins whose ``Id`` (or whose group's) is decided at deploy time."""

    __slots__ = ("origins", "by_id", "groups", "undecided_ids")

    def __init__(self, origins: list[OriginView], by_id: dict[str, OriginView], groups: dict[str, list[OriginView]],
                 undecided_ids: list[OriginView]) -> None:
        self.origins, self.by_id, self.groups, self.undecided_ids = origins, by_id, groups, undecided_ids

    def of(self, target: object) -> tuple[list[OriginView], list[OriginView]]:
        """(the origins a behavior targets, the origins it may target when that is decided at deploy time).

        CloudFront refuses a TargetOriginId that names no origin or origin group of the distribution, so a
        target decided at deploy time is one of the origins, and a literal target no literal ``Id`` matches
        is one of the origins whose ``Id`` (or whose group's) is undecided. One such origin: the behavior
        targets it (decided); more: each may be the target (``BehaviorView.target_candidates``)."""
        by_id, groups = self.by_id, self.groups
        origins = groups.get(target) if isinstance(target, str) else None
        origins = origins or ([by_id[target]] if isinstance(target, str) and target in by_id else [])
        if origins:
            return origins, []
        if len(by_id) == 1 and not groups:
            # the target or the origin's Id is decided at deploy time (a mapping by an unknown Region), or names
            # no origin (CloudFront refuses it): a distribution with one origin sends every behavior there
            return list(by_id.values()), []
        candidates = self.origins if deploy_time(target) else self.undecided_ids
        unique = list({id(o): o for o in candidates}.values())
        return (unique, []) if len(unique) == 1 else ([], unique)
