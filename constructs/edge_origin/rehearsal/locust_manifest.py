"""``rehearse --engine locust --manifest``: the rehearsal as a ``LocustTest`` for the Locust operator.

Renders, never applies, two Kubernetes objects:

* a ConfigMap with the locustfile the package ships (:data:`~edge_origin.rehearsal.locust_config.LOCUSTFILE`,
  byte for byte: the operator mounts it unmodified) and the rehearsal's configuration
  (:mod:`edge_origin.rehearsal.locust_config`, checked by the same validator the master runs);
* a ``LocustTest`` (``locust.io/v2``) of the locust-k8s-operator
  (github.com/AbdelrhmanHamouda/locust-k8s-operator, ``api/v2/locusttest_types.go`` at commit
  623c518c40f1ef83b92db638b186fc9b19266924): the ConfigMap as ``testFiles.configMapRef`` (mounted at
  ``/lotest/src``, the operator's default ``srcMountPath``), ``EDGE_ORIGIN_LOCUST_CONFIG`` pointing
  at the configuration in it, the master and worker command seeds, and ``worker.replicas``.

The operator appends the distribution flags itself (``internal/resources/command.go`` at that
commit): to the master ``--master --master-port=5557 --expect-workers=N [--autostart] [--autoquit T]
--enable-rebalancing --only-summary``, to each worker ``--worker --master-port=5557
--master-host=<service>``. The seeds here add what the rehearsal needs: one user an edge (``--users``),
every user at once (``--spawn-rate``), a bounded run (``--run-time``) and a bounded wait for the
workers (``--expect-workers-max-wait``).

Worker count: a synchronized burst of N new connections within ``burst_seconds`` needs
``ceil(N / (rate x burst_seconds))`` workers, ``rate`` the connects a second one worker opens
(:data:`PER_WORKER_CONNECTS_PER_SECOND`, measured); ``workers`` overrides it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edge_origin.rehearsal.locust_config import LocustConfigError, validate_config

PER_WORKER_CONNECTS_PER_SECOND = 679.0
"""Connects a second one Locust worker process opened in a synchronized burst, measured on loopback
(2026-12-04, 2 cores shared with other work, the worker sharing them with the loopback origins and
resolvers): ``PYTHONPATH=constructs python benchmarks/bench_locust.py --per-worker --clients 3000
--edges 30 --repeat 3`` printed "per-worker connects/s: median 679, min 305, max 852" (N = 1,000:
1,188). A worker pod with a core of its own is not slower; measure yours with the same command and
pass ``--workers``."""
PER_WORKER_SOURCE = "benchmarks/bench_locust.py --per-worker --clients 3000 --edges 30 --repeat 3 (median, 2026-12-04)"
API_VERSION = "locust.io/v2"
MAX_WORKERS = 500
"""``spec.worker.replicas`` maximum in the operator's CRD (``+kubebuilder:validation:Maximum=500``)."""
MAX_NAME = 56
"""The operator's webhook refuses a LocustTest name longer than 63 - len("-worker") (``validateCRName``)."""
NAME_PATTERN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
SRC_MOUNT = "/lotest/src"
LOCUSTFILE_KEY = "rehearsal.py"
CONFIG_KEY = "rehearsal.json"
CONFIG_ENV = "EDGE_ORIGIN_LOCUST_CONFIG"  # edge_origin.rehearsal.locust.CONFIG_ENV (not imported: it patches)
SPAWN_RATE = 1000
RUN_TIME_MARGIN_S = 30
"""--run-time is the configuration's max_seconds plus this: the master ends the run itself first."""
EXPECT_WORKERS_MAX_WAIT_S = 600
AUTOQUIT_TIMEOUT_S = 30
RESULT_STDOUT = "-"
"""``result_path`` "-": the master prints the merged result as one log line ``edge-origin result: {...}``."""


class ManifestError(ValueError):
    """The manifest cannot be rendered: one line naming the flag and the allowed range."""


@dataclass(frozen=True)
class ManifestRequest:
    """What ``rehearse --manifest`` renders: the Kubernetes names, the image, the burst."""

    test_name: str
    image: str
    origin_name: str
    port: int
    clients: int
    edges: int
    policy: str = "shuffle"
    duration: float = 3.0
    rpc_interval: float = 1.0
    rpc_timeout: float = 10.0
    max_seconds: float = 60.0
    min_resolution_ms: int = 500
    burst_seconds: float = 1.0
    workers: int | None = None
    namespace: str | None = None


def workers_for(clients: int, burst_seconds: float, rate: float = PER_WORKER_CONNECTS_PER_SECOND) -> int:
    """Workers a burst of ``clients`` new connections within ``burst_seconds`` needs at ``rate`` connects/s each."""
    if clients < 1 or not (math.isfinite(burst_seconds) and burst_seconds > 0) or not (math.isfinite(rate) and rate > 0):
        raise ManifestError(f"workers_for: clients >= 1, burst and rate > 0 (got {clients}, {burst_seconds}, {rate})")
    return max(1, math.ceil(clients / (rate * burst_seconds)))


def _check_names(req: ManifestRequest) -> None:
    if not (len(req.test_name) <= MAX_NAME and NAME_PATTERN.fullmatch(req.test_name)):
        raise ManifestError(
            f"--k8s-name {req.test_name[:80]!r}: must be 1..{MAX_NAME} lowercase letters, digits and '-', starting "
            f"and ending with a letter or digit (the operator names its Jobs NAME-master / NAME-worker)"
        )
    if req.namespace is not None and not (len(req.namespace) <= 63 and NAME_PATTERN.fullmatch(req.namespace)):
        raise ManifestError(f"--namespace {req.namespace[:80]!r}: must be a DNS label (1..63 lowercase letters, digits, '-')")
    if not req.image.strip() or any(c.isspace() for c in req.image) or len(req.image) > 1024:
        raise ManifestError(f"--image {req.image[:80]!r}: must be an image reference (no spaces, 1..1024 characters)")


def plan_workers(req: ManifestRequest) -> tuple[int, str]:
    """(workers, how): ``req.workers`` when given, else from the measured per-worker rate; checked
    against the operator's maximum and the edges (each worker plays whole edges)."""
    if req.workers is not None:
        workers, how = req.workers, "--workers"
    else:
        workers = workers_for(req.clients, req.burst_seconds)
        how = (
            f"{req.clients} connections in {req.burst_seconds:g} s at {PER_WORKER_CONNECTS_PER_SECOND:g} connects/s "
            f"a worker, measured by {PER_WORKER_SOURCE}"
        )
    if not 1 <= workers <= MAX_WORKERS:
        raise ManifestError(
            f"--workers must be 1..{MAX_WORKERS} with --manifest (the operator's worker.replicas maximum); "
            f"{how} gives {workers}" + ("" if req.workers is not None else ": give a longer --burst-seconds")
        )
    if workers > req.edges:
        raise ManifestError(
            f"--edges {req.edges} is fewer than the {workers} workers ({how}): one Locust user plays one edge and "
            f"each worker needs one; give --edges {workers} or more"
        )
    return workers, how


def rehearsal_config(req: ManifestRequest) -> dict[str, Any]:
    """The configuration in the ConfigMap: the staging origin through each pod's resolver, bounded."""
    raw = {
        "name": req.origin_name,
        "port": req.port,
        "resolvers": [],
        "edges": req.edges,
        "clients": req.clients,
        "policy": req.policy,
        "duration": req.duration,
        "rpc_interval": req.rpc_interval,
        "rpc_timeout": req.rpc_timeout,
        "max_seconds": req.max_seconds,
        "min_resolution_ms": req.min_resolution_ms,
        "allow_remote": True,
        "result_path": RESULT_STDOUT,
    }
    try:
        validate_config(raw)  # what the master checks, before anything is rendered
    except LocustConfigError as exc:
        raise ManifestError(str(exc).replace("locust config: ", "--manifest: ", 1)) from None
    return raw


def run_time_seconds(max_seconds: float) -> int:
    """The master's ``--run-time``: the configuration's bound plus a margin (the master ends the run first)."""
    return int(math.ceil(max_seconds)) + RUN_TIME_MARGIN_S


def master_seed(locustfile: str, edges: int, max_seconds: float) -> str:
    """``spec.master.command``: one user an edge, all at once, a bounded run and a bounded wait for the workers."""
    return (
        f"--locustfile {locustfile} --users {edges} --spawn-rate {SPAWN_RATE} --run-time {run_time_seconds(max_seconds)}s "
        f"--expect-workers-max-wait {EXPECT_WORKERS_MAX_WAIT_S}"
    )


def worker_seed(locustfile: str) -> str:
    """``spec.worker.command``: the workers need nothing but the locustfile (the master hands out the rest)."""
    return f"--locustfile {locustfile}"


OPERATOR_MASTER_PORT = 5557


def operator_commands(spec: dict[str, Any], master_host: str) -> tuple[list[str], list[str]]:
    """The master's and one worker's Locust arguments as the operator builds them from a LocustTest
    ``spec`` (locust-k8s-operator ``internal/resources/command.go`` at commit 623c518c,
    ``BuildMasterCommand`` / ``BuildWorkerCommand``): the seed split on whitespace, the operator's
    flags, then ``extraArgs`` (the last occurrence of a flag wins). ``--otel`` is left out (unused)."""
    m, w = spec["master"], spec["worker"]
    master = [*m["command"].split(), "--master", f"--master-port={OPERATOR_MASTER_PORT}", f"--expect-workers={w['replicas']}"]
    if m.get("autostart", True):
        master.append("--autostart")
    autoquit = m.get("autoquit")
    if autoquit is None or autoquit.get("enabled"):
        timeout = 60 if autoquit is None else autoquit.get("timeout", 60)
        master += ["--autoquit", str(timeout)]
    master += ["--enable-rebalancing", "--only-summary", *m.get("extraArgs", [])]
    worker = [*w["command"].split(), "--worker", f"--master-port={OPERATOR_MASTER_PORT}", f"--master-host={master_host}",
              *w.get("extraArgs", [])]
    return master, worker


def render(req: ManifestRequest, locustfile: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """([ConfigMap, LocustTest], facts for the header and the report). ``locustfile``: its path."""
    _check_names(req)
    workers, how = plan_workers(req)
    config = rehearsal_config(req)
    source = Path(locustfile).read_text(encoding="utf-8")
    configmap_name = f"{req.test_name}-files"
    namespace = {"namespace": req.namespace} if req.namespace is not None else {}
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": configmap_name, **namespace},
        "data": {LOCUSTFILE_KEY: source, CONFIG_KEY: json.dumps(config, indent=2, sort_keys=True) + "\n"},
    }
    locustfile_path = f"{SRC_MOUNT}/{LOCUSTFILE_KEY}"
    run_time = run_time_seconds(req.max_seconds)
    test = {
        "apiVersion": API_VERSION,
        "kind": "LocustTest",
        "metadata": {"name": req.test_name, **namespace},
        "spec": {
            "image": req.image,
            "master": {
                "command": master_seed(locustfile_path, req.edges, req.max_seconds),
                "autostart": True,
                "autoquit": {"enabled": True, "timeout": AUTOQUIT_TIMEOUT_S},
                "labels": {"app.kubernetes.io/part-of": "edge-origin-rehearsal"},
            },
            "worker": {
                "command": worker_seed(locustfile_path),
                "replicas": workers,
                "labels": {"app.kubernetes.io/part-of": "edge-origin-rehearsal"},
            },
            "testFiles": {"configMapRef": configmap_name, "srcMountPath": SRC_MOUNT},
            "env": {"variables": [{"name": CONFIG_ENV, "value": f"{SRC_MOUNT}/{CONFIG_KEY}"}]},
        },
    }
    facts = {"workers": workers, "workers_from": how, "users": req.edges, "run_time_s": run_time,
             "configmap": configmap_name, "test": req.test_name}
    return [configmap, test], facts


class _Dumper:
    """PyYAML's safe dumper with block literals for multi-line strings (the locustfile stays readable)."""

    @staticmethod
    def dump(docs: list[dict[str, Any]]) -> str:
        import yaml

        class Dumper(yaml.SafeDumper):
            pass

        def text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
            style = "|" if "\n" in value and not any(c in value for c in "\t\r") and value == value.rstrip(" ") else None
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        Dumper.add_representer(str, text)
        return yaml.dump_all(docs, Dumper=Dumper, sort_keys=False, default_flow_style=False, width=120)


def to_yaml(docs: list[dict[str, Any]], facts: dict[str, Any], version: str) -> str:
    """The manifest as YAML documents, under a header saying what it is and that nothing was applied."""
    header = [
        f"# edge-origin {version}: rehearse --engine locust --manifest (rendered, not applied)",
        f"# LocustTest {facts['test']} ({API_VERSION}, locust-k8s-operator) + ConfigMap {facts['configmap']}: the shipped",
        "# locustfile unmodified and the rehearsal's configuration. The image must have edge-origin[rehearsal] installed.",
        f"# workers: {facts['workers']} ({facts['workers_from']})",
        f"# users (one an edge): {facts['users']}; run time: {facts['run_time_s']} s"
        + (f"; plan {facts['plan']}" if facts.get("plan") else ""),
        "# the merged result: kubectl logs job/" + facts["test"] + "-master | grep '^edge-origin result: '",
    ]
    return "\n".join(header) + "\n---\n" + _Dumper.dump(docs)
