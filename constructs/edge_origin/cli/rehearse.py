"""`edge-origin rehearse`: argument parsing only; the work is in the library."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from edge_origin.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    PORT_OR_FREE,
    UsageError,
    finite_float,
    int_range,
    require_extra,
)

#: Chart formats matplotlib writes without extra packages.
CHART_SUFFIXES = (".png", ".svg", ".pdf")
MAX_CLIENTS = 100_000
LOCAL_WORKERS = 2  # --workers default with --engine locust on this machine
HTML_SUFFIXES = (".html", ".htm")
LOCUST_CSV_FILES = ("_stats.csv", "_stats_history.csv", "_failures.csv", "_exceptions.csv")
"""What Locust 2.47's ``--csv PREFIX`` writes (locust/stats.py); the same tuple as
``edge_origin.rehearsal.locust_engine.LOCUST_CSV_FILES`` (a test says so: this module must not import it)."""
MAX_RUN_SECONDS = 86_400.0
EXIT_INCONCLUSIVE = 3  # a loopback run too small to tell one address per resolver from one per client


def _kill_arg(text: str) -> tuple[str, float]:
    """argparse type for --kill: ORIGIN@SECONDS with finite seconds in range."""
    from edge_origin.rehearsal.runner import RehearsalError, parse_kill

    try:
        return parse_kill(text)
    except RehearsalError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--kill: ")) from None


def check_chart_path(text: str) -> Path:
    """UsageError unless a chart can be written at ``text``: a name, a known extension, an existing
    writable folder, and nothing there but a regular file (a FIFO or a device would block or fail)."""
    return check_output_path("--chart", text, CHART_SUFFIXES)


def check_output_path(flag: str, text: str, suffixes: tuple[str, ...] | None, *, outputs: tuple[str, ...] = ("",)) -> Path:
    """UsageError (one line naming ``flag``) unless files can be written at ``text``: a name, one of
    ``suffixes`` (None: any), an existing writable folder, and nothing there but regular files.
    ``outputs`` are the suffixes appended to ``text`` for the files really written (Locust's ``--csv
    PREFIX`` writes ``PREFIX_stats.csv``...)."""
    import os
    import stat

    allowed = f"a file name ending in {', '.join(suffixes)}" if suffixes else "a file name"
    if not text.strip():
        raise UsageError(f"{flag} '': empty; give {allowed}")
    if "\x00" in text:
        raise UsageError(f"{flag} {text!r}: a file name cannot hold a NUL byte")
    path = Path(text)
    if text.endswith(("/", os.sep)) or path.name in ("", ".", ".."):
        raise UsageError(f"{flag} {text[:80]!r}: names a folder; give {allowed}")
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise UsageError(f"{flag} {text[:80]!r}: unknown extension {path.suffix[:20] or '(none)'!r}; allowed: {', '.join(suffixes)}")
    parent = path.parent if str(path.parent) else Path(".")
    targets = [Path(f"{text}{tail}") for tail in outputs]
    try:
        if not parent.is_dir():
            raise UsageError(f"{flag} {text[:80]!r}: folder {str(parent)[:80]!r} does not exist")
        modes = [(t, t.stat().st_mode) for t in targets if t.exists()]
    except OSError as exc:  # a name too long, a loop of links
        raise UsageError(f"{flag} {text[:80]!r}: cannot write there ({exc.strerror or exc})") from None
    for target, mode in modes:
        if stat.S_ISDIR(mode):
            raise UsageError(f"{flag} {text[:80]!r}: {str(target)[:80]!r} is a directory")
        if not stat.S_ISREG(mode):
            raise UsageError(f"{flag} {text[:80]!r}: {str(target)[:80]!r} exists and is not a regular file (a FIFO, socket or device)")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{flag} {text[:80]!r}: folder {str(parent)[:80]!r} is not writable")
    if any(len(part.encode("utf-8", "surrogatepass")) > 255 - max(map(len, outputs)) for part in path.parts):
        raise UsageError(f"{flag} {text[:80]!r}...: a name in the path is longer than 255 bytes")
    for target in targets:
        _probe_write(flag, target, parent, text)
    return path


def _probe_write(flag: str, path: Path, parent: Path, text: str) -> None:
    """Write there for real before the run: permission bits say nothing for root, a read-only
    mount or /proc and /sys (``os.access`` answers yes). An existing file is opened for append (not
    truncated); otherwise a probe file is made in the folder and removed."""
    import os
    import tempfile

    try:
        if path.exists():
            with open(path, "ab"):
                pass
        else:
            fd, probe = tempfile.mkstemp(dir=parent, prefix=".edge-origin-output-", suffix=".probe")
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        raise UsageError(
            f"{flag} {text[:80]!r}: folder {str(parent)[:80]!r} cannot be written ({exc.strerror or exc})"
        ) from None


# --- rehearse ----------------------------------------------------------------------------------
def _add_rehearse_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rehearse",
        help="replay a synchronized connection burst against the DNS plan",
        description="Replay a synchronized connection burst against the Route 53 plan of a name: real DNS and "
        "gRPC on loopback, or (--model) a Monte Carlo model at internet scale. A loopback run is judged against "
        "the max/mean that one address per resolver (pile-up) and one per client (spread) give for these "
        "addresses, edges, clients and lb policy, with the probability of a wrong call (docs/rehearsal.md). "
        "Exit 0 spread, 1 pile-up (or the run failed), 2 bad input, 3 inconclusive (the run is too small to "
        "tell the two apart: it says which --edges would).",
    )
    p.add_argument("paths", nargs="+", help="template files (JSON/YAML) or a cdk.out directory")
    p.add_argument("--name", required=True, help="the origin DNS name whose record sets to rehearse")
    p.add_argument("--clients", type=int_range(1, MAX_CLIENTS), default=200, help="gRPC clients released together (default 200)")
    p.add_argument("--edges", type=int_range(1, MAX_CLIENTS), default=1, help="caching edge resolvers (default 1)")
    p.add_argument(
        "--lb-policy",
        default="shuffle",
        choices=["pick_first", "shuffle", "round_robin"],
        help="client load balancing; shuffle = pick_first over a shuffled address list (default)",
    )
    p.add_argument("--edge-rotation", action="store_true", help="edges rotate the cached answer per query")
    p.add_argument(
        "--resolver",
        choices=("builtin", "unbound"),
        default="builtin",
        help="who caches the answers: each edge its own (builtin, default), or one real unbound the edges forward "
        "to, started and stopped by this run (Debian: apt-get install -y unbound); the report shows its cache hits",
    )
    p.add_argument(
        "--seed",
        type=int_range(0, 2**63 - 1),
        default=None,
        help="seed for the DNS answers, the clients' release order and the model (default: drawn and printed; "
        "the same seed replays the run's DNS answers per edge)",
    )
    p.add_argument("--max-seconds", type=finite_float(0, MAX_RUN_SECONDS, lo_open=True), default=60.0, help="bound on the whole run (default 60)")
    p.add_argument("--duration", type=finite_float(0, MAX_RUN_SECONDS, lo_open=True), default=3.0, help="seconds each client keeps doing RPCs (default 3)")
    p.add_argument("--rpc-interval", type=finite_float(0, 3600, lo_open=True), default=1.0, help="seconds between a client's RPCs (default 1)")
    p.add_argument(
        "--time-scale",
        type=finite_float(0, 1000, lo_open=True),
        default=0.1,
        help="compresses TTLs and health-check intervals on loopback (default 0.1: 60 s -> 6 s)",
    )
    p.add_argument("--kill", type=_kill_arg, metavar="ORIGIN@SECONDS", help="stop one origin this many seconds after the release")
    p.add_argument(
        "--late-clients",
        type=int_range(0, MAX_CLIENTS),
        default=0,
        help="clients that join after the burst (with --kill: once the health-check window and TTL passed)",
    )
    p.add_argument(
        "--client-processes",
        type=int_range(1, 64),
        default=1,
        help="split the clients over this many processes released together (default 1; 2 for bursts "
        "of thousands on 2+ cores: fewer slow connects, fewer pick_first parallel attempts)",
    )
    p.add_argument(
        "--engine",
        choices=("builtin", "locust"),
        default="builtin",
        help="who plays the clients: builtin client processes (default) or a local Locust master and "
        "--workers worker processes (the shipped locustfile; docs/rehearsal.md for a multi-machine run)",
    )
    p.add_argument(
        "--workers",
        type=int_range(1, 500),
        default=None,
        help="Locust worker processes with --engine locust (default 2, at most 32 on this machine); with "
        "--manifest the worker pods (1..500; default: from the measured per-worker connects/s and --burst-seconds)",
    )
    p.add_argument(
        "--manifest",
        nargs="?",
        const="-",
        metavar="FILE|-",
        help="with --engine locust: render (never apply) a Kubernetes manifest for the Locust operator "
        "(locust-k8s-operator LocustTest locust.io/v2 + a ConfigMap with the shipped locustfile and the configuration) "
        "to FILE (.yaml/.yml) or stdout, instead of running",
    )
    p.add_argument("--image", help="with --manifest: a Locust image with edge-origin[rehearsal] installed (required)")
    p.add_argument("--k8s-name", default="edge-origin-rehearsal", help="with --manifest: the LocustTest's name (default edge-origin-rehearsal)")
    p.add_argument("--namespace", default=None, help="with --manifest: the namespace (default: none written, kubectl's current)")
    p.add_argument(
        "--burst-seconds",
        type=finite_float(0, 3600, lo_open=True),
        default=None,
        help="with --manifest: the window the burst's new connections must open in, which sizes the workers (default 1)",
    )
    p.add_argument(
        "--csv",
        metavar="PREFIX",
        help="with --engine locust: Locust's own CSV statistics (passed to the Locust master as --csv: "
        "PREFIX_stats.csv, PREFIX_stats_history.csv, PREFIX_failures.csv, PREFIX_exceptions.csv)",
    )
    p.add_argument(
        "--html",
        metavar="FILE",
        help="with --engine locust: Locust's own HTML report (passed to the Locust master as --html; .html)",
    )
    p.add_argument("--port", type=PORT_OR_FREE, default=0, help="origin gRPC port on every loopback address (default: free)")
    p.add_argument("--dns-port", type=PORT_OR_FREE, default=0, help="DNS port for the server and the edges (default: free)")
    p.add_argument("--json", action="store_true", help="write one JSON object to stdout")
    p.add_argument(
        "--chart", metavar="PATH", help=f"write a bar chart of connections per origin ({', '.join(CHART_SUFFIXES)}; checked before the run)"
    )
    p.add_argument("--model", action="store_true", help="run the Monte Carlo model instead (no sockets)")
    from edge_origin.cli.forecast_args import add_model_arguments

    add_model_arguments(p)  # --devices, --ttl, --ramp-seconds, --resolvers, --edge-traffic, --origin-capacity...
    p.set_defaults(func=_cmd_rehearse)


def _cmd_rehearse(args: argparse.Namespace) -> int:
    import json

    from edge_origin.rehearsal import EXTRA_MODULES

    if _check_manifest_args(args) is not None:  # renders only: no Locust, gRPC or DNS here
        return _write_manifest(args)
    if args.engine == "locust":
        import importlib.util

        # found, not imported: importing locust patches this process's standard library with gevent
        if importlib.util.find_spec("locust") is None:
            from edge_origin.cli.common import install_hint

            raise UsageError(
                f"rehearse --engine locust needs the 'rehearsal' extra (locust is not installed): {install_hint('rehearsal')}"
            )
    for module in (*EXTRA_MODULES, *(("matplotlib",) if args.chart is not None else ())):
        require_extra(module, "rehearsal", "rehearse")  # one line naming the extra, exit 2
    from edge_origin.forecast import montecarlo as montecarlo
    from edge_origin.rehearsal import chart, from_model, runner
    from edge_origin.rehearsal.plan import PlanError

    if args.model and args.resolver != "builtin":
        raise UsageError("--resolver is for the loopback run; the model's shared resolvers are --resolvers N")
    if args.chart is not None:
        check_chart_path(args.chart)
    locust_csv, locust_html = _locust_outputs(args)
    try:
        plan = from_model.load_plan(args.paths, args.name)
        if args.seed is None:
            import secrets

            args.seed = secrets.randbits(runner.SEED_BITS)  # drawn here, recorded in the result: replayable
        if args.model:
            from edge_origin.cli.forecast_args import run_model_from_args

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
                    kill=args.kill,
                    late_clients=args.late_clients,
                    client_processes=args.client_processes,
                    engine=args.engine,
                    workers=LOCAL_WORKERS if args.workers is None else args.workers,
                    locust_csv=locust_csv,
                    locust_html=locust_html,
                    port=args.port,
                    dns_port=args.dns_port,
                    resolver=args.resolver,
                ),
            )
    except (PlanError, runner.RehearsalError, montecarlo.ModelInputError) as exc:
        raise UsageError(str(exc)) from exc
    except runner.RehearsalFailed as exc:
        print(f"edge-origin rehearse: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.chart is not None:
        try:
            chart.write_chart(result, args.chart)
        except OSError as exc:  # the folder changed during the run: say so, keep the result
            print(f"edge-origin rehearse: --chart {args.chart[:80]!r}: not written ({exc.strerror or exc})", file=sys.stderr)
            print(json.dumps(result.to_dict(), sort_keys=True) if args.json else result.text())
            return EXIT_FINDINGS
    print(json.dumps(result.to_dict(), sort_keys=True) if args.json else result.text())
    return verdict_exit(result.verdict)


def verdict_exit(verdict: str) -> int:
    """spread 0, inconclusive 3, anything else (pile-up, the model's overload) 1."""
    if verdict == "spread":
        return EXIT_OK
    return EXIT_INCONCLUSIVE if verdict == "inconclusive" else EXIT_FINDINGS


def _locust_outputs(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """``--csv`` / ``--html``: Locust's own outputs, only with ``--engine locust``; checked before the run
    and made absolute (the master runs in its own working folder)."""
    import os

    given = [flag for flag, value in (("--csv", args.csv), ("--html", args.html)) if value is not None]
    if given and (args.engine != "locust" or args.model):
        raise UsageError(f"{given[0]} writes Locust's own output: it needs --engine locust (and no --model)")
    csv = html = None
    if args.csv is not None:
        check_output_path("--csv", args.csv, None, outputs=LOCUST_CSV_FILES)
        csv = os.path.abspath(args.csv)
    if args.html is not None:
        check_output_path("--html", args.html, HTML_SUFFIXES)
        html = os.path.abspath(args.html)
    return csv, html


_MANIFEST_ONLY = (("--image", "image", None), ("--k8s-name", "k8s_name", "edge-origin-rehearsal"),
                  ("--namespace", "namespace", None), ("--burst-seconds", "burst_seconds", None))
_NOT_WITH_MANIFEST = (("--model", "model", False), ("--resolver", "resolver", "builtin"),
                      ("--kill", "kill", None), ("--late-clients", "late_clients", 0),
                      ("--chart", "chart", None), ("--csv", "csv", None), ("--html", "html", None),
                      ("--edge-rotation", "edge_rotation", False), ("--client-processes", "client_processes", 1))


def _check_manifest_args(args: argparse.Namespace) -> str | None:
    """``--manifest`` and its flags, one line each, before anything is read: None without ``--manifest``."""
    if args.manifest is None:
        given = [flag for flag, attr, default in _MANIFEST_ONLY if getattr(args, attr) != default]
        if given:
            raise UsageError(f"{given[0]} is for --manifest (rendering a Locust operator manifest)")
        return None
    if args.engine != "locust":
        raise UsageError("--manifest renders the Locust engine's run: it needs --engine locust")
    clash = [flag for flag, attr, default in _NOT_WITH_MANIFEST if getattr(args, attr) != default]
    if clash:
        raise UsageError(f"{clash[0]} does not apply to --manifest (nothing runs here; the operator runs the locustfile)")
    if args.image is None:
        raise UsageError("--manifest needs --image: a Locust image with edge-origin[rehearsal] installed "
                         "(docs/rehearsal-at-scale.md shows a Dockerfile)")
    if not args.port:
        raise UsageError("--manifest needs --port 1..65535: the origin's gRPC port the workers dial")
    if args.manifest != "-":
        check_output_path("--manifest", args.manifest, (".yaml", ".yml"))
    return args.manifest


def _write_manifest(args: argparse.Namespace) -> int:
    """Render the manifest (nothing applied) to ``--manifest FILE`` or stdout; the worker count on stderr.
    The templates' plan for ``--name`` is read first: the name must have record sets to rehearse."""
    from edge_origin._version import __version__
    from edge_origin.rehearsal import from_model
    from edge_origin.rehearsal import locust_manifest as lm
    from edge_origin.rehearsal.locust_config import LOCUSTFILE  # pure: no Locust, gRPC or DNS import
    from edge_origin.rehearsal.plan import PlanError

    try:
        plan = from_model.load_plan(args.paths, args.name)
    except PlanError as exc:
        raise UsageError(str(exc)) from exc
    req = lm.ManifestRequest(
        test_name=args.k8s_name, image=args.image, origin_name=args.name, port=args.port, clients=args.clients,
        edges=args.edges, policy=args.lb_policy, duration=args.duration, rpc_interval=args.rpc_interval,
        max_seconds=args.max_seconds, burst_seconds=1.0 if args.burst_seconds is None else args.burst_seconds,
        workers=args.workers, namespace=args.namespace,
    )
    try:
        docs, facts = lm.render(req, LOCUSTFILE)
    except lm.ManifestError as exc:
        raise UsageError(str(exc)) from None
    facts["plan"] = f"{plan.name}: {len(plan.records)} {plan.routing} record set(s), {len(plan.origins)} origin address(es)"
    text = lm.to_yaml(docs, facts, __version__)
    if args.manifest == "-":
        sys.stdout.write(text)
    else:
        Path(args.manifest).write_text(text, encoding="utf-8")
    print(f"edge-origin rehearse: {facts['workers']} Locust worker(s): {facts['workers_from']}; nothing applied", file=sys.stderr)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    _add_rehearse_parser(sub)
