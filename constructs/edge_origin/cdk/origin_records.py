"""MultivalueOriginRecords: one health-checked multivalue A record per origin address."""

from __future__ import annotations

import contextlib
import ipaddress
import re
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_route53 as route53
from constructs import Construct

from edge_origin.cdk.quotas import AccountQuotas, QuotaLedger, account_quotas_from
from edge_origin.core.dns_names import canonical_name
from edge_origin.core.errors import (
    ConstructLabel,
    EdgeOriginPropError,
    PropCheck,
    check_props,
    each,
    implements,
    is_token,
    require_bool,
    require_construct,
    require_int_range,
    require_one_of,
    require_path,
    require_port,
    require_seconds_range,
    require_str,
    require_tags,
    seconds_of,
    suggest_props,
)
from edge_origin.core.facts import value
from edge_origin.model import GRPC_ORIGIN_METADATA_KEY

REQUEST_INTERVALS = (10, 30)
"""Route 53 health checks run every 10 s (fast) or 30 s (standard); nothing else."""
FAILURE_THRESHOLD_RANGE = (1, 10)
TTL_RANGE = (0, 2147483647)
"""Route 53 accepts TTLs of 0..2147483647 s."""
TTL_WARNING_ABOVE: int = value("route53.ttl.health_checked")
"""Every record here has a health check: the Route 53 API recommends "a TTL of 60 seconds or less"."""
MAX_ANSWERS: int = value("route53.multivalue.max_answers")
"""Route 53 answers a multivalue query with up to 8 healthy records; with more, different resolvers get
different combinations (no warning: every record is answered)."""
HEALTH_CHECK_TYPES = ("TCP", "HTTPS", "HTTP")
SET_IDENTIFIER_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,128}")
HEALTH_PATH_MAX = 255
"""Route 53 ``ResourcePath``: at most 255 characters."""


@dataclass(frozen=True)
class OriginAddress:
    """One value for the origin name: an IPv4 address (often an EIP's ``Ref`` token) and its
    stable set identifier (1..128 of ``A-Z a-z 0-9 . _ : -``). Checked when made."""

    ip_address: str
    set_identifier: str
    health_check_ip: str | None = None
    """Address Route 53 health-checks. Default: ``ip_address``."""

    def __post_init__(self) -> None:
        _require_ipv4("OriginAddress", "ip_address", self.ip_address)
        if self.health_check_ip is not None:
            _require_ipv4("OriginAddress", "health_check_ip", self.health_check_ip)
        if not isinstance(self.set_identifier, str) or not SET_IDENTIFIER_PATTERN.fullmatch(self.set_identifier):
            raise EdgeOriginPropError("OriginAddress", "set_identifier", self.set_identifier, "1..128 of A-Z a-z 0-9 . _ : -")


def _require_ipv4(where: str, prop: str, value: object) -> None:
    if not isinstance(value, str):
        raise EdgeOriginPropError(where, prop, value, "an IPv4 address string or an EIP's Ref token")
    if is_token(value):
        return
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        raise EdgeOriginPropError(where, prop, value, "an IPv4 address like 192.0.2.10 (or an EIP's Ref token)") from None


@dataclass(frozen=True)
class OriginRecord:
    """What was made for one address."""

    address: OriginAddress
    record: route53.ARecord
    health_check: route53.IHealthCheck


@suggest_props
class MultivalueOriginRecords(Construct):
    """Multivalue-answer A records for one origin name, one record and one health check per address.

    Route 53 answers each query with up to 8 healthy records in random order, so every resolver
    (every CloudFront edge host) gets the whole fleet and spreads new connections over it. A
    weighted record set answers with one address, and a synchronized burst of long-lived
    connections then lands on one NLB (the 79.8 % error broadcast start).

    Set identifiers are given explicitly: CDK's default comes from the construct path, so moving
    code would replace live records. Logical ids come from the set identifiers
    (``Record<SetId>``, ``Check<SetId>``). Each health check it makes is tagged ``Name:
    <record name> <set identifier>`` (that is the name the Route 53 console shows) plus ``tags``.
    Two constructs of one app that write the same name and set identifier into one zone fail here.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        zone: route53.IHostedZone,
        record_name: str,
        addresses: Sequence[OriginAddress],
        health_check_type: str = "TCP",
        health_check_port: int = 443,
        health_check_path: str = "/",
        health_check_fqdn: str | None = None,
        request_interval: cdk.Duration | int = cdk.Duration.seconds(10),
        failure_threshold: int = 3,
        ttl: cdk.Duration | int = cdk.Duration.seconds(60),
        health_checks: Sequence[route53.IHealthCheck] | None = None,
        grpc_origin: bool = False,
        tags: Mapping[str, str] | None = None,
        account_quotas: AccountQuotas | Mapping[str, int] | None = None,
        protect: bool = False,
    ) -> None:
        """
        :param zone: the hosted zone the records go in (a ``route53.IHostedZone``).
        :param record_name: the origin name, inside ``zone`` (``origin.example.com`` in
            ``example.com``). Required, not empty.
        :param addresses: ``OriginAddress`` entries, one per record (1..; a warning above 8: Route 53
            answers with 8). IPs and set identifiers must be unique.
        :param health_check_type: ``TCP`` (default), ``HTTPS`` or ``HTTP``.
        :param health_check_port: port the health checkers connect to on each address. Default 443.
        :param health_check_path: path for HTTP(S) checks (starts with ``/``, <= 255). Default ``/``.
        :param health_check_fqdn: host name sent in HTTPS checks (SNI and Host). Default: none.
        :param request_interval: 10 s (default) or 30 s.
        :param failure_threshold: consecutive failures before unhealthy (1..10). Default 3.
        :param ttl: record TTL (0..2147483647 s; a warning above 60 s, AWS's advice for health-checked records). Default 60 s.
        :param health_checks: use these health checks (one per address) instead of making them,
            e.g. CloudWatch-alarm checks for private addresses. Default: TCP/HTTP(S) checks made here.
        :param grpc_origin: mark each record as a gRPC origin (Metadata ``edge-origin:grpc-origin``)
            so the rules and ``edge-origin report`` treat the name as one without a CloudFront
            distribution in the app (``InternalGrpcOrigin`` sets it). Default False.
        :param tags: tags of the health checks made here (each keeps its own Name). Default: none.
        :param account_quotas: the account's real quotas (``AccountQuotas``); the health checks made
            here count against Route 53's 200 per account. Default: AWS defaults or context.
        :param protect: protect the name's A records with Route 53 record set protections after deploy.
            CloudFormation has no resource for them (aws-cdk-lib 2.275 has no L1), so the construct
            writes the command as a stack output (``...ProtectCommand``) and ``protect_command``, and
            warns at synth until it runs. ``edge-origin enact`` then refuses to touch the name unless
            ``--unprotect``. Default False.
        """
        props = {k: v for k, v in locals().items() if k not in ("self", "scope", "construct_id", "__class__")}
        super().__init__(scope, construct_id)
        where = ConstructLabel("MultivalueOriginRecords", self)
        checked = check_props(where, RECORDS_PROP_CHECKS, props)  # every prop, in order, before anything is made
        interval, ttl_seconds, user_tags = checked["request_interval"], checked["ttl"], checked["tags"]
        quotas = checked["account_quotas"]
        self.record_name = normalize_record_name(where, record_name, zone)

        ledger = self._claim_names(where, zone, addresses, ttl_seconds)
        self.ttl_seconds = ttl_seconds
        self.records: list[OriginRecord] = []
        interval_duration = cdk.Duration.seconds(interval)
        ttl_duration = cdk.Duration.seconds(ttl_seconds)
        tag_items = [(k, v) for k, v in user_tags.items() if k != "Name"]
        for i, address in enumerate(addresses):
            label = _label(address.set_identifier)
            check = health_checks[i] if health_checks is not None else self._health_check(
                label, address, health_check_type, health_check_port, health_check_path, health_check_fqdn,
                interval_duration, failure_threshold, tag_items,
            )
            self.records.append(OriginRecord(address, self._record(label, address, zone, check, ttl_duration, grpc_origin), check))
        if health_checks is None:
            ledger.track(self, where, {"health_checks": len(addresses)}, declared=quotas)
        #: The post-deploy command that protects the records (``protect=True``), else None.
        self.protect_command: str | None = self._protect(zone) if protect else None

    def _health_check(self, label: str, address: OriginAddress, kind: str, port: int, path: str,
                      fqdn: str | None, interval: cdk.Duration, failure_threshold: int,
                      tag_items: list[tuple[str, str]]) -> route53.HealthCheck:
        """The Route 53 health check of one address (a path and a host name only for HTTP(S), SNI for HTTPS)."""
        check = route53.HealthCheck(
            self,
            f"Check{label}",
            type=route53.HealthCheckType(kind),
            ip_address=address.health_check_ip or address.ip_address,
            port=port,
            resource_path=path if kind != "TCP" else None,
            fqdn=fqdn if kind != "TCP" else None,
            enable_sni=True if kind == "HTTPS" else None,
            request_interval=interval,
            failure_threshold=failure_threshold,
        )
        tag_health_check(check, [("Name", f"{self.record_name} {address.set_identifier}"), *tag_items])
        return check

    def _record(self, label: str, address: OriginAddress, zone: route53.IHostedZone, check: route53.IHealthCheck,
                ttl: cdk.Duration, grpc_origin: bool) -> route53.ARecord:
        """One multivalue A record of one address, with its health check (and the gRPC-origin Metadata)."""
        record = route53.ARecord(
            self,
            f"Record{label}",
            zone=zone,
            record_name=self.record_name + ".",
            target=route53.RecordTarget.from_ip_addresses(address.ip_address),
            multi_value_answer=True,
            set_identifier=address.set_identifier,
            health_check=check,
            ttl=ttl,
        )
        if grpc_origin:
            record.node.default_child.add_metadata(GRPC_ORIGIN_METADATA_KEY, True)
        return record

    def _claim_names(self, where: ConstructLabel, zone: route53.IHostedZone, addresses: Sequence[OriginAddress],
                     ttl_seconds: int) -> QuotaLedger:
        """Claim each set identifier and the name in the stack's ledger (a second writer of the name
        is a warning), and warn of a TTL above the API's advice for health-checked records."""
        ledger = QuotaLedger.of(self)
        zone_key = zone.hosted_zone_id
        owner = where
        for address in addresses:
            ledger.claim_set_identifier(where, zone_key, self.record_name, address.set_identifier, owner)
        other = ledger.claim_record_name(zone_key, self.record_name, owner)
        if other is not None:
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:shared-origin-name",
                f"{other} also writes multivalue records for {self.record_name} in this zone: both sets answer "
                "together (fine for one name served from several regions; otherwise one of them has the wrong name).",
            )
        if ttl_seconds > TTL_WARNING_ABOVE:
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:long-ttl",
                f"TTL {ttl_seconds}s on {self.record_name}: resolvers keep a failed address that long after its health "
                f"check fails; the Route 53 API recommends {TTL_WARNING_ABOVE} s or less on health-checked records "
                "(ResourceRecordSet.TTL). Set ttl= (record_ttl= on the patterns).",
            )
        return ledger

    def _protect(self, zone: route53.IHostedZone) -> str:
        """``protect=True``: the post-deploy command as an output, and a warning that CloudFormation cannot do it."""
        command = protect_command(zone.hosted_zone_id, self.record_name)
        cdk.CfnOutput(self, "ProtectCommand", value=command,
                      description=f"Run after deploy: Route 53 record set protections for {self.record_name} A")
        cdk.Annotations.of(self).add_warning_v2(
            "edge-origin:protect-after-deploy",
            f"protect=True: CloudFormation cannot create Route 53 record set protections; after deploy run the "
            f"stack output ProtectCommand ({command.split(' --hosted-zone-id')[0]} ...). While a protection "
            "exists Route 53 rejects every change to the name and type (InvalidChangeBatch), CloudFormation's too.",
        )
        return command


def protect_command(zone_id: str, record_name: str) -> str:
    """``aws route53 create-resource-record-set-protections`` for the name's A records (API reference:
    "While a protection exists, Route 53 rejects any ChangeResourceRecordSets request that creates,
    updates, or deletes a resource record set with that name and type")."""
    name = record_name.rstrip(".") + "."
    return (f"aws route53 create-resource-record-set-protections --hosted-zone-id {zone_id} "
            f"--protections RecordName={name},RecordType=A")


def tag_health_check(check: route53.IHealthCheck, tags: Sequence[tuple[str, str]]) -> None:
    """``HealthCheckTags`` on a health check made in this app (``Tags.of`` does not reach them)."""
    resource = check.node.default_child
    if isinstance(resource, cdk.CfnResource):
        resource.add_property_override("HealthCheckTags", [{"Key": k, "Value": v} for k, v in tags])


_ZONE_NAMES: weakref.WeakKeyDictionary[Any, str | None] = weakref.WeakKeyDictionary()


def zone_name_of(zone: route53.IHostedZone) -> str | None:
    """The zone's name, or None when it cannot be read (``PrivateHostedZone.from_private_hosted_zone_id``).
    Read from jsii once per zone object."""
    try:
        return _ZONE_NAMES[zone]
    except (KeyError, TypeError):
        pass
    try:
        name = zone.zone_name
    except Exception:  # noqa: BLE001 - jsii: CannotReferenceZoneNamePrivate
        name = None
    with contextlib.suppress(TypeError):  # not weak-referenceable: read it each time
        _ZONE_NAMES[zone] = name
    return name


def zone_privacy(zone: route53.IHostedZone) -> str | None:
    """``"private"`` or ``"public"`` when the construct tells, else None (``HostedZone.from_*``)."""
    if implements(zone, route53.IPrivateHostedZone):
        return "private"
    if implements(zone, route53.IPublicHostedZone):
        return "public"
    return None


def normalize_record_name(where: str, name: str, zone: route53.IHostedZone, prop: str = "record_name") -> str:
    """``name`` lower case without the trailing dot, or an error unless it is a DNS name inside ``zone``."""
    if not isinstance(name, str) or not name.strip(" ."):
        raise EdgeOriginPropError(where, prop, name, "a non-empty DNS name inside the zone")
    normalized = canonical_name(name)
    if len(normalized) > 253 or not all(re.fullmatch(r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?", p) for p in normalized.split(".")):
        raise EdgeOriginPropError(where, prop, name, "a DNS name of labels a-z 0-9 - (<= 63 each)")
    zone_name = zone_name_of(zone)
    if zone_name is None:
        raise EdgeOriginPropError(
            where, "zone", "a zone imported by id only",
            "a zone whose name is known (HostedZone.from_hosted_zone_attributes(..., zone_name=...))",
        )
    if not is_token(zone_name):
        zone_norm = canonical_name(zone_name)
        if normalized != zone_norm and not normalized.endswith("." + zone_norm):
            raise EdgeOriginPropError(where, prop, name, f"a name inside the zone {zone_norm}")
    return normalized


def _label(set_identifier: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", set_identifier) if p)


# --- the props, validation as data ----------------------------------------------------------------
def _addresses(where: ConstructLabel, prop: str, props: Mapping[str, Any]) -> Sequence[OriginAddress]:
    """A non-empty list of ``OriginAddress``, each set identifier and each IP once."""
    addresses = props[prop]
    if isinstance(addresses, (str, bytes)) or not isinstance(addresses, Sequence):
        raise EdgeOriginPropError(where, prop, addresses, "a list of OriginAddress")
    if not addresses:
        raise EdgeOriginPropError(where, prop, [], "at least one address")
    seen_ids: set[str] = set()
    seen_ips: set[str] = set()
    for address in addresses:
        if not isinstance(address, OriginAddress):
            raise EdgeOriginPropError(where, prop, address, "OriginAddress(ip_address, set_identifier) entries, not plain strings")
        sid = address.set_identifier
        if sid in seen_ids:
            raise EdgeOriginPropError(where, prop, f"set identifier {sid!r} twice", "unique set identifiers")
        if address.ip_address in seen_ips:
            raise EdgeOriginPropError(where, prop, address.ip_address, "each IP once (two records with one IP: one NLB answers twice)")
        seen_ids.add(sid)
        seen_ips.add(address.ip_address)
    return addresses


def _request_interval(where: ConstructLabel, prop: str, props: Mapping[str, Any]) -> int:
    return int(require_one_of(where, prop, seconds_of(where, prop, props[prop]), REQUEST_INTERVALS))


def _health_checks(where: ConstructLabel, prop: str, props: Mapping[str, Any]) -> Sequence[route53.IHealthCheck] | None:
    """None (the records make their own), or one ``route53.IHealthCheck`` an address."""
    checks = props[prop]
    if checks is None:
        return None
    if isinstance(checks, (str, bytes)) or not isinstance(checks, Sequence):
        raise EdgeOriginPropError(where, prop, checks, "a list of route53.IHealthCheck")
    for check in checks:
        require_construct(where, prop, check, route53.IHealthCheck, "route53.IHealthCheck entries", optional=False)
    if len(checks) != len(props["addresses"]):
        raise EdgeOriginPropError(where, prop, f"{len(checks)} checks", f"one per address ({len(props['addresses'])})")
    return checks


#: ``MultivalueOriginRecords``' props, checked in this order (the first bad one is reported); a
#: row's answer is the value the records use. ``record_name`` is normalized after (it needs the zone).
RECORDS_PROP_CHECKS: tuple[PropCheck, ...] = (
    ("zone", each(require_construct, route53.IHostedZone, "a route53.IHostedZone", optional=False)),
    ("addresses", _addresses),
    ("health_check_type", each(require_one_of, HEALTH_CHECK_TYPES)),
    ("health_check_port", each(require_port)),
    ("health_check_path", each(require_path, HEALTH_PATH_MAX)),
    ("health_check_fqdn", each(require_str, r"[A-Za-z0-9_.-]{1,255}", "a DNS name", skip_none=True)),
    ("request_interval", _request_interval),
    ("failure_threshold", each(require_int_range, *FAILURE_THRESHOLD_RANGE)),
    ("ttl", each(require_seconds_range, *TTL_RANGE)),
    ("health_checks", _health_checks),
    ("grpc_origin", each(require_bool)),
    ("protect", each(require_bool)),
    ("tags", lambda where, prop, p: require_tags(where, prop, p[prop]) if p[prop] is not None else {}),
    ("account_quotas", lambda where, prop, p: account_quotas_from(where, prop, p[prop])),
)
