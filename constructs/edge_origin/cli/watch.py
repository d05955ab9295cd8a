"""`edge-origin watch`: CloudWatch metrics of an origin path -> a spread verdict over time (parsing only).

Exit codes: 0 spread (or idle: below the flow floor), 1 a pile-up, flows accumulating without new
ones, or too few healthy records, 2 bad input or nothing readable (every path "not checked").
"""

from __future__ import annotations

import argparse
import sys

from edge_origin import watch_math as wm
from edge_origin.cli.common import UsageError, finite_float, int_range

FORMATS = ("text", "json", "markdown")


def register(sub: argparse._SubParsersAction) -> None:
    from edge_origin.cli.live import _live
    from edge_origin.live.session import add_session_arguments

    p = sub.add_parser(
        "watch",
        help="read-only: CloudWatch metrics of an origin path -> spread verdict over time (exit 0 spread, 1 pile-up, 2 not readable)",
    )
    p.add_argument("cdk_out", nargs="?", metavar="CDK_OUT", help="cloud assembly (its deployed stacks); default: find the path in the account")
    p.add_argument("--grpc-origin", action="append", default=[], metavar="NAME", help="the origin name to watch (repeatable)")
    p.add_argument("--since", default="30m", help="how far back: 30m, 2h, 1d (1m..15d; default 30m)")
    p.add_argument("--period", type=int_range(60, 3600), default=wm.DEFAULT_PERIOD_S,
                   help="seconds a period, whole minutes 60..3600 (default 60)")
    p.add_argument("--imbalance-threshold", type=finite_float(*wm.IMBALANCE_THRESHOLD_RANGE), default=wm.IMBALANCE_THRESHOLD,
                   help=f"max/mean that is a pile-up (default {wm.IMBALANCE_THRESHOLD}, as the alarm)")
    p.add_argument("--flow-floor", type=int_range(*wm.FLOW_FLOOR_RANGE), default=wm.IMBALANCE_FLOW_FLOOR,
                   help=f"total active flows below which spread is not judged (default {wm.IMBALANCE_FLOW_FLOOR})")
    p.add_argument("--format", default="text", help="text | json | markdown (default: text)")
    add_session_arguments(p)
    p.set_defaults(func=_live(_cmd_watch))


def _cmd_watch(args: argparse.Namespace) -> int:
    from edge_origin.cli.live import _session, _valid_dns_name
    from edge_origin.live.watch import Thresholds, check_period, parse_since, to_json, watch
    from edge_origin.model import normalize_name

    if args.format not in FORMATS:
        raise UsageError(f"--format {args.format!r}: allowed {', '.join(FORMATS)}")
    for name in args.grpc_origin:
        if not _valid_dns_name(normalize_name(name)):
            raise UsageError(f"--grpc-origin {name!r}: not a DNS name (labels of letters, digits, '-', '_', '*')")
    since = parse_since(args.since)
    period = check_period(args.period, since)
    thresholds = Thresholds(imbalance=args.imbalance_threshold, flow_floor=args.flow_floor)
    result = watch(_session(args), args.cdk_out, args.grpc_origin, since, period, thresholds)
    if args.format == "json":
        sys.stdout.write(to_json(result))
    else:
        sys.stdout.write(result.text(markdown=args.format == "markdown"))
    return result.exit_code


__all__ = ["FORMATS", "register"]
