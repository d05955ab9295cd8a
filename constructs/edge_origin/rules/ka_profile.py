"""Shared by the EO-KA rules: the connection profile a resource declares in its Metadata."""

from __future__ import annotations

from edge_origin.model import Resource
from edge_origin.profile import PROFILE_METADATA_KEY, ConnectionProfile, ProfileError

DISTRIBUTION = "AWS::CloudFront::Distribution"
LISTENER = "AWS::ElasticLoadBalancingV2::Listener"
NLB_DEFAULT_IDLE = 350
"""NLB TCP listener idle timeout when ``tcp.idle_timeout.seconds`` is absent (TLS: always)."""
CF_DEFAULT_KEEPALIVE = 5
CF_DEFAULT_READ = 30
"""CloudFront origin keepalive / response timeouts when the template leaves them out."""


def declares_profile(resource: Resource) -> bool:
    return PROFILE_METADATA_KEY in resource.metadata


def declared_profile(resource: Resource) -> ConnectionProfile | ProfileError | None:
    """The profile in ``resource``'s Metadata, a ProfileError if it does not parse, None if absent."""
    if not declares_profile(resource):
        return None
    data = resource.metadata[PROFILE_METADATA_KEY]
    if not isinstance(data, dict):
        return ProfileError(f"must be a mapping of profile fields, got {type(data).__name__}")
    source = resource.logical_id
    try:
        return ConnectionProfile.from_metadata(data, source=source)
    except ProfileError as exc:
        return ProfileError(str(exc).removeprefix(f"{source}: "))
