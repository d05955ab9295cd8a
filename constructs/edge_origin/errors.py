"""Errors raised at construction time, before anything reaches jsii."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import aws_cdk as cdk


class ConstructLabel:
    """``"<Kind> <construct path>"`` for error messages, worked out only when an error is raised."""

    def __init__(self, kind: str, construct: Any) -> None:
        self._kind = kind
        self._construct = construct

    def __str__(self) -> str:
        return f"{self._kind} {self._construct.node.path}"

    __repr__ = __str__


class EdgeOriginPropError(ValueError):
    """A prop has a value outside what AWS or the pattern allows.

    The message names the construct, the prop, the value given and what is allowed.
    """

    def __init__(self, construct: str | ConstructLabel, prop: str, value: Any, allowed: str) -> None:
        self.construct = str(construct)
        self.prop = prop
        self.value = value
        self.allowed = allowed
        super().__init__(f"{construct}: invalid {prop}={value!r}; allowed: {allowed}")


def is_token(value: Any) -> bool:
    """True for an unresolved CDK token, without a round trip to the jsii runtime for plain values."""
    if isinstance(value, str):
        return "${Token[" in value or "#{Token[" in value
    if isinstance(value, int):  # bool included
        return False
    if isinstance(value, float):
        return value < -1e289  # CDK encodes number tokens as huge negative doubles
    return cdk.Token.is_unresolved(value)


def seconds_of(construct: str, prop: str, value: cdk.Duration | int | float) -> float:
    """A duration prop in seconds; accepts a ``Duration`` or a number of seconds."""
    if isinstance(value, cdk.Duration):
        seconds = value.to_seconds()
        if is_token(seconds):
            raise EdgeOriginPropError(construct, prop, value.to_string(), "a concrete duration, not a token")
        return seconds
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EdgeOriginPropError(construct, prop, value, "a Duration or a number of seconds")
    return float(value)


def require_int_range(construct: str, prop: str, value: Any, low: int, high: int) -> int:
    """An integer in ``low..high``, or a clear error."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise EdgeOriginPropError(construct, prop, value, f"an integer in {low}..{high}")
    if not low <= value <= high:
        raise EdgeOriginPropError(construct, prop, value, f"{low}..{high}")
    return value


def require_seconds_range(
    construct: str, prop: str, value: cdk.Duration | int | float, low: float, high: float
) -> int:
    """A whole number of seconds in ``low..high``, or a clear error."""
    seconds = seconds_of(construct, prop, value)
    if seconds != int(seconds) or not low <= seconds <= high:
        shown = int(seconds) if seconds == int(seconds) else seconds
        raise EdgeOriginPropError(construct, prop, f"{shown}s", f"whole seconds in {int(low)}..{int(high)}")
    return int(seconds)


def require_one_of(construct: str, prop: str, value: Any, allowed: Iterable[Any]) -> Any:
    """One of ``allowed``, or a clear error."""
    allowed = list(allowed)
    if value not in allowed:
        raise EdgeOriginPropError(construct, prop, value, "one of " + ", ".join(repr(a) for a in allowed))
    return value


def require_port(construct: str, prop: str, value: Any) -> int:
    """A TCP port, 1..65535."""
    return require_int_range(construct, prop, value, 1, 65535)
