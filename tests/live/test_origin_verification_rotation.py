"""Rotation of the origin verification secret (steps 1 and 4) against moto's Secrets Manager, library and CLI."""

from __future__ import annotations

import argparse
import json

import boto3
import pytest
from moto import mock_aws

from edge_origin import cli
from edge_origin.cli.origin_secret import add_session_arguments as cli_session_arguments
from edge_origin.live import origin_secret
from edge_origin.live.session import LiveError, add_session_arguments

OLD = "oldValue0123456789abcdefABCDEF01"
TOKEN = "11111111-2222-4333-8444-555555555555"


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201 - a moto secretsmanager client
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(key, value)
    with mock_aws():
        sm = boto3.client("secretsmanager", region_name="us-east-1")
        sm.create_secret(Name="verify", SecretString=json.dumps({"current": OLD, "previous": "", "note": "kept"}))
        yield sm


def _data(sm, version_id: str | None = None) -> dict:  # noqa: ANN001
    kwargs = {"VersionId": version_id} if version_id else {}
    return json.loads(sm.get_secret_value(SecretId="verify", **kwargs)["SecretString"])


def test_rotate_keeps_the_old_value_as_previous_and_returns_the_pinned_version(client) -> None:  # noqa: ANN001
    before = client.get_secret_value(SecretId="verify")["VersionId"]
    result = origin_secret.rotate(client, "verify", version_id=TOKEN)
    assert result.version_id == TOKEN and result.replaced_version_id == before
    data = _data(client, TOKEN)
    assert data["previous"] == OLD and data["current"] != OLD and len(data["current"]) == 48 and data["note"] == "kept"
    assert _data(client, before)["current"] == OLD  # the version CloudFront still pins is untouched
    assert OLD not in result.next_step() and data["current"] not in result.next_step() and TOKEN in result.next_step()
    retired = origin_secret.retire_previous(client, "verify")
    assert _data(client, retired.version_id) == {**data, "previous": ""}


def test_rotation_refuses_bad_values_and_secrets(client) -> None:  # noqa: ANN001
    with pytest.raises(LiveError, match="header-safe"):
        origin_secret.rotate(client, "verify", new_value="has space and is long enough")
    with pytest.raises(LiveError, match="equals the current"):
        origin_secret.rotate(client, "verify", new_value=OLD)
    client.create_secret(Name="plain", SecretString="not json")
    with pytest.raises(LiveError, match="plain: SecretString must be a JSON object with a non-empty 'current'"):
        origin_secret.rotate(client, "plain")
    with pytest.raises(LiveError, match="get-secret-value absent: ResourceNotFoundException"):
        origin_secret.rotate(client, "absent")


def test_cli_rotates_and_prints_version_ids_only(client, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    assert cli.main(["origin-secret", "rotate", "--secret-id", "verify", "--version-id", TOKEN]) == 0
    out = capsys.readouterr().out
    assert TOKEN in out and "origin_verification.version_id" in out
    assert OLD not in out and _data(client)["current"] not in out
    assert cli.main(["origin-secret", "rotate", "--secret-id", "absent"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("edge-origin origin-secret: get-secret-value absent:") and len(err.splitlines()) == 1
    assert cli.main(["origin-secret", "retire-previous", "--secret-id", "verify"]) == 0
    assert _data(client)["previous"] == ""


def test_cli_session_arguments_match_the_live_helper() -> None:
    ours, theirs = argparse.ArgumentParser(), argparse.ArgumentParser()
    cli_session_arguments(ours)
    add_session_arguments(theirs)
    assert [a.option_strings for a in ours._actions] == [a.option_strings for a in theirs._actions]
