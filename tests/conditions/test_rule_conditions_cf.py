"""EO-CF1 and EO-CF2 conditions the first file leaves open: the values the messages show the user
(AllowedMethods, OriginProtocolPolicy), a behavior with neither a cache policy nor ForwardedValues,
and which origins EO-CF2 judges (custom origins only). One edit of the quiet world, both sides."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import behavior, one, origin, quiet, res, set_attribute, world

from edge_origin.core.findings import Severity

IDLE = "tcp.idle_timeout.seconds"


# --- EO-CF1: the AllowedMethods the message names ---------------------------------------------------------
def test_cf1_allowed_methods_unset_names_the_default_get_head() -> None:
    body = world()
    del behavior(body)["AllowedMethods"]
    one(body, "EO-CF1", "Dist", Severity.ERROR, "gRPC needs all methods (POST), AllowedMethods is the default GET/HEAD")


@pytest.mark.parametrize(
    ("methods", "shown"),
    [(["HEAD", "GET"], "['GET', 'HEAD']"), (["GET", "HEAD", "OPTIONS"], "['GET', 'HEAD', 'OPTIONS']")],
)
def test_cf1_limited_allowed_methods_are_named_sorted(methods: list[str], shown: str) -> None:
    body = world()
    behavior(body)["AllowedMethods"] = methods
    f = one(body, "EO-CF1", "Dist", Severity.ERROR, f"AllowedMethods is {shown}")
    assert "default GET/HEAD" not in f.message


def test_cf1_all_seven_methods_in_any_order_are_quiet() -> None:
    body = world()
    behavior(body)["AllowedMethods"] = ["DELETE", "POST", "PATCH", "PUT", "OPTIONS", "HEAD", "GET"]
    quiet(body, "EO-CF1")


# --- EO-CF1: the OriginProtocolPolicy the message names ---------------------------------------------------
@pytest.mark.parametrize("policy", ["http-only", "HTTP-ONLY"])
def test_cf1_an_http_origin_names_its_protocol_policy(policy: str) -> None:
    body = world()
    origin(body)["CustomOriginConfig"]["OriginProtocolPolicy"] = policy
    f = one(body, "EO-CF1", "Dist", Severity.ERROR, "origin o is not reached over HTTPS", f"(OriginProtocolPolicy {policy};")
    assert "unset" not in f.message


def test_cf1_an_s3_origin_has_no_protocol_policy_and_says_unset() -> None:
    body = world()
    o = origin(body)
    del o["CustomOriginConfig"]
    o["S3OriginConfig"] = {"OriginAccessIdentity": ""}
    one(body, "EO-CF1", "Dist", Severity.ERROR, "origin o is not reached over HTTPS", "(OriginProtocolPolicy unset;")


def test_cf1_a_custom_origin_without_protocol_policy_says_unset() -> None:
    body = world()
    del origin(body)["CustomOriginConfig"]["OriginProtocolPolicy"]
    one(body, "EO-CF1", "Dist", Severity.ERROR, "(OriginProtocolPolicy unset;")


@pytest.mark.parametrize("policy", ["https-only", "match-viewer"])
def test_cf1_https_reaching_protocol_policies_are_quiet(policy: str) -> None:
    body = world()
    origin(body)["CustomOriginConfig"]["OriginProtocolPolicy"] = policy
    quiet(body, "EO-CF1")


# --- EO-CF1: a behavior with neither CachePolicyId nor ForwardedValues -----------------------------------
def test_cf1_no_cache_policy_and_no_forwarded_values_is_not_judged_as_caching() -> None:
    # CloudFormation requires one of the two; with neither the rule cannot say what caches
    body = world()
    del behavior(body)["CachePolicyId"]
    quiet(body, "EO-CF1")


def test_cf1_legacy_forwarded_values_without_ttls_caches() -> None:
    # the other side: ForwardedValues with CloudFront's legacy defaults (DefaultTTL 86400) caches
    body = world()
    del behavior(body)["CachePolicyId"]
    behavior(body)["ForwardedValues"] = {"QueryString": False}
    one(body, "EO-CF1", "Dist", Severity.WARNING, "caching cache policy")


# --- EO-CF2: custom origins only --------------------------------------------------------------------------
def _idle_5(custom: bool) -> dict[str, Any]:
    """The default keepalive (5 s) against a 5 s idle timeout, on a custom or an S3 origin."""
    body = world()
    o = origin(body)
    if custom:
        o["CustomOriginConfig"].pop("OriginKeepaliveTimeout")
    else:
        del o["CustomOriginConfig"]
        o["S3OriginConfig"] = {"OriginAccessIdentity": ""}
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, "5")
    return body


def test_cf2_a_custom_origin_at_the_nlb_fires() -> None:
    one(_idle_5(custom=True), "EO-CF2", "Dist", Severity.ERROR, "origin o: keepalive 5 s", "idle timeout 5 s")


def test_cf2_an_s3_origin_has_no_origin_keepalive_and_is_not_judged() -> None:
    # OriginKeepaliveTimeout is a CustomOriginConfig setting: an S3 origin has none to compare
    quiet(_idle_5(custom=False), "EO-CF2")
