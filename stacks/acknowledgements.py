"""Written reasons for the cdk-nag findings the reference app accepts."""

import aws_cdk as cdk

from stacks.reference import TelemetryIngestStack

PACK = "AwsSolutions"


def acknowledge(scope, rule: str, reason: str) -> None:  # noqa: ANN001 - any construct
    """Acknowledge a cdk-nag 3 finding on ``scope`` with a reason kept in the validation report."""
    cdk.Validations.of(scope).acknowledge(cdk.Acknowledgment(id=f"{PACK}::{PACK}-{rule}", reason=reason))


def acknowledge_reference_findings(stack: TelemetryIngestStack) -> None:
    """The findings the reference app accepts, each with why."""
    acknowledge(
        stack,
        "CFR1",
        "Telemetry comes from devices worldwide during live events; geo restriction would drop paying viewers.",
    )
    acknowledge(
        stack,
        "CFR2",
        "The web ACL is per deployment (rate rules for gRPC streams need tuning); pass web_acl_id to attach one.",
    )
    acknowledge(
        stack,
        "CFR4",
        "The reference uses the default cloudfront.net certificate; with domain_names + certificate the "
        "pattern sets TLSv1.2_2021 as the viewer minimum.",
    )
    acknowledge(
        stack,
        "ELB2",
        "NLB access logs are written only for TLS listeners; TLS terminates on the pods (a TLS listener's idle "
        "timeout is fixed at 350 s), so connections are logged by the VPC flow logs instead.",
    )
    verification = stack.ingest.edge.origin_verification
    if verification is not None and verification.created:
        acknowledge(
            verification.secret,
            "SMG4",
            "The origin verification secret rotates by the documented procedure (README, Origin verification): "
            "the pods must accept a new value before CloudFront sends it, and CloudFront re-reads the value only "
            "when the distribution is updated (a pinned version_id bump), so a scheduled rotation Lambda would "
            "change nothing at the edge.",
        )
    if stack.log_bucket is not None:
        acknowledge(
            stack.log_bucket,
            "S1",
            "This is the access-log bucket itself; logging it into itself would loop.",
        )
