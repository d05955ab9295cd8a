"""Live tests: moto in-process (``mock_aws``) for the library, one moto server on 127.0.0.1 for the CLI."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # accounts.py, helpers.py

FAKE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
    "MOTO_EC2_LOAD_DEFAULT_AMIS": "false",
}
SERVER_START_S = 15.0


@pytest.fixture(scope="session", autouse=True)
def shared_botocore_loader() -> Iterator[None]:
    """One botocore data loader for every session of the tests: each new boto3 session otherwise
    parses the service models' JSON again (most of these tests' CPU)."""
    import botocore.loaders
    import botocore.session

    original = botocore.session.create_loader
    shared: dict[Any, Any] = {}

    def create_loader(search_path_string: Any = None) -> Any:
        if search_path_string not in shared:
            shared[search_path_string] = original(search_path_string)
        return shared[search_path_string]

    botocore.session.create_loader = create_loader
    try:
        yield
    finally:
        botocore.session.create_loader = original


@pytest.fixture()
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """Fake credentials, no real config files, no instance metadata."""
    for key in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    for key, value in FAKE_ENV.items():
        monkeypatch.setenv(key, value)
    return dict(FAKE_ENV)


@pytest.fixture()
def moto_session(aws_env: dict[str, str]) -> Iterator[Any]:
    """A LiveSession inside moto's in-process mock."""
    from moto import mock_aws

    from edge_origin.live.session import LiveSession

    with mock_aws():
        yield LiveSession(region="us-east-1")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def moto_server() -> Iterator[str]:
    """One moto server for the session on 127.0.0.1 (started and stopped by PID)."""
    port = _free_port()
    exe = Path(sys.executable).with_name("moto_server")
    cmd = [str(exe), "-H", "127.0.0.1", "-p", str(port)] if exe.exists() else [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    env = {**os.environ, "MOTO_EC2_LOAD_DEFAULT_AMIS": "false"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            try:
                urllib.request.urlopen(f"{url}/moto-api/data.json", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"moto server did not start on {url}") from None
                time.sleep(0.1)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)


@pytest.fixture()
def server(moto_server: str, aws_env: dict[str, str]) -> Iterator[Any]:
    """The shared moto server, reset, and a LiveSession pointed at it."""
    from edge_origin.live.session import LiveSession

    urllib.request.urlopen(urllib.request.Request(f"{moto_server}/moto-api/reset", method="POST"), timeout=5).read()
    yield LiveSession(region="us-east-1", endpoint_url=moto_server)
