"""`edge-origin rehearse`: argument parsing only; the work is in the library."""

from __future__ import annotations

import argparse
import sys

from edge_origin.cli.common import EXIT_FINDINGS, EXIT_OK, UsageError


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
    from edge_origin.cli.model_args import add_model_arguments

    add_model_arguments(p)  # --devices, --ttl, --ramp-seconds, --resolvers, --edge-traffic, --origin-capacity...
    p.set_defaults(func=_cmd_rehearse)


def _cmd_rehearse(args: argparse.Namespace) -> int:
    import json

    from edge_origin.rehearsal import chart, from_model, montecarlo, runner
    from edge_origin.rehearsal.plan import PlanError

    try:
        plan = from_model.load_plan(args.paths, args.name)
        if args.model:
            from edge_origin.cli.model_args import run_model_from_args

            result = run_model_from_args(args, plan)
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


def register(sub: argparse._SubParsersAction) -> None:
    _add_rehearse_parser(sub)
