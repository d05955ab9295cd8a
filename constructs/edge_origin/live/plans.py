"""DNS plans: the file format, its validation, and where plans come from.

A plan is the desired state of one origin name: multivalue A records (IPv4) and AAAA records
(IPv6), one per origin IP, each with a health check (an existing ``health_check_id`` or a ``health_check`` to create), at one
``generation``. The format is the JSON Schema shipped as ``edge_origin/data/plan.schema.json``;
``parse_plan`` checks a document against it with a small validator of its own (the keywords the
schema uses) and then what a schema cannot say (unique set identifiers and IPs, usable
addresses, no duplicate JSON keys). Every problem is ``LivePlanError``: one line naming the file and
the field, such as ``plan.json: records[2].ip: '203.0.113.300' is not an IPv4 or IPv6 address``.
``Plan.notes()`` says what is accepted but worth knowing (more than 8 records of one type).

``plan_from_live``, ``plan_from_template`` and ``describe_live`` (``edge-origin plan from-live |
from-template | show``) live in ``edge_origin.live.plan_sources``.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from edge_origin import _moved
from edge_origin.core.dns_names import fqdn as core_fqdn
from edge_origin.data import load as load_data

SCHEMA_FILE = "plan.schema.json"
SCHEMA_VERSION = 1
MAX_PLAN_BYTES = 1 << 20
MAX_GENERATION = 2**53 - 1

_TYPE_NAMES = {
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


class LivePlanError(ValueError):
    """A plan that cannot be used: one line naming the file and the field."""


def shown_path(path: str | Path, limit: int = 120) -> str:
    """A path as one line of a message: control and line-break characters escaped, long names shortened."""
    text = str(path)
    if any(ord(c) < 0x20 or c in "\x7f\x85\u2028\u2029" for c in text):
        text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= limit else f"{text[:limit // 2]}...{text[-limit // 4:]}"


@cache
def plan_schema() -> dict[str, Any]:
    """The shipped JSON Schema of a plan file."""
    return load_data(SCHEMA_FILE)


# --- the schema validator ---------------------------------------------------------------------
def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _is_type(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    return False  # a type the validator does not know is never met


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def schema_errors(value: Any, schema: dict[str, Any] | None = None, path: str = "") -> list[str]:
    """Violations of the plan schema (the keywords it uses), each ``field: problem``; [] if none."""
    root = plan_schema()
    return _check(value, _resolve(root if schema is None else schema, root), path, root)  # {} takes anything


def _check(value: Any, schema: dict[str, Any], path: str, root: dict[str, Any]) -> list[str]:
    where = path or "plan"
    if "const" in schema and not (value == schema["const"] and type(value) is type(schema["const"])):
        return [f"{where}: must be {schema['const']!r} (got {_short(value)})"]
    if "enum" in schema and not any(value == e and type(value) is type(e) for e in schema["enum"]):
        return [f"{where}: {_short(value)} is not one of {', '.join(str(e) for e in schema['enum'])}"]
    kind = schema.get("type")
    if kind is not None and not _is_type(value, kind):
        return [f"{where}: must be {_TYPE_NAMES.get(kind, kind)} (got {_kind(value)})"]
    expected = schema.get("x-expected")
    errors: list[str] = []
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            shown = value if abs(value) < 10**20 else f"a {len(str(abs(value)))}-digit number"
            return [f"{where}: {shown} is out of range {lo}..{hi}"]
    if isinstance(value, str):
        shortest, longest = schema.get("minLength", 0), schema.get("maxLength")
        if len(value) < shortest or (longest is not None and len(value) > longest):
            bounds = f"{shortest}-{longest}" if longest is not None else f"at least {shortest}"
            return [f"{where}: {_short(value)} must be {bounds} characters long"]
        if "pattern" in schema and re.search(schema["pattern"], value) is None:
            return [f"{where}: {_short(value)} is not {expected or 'valid'}"]
        if schema.get("format") == "ipv4" and not _ipv4(value):
            return [f"{where}: {_short(value)} is not an IPv4 address"]
        if schema.get("format") == "ipv6" and not (_ip(value) and ":" in value):
            return [f"{where}: {_short(value)} is not an IPv6 address"]
    if "anyOf" in schema and all(_check(value, _resolve(o, root), path, root) for o in schema["anyOf"]):
        return [f"{where}: {_short(value)} is not {expected or 'valid'}"]
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", len(value)):
            return [f"{where}: {len(value)} items, at most {schema['maxItems']} allowed"]
        if len(value) < schema.get("minItems", 0):
            return [f"{where}: at least {schema['minItems']} items required"]
        if "items" in schema:
            item_schema = _resolve(schema["items"], root)
            for index, item in enumerate(value):
                errors.extend(_check(item, item_schema, _join(path, index), root))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{_join(path, key)}: required field is missing")
        if schema.get("additionalProperties") is False:
            for key in value:
                if key not in props:
                    errors.append(f"{_join(path, str(key))}: unknown field (allowed: {', '.join(props)})")
        for key, sub in props.items():
            if key in value:
                errors.extend(_check(value[key], _resolve(sub, root), _join(path, key), root))
        for choice in ("oneOf",):
            options = schema.get(choice)
            if options and not errors:
                fields = [f for o in options for f in o.get("required", [])]
                present = [f for f in fields if f in value]
                if len(present) != 1:
                    got = "both" if present else "neither"
                    errors.append(f"{where}: give exactly one of {' or '.join(fields)} (got {got})")
    return errors


def _ipv4(value: str) -> bool:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def _ip(value: str) -> bool:
    """An IPv4 address, or an IPv6 address without a zone index (``fe80::1%eth0`` is not one)."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return "%" not in value


# Route 53 API reference, HealthCheckConfig.IPAddress: "Route 53 can't check the health of
# endpoints for which the IP address is in local, private, non-routable, or multicast ranges"
# (RFC 5735, RFC 6598, RFC 5156). CreateHealthCheck refuses them, so a plan refuses them first.
# The documentation ranges (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) stay
# usable for examples and tests.
UNCHECKABLE_NETWORKS: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "'this network' (RFC 5735)"), ("10.0.0.0/8", "private (RFC 1918)"),
    ("100.64.0.0/10", "shared address space (RFC 6598)"), ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local"), ("172.16.0.0/12", "private (RFC 1918)"),
    ("192.0.0.0/24", "IETF protocol assignments (RFC 5735)"), ("192.168.0.0/16", "private (RFC 1918)"),
    ("198.18.0.0/15", "benchmarking (RFC 5735)"), ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
    ("::/128", "unspecified"), ("::1/128", "loopback"), ("::ffff:0:0/96", "IPv4-mapped (RFC 5156)"),
    ("fc00::/7", "unique local (private, RFC 5156)"), ("fe80::/10", "link-local"), ("ff00::/8", "multicast"),
)
_UNCHECKABLE = tuple((ipaddress.ip_network(n), why) for n, why in UNCHECKABLE_NETWORKS)


def uncheckable_reason(ip: str) -> str | None:
    """Why Route 53 cannot health-check ``ip`` (its range), or None."""
    address = ipaddress.ip_address(ip)
    for network, why in _UNCHECKABLE:
        if address.version == network.version and address in network:
            return f"{why}, {network}"
    return None


def record_type(ip: str) -> str:
    """``A`` for an IPv4 address, ``AAAA`` for IPv6."""
    return "AAAA" if ipaddress.ip_address(ip).version == 6 else "A"


MULTIVALUE_ANSWER_LIMIT = 8  # Route 53 answers with up to eight healthy records (API reference, MultiValueAnswer)


# --- the plan ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class LiveHealthCheckSpec:
    """A Route 53 health check for one record's IP."""

    type: str = "TCP"
    port: int = 443
    request_interval: int = 10
    failure_threshold: int = 3
    resource_path: str | None = None

    def config(self, ip: str) -> dict[str, Any]:
        """Route 53's ``HealthCheckConfig`` for ``ip``."""
        config: dict[str, Any] = {
            "Type": self.type,
            "IPAddress": ip,
            "Port": self.port,
            "RequestInterval": self.request_interval,
            "FailureThreshold": self.failure_threshold,
        }
        if self.resource_path is not None:
            config["ResourcePath"] = self.resource_path
        if self.type == "HTTPS":
            config["EnableSNI"] = True
        return config

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type, "port": self.port,
            "request_interval": self.request_interval, "failure_threshold": self.failure_threshold,
        }
        if self.resource_path is not None:
            out["resource_path"] = self.resource_path
        return out

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LiveHealthCheckSpec | None:
        """The spec of a live ``HealthCheckConfig``, or None if the plan format cannot hold it."""
        kind = config.get("Type")
        if kind not in ("TCP", "HTTP", "HTTPS") or config.get("Port") is None:
            return None
        return cls(
            type=kind, port=int(config["Port"]), request_interval=int(config.get("RequestInterval", 30)),
            failure_threshold=int(config.get("FailureThreshold", 3)), resource_path=config.get("ResourcePath"),
        )

    @classmethod
    def parse(cls, text: str) -> LiveHealthCheckSpec:
        """``tcp:443``, ``https:443/healthz``, ``http:8080/ready`` (``--health-check``)."""
        # the type is case-insensitive, the path is not (HTTP paths are case-sensitive: /Healthz is not /healthz)
        match = re.fullmatch(r"(tcp|http|https):(\d{1,5})(/[\x21-\x7e]*)?", text.strip(), re.IGNORECASE)
        if match is None:
            raise LivePlanError(f"--health-check {text!r}: expected tcp:PORT, http:PORT/PATH or https:PORT/PATH")
        kind, port, path = match.group(1).upper(), int(match.group(2)), match.group(3)
        if not 1 <= port <= 65535:
            raise LivePlanError(f"--health-check {text!r}: port {port} is out of range 1..65535")
        if kind == "TCP" and path:
            raise LivePlanError(f"--health-check {text!r}: a TCP health check takes no path")
        return cls(type=kind, port=port, resource_path=path)  # a TCP check with a path is refused above


@dataclass(frozen=True)
class LivePlanRecord:
    """One multivalue A record of a plan."""

    set_identifier: str
    ip: str
    zone: str | None = None
    health_check_id: str | None = None
    health_check: LiveHealthCheckSpec | None = None

    @property
    def type(self) -> str:
        """The record type: ``A`` (IPv4) or ``AAAA`` (IPv6)."""
        return record_type(self.ip)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"set_identifier": self.set_identifier, "ip": self.ip}
        if self.zone is not None:
            out["zone"] = self.zone
        if self.health_check_id is not None:
            out["health_check_id"] = self.health_check_id
        if self.health_check is not None:
            out["health_check"] = self.health_check.to_json()
        return out


@dataclass(frozen=True)
class Plan:
    """The desired records of one name at one generation."""

    name: str
    hosted_zone_id: str
    generation: int
    ttl: int
    records: tuple[LivePlanRecord, ...] = field(default_factory=tuple)
    comment: str | None = None

    @property
    def fqdn(self) -> str:
        """The name as Route 53 spells it (:func:`edge_origin.core.dns_names.fqdn`)."""
        return core_fqdn(self.name)

    @property
    def zone_id(self) -> str:
        return self.hosted_zone_id.removeprefix("/hostedzone/")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "hosted_zone_id": self.hosted_zone_id,
            "generation": self.generation,
            "ttl": self.ttl,
            "records": [r.to_json() for r in self.records],
        }
        if self.comment is not None:
            out["comment"] = self.comment
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"

    def types(self) -> list[str]:
        """The address types the plan holds records of (``A``, ``AAAA``)."""
        return sorted({r.type for r in self.records})

    def notes(self) -> list[str]:
        """What the plan does that is allowed but worth knowing."""
        out = []
        for rtype in self.types():
            n = sum(r.type == rtype for r in self.records)
            if n > MULTIVALUE_ANSWER_LIMIT:
                out.append(
                    f"{n} {rtype} records: Route 53 answers with up to {MULTIVALUE_ANSWER_LIMIT} healthy ones, a different "
                    f"{MULTIVALUE_ANSWER_LIMIT} per resolver (API reference, MultiValueAnswer), so each client sees only some origins"
                )
        return out

    def digest(self) -> str:
        """A short digest of what the plan puts in DNS (name, TTL, records; not the generation)."""
        body = {"name": self.fqdn, "ttl": self.ttl, "records": sorted((r.to_json() for r in self.records), key=lambda r: r["set_identifier"])}
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def parse_plan(document: Any, where: str = "plan") -> Plan:
    """A Plan from a decoded JSON document; LivePlanError naming ``where`` and the field."""
    errors = schema_errors(document)
    if errors:
        raise LivePlanError(f"{where}: {errors[0]}" + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
    records: list[LivePlanRecord] = []
    seen_ids: dict[str, int] = {}
    seen_ips: dict[str, int] = {}
    for index, raw in enumerate(document["records"]):
        sid, ip = raw["set_identifier"], raw["ip"]
        if sid in seen_ids:
            raise LivePlanError(f"{where}: records[{index}].set_identifier: {sid!r} is also records[{seen_ids[sid]}]'s (set identifiers must be unique)")
        address = ipaddress.ip_address(ip)
        canonical = str(address)
        if canonical in seen_ips:
            raise LivePlanError(f"{where}: records[{index}].ip: {ip} is also records[{seen_ips[canonical]}]'s (one record an address)")
        if address.is_multicast or address.is_unspecified or address == ipaddress.IPv4Address("255.255.255.255"):
            raise LivePlanError(f"{where}: records[{index}].ip: {ip} is not a unicast address")
        if raw.get("health_check") is not None and (why := uncheckable_reason(ip)) is not None:
            raise LivePlanError(
                f"{where}: records[{index}].ip: {ip} is {why}: Route 53 cannot health-check it (CreateHealthCheck refuses "
                "local, private, non-routable and multicast addresses); use the origin's public address"
            )
        ip = canonical  # Route 53 spells IPv6 values in their short form
        seen_ids[sid], seen_ips[ip] = index, index
        hc = raw.get("health_check")
        spec = None
        if hc is not None:
            if hc["type"] == "TCP" and "resource_path" in hc:
                raise LivePlanError(f"{where}: records[{index}].health_check.resource_path: a TCP health check takes no path")
            spec = LiveHealthCheckSpec(
                type=hc["type"], port=hc["port"], request_interval=hc.get("request_interval", 10),
                failure_threshold=hc.get("failure_threshold", 3), resource_path=hc.get("resource_path"),
            )
        records.append(LivePlanRecord(sid, ip, raw.get("zone"), raw.get("health_check_id"), spec))
    name = document["name"].rstrip(".")
    if name.lower().split(".")[0] == GENERATION_LABEL:
        raise LivePlanError(f"{where}: name: {document['name']!r} starts with the reserved label {GENERATION_LABEL}")
    return Plan(
        name=name, hosted_zone_id=document["hosted_zone_id"].removeprefix("/hostedzone/"),
        generation=document["generation"], ttl=document["ttl"], records=tuple(records),
        comment=document.get("comment"),
    )


def loads_plan(text: str, where: str = "plan") -> Plan:
    """A Plan from JSON text."""
    try:
        document = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise LivePlanError(f"{where}: not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise LivePlanError(f"{where}: not a plan (JSON nested too deeply)") from None
    except ValueError as exc:
        raise LivePlanError(f"{where}: not valid JSON ({exc})") from None
    return parse_plan(document, where)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (json.loads would keep the last one silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key[:60]!r} is given twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_plan(path: str | Path) -> Plan:
    """A Plan from a file; LivePlanError for a missing, non-regular (FIFO, device, folder), huge,
    undecodable or invalid file. The file is stat'ed before it is opened, so a FIFO never blocks."""
    from edge_origin.core.files import InputFileError, read_text_file

    where = shown_path(path)
    try:
        text = read_text_file(path, MAX_PLAN_BYTES)
    except InputFileError as exc:
        raise LivePlanError(f"{where}: {str(exc).removeprefix(f'{path}: ')}") from None
    except ValueError as exc:  # a NUL byte in the name
        raise LivePlanError(f"{where}: not a usable file name ({exc})") from None
    return loads_plan(text, where)


def check_output_path(path: str | Path, flag: str = "-o/--output") -> None:
    """LivePlanError unless a plan can be written at ``path``: a non-empty name whose folder exists, and
    nothing there but a regular file (a FIFO would block the write, a device or folder would eat it).
    Checked before any AWS call, so a bad ``-o`` costs nothing."""
    import os
    import stat

    where = str(path)
    if not where.strip():
        raise LivePlanError(f"{flag}: empty file name (give a path, or - for stdout)")
    shown = shown_path(where)
    try:
        info = os.stat(where)
    except FileNotFoundError:
        parent = os.path.dirname(where) or "."
        if not os.path.isdir(parent):
            raise LivePlanError(f"{flag} {shown}: folder {shown_path(parent)!r} does not exist") from None
        if not os.access(parent, os.W_OK | os.X_OK):
            raise LivePlanError(f"{flag} {shown}: folder {shown_path(parent)!r} is not writable") from None
        return
    except (OSError, ValueError) as exc:
        raise LivePlanError(f"{flag} {shown}: cannot write ({getattr(exc, 'strerror', None) or exc})") from None
    if not stat.S_ISREG(info.st_mode) and where != os.devnull:
        from edge_origin.core.files import describe_mode

        raise LivePlanError(f"{flag} {shown}: is {describe_mode(info.st_mode)}, not a regular file")


def write_plan(plan: Plan, path: str | Path) -> None:
    """Write ``plan`` as JSON (validated on the way: what is written can be read back).
    Refuses a path that holds anything but a regular file (see :func:`check_output_path`)."""
    text = plan.dumps()
    loads_plan(text, str(path))
    check_output_path(path, "plan file")
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise LivePlanError(f"{shown_path(path)}: cannot write ({exc.strerror or exc})") from None


#: The reserved first label of the generation TXT record beside each planned name.
GENERATION_LABEL = "_edge-origin-generation"


__getattr__ = _moved.old_names(__name__)  # old class names, until 0.3
