"""What the profile's parser (``core``) and its checks (``checks``) share: the profile's error, how it
writes numbers, and the connection-age factors. Its own module so that neither imports the other
(``core`` runs the checks; the checks read the profile's fields)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

AGE_JITTER = 0.10
"""gRPC (C-core, Go, Java) jitters the max connection age by +-10 %: the shortest age is 0.9 x age."""
AGE_P99_FACTOR = 10
"""Max connection age must be at least this many times the p99 RPC duration (after jitter)."""


class ProfileError(ValueError):
    """Bad profile input, or (from :meth:`ConnectionProfile.validate`) a profile with errors
    (``findings``: those errors, each with its fix)."""

    def __init__(self, message: str, findings: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.findings = tuple(findings)


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _fmt(value: float | None) -> str:
    if value is None:
        return "unset"
    return str(_plain(float(value)))
