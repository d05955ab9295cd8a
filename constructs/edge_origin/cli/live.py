"""`edge-origin audit | verify | preflight | ready | dns-spread`: the read-only live commands (parsing only)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from edge_origin.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    findings_flags,
    finite_float,
    int_range,
    require_extra,
)

MAX_QUERIES = 10_000


def _live(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn the live layer's one-line errors (credentials, endpoint, bad input) into exit 2."""

    def run(args: argparse.Namespace) -> int:
        import botocore.exceptions

        from edge_origin.live.paging import PagingError
        from edge_origin.live.session import LiveError, credential_error
        from edge_origin.model import ModelError

        try:
            return fn(args)
        except (LiveError, ModelError, PagingError) as exc:
            raise UsageError(str(exc)) from None
        except (botocore.exceptions.SSOError, botocore.exceptions.CredentialRetrievalError) as exc:
            profile = f"--profile {args.profile!r}" if getattr(args, "profile", None) else "the profile in use"
            raise UsageError(str(credential_error(profile, exc))) from None

    return run


def _session(args: argparse.Namespace) -> Any:
    from edge_origin.live.account import check_region
    from edge_origin.live.session import session_from_args

    session = session_from_args(args)
    check_region(session)
    return session


# --- audit -------------------------------------------------------------------------------------
def _add_audit(sub: argparse._SubParsersAction) -> None:
    from edge_origin.live.session import add_session_arguments

    p = sub.add_parser("audit", help="read the live account (read-only) and run the rules on what is deployed")
    add_session_arguments(p)
    p.add_argument("--name", action="append", default=[], metavar="NAME", help="only these record names (repeatable)")
    p.add_argument(
        "--grpc-origin", action="append", default=[], metavar="NAME",
        help="treat NAME as a gRPC origin (distribution in another account, or GrpcConfig not visible)",
    )
    p.add_argument("--format", default="text", help="text | json | markdown | sarif (default: text)")
    p.add_argument("--fail-on", default="error", help="exit 1 on findings at or above: error | warning | info (default: error)")
    p.add_argument("--report", metavar="FILE", help="also write the review report (Markdown + Mermaid) of the live account here")
    p.add_argument(
        "--test-dns-answer", action="store_true",
        help="also ask Route 53 itself (TestDNSAnswer, read-only) for each origin name in each public zone and report "
             "where its answer is not one the answer model allows (needs route53:TestDNSAnswer)",
    )
    p.set_defaults(func=_live(_cmd_audit))


def _cmd_audit(args: argparse.Namespace) -> int:
    from edge_origin.live.audit import audit
    from edge_origin.model import normalize_name
    from edge_origin.review.checker import FORMATS, format_findings
    from edge_origin.rules import at_or_above

    fail_on = findings_flags(args, FORMATS)
    for flag, names in (("--name", args.name), ("--grpc-origin", args.grpc_origin)):
        for name in names:
            if not _valid_dns_name(normalize_name(name)):
                raise UsageError(f"{flag} {name!r}: not a DNS name (labels of letters, digits, '-', '_', '*')")
    result = audit(_session(args), names=args.name, grpc_origins=args.grpc_origin, test_dns_answer=args.test_dns_answer)
    if result.answers is not None:
        sys.stderr.write(result.answers.summary() + "\n")
    sys.stderr.write(f"audit: {result.account.read_summary()}\n")  # 0 zones, 0 NLBs: a wrong region or endpoint
    for line in (*result.origin_http, *result.notes):  # read as the installed botocore reads it, or "not read"
        sys.stderr.write(f"audit: {line}\n")
    for guards in result.guards or []:  # only what the endpoint reports (moto 5.2.5 reports none of it)
        if (guards.guardrails, guards.history, guards.protected) != (None, None, None):
            sys.stderr.write(f"audit: guards: {guards.line()}\n")
    if args.report:
        from edge_origin.review.report import render_report

        try:
            with open(args.report, "w", encoding="utf-8") as handle:
                handle.write(render_report(result.model, "markdown", result.findings))
        except OSError as exc:
            raise UsageError(f"--report {args.report}: cannot write ({exc.strerror})") from None
    sys.stdout.write(format_findings(result.findings, args.format))
    return EXIT_FINDINGS if at_or_above(result.findings, fail_on) else EXIT_OK


def _valid_dns_name(name: str | None) -> bool:
    import re

    if not name:  # '', ' ', '.' normalize to nothing
        return False
    labels = name.split(".")
    return 0 < len(name) <= 253 and all(re.fullmatch(r"[a-z0-9_*](?:[a-z0-9_-]{0,61}[a-z0-9_])?", label) for label in labels)


# --- verify ------------------------------------------------------------------------------------
def _add_verify(sub: argparse._SubParsersAction) -> None:
    from edge_origin.live.session import add_session_arguments

    p = sub.add_parser("verify", help="after cdk deploy: compare the deployed stacks with the cloud assembly")
    p.add_argument("cdk_out", metavar="CDK_OUT", help="the cloud assembly directory (cdk.out)")
    p.add_argument("--stack", action="append", default=[], metavar="NAME", help="only this stack (repeatable; default: all)")
    add_session_arguments(p)
    p.add_argument("--format", default="text", help="text | json (default: text)")
    p.set_defaults(func=_live(_cmd_verify))


def _cmd_verify(args: argparse.Namespace) -> int:
    import json

    from edge_origin.live.verify import verify

    if args.format not in ("text", "json"):
        raise UsageError(f"--format {args.format!r}: allowed text, json")
    result = verify(_session(args), args.cdk_out, args.stack)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(result.text())
    return EXIT_OK if result.ok else EXIT_FINDINGS


# --- preflight ---------------------------------------------------------------------------------
def _add_preflight(sub: argparse._SubParsersAction) -> None:
    from edge_origin.live.session import add_session_arguments

    p = sub.add_parser("preflight", help="before cdk deploy: what the templates create against the account's quotas")
    p.add_argument("paths", nargs="+", metavar="PATH", help="template files or cdk.out directories")
    add_session_arguments(p)
    p.add_argument("--format", default="text", help="text | json (default: text)")
    p.set_defaults(func=_live(_cmd_preflight))


def _cmd_preflight(args: argparse.Namespace) -> int:
    import json

    from edge_origin.live.preflight import preflight
    from edge_origin.model import load_model

    if args.format not in ("text", "json"):
        raise UsageError(f"--format {args.format!r}: allowed text, json")
    load_model(args.paths)  # bad templates are bad input before any API call
    result = preflight(_session(args), args.paths)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(result.text())
    return EXIT_OK if result.ok else EXIT_FINDINGS


# --- ready -------------------------------------------------------------------------------------
READY_FORMATS = ("text", "markdown", "json")


def _add_ready(sub: argparse._SubParsersAction) -> None:
    from edge_origin.live.session import add_session_arguments

    p = sub.add_parser(
        "ready",
        help="before an event: one read-only report (quotas, NLB capacity reservations per zone, origin records, "
             "alarms, Route 53 guards; optionally the forecast's prediction, a connection profile and a rehearsal result); exit 0 only "
             "when every line is ready",
    )
    p.add_argument("--name", action="append", default=[], metavar="NAME",
                   help="the origin name (repeatable; treated as a gRPC origin). Default: every CloudFront origin name found")
    p.add_argument("--templates", action="append", default=[], metavar="PATH",
                   help="also check what these templates or cdk.out directories still create against the quotas (preflight)")
    p.add_argument("--event-time", metavar="TIME", help="when the event starts (ISO 8601, e.g. 2026-12-24T18:00Z): said in the report")
    p.add_argument("--format", default="text", help="text | markdown | json (default: text)")
    p.add_argument("--connection-profile", metavar="FILE",
                   help="also judge this connection profile (as `edge-origin profile check FILE`): a 'profile' line")
    vpc = p.add_mutually_exclusive_group()
    vpc.add_argument("--in-vpc-clients", dest="in_vpc_clients", action="store_true", default=None,
                     help="with --connection-profile: clients in the VPC reach the NLB directly (the default unless the file says)")
    vpc.add_argument("--no-in-vpc-clients", dest="in_vpc_clients", action="store_false",
                     help="with --connection-profile: only CloudFront reaches the NLB (skips the in-VPC client checks)")
    p.add_argument("--rehearsal", metavar="FILE",
                   help="also report the verdict of this `edge-origin rehearse --json` result: a 'rehearsal' line")
    _add_ready_event(p)
    add_session_arguments(p)
    p.set_defaults(func=_live(_cmd_ready))


def _add_ready_event(p: argparse.ArgumentParser) -> None:
    """``--devices``/``--ramp-seconds`` (+ the forecast's assumptions): a 'prediction' line per origin name,
    ``forecast predict`` over the NLBs, zones and reservations read from the account."""
    from edge_origin.cli.forecast_args import _within
    from edge_origin.forecast.capacity import ASSUMPTIONS, COVERS

    g = p.add_argument_group("the forecast's prediction for the event (edge-origin forecast predict over what was read)")
    g.add_argument("--devices", type=_within(1, 10**10, integer=True), default=None, help="devices at the peak (1..10^10)")
    g.add_argument("--ramp-seconds", type=_within(0, 86_400), default=None,
                   help="seconds from zero to the peak (0..86400; needed with --devices)")
    g.add_argument("--reservation-covers", choices=COVERS, default="throughput",
                   help="what a reservation raises: throughput (what AWS documents, default) or all dimensions (an assumption)")
    for name, (default, lo, hi, why) in ASSUMPTIONS.items():
        g.add_argument("--" + name.replace("_", "-"), type=_within(lo, hi), default=None,
                       help=f"assumption: {why} ({lo:g}..{hi:g}; default {default:g})")


def _ready_event(args: argparse.Namespace) -> Any:
    """The planned event of ``--devices``/``--ramp-seconds`` (its NLBs are the ones ready reads), or None."""
    from edge_origin.forecast.capacity import ASSUMPTIONS, Nlb, PlannedEvent
    from edge_origin.forecast.inputs import ModelInputError

    chosen = {name: getattr(args, name) for name in ASSUMPTIONS if getattr(args, name) is not None}
    if args.devices is None:
        if args.ramp_seconds is not None or chosen:
            raise UsageError("--ramp-seconds and the model's assumptions: only with --devices N")
        return None
    if args.ramp_seconds is None:
        raise UsageError("--ramp-seconds: needed with --devices (seconds from zero to the peak, 0..86400)")
    try:  # the NLBs are placeholders until the account is read; check() validates the rest now
        return PlannedEvent(devices=float(args.devices), ramp_seconds=args.ramp_seconds, nlbs=(Nlb("read", 1),),
                            reservation_covers=args.reservation_covers, overridden=tuple(sorted(chosen)), **chosen).check()
    except ModelInputError as exc:
        raise UsageError(str(exc)) from None


def parse_event_time(text: str | None) -> Any:
    """``--event-time`` as an aware UTC datetime, or None; UsageError naming the flag."""
    import datetime as dt

    if text is None:
        return None
    try:
        value = dt.datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise UsageError(f"--event-time {text!r}: allowed an ISO 8601 time like 2026-12-24T18:00Z") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def _cmd_ready(args: argparse.Namespace) -> int:
    import json

    from edge_origin.live.ready import ReadyInputError, load_profile_file, load_rehearsal_result, ready
    from edge_origin.model import load_model, normalize_name

    if args.format not in READY_FORMATS:
        raise UsageError(f"--format {args.format!r}: allowed {', '.join(READY_FORMATS)}")
    for name in args.name:
        if not _valid_dns_name(normalize_name(name)):
            raise UsageError(f"--name {name!r}: not a DNS name (labels of letters, digits, '-', '_', '*')")
    event_time = parse_event_time(args.event_time)
    if args.templates:
        load_model(args.templates)  # bad templates are bad input before any API call
    if args.in_vpc_clients is not None and args.connection_profile is None:
        raise UsageError("--in-vpc-clients/--no-in-vpc-clients: only with --connection-profile FILE")
    try:  # bad files are bad input before any API call
        if args.connection_profile is not None:
            load_profile_file(args.connection_profile)
        if args.rehearsal is not None:
            load_rehearsal_result(args.rehearsal)
    except ReadyInputError as exc:
        raise UsageError(str(exc)) from None
    event = _ready_event(args)
    report = ready(_session(args), args.name, templates=args.templates, event_time=event_time, profile=args.connection_profile,
                   in_vpc_clients=args.in_vpc_clients, rehearsal=args.rehearsal, event=event)
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_dict(), indent=2, sort_keys=True) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(report.markdown())
    else:
        sys.stdout.write(report.text())
    return EXIT_OK if report.ok else EXIT_FINDINGS


# --- dns-spread --------------------------------------------------------------------------------
def _add_dns_spread(sub: argparse._SubParsersAction) -> None:
    from edge_origin.live.session import add_session_arguments

    p = sub.add_parser("dns-spread", help="ask a resolver N times for NAME and report how the answers spread")
    p.add_argument("name", metavar="NAME", help="the origin name (A records)")
    p.add_argument("--resolver", required=True, metavar="IP[:PORT]", help="the resolver to ask (port 53 by default)")
    p.add_argument("--queries", type=int_range(1, MAX_QUERIES), default=20, help=f"queries, 1..{MAX_QUERIES} (default 20)")
    p.add_argument("--timeout", type=finite_float(0.05, 30.0), default=2.0, help="seconds per query, 0.05..30 (default 2)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--expect", action="append", default=[], metavar="PATH",
        help="compare each answer with the answer model of these templates or cdk.out directories (repeatable)",
    )
    p.add_argument(
        "--expect-account", action="store_true",
        help="compare each answer with the answer model of the live account (read-only; --region/--profile/--endpoint-url)",
    )
    add_session_arguments(p)
    p.set_defaults(func=_live(_cmd_dns_spread))


def _cmd_dns_spread(args: argparse.Namespace) -> int:
    import json

    require_extra("dns.resolver", "rehearsal", "dns-spread")
    from edge_origin.live.dns_spread import SpreadError, expected_answers, parse_resolver, probe

    if args.expect and args.expect_account:
        raise UsageError("--expect and --expect-account: give one of them (templates, or the live account)")
    try:
        parse_resolver(args.resolver)  # bad input before any template or API is read
    except SpreadError as exc:
        raise UsageError(str(exc)) from None
    expected = None
    if args.expect:
        from edge_origin.model import load_model

        expected = expected_answers(load_model(args.expect), args.name)
    elif args.expect_account:
        from edge_origin.live.account import read_account
        from edge_origin.live.route53_answer import AccountValues

        account = read_account(_session(args), names=[args.name])
        if "route53" in account.unavailable:
            raise UsageError(f"--expect-account: Route 53 could not be read ({account.unavailable['route53']})")
        expected = expected_answers(account.model(), args.name, AccountValues(account))
    try:
        report = probe(args.name, args.resolver, args.queries, args.timeout, expected=expected)
    except SpreadError as exc:
        raise UsageError(str(exc)) from None
    sys.stdout.write(json.dumps(report.to_dict(), indent=2, sort_keys=True) + "\n" if args.json else report.text())
    return EXIT_OK if report.ok else EXIT_FINDINGS


def register(sub: argparse._SubParsersAction) -> None:
    _add_audit(sub)
    _add_verify(sub)
    _add_preflight(sub)
    _add_ready(sub)
    _add_dns_spread(sub)


__all__ = ["MAX_QUERIES", "register"]
