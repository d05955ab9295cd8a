"""Helpers the live tests share: a client source with chosen (stubbed) clients, the CLI in-process."""

from __future__ import annotations

from typing import Any


class Clients:
    """A client source for the reader: chosen clients (stubbed), the rest from a LiveSession."""

    def __init__(self, session: Any, **clients: Any) -> None:
        self.session = session
        self.region = session.region
        self.endpoint_url = None
        self.clients = clients

    def client(self, service: str) -> Any:
        return self.clients.get(service) or self.session.client(service)


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``edge-origin`` in this process: (exit code, stdout, stderr)."""
    import contextlib
    import io

    from edge_origin.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()
