"""`edge-origin plan from-live | from-template | show` and `edge-origin enact`: parsing only.

Exit codes of ``enact`` (each means one thing; the README's table):

* 0 applied (also: nothing to do, dry run). Notes say when INSYNC was not confirmed or the name
  read back differs from the plan;
* 1 not applied, refused: a guard (stale plan, no healthy record, too big a change) or AWS
  (its code and message); the name holds the state read before;
* 2 bad input (plan file, flags, unknown zone, unreachable endpoint): nothing sent;
* 3 not applied after a transient AWS error (throttling, 5xx, timeout, reset connection): the
  re-read shows the state read before, safe to run the same plan again;
* 4 unknown: after an error once the batch may have been sent, the name holds neither this plan
  nor the state read before (or could not be read): the message names the ``plan show`` to run.
  Also: SIGINT, SIGTERM or ``--deadline`` once the batch may have been sent: enact reads the name
  back and says what it found (applied / not applied / unknown) with the ``plan show`` line.

Before the batch is sent, SIGINT exits 130 and SIGTERM 143 (nothing sent), the deadline exits 2
naming the call in flight and the endpoint.

``plan from-live``/``from-template``/``show`` use 0, 1 (refused) and 2 (bad input).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from edge_origin.cli.common import EXIT_FINDINGS, EXIT_OK, UsageError, finite_float, int_range
from edge_origin.live.session import LiveError, add_session_arguments, session_from_args

EXIT_NOT_APPLIED_RETRY = 3
EXIT_UNKNOWN = 4
#: The batch is applied but Route 53's record set protections lifted for it (--unprotect) could not be
#: put back: the name is unprotected until the printed command runs (or the next enact with the store).
EXIT_UNPROTECTED = 5


def _run(command: str, body: Callable[[], int]) -> int:
    """Map the library's errors to exit codes (the module docstring)."""
    import botocore.exceptions

    from edge_origin.live.enact import EnactFailed, Interrupted, OutcomeUnknown, Refusal, TransientFailure
    from edge_origin.live.paging import PagingError
    from edge_origin.live.plans import LivePlanError
    from edge_origin.live.session import credential_error

    try:
        return body()
    except TransientFailure as exc:
        print(f"edge-origin {command}: not applied: {exc}", file=sys.stderr)
        return EXIT_NOT_APPLIED_RETRY
    except Interrupted as exc:
        print(f"edge-origin {command}: {exc}", file=sys.stderr)
        return EXIT_UNKNOWN
    except OutcomeUnknown as exc:
        print(f"edge-origin {command}: outcome unknown: {exc}", file=sys.stderr)
        return EXIT_UNKNOWN
    except (LivePlanError, LiveError) as exc:
        raise UsageError(str(exc)) from None
    except (botocore.exceptions.EndpointConnectionError, botocore.exceptions.ConnectTimeoutError) as exc:
        raise UsageError(f"--endpoint-url / AWS endpoint unreachable: {exc}") from None
    except botocore.exceptions.NoCredentialsError:
        raise UsageError("no AWS credentials found (set AWS_PROFILE / --profile, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)") from None
    except botocore.exceptions.ParamValidationError as exc:
        raise UsageError(f"invalid request parameters: {' '.join(str(exc).split())}") from None
    except (botocore.exceptions.SSOError, botocore.exceptions.CredentialRetrievalError) as exc:
        raise UsageError(str(credential_error(_profile(), exc))) from None
    except Refusal as exc:
        print(f"edge-origin {command}: refused: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    except EnactFailed as exc:
        print(f"edge-origin {command}: not applied: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    except PagingError as exc:
        print(f"edge-origin {command}: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    except botocore.exceptions.ClientError as exc:
        err = exc.response.get("Error", {})
        print(f"edge-origin {command}: AWS refused: {err.get('Code')}: {err.get('Message')}", file=sys.stderr)
        return EXIT_FINDINGS
    except botocore.exceptions.BotoCoreError as exc:
        raise UsageError(f"AWS call failed: {exc}") from None


def _profile() -> str:
    import os

    env = os.environ.get("AWS_PROFILE")
    return f"profile {env!r}" if env else "the profile in use"


class _LazyClient:
    """A boto3 client made on first use: bad template files are refused before any client is built."""

    def __init__(self, session: Any, service: str) -> None:
        self._session, self._service, self._client = session, service, None

    def __getattr__(self, attr: str) -> Any:
        if self._client is None:
            self._client = self._session.client(self._service)
        return getattr(self._client, attr)


def _address(text: str) -> Any:
    from edge_origin.live.plan_sources import parse_address
    from edge_origin.live.plans import LivePlanError

    try:
        return parse_address(text)
    except LivePlanError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--address {text!r}: ")) from None


_address.__name__ = "IP@ZONE"


def _health_check(text: str) -> Any:
    from edge_origin.live.plans import LiveHealthCheckSpec, LivePlanError

    try:
        return LiveHealthCheckSpec.parse(text)
    except LivePlanError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--health-check {text!r}: ")) from None


_health_check.__name__ = "health check"


def _name_and_zone(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", required=True, help="the origin name, e.g. origin.example.com")
    p.add_argument("--zone-id", required=True, help="the hosted zone id, e.g. Z1234567890ABC")
    add_session_arguments(p)


def _check_name_and_zone(args: argparse.Namespace) -> None:
    from edge_origin.live.plans import schema_errors

    for flag, key, value in (("--name", "name", args.name), ("--zone-id", "hosted_zone_id", args.zone_id.removeprefix("/hostedzone/"))):
        errors = schema_errors(value, {"$ref": f"#/properties/{key}"})
        if errors:
            raise UsageError(f"{flag}: {errors[0].split(': ', 1)[1]}")


def _check_output(output: str | None) -> None:
    """Refuse a bad -o before any AWS call (empty, missing folder, FIFO, device, folder)."""
    from edge_origin.live.plans import LivePlanError, check_output_path

    if output not in (None, "-"):
        try:
            check_output_path(output)
        except LivePlanError as exc:
            raise UsageError(str(exc)) from None


def _write(plan: Any, output: str | None) -> None:
    from edge_origin.live.plans import write_plan

    if output in (None, "-"):
        sys.stdout.write(plan.dumps())
    else:
        write_plan(plan, output)
        print(f"wrote {output}: {plan.name} generation {plan.generation}, {len(plan.records)} records", file=sys.stderr)
    for note in plan.notes():
        print(f"note: {note}", file=sys.stderr)


# --- plan from-live ----------------------------------------------------------------------------
def _cmd_from_live(args: argparse.Namespace) -> int:
    from edge_origin.live.plan_sources import plan_from_live

    _check_name_and_zone(args)
    _check_output(args.output)
    if bool(args.address) == bool(args.from_load_balancers):
        raise UsageError("give --address IP@ZONE (one or more) or --from-load-balancers, not both or neither")

    def body() -> int:
        session = session_from_args(args)
        plan = plan_from_live(
            session.client("route53"), args.zone_id.removeprefix("/hostedzone/"), args.name,
            addresses=args.address, elbv2=session.client("elbv2") if args.from_load_balancers else None,
            health_check=args.health_check, ttl=args.ttl,
        )
        _write(plan, args.output)
        return EXIT_OK

    return _run("plan from-live", body)


# --- plan from-template ------------------------------------------------------------------------
def _cmd_from_template(args: argparse.Namespace) -> int:
    from edge_origin.live.plan_sources import plan_from_template

    _check_name_and_zone(args)
    _check_output(args.output)

    def body() -> int:
        session = session_from_args(args)
        plan = plan_from_template(
            args.paths, _LazyClient(session, "route53"), _LazyClient(session, "cloudformation"), _LazyClient(session, "ec2"),
            args.zone_id.removeprefix("/hostedzone/"), args.name, health_check=args.health_check, ttl=args.ttl,
        )
        _write(plan, args.output)
        return EXIT_OK

    return _run("plan from-template", body)


# --- plan show ---------------------------------------------------------------------------------
def _cmd_show(args: argparse.Namespace) -> int:
    from edge_origin.live.name_state import read_name
    from edge_origin.live.plan_sources import show_text

    _check_name_and_zone(args)

    def body() -> int:
        session = session_from_args(args)
        live = read_name(session.client("route53"), args.zone_id.removeprefix("/hostedzone/"), args.name)
        if args.json:
            sys.stdout.write(json.dumps(live.to_json(), indent=2, default=str) + "\n")
        else:
            sys.stdout.write(show_text(live))
        return EXIT_OK

    return _run("plan show", body)


# --- enact -------------------------------------------------------------------------------------
def _cmd_enact(args: argparse.Namespace) -> int:
    from edge_origin.live.enact import EnactOptions, PlanStore, enact
    from edge_origin.live.guard import Stop
    from edge_origin.live.guard import active as active_guard
    from edge_origin.live.plans import load_plan

    if args.format not in ("text", "json"):
        raise UsageError(f"--format {args.format!r}: allowed text, json")

    def body() -> int:
        plan = load_plan(args.plan)
        options = EnactOptions(
            dry_run=args.dry_run, max_change_share=args.max_change_share,
            allow_full_change=args.allow_full_change, wait_s=args.wait,
            keep_health_checks=args.keep_health_checks, unprotect=args.unprotect,
        )
        store = PlanStore(args.plan_store) if args.plan_store is not None else None
        if store is not None:
            store.check_writable(plan.name, plan.generation)
        session = session_from_args(args)
        client = session.client("route53")
        try:
            reconciled = store.reconcile(client, plan.zone_id, plan.name) if store is not None and not args.dry_run else []
        except Stop as stop:
            raise Stop(stop.kind, f"{stop} (before the batch was sent: nothing changed)") from None
        journal = store.journal(plan) if store is not None and not args.dry_run else None
        result = enact(client, plan, options, journal=journal)
        try:
            return _after_enact(args, store, client, plan, result, reconciled)
        except Stop as stop:  # the batch is applied; only the store clean-up or the printing was cut short
            if result.status != "applied":
                raise
            guard = active_guard()
            if guard is not None:
                guard.disarm()  # a passed deadline fires again until disarmed: not while this is said
            change = f" (change {result.change_id})" if result.change_id else ""
            print(f"edge-origin enact: {stop} after the batch was applied: generation {plan.generation} is live{change}",
                  file=sys.stderr)
            return EXIT_UNKNOWN

    return _run("enact", body)


def _after_enact(args: argparse.Namespace, store: Any, client: Any, plan: Any, result: Any, reconciled: list[str]) -> int:
    """Clean the store, print the result (the batch is decided by now)."""
    from edge_origin.live.plans import LivePlanError

    result.notes.extend(reconciled)
    if store is not None and result.status == "applied":
        try:
            removed = store.cleanup(client, plan.zone_id, plan.name, keep=args.keep)
        except (LivePlanError, OSError) as exc:
            result.notes.append(f"plan store: {exc} (the plan is applied; the store may lack it or old plans)")
            removed = []
        if removed:
            result.notes.append(f"plan store: removed generations {', '.join(map(str, removed))} (live and previous kept)")
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_json(), indent=2, default=str) + "\n")
    else:
        sys.stdout.write(result.text())
    unprotected = [n for n in result.notes if n.startswith("PROTECTION NOT RESTORED")]
    for note in unprotected:
        print(f"edge-origin enact: applied, but {note}", file=sys.stderr)
    return EXIT_UNPROTECTED if unprotected else EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    plan = sub.add_parser("plan", help="make or show DNS plans for an origin name (multivalue, health-checked)")
    plan_sub = plan.add_subparsers(dest="plan_command", required=True)

    p = plan_sub.add_parser("from-live", help="a multivalue plan from the live name (generation = live + 1)")
    _name_and_zone(p)
    p.add_argument("--address", action="append", type=_address, metavar="IP@ZONE",
                   help="an origin address (IPv4: an A record, IPv6: an AAAA record) and its zone (repeat)")
    p.add_argument("--from-load-balancers", action="store_true",
                   help="take the Elastic IPs of the NLBs the alias records point at (and their IPv6 addresses for AAAA aliases)")
    p.add_argument("--health-check", type=_health_check, default=None, metavar="tcp:PORT|https:PORT/PATH", help="for new records (default tcp:443)")
    p.add_argument("--ttl", type=int_range(0, 86400), help="record TTL, 0..86400 (default: the live records', else 60)")
    p.add_argument("-o", "--output", help="plan file to write (default: stdout)")
    p.set_defaults(func=_cmd_from_live)

    p = plan_sub.add_parser("from-template", help="a plan from synthesized records, EIPs resolved through the deployed stacks")
    p.add_argument("paths", nargs="+", metavar="CDK_OUT|TEMPLATE", help="a cdk.out directory or template files")
    _name_and_zone(p)
    p.add_argument("--health-check", type=_health_check, default=None, metavar="tcp:PORT|https:PORT/PATH", help="when a record has none (default tcp:443)")
    p.add_argument("--ttl", type=int_range(0, 86400), help="record TTL, 0..86400 (default: the templates')")
    p.add_argument("-o", "--output", help="plan file to write (default: stdout)")
    p.set_defaults(func=_cmd_from_template)

    p = plan_sub.add_parser("show", help="what is live for a name: records, routing policy, generation")
    _name_and_zone(p)
    p.add_argument("--json", action="store_true", help="JSON instead of text")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("enact", help="apply a DNS plan as one Route 53 change batch, guarded by the generation record")
    p.add_argument("plan", metavar="PLAN.json")
    p.add_argument("--dry-run", action="store_true", help="print the change batch (Route 53's shape), change nothing")
    p.add_argument("--format", default="text", help="text | json (default: text)")
    p.add_argument("--max-change-share", type=finite_float(0.0, 1.0, lo_open=True), default=0.5,
                   help="refuse when more than this share of the records changes (default 0.5)")
    p.add_argument("--allow-full-change", action="store_true", help="allow any share (a routing-policy migration needs it)")
    p.add_argument("--wait", type=finite_float(0.0, 3600.0), default=300.0, metavar="SECONDS",
                   help="wait for INSYNC at most this long (default 300; 0: do not wait)")
    p.add_argument("--plan-store", metavar="DIR", help="keep applied plans here; clean-up keeps the live and previous ones")
    p.add_argument("--keep", type=int_range(0, 10_000), default=10, help="newest plans the store keeps besides those (default 10)")
    p.add_argument("--keep-health-checks", action="store_true",
                   help="do not delete the health checks enact created for this name that no record uses any more")
    p.add_argument("--unprotect", action="store_true",
                   help="lift Route 53 record set protections on the name for the batch and put them back after "
                        "(three calls, not one batch: the window is reported); without it a protected name is refused")
    add_session_arguments(p)
    p.set_defaults(func=_cmd_enact)
