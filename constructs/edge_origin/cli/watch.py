"""`edge-origin watch`: CloudWatch metrics of an origin path -> a spread verdict over time (parsing only).

Exit codes: 0 spread (or idle: below the flow floor), 1 a pile-up, flows accumulating without new
ones, or too few healthy records, 2 bad input or nothing readable (every path "not checked").
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from edge_origin.cli.common import UsageError, finite_float, int_range, require_extra
from edge_origin.core import watch_math as wm

FORMATS = ("text", "json", "markdown")
MAX_FOLLOW = 1440


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
    p.add_argument("--chart", metavar="PNG", help="also draw the shares and max/mean over time (needs the rehearsal extra)")
    p.add_argument("--follow", type=int_range(1, MAX_FOLLOW), metavar="N",
                   help=f"refresh N times (1..{MAX_FOLLOW}), clearing the terminal between views; exit code of the last")
    p.add_argument("--every", type=finite_float(0.0, 3600.0), default=None, metavar="SECONDS",
                   help="seconds between --follow refreshes, 0..3600 (default: --period)")
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
    if args.chart:
        require_extra("matplotlib", "rehearsal", "watch --chart")
    session = _session(args)
    rounds = args.follow or 1
    every = args.period if args.every is None else args.every
    code = 0
    for n in range(rounds):
        result = watch(session, args.cdk_out, args.grpc_origin, since, period, thresholds)
        if args.follow and args.format == "json":  # one JSON document a line, one line a refresh
            sys.stdout.write(json.dumps(result.to_dict(), sort_keys=True) + "\n")
        elif args.format == "json":
            sys.stdout.write(to_json(result))
        else:
            if args.follow:
                sys.stdout.write(("\x1b[2J\x1b[H" if sys.stdout.isatty() else "") + f"[{n + 1}/{rounds}]\n")
            sys.stdout.write(result.text(markdown=args.format == "markdown"))
        sys.stdout.flush()
        if args.chart:
            _chart(result, args.chart)
        code = result.exit_code
        if n + 1 < rounds:
            time.sleep(every)
    return code


def _chart(result: object, path: str) -> None:
    from edge_origin.live.watch_chart import write_watch_chart

    try:
        write_watch_chart(result, path)  # type: ignore[arg-type]
    except OSError as exc:
        raise UsageError(f"--chart {path}: cannot write ({exc.strerror or exc})") from None

__all__ = ["FORMATS", "MAX_FOLLOW", "register"]
