"""A real recursive resolver on the rehearsal's path: Debian's unbound, started and stopped by PID.

With ``--resolver unbound`` the edges stop caching and forward every query to one unbound on
``UNBOUND_IP``: the shared recursive resolver of the CloudFront edge hosts (what the incident
turned on: a resolver holding one answer for its TTL and handing it to every client behind it).
unbound reaches the rehearsal's authoritative server through a ``stub-zone`` and caches what it
answers for the TTL it sends (the plan's, compressed by the time scale like every plan time).

The configuration that runs unprivileged on loopback (unbound 1.17.1, measured 2026-12-06;
unbound.conf(5)): ``username: ""``, ``chroot: ""``, ``do-daemonize: no``,
``do-not-query-localhost: no`` (else it refuses to ask a 127.x server), ``module-config:
"iterator"`` (no DNSSEC trust anchor), ``access-control: 127.0.0.0/8 allow``. Also set here:
``qname-minimisation: no`` (the authoritative server knows one name: a minimised query for a
parent label would read NXDOMAIN), ``outgoing-interface`` (its queries come from its own address,
so the authoritative server counts them apart from the edges'), ``rrset-roundrobin: yes`` (the
default: it rotates the cached RRset's order per response) and remote control on loopback without
certificates (``control-use-cert: no``) for ``unbound-control stats_noreset``: the cache hits.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from edge_origin.rehearsal.engine import RehearsalError, stop_process

UNBOUND_IP = "127.0.30.1"
SEARCH_PATH = ("/usr/sbin", "/usr/local/sbin", "/sbin")
INSTALL_HINT = "Debian/Ubuntu: apt-get install -y unbound"
START_SECONDS = 10.0
STATS_KEYS = ("total.num.queries", "total.num.cachehits", "total.num.cachemiss", "total.num.prefetch",
              "total.num.expired", "num.answer.rcode.NOERROR", "num.answer.rcode.SERVFAIL", "num.query.type.A")


def find_binary(name: str = "unbound") -> str | None:
    """The unbound (or unbound-control) executable: on PATH, else in the sbin folders."""
    found = shutil.which(name)
    if found:
        return found
    for folder in SEARCH_PATH:
        path = Path(folder) / name
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def require_unbound() -> str:
    """The unbound executable, or one line naming ``--resolver`` and how to install it."""
    path = find_binary()
    if path is None:
        raise RehearsalError(f"--resolver unbound: unbound is not installed (not on PATH nor in /usr/sbin); {INSTALL_HINT}")
    return path


def config_text(workdir: Path, port: int, control_port: int, zone: str, upstream: tuple[str, int]) -> str:
    """unbound.conf for one run: loopback only, unprivileged, a stub zone to the authoritative server."""
    host, upstream_port = upstream
    return f"""server:
    interface: {UNBOUND_IP}
    port: {port}
    outgoing-interface: {UNBOUND_IP}
    do-ip6: no
    username: ""
    chroot: ""
    directory: "{workdir}"
    pidfile: "{workdir}/unbound.pid"
    logfile: "{workdir}/unbound.log"
    use-syslog: no
    do-daemonize: no
    do-not-query-localhost: no
    module-config: "iterator"
    access-control: 127.0.0.0/8 allow
    num-threads: 1
    so-reuseport: no
    qname-minimisation: no
    rrset-roundrobin: yes
    prefetch: no
    cache-min-ttl: 0
    extended-statistics: yes
    verbosity: 1
stub-zone:
    name: "{zone}"
    stub-addr: {host}@{upstream_port}
remote-control:
    control-enable: yes
    control-interface: {UNBOUND_IP}
    control-port: {control_port}
    control-use-cert: no
"""


def _free_port(ip: str) -> int:
    """A port free for UDP and TCP on ``ip`` (probed by binding both)."""
    for _ in range(20):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.bind((ip, 0))
            port = int(udp.getsockname()[1])
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
                try:
                    tcp.bind((ip, port))
                except OSError:
                    continue
                return port
    raise RehearsalError(f"--resolver unbound: no free port on {UNBOUND_IP}")


class Unbound:
    """One unbound process for a run: :meth:`start` (waits until it answers), :meth:`stats`, :meth:`stop` (by PID)."""

    def __init__(self, zone: str, upstream: tuple[str, int]) -> None:
        self.binary = require_unbound()
        self.zone = zone
        self.upstream = upstream
        self._tmp = tempfile.TemporaryDirectory(prefix="edge-origin-unbound-")
        self.workdir = Path(self._tmp.name)
        self.port = 0
        self.control_port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> tuple[str, int]:
        return UNBOUND_IP, self.port

    @property
    def conf(self) -> Path:
        return self.workdir / "unbound.conf"

    def start(self, timeout: float = START_SECONDS) -> None:
        self.port = _free_port(UNBOUND_IP)
        self.control_port = _free_port(UNBOUND_IP)
        self.conf.write_text(config_text(self.workdir, self.port, self.control_port, self.zone, self.upstream))
        self.proc = subprocess.Popen([self.binary, "-d", "-c", str(self.conf)], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(self.workdir / "stderr", "wb"),  # noqa: SIM115
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        for _ in range(10_000):  # bounded by the deadline
            if self.proc.poll() is not None:
                raise RehearsalError(f"--resolver unbound: unbound exited with {self.proc.returncode} at start: {self.log_tail()}")
            if self._answers():
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        raise RehearsalError(f"--resolver unbound: unbound did not answer on {UNBOUND_IP}:{self.port} within {timeout:g} s: {self.log_tail()}")

    def _answers(self) -> bool:
        """unbound answers ``version.server CH TXT`` itself: up, and nothing asked upstream (no cache primed)."""
        import dns.message
        import dns.query

        query = dns.message.make_query("version.server", "TXT", "CH")
        try:
            dns.query.udp(query, UNBOUND_IP, port=self.port, timeout=0.2)
        except Exception:
            return False
        return True

    def log_tail(self) -> str:
        text = ""
        for name in ("stderr", "unbound.log"):
            with contextlib.suppress(OSError):
                text += (self.workdir / name).read_text(errors="replace")
        lines = [line for line in text.strip().splitlines() if line.strip()]
        return lines[-1][:300] if lines else "(no log)"

    def stats(self) -> dict[str, float] | None:
        """``unbound-control stats_noreset`` as numbers (None when it cannot be read)."""
        control = find_binary("unbound-control")
        if control is None or self.proc is None or self.proc.poll() is not None:
            return None
        try:
            out = subprocess.run([control, "-c", str(self.conf), "stats_noreset"], capture_output=True, text=True,
                                 timeout=5, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if out.returncode != 0:
            return None
        values: dict[str, float] = {}
        for line in out.stdout.splitlines():
            key, sep, value = line.partition("=")
            if sep and key in STATS_KEYS:
                with contextlib.suppress(ValueError):
                    values[key] = float(value)
        return values

    def stop(self) -> None:
        """SIGTERM by PID, then SIGKILL; the work folder removed."""
        stop_process(self.proc)
        with contextlib.suppress(OSError):
            self._tmp.cleanup()


def resolver_report(stats: Mapping[str, float] | None, edges_fetches: Sequence[tuple[float, tuple[str, ...]]],
                    keys_of: Mapping[str, str], authoritative_queries: int, ttl_seconds: float) -> dict[str, Any]:
    """What unbound did: its cache hits (its own statistics when readable; else the edges' A queries
    minus those that reached the authoritative server) and the answers it handed out (origin keys)."""
    handed = Counter(",".join(keys_of.get(ip, ip) for ip in ips) for _t, ips in edges_fetches)
    first = Counter(keys_of.get(ips[0], ips[0]) for _t, ips in edges_fetches if ips)
    asked = len(edges_fetches)
    report: dict[str, Any] = {
        "resolver": "unbound",
        "address": UNBOUND_IP,
        "ttl_seconds": ttl_seconds,
        "a_queries_from_edges": asked,
        "a_queries_to_authoritative": authoritative_queries,
        "cache_hits_a": max(0, asked - authoritative_queries),
        "answers_handed_out": dict(handed.most_common()),
        "first_address_handed_out": dict(first.most_common()),
        "statistics": dict(stats) if stats else None,
    }
    if stats:
        report["cache_hits"] = int(stats.get("total.num.cachehits", 0))
        report["cache_misses"] = int(stats.get("total.num.cachemiss", 0))
    return report


def report_text(report: Mapping[str, Any]) -> str:
    """One line for the text summary."""
    hits = report.get("cache_hits", report["cache_hits_a"])
    misses = report.get("cache_misses")
    firsts = ", ".join(f"{k} {v}" for k, v in list(report["first_address_handed_out"].items())[:6]) or "none"
    return (f"unbound {report['address']}: {report['a_queries_from_edges']} A queries from the edges, "
            f"{report['a_queries_to_authoritative']} reached the authoritative server; cache hits {hits}"
            + ("" if misses is None else f", misses {misses} (unbound-control, all types)")
            + f"; first address handed out: {firsts} ({len(report['answers_handed_out'])} distinct answers, "
            f"TTL {report['ttl_seconds']:g} s)")
