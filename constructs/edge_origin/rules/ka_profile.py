"""Shared by the EO-KA, EO-CF2 and EO-NLB1 rules: the profile a resource declares, and the hop
model (:mod:`edge_origin.profile.hops`) applied to template listeners."""

from __future__ import annotations

import sys

from edge_origin.core.fast_dataclass import dataclass
from edge_origin.model import OriginView, Resource, TemplateModel
from edge_origin.model.views import ListenerView, LoadBalancerView, TargetGroupView, attribute_known
from edge_origin.profile import PROFILE_METADATA_KEY, ConnectionProfile, ProfileError, hops
from edge_origin.rules.base import Rule

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
