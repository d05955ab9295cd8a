"""EO-KA3: a connection profile declared in a template fails its own checks (or does not parse)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.profile import PROFILE_METADATA_KEY, ProfileError
from edge_origin.rules.base import Rule, finding
from edge_origin.rules.ka_profile import DISTRIBUTION, declared_profile

FIX = (
    "Fix the profile (edge-origin profile check FILE names each problem) and redeploy; the edge-origin "
    "constructs refuse such a profile at synth (ConnectionProfile.validate)."
)


def check(model: TemplateModel) -> Iterator[Finding]:
    for res in model.resources:
        profile = declared_profile(res)
        if profile is None:
            continue
        if isinstance(profile, ProfileError):
            yield finding(
                RULE.id, Severity.ERROR, res,
                f"{res.logical_id} Metadata {PROFILE_METADATA_KEY} is not a valid connection profile: {profile}",
                FIX,
            )
            continue
        # CloudFront checks where a distribution declares the profile; an NLB alone may have no CloudFront.
        for item in profile.errors(cloudfront=res.type == DISTRIBUTION):
            yield finding(
                RULE.id, Severity.ERROR, res,
                f"{res.logical_id} declares a connection profile that fails {item.rule} [{item.resource}]: "
                f"{item.message}",
                item.fix,
            )


RULE = Rule(
    id="EO-KA3",
    severity=Severity.ERROR,
    title="Declared connection profile fails its own checks",
    catches=(
        "A resource whose Metadata edge-origin:connection-profile does not parse, or whose profile has errors: "
        "client keepalive below the server's ping floor, keepalive (after throttling) not below the NLB idle "
        "timeout, idle connections without pings, no max connection age behind an L4 NLB, values out of range."
    ),
    incident=(
        "A 20 s client keepalive against a 5 min server ping floor: GOAWAY too_many_pings, doubled keepalive past "
        "the 350 s NLB idle timeout, 40 minutes of hung RPCs (keepalive-vs-nlb-idle-timeout); and channels pinned "
        "to one backend behind an L4 balancer (l4-load-balancer-pins-grpc)."
    ),
    fix=FIX,
    check=check,
)
