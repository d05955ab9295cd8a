"""Every prop of every construct, with wrong types and edge values: each raises EdgeOriginPropError
naming the construct, the prop, the value and what is allowed, or is accepted by documented design.

The table is checked against the constructors' signatures (``inspect``): a new prop without a row
fails ``test_table_covers_every_prop``. Each row's bad values are the generic ones for the prop's
annotation (wrong types, None where None is not the default, NaN, negative, huge, a Duration that
is not whole seconds, empty) plus the row's own edge values.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import math
import re
from collections.abc import Callable
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_s3 as s3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin import (
    AccountQuotas,
    EdgeOriginPropError,
    GrpcEdgeDistribution,
    GrpcEdgeToOrigin,
    InternalGrpcOrigin,
    MultivalueOriginRecords,
    NetworkingIngress,
    OriginAddress,
    OriginFleet,
    OriginVerification,
    OriginVerificationSecret,
    PrivateHealthChecks,
    TargetGroupBindings,
)
from edge_origin.cdk.watch import OriginWatch, WatchOptions

ENV = cdk.Environment(account="123456789012", region="us-east-1")
NAN, INF = math.nan, math.inf
MILLIS_1500 = cdk.Duration.millis(1500)
HUGE = 10**12
_IMPORTS = cdk.Stack(cdk.App(), "Imports", env=ENV)  # imported resources the rows use (plain ARNs, no tokens)
CERT_US = acm.Certificate.from_certificate_arn(_IMPORTS, "CertUs", "arn:aws:acm:us-east-1:123456789012:certificate/c1")
CERT_EU = acm.Certificate.from_certificate_arn(_IMPORTS, "CertEu", "arn:aws:acm:eu-west-1:123456789012:certificate/c2")
CERT_EU_MADE = acm.Certificate(  # made in an eu-west-1 stack: its ARN is a token, its stack's region tells
    cdk.Stack(_IMPORTS.node.root, "Eu", env=cdk.Environment(account="123456789012", region="eu-west-1")), "Cert",
    domain_name="grpc.example.com",
)
WEB_ACL = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/edge/473e64fd-f30b-4765-81a0-62ad96dd167a"
BAD_WEB_ACLS = ["acl-1", "arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/edge/473e64fd",
                "arn:aws:waf::123456789012:webacl/473e64fd", "arn:aws:s3:::bucket"]
BAD_VERIFICATIONS = [OriginVerification(header_name="Host"), OriginVerification(header_name=""),
                     OriginVerification(header_name="x-amz-verify"), OriginVerification(secret_length=5),
                     OriginVerification(secret="not-a-secret-arn")]

# Generic bad values per annotation kind ("None" is added where None is not the default).
GENERIC: dict[str, list[Any]] = {
    "duration": [MILLIS_1500, NAN, INF, -1, HUGE, "10s", True, [10]],
    "int": ["2", 2.5, NAN, -1, HUGE, True, [1]],
    "bool": ["yes", 1, 0, "False"],
    "str": [7, ["x"], "", "ünïcode name", NAN],
    "str_list": ["a.example.com", [7], [""], 7, {"a": 1}],
    "mapping": ["k=v", [("k", "v")], {"k": 7}, {7: "v"}],
    "object_list": ["192.0.2.1", ["192.0.2.1"], [7], 7, []],
    "object": ["x", 7, {}, NAN],
}

# prop -> its own edge values, per construct. Every keyword prop must have a row.
TABLE: dict[str, dict[str, list[Any]]] = {
    "OriginFleet": {
        "vpc": [],
        "max_azs": [0, 1, 7],
        "nlb_count": [0, 21],
        "internet_facing": [],
        "listener_port": [0, 65536],
        "target_port": [0, 65536],
        "listener_protocol": ["UDP", "tls", "HTTPS"],
        "listener_certificate_arns": [["arn:aws:acm:us-east-1:123456789012:certificate/x"]],  # TCP refuses any
        "idle_timeout": [59, 6001, cdk.Duration.minutes(101)],
        "cross_zone_enabled": [],
        "deregistration_delay": [3601, cdk.Duration.hours(2)],
        "target_health_check_protocol": ["GRPC", "http"],
        "target_health_check_port": [0, 65536],
        "target_health_check_path": ["healthz", "/a b", "/" + "x" * 1024],
        "health_checked_port": [0, 65536],
        "cloudfront_prefix_list_id": ["pl-xyz", "cloudfront"],
        "route53_health_checker_cidrs": [["1.2.3.4/99"], [], ["not-a-cidr"]],
        "route53_health_checker_prefix_list_id": ["pl-xyz", "route53-healthchecks"],
        "client_cidrs": [["10.0.0.0/8"]],  # internet-facing refuses any
        "private_ip_offset": [3, 251],
        "vpc_origin": [],  # with internet_facing=True (the row's default) any True is refused too
        "vpc_origin_security_group_id": ["sg-0123456789abcdef0"],  # only with vpc_origin=True
        "rules_per_security_group": [0, 10, 1001],
        "name_prefix": ["UPPER", "a" * 42, "-x"],
        "tags": [{"": "v"}, {"k" * 129: "v"}, {"aws:x": "y"}, {"k": "v" * 257}],
        "deletion_protection": [],
        "eip_removal_policy": [cdk.RemovalPolicy.SNAPSHOT, "RETAIN"],
        "access_logs_bucket": [],
        "access_logs_prefix": ["logs"],  # without a bucket
        "export_prefix": ["1abc", "a b", "x" * 101],
        "account_quotas": [{"elastic_ips": 0}, {"elastic_ips": True}, {"eips": 10}, {"elastic_ips": 2.5}],
        # the world's VPC has 2 zones: 5500..90000 (2750..45000 a zone); 0 and a token-like float too
        "capacity_units": [0, 5499, 90001, 2750, 5500.0, "5500"],
        "expected_targets": [0, 100_001, 2.5, "600"],
        "unhealthy_connection_termination": [],
    },
    "MultivalueOriginRecords": {
        "zone": [],
        "record_name": ["origin.example.org", "a..example.com", "-x.example.com", "x" * 64 + ".example.com"],
        "addresses": [[OriginAddress("192.0.2.1", "a"), OriginAddress("192.0.2.1", "b")],
                      [OriginAddress("192.0.2.1", "a"), OriginAddress("192.0.2.2", "a")]],
        "health_check_type": ["UDP", "tcp"],
        "health_check_port": [0, 65536],
        "health_check_path": ["healthz", "/" + "x" * 255],
        "health_check_fqdn": ["a b", "x" * 256],
        "request_interval": [20, cdk.Duration.seconds(20), 0],
        "failure_threshold": [0, 11],
        "ttl": [2**31, cdk.Duration.days(30000)],
        "health_checks": [],
        "grpc_origin": [],
        "tags": [{"": "v"}, {"aws:x": "y"}],
        "account_quotas": [{"health_checks": 0}, {"healthChecks": -1}],
        "protect": ["yes", 1],
    },
    "TargetGroupBindings": {
        "target_groups": [{}],
        "service_name": ["Ingest_Svc", "a" * 64, "-svc"],
        "service_port": [0, 65536],
        "namespace": ["Team", "a" * 64],
        "cluster": [],
        "networking": [{"nlb9": 7}],
    },
    "OriginWatch": {
        "fleet": [],
        "records": [],
        "distribution": [],
        "origin_name": ["", "a b"],
        "alarm_topic": [],
        "period": [30, 90, 3660, cdk.Duration.hours(2)],
        "imbalance_threshold": [1.0, 21, INF, -INF, "2"],
        "imbalance_flow_floor": [10**8 + 1],
        "datapoints_to_alarm": [0, 6],  # more than evaluation_periods (5)
        "evaluation_periods": [0, 61],
        "min_healthy_records": [0, 3, -1, 2.5],  # 2 records
        "reset_rate_threshold": [0, 0.0001, 10**7, NAN],
        "origin_5xx_threshold": [0, 101, NAN],
        "additional_metrics": [True],  # without a distribution
        "dashboard_name": ["a b", "x" * 256, "dash/board"],
    },
    "GrpcEdgeToOrigin": {
        "monitoring": [WatchOptions(period=30), WatchOptions(imbalance_threshold=NAN), WatchOptions(min_healthy_records=99)],
        "origin_verification": BAD_VERIFICATIONS,
        "zone": [],
        "origin_name": ["origin.example.org", "a..example.com"],
        "service_name": ["Ingest_Svc", "a" * 64],
        "origin_access": ["vpc", "VPC-ORIGIN", "private-link"],
        "vpc_origin_security_group_id": ["sg-0123456789abcdef0"],  # only with origin_access='vpc-origin'
        "vpc": [],
        "max_azs": [1, 7],
        "nlb_count": [0, 21],
        "listener_port": [0, 65536],
        "target_port": [0, 65536],
        "service_port": [0, 65536],
        "namespace": ["Team"],
        "target_health_check_protocol": ["GRPC"],
        "target_health_check_port": [0, 65536],
        "target_health_check_path": ["healthz"],
        "origin_health_check_type": ["UDP", "HTTP"],
        "origin_health_check_path": ["healthz"],
        "origin_health_check_interval": [20, cdk.Duration.seconds(20)],
        "origin_health_check_failure_threshold": [0, 11],
        "record_ttl": [2**31],
        "connection_profile": [],
        "http_version": ["http1.1", "HTTP2"],
        "domain_names": [["not a name"], ["grpc.example.com"], ["a.example.com", "A.example.com."]],  # 2nd: no certificate
        "certificate": [CERT_EU, CERT_EU_MADE, CERT_US],  # last: no domain_names
        "domain_zone": [],
        "web_acl_id": BAD_WEB_ACLS,
        "log_bucket": [],
        "price_class": ["PriceClass_100"],
        "cluster": [],
        "cloudfront_prefix_list_id": ["pl-xyz"],
        "route53_health_checker_cidrs": [["1.2.3.4/99"], []],
        "route53_health_checker_prefix_list_id": ["pl-xyz"],
        "name_prefix": ["UPPER"],
        "tags": [{"aws:x": "y"}],
        "deletion_protection": [],
        "eip_removal_policy": [cdk.RemovalPolicy.SNAPSHOT],
        "access_logs_bucket": [],
        "export_prefix": ["1abc"],
        "account_quotas": [{"elastic_ips": 0}],
        "response_completion_timeout": [0, 3601, 29],  # below the default profile's read timeout (30 s)
        "origin_ip_address_type": ["IPV6", "both"],
        "capacity_units": [0, 5499, 90001],
    },
    "GrpcEdgeDistribution": {
        "origin_name": ["a..example.com", "-x.example.com", "192.0.2.1", "localhost", "x" * 64 + ".example.com",
                        "origin.example.com/path"],
        "origin_port": [0, 65536],
        # above the default quota (120 s) is accepted with a warning naming the quota (issue 37)
        "keepalive_timeout": [0, 3601, cdk.Duration.seconds(3601), cdk.Duration.millis(1500)],
        "read_timeout": [0, cdk.Duration.minutes(61)],
        "response_completion_timeout": [0, 3601, 59, cdk.Duration.seconds(30)],  # below read_timeout (60 s)
        "origin_ip_address_type": ["IPV4", "ipv5", 4],
        "http_version": ["http1.1", "HTTP2"],
        "origin_request_policy": [cloudfront.CachePolicy.CACHING_DISABLED],
        "domain_names": [["not a name"], ["grpc.example.com"], ["a.example.com", "A.example.com."]],  # 2nd: no certificate
        "certificate": [CERT_EU, CERT_EU_MADE, CERT_US],  # last: no domain_names
        "web_acl_id": BAD_WEB_ACLS,
        "log_bucket": [],
        "price_class": ["PriceClass_100"],
        "comment": ["x" * 129, " "],
        "origin_verification": BAD_VERIFICATIONS,
    },
    "OriginVerificationSecret": {
        "verification": BAD_VERIFICATIONS,
    },
    "InternalGrpcOrigin": {
        "monitoring": [WatchOptions(additional_metrics=True), WatchOptions(evaluation_periods=0)],
        "zone": [],
        "origin_name": ["tax.example.org"],
        "service_name": ["Tax_Svc"],
        "vpc": [],
        "max_azs": [1, 7],
        "nlb_count": [0, 21],
        "listener_port": [0, 65536],
        "target_port": [0, 65536],
        "service_port": [0, 65536],
        "namespace": ["Team"],
        "client_cidrs": [["10.0.0.0/33"], [], ["x"]],
        "connection_profile": [],
        "target_health_check_protocol": ["GRPC"],
        "target_health_check_port": [0, 65536],
        "target_health_check_path": ["healthz"],
        "record_ttl": [2**31],
        "private_ip_offset": [3, 251],
        "cluster": [],
        "name_prefix": ["UPPER"],
        "tags": [{"aws:x": "y"}],
        "deletion_protection": [],
        "access_logs_bucket": [],
        "export_prefix": ["1abc"],
        "account_quotas": [{"elastic_ips": 0}],
        "allow_public_zone": [],
        "capacity_units": [0, 5499, 90001, 2750.5],
        "private_health_checks": [PrivateHealthChecks(), PrivateHealthChecks(health_check_source_id=""),
                                  PrivateHealthChecks(health_check_source_id="x" * 65)],
    },
    "OriginAddress": {
        "ip_address": ["not-an-ip", "192.0.2.256", "::1", "192.0.2.1/32"],
        "set_identifier": ["a b", "x" * 129],
        "health_check_ip": ["nope"],
    },
    "NetworkingIngress": {
        "security_groups": [[], ["sg-0123456789abcdef0"], [7]],
        "ports": [[0], [65536], [8443.0], [], ["8443"]],
    },
    "AccountQuotas": {
        "elastic_ips": [0, 1_000_001],
        "health_checks": [0],
        "network_load_balancers": [0],
    },
}

# Accepted by documented design: (construct, prop, value, why). Each is built and must pass.
ACCEPTED: list[tuple[str, str, Any, str]] = [
    ("OriginFleet", "capacity_units", 5500, "2750 a zone over 2 zones: the smallest reservation"),
    ("OriginFleet", "capacity_units", 90000, "45000 a zone over 2 zones: the largest reservation"),
    ("OriginFleet", "capacity_units", 5501, "uneven over the zones: accepted with a warning"),
    ("GrpcEdgeToOrigin", "capacity_units", 8000, "4000 LCUs a zone"),
    ("InternalGrpcOrigin", "capacity_units", 5500, "internal NLBs take reservations too"),
    ("OriginFleet", "idle_timeout", 600, "a number of seconds is accepted where a Duration is"),
    ("OriginFleet", "idle_timeout", cdk.Duration.minutes(10), "any whole number of seconds, any unit"),
    ("MultivalueOriginRecords", "ttl", 0, "TTL 0 is legal in Route 53"),
    ("MultivalueOriginRecords", "request_interval", cdk.Duration.millis(30000), "30 s in milliseconds is 30 s"),
    ("MultivalueOriginRecords", "record_name", "ORIGIN.Example.COM.", "names are normalized: lower case, no dot"),
    ("OriginAddress", "ip_address", "${Token[TOKEN.1]}", "an EIP's Ref token is checked by CloudFormation"),
    ("GrpcEdgeToOrigin", "origin_verification", None, "None turns origin verification off, explicitly"),
    ("GrpcEdgeToOrigin", "web_acl_id", WEB_ACL, "a CLOUDFRONT-scope WAFv2 web ACL"),
    ("GrpcEdgeToOrigin", "monitoring", None, "None turns the dashboard and alarms off"),
    ("InternalGrpcOrigin", "monitoring", None, "None turns the dashboard and alarms off"),
    ("InternalGrpcOrigin", "private_health_checks", PrivateHealthChecks(health_check_source_id="hcs-1"),
     "private endpoint checks from an existing health check source"),
    ("GrpcEdgeToOrigin", "monitoring", WatchOptions(additional_metrics=True), "OriginLatency with the paid subscription"),
    ("OriginWatch", "imbalance_threshold", 7, "any number 1.05..20"),
    ("OriginWatch", "reset_rate_threshold", 7, "any number 0.001..1000000"),
    ("OriginWatch", "origin_5xx_threshold", 7, "any percent 0.01..100"),
    ("OriginWatch", "min_healthy_records", 2, "K may be every record"),
    ("OriginWatch", "period", cdk.Duration.minutes(5), "whole minutes up to an hour"),
    ("GrpcEdgeDistribution", "comment", "ünïcode name", "a comment is any text up to 128 characters"),
    ("GrpcEdgeDistribution", "web_acl_id", WEB_ACL, "a CLOUDFRONT-scope WAFv2 web ACL"),
    ("GrpcEdgeDistribution", "origin_name", "Origin.Example.COM.", "names are normalized: lower case, no dot"),
    ("GrpcEdgeDistribution", "origin_request_policy", cloudfront.OriginRequestPolicy.ALL_VIEWER,
     "forwards the viewer's Host (docs/constructs.md: Why these choices)"),
    ("GrpcEdgeDistribution", "keepalive_timeout", 180, "above the default quota, warned naming the quota (issue 37)"),
    ("GrpcEdgeDistribution", "read_timeout", cdk.Duration.minutes(4), "above the default quota, warned naming the quota (issue 37)"),
    ("GrpcEdgeDistribution", "origin_verification", OriginVerification(), "origin verification on"),
]

# (construct, prop) whose documented None is a choice, not a missing value, though the default is not None.
NONE_ALLOWED = {("GrpcEdgeToOrigin", "origin_verification"), ("GrpcEdgeToOrigin", "monitoring"),
                ("InternalGrpcOrigin", "monitoring")}


def _kind(annotation: str) -> str:
    if "Duration" in annotation:
        return "duration"
    if "Sequence[OriginAddress]" in annotation or "IHealthCheck]" in annotation:
        return "object_list"
    if "Sequence[str]" in annotation:
        return "str_list"
    if "Mapping" in annotation:
        return "mapping"
    if annotation.startswith("bool"):
        return "bool"
    if annotation.startswith("int"):
        return "int"
    if annotation.startswith("str"):
        return "str"
    return "object"


class World:
    """One stack per construct kind and the objects valid props need; cases get unique ids."""

    def __init__(self) -> None:
        self.app = cdk.App()
        self.stack = cdk.Stack(self.app, "S", env=ENV)
        self.zone = route53.HostedZone.from_hosted_zone_attributes(
            self.stack, "Zone", hosted_zone_id="Z1", zone_name="example.com"
        )
        self.vpc = ec2.Vpc.from_vpc_attributes(
            self.stack, "Vpc", vpc_id="vpc-1", vpc_cidr_block="10.0.0.0/16",
            availability_zones=["us-east-1a", "us-east-1b"], public_subnet_ids=["subnet-1", "subnet-2"],
            private_subnet_ids=["subnet-3", "subnet-4"], private_subnet_ipv4_cidr_blocks=["10.0.128.0/20", "10.0.144.0/20"],
        )
        self.bucket = s3.Bucket.from_bucket_name(self.stack, "Bucket", "bucket")
        self.fleet = OriginFleet(self.stack, "Fleet", vpc=self.vpc, nlb_count=1)
        self.records = MultivalueOriginRecords(
            self.stack, "WatchedRecords", zone=self.zone, record_name="watched.example.com",
            addresses=[OriginAddress(a.ip_address, a.set_identifier) for a in self.fleet.addresses],
        )
        self._ids = itertools.count()

    def wrong_object(self, annotation: str) -> Any:
        return self.bucket if "IVpc" in annotation else self.vpc

    def base(self, name: str) -> dict[str, Any]:
        zone, vpc, n = self.zone, self.vpc, next(self._ids)  # one origin name per build: set ids stay unique
        return {
            "OriginFleet": {"vpc": vpc, "nlb_count": 1},
            "MultivalueOriginRecords": {
                "zone": zone, "record_name": f"r{n}.example.com",
                "addresses": [OriginAddress("192.0.2.1", "a"), OriginAddress("192.0.2.2", "b")],
            },
            "TargetGroupBindings": {
                "target_groups": {"nlb1": self.fleet.target_groups[0]}, "service_name": "svc", "service_port": 8443,
            },
            "GrpcEdgeToOrigin": {"zone": zone, "origin_name": f"o{n}.example.com", "service_name": "ingest", "vpc": vpc,
                                 "nlb_count": 1},
            "GrpcEdgeDistribution": {"origin_name": f"e{n}.example.com"},
            "OriginVerificationSecret": {"verification": OriginVerification()},
            "InternalGrpcOrigin": {"zone": zone, "origin_name": f"t{n}.example.com", "service_name": "tax", "vpc": vpc,
                                   "nlb_count": 1},
            "OriginAddress": {"ip_address": "192.0.2.1", "set_identifier": "a"},
            "OriginWatch": {"fleet": self.fleet, "records": self.records},
            "AccountQuotas": {},
            "NetworkingIngress": {"security_groups": self.fleet.members[0].security_groups, "ports": (8443,)},
        }[name]

    def build(self, name: str, **overrides: Any) -> Any:
        kwargs = self.base(name) | overrides
        if name in ("OriginAddress", "AccountQuotas", "NetworkingIngress"):
            return CLASSES[name](**kwargs)
        return CLASSES[name](self.stack, f"{name}{next(self._ids)}", **kwargs)


CLASSES: dict[str, Callable[..., Any]] = {
    "OriginFleet": OriginFleet,
    "MultivalueOriginRecords": MultivalueOriginRecords,
    "TargetGroupBindings": TargetGroupBindings,
    "GrpcEdgeToOrigin": GrpcEdgeToOrigin,
    "GrpcEdgeDistribution": GrpcEdgeDistribution,
    "OriginVerificationSecret": OriginVerificationSecret,
    "InternalGrpcOrigin": InternalGrpcOrigin,
    "OriginWatch": OriginWatch,
    "OriginAddress": OriginAddress,
    "AccountQuotas": AccountQuotas,
    "NetworkingIngress": NetworkingIngress,
}


def _props(name: str) -> dict[str, tuple[str, Any]]:
    """prop -> (annotation text, default) from the constructor (or the dataclass fields)."""
    klass = CLASSES[name]
    if dataclasses.is_dataclass(klass):
        return {
            f.name: (str(f.type), f.default if f.default is not dataclasses.MISSING else inspect.Parameter.empty)
            for f in dataclasses.fields(klass)
        }
    params = inspect.signature(klass.__init__).parameters.values()
    return {p.name: (str(p.annotation), p.default) for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


def _bad_values(world: World, name: str, prop: str) -> list[Any]:
    """The generic and the row's values, less those ACCEPTED documents for this prop."""
    annotation, default = _props(name)[prop]
    kind = _kind(annotation)
    values = list(GENERIC[kind])
    if kind == "object":
        values.append(world.wrong_object(annotation))
    if default is not None and (name, prop) not in NONE_ALLOWED:
        values.append(None)
    accepted = [repr(value) for n, p, value, _ in ACCEPTED if (n, p) == (name, prop)]
    return [value for value in values + TABLE[name][prop] if repr(value) not in accepted]


@pytest.fixture(scope="module")
def world() -> World:
    return World()


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_table_covers_every_prop(name: str) -> None:
    assert set(_props(name)) == set(TABLE[name]), "add a row to TABLE for each new prop (and drop removed ones)"


CASES = [(name, prop) for name in sorted(TABLE) for prop in TABLE[name]]


@pytest.mark.parametrize(("name", "prop"), CASES, ids=[f"{n}.{p}" for n, p in CASES])
def test_bad_values_raise_a_prop_error_naming_prop_value_and_allowed(world: World, name: str, prop: str) -> None:
    problems = []
    for value in _bad_values(world, name, prop):
        try:
            world.build(name, **{prop: value})
        except EdgeOriginPropError as exc:
            text = str(exc)
            if f"invalid {prop}" not in text or "; allowed: " not in text or not (name in text or "S/" in text):
                problems.append(f"{value!r}: unclear message {text!r}")
        except Exception as exc:  # noqa: BLE001 - any other exception is the failure we look for
            problems.append(f"{value!r}: {type(exc).__name__}: {str(exc)[:160]}")
        else:
            problems.append(f"{value!r}: accepted")
    assert not problems, f"{name}.{prop}:\n" + "\n".join(problems)


def _stable_id(value: object) -> str:
    """A test id that is the same in every process (pytest-xdist compares them): no object addresses."""
    text = repr(value)
    return re.sub(r" (object )?at 0x[0-9a-f]+", "", text)


@pytest.mark.parametrize(("name", "prop", "value", "why"), ACCEPTED, ids=[f"{a[0]}.{a[1]}={_stable_id(a[2])}" for a in ACCEPTED])
def test_documented_edge_values_are_accepted(world: World, name: str, prop: str, value: Any, why: str) -> None:
    world.build(name, **{prop: value})


ANY_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=40),
              st.sampled_from(["grpc.example.com", "http2", WEB_ACL, "*.example.com", "${Token[TOKEN.9]}"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=2)),
    max_leaves=4,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_value_of_a_distribution_prop_builds_or_names_the_prop(world: World, data: st.DataObject) -> None:
    """Arbitrary JSON-like values (NaN, inf, nesting, tokens) for one or two GrpcEdgeDistribution props:
    a distribution, or an EdgeOriginPropError naming one of them; never a jsii error or a dead kernel."""
    props = data.draw(st.lists(st.sampled_from(sorted(TABLE["GrpcEdgeDistribution"])), min_size=1, max_size=2, unique=True))
    overrides = {prop: data.draw(ANY_VALUE, label=prop) for prop in props}
    try:
        world.build("GrpcEdgeDistribution", **overrides)
    except EdgeOriginPropError as exc:
        assert exc.prop.split(".")[0] in props, str(exc)
        assert str(exc).startswith("GrpcEdgeDistribution S/") and "; allowed: " in str(exc), str(exc)
