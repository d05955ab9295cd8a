"""Shared by the EO-KA, EO-CF2 and EO-NLB1 rules: the profile a resource declares, and the hop
model (:mod:`edge_origin.profile.hops`) applied to template listeners."""

from __future__ import annotations

import sys

from edge_origin.core.facts import value as fact_value
from edge_origin.core.fast_dataclass import dataclass, replace
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import OriginView, Resource, TemplateModel
from edge_origin.model.values import Unresolved, deploy_time, display_value
from edge_origin.model.views import (
    UNKNOWN_ATTRIBUTES,
    ListenerView,
    LoadBalancerView,
    TargetGroupView,
    as_int,
    attribute_known,
)
from edge_origin.profile import PROFILE_METADATA_KEY, ConnectionProfile, ProfileError, hops
from edge_origin.rules.base import Rule
from edge_origin.rules.lb_type import attribute_overrides
from edge_origin.rules.not_judged import not_judged, undecided_needs, undecided_reason

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from collections.abc import Callable

DISTRIBUTION = "AWS::CloudFront::Distribution"
LISTENER = "AWS::ElasticLoadBalancingV2::Listener"
NLB_DEFAULT_IDLE = hops.NLB_DEFAULT_IDLE_S
"""NLB TCP listener idle timeout when ``tcp.idle_timeout.seconds`` is absent (TLS: always)."""
CF_DEFAULT_KEEPALIVE = hops.CF_DEFAULT_KEEPALIVE_S
CF_DEFAULT_READ = hops.CF_DEFAULT_READ_S
"""CloudFront origin keepalive / response timeouts when the template leaves them out."""


def declares_profile(resource: Resource) -> bool:
    return PROFILE_METADATA_KEY in resource.metadata


def declared_profile(resource: Resource) -> ConnectionProfile | ProfileError | None:
    """The profile in ``resource``'s Metadata, a ProfileError if it does not parse, None if absent.
    Parsed once per resource (five rules ask for each distribution and listener): kept on the
    resource, beside the Metadata it was read from."""
    metadata = resource.metadata
    if PROFILE_METADATA_KEY not in metadata:  # declares_profile(resource), inlined: rules ask for every resource
        return None
    memo = resource.__dict__.get(_MEMO)
    if memo is None or memo[0] is not metadata[PROFILE_METADATA_KEY]:
        memo = resource.__dict__[_MEMO] = (metadata[PROFILE_METADATA_KEY], _parse_profile(resource))
    return memo[1]


_MEMO = "_edge_origin_declared_profile"


#: A declared profile's Metadata as text (``_content_key``) -> the profile it parses to. A fleet declares one
#: profile on every distribution and listener (468 times at 10k resources): parsed once by content. The
#: Metadata holds JSON values only (the loader refuses others; a UUID or an Enum, which orjson writes as
#: their text, never reach it), whose text tells 1, 1.0 and true apart; a ConnectionProfile is frozen, so
#: sharing one is safe. Bounded: cleared when full.
_PARSED: dict[object, ConnectionProfile] = {}
_PARSED_MAX = 1024


def _content_key(data: dict) -> object:
    """What tells one declared profile's Metadata from another's as ``repr`` does (1, 1.0 and true apart):
    orjson's text of it, a tenth of repr's cost (a 600-character profile on each of 468 resources at 10k).
    repr where orjson could blur a difference: a value that is not plain JSON (passed through: refused, as
    a datetime, a dataclass or a subclass of str/int/dict/list is), a null (orjson writes NaN and infinities
    as null too), an integer beyond 64 bits; or orjson not loaded (core.fast_json imports it for large
    inputs only: a small check does not pay its import)."""
    orjson = sys.modules.get("orjson")
    if orjson is None:
        return repr(data)
    try:
        text = orjson.dumps(data, option=orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
                            | orjson.OPT_PASSTHROUGH_SUBCLASS)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return repr(data)
    return repr(data) if b"null" in text else text


def _parse_profile(resource: Resource) -> ConnectionProfile | ProfileError:
    data = resource.metadata[PROFILE_METADATA_KEY]
    if not isinstance(data, dict):
        return ProfileError(f"must be a mapping of profile fields, got {type(data).__name__}")
    key = _content_key(data)
    parsed = _PARSED.get(key)
    if parsed is not None:
        return parsed
    source = resource.logical_id
    try:
        parsed = ConnectionProfile.from_metadata(data, source=source)
    except ProfileError as exc:
        return ProfileError(str(exc).removeprefix(f"{source}: "))
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[key] = parsed
    return parsed


def listener_idle(listener: ListenerView) -> hops.ListenerIdle:
    """The hop model's idle timeout for a template listener (None seconds: decided at deploy time). Worked out
    once per distinct input (EO-NLB1, EO-KA1 and EO-CF2 ask for every listener; a fleet's listeners are alike);
    the idle value's type is part of the key (350 and 350.0 print differently)."""
    idle = listener.idle_timeout
    present = hops.IDLE_ATTRIBUTE in listener.attributes
    known = attribute_known(listener.attributes, hops.IDLE_ATTRIBUTE)
    key = (listener.protocol, type(idle), idle, present, known)
    found = _IDLE.get(key)
    if found is None:
        if len(_IDLE) >= 1024:
            _IDLE.clear()
        found = _IDLE[key] = hops.listener_idle(listener.protocol, idle, attribute_present=present, attribute_known=known)
    return found


#: ``listener_idle`` by its inputs; a ListenerIdle is frozen, so sharing one is safe.
_IDLE: dict[tuple[object, ...], hops.ListenerIdle] = {}


def tracked_target_groups(listener: ListenerView) -> list[TargetGroupView]:
    """Target groups of ``listener`` whose targets sit behind EC2 ENI connection tracking (ip, instance;
    an absent TargetType is ``instance``)."""
    return [tg for tg in listener.target_groups if (tg.target_type or "instance") in hops.TARGET_TRACKING_TYPES]


@dataclass(frozen=True)
class HopRule(Rule):
    """A rule that judges hops of the hop model; ``why`` (hop, margin, source) goes into RULES.md."""

    why: str = ""


def origin_path_load_balancers(model: TemplateModel, origin: OriginView) -> list[LoadBalancerView]:
    """The load balancers a CloudFront origin's path reaches: through its name's records (CNAME and alias
    chains followed, as :func:`edge_origin.rules.base.origin_load_balancers` sees them), or the load
    balancer whose DNS name it points at (``Fn::GetAtt Nlb.DNSName``)."""
    return model.load_balancers_for_origin(origin)


#: The protocols a listener can have, by its load balancer's type (the facts table's ``elbv2.listener.protocols``,
#: held to botocore's elbv2 ``CreateListenerInput.Protocol`` and ``ProtocolEnum``); a load balancer not in the
#: templates, or of a type not decided: every one of them.
LISTENER_PROTOCOLS: dict[str, tuple[str, ...]] = dict(fact_value("elbv2.listener.protocols"))
ANY_PROTOCOL = tuple(dict.fromkeys(p for protocols in LISTENER_PROTOCOLS.values() for p in protocols))


def protocol_text(listener: ListenerView) -> str:
    """The listener's protocol as a message shows it (an undecided one as written)."""
    if listener.protocol_undecided is not None:
        return display_value(listener.protocol_undecided)
    return str(listener.protocol)


def port_text(listener: ListenerView) -> str:
    """The listener's port as a message shows it (one decided at deploy time as written, e.g. ``<Ref Port>``)."""
    raw = None if listener.port is not None else listener.resource.properties.get("Port")
    return display_value(raw) if deploy_time(raw) else str(listener.port)


def undecided_load_balancer(listener: ListenerView) -> Unresolved | None:
    """The listener's LoadBalancerArn when it is decided at deploy time (the listener then belongs to no load balancer
    of the model, and may belong to any)."""
    if listener.load_balancer is not None:
        return None
    raw = listener.resource.properties.get("LoadBalancerArn")
    return raw if isinstance(raw, Unresolved) else None


def names(items: list[str], most: int = 3) -> str:
    """``a, b, c and 2 more``."""
    return ", ".join(items[:most]) + (f" and {len(items) - most} more" if len(items) > most else "")


def protocol_choices(listener: ListenerView) -> tuple[str, ...]:
    """The protocols a listener whose ``Protocol`` is decided at deploy time may have."""
    lb = listener.load_balancer
    return LISTENER_PROTOCOLS.get(lb.type, ANY_PROTOCOL) if lb is not None else ANY_PROTOCOL


def over_protocols(listener: ListenerView, judge: Callable[[ListenerView], list[Finding]], *, rule_id: str,
                   subject: str, at: Resource) -> list[Finding]:
    """``judge(listener)``; for a listener whose Protocol is decided at deploy time, what every protocol it may have
    gives when they all give the same findings (``judge`` spells the protocol with :func:`protocol_text`), else one
    not-judged finding of ``rule_id`` on ``at`` that names the Protocol as written and the verdict of each."""
    raw = listener.protocol_undecided
    if raw is None:
        return over_idle_overrides(listener, judge, rule_id=rule_id, subject=subject, at=at)
    verdicts = {p: over_idle_overrides(replace(listener, protocol=p), judge, rule_id=rule_id, subject=subject, at=at)
                for p in protocol_choices(listener)}
    first = next(iter(verdicts.values()))
    if all(found == first for found in verdicts.values()):
        return first  # whatever the protocol, the same verdict: decided
    each = ", ".join(f"{p}: {verdict(found)}" for p, found in verdicts.items())
    return [not_judged(
        rule_id, Severity.WARNING, subject=f"{subject}: Protocol", element=raw,
        reason=f"{undecided_reason(raw)}; the verdict depends on it ({each})",
        needs=undecided_needs(raw), at=at,
    )]


def over_idle_overrides(listener: ListenerView, judge: Callable[[ListenerView], list[Finding]], *, rule_id: str,
                        subject: str, at: Resource) -> list[Finding]:
    """``judge(listener)``; beside a literal ``tcp.idle_timeout.seconds`` entry, an entry whose Key (or the whole
    entry) is decided at deploy time may be that Key again, and which of two entries of one Key ELB keeps, the
    templates do not say (EO-NLB3 reads target group and load balancer attributes so too): the listener is judged
    with that entry's Value as well, and when the verdicts differ, one not-judged finding of ``rule_id`` on ``at``
    names the entry (else the verdict as written stands)."""
    found = judge(listener)
    for index, entry, value in idle_overrides(listener):
        attributes = {**listener.attributes, hops.IDLE_ATTRIBUTE: value}
        other = judge(replace(listener, attributes=attributes, idle_timeout=None if deploy_time(value) else as_int(value)))
        if verdict(other) != verdict(found):
            where = f"ListenerAttributes[{index}]"
            return [not_judged(
                rule_id, Severity.WARNING, subject=f"{subject}: {where}", element=entry,
                reason=(f"{undecided_reason(entry)}; {where} may be {hops.IDLE_ATTRIBUTE} again (which of two entries "
                        f"of one Key ELB keeps, the templates do not say), and the verdict depends on it (as written: "
                        f"{verdict(found)}; with {display_value(value)}: {verdict(other)})"),
                needs=f"a literal Key in {where}: {undecided_needs(entry)}", at=at,
            )]
    return found


def idle_overrides(listener: ListenerView) -> list[tuple[int, object, object]]:
    """``attribute_overrides`` of the listener's literal ``tcp.idle_timeout.seconds`` entry."""
    return attribute_overrides(listener.resource, "ListenerAttributes", listener.attributes, hops.IDLE_ATTRIBUTE)


def verdict(found: list[Finding]) -> str:
    """The severities of ``found`` (``warning``, ``error/warning``), or "no finding"."""
    if not found:
        return "no finding"
    severities = sorted({f.severity.value for f in found})
    return "/".join(severities)


def idle_attribute_written(listener: ListenerView) -> object:
    """What decides ``tcp.idle_timeout.seconds`` at deploy time, as written: its value, or the ListenerAttributes
    list (an entry's Key, or the list itself, is undecided)."""
    value = listener.attributes.get(hops.IDLE_ATTRIBUTE)
    if value is not None or UNKNOWN_ATTRIBUTES not in listener.attributes:
        return value
    return listener.resource.properties.get("ListenerAttributes")
