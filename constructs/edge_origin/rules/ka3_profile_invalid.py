"""EO-KA3: a connection profile declared in a template fails its own checks (or does not parse)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.profile import PROFILE_METADATA_KEY, ConnectionProfile, ProfileError, hops
from edge_origin.profile.hops import PathHop
from edge_origin.rules.base import finding, with_cdk
from edge_origin.rules.ka_profile import DISTRIBUTION, HopRule, declared_profile

FIX = with_cdk(
    "EO-KA3",
    "Fix the profile (edge-origin profile check FILE names each problem) and redeploy; the edge-origin "
    "constructs refuse such a profile at synth (ConnectionProfile.validate).",
    'the connection_profile= of GrpcEdgeToOrigin / InternalGrpcOrigin (ConnectionProfile.validate() names each field).',
)


def check(model: TemplateModel) -> Iterator[Finding]:
    # the resources that declare a profile (declared_profile is None for the rest): one look-up each
    judged: dict[tuple[int, bool], list[Finding]] = {}  # _errors by (id of the profile, path): its resources keep it
    for res in [r for r in model.resources if PROFILE_METADATA_KEY in r.metadata]:
        profile = declared_profile(res)
        if profile is None:
            continue
        if isinstance(profile, ProfileError):
            yield finding(
                RULE.id, Severity.ERROR, res,
                (PathHop.CLOUDFRONT_TO_NLB if res.type == DISTRIBUTION else PathHop.NLB).says(
                    f"{res.logical_id} Metadata {PROFILE_METADATA_KEY} is not a valid connection profile: {profile}"
                ),
                FIX,
            )
            continue
        # Hops by where the profile is declared: a distribution's is judged on the CloudFront path (device
        # pings end at CloudFront, so the client keepalive is not held against the NLB there); a
        # listener's on the in-VPC client path (clients that reach the NLB directly), no CloudFront.
        on_distribution = res.type == DISTRIBUTION
        errors = judged.get((id(profile), on_distribution))
        if errors is None:  # one per distinct profile object (a fleet's resources share one), no hash of its fields
            errors = judged[(id(profile), on_distribution)] = _errors(profile, on_distribution)
        for item in errors:
            yield finding(
                RULE.id, Severity.ERROR, res,
                f"{res.logical_id} declares a connection profile that fails {item.rule} [{item.resource}]: "
                f"{item.message}",
                item.fix,
            )


def _errors(profile: ConnectionProfile, on_distribution: bool) -> list[Finding]:
    """The profile's errors on its path, judged once per distinct profile (a template repeats one
    profile on every distribution and listener of a fleet)."""
    try:
        return _errors_of(profile, on_distribution)
    except TypeError:  # a profile with an unhashable value: judged as it is
        return profile.errors(cloudfront=on_distribution, in_vpc_clients=not on_distribution)


@lru_cache(maxsize=1024)
def _errors_of(profile: ConnectionProfile, on_distribution: bool) -> list[Finding]:
    return profile.errors(cloudfront=on_distribution, in_vpc_clients=not on_distribution)


RULE = HopRule(
    id="EO-KA3",
    severity=Severity.ERROR,
    title="Declared connection profile fails its own checks",
    catches=(
        "A resource whose Metadata edge-origin:connection-profile does not parse, or whose profile has errors: "
        "client keepalive below the server's ping floor (per implementation), idle pings against the 2 h floor, "
        "flow silence (after throttling) not below the NLB idle timeout or target connection tracking, quiet "
        "CloudFront -> NLB streams without server pings, no max connection age behind an L4 NLB, values out of range."
    ),
    incident=(
        "A 20 s client keepalive against a 5 min server ping floor: GOAWAY too_many_pings, doubled keepalive past "
        "the 350 s NLB idle timeout, 40 minutes of hung RPCs (keepalive-vs-nlb-idle-timeout); and channels pinned "
        "to one backend behind an L4 balancer (l4-load-balancer-pins-grpc)."
    ),
    fix=FIX,
    check=check,
    why=(
        "A distribution's profile is judged on the CloudFront path (hops CloudFront -> NLB, NLB, target, pod server); "
        "a listener's on the in-VPC client path (in-VPC client -> NLB, NLB, target, pod server), for grpc-go, "
        "grpc-java and C-core alike. Margins: idle " + hops.MARGIN_IDLE + ". Each profile check: "
        + hops.profile_checks_doc()
    ),
)
