"""A strict, in-memory Route 53 behind the boto3 client interface, for tests (ours and yours).

moto 5.2.5 accepts what real Route 53 refuses (a multivalue CREATE beside weighted records, a
DELETE whose health check differs, half-applied batches, INSYNC at once: see FACTS.md). DNS
automation tested on it can pass and still fail, or do damage, in a real account. ``StrictRoute53``
implements the Route 53 API reference's change semantics instead:

* a change batch is all or nothing: every change is validated against the zone as the batch
  leaves it, and any error cancels the whole batch (``InvalidChangeBatch`` lists every message);
* a DELETE must match the live record set exactly (TTL, values, health check, set identifier,
  weight, multivalue flag, alias target); a CREATE of an existing set fails;
* all record sets of one name and type share one routing policy (a simple record stands alone),
  judged on the state after the whole batch, so a DELETE and a CREATE in one batch may switch a
  name from weighted to multivalue; a CNAME shares its name with nothing;
* at most 1,000 ``ResourceRecord`` values a batch (an UPSERT counts twice); names outside the zone,
  bad IPv4 values, unquoted TXT values and missing routing fields are refused;
* ``get_change`` answers ``PENDING`` until ``insync_after_polls`` polls (or ``insync_after_s``
  seconds) have passed, then ``INSYNC``;
* ``create_health_check`` is idempotent on ``CallerReference`` (same settings: the existing check;
  different settings: ``HealthCheckAlreadyExists``); health status is settable per check
  (``set_health``), new checks start healthy (as Route 53 treats them until it has data);
* ``list_resource_record_sets`` orders by name (labels reversed), type and set identifier, and
  pages with ``NextRecordName``/``NextRecordType``/``NextRecordIdentifier``; ``get_paginator`` is
  botocore's own paginator over these methods; a wildcard label is listed as ``\\052``;
* the API reference's per-set and per-group rules and the quotas (``_check_limits``,
  ``_policy_limits``, ``_alias_problems``: one value a weighted/latency/failover/geolocation set,
  100 weighted sets, one TTL among weighted sets, one PRIMARY/SECONDARY, one latency set a
  region and only known regions, no multivalue CNAME/NS, field limits of the model, 32,000
  characters a batch, label and name lengths, no wildcard NS, the apex SOA and NS stay, 10,000
  records a zone, no CloudFront alias in a private zone, no alias to a missing record);
* health checks refuse uncheckable addresses (private, loopback, ...), a CallerReference of a
  deleted check, Port/IPAddress on CALCULATED checks; deleting a check that records still name is
  allowed (as DeleteHealthCheck documents; a calculated check then counts its remaining children);
  status is Route 53's (``is_healthy``: Disabled, Inverted, HealthThreshold, more than 18 % of the
  checkers);
* a zone created with a VPC is private (``PrivateZone``: true).

Throttling, ``PriorRequestNotComplete``, lost answers and stalls come from
``edge_origin.testing.faults`` (``Faults().throttle(...).attach(StrictRoute53())``).

Errors are ``botocore`` ``ClientError`` subclasses with Route 53's codes (``client.exceptions.
InvalidChangeBatch`` etc.), and request parameters go through botocore's own validator, so code
written against ``boto3.client("route53")`` runs unchanged. One lock makes every call atomic;
``add_observer(fn)`` calls ``fn(zone_id, records)`` under that lock after every applied batch (to
check invariants such as "this name never has zero records" at the moment they could break).

Example::

    from edge_origin.testing.route53 import StrictRoute53
    r53 = StrictRoute53()
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="t1")["HostedZone"]["Id"]
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [...]})
"""

from __future__ import annotations

import copy
import ipaddress
import random
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import botocore.errorfactory
import botocore.exceptions
import botocore.paginate
import botocore.session
import botocore.validate

from edge_origin.answers.routing import ROUTING_ELEMENTS, routing_elements
from edge_origin.answers.types import Vantage
from edge_origin.core.dns_names import fqdn as core_fqdn
from edge_origin.live.plans import uncheckable_reason
from edge_origin.testing.route53_guards import GuardsMixin

MAX_RECORDS_PER_BATCH = 1000
# Route 53 quotas (developer guide, "Quotas on records"): 32,000 characters of values a
# ChangeResourceRecordSets request (an UPSERT counts twice, as for the 1,000 values), 10,000
# records a hosted zone; API reference (ResourceRecordSet.Weight): at most 100 weighted sets of
# one name and type.
MAX_CHARACTERS_PER_BATCH = 32000
MAX_RECORDS_PER_ZONE = 10000
MAX_WEIGHTED_SETS = 100
# botocore's route53 model: ResourceRecordSetIdentifier 1..128, TTL 0..2147483647, Weight 0..255,
# RData (a value) at most 4,000 characters, ResourceDescription (a batch comment) at most 256.
FIELD_LIMITS = {"SetIdentifier": 128, "TTL": 2147483647, "Weight": 255}
MAX_VALUE_CHARACTERS = 4000
MAX_COMMENT_CHARACTERS = 256
MAX_LABEL_CHARACTERS = 63
MAX_NAME_CHARACTERS = 255
CLOUDFRONT_ZONE_ID = "Z2FDTNDATAQYW2"  # API reference, AliasTarget.HostedZoneId: "CloudFront distribution Specify Z2FDTNDATAQYW2"
HEALTHY_CHECKER_SHARE = 0.18  # Route 53 developer guide: healthy when more than 18 % of the checkers report healthy
MAX_ITEMS = 300
DEFAULT_MAX_HEALTH_CHECKS = 200
#: Every routing element of ``ResourceRecordSet``: the answer model's one table (``answers.routing``).
ROUTING_FIELDS = tuple(e.member for e in ROUTING_ELEMENTS)
POLICY_NAMES = {
    "AZAffinity": "AZ-affinity",
    "Weight": "weighted",
    "MultiValueAnswer": "multivalue answer",
    "Failover": "failover",
    "Region": "latency",
    "GeoLocation": "geolocation",
    "GeoProximityLocation": "geoproximity",
    "CidrRoutingConfig": "IP-based",
}
CHECKER_REGIONS = ("us-east-1", "us-west-1", "us-west-2", "eu-west-1", "ap-southeast-1", "ap-southeast-2", "ap-northeast-1", "sa-east-1")
HEALTH_CHECK_DEFAULTS = {"RequestInterval": 30, "FailureThreshold": 3, "MeasureLatency": False, "Inverted": False, "Disabled": False}

_MODEL_LOCK = threading.Lock()
_MODEL: dict[str, Any] = {}

Record = dict[str, Any]
Observer = Callable[[str, list[Record]], None]


def _service() -> tuple[Any, Any, Any]:
    """botocore's Route 53 service model, paginator model and exception classes (loaded once)."""
    with _MODEL_LOCK:
        if not _MODEL:
            session = botocore.session.get_session()
            model = session.get_service_model("route53")
            _MODEL["model"] = model
            _MODEL["paginators"] = session.get_paginator_model("route53")
            _MODEL["exceptions"] = botocore.errorfactory.ClientExceptionsFactory().create_client_exceptions(model)
        return _MODEL["model"], _MODEL["paginators"], _MODEL["exceptions"]


def normalize_name(name: str) -> str:
    """Route 53's form of a DNS name: escapes decoded, lower case, one trailing dot."""
    return core_fqdn(name)


def _reversed_labels(name: str) -> tuple[str, ...]:
    return tuple(reversed(name.rstrip(".").split(".")))


def _sort_key(record: Record) -> tuple[Any, ...]:
    return (_reversed_labels(record["Name"]), record["Type"], record.get("SetIdentifier", ""))


def _key(record: Record) -> tuple[str, str, str | None]:
    return (record["Name"], record["Type"], record.get("SetIdentifier"))


def _describe(record: Record) -> str:
    text = f"name='{record['Name']}', type='{record['Type']}'"
    if record.get("SetIdentifier") is not None:
        text += f", set-identifier='{record['SetIdentifier']}'"
    return f"[{text}]"


def _policy(record: Record) -> str | None:
    """The routing element of a record set (the answer model's table), None for simple."""
    found = routing_elements(record)
    return found[0] if found else None


def _az_affinity_problem(az: dict[str, Any]) -> str | None:
    """What the API reference refuses in an AZAffinity (botocore checks the enum and lengths)."""
    # AZAffinityLocationId: "Specify the ID in lowercase"; "For Global, the value global".
    kind, ident = az.get("LocationType"), az.get("LocationId")
    if kind is None or ident is None:
        return "AZAffinity needs both LocationType and LocationId ('You must specify both LocationType and LocationId')"
    if ident != ident.lower():
        return f"AZAffinity LocationId {ident!r} must be lower case"
    if kind == "Global" and ident != "global":
        return f"AZAffinity LocationId for the Global location type must be 'global', not {ident!r}"
    return None


def _canonical(record: Record) -> Record:
    """The stored form of a record set: normalized names, no empty routing flags."""
    out: Record = {"Name": normalize_name(record["Name"]), "Type": record["Type"]}
    for key in ("SetIdentifier", *ROUTING_FIELDS, "TTL", "HealthCheckId", "TrafficPolicyInstanceId"):
        if record.get(key) is not None:
            out[key] = copy.deepcopy(record[key])
    if out.get("MultiValueAnswer") is False:
        del out["MultiValueAnswer"]
    if record.get("ResourceRecords") is not None:
        out["ResourceRecords"] = [{"Value": r["Value"]} for r in record["ResourceRecords"]]
    alias = record.get("AliasTarget")
    if alias is not None:
        out["AliasTarget"] = {
            "HostedZoneId": alias["HostedZoneId"],
            "DNSName": normalize_name(alias["DNSName"]),
            "EvaluateTargetHealth": bool(alias["EvaluateTargetHealth"]),
        }
    return out


def _copy(value: Any) -> Any:
    """A copy of JSON-like data (dicts, lists, scalars): several times faster than deepcopy."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _same(a: Record, b: Record) -> bool:
    """Exact match for a DELETE: every field, values as a set."""

    def comparable(r: Record) -> Record:
        c = dict(r)
        if "ResourceRecords" in c:
            c["ResourceRecords"] = sorted(v["Value"] for v in c["ResourceRecords"])
        return c

    return comparable(a) == comparable(b)


def _now() -> datetime:
    return datetime.now(UTC)


def _bare_id(value: str, prefix: str) -> str:
    return value[len(prefix):] if value.startswith(prefix) else value


class _Zone:
    def __init__(self, zone_id: str, name: str, caller_reference: str, comment: str | None, private: bool) -> None:
        self.id = zone_id
        self.name = name
        self.caller_reference = caller_reference
        self.comment = comment
        self.private = private
        self.records: dict[tuple[str, str, str | None], Record] = {}

    def describe(self) -> dict[str, Any]:
        config: dict[str, Any] = {"PrivateZone": self.private}
        if self.comment is not None:
            config["Comment"] = self.comment
        return {
            "Id": f"/hostedzone/{self.id}",
            "Name": self.name,
            "CallerReference": self.caller_reference,
            "Config": config,
            "ResourceRecordSetCount": len(self.records),
        }


class StrictRoute53(GuardsMixin):
    """Route 53's change semantics in memory, called like a boto3 ``route53`` client (with the
    November 2026 guards: ``edge_origin.testing.route53_guards``)."""

    def __init__(
        self,
        *,
        insync_after_polls: int = 1,
        insync_after_s: float | None = None,
        max_health_checks: int = DEFAULT_MAX_HEALTH_CHECKS,
        new_health_checks_healthy: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._model, self._paginator_model, self.exceptions = _service()
        self._lock = threading.RLock()
        self._zones: dict[str, _Zone] = {}
        self._changes: dict[str, dict[str, Any]] = {}
        self._health_checks: dict[str, dict[str, Any]] = {}
        self._health: dict[str, float] = {}  # share of the checkers reporting healthy
        self._deleted_references: set[str] = set()
        self._observers: list[Observer] = []
        self.insync_after_polls = insync_after_polls
        self.insync_after_s = insync_after_s
        self.max_health_checks = max_health_checks
        self.new_health_checks_healthy = new_health_checks_healthy
        self._clock = clock
        self.batches_applied = 0
        self.batches_refused = 0
        self.calls: dict[str, int] = {}
        self._answer_rng = random.Random(0)  # TestDNSAnswer's draws, repeatable

    # --- plumbing -------------------------------------------------------------------------------
    def _enter(self, operation: str, params: dict[str, Any]) -> None:
        with self._lock:
            self.calls[operation] = self.calls.get(operation, 0) + 1
        shape = self._model.operation_model(operation).input_shape
        botocore.validate.validate_parameters(params, shape)

    def _error(self, code: str, message: str, operation: str, status: int = 400) -> botocore.exceptions.ClientError:
        response = {
            "Error": {"Type": "Sender", "Code": code, "Message": message},
            "ResponseMetadata": {"HTTPStatusCode": status, "RequestId": str(uuid.uuid4())},
        }
        cls = getattr(self.exceptions, code, botocore.exceptions.ClientError)
        return cls(response, operation)

    @staticmethod
    def _ok(body: dict[str, Any], status: int = 200) -> dict[str, Any]:
        body["ResponseMetadata"] = {"HTTPStatusCode": status, "RequestId": str(uuid.uuid4()), "RetryAttempts": 0}
        return body

    def _zone(self, zone_id: str, operation: str) -> _Zone:
        zone = self._zones.get(_bare_id(zone_id, "/hostedzone/"))
        if zone is None:
            raise self._error("NoSuchHostedZone", f"No hosted zone found with ID: {_bare_id(zone_id, '/hostedzone/')}", operation, 404)
        return zone

    def can_paginate(self, operation_name: str) -> bool:
        return self._paginator_model._paginator_config.get(_camel(operation_name)) is not None

    def get_paginator(self, operation_name: str) -> botocore.paginate.Paginator:
        """botocore's paginator driving this object's list method (as a real client's would)."""
        op = _camel(operation_name)
        config = self._paginator_model.get_paginator(op)
        return botocore.paginate.Paginator(getattr(self, operation_name), config, self._model.operation_model(op))

    def add_observer(self, observer: Observer) -> None:
        """Call ``observer(zone_id, records)`` (under the lock) after every applied change batch."""
        with self._lock:
            self._observers.append(observer)

    def records(self, zone_id: str) -> list[Record]:
        """A copy of the zone's record sets, in listing order (a test helper, not an API call)."""
        with self._lock:
            return _copy(sorted(self._zone(zone_id, "ListResourceRecordSets").records.values(), key=_sort_key))

    def set_health(self, health_check_id: str, healthy: bool | float) -> None:
        """What the checkers report for this health check from now on (a test helper): True
        (all report success), False (all report failure), or the share of them reporting
        success (0.0..1.0; Route 53 calls a check healthy above 18 %)."""
        share = float(healthy)
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"healthy: {healthy!r} is out of range 0.0..1.0")
        with self._lock:
            if health_check_id not in self._health_checks:
                raise KeyError(health_check_id)
            self._health[health_check_id] = share

    def is_healthy(self, health_check_id: str, _seen: frozenset[str] = frozenset()) -> bool:
        """The check's status as Route 53 computes it (developer guide, "How Amazon Route 53
        determines whether a health check is healthy"): a ``Disabled`` check is healthy; otherwise
        an endpoint check is healthy when more than 18 % of its checkers report success, a
        ``CALCULATED`` one when at least ``HealthThreshold`` of its children are healthy (a
        threshold of 0: always healthy); ``Inverted`` turns the result around."""
        with self._lock:
            config = self._health_check(health_check_id, "GetHealthCheckStatus")["HealthCheckConfig"]
            if config.get("Disabled"):
                return True
            if config["Type"] == "CALCULATED":
                children = [c for c in config.get("ChildHealthChecks") or [] if c in self._health_checks and c not in _seen]
                up = sum(self.is_healthy(c, _seen | {health_check_id}) for c in children)
                healthy = up >= int(config.get("HealthThreshold", 0))
            else:
                healthy = self._health[health_check_id] > HEALTHY_CHECKER_SHARE
            return healthy != bool(config.get("Inverted"))

    # --- hosted zones -----------------------------------------------------------------------------
    def create_hosted_zone(self, **params: Any) -> dict[str, Any]:
        self._enter("CreateHostedZone", params)
        with self._lock:
            name = normalize_name(params["Name"])
            ref = params["CallerReference"]
            for zone in self._zones.values():
                if zone.caller_reference == ref:
                    raise self._error("HostedZoneAlreadyExists", f"A hosted zone has already been created with the specified caller reference {ref}", "CreateHostedZone", 409)
            zone_id = "Z" + uuid.uuid4().hex[:19].upper()
            config = params.get("HostedZoneConfig", {})
            # A zone created with a VPC is a private zone (API reference, CreateHostedZone: "To create
            # a private hosted zone, specify VPC"); moto 5.2.5 says PrivateZone false for it.
            private = params.get("VPC") is not None or bool(config.get("PrivateZone", False))
            zone = _Zone(zone_id, name, ref, config.get("Comment"), private)
            servers = [f"ns-{n}.awsdns-{n:02d}.{tld}." for n, tld in ((1, "com"), (2, "net"), (3, "org"), (4, "co.uk"))]
            zone.records[(name, "NS", None)] = {"Name": name, "Type": "NS", "TTL": 172800, "ResourceRecords": [{"Value": s} for s in servers]}
            zone.records[(name, "SOA", None)] = {
                "Name": name, "Type": "SOA", "TTL": 900,
                "ResourceRecords": [{"Value": f"{servers[0]} awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400"}],
            }
            self._zones[zone_id] = zone
            change = self._new_change(None)
            return self._ok({
                "HostedZone": zone.describe(),
                "ChangeInfo": change,
                "DelegationSet": {"NameServers": [s.rstrip(".") for s in servers]},
                "Location": f"https://route53.amazonaws.com/2013-04-01/hostedzone/{zone_id}",
            }, 201)

    def get_hosted_zone(self, **params: Any) -> dict[str, Any]:
        self._enter("GetHostedZone", params)
        with self._lock:
            zone = self._zone(params["Id"], "GetHostedZone")
            described = {**zone.describe(), "Features": self._features(zone.id)}
            return self._ok({"HostedZone": described, "DelegationSet": {"NameServers": self._name_servers(zone)}})

    def _name_servers(self, zone: _Zone) -> list[str]:
        ns = zone.records.get((zone.name, "NS", None), {"ResourceRecords": []})
        return [r["Value"].rstrip(".") for r in ns["ResourceRecords"]]

    def _sorted_zones(self) -> list[_Zone]:
        return sorted(self._zones.values(), key=lambda z: (_reversed_labels(z.name), z.id))

    def list_hosted_zones(self, **params: Any) -> dict[str, Any]:
        self._enter("ListHostedZones", params)
        with self._lock:
            zones = sorted(self._zones.values(), key=lambda z: z.id)
            marker = params.get("Marker")
            if marker is not None:
                zones = [z for z in zones if z.id >= marker]
            limit = _max_items(params.get("MaxItems"), 100)
            page, rest = zones[:limit], zones[limit:]
            # ListHostedZonesResponse requires Marker: "the value that you specified for the marker
            # parameter in the request that produced the current response" (empty on a first page).
            out: dict[str, Any] = {
                "HostedZones": [z.describe() for z in page], "Marker": marker or "", "IsTruncated": bool(rest), "MaxItems": str(limit),
            }
            if rest:
                out["NextMarker"] = rest[0].id
            return self._ok(out)

    def list_hosted_zones_by_name(self, **params: Any) -> dict[str, Any]:
        self._enter("ListHostedZonesByName", params)
        with self._lock:
            zones = self._sorted_zones()
            dns_name = params.get("DNSName")
            start_id = params.get("HostedZoneId")
            if start_id is not None and dns_name is None:
                raise self._error("InvalidInput", "The input is not valid: HostedZoneId requires DNSName", "ListHostedZonesByName")
            if dns_name is not None:
                start = (_reversed_labels(normalize_name(dns_name)), _bare_id(start_id or "", "/hostedzone/"))
                zones = [z for z in zones if (_reversed_labels(z.name), z.id) >= start]
            limit = _max_items(params.get("MaxItems"), 100)
            page, rest = zones[:limit], zones[limit:]
            out: dict[str, Any] = {"HostedZones": [z.describe() for z in page], "IsTruncated": bool(rest), "MaxItems": str(limit)}
            if dns_name is not None:
                out["DNSName"] = dns_name
            if rest:
                out["NextDNSName"] = rest[0].name
                out["NextHostedZoneId"] = rest[0].id
            return self._ok(out)

    # --- record sets ------------------------------------------------------------------------------
    def list_resource_record_sets(self, **params: Any) -> dict[str, Any]:
        op = "ListResourceRecordSets"
        self._enter(op, params)
        with self._lock:
            zone = self._zone(params["HostedZoneId"], op)
            if params.get("StartRecordType") and not params.get("StartRecordName"):
                raise self._error("InvalidInput", "The input is not valid: StartRecordType requires StartRecordName", op)
            if params.get("StartRecordIdentifier") and not params.get("StartRecordType"):
                raise self._error("InvalidInput", "The input is not valid: StartRecordIdentifier requires StartRecordType", op)
            records = sorted(zone.records.values(), key=_sort_key)
            if params.get("StartRecordName"):
                start = (
                    _reversed_labels(normalize_name(params["StartRecordName"])),
                    params.get("StartRecordType", ""),
                    params.get("StartRecordIdentifier", ""),
                )
                records = [r for r in records if _sort_key(r) >= start]
            limit = _max_items(params.get("MaxItems"), MAX_ITEMS)
            page, rest = records[:limit], records[limit:]
            # Route 53 lists a wildcard label as the octal escape \052 (developer guide, "DNS domain
            # name format": "*" is returned as \052 in ListResourceRecordSets).
            listed = [{**r, "Name": _escape_wildcard(r["Name"])} for r in _copy(page)]
            out: dict[str, Any] = {"ResourceRecordSets": listed, "IsTruncated": bool(rest), "MaxItems": str(limit)}
            if rest:
                out["NextRecordName"] = _escape_wildcard(rest[0]["Name"])
                out["NextRecordType"] = rest[0]["Type"]
                if rest[0].get("SetIdentifier") is not None:
                    out["NextRecordIdentifier"] = rest[0]["SetIdentifier"]
            return self._ok(out)

    def change_resource_record_sets(self, **params: Any) -> dict[str, Any]:
        op = "ChangeResourceRecordSets"
        self._enter(op, params)
        with self._lock:
            zone = self._zone(params["HostedZoneId"], op)
            batch = params["ChangeBatch"]
            if len(batch.get("Comment") or "") > MAX_COMMENT_CHARACTERS:
                self.batches_refused += 1
                raise self._error("InvalidInput", f"1 validation error detected: Value at 'changeBatch.comment' failed to satisfy constraint: Member must have length less than or equal to {MAX_COMMENT_CHARACTERS}", op)
            try:
                working = self._validate_batch(zone, batch["Changes"])
                self._check_guards(zone, batch["Changes"], working)  # protections, guardrails
            except botocore.exceptions.ClientError:
                self.batches_refused += 1
                raise
            zone.records = working
            self.batches_applied += 1
            change = self._new_change(batch.get("Comment"))
            self._record_history(zone, batch, change)
            snapshot = sorted(working.values(), key=_sort_key)
            for observer in self._observers:
                observer(zone.id, _copy(snapshot))
            return self._ok({"ChangeInfo": change})

    def _validate_batch(self, zone: _Zone, changes: list[dict[str, Any]]) -> dict[tuple[str, str, str | None], Record]:
        """The zone's records after ``changes``; ClientError (nothing applied) on any problem."""
        op = "ChangeResourceRecordSets"
        values = sum(len(c["ResourceRecordSet"].get("ResourceRecords") or [1]) * (2 if c["Action"] == "UPSERT" else 1) for c in changes)
        if values > MAX_RECORDS_PER_BATCH:
            raise self._error("InvalidChangeBatch", f"[Number of records limit of {MAX_RECORDS_PER_BATCH} exceeded.]", op)
        characters = sum(len(rr["Value"]) * (2 if c["Action"] == "UPSERT" else 1)
                         for c in changes for rr in c["ResourceRecordSet"].get("ResourceRecords") or [])
        if characters > MAX_CHARACTERS_PER_BATCH:
            raise self._error("InvalidChangeBatch", f"[Number of characters limit of {MAX_CHARACTERS_PER_BATCH} exceeded: {characters}.]", op)
        working = dict(zone.records)
        created: set[tuple[str, str, str | None]] = set()
        messages: list[str] = []
        for change in changes:
            action = change["Action"]
            raw = change["ResourceRecordSet"]
            problem = self._check_record_set(zone, action, raw)
            if problem is not None:
                code, message = problem
                if code != "InvalidChangeBatch":
                    raise self._error(code, message, op)
                messages.append(message)
                continue
            record = _canonical(raw)
            key = _key(record)
            live = working.get(key)
            if action == "CREATE":
                if live is not None:
                    messages.append(f"Tried to create resource record set {_describe(record)} but it already exists")
                    continue
                working[key] = record
                created.add(key)
            elif action == "DELETE":
                if live is None:
                    messages.append(f"Tried to delete resource record set {_describe(record)} but it was not found")
                    continue
                if not _same(live, record):
                    messages.append(f"Tried to delete resource record set {_describe(record)} but the values provided do not match the current values")
                    continue
                del working[key]
                created.discard(key)
            else:  # UPSERT
                working[key] = record
                created.add(key)
        touched = {(name, rtype) for name, rtype, _ in created}
        # The group rules look at one name only: index the touched names once (a batch of 1,000
        # names in a zone of 10,000 records would otherwise scan the zone 1,000 times).
        at_name: dict[str, dict[tuple[str, str, str | None], Record]] = {name: {} for name, _ in touched}
        for key, record in working.items():
            if key[0] in at_name:
                at_name[key[0]][key] = record
        for name, rtype in sorted(touched):
            messages.extend(self._conflicts(zone, at_name[name], created, name, rtype))
            messages.extend(self._policy_limits(at_name[name], name, rtype))
        for key in sorted(created, key=lambda k: (k[0], k[1], k[2] or "")):
            messages.extend(self._alias_problems(zone, working, working[key]))
        # A zone keeps its apex SOA and NS record sets (Route 53 refuses deleting them).
        if (zone.name, "SOA", None) not in working:
            messages.append("A HostedZone must contain exactly one SOA record.")
        if (zone.name, "NS", None) not in working:
            messages.append("A HostedZone must contain at least one NS record for the zone itself.")
        if len(working) > MAX_RECORDS_PER_ZONE and len(working) > len(zone.records):
            messages.append(f"The hosted zone {zone.name} would hold {len(working)} records: the limit is {MAX_RECORDS_PER_ZONE} records per hosted zone.")
        if messages:
            raise self._error("InvalidChangeBatch", "[" + ", ".join(messages) + "]", op)
        return working

    def _check_record_set(self, zone: _Zone, action: str, raw: Record) -> tuple[str, str] | None:
        """(error code, message) for a change that is invalid on its own, else None."""
        name = normalize_name(raw["Name"])
        where = f"Change with [Action={action}, Name={name}, Type={raw['Type']}, SetIdentifier={raw.get('SetIdentifier')}]"
        if action not in ("CREATE", "DELETE", "UPSERT"):
            return ("InvalidInput", f"Invalid request: Unknown action {action!r} in {where}")
        if not (name == zone.name or name.endswith("." + zone.name)):
            return ("InvalidChangeBatch", f"RRSet with DNS name {name} is not permitted in zone {zone.name}")
        has_alias = raw.get("AliasTarget") is not None
        has_values = raw.get("ResourceRecords") is not None and raw.get("TTL") is not None
        if has_alias == has_values or (has_alias and (raw.get("TTL") is not None or raw.get("ResourceRecords"))):
            return ("InvalidInput", f"Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found {'both' if has_alias else 'none'} in {where}")
        policy = _policy(raw)
        elements = routing_elements(raw)
        if raw.get("SetIdentifier") is not None and policy is None:
            # (the message as Route 53 wrote it before AZAffinity; whether it now lists AZAffinity is not measured)
            return ("InvalidInput", f"Invalid request: Expected exactly one of [Weight, Region, Failover, GeoLocation, MultiValueAnswer, GeoProximityLocation, or CidrRoutingConfig], but found none in {where}")
        # AZAffinity: "you can't specify another routing policy element, such as Weight, in the same
        # resource record set" (and Route 53 reads one routing element a set).
        if len(elements) > 1:
            return ("InvalidInput", f"Invalid request: Expected exactly one of [Weight, Region, Failover, GeoLocation, MultiValueAnswer, GeoProximityLocation, CidrRoutingConfig, or AZAffinity], but found {', '.join(elements)} in {where}")
        if policy == "AZAffinity":
            problem = _az_affinity_problem(raw["AZAffinity"])
            if problem:
                return ("InvalidInput", f"Invalid request: {problem} in {where}")
        if policy is not None and raw.get("SetIdentifier") is None:
            return ("InvalidInput", f"Invalid request: Missing field 'SetIdentifier' in {where}")
        if policy == "MultiValueAnswer" and has_alias:
            return ("InvalidInput", f"Invalid request: a multivalue answer record set cannot be an alias in {where}")
        hc = raw.get("HealthCheckId")
        if hc is not None and action != "DELETE" and hc not in self._health_checks:
            return ("NoSuchHealthCheck", f"A health check with id {hc} does not exist.")
        for rr in raw.get("ResourceRecords") or []:
            value = rr["Value"]
            if raw["Type"] == "A" and not _is_ipv4(value):
                return ("InvalidChangeBatch", f"Invalid Resource Record: 'FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with '{value}''")
            if raw["Type"] == "AAAA" and not _is_ipv6(value):
                return ("InvalidChangeBatch", f"Invalid Resource Record: 'FATAL problem: AAAARRDATAIllegalIPv6Address (Value is not a valid IPv6 address) encountered with '{value}''")
            if raw["Type"] in ("TXT", "SPF") and not (len(value) >= 2 and value.startswith('"') and value.endswith('"')):
                return ("InvalidChangeBatch", f"Invalid Resource Record: 'FATAL problem: InvalidCharacterString (Value should be enclosed in quotation marks) encountered with '{value}''")
        # ResourceRecord.Value: "You can specify more than one value for all record types except CNAME and SOA."
        if raw["Type"] in ("CNAME", "SOA") and len(raw.get("ResourceRecords") or []) > 1:
            return ("InvalidChangeBatch", f"RRSet of type {raw['Type']} with DNS name {name} has more than one value")
        return self._check_limits(zone, action, raw, name, where, policy)

    def _check_limits(self, zone: _Zone, action: str, raw: Record, name: str, where: str, policy: str | None) -> tuple[str, str] | None:
        """The API reference's field limits and per-set rules (botocore's validator checks types
        and minimums only)."""
        for field_name, limit in FIELD_LIMITS.items():
            value = raw.get(field_name)
            if value is None:
                continue
            too_big = len(value) > limit if isinstance(value, str) else value > limit
            if too_big:
                shown = f"length {len(value)}" if isinstance(value, str) else str(value)
                bound = "have length less than or equal to" if isinstance(value, str) else "have value less than or equal to"
                return ("InvalidInput", f"1 validation error detected: Value {shown} at '{field_name}' failed to satisfy constraint: Member must {bound} {limit}")
        for rr in raw.get("ResourceRecords") or []:
            if len(rr["Value"]) > MAX_VALUE_CHARACTERS:
                return ("InvalidInput", f"1 validation error detected: a value of {len(rr['Value'])} characters at 'ResourceRecords' failed to satisfy constraint: Member must have length less than or equal to {MAX_VALUE_CHARACTERS}")
        labels = name.rstrip(".").split(".")
        if any(len(label) > MAX_LABEL_CHARACTERS for label in labels):
            return ("InvalidChangeBatch", f"FATAL problem: DomainLabelTooLong (Domain label is too long) encountered with '{name}'")
        if len(name) > MAX_NAME_CHARACTERS:
            return ("InvalidChangeBatch", f"FATAL problem: DomainNameTooLong (Domain name is too long) encountered with '{name}'")
        # ResourceRecordSet.Name: "You can't use the * wildcard for resource records sets that have a type of NS."
        if labels[0] == "*" and raw["Type"] == "NS":
            return ("InvalidChangeBatch", f"RRSet of type NS with DNS name {_escape_wildcard(name)} is not permitted: NS records cannot be wildcards")
        # Weight / Region / Failover / GeoLocation: "You can only specify one ResourceRecord per
        # weighted (latency, ...) resource record set": one set answers with one value.
        if policy in ("Weight", "Region", "Failover", "GeoLocation") and len(raw.get("ResourceRecords") or []) > 1:
            return ("InvalidChangeBatch", f"RRSet with DNS name {name}, type {raw['Type']}, SetIdentifier \"{raw.get('SetIdentifier')}\": "
                                          f"a {POLICY_NAMES[policy]} record set can have only one ResourceRecord")
        # Developer guide, multivalue answer records: any record type except NS and CNAME.
        if policy == "MultiValueAnswer" and raw["Type"] in ("CNAME", "NS"):
            return ("InvalidChangeBatch", f"RRSet with DNS name {name}, type {raw['Type']}: multivalue answer routing is not supported for {raw['Type']} records")
        region = raw.get("Region")
        if region is not None and region not in self._regions():
            return ("InvalidInput", f"Invalid request: {region!r} is not a valid latency region (ResourceRecordSetRegion) in {where}")
        return None

    def _regions(self) -> list[str]:
        return self._model.shape_for("ResourceRecordSetRegion").enum

    @staticmethod
    def _policy_limits(working: dict[Any, Record], name: str, rtype: str) -> list[str]:
        """The API reference's rules on a group of sets of one name and type, after the batch."""
        same = [r for k, r in working.items() if k[0] == name and k[1] == rtype]
        out: list[str] = []
        weighted = [r for r in same if r.get("Weight") is not None]
        # ResourceRecordSet.Weight: "You can create a maximum of 100 weighted resource record sets
        # that have the same values for the Name and Type elements."
        if len(weighted) > MAX_WEIGHTED_SETS:
            out.append(f"RRSet with DNS name {name}, type {rtype}: {len(weighted)} weighted record sets, at most {MAX_WEIGHTED_SETS} are allowed.")
        # ResourceRecordSet.TTL: "All of the resource record sets in a group of weighted resource
        # record sets must have the same value for TTL."
        ttls = sorted({r["TTL"] for r in weighted if r.get("TTL") is not None})
        if len(ttls) > 1:
            out.append(f"RRSet with DNS name {name}, type {rtype}: weighted record sets must have the same TTL (found {', '.join(map(str, ttls))}).")
        # ResourceRecordSet.Failover: one PRIMARY and one SECONDARY set.
        for role in ("PRIMARY", "SECONDARY"):
            if sum(r.get("Failover") == role for r in same) > 1:
                out.append(f"RRSet with DNS name {name}, type {rtype}: more than one failover record set with Failover {role}.")
        # ResourceRecordSet.Region: "You can only create one latency resource record set for each Amazon EC2 Region."
        regions = [r["Region"] for r in same if r.get("Region") is not None]
        for region in sorted({g for g in regions if regions.count(g) > 1}):
            out.append(f"RRSet with DNS name {name}, type {rtype}: more than one latency record set for region {region}.")
        return out

    def _alias_problems(self, zone: _Zone, working: dict[Any, Record], record: Record) -> list[str]:
        alias = record.get("AliasTarget")
        if alias is None:
            return []
        # AliasTarget.HostedZoneId: "Alias resource record sets for CloudFront can't be created in a private zone."
        if alias["HostedZoneId"] == CLOUDFRONT_ZONE_ID and zone.private:
            return [f"RRSet with DNS name {record['Name']}, type {record['Type']}: an alias to a CloudFront distribution cannot be created in a private hosted zone."]
        # An alias to a record of the same zone needs that record (name and type) to exist.
        if _bare_id(alias["HostedZoneId"], "/hostedzone/") == zone.id:
            target = alias["DNSName"]
            if not any(k[0] == target and k[1] == record["Type"] for k in working):
                return [f"Tried to create an alias that targets {target}, type {record['Type']} in zone {zone.id}, but the alias target name does not lie within the target zone or does not exist."]
        return []

    def _conflicts(self, zone: _Zone, working: dict[Any, Record], created: set[Any], name: str, rtype: str) -> list[str]:
        """Routing-policy and CNAME conflicts of ``name``/``rtype`` after the batch."""
        same = [r for k, r in working.items() if k[0] == name and k[1] == rtype]
        others = [r for k, r in working.items() if k[0] == name and k[1] != rtype]
        if rtype == "CNAME" and others:
            return [f"RRSet of type CNAME with DNS name {name} is not permitted as it conflicts with other records with the same DNS name in zone {zone.name}"]
        if rtype != "CNAME" and any(r["Type"] == "CNAME" for r in others):
            return [f"RRSet of type {rtype} with DNS name {name} is not permitted because a conflicting RRSet of type CNAME with the same DNS name already exists in zone {zone.name}"]
        if len(same) < 2:
            return []
        policies = [_policy(r) for r in same]
        if None not in policies and len(set(policies)) == 1:
            return []
        existing = [r for r in same if _key(r) not in created]
        fresh = sorted((r for r in same if _key(r) in created), key=_sort_key)
        reference = {_policy(r) for r in existing} if existing else {_policy(fresh[0])}
        offenders = [r for r in fresh if _policy(r) is None or None in reference or _policy(r) not in reference]
        out: list[str] = []
        for record in offenders or fresh:
            policy = _policy(record)
            sid = record.get("SetIdentifier")
            if policy is None:
                out.append(f"RRSet with DNS name {name}, type {rtype} cannot be created as other RRSets exist with the same name and type.")
            elif policy == "MultiValueAnswer":
                out.append(f'RRSet with DNS name {name}, type {rtype}, SetIdentifier "{sid}" cannot be created because a non multivalue answer rrset exists with the same name and type.')
            elif policy == "Weight":
                out.append(f'RRSet with DNS name {name}, type {rtype}, SetIdentifier "{sid}" cannot be created as a non-weighted set exists with the same name and type.')
            else:
                out.append(f'RRSet with DNS name {name}, type {rtype}, SetIdentifier "{sid}" cannot be created because a non {POLICY_NAMES[policy]} rrset exists with the same name and type.')
        return out

    # --- changes ----------------------------------------------------------------------------------
    def _new_change(self, comment: str | None) -> dict[str, Any]:
        change_id = "C" + uuid.uuid4().hex[:20].upper()
        info = {"Id": f"/change/{change_id}", "Status": "PENDING", "SubmittedAt": _now()}
        if comment is not None:
            info["Comment"] = comment
        self._changes[change_id] = {"info": info, "polls": 0, "submitted": self._clock()}
        return dict(info)

    def test_dns_answer(self, **params: Any) -> dict[str, Any]:
        """Route 53's TestDNSAnswer: one draw of what the authoritative servers would answer,
        from the answer model (``edge_origin.testing.route53_answer``)."""
        from edge_origin.testing.route53_answer import test_dns_answer

        self._enter("TestDNSAnswer", params)
        with self._lock:
            return self._ok(test_dns_answer(self, params, self._answer_rng))

    def answer_from(self, vantage: Vantage, **params: Any) -> dict[str, Any]:
        """What a resolver at ``vantage`` receives for ``HostedZoneId``/``RecordName``/``RecordType``,
        in TestDNSAnswer's response shape. A test helper, not a Route 53 operation: TestDNSAnswer
        takes a resolver IP or an EDNS0 client subnet, never an AZ, and "only supports querying
        public hosted zones" (API reference), so an AZ-affinity answer for a resolver in a VPC
        (``Vantage("vpc", vpc_id=..., region=..., az="use1-az1")``: "A query matches a location when
        Route 53 VPC Resolver reports that the query came from an Availability Zone (AZ) in that
        location") can only be asked here. A public vantage answers as ``test_dns_answer``."""
        from edge_origin.testing.route53_answer import resolver_answer

        if not isinstance(vantage, Vantage):
            raise TypeError(f"vantage: expected an edge_origin.answers.Vantage, got {type(vantage).__name__}")
        unknown = sorted(set(params) - {"HostedZoneId", "RecordName", "RecordType"})
        if unknown:
            raise TypeError(f"answer_from: unexpected parameter(s) {', '.join(unknown)} (HostedZoneId, RecordName, RecordType)")
        # TestDNSAnswer's own parameter checks, not counted as a call of the API
        botocore.validate.validate_parameters(params, self._model.operation_model("TestDNSAnswer").input_shape)
        with self._lock:
            return self._ok(resolver_answer(self, params, vantage, self._answer_rng))

    def get_change(self, **params: Any) -> dict[str, Any]:
        self._enter("GetChange", params)
        with self._lock:
            change_id = _bare_id(params["Id"], "/change/")
            entry = self._changes.get(change_id)
            if entry is None:
                raise self._error("NoSuchChange", f"A change with the specified change ID {change_id} does not exist.", "GetChange", 404)
            entry["polls"] += 1
            by_polls = entry["polls"] > self.insync_after_polls
            by_time = self.insync_after_s is not None and self._clock() - entry["submitted"] >= self.insync_after_s
            if by_polls or by_time:
                entry["info"]["Status"] = "INSYNC"
            return self._ok({"ChangeInfo": dict(entry["info"])})

    # --- health checks ----------------------------------------------------------------------------
    def create_health_check(self, **params: Any) -> dict[str, Any]:
        op = "CreateHealthCheck"
        self._enter(op, params)
        with self._lock:
            config = self._health_check_config(params["HealthCheckConfig"], op)
            ref = params["CallerReference"]
            # API reference, CreateHealthCheck CallerReference: "If you send a CreateHealthCheck request
            # with the same CallerReference as a deleted health check, regardless of the settings,
            # Route 53 returns a HealthCheckAlreadyExists error."
            if ref in self._deleted_references:
                raise self._error("HealthCheckAlreadyExists", f"A health check with caller reference {ref} was deleted; a new CallerReference is needed.", op, 409)
            for hc in self._health_checks.values():
                if hc["CallerReference"] == ref:
                    if hc["HealthCheckConfig"] == config:
                        return self._ok({"HealthCheck": _copy(hc), "Location": self._hc_location(hc["Id"])}, 201)
                    raise self._error(
                        "HealthCheckAlreadyExists",
                        f"A health check with caller reference {ref} already exists with different settings.",
                        op, 409,
                    )
            if len(self._health_checks) >= self.max_health_checks:
                raise self._error("TooManyHealthChecks", f"This account has reached the limit of {self.max_health_checks} health checks.", op)
            hc_id = str(uuid.uuid4())
            hc = {"Id": hc_id, "CallerReference": ref, "HealthCheckConfig": config, "HealthCheckVersion": 1}
            self._health_checks[hc_id] = hc
            self._health[hc_id] = 1.0 if self.new_health_checks_healthy else 0.0
            return self._ok({"HealthCheck": _copy(hc), "Location": self._hc_location(hc_id)}, 201)

    @staticmethod
    def _hc_location(hc_id: str) -> str:
        return f"https://route53.amazonaws.com/2013-04-01/healthcheck/{hc_id}"

    def _health_check_config(self, raw: dict[str, Any], op: str) -> dict[str, Any]:
        config = {**HEALTH_CHECK_DEFAULTS, **copy.deepcopy(raw)}
        kind = config["Type"]
        if kind in ("HTTP", "HTTPS", "HTTP_STR_MATCH", "HTTPS_STR_MATCH", "TCP"):
            if config.get("IPAddress") is None and config.get("FullyQualifiedDomainName") is None:
                raise self._error("InvalidInput", "Invalid parameter: IPAddress or FullyQualifiedDomainName is required", op)
            if config.get("IPAddress") is not None and not (_is_ipv4(config["IPAddress"]) or _is_ipv6(config["IPAddress"])):
                raise self._error("InvalidInput", f"Invalid parameter: IPAddress {config['IPAddress']!r} is not a valid IP address", op)
            # API reference, HealthCheckConfig.IPAddress: "Route 53 can't check the health of endpoints
            # for which the IP address is in local, private, non-routable, or multicast ranges".
            if config.get("IPAddress") is not None and (why := uncheckable_reason(config["IPAddress"])) is not None:
                raise self._error("InvalidInput", f"Invalid parameter: IPAddress {config['IPAddress']} is {why}: Route 53 can't check the health of local, private, non-routable or multicast addresses", op)
            if kind == "TCP" and config.get("Port") is None:
                raise self._error("InvalidInput", "Invalid parameter: Port is required for TCP health checks", op)
            config.setdefault("Port", 443 if kind.startswith("HTTPS") else 80)
            if not 1 <= int(config["Port"]) <= 65535:
                raise self._error("InvalidInput", f"Invalid parameter: Port {config['Port']} must be between 1 and 65535", op)
        if kind in ("CALCULATED", "CLOUDWATCH_METRIC"):
            # HealthCheckConfig.Port / IPAddress: "Don't specify a value ... when you specify a value
            # for Type of CLOUDWATCH_METRIC or CALCULATED" / "omit IPAddress".
            for member in ("Port", "IPAddress", "FullyQualifiedDomainName", "ResourcePath"):
                if raw.get(member) is not None:
                    raise self._error("InvalidInput", f"Invalid parameter: {member} must not be specified for a {kind} health check", op)
        if kind == "CALCULATED":
            children = config.get("ChildHealthChecks") or []
            missing = [c for c in children if c not in self._health_checks]
            if missing:
                raise self._error("NoSuchHealthCheck", f"A health check with id {missing[0]} does not exist.", op, 404)
            if not 0 <= int(config.get("HealthThreshold", 0)) <= 256:
                raise self._error("InvalidInput", f"Invalid parameter: HealthThreshold {config['HealthThreshold']} must be between 0 and 256", op)
        if config["RequestInterval"] not in (10, 30):
            raise self._error("InvalidInput", f"Invalid parameter: RequestInterval {config['RequestInterval']} must be 10 or 30", op)
        if not 1 <= config["FailureThreshold"] <= 10:
            raise self._error("InvalidInput", f"Invalid parameter: FailureThreshold {config['FailureThreshold']} must be between 1 and 10", op)
        if kind.startswith("HTTPS"):
            config.setdefault("EnableSNI", True)
        return config

    def _health_check(self, hc_id: str, op: str) -> dict[str, Any]:
        hc = self._health_checks.get(hc_id)
        if hc is None:
            raise self._error("NoSuchHealthCheck", f"A health check with id {hc_id} does not exist.", op, 404)
        return hc

    def get_health_check(self, **params: Any) -> dict[str, Any]:
        self._enter("GetHealthCheck", params)
        with self._lock:
            return self._ok({"HealthCheck": _copy(self._health_check(params["HealthCheckId"], "GetHealthCheck"))})

    def get_health_check_status(self, **params: Any) -> dict[str, Any]:
        """One observation a checker region; the share set by ``set_health`` reports success (the
        first ``round(share * 8)`` regions). Disabled, inverted and calculated checks report what
        Route 53 computes (``is_healthy``) from every checker."""
        self._enter("GetHealthCheckStatus", params)
        with self._lock:
            hc = self._health_check(params["HealthCheckId"], "GetHealthCheckStatus")
            config = hc["HealthCheckConfig"]
            kind = config["Type"]
            plain = not (config.get("Disabled") or config.get("Inverted") or kind == "CALCULATED")
            succeeding = round(self._health[hc["Id"]] * len(CHECKER_REGIONS)) if plain else (
                len(CHECKER_REGIONS) if self.is_healthy(hc["Id"]) else 0)
            ok = "Success: TCP connection established" if kind == "TCP" else "Success: HTTP Status Code 200, OK"
            failed = "Failure: Connection timed out. The endpoint or the internet connection is down, or requests are being blocked by your firewall."
            observations = [
                {"Region": region, "IPAddress": f"15.177.{n}.{10 + n}",
                 "StatusReport": {"Status": ok if n < succeeding else failed, "CheckedTime": _now()}}
                for n, region in enumerate(CHECKER_REGIONS)
            ]
            return self._ok({"HealthCheckObservations": observations})

    def list_health_checks(self, **params: Any) -> dict[str, Any]:
        self._enter("ListHealthChecks", params)
        with self._lock:
            checks = sorted(self._health_checks.values(), key=lambda hc: hc["Id"])
            marker = params.get("Marker")
            if marker is not None:
                checks = [hc for hc in checks if hc["Id"] >= marker]
            limit = _max_items(params.get("MaxItems"), 100, 1000)
            page, rest = checks[:limit], checks[limit:]
            out: dict[str, Any] = {
                "HealthChecks": _copy(page), "Marker": marker or "", "IsTruncated": bool(rest), "MaxItems": str(limit),
            }
            if rest:
                out["NextMarker"] = rest[0]["Id"]
            return self._ok(out)

    def delete_health_check(self, **params: Any) -> dict[str, Any]:
        op = "DeleteHealthCheck"
        self._enter(op, params)
        with self._lock:
            hc_id = params["HealthCheckId"]
            self._health_check(hc_id, op)
            # API reference, DeleteHealthCheck: "Amazon Route 53 does not prevent you from deleting a
            # health check even if the health check is associated with one or more resource record
            # sets"; the model's HealthCheckInUse: "This error code is not in use."
            self._deleted_references.add(self._health_checks[hc_id]["CallerReference"])
            del self._health_checks[hc_id]
            del self._health[hc_id]
            self._tag_store().pop(("healthcheck", hc_id), None)
            return self._ok({})

    # --- tags (ChangeTagsForResource, ListTagsForResource(s)) ---------------------------------------
    # API reference, ChangeTagsForResource: ResourceType "healthcheck" or "hostedzone"; "AddTags: A
    # complex type that contains a list of the tags that you want to add ... You can add a maximum of
    # 10 tags"; a tag's Key "Name" is special (the console's name). ListTagsForResources: "ResourceIds:
    # A complex type that contains the ResourceId element for each resource" (at most 10).
    def _tag_store(self) -> dict[tuple[str, str], dict[str, str]]:
        return self.__dict__.setdefault("_tags", {})

    def _tagged(self, resource_type: str, resource_id: str, op: str) -> dict[str, str]:
        if resource_type == "healthcheck":
            self._health_check(resource_id, op)
        else:
            self._zone(resource_id, op)
        return self._tag_store().setdefault((resource_type, _bare_id(resource_id, "/hostedzone/")), {})

    def change_tags_for_resource(self, **params: Any) -> dict[str, Any]:
        op = "ChangeTagsForResource"
        self._enter(op, params)
        with self._lock:
            tags = self._tagged(params["ResourceType"], params["ResourceId"], op)
            updated = dict(tags)
            for key in params.get("RemoveTagKeys") or []:
                updated.pop(key, None)
            for tag in params.get("AddTags") or []:
                updated[tag["Key"]] = tag.get("Value", "")
            if len(updated) > 50:
                raise self._error("InvalidInput", "Invalid parameter: a resource can have at most 50 tags", op)
            tags.clear()
            tags.update(updated)
            return self._ok({})

    def list_tags_for_resource(self, **params: Any) -> dict[str, Any]:
        op = "ListTagsForResource"
        self._enter(op, params)
        with self._lock:
            tags = self._tagged(params["ResourceType"], params["ResourceId"], op)
            return self._ok({"ResourceTagSet": {"ResourceType": params["ResourceType"], "ResourceId": params["ResourceId"],
                                                "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}})

    def list_tags_for_resources(self, **params: Any) -> dict[str, Any]:
        op = "ListTagsForResources"
        self._enter(op, params)
        with self._lock:
            sets = []
            for resource_id in params["ResourceIds"]:
                tags = self._tagged(params["ResourceType"], resource_id, op)
                sets.append({"ResourceType": params["ResourceType"], "ResourceId": resource_id,
                             "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]})
            return self._ok({"ResourceTagSets": sets})


def _camel(operation_name: str) -> str:
    return "".join(part.capitalize() for part in operation_name.split("_"))


def _max_items(value: Any, default: int, cap: int | None = None) -> int:
    if value is None:
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = default
    return max(1, min(number, cap or default))


def _escape_wildcard(name: str) -> str:
    """A name as ListResourceRecordSets spells it: a leading ``*`` label as ``\\052``."""
    return "\\052" + name[1:] if name.startswith("*.") or name == "*." else name


def _is_ipv4(value: str) -> bool:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def _is_ipv6(value: str) -> bool:
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True

