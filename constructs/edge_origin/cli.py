"""The ``edge-origin`` command: argument parsing only; every command calls into the library.

Exit codes, for every subcommand: 0 clean, 1 findings (or a failed run), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


# --- check -------------------------------------------------------------------------------------
def _add_check_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="check CloudFormation templates (or a cdk.out) for edge-origin failure modes")
    p.add_argument("paths", nargs="+", metavar="PATH", help="template files (.json/.yaml/.yml/.template) or cdk.out directories")
    p.add_argument("--format", default="text", help="text | json | markdown | sarif (default: text)")
    p.add_argument("--fail-on", default="error", help="exit 1 on findings at or above: error | warning | info (default: error)")
    p.set_defaults(func=_cmd_check)


def _cmd_check(args: argparse.Namespace) -> int:
    from edge_origin.checker import FORMATS, check_paths, format_findings, parse_severity
    from edge_origin.model import ModelError

    if args.format not in FORMATS:
        raise UsageError(f"--format {args.format!r}: allowed {', '.join(FORMATS)}")
    try:
        fail_on = parse_severity(args.fail_on)
    except ValueError as exc:
        raise UsageError(f"--fail-on: {exc}") from None
    try:
        result = check_paths(args.paths)
    except (ModelError, RecursionError, MemoryError) as exc:
        raise UsageError(str(exc) if isinstance(exc, ModelError) else f"cannot read templates ({type(exc).__name__})") from None
    sys.stdout.write(format_findings(result.findings, args.format))
    return EXIT_FINDINGS if result.failing(fail_on) else EXIT_OK


# --- report ------------------------------------------------------------------------------------
def _add_report_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write a review report (Markdown + Mermaid) of the edge-to-origin paths")
    p.add_argument("paths", nargs="+", metavar="PATH", help="template files or cdk.out directories")
    p.add_argument("--format", default="markdown", help="markdown | text (default: markdown)")
    p.set_defaults(func=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    from edge_origin.model import ModelError
    from edge_origin.report import REPORT_FORMATS, report_paths

    if args.format not in REPORT_FORMATS:
        raise UsageError(f"--format {args.format!r}: allowed {', '.join(REPORT_FORMATS)}")
    try:
        text = report_paths(args.paths, args.format)
    except (ModelError, RecursionError, MemoryError) as exc:
        raise UsageError(str(exc) if isinstance(exc, ModelError) else f"cannot read templates ({type(exc).__name__})") from None
    sys.stdout.write(text)
    return EXIT_OK


# --- profile -----------------------------------------------------------------------------------
def _add_profile_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("profile", help="check or render a connection profile (keepalive, idle timeouts, age)")
    psub = p.add_subparsers(dest="profile_command", required=True)
    c = psub.add_parser("check", help="check a profile file (JSON or YAML): exit 0 clean, 1 errors, 2 bad input")
    c.add_argument("file", help="profile file, JSON or YAML")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument("--no-cloudfront", action="store_true", help="internal origin: skip the CloudFront checks")
    r = psub.add_parser("render", help="render the matching gRPC settings for the services")
    r.add_argument("file", nargs="?", help="profile file (default: --preset, or the defaults)")
    r.add_argument("--preset", help="start from this preset (a file's own 'preset' key wins)")
    r.add_argument("--lang", required=True, help="go, java, python, service-config or configmap")
    r.add_argument("--name", default="edge-origin-connection-profile", help="ConfigMap name (--lang configmap)")
    r.add_argument("--namespace", default="default", help="ConfigMap namespace (--lang configmap)")
    p.set_defaults(func=_cmd_profile)


def _cmd_profile(args: argparse.Namespace) -> int:
    from edge_origin.profile import cli as profile_cli

    try:
        if args.profile_command == "check":
            code, out = profile_cli.check_file(args.file, args.format, cloudfront=not args.no_cloudfront)
        else:
            code, out = profile_cli.render_profile(args.file, args.preset, args.lang, args.name, args.namespace)
    except ValueError as exc:  # ProfileError, RenderError: bad input
        raise UsageError(str(exc).splitlines()[0]) from None
    sys.stdout.write(out)
    return code


# --- rehearse ----------------------------------------------------------------------------------
def _add_rehearse_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rehearse",
        help="replay a synchronized connection burst against the DNS plan",
        description="Replay a synchronized connection burst against the Route 53 plan of a name: real DNS and "
        "gRPC on loopback, or (--model) a Monte Carlo model at internet scale. Exit 0 when the connections "
        "spread, 1 when they pile up (max/mean > 1.35) or the run fails, 2 on bad input.",
    )
    p.add_argument("paths", nargs="+", help="template files (JSON/YAML) or a cdk.out directory")
    p.add_argument("--name", required=True, help="the origin DNS name whose record sets to rehearse")
    p.add_argument("--clients", type=int, default=200, help="gRPC clients released together (default 200)")
    p.add_argument("--edges", type=int, default=1, help="caching edge resolvers (default 1)")
    p.add_argument(
        "--lb-policy",
        default="shuffle",
        choices=["pick_first", "shuffle", "round_robin"],
        help="client load balancing; shuffle = pick_first over a shuffled address list (default)",
    )
    p.add_argument("--edge-rotation", action="store_true", help="edges rotate the cached answer per query")
    p.add_argument("--seed", type=int, default=None, help="seed for the DNS answers and the model")
    p.add_argument("--max-seconds", type=float, default=60.0, help="bound on the whole run (default 60)")
    p.add_argument("--duration", type=float, default=3.0, help="seconds each client keeps doing RPCs (default 3)")
    p.add_argument("--rpc-interval", type=float, default=1.0, help="seconds between a client's RPCs (default 1)")
    p.add_argument(
        "--time-scale",
        type=float,
        default=0.1,
        help="compresses TTLs and health-check intervals on loopback (default 0.1: 60 s -> 6 s)",
    )
    p.add_argument("--kill", metavar="ORIGIN@SECONDS", help="stop one origin this many seconds after the release")
    p.add_argument(
        "--late-clients",
        type=int,
        default=0,
        help="clients that join after the burst (with --kill: once the health-check window and TTL passed)",
    )
    p.add_argument(
        "--client-processes",
        type=int,
        default=1,
        help="split the clients over this many processes released together (default 1; 2 for bursts "
        "of thousands on 2+ cores: fewer slow connects, fewer pick_first parallel attempts)",
    )
    p.add_argument("--port", type=int, default=0, help="origin gRPC port on every loopback address (default: free)")
    p.add_argument("--dns-port", type=int, default=0, help="DNS port for the server and the edges (default: free)")
    p.add_argument("--json", action="store_true", help="write one JSON object to stdout")
    p.add_argument("--chart", metavar="PATH", help="write a PNG bar chart of connections per origin")
    p.add_argument("--model", action="store_true", help="run the Monte Carlo model instead (no sockets)")
    p.add_argument("--devices", type=int, default=1_000_000, help="--model: devices (default 1,000,000)")
    p.add_argument("--ttl", type=float, default=None, help="--model: TTL seconds (default: the records')")
    p.add_argument("--ramp-seconds", type=float, default=0.0, help="--model: seconds over which devices join")
    p.set_defaults(func=_cmd_rehearse)


def _cmd_rehearse(args: argparse.Namespace) -> int:
    import json

    from edge_origin.rehearsal import chart, from_model, montecarlo, runner
    from edge_origin.rehearsal.plan import PlanError

    try:
        plan = from_model.load_plan(args.paths, args.name)
        if args.model:
            result = montecarlo.run_model(
                plan,
                montecarlo.ModelConfig(
                    devices=args.devices,
                    edges=args.edges,
                    ttl=args.ttl,
                    ramp_seconds=args.ramp_seconds,
                    policy=args.lb_policy,
                    edge_rotation=args.edge_rotation,
                    seed=args.seed,
                ),
            )
        else:
            result = runner.rehearse(
                plan,
                runner.RehearsalConfig(
                    clients=args.clients,
                    edges=args.edges,
                    policy=args.lb_policy,
                    edge_rotation=args.edge_rotation,
                    seed=args.seed,
                    max_seconds=args.max_seconds,
                    duration=args.duration,
                    rpc_interval=args.rpc_interval,
                    time_scale=args.time_scale,
                    kill=runner.parse_kill(args.kill) if args.kill else None,
                    late_clients=args.late_clients,
                    client_processes=args.client_processes,
                    port=args.port,
                    dns_port=args.dns_port,
                ),
            )
    except (PlanError, runner.RehearsalError, montecarlo.ModelError) as exc:
        raise UsageError(str(exc)) from exc
    except runner.RehearsalFailed as exc:
        print(f"edge-origin rehearse: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.chart:
        chart.write_chart(result, args.chart)
    print(json.dumps(result.to_dict(), sort_keys=True) if args.json else result.text())
    return EXIT_OK if result.verdict == "spread" else EXIT_FINDINGS


# --- main --------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="edge-origin", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    _add_check_parser(sub)
    _add_report_parser(sub)
    _add_profile_parser(sub)
    _add_rehearse_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"edge-origin {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"edge-origin {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
