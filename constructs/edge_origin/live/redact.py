"""Secrets out of every message: the secret access key and session token in effect, and anything
shaped like one, before a message from AWS or an endpoint is printed or written.

An endpoint (a proxy, a misconfigured gateway, a test double) may echo the request's headers or
parameters into its error message; botocore puts that message into the exception, and the live
commands print it. ``redact(text)`` removes:

* every value given to ``remember`` (``LiveSession`` remembers the secret key and session token
  of the credentials it resolves);
* anything that looks like a session token (a run of 100 or more base64 characters) or a secret
  access key (exactly 40 base64 characters), each only when it mixes upper case, lower case and
  digits (not a lower-case SHA-1 digest, not a change id, not a long plain file name);
* the value after ``aws_secret_access_key``, ``aws_session_token``, ``X-Amz-Security-Token`` and
  ``Signature=`` (a request signature is derived from the secret key: not needed in a message).
"""

from __future__ import annotations

import re
import threading

MASK = "[redacted]"
_MIN_REMEMBERED = 8  # shorter values ("testing", "test") would mask ordinary words

_lock = threading.Lock()
_remembered: set[str] = set()

_TOKEN_RUN = re.compile(r"[A-Za-z0-9+/]{100,}={0,2}")
_KEY_SHAPE = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")
_ASSIGNED = re.compile(
    r"(?i)(aws_secret_access_key|aws_session_token|secretaccesskey|sessiontoken|x-amz-security-token|security-token|signature)"
    r"(\"?\s*[=:]\s*\"?)([^\s\"',;&<]+)"
)


def remember(*values: str | None) -> None:
    """Mask these exact values from now on (credentials in effect)."""
    with _lock:
        _remembered.update(v for v in values if isinstance(v, str) and len(v) >= _MIN_REMEMBERED)


def forget_all() -> None:
    """Tests: start from no remembered values."""
    with _lock:
        _remembered.clear()


def _looks_like_key(match: re.Match[str]) -> str:
    text = match.group(0)
    mixed = any(c.isupper() for c in text) and any(c.islower() for c in text) and any(c.isdigit() for c in text)
    return MASK if mixed else text


def redact(text: str) -> str:
    """``text`` without the remembered secrets and secret-shaped strings."""
    if not isinstance(text, str) or not text:
        return text
    with _lock:
        known = sorted(_remembered, key=len, reverse=True)
    for value in known:
        if value in text:
            text = text.replace(value, MASK)
    text = _ASSIGNED.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
    text = _TOKEN_RUN.sub(_looks_like_key, text)
    return _KEY_SHAPE.sub(_looks_like_key, text)


class RedactingStream:
    """A text stream whose every write passes ``redact`` (stdout/stderr of a live command)."""

    def __init__(self, stream: object) -> None:
        self._stream = stream

    @property
    def wrapped(self) -> object:
        return self._stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))  # type: ignore[attr-defined]
        return len(text)

    def writelines(self, lines: object) -> None:
        for line in lines:  # type: ignore[attr-defined]
            self.write(line)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)
