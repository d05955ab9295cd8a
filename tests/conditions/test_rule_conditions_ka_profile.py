"""rules/ka_profile.py through what EO-KA1 and EO-KA3 say: a profile that does not parse is named without its
source prefix, and a listener that sets tcp.idle_timeout.seconds to something not a number is not read as the
350 s default (mutmut, issue 38)."""

from __future__ import annotations

import pytest
from test_rule_conditions_ka import declare, set_idle
from worlds import findings, world

from edge_origin.core.findings import Severity


@pytest.mark.parametrize(("where", "profile", "hop", "why"), [
    ("Listener", {"preset": "turbo"}, "NLB listener",
     "preset: unknown preset 'turbo'; known: default, internal-unary, streaming-telemetry"),
    ("Dist", {"nlb_idle_timeout_s": "x"}, "CloudFront -> NLB", "nlb_idle_timeout_s: must be a number of seconds, got 'x'"),
])
def test_ka3_a_profile_that_does_not_parse_reads_without_a_source_prefix(where: str, profile: dict, hop: str,
                                                                         why: str) -> None:
    body = world()
    declare(body, where, profile)
    assert [(f.resource, f.severity, f.message) for f in findings(body, "EO-KA3")] == [
        (where, Severity.ERROR, f"[{hop}] {where} Metadata edge-origin:connection-profile is not a valid connection "
                                f"profile: {why}")]


def test_ka1_an_idle_attribute_that_is_not_a_number_is_not_read_as_the_default() -> None:
    body = world()
    set_idle(body, "abc")  # set, but not a number: not the 350 s default
    declare(body, "Dist", nlb_idle_timeout_s=600)
    assert findings(body, "EO-KA1") == []
    set_idle(body, None)  # unset: the 350 s default, against the profile's 600 s
    assert [f.message.split(", but")[0] for f in findings(body, "EO-KA1")] == [
        "[CloudFront -> NLB] Dist origin o reaches S/Listener (TCP :443), whose idle timeout is 350 s (the default, "
        "tcp.idle_timeout.seconds unset)"]
