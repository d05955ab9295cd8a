"""AWS drift report: what the installed botocore's service models document that edge-origin's tables
do not know (issue 34: judge the AWS of today, fail closed).

Reads the installed botocore's ``route53``, ``cloudfront`` and ``elbv2`` service models and lists:

* every member of route53 ``ResourceRecordSet`` not in ``edge_origin.answers.routing.KNOWN_MEMBERS``
  (the routing table: an unknown member makes a record set "not judged", EO-NJ2);
* every member of route53 ``HealthCheckConfig``, cloudfront ``Origin`` / ``CustomOriginConfig`` /
  ``VpcOriginConfig`` not in the known-member tuples next to where the model reads them
  (``edge_origin.model.zones.HEALTH_CHECK_KNOWN_MEMBERS``, ``edge_origin.model.template_model.*_KNOWN_MEMBERS``);
* every ELBv2 load balancer / listener / target group attribute key the ``Key`` member docs
  document (``LoadBalancerAttribute``, ``ListenerAttribute``, ``TargetGroupAttribute``) not in
  ``edge_origin.model.views.*_KNOWN_ATTRIBUTES``, with the load balancer types the docs say support it.

* every fact of the facts table (:mod:`edge_origin.core.facts`) the models no longer document as the
  table says (a default, a range, an enum value, a sentence such as "up to eight healthy records"):
  the facts a verdict rests on (``tests/core/test_facts.py`` fails on the installed botocore's).

``--newest`` reads the newest botocore release on the package index instead of the installed one
(``pip download botocore --no-deps``, its wheel unpacked into a temporary folder; ``make drift`` does
this), ``--data DIR`` any botocore ``data`` folder. A report, not a check: exit 0 whatever it lists;
nonzero only when the script itself fails (``.ci/run`` runs it). ``--json`` prints the same as JSON.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import botocore
from botocore.loaders import Loader

from edge_origin.answers.routing import KNOWN_MEMBERS, TEMPLATE_MEMBERS
from edge_origin.core import facts_check
from edge_origin.model.template_model import (
    CUSTOM_ORIGIN_CONFIG_KNOWN_MEMBERS,
    ORIGIN_KNOWN_MEMBERS,
    VPC_ORIGIN_CONFIG_KNOWN_MEMBERS,
)
from edge_origin.model.views import (
    LISTENER_KNOWN_ATTRIBUTES,
    LOAD_BALANCER_KNOWN_ATTRIBUTES,
    TARGET_GROUP_KNOWN_ATTRIBUTES,
)
from edge_origin.model.zones import HEALTH_CHECK_KNOWN_MEMBERS

#: (label, service, shape, "members" | "attribute keys") -> the project's table of what it knows.
SHAPES: tuple[tuple[str, str, str, str], ...] = (
    ("route53 ResourceRecordSet", "route53", "ResourceRecordSet", "members"),
    ("route53 HealthCheckConfig", "route53", "HealthCheckConfig", "members"),
    ("cloudfront Origin", "cloudfront", "Origin", "members"),
    ("cloudfront CustomOriginConfig", "cloudfront", "CustomOriginConfig", "members"),
    ("cloudfront VpcOriginConfig", "cloudfront", "VpcOriginConfig", "members"),
    ("elbv2 load balancer attributes", "elbv2", "LoadBalancerAttribute", "keys"),
    ("elbv2 listener attributes", "elbv2", "ListenerAttribute", "keys"),
    ("elbv2 target group attributes", "elbv2", "TargetGroupAttribute", "keys"),
)
KNOWN: dict[str, frozenset[str]] = {
    "route53 ResourceRecordSet": frozenset(KNOWN_MEMBERS),
    "route53 HealthCheckConfig": frozenset(HEALTH_CHECK_KNOWN_MEMBERS),
    "cloudfront Origin": frozenset(ORIGIN_KNOWN_MEMBERS),
    "cloudfront CustomOriginConfig": frozenset(CUSTOM_ORIGIN_CONFIG_KNOWN_MEMBERS),
    "cloudfront VpcOriginConfig": frozenset(VPC_ORIGIN_CONFIG_KNOWN_MEMBERS),
    "elbv2 load balancer attributes": frozenset(LOAD_BALANCER_KNOWN_ATTRIBUTES),
    "elbv2 listener attributes": frozenset(LISTENER_KNOWN_ATTRIBUTES),
    "elbv2 target group attributes": frozenset(TARGET_GROUP_KNOWN_ATTRIBUTES),
}
"""The project's tables; a test passes a copy with a member removed to see the report name it."""

TEMPLATE_ONLY = frozenset(TEMPLATE_MEMBERS)
"""CloudFormation-only properties in the tables (``AWS::Route53::RecordSet``): no API member to match."""

#: An attribute key in the ``Key`` docs: ``<code>key</code> - description`` (values in nested lists
#: are ``<code>value</code>`` without the dash).
_KEY = re.compile(r"<code>([a-z0-9_.\-]+)</code>\s*[-\u2013\u2014]\s")
#: A section heading: "The following attribute(s) is/are (only) supported (only) by <scope>[:.]".
_SCOPE = re.compile(r"<p>The following attributes? (?:is|are) ([^<]*?)[:.]?\s*</p>")


@dataclass
class Unknown:
    name: str
    doc: str
    scope: str = ""


@dataclass
class Section:
    label: str
    documented: int
    known: int
    unknown: list[Unknown] = field(default_factory=list)
    missing_shape: bool = False
    #: Names the project knows that the model no longer documents (renamed or removed).
    gone: list[str] = field(default_factory=list)


def _text(doc: str) -> str:
    """The first sentence of an API doc string, tags dropped, one line."""
    plain = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", doc or "")).split())
    first = re.split(r"(?<=[.!?])\s", plain, maxsplit=1)[0]
    return first if len(first) <= 200 else first[:199] + "…"


def _attribute_keys(doc: str) -> dict[str, tuple[str, str]]:
    """``{key: (scope, first sentence)}`` from a ``Key`` member's documentation."""
    out: dict[str, tuple[str, str]] = {}
    scope = "all load balancers"
    marks = [(m.start(), "scope", m) for m in _SCOPE.finditer(doc)] + [(m.start(), "key", m) for m in _KEY.finditer(doc)]
    for start, kind, m in sorted(marks, key=lambda t: t[0]):
        if kind == "scope":
            scope = " ".join(m.group(1).split()).removeprefix("supported ").removeprefix("by ")
            continue
        end = doc.find("</li>", start)
        described = doc[m.end(): end if end != -1 else None]
        out.setdefault(m.group(1), (scope, _text(described)))
    return out


def sections(known: Mapping[str, Iterable[str]] = KNOWN, loader: Loader | None = None) -> list[Section]:
    """The report's sections, from the installed botocore (``loader``) and the tables ``known``."""
    loader = loader or Loader()
    models: dict[str, Any] = {}
    out: list[Section] = []
    for label, service, shape_name, kind in SHAPES:
        model = models.get(service)
        if model is None:
            model = models[service] = loader.load_service_model(service, "service-2")
        table = set(known.get(label, ()))
        shape = model["shapes"].get(shape_name)
        if shape is None:
            out.append(Section(label, 0, len(table), missing_shape=True))
            continue
        if kind == "members":
            documented = {name: ("", _text(m.get("documentation", ""))) for name, m in shape.get("members", {}).items()}
        else:
            documented = _attribute_keys(shape.get("members", {}).get("Key", {}).get("documentation", ""))
        section = Section(label, len(documented), len(table & set(documented)))
        section.unknown = [Unknown(name, doc, scope) for name, (scope, doc) in documented.items() if name not in table]
        section.gone = sorted(table - set(documented) - TEMPLATE_ONLY)
        out.append(section)
    return out


def newest_botocore(into: Path) -> tuple[str, Path]:
    """(version, data folder) of the newest botocore wheel on the package index, unpacked under ``into``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", str(into), "botocore"],
        check=True,
    )
    wheel = next(into.glob("botocore-*.whl"))
    wanted = tuple(f"botocore/data/{svc}/" for svc in {*facts_check.SERVICES, *(s[1] for s in SHAPES)})
    with zipfile.ZipFile(wheel) as z:
        z.extractall(into, [n for n in z.namelist() if n.startswith(wanted)])
    return wheel.name.split("-")[1], into / "botocore" / "data"


def render_facts(mismatches: list[facts_check.Mismatch]) -> list[str]:
    lines = ["", f"facts table: {len(facts_check.checked_facts())} facts held against the models, {len(mismatches)} differ"]
    lines += [f"  ! {m}" for m in mismatches]
    return lines


def render(found: list[Section], version: str = botocore.__version__, where: str = "") -> str:
    where = where or f"{botocore.__file__.rsplit('/', 1)[0]}/data"
    lines = [
        f"AWS drift report: botocore {version} service models ({where})",
        "Members and attribute keys the installed botocore documents that edge-origin's tables do not know "
        "(a report, not a failure).",
    ]
    total = 0
    for s in found:
        lines.append("")
        if s.missing_shape:
            lines.append(f"{s.label}: shape not in this botocore (renamed or removed?)")
            continue
        lines.append(f"{s.label}: {s.documented} documented, {s.known} known, {len(s.unknown)} not known")
        for u in s.unknown:
            scope = f" [{u.scope}]" if u.scope else ""
            lines.append(f"  - {u.name}{scope}: {u.doc}")
        for name in s.gone:
            lines.append(f"  ! {name}: in edge-origin's table, not documented by this botocore")
        total += len(s.unknown)
    lines.append("")
    lines.append(f"{total} not known in all (botocore {version}).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--newest", action="store_true", help="the newest botocore on the package index (pip download)")
    where.add_argument("--data", type=Path, help="a botocore data folder (default: the installed botocore's)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        version, data = botocore.__version__, args.data
        if args.newest:
            try:
                version, data = newest_botocore(Path(tmp))
            except (subprocess.CalledProcessError, StopIteration, OSError) as exc:
                print(f"aws_drift: could not fetch the newest botocore ({exc}); reporting the installed {version}", file=sys.stderr)
        elif data is not None:
            version = f"data folder {data}"
        loader = Loader(extra_search_paths=[str(data)], include_default_search_paths=False) if data else None
        found = sections(loader=loader)
        mismatches = facts_check.check(data)
    if args.json:
        print(json.dumps({"botocore": version, "sections": [asdict(s) for s in found],
                          "facts": [asdict(m) for m in mismatches]}, indent=2))
    else:
        print(render(found, version, str(data or "")) + "\n" + "\n".join(render_facts(mismatches)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
