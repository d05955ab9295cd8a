"""A small evaluator of the CloudWatch metric math OriginWatch's alarms use, for the tests.

moto 5.2.5 stores metric math queries but returns no values for them, so the tests evaluate the
construct's expression strings here, over the same timelines ``watch`` reads. Supported, as the
CloudWatch User Guide defines them ("Metric math syntax and functions"): array literals
``[m0,m1]``, ``FILL(x, v)``, ``SUM``/``MAX``/``AVG`` of an array (one value per timestamp),
``IF(cond, a, b)``, ``PERIOD(m)``, ``+ - * /`` and ``> >= < <=``. A series is a list aligned on
timestamps (None = no point); anything else raises ValueError.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(>=|<=|[-+*/(),\[\]<>]))")
Series = list  # list[float | None]


def evaluate(expression: str, metrics: Mapping[str, Sequence[float | None]], period_s: int) -> list[float | None]:
    tokens = _tokens(expression)
    pos = 0
    length = len(next(iter(metrics.values())))

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take(expected: str | None = None) -> str:
        nonlocal pos
        tok = tokens[pos]
        if expected is not None and tok != expected:
            raise ValueError(f"expected {expected!r}, got {tok!r}")
        pos += 1
        return tok

    def comparison() -> Any:
        left = additive()
        while peek() in (">", ">=", "<", "<="):
            op = take()
            left = _binary(left, additive(), {">": lambda a, b: float(a > b), ">=": lambda a, b: float(a >= b),
                                               "<": lambda a, b: float(a < b), "<=": lambda a, b: float(a <= b)}[op], length)
        return left

    def additive() -> Any:
        left = term()
        while peek() in ("+", "-"):
            op = take()
            left = _binary(left, term(), (lambda a, b: a + b) if op == "+" else (lambda a, b: a - b), length)
        return left

    def term() -> Any:
        left = atom()
        while peek() in ("*", "/"):
            op = take()
            left = _binary(left, atom(), (lambda a, b: a * b) if op == "*" else _divide, length)
        return left

    def atom() -> Any:
        tok = take()
        if tok == "(":
            value = comparison()
            take(")")
            return value
        if tok == "[":
            items = [comparison()]
            while peek() == ",":
                take(",")
                items.append(comparison())
            take("]")
            return ("array", items)
        if re.fullmatch(r"\d+(?:\.\d+)?", tok):
            return float(tok)
        if peek() == "(":
            take("(")
            args = [comparison()]
            while peek() == ",":
                take(",")
                args.append(comparison())
            take(")")
            return _call(tok, args, period_s, length)
        if tok not in metrics:
            raise ValueError(f"unknown id {tok!r}")
        return list(metrics[tok])

    value = comparison()
    if pos != len(tokens):
        raise ValueError(f"trailing {tokens[pos:]}")
    return _series(value, length)


def _tokens(text: str) -> list[str]:
    out, i = [], 0
    while i < len(text.rstrip()):
        match = TOKEN.match(text, i)
        if not match:
            raise ValueError(f"cannot read {text[i:]!r}")
        out.append(next(g for g in match.groups() if g is not None))
        i = match.end()
    return out


def _series(value: Any, length: int) -> list[float | None]:
    if isinstance(value, float):
        return [value] * length
    if isinstance(value, tuple):
        raise ValueError("an array where a series is needed")
    return value


def _binary(a: Any, b: Any, fn: Callable[[float, float], float], length: int) -> list[float | None]:
    left, right = _series(a, length), _series(b, length)
    return [None if x is None or y is None else fn(x, y) for x, y in zip(left, right, strict=True)]


def _divide(a: float, b: float) -> float | None:
    return None if b == 0 else a / b


def _call(name: str, args: list[Any], period_s: int, length: int) -> Any:
    if name == "FILL":
        target, fill = args
        fill_value = _series(fill, length)[0]
        if isinstance(target, tuple):
            return ("array", [[fill_value if v is None else v for v in _series(s, length)] for s in target[1]])
        return [fill_value if v is None else v for v in _series(target, length)]
    if name in ("SUM", "MAX", "AVG"):
        (arr,) = args
        if not isinstance(arr, tuple):
            raise ValueError(f"{name} of one series is a scalar: not used by the alarms")
        series = [_series(s, length) for s in arr[1]]
        reduce = {"SUM": sum, "MAX": max, "AVG": lambda v: sum(v) / len(v)}[name]
        out = []
        for i in range(length):
            values = [s[i] for s in series if s[i] is not None]
            out.append(reduce(values) if values else None)
        return out
    if name == "IF":
        cond, yes, no = (_series(a, length) for a in args)
        return [None if c is None else (y if c else n) for c, y, n in zip(cond, yes, no, strict=True)]
    if name == "PERIOD":
        return float(period_s)
    raise ValueError(f"function {name} not supported by this evaluator")
