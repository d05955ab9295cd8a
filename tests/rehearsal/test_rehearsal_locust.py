"""``rehearse --engine locust``: a Locust master and worker processes play the burst's clients.

The end-to-end cases (marked slow) run a master and 2 workers on 127.0.0.1 against the
rehearsal's own loopback origins and hold them to the built-in engine's bands; the unit cases
check the configuration, the edge assignment and the CLI without starting Locust.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin import cli
from edge_origin.rehearsal.locust_config import (
    MAX_REMOTE_CLIENTS,
    LocustConfigError,
    clients_of_edge,
    target_of,
    validate_config,
)
from edge_origin.rehearsal.locust_engine import LOCUSTFILE, master_command, per_worker_figures, worker_command
from edge_origin.rehearsal.metrics import SPREAD_LIMIT
from edge_origin.rehearsal.runner import RehearsalConfig, RehearsalError, rehearse

# found, never imported: importing locust would patch this pytest process with gevent
if importlib.util.find_spec("locust") is None:
    pytest.skip("locust is not installed (the 'rehearsal' extra)", allow_module_level=True)

K = 6
QUICK = {"duration": 2.0, "rpc_interval": 0.5, "max_seconds": 60.0, "seed": 7, "engine": "locust", "workers": 2}


def _config(**over: object) -> dict:
    cfg = {
        "name": "origin.example.com", "port": 50051, "resolvers": ["127.0.20.1:5353"], "edges": 2, "clients": 10,
        "policy": "shuffle", "duration": 1.0, "rpc_interval": 0.5, "rpc_timeout": 5.0, "max_seconds": 30.0,
        "min_resolution_ms": 500,
    }
    cfg.update(over)
    return cfg


def _our_locust_processes() -> list[int]:
    """Locust processes below this one still alive; a task or child that vanishes mid-walk is skipped."""
    found: list[int] = []
    for path in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        try:
            pids = Path(path).read_text().split()
        except OSError:  # the thread exited between the glob and the read
            continue
        for pid in pids:
            with contextlib.suppress(OSError):
                if b"locust" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    stat = Path(f"/proc/{pid}/stat").read_text().split()
                    if stat[2] != "Z":
                        found.append(int(pid))
    return found


# ---- unit: configuration, assignment, commands (no Locust process) ----


def test_loopback_config_is_accepted() -> None:
    checked = validate_config(_config())
    assert checked["remote"] is False and checked["allow_remote"] is False


@pytest.mark.parametrize(
    ("over", "needle"),
    [
        ({"resolvers": ["10.0.0.2:53"]}, "allow_remote"),
        ({"resolvers": []}, "allow_remote"),
        ({"resolvers": ["127.0.0.1"]}, "IP:PORT"),
        ({"resolvers": ["resolver.example:53"]}, "IP address"),
        ({"edges": 0}, "'edges'"),
        ({"clients": 1, "edges": 2}, "at least 'edges'"),
        ({"policy": "random"}, "'policy'"),
        ({"port": 70000}, "'port'"),
        ({"duration": float("nan")}, "'duration'"),
        ({"allow_remote": "yes"}, "'allow_remote'"),
        ({"colour": 1}, "unknown field 'colour'"),
        ({"name": "has space"}, "'name'"),
        ({"resolvers": ["8.8.8.8:53"], "allow_remote": True, "clients": MAX_REMOTE_CLIENTS + 1}, "bounded"),
        ({"resolvers": ["8.8.8.8:53"], "allow_remote": True, "max_seconds": 901.0}, "bounded"),
    ],
)
def test_bad_config_is_one_line_naming_the_field(over: dict, needle: str) -> None:
    with pytest.raises(LocustConfigError) as exc:
        validate_config(_config(**over))
    assert needle in str(exc.value)
    assert "\n" not in str(exc.value)


def test_a_staging_target_needs_allow_remote_and_then_is_bounded() -> None:
    checked = validate_config(_config(resolvers=[], allow_remote=True, clients=100))
    assert checked["remote"] is True
    assert target_of(checked, 0) == ("dns:///origin.example.com:50051", "system")


@settings(max_examples=200, database=None)
@given(st.ip_addresses(v=4), st.integers(1, 65535))
def test_only_loopback_resolvers_run_without_allow_remote(ip, port: int) -> None:
    cfg = _config(resolvers=[f"{ip}:{port}"])
    if ip.is_loopback:
        assert validate_config(cfg)["remote"] is False
    else:
        with pytest.raises(LocustConfigError, match="allow_remote"):
            validate_config(cfg)


@settings(max_examples=200, database=None)
@given(st.integers(1, 300), st.integers(0, 2000))
def test_edges_partition_the_clients_as_the_builtin_engine(edges: int, extra: int) -> None:
    clients = edges + extra
    parts = [clients_of_edge(e, edges, clients) for e in range(edges)]
    flat = [i for p in parts for i in p]
    assert sorted(flat) == list(range(clients))
    assert all(i % edges == e for e, p in enumerate(parts) for i in p)


def test_commands_bind_loopback_and_name_the_shipped_locustfile() -> None:
    assert Path(LOCUSTFILE).is_file()
    master = master_command(LOCUSTFILE, 5557, 2, 6, 30)
    assert master[master.index("--master-bind-host") + 1] == "127.0.0.1"
    assert master[master.index("--expect-workers") + 1] == "2"
    assert master[master.index("-u") + 1] == "6"
    worker = worker_command(LOCUSTFILE, 5557)
    assert worker[worker.index("--master-host") + 1] == "127.0.0.1"


def test_per_worker_figures() -> None:
    rec = {"first_ok": 0.2, "errors": {"UNAVAILABLE": 2}, "origins": [[0.2, "A"], [1.0, "B"]]}
    never = {"first_ok": None, "errors": {}, "origins": []}
    figures = per_worker_figures({"w-b": {"edges": 1, "clients": [rec, never]}, "w-a": {"edges": 2, "clients": [rec]}})
    assert figures["worker0"]["id"] == "w-a"
    assert figures["worker1"] == {
        "id": "w-b", "edges": 1, "clients": 2, "connected": 1, "failed_rpcs": 2, "landed": {"A": 1},
        "first_rpc_seconds": {"p50": 0.2, "p99": 0.2},
    }


def test_importing_the_user_module_outside_locust_is_refused() -> None:
    code = "import edge_origin.rehearsal.locust"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert "runs inside a Locust process" in proc.stderr


@pytest.mark.parametrize(
    ("cfg", "needle"),
    [
        (RehearsalConfig(clients=10, engine="locust", late_clients=5), "--late-clients"),
        (RehearsalConfig(clients=10, engine="locust", client_processes=2), "--workers"),
        (RehearsalConfig(clients=10, engine="locust", workers=0), "--workers must be 1..32"),
        (RehearsalConfig(clients=10, engine="grpc-go"), "--engine must be one of builtin, locust"),
    ],
)
def test_engine_options_are_checked_before_anything_starts(reference_plan_from_templates, cfg, needle: str) -> None:
    with pytest.raises(RehearsalError, match=needle.replace(".", r"\.")):
        rehearse(reference_plan_from_templates, cfg)


def test_cli_without_locust_names_the_extra(monkeypatch, capsys) -> None:
    from rehearsal_paths import NAME, REFERENCE

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "locust" else real(name, *a))
    code = cli.main(["rehearse", str(REFERENCE), "--name", NAME, "--engine", "locust"])
    assert code == 2
    err = capsys.readouterr().err
    assert "locust is not installed" in err and "edge-origin[rehearsal]" in err


# ---- grpcio under gevent, as the workers run it ----

_GEVENT_PROBE = textwrap.dedent(
    """
    import sys
    from gevent import monkey
    monkey.patch_all()
    if sys.argv[2] == "init":
        import edge_origin.rehearsal.locust  # noqa: F401  (calls grpc.experimental.gevent.init_gevent())
    import gevent, grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    n = int(sys.argv[3])
    channels = [grpc.insecure_channel(sys.argv[1]) for _ in range(n)]
    def one(ch):
        try:
            health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=8)
            return "ok"
        except grpc.RpcError as exc:
            return exc.code().name
    jobs = [gevent.spawn(one, ch) for ch in channels]
    gevent.joinall(jobs, timeout=20)
    print(",".join(j.value or "none" for j in jobs))
    """
)


def _barrier_server(parties: int):  # noqa: ANN202 - (server, port)
    """A health server whose Check returns only once ``parties`` RPCs are in flight together."""
    import threading
    from concurrent import futures

    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    barrier = threading.Barrier(parties, timeout=5)

    class Health(health_pb2_grpc.HealthServicer):
        def Check(self, request, context):  # noqa: N802 - gRPC's name
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "not concurrent")
            return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=parties + 2), options=[("grpc.so_reuseport", 0)])
    health_pb2_grpc.add_HealthServicer_to_server(Health(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_grpc_under_gevent_keeps_every_greenlet_in_flight() -> None:
    """With init_gevent (what the worker module does) 8 blocking RPCs from 8 greenlets are in flight
    at once (the server's barrier opens); the control without it must not manage that."""
    results = {}
    for mode in ("init", "control"):
        server, port = _barrier_server(8)
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _GEVENT_PROBE, f"127.0.0.1:{port}", mode, "8"],
                capture_output=True, text=True, timeout=60, check=False,
            )
        finally:
            server.stop(grace=None)
        results[mode] = proc.stdout.strip().split(",") if proc.returncode == 0 else [f"exit {proc.returncode}"]
    assert results["init"] == ["ok"] * 8, results
    assert results["control"] != ["ok"] * 8, results


# ---- end to end: a master and 2 workers on 127.0.0.1 ----


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_locust_multivalue_spreads_within_the_builtin_band(reference_plan_from_templates) -> None:
    cfg = RehearsalConfig(clients=500, edges=10, **QUICK)  # N=500 over 6 origins, as the built-in spread test
    run = rehearse(reference_plan_from_templates, cfg)
    assert run.details["engine"] == "locust"
    assert run.errors == {}, run.errors
    assert run.details["clients_connected"] == cfg.clients
    assert sum(run.connections.values()) == cfg.clients
    assert run.max_over_mean <= SPREAD_LIMIT, run.connections
    per_worker = run.details["locust"]["per_worker"]
    assert len(per_worker) == 2
    assert sum(w["clients"] for w in per_worker.values()) == cfg.clients
    assert all(w["edges"] == 5 for w in per_worker.values())
    assert run.details["locust"]["lost_workers"] == 0
    assert _our_locust_processes() == []
    assert "locust worker0" in run.text() and "locust worker1" in run.text()


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_locust_weighted_piles_up(weighted_plan_from_templates) -> None:
    cfg = RehearsalConfig(clients=200, edges=2, **QUICK)
    run = rehearse(weighted_plan_from_templates, cfg)
    assert run.errors == {}, run.errors
    assert sum(1 for v in run.connections.values() if v) <= 2  # one answer (one address) per edge
    assert run.max_over_mean >= K / 2
    assert run.verdict == "pile-up"


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_locust_origin_killed_mid_burst_moves_its_clients_as_the_builtin_engine(reference_plan_from_templates) -> None:
    plan = reference_plan_from_templates
    cfg = RehearsalConfig(clients=120, edges=6, kill=("Nlb1Eip1", 0.8), **{**QUICK, "duration": 7.0})
    run = rehearse(plan, cfg)
    kill = run.details["kill"]
    victim = next(k for k in plan.origin_keys if "Nlb1Eip1" in k)
    spec = next(r.health_check for r in plan.records if r.health_check and victim in r.values)
    window = spec.window_seconds * cfg.time_scale
    assert kill["origin"] == victim
    assert kill["dropped_at"] is not None
    # never before FailureThreshold probes can have failed (the first may come right after the kill:
    # (threshold - 1) intervals); how late depends on the shared machine's load, so only the lower bound
    earliest = kill["at"] + window - spec.request_interval * cfg.time_scale
    assert kill["dropped_at"] >= earliest - 0.2, kill
    assert kill["clients_on_killed"] > 0, kill
    assert kill["clients_moved"] == kill["clients_on_killed"], kill
    assert kill["rpcs_on_killed_after_kill"] == 0
    assert kill["answers_with_killed_after_drop"] == 0


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_a_worker_killed_mid_run_is_reported_and_the_run_ends(reference_plan_from_templates) -> None:
    cfg = RehearsalConfig(clients=60, edges=4, lose_worker_at=0.5, **{**QUICK, "duration": 8.0})
    run = rehearse(reference_plan_from_templates, cfg)
    locust = run.details["locust"]
    assert locust["lost_workers"] == 1
    assert locust["clients_lost"] == 30 and len(locust["edges_lost"]) == 2
    assert run.clients == 30
    assert any("worker(s) lost mid-run" in n for n in run.details["notes"])
    assert _our_locust_processes() == []


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_cli_engine_locust_json(tmp_path: Path) -> None:
    from rehearsal_paths import NAME, REFERENCE

    env = dict(os.environ, PYTHONPATH=str(Path(cli.__file__).resolve().parents[2]))
    proc = subprocess.run(
        [sys.executable, "-m", "edge_origin.cli", "rehearse", str(REFERENCE), "--name", NAME, "--engine", "locust",
         "--workers", "2", "--clients", "40", "--edges", "4", "--duration", "1.5", "--json"],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )
    doc = json.loads(proc.stdout)
    assert proc.returncode == (0 if doc["verdict"] == "spread" else 1), proc.stderr  # 40 clients: either may come
    assert doc["plan"] == NAME and doc["details"]["engine"] == "locust"
    assert sum(doc["connections"].values()) == 40


# ---- Locust's own outputs: --csv PREFIX / --html FILE passed through to the master ----


def test_master_command_passes_csv_and_html_through() -> None:
    plain = master_command(LOCUSTFILE, 5557, 2, 6, 30)
    assert "--csv" not in plain and "--html" not in plain
    cmd = master_command(LOCUSTFILE, 5557, 2, 6, 30, "/out/eo", "/out/report.html")
    assert cmd[cmd.index("--csv") + 1] == "/out/eo"
    assert cmd[cmd.index("--html") + 1] == "/out/report.html"


def test_the_cli_names_the_files_locust_writes() -> None:
    from edge_origin.cli import rehearse as cli_rehearse
    from edge_origin.rehearsal import locust_engine

    assert cli_rehearse.LOCUST_CSV_FILES == locust_engine.LOCUST_CSV_FILES


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--csv", "{tmp}/eo"], "--csv writes Locust's own output: it needs --engine locust"),
        (["--engine", "locust", "--html", "{tmp}/r.html", "--model"], "--html writes Locust's own output"),
        (["--engine", "locust", "--csv", "{tmp}/missing/eo"], "--csv '{tmp}/missing/eo': folder '{tmp}/missing' does not exist"),
        (["--engine", "locust", "--csv", "{tmp}/"], "names a folder"),
        (["--engine", "locust", "--html", "{tmp}/report.txt"], "--html '{tmp}/report.txt': unknown extension '.txt'"),
        (["--engine", "locust", "--html", "{tmp}/adir.html"], "is a directory"),
        (["--engine", "locust", "--csv", "{tmp}/adir"], "'{tmp}/adir_stats.csv' is a directory"),
    ],
)
def test_bad_locust_outputs_are_one_line_before_the_run(tmp_path: Path, capsys, argv: list[str], needle: str) -> None:
    from rehearsal_paths import NAME, REFERENCE

    (tmp_path / "adir.html").mkdir()
    (tmp_path / "adir_stats.csv").mkdir()
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code = cli.main(["rehearse", str(REFERENCE), "--name", NAME, *args])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert needle.replace("{tmp}", str(tmp_path)) in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir.html", "adir_stats.csv"]  # nothing written


def test_outputs_with_the_builtin_engine_are_refused_by_the_library(reference_plan_from_templates) -> None:
    with pytest.raises(RehearsalError, match="--html writes Locust's own output: it needs --engine locust"):
        rehearse(reference_plan_from_templates, RehearsalConfig(clients=10, locust_html="/tmp/r.html"))


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_cli_writes_locusts_own_csv_and_html_beside_the_report(tmp_path: Path) -> None:
    """The smallest real run (6 clients, 1 edge, 1 worker, ~7 s): Locust's CSV counts the RPCs the
    project's report counts, per origin, and its HTML report exists."""
    import csv

    from rehearsal_paths import NAME, REFERENCE

    env = dict(os.environ, PYTHONPATH=str(Path(cli.__file__).resolve().parents[2]))
    proc = subprocess.run(
        [sys.executable, "-m", "edge_origin.cli", "rehearse", str(REFERENCE), "--name", NAME, "--engine", "locust",
         "--workers", "1", "--clients", "6", "--edges", "1", "--duration", "0.5", "--rpc-interval", "0.25",
         "--csv", "eo", "--html", "report.html", "--json"],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path, check=False,
    )
    doc = json.loads(proc.stdout)
    outputs = doc["details"]["locust"]["outputs"]
    assert outputs == {
        "csv": [str(tmp_path / f"eo{tail}") for tail in ("_stats.csv", "_stats_history.csv", "_failures.csv", "_exceptions.csv")],
        "html": str(tmp_path / "report.html"),
    }
    with open(tmp_path / "eo_stats.csv", newline="", encoding="utf-8") as fh:
        rows = {row["Name"]: row for row in csv.DictReader(fh)}
    landed = {origin: n for origin, n in doc["rpcs"].items() if n}
    assert {name: int(row["Request Count"]) for name, row in rows.items() if name != "Aggregated"} == landed
    assert int(rows["Aggregated"]["Request Count"]) == sum(landed.values()) > 0
    assert int(rows["Aggregated"]["Failure Count"]) == 0
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<html" in html.lower() and next(iter(landed)) in html
    assert _our_locust_processes() == []
