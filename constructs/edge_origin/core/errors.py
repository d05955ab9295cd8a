"""Errors raised at construction time, before anything reaches jsii."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
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


_DURATION_MILLIS: dict[int, tuple[cdk.Duration, float]] = {}
"""id -> (Duration, milliseconds): a Duration is immutable, and holding it keeps its id unique."""


def seconds_of(construct: str, prop: str, value: cdk.Duration | int | float) -> float:
    """A duration prop in seconds; accepts a ``Duration`` or a finite number of seconds.

    Read in milliseconds, so ``Duration.millis(1500)`` is 1.5 s here (CDK's ``to_seconds()``
    raises a bare ``CannotConvertedIntoWhole`` that names no prop).
    """
    if isinstance(value, cdk.Duration):
        known = _DURATION_MILLIS.get(id(value))
        if known is not None and known[0] is value:
            return known[1] / 1000
        try:
            millis = value.to_milliseconds(integral=False)
        except Exception as exc:  # noqa: BLE001 - jsii raises RuntimeError with a JS message
            raise EdgeOriginPropError(construct, prop, value.to_string(), "a concrete Duration") from exc
        if is_token(millis):
            raise EdgeOriginPropError(construct, prop, value.to_string(), "a concrete duration, not a token")
        if len(_DURATION_MILLIS) < 512:  # the signatures' default Durations, read once per process
            _DURATION_MILLIS[id(value)] = (value, millis)
        return millis / 1000
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EdgeOriginPropError(construct, prop, value, "a Duration or a number of seconds")
    if not math.isfinite(value):
        raise EdgeOriginPropError(construct, prop, value, "a finite number of seconds")
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
        shown = int(seconds) if seconds == int(seconds) and abs(seconds) < 1e18 else seconds
        raise EdgeOriginPropError(construct, prop, f"{shown}s", f"whole seconds in {int(low)}..{int(high)}")
    return int(seconds)


def require_one_of(construct: str, prop: str, value: Any, allowed: Iterable[Any]) -> Any:
    """One of ``allowed``, or a clear error."""
    allowed = list(allowed)
    if isinstance(value, bool) or not _hashable(value) or value not in allowed:
        raise EdgeOriginPropError(construct, prop, value, "one of " + ", ".join(repr(a) for a in allowed))
    return value


def require_port(construct: str, prop: str, value: Any) -> int:
    """A TCP port, 1..65535."""
    return require_int_range(construct, prop, value, 1, 65535)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def require_bool(construct: str, prop: str, value: Any) -> bool:
    """True or False (not 1, not "yes")."""
    if not isinstance(value, bool):
        raise EdgeOriginPropError(construct, prop, value, "True or False")
    return value


def require_str(construct: str, prop: str, value: Any, pattern: str | None = None, allowed: str = "a string") -> str:
    """A string (tokens pass), optionally matching ``pattern`` in full."""
    if not isinstance(value, str):
        raise EdgeOriginPropError(construct, prop, value, allowed)
    if pattern is not None and not is_token(value) and not re.fullmatch(pattern, value):
        raise EdgeOriginPropError(construct, prop, value, allowed)
    return value


def require_str_list(construct: str, prop: str, value: Any, *, allow_empty: bool = True) -> list[str]:
    """A list or tuple of strings; a lone string is refused (it would become a list of characters)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise EdgeOriginPropError(construct, prop, value, "a list of strings (a lone string is not a list)")
    items = list(value)
    if not items and not allow_empty:
        raise EdgeOriginPropError(construct, prop, items, "a non-empty list of strings")
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise EdgeOriginPropError(construct, prop, items, "a list of non-empty strings")
    return items


def require_path(construct: str, prop: str, value: Any, max_length: int) -> str:
    """An HTTP path: starts with ``/``, printable ASCII without spaces, at most ``max_length``."""
    if not isinstance(value, str) or not re.fullmatch(r"/[\x21-\x7e]*", value) or len(value) > max_length:
        raise EdgeOriginPropError(construct, prop, value, f"a path starting with '/', printable ASCII, <= {max_length} chars")
    return value


TAG_KEY = re.compile(r"[\w .:/=+@-]{1,128}")
TAG_VALUE = re.compile(r"[\w .:/=+@-]{0,256}")


def require_tags(construct: str, prop: str, value: Any) -> dict[str, str]:
    """Resource tags: str -> str, keys 1..128 and values 0..256 of letters, digits, spaces and ``_.:/=+-@``;
    ``aws:`` keys are reserved."""
    if not isinstance(value, Mapping):
        raise EdgeOriginPropError(construct, prop, value, "a mapping of tag key -> value (strings)")
    tags: dict[str, str] = {}
    for key, item in value.items():
        if (
            not isinstance(key, str)
            or not isinstance(item, str)
            or not TAG_KEY.fullmatch(key)
            or not TAG_VALUE.fullmatch(item)
            or key.lower().startswith("aws:")
        ):
            raise EdgeOriginPropError(
                construct, prop, {key: item},
                "string keys 1..128 and values 0..256 of letters, digits, spaces and _.:/=+-@; no aws: keys",
            )
        tags[key] = item
    return tags


def implements(value: Any, interface: type) -> bool:
    """True when ``value`` is a jsii object implementing ``interface`` (no round trip to jsii)."""
    from jsii._reference_map import InterfaceDynamicProxy

    classes: set[type] = set()
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, InterfaceDynamicProxy):
            todo.extend(item._delegates)  # noqa: SLF001 - jsii's proxy of an imported resource
            continue
        stack = list(type(item).__mro__)
        while stack:
            klass = stack.pop()
            if klass in classes:
                continue
            classes.add(klass)
            stack.extend(getattr(klass, "__jsii_ifaces__", ()) or ())
            stack.extend(getattr(klass, "__mro__", ())[1:])
    proxy = getattr(interface, "__jsii_proxy_class__", None)
    return interface in classes or (proxy is not None and proxy() in classes)


def require_construct(construct: str, prop: str, value: Any, interface: type, allowed: str, *, optional: bool = True) -> Any:
    """``value`` implements the jsii ``interface`` (None passes when ``optional``)."""
    if value is None and optional:
        return None
    if not implements(value, interface):
        raise EdgeOriginPropError(construct, prop, _short(value), allowed)
    return value


#: One row of validation as data: the prop, and its check ``check(construct, prop, props)`` (the
#: props by name, for a check that reads another prop), which returns the value to use or raises.
PropCheck = tuple[str, "Callable[[Any, str, Mapping[str, Any]], Any]"]


def each(check: Callable[..., Any], *args: Any, skip_none: bool = False, **kwargs: Any) -> Callable[[Any, str, Mapping[str, Any]], Any]:
    """A row's check from a ``require_*`` function: ``check(construct, prop, value, *args, **kwargs)``;
    with ``skip_none`` an unset prop (None) passes as None."""
    def run(construct: Any, prop: str, props: Mapping[str, Any]) -> Any:
        value = props[prop]
        if skip_none and value is None:
            return None
        return check(construct, prop, value, *args, **kwargs)

    return run


def check_props(construct: Any, rows: Sequence[PropCheck], props: Mapping[str, Any]) -> dict[str, Any]:
    """Run the rows in order (the first bad prop is the one reported); each row's answer by prop."""
    return {prop: check(construct, prop, props) for prop, check in rows}


def _short(value: Any) -> Any:
    text = repr(value)
    return value if len(text) <= 80 else text[:77] + "..."


def suggest_props(cls: type) -> type:
    """Class decorator: an unknown keyword prop (``hosted_zone=``) is a TypeError naming the nearest
    prop and listing them all, instead of Python's bare "unexpected keyword argument". The
    signature is unchanged (keyword-only props, as aws-cdk-lib's Python classes have them;
    ``inspect.signature`` and IDEs still see the original through ``__wrapped__``)."""
    import difflib
    import functools
    import inspect

    init = cls.__init__
    props = [n for n, p in inspect.signature(init).parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY]

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        unknown = [k for k in kwargs if k not in props]
        if unknown:
            # a prop named as the unknown one's last word first (hosted_zone -> zone), then difflib's nearest
            near = [p for p in props if p == unknown[0].split("_")[-1]] or difflib.get_close_matches(
                unknown[0], props, n=1, cutoff=0.5)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise TypeError(
                f"{cls.__name__}: unknown prop {unknown[0]!r}{hint} (props: {', '.join(props)})"
            )
        init(self, *args, **kwargs)

    cls.__init__ = __init__  # type: ignore[method-assign]
    return cls
