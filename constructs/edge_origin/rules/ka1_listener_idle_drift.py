"""EO-KA1: an NLB listener's idle timeout differs from the connection profile it declares."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.views import attribute_known
from edge_origin.profile import ConnectionProfile
from edge_origin.rules.base import Rule, finding
from edge_origin.rules.ka_profile import NLB_DEFAULT_IDLE, declared_profile

FIX = (
    "Set the listener's tcp.idle_timeout.seconds from the profile (the edge-origin constructs do: "
    "tcp_idle_timeout=Duration.seconds(profile.nlb_idle_timeout_s)), or change the profile and re-render "
    "the service settings."
)


def check(model: TemplateModel) -> Iterator[Finding]:
    for listener in model.listeners:
        profile = declared_profile(listener.resource)
        if not isinstance(profile, ConnectionProfile):
            continue  # absent, or EO-KA3's business
        if listener.protocol == "TLS":
            actual, how = NLB_DEFAULT_IDLE, "fixed for TLS listeners"
        elif listener.idle_timeout is None:
            if "tcp.idle_timeout.seconds" in listener.attributes or not attribute_known(
                listener.attributes, "tcp.idle_timeout.seconds"
            ):
                continue  # present (or maybe present) but not decidable from the templates
            actual, how = NLB_DEFAULT_IDLE, "the default, tcp.idle_timeout.seconds unset"
        else:
            actual, how = listener.idle_timeout, "tcp.idle_timeout.seconds"
        if actual != profile.nlb_idle_timeout_s:
            yield finding(
                RULE.id,
                Severity.ERROR,
                listener.resource,
                f"{listener.resource.logical_id} ({listener.protocol} :{listener.port}) idle timeout {actual} s "
                f"({how}) differs from its declared connection profile's nlb_idle_timeout_s "
                f"{_num(profile.nlb_idle_timeout_s)} s: the keepalive settings rendered for the services were "
                "checked against the profile, not against this listener",
                FIX,
            )


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


RULE = Rule(
    id="EO-KA1",
    severity=Severity.ERROR,
    title="NLB idle timeout drifted from the declared connection profile",
    catches=(
        "A listener whose Metadata edge-origin:connection-profile declares nlb_idle_timeout_s, while its "
        "tcp.idle_timeout.seconds (350 s when unset, and always for TLS) says otherwise."
    ),
    incident=(
        "Client keepalive, server ping enforcement and the NLB idle timeout were each set alone and never agreed; "
        "the NLB dropped idle flows silently (keepalive-vs-nlb-idle-timeout)."
    ),
    fix=FIX,
    check=check,
)
