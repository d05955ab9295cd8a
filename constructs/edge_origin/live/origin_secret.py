"""Rotate the origin verification secret: steps 1 and 4 of the procedure (README, Origin verification).

``rotate`` puts a new version ``{"current": NEW, "previous": OLD}`` with a version id it chooses
(the ``ClientRequestToken``), so CloudFront, whose dynamic reference pins the old version, keeps
sending OLD while the pods learn to accept NEW; the caller then pins the returned version id in
the template and deploys (step 3). ``retire_previous`` puts ``{"current": NEW, "previous": ""}``
once CloudFront sends NEW everywhere. Neither ever returns or prints a value.
"""

from __future__ import annotations

import json
import re
import secrets
import string
import uuid
from dataclasses import dataclass
from typing import Any

import botocore.exceptions

from edge_origin.live.session import LiveError

GENERATED_LENGTH = 48
VALUE = re.compile(r"[A-Za-z0-9._~+/=-]{16,1783}")  # header-safe; CloudFront allows 1,783 characters


@dataclass(frozen=True)
class RotationResult:
    """Version ids only: ``version_id`` is what to pin in ``origin_verification.version_id``."""

    secret_id: str
    version_id: str
    replaced_version_id: str | None

    def next_step(self) -> str:
        return (
            f"new version {self.version_id} of {self.secret_id}. Wait until every pod has reloaded the secret "
            f"(they then accept both values), then set origin_verification.version_id={self.version_id!r} "
            f"(reference app: cdk.json edge-origin:originVerifyVersionId) and deploy."
        )


def generate_value(length: int = GENERATED_LENGTH) -> str:
    """A random alphanumeric value (what a created secret's generator makes)."""
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(length))


def _call(what: str, secret_id: str, fn: Any, **kwargs: Any) -> dict[str, Any]:
    try:
        return fn(SecretId=secret_id, **kwargs)
    except botocore.exceptions.ClientError as exc:
        error = exc.response.get("Error", {})
        raise LiveError(f"{what} {secret_id}: {error.get('Code', 'error')}: {error.get('Message', '')}".rstrip(": ")) from None
    except botocore.exceptions.BotoCoreError as exc:
        raise LiveError(f"{what} {secret_id}: {exc}") from None


def _current(client: Any, secret_id: str, current_field: str) -> tuple[dict[str, Any], str]:
    got = _call("get-secret-value", secret_id, client.get_secret_value)
    try:
        data = json.loads(got.get("SecretString") or "")
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get(current_field), str) or not data[current_field]:
        raise LiveError(f"{secret_id}: SecretString must be a JSON object with a non-empty {current_field!r} string")
    return data, str(got.get("VersionId") or "")


def _put(client: Any, secret_id: str, data: dict[str, Any], token: str | None) -> str:
    token = token or str(uuid.uuid4())
    put = _call("put-secret-value", secret_id, client.put_secret_value, ClientRequestToken=token, SecretString=json.dumps(data))
    return str(put.get("VersionId") or token)


def rotate(
    client: Any,
    secret_id: str,
    *,
    new_value: str | None = None,
    current_field: str = "current",
    previous_field: str = "previous",
    version_id: str | None = None,
) -> RotationResult:
    """Put ``{current: NEW, previous: OLD current}`` as a new version; other keys are kept."""
    if new_value is not None and not VALUE.fullmatch(new_value):
        raise LiveError("new value: 16..1783 header-safe characters (A-Z a-z 0-9 . _ ~ + / = -)")
    data, replaced = _current(client, secret_id, current_field)
    value = new_value or generate_value()
    if secrets.compare_digest(value, data[current_field]):
        raise LiveError(f"new value: equals the current {current_field!r} value")
    data[previous_field] = data[current_field]
    data[current_field] = value
    return RotationResult(secret_id, _put(client, secret_id, data, version_id), replaced or None)


def retire_previous(
    client: Any, secret_id: str, *, current_field: str = "current", previous_field: str = "previous", version_id: str | None = None
) -> RotationResult:
    """Put ``{current: NEW, previous: ""}``: the pods stop accepting the old value once they reload."""
    data, replaced = _current(client, secret_id, current_field)
    data[previous_field] = ""
    return RotationResult(secret_id, _put(client, secret_id, data, version_id), replaced or None)
