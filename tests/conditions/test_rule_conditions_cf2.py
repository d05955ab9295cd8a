"""EO-CF2: the whole finding at each side of the two boundaries (warning above 90 % of the NLB idle timeout,
error within the 5 s guard of it), and the origins and listeners it passes over (mutmut, issue 38)."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import dist_config, findings, origin, quiet, res, set_attribute, world

from edge_origin.core.findings import Severity
from edge_origin.rules.cf2_keepalive_vs_idle import FIX

TAIL = (
    "(error at >= 345 s: 5 s guard for RTT and timer precision; warning above 315 s): CloudFront may reuse a pooled "
    "connection whose flow is gone; at idle expiry the NLB removes the flow from its flow table without sending FIN or "
    "RST to either side; the next packet either side sends on it is answered with a TCP RST (AWS: 'If a client attempts "
    "to send traffic after the connection is no longer tracked, then NLB responds with a TCP RST')"
)


def _keepalive(body: dict[str, Any], seconds: int | None) -> dict[str, Any]:
    config = origin(body)["CustomOriginConfig"]
    if seconds is None:
        del config["OriginKeepaliveTimeout"]
    else:
        config["OriginKeepaliveTimeout"] = seconds
    return body


def _seen(body: dict[str, Any]) -> list[tuple[str, str, Severity, str, str]]:
    return [(f.rule, f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-CF2")]


def _finding(keepalive: int, severity: Severity, listener: str = "S/Listener") -> tuple:
    return ("EO-CF2", "Dist", severity,
            f"[CloudFront -> NLB] Dist origin o: keepalive {keepalive} s is not well below the idle timeout 350 s of {listener} {TAIL}",
            FIX)


@pytest.mark.parametrize(("keepalive", "severity"), [(315, None), (316, Severity.WARNING), (344, Severity.WARNING),
                                                     (345, Severity.ERROR), (350, Severity.ERROR), (360, Severity.ERROR)])
def test_cf2_each_side_of_the_boundaries(keepalive: int, severity: Severity | None) -> None:
    found = _seen(_keepalive(world(), keepalive))
    assert found == ([] if severity is None else [_finding(keepalive, severity)])


def test_cf2_the_default_keepalive_is_well_below() -> None:
    quiet(_keepalive(world(), None), "EO-CF2")


def test_cf2_a_listener_without_idle_timeout_attribute_reads_the_350_s_default() -> None:
    body = _keepalive(world(), 346)
    set_attribute(res(body, "Listener"), "ListenerAttributes", "tcp.idle_timeout.seconds", None)
    assert _seen(body) == [_finding(346, Severity.ERROR)]


def test_cf2_a_udp_listener_and_an_s3_origin_before_the_custom_one_are_passed_over() -> None:
    body = _keepalive(world(), 346)
    body["Resources"] = {"AaaUdp": {"Type": "AWS::ElasticLoadBalancingV2::Listener", "Properties": {
        "LoadBalancerArn": {"Ref": "Nlb"}, "Protocol": "UDP", "Port": 53,
        "DefaultActions": [{"Type": "forward", "TargetGroupArn": {"Ref": "Targets"}}]}}, **body["Resources"]}
    dist_config(body)["Origins"].insert(0, {"Id": "s3", "DomainName": "bucket.s3.amazonaws.com", "S3OriginConfig": {}})
    assert _seen(body) == [_finding(346, Severity.ERROR)]
