"""An HTTP fault proxy in front of an AWS-like endpoint (a moto server): what networks and broken
gateways do that ``edge_origin.testing.faults`` (a botocore hook) cannot, because they happen on
the wire: an answer that drips one byte every few seconds, an answer held after the request was
applied (so a test can kill the caller while the batch is in flight), a delay, an error page
that echoes the request's credentials back, and a ``ChangeInfo`` rewritten to PENDING (moto
answers INSYNC at once, so the INSYNC wait is never reached).

``FaultProxy(upstream)`` listens on 127.0.0.1 (or another 127.0.0.x) on a free port, one thread a
connection; ``url`` is its endpoint. Rules match an operation name (``operation_of`` knows the
Route 53 REST paths and the ``X-Amz-Target``/``Action`` of JSON and query services) or ``"*"``.
Every wait is bounded; ``close()`` stops the server and releases whatever it holds.

    with FaultProxy(moto_url) as proxy:
        proxy.drip("ListResourceRecordSets", every_s=5)
        run(["edge-origin", "plan", "show", ..., "--endpoint-url", proxy.url, "--deadline", "3"])
"""

from __future__ import annotations

import http.client
import http.server
import json
import re
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from edge_origin import _moved

HOLD_LIMIT_S = 60.0

_ROUTE53 = (
    ("POST", r"/2013-04-01/hostedzone/[^/]+/rrset/?$", "ChangeResourceRecordSets"),
    ("GET", r"/2013-04-01/hostedzone/[^/]+/rrset/?$", "ListResourceRecordSets"),
    ("GET", r"/2013-04-01/change/[^/]+$", "GetChange"),
    ("GET", r"/2013-04-01/hostedzone/[^/]+$", "GetHostedZone"),
    ("GET", r"/2013-04-01/hostedzone/?$", "ListHostedZones"),
    ("GET", r"/2013-04-01/healthcheck/[^/]+/status$", "GetHealthCheckStatus"),
    ("GET", r"/2013-04-01/healthcheck/?$", "ListHealthChecks"),
    ("POST", r"/2013-04-01/healthcheck/?$", "CreateHealthCheck"),
    ("DELETE", r"/2013-04-01/healthcheck/[^/]+$", "DeleteHealthCheck"),
    ("POST", r"/2013-04-01/tags/healthcheck/?$", "ListTagsForResources"),
    ("POST", r"/2013-04-01/tags/healthcheck/[^/]+$", "ChangeTagsForResource"),
    ("GET", r"/2013-04-01/tags/healthcheck/[^/]+$", "ListTagsForResource"),
)


def operation_of(method: str, path: str, headers: Any, body: bytes) -> str:
    """The AWS operation a request is (Route 53 by its REST path; JSON and query services by
    ``X-Amz-Target`` or ``Action=``); ``?`` when unknown."""
    bare = urllib.parse.urlsplit(path).path
    for want, pattern, name in _ROUTE53:
        if method == want and re.search(pattern, bare):
            return name
    target = headers.get("X-Amz-Target") or ""
    if target:
        return target.rsplit(".", 1)[-1]
    match = re.search(rb"(?:^|&)Action=([A-Za-z]+)", body or b"")
    return match.group(1).decode() if match else "?"


@dataclass
class FaultRule:
    kind: str  # drip | hold | delay | echo | pending
    operation: str = "*"
    every_s: float = 5.0
    delay_s: float = 0.0
    times: int | None = None
    hits: int = 0

    def takes(self, operation: str) -> bool:
        if self.operation not in ("*", operation) or (self.times is not None and self.hits >= self.times):
            return False
        self.hits += 1
        return True


@dataclass
class FaultProxy:
    upstream: str
    host: str = "127.0.0.1"
    rules: list[FaultRule] = field(default_factory=list)
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self.applied = threading.Event()  # a held request was applied upstream
        self._release = threading.Event()
        self._stop = threading.Event()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                pass

            def _handle(self) -> None:
                proxy._serve(self)

            do_GET = do_POST = do_DELETE = do_PUT = _handle

        self._server = http.server.ThreadingHTTPServer((self.host, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()

    # --- rules ------------------------------------------------------------------------------
    def _add(self, rule: FaultRule) -> FaultProxy:
        with self._lock:
            self.rules.append(rule)
        return self

    def drip(self, operation: str = "*", every_s: float = 5.0, times: int | None = None) -> FaultProxy:
        """Send the status and headers, then the body one byte every ``every_s`` seconds."""
        return self._add(FaultRule("drip", operation, every_s=every_s, times=times))

    def hold(self, operation: str, times: int | None = 1) -> FaultProxy:
        """Apply the request upstream, set ``applied``, and keep the answer until ``release()``."""
        return self._add(FaultRule("hold", operation, times=times))

    def delay(self, operation: str = "*", delay_s: float = 0.25, times: int | None = None) -> FaultProxy:
        return self._add(FaultRule("delay", operation, delay_s=delay_s, times=times))

    def echo(self, operation: str = "*", times: int | None = None) -> FaultProxy:
        """Answer 400 with an error message that repeats the request's Authorization and
        X-Amz-Security-Token headers (a gateway that echoes what it got); nothing applied."""
        return self._add(FaultRule("echo", operation, times=times))

    def pending(self, operation: str = "ChangeResourceRecordSets", times: int | None = None) -> FaultProxy:
        """Rewrite ``<Status>INSYNC</Status>`` to PENDING in the answer (Route 53's first answer)."""
        return self._add(FaultRule("pending", operation, times=times))

    def clear(self) -> None:
        with self._lock:
            self.rules.clear()

    def release(self) -> None:
        self._release.set()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self._server.server_address[1]}"

    # --- serving ----------------------------------------------------------------------------
    def _choose(self, operation: str) -> list[FaultRule]:
        with self._lock:
            return [r for r in self.rules if r.takes(operation)]

    def _serve(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        operation = operation_of(handler.command, handler.path, handler.headers, body)
        rules = self._choose(operation)
        kinds = {r.kind: r for r in rules}
        self.log.append(f"{operation}: {','.join(kinds) or 'ok'}")
        if "echo" in kinds:
            self._echo(handler, operation)
            return
        if "delay" in kinds:
            self._stop.wait(kinds["delay"].delay_s)
        status, headers, answer = self._forward(handler, body)
        if "pending" in kinds:
            answer = answer.replace(b"<Status>INSYNC</Status>", b"<Status>PENDING</Status>")
        if "hold" in kinds:
            self.applied.set()
            self._release.wait(HOLD_LIMIT_S)
        handler.send_response(status)
        for key, value in headers:
            if key.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(answer)))
        handler.end_headers()
        if "drip" in kinds:
            self._drip(handler, answer, kinds["drip"].every_s)
        else:
            handler.wfile.write(answer)

    def _drip(self, handler: http.server.BaseHTTPRequestHandler, answer: bytes, every_s: float) -> None:
        for index in range(len(answer)):
            if self._stop.is_set():
                return
            try:
                handler.wfile.write(answer[index:index + 1])
                handler.wfile.flush()
            except OSError:
                return
            self._stop.wait(every_s)

    def _forward(self, handler: http.server.BaseHTTPRequestHandler, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        parts = urllib.parse.urlsplit(self.upstream)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            headers = {k: v for k, v in handler.headers.items() if k.lower() not in ("host", "content-length", "connection")}
            conn.request(handler.command, handler.path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            conn.close()

    def _echo(self, handler: http.server.BaseHTTPRequestHandler, operation: str) -> None:
        token = handler.headers.get("X-Amz-Security-Token", "")
        auth = handler.headers.get("Authorization", "")
        said = f"Request rejected by gateway: token={token} authorization={auth}"
        if handler.headers.get("X-Amz-Target"):
            answer = json.dumps({"__type": "AccessDeniedException", "message": said}).encode()
            content_type = "application/x-amz-json-1.1"
        else:
            answer = (f'<?xml version="1.0"?>\n<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>'
                      f"<Message>{said}</Message></Error><RequestId>fault-proxy</RequestId></ErrorResponse>").encode()
            content_type = "text/xml"
        handler.send_response(403)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(answer)))
        handler.end_headers()
        handler.wfile.write(answer)

    # --- lifetime ---------------------------------------------------------------------------
    def close(self) -> None:
        self._stop.set()
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


def wait_for(event: threading.Event, timeout_s: float = 30.0) -> bool:
    """``event.wait`` bounded (a helper for the harness)."""
    deadline = time.monotonic() + timeout_s
    while not event.is_set() and time.monotonic() < deadline:
        event.wait(0.05)
    return event.is_set()


__getattr__ = _moved.old_names(__name__)  # old class names, until 0.3
