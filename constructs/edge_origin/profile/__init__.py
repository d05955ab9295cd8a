"""Connection profile: keepalive, idle timeouts and connection age that agree from client to server.

Layer 1. May import: core, data, answers, profile.
"""

from edge_origin.profile.checks import CHECKS, check_ranges
from edge_origin.profile.core import (
    PRESETS,
    PROFILE_METADATA_KEY,
    ConnectionProfile,
    ProfileError,
    parse_profile_text,
)
from edge_origin.profile.render import (
    LANGS,
    RenderError,
    client_service_config,
    configmap,
    python_channel_options,
    render,
)

__all__ = [
    "CHECKS",
    "LANGS",
    "PRESETS",
    "PROFILE_METADATA_KEY",
    "ConnectionProfile",
    "ProfileError",
    "RenderError",
    "check_ranges",
    "client_service_config",
    "configmap",
    "parse_profile_text",
    "python_channel_options",
    "render",
]
