"""Hold the facts table against botocore's service models (``botocore/data/<svc>/<ver>/service-2.json.gz``).

Reads the JSON files directly (no botocore import): the installed botocore's, or any copy of its
``data`` folder (``make drift`` passes the newest release's; the tests pass a doctored copy).
"""

from __future__ import annotations

import gzip
import html
import importlib.util
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from edge_origin.core.facts import FACTS, Fact, ModelRef

#: The newest API version of each service the facts cite.
SERVICES = ("route53", "cloudfront", "elbv2", "ec2")


@dataclass(frozen=True)
class Mismatch:
    """A fact the model no longer documents as the table says."""

    key: str
    where: str
    expected: str
    found: str

    def __str__(self) -> str:
        return f"{self.key}: {self.where}: expected {self.expected}; the model has {self.found}"


def installed_data_dir() -> Path:
    """The installed botocore's ``data`` folder (found without importing botocore)."""
    spec = importlib.util.find_spec("botocore")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("botocore is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _newest_model(data: Path, service: str) -> Path:
    versions = sorted(p for p in (data / service).iterdir() if (p / "service-2.json.gz").is_file() or (p / "service-2.json").is_file())
    if not versions:
        raise FileNotFoundError(f"no service model for {service} under {data}")
    gz = versions[-1] / "service-2.json.gz"
    return gz if gz.is_file() else versions[-1] / "service-2.json"


@lru_cache(maxsize=16)
def _load(path: Path) -> dict[str, Any]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def plain(text: str | None) -> str:
    """Documentation as words: tags dropped, entities decoded, white space collapsed, no space before punctuation."""
    words = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text or ""))).strip()
    return re.sub(r" ([.,;:)])", r"\1", words)


def _check_ref(key: str, ref: ModelRef, shapes: dict[str, Any]) -> Iterable[Mismatch]:
    shape = shapes.get(ref.shape)
    if shape is None:
        yield Mismatch(key, ref.label, f"shape {ref.shape}", "no such shape")
        return
    if ref.member is not None:
        member = shape.get("members", {}).get(ref.member)
        if member is None:
            yield Mismatch(key, ref.label, f"member {ref.member}", "no such member")
            return
        doc = member.get("documentation")
    else:
        doc = shape.get("documentation")
    if ref.quote is not None and plain(ref.quote) not in plain(doc):
        yield Mismatch(key, ref.label, repr(plain(ref.quote)), "other documentation")
    if ref.enum is not None:
        have = tuple(shape.get("enum", ()))
        missing = [v for v in ref.enum if v not in have]
        if missing:
            yield Mismatch(key, ref.label, "enum values " + ", ".join(ref.enum), "enum " + ", ".join(have))
    if ref.range is not None:
        have_range = (shape.get("min"), shape.get("max"))
        if have_range != ref.range:
            yield Mismatch(key, ref.label, f"range {ref.range[0]}..{ref.range[1]}", f"{have_range[0]}..{have_range[1]}")


def check(data: Path | None = None, facts: Iterable[Fact] | None = None) -> list[Mismatch]:
    """Every mismatch between the facts (default: the table) and the service models under ``data``."""
    data = installed_data_dir() if data is None else data
    out: list[Mismatch] = []
    for f in FACTS.values() if facts is None else facts:
        for ref in f.model:
            shapes = _load(_newest_model(data, ref.service))["shapes"]
            out.extend(_check_ref(f.key, ref, shapes))
    return out


def checked_facts() -> list[Fact]:
    """The facts a service model documents."""
    return [f for f in FACTS.values() if f.model]


__all__ = ["SERVICES", "Mismatch", "check", "checked_facts", "installed_data_dir", "plain"]
