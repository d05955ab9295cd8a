"""EO-KA2: a distribution without a profile does not hide the next one, a deploy-time keepalive (not judged) does not
hide the read timeout beside it, and a whole-number profile value written as a float reads without ".0" (mutmut, issue 38)."""

from __future__ import annotations

import copy
from typing import Any

from test_rule_conditions_ka import declare, deploy_time
from worlds import findings, origin, world

from edge_origin.core.findings import Severity
from edge_origin.rules.ka2_origin_timeouts_drift import FIX


def _seen(body: dict[str, Any]) -> list[tuple[str, Severity, str, str]]:
    return [(f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-KA2")]


def _read(value: int, wanted: str = "30") -> str:
    return (f"[CloudFront -> NLB] Dist origin o: OriginReadTimeout {value} s differs from the declared connection "
            f"profile's cloudfront_read_timeout_s {wanted} s")


def test_ka2_a_distribution_without_a_profile_does_not_hide_the_next_one() -> None:
    body = world()
    body["Resources"] = {"Early": copy.deepcopy(body["Resources"]["Dist"]), **body["Resources"]}
    declare(body, "Dist")
    origin(body)["CustomOriginConfig"]["OriginReadTimeout"] = 31
    assert _seen(body) == [("Dist", Severity.ERROR, _read(31), FIX)]


def test_ka2_a_deploy_time_keepalive_does_not_hide_the_read_timeout() -> None:
    body = world()
    declare(body, "Dist")
    origin(body)["CustomOriginConfig"]["OriginKeepaliveTimeout"] = deploy_time(body)
    origin(body)["CustomOriginConfig"]["OriginReadTimeout"] = 29
    read, keepalive = sorted(_seen(body), key=lambda f: f[2].startswith("not judged"))
    assert read == ("Dist", Severity.ERROR, _read(29), FIX)
    # the keepalive itself is not judged (the profile's value is one it may take), never skipped
    assert keepalive[:2] == ("Dist", Severity.WARNING)
    assert keepalive[2].startswith("not judged: Dist origin o CustomOriginConfig.OriginKeepaliveTimeout")


def test_ka2_a_whole_profile_value_written_as_a_float_reads_as_a_whole_number() -> None:
    body = world()
    declare(body, "Dist", cloudfront_read_timeout_s=45.0)
    assert _seen(body) == [("Dist", Severity.ERROR, _read(30, "45").replace(
        "OriginReadTimeout 30 s", "OriginReadTimeout unset, default 30 s"), FIX)]
