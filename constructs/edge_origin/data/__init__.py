"""Published AWS values the checks need offline (see each JSON file's source, date and refresh).

Layer 0. May import: core, data.
"""

from __future__ import annotations

import json
import os
from functools import cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any


@cache
def load(name: str) -> dict[str, Any]:
    """One of the data files, by file name."""
    return json.loads(_read_text(name))


def _read_text(name: str) -> str:
    """The file ``name`` of this package: read from the package's folder when it is one (an ordinary
    install or a clone); through importlib.resources otherwise (a zipped install), whose readers
    import zipfile, threading and tempfile (~5 ms of a check's start, issue 53)."""
    try:
        with open(os.path.join(os.path.dirname(__file__), name), encoding="utf-8") as f:
            return f.read()
    except OSError:
        from importlib import resources

        return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def route53_health_checker_cidrs(regions: list[str] | None = None) -> list[str]:
    """Health-checker CIDRs for the given checker regions (default: all), GLOBAL included."""
    data = load("route53_health_checkers.json")["regions"]
    wanted = set(data) if not regions else {*regions, "GLOBAL"}
    return sorted({cidr for region, cidrs in data.items() if region in wanted for cidr in cidrs})


def cloudfront_origin_facing_prefix_lists() -> dict[str, dict[str, Any]]:
    """``{region: {"id": "pl-...", "weight": 55}}``."""
    return dict(load("cloudfront_origin_facing_prefix_lists.json")["regions"])
