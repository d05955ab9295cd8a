"""Published AWS address ranges the origin security groups need, known offline at synth.

The values are shipped in ``edge_origin/data`` with the date they were taken and the command
that refreshes them; every construct that uses them also takes an override prop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class PublishedRanges:
    """One data file: its values, its source and the date they were taken."""

    source: str
    taken: str
    values: tuple[str, ...]


def _load(name: str) -> dict:
    return json.loads(resources.files("edge_origin").joinpath("data", name).read_text(encoding="utf-8"))


@cache
def route53_health_checker_cidrs() -> PublishedRanges:
    """IPv4 ranges Route 53 health checkers connect from (service ROUTE53_HEALTHCHECKS)."""
    data = _load("route53_health_checkers.json")
    return PublishedRanges(data["source"], data["taken"], tuple(data["cidrs"]))


@cache
def cloudfront_origin_facing_prefix_lists() -> dict[str, str]:
    """Region -> id of the managed prefix list ``com.amazonaws.global.cloudfront.origin-facing``."""
    return dict(_load("cloudfront_origin_facing_prefix_lists.json")["prefix_lists"])


@cache
def cloudfront_prefix_list_weight() -> int:
    """How many security-group rules the CloudFront prefix list counts as (its max entries)."""
    return int(_load("cloudfront_origin_facing_prefix_lists.json")["weight"])
