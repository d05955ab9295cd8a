"""EO-KA1: the whole findings (message and fix), and what one resource passed over must not hide: a listener,
distribution or origin that is skipped is followed by one that still fires (mutmut, issue 38)."""

from __future__ import annotations

import copy
from typing import Any

from test_rule_conditions_ka import declare, deploy_time
from worlds import dist_config, findings, set_attribute, world

from edge_origin.core.findings import Severity
from edge_origin.rules.ka1_listener_idle_drift import FIX

IDLE = "tcp.idle_timeout.seconds"
OWN = ("[NLB listener] Listener (TCP :443) idle timeout 350 s (tcp.idle_timeout.seconds) differs from its declared "
       "connection profile's nlb_idle_timeout_s 600 s: the keepalive settings rendered for the services were checked "
       "against the profile, not against this listener")
PATH = ("[CloudFront -> NLB] Dist origin o reaches S/Listener (TCP :443), whose idle timeout is 350 s "
        "(tcp.idle_timeout.seconds), but the distribution's connection profile says nlb_idle_timeout_s 600 s: its "
        "origin timeouts and the pods' server pings were checked against a listener this path does not reach")


def _first(body: dict[str, Any], logical_id: str, resource: dict[str, Any]) -> dict[str, Any]:
    """Put ``resource`` first in the template (the rule meets it before the others)."""
    body["Resources"] = {logical_id: resource, **body["Resources"]}
    return resource


def _listener_before(body: dict[str, Any], idle: Any) -> dict[str, Any]:
    """A second TCP listener (:8443, idle ``idle``) on the same NLB, met before Listener."""
    listener = copy.deepcopy(body["Resources"]["Listener"])
    listener["Properties"]["Port"] = 8443
    set_attribute(listener["Properties"], "ListenerAttributes", IDLE, idle)
    return _first(body, "Early", listener)


def _seen(body: dict[str, Any]) -> list[tuple[str, Severity, str, str]]:
    return [(f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-KA1")]


def test_ka1_a_listener_without_a_profile_does_not_hide_the_next_one() -> None:
    body = world()
    _listener_before(body, "350")
    declare(body, "Listener", nlb_idle_timeout_s=600)
    assert _seen(body) == [("Listener", Severity.ERROR, OWN, FIX)]


def test_ka1_a_listener_with_a_deploy_time_idle_does_not_hide_the_next_one() -> None:
    body = world()
    _listener_before(body, deploy_time(body))
    declare(body, "Early", nlb_idle_timeout_s=600)
    declare(body, "Listener", nlb_idle_timeout_s=600)
    (early, listener) = _seen(body)
    assert listener == ("Listener", Severity.ERROR, OWN, FIX)
    assert early[:2] == ("Early", Severity.WARNING) and early[2].startswith("not judged: Early (TCP :8443)"), early


def test_ka1_a_distribution_without_a_profile_does_not_hide_the_next_one() -> None:
    body = world()
    _first(body, "Early", copy.deepcopy(body["Resources"]["Dist"]))
    declare(body, "Dist", nlb_idle_timeout_s=600)
    assert _seen(body) == [("Dist", Severity.ERROR, PATH, FIX)]


def test_ka1_an_s3_origin_does_not_hide_the_custom_origin_after_it() -> None:
    body = world()
    declare(body, "Dist", nlb_idle_timeout_s=600)
    dist_config(body)["Origins"].insert(0, {"Id": "s3", "DomainName": "bucket.s3.amazonaws.com", "S3OriginConfig": {}})
    assert _seen(body) == [("Dist", Severity.ERROR, PATH, FIX)]


def test_ka1_a_reached_listener_with_its_own_profile_does_not_hide_the_next_one() -> None:
    body = world()
    _listener_before(body, "600")
    declare(body, "Early", nlb_idle_timeout_s=600)  # its own profile, and it agrees
    declare(body, "Dist", nlb_idle_timeout_s=600)
    assert _seen(body) == [("Dist", Severity.ERROR, PATH, FIX)]


def test_ka1_a_reached_listener_that_agrees_does_not_hide_the_next_one() -> None:
    body = world()
    _listener_before(body, "600")
    declare(body, "Dist", nlb_idle_timeout_s=600)
    assert _seen(body) == [("Dist", Severity.ERROR, PATH, FIX)]


def test_ka1_the_world_with_agreeing_listeners_is_quiet() -> None:
    body = world()
    _listener_before(body, "600")
    set_attribute(body["Resources"]["Listener"]["Properties"], "ListenerAttributes", IDLE, "600")
    declare(body, "Dist", nlb_idle_timeout_s=600)
    declare(body, "Listener", nlb_idle_timeout_s=600)
    assert _seen(body) == []
