"""Value objects for what the templates alone cannot resolve, and DNS name normalization."""

from __future__ import annotations

from edge_origin.core.dns_names import canonical_name
from edge_origin.core.fast_dataclass import dataclass


class ModelError(ValueError):
    """Bad input: one line that names the file (and the logical id or property) and the problem.

    ``template`` is the file the problem is in, when known (the model then drops just that file).
    """

    MAX_LENGTH = 500

    def __init__(self, message: str, template: str | None = None) -> None:
        # one line: a line break (say, in a file name) is escaped, so the name stays recognizable
        message = str(message).replace("\r", "\\r").replace("\n", "\\n")
        if len(message) > self.MAX_LENGTH:
            message = message[: self.MAX_LENGTH - 3] + "..."
        super().__init__(message)
        self.template = template


@dataclass(frozen=True, order=True)
class ResourceRef:
    """A ``Ref`` (``attribute`` None) or ``Fn::GetAtt`` of a resource that exists in the model.

    Its value is only known at deploy time (an EIP's public IP, an NLB's DNS name), so the
    model keeps the reference: ``ResourceRef("Origins", "EipA", None)``.
    """

    stack: str
    logical_id: str
    attribute: str | None = None

    def display(self) -> str:
        """A short, deterministic text form: ``Stack/LogicalId`` or ``Stack/LogicalId.Attr``."""
        base = f"{self.stack}/{self.logical_id}"
        return f"{base}.{self.attribute}" if self.attribute else base

    def __str__(self) -> str:
        return self.display()


@dataclass(frozen=True, order=True)
class Unresolved:
    """A value the given templates cannot resolve.

    ``reason`` is one of ``parameter`` (no Default), ``pseudo`` (``AWS::Region``...), ``import``
    (``Fn::ImportValue`` of an export not in the given templates), ``condition`` (an ``Fn::If``
    whose condition is not decidable), ``composite`` (a ``Fn::Sub``/``Fn::Join`` with an
    unresolved part), ``nested`` (``Outputs.X`` of a nested stack whose template is not given), ``other`` (``Fn::GetAZs``,
    ``Fn::Cidr``, ``Fn::Base64`` ...).
    ``expr`` is a readable, deterministic rendering of the expression.
    """

    reason: str
    expr: str

    def display(self) -> str:
        return f"<{self.expr}>"

    def __str__(self) -> str:
        return self.display()


def normalize_name(name: object) -> str | None:
    """A DNS name as the model compares names, as Route 53 reads it (``\\ddd`` escapes decoded,
    ASCII lower case, no trailing dot: :func:`edge_origin.core.dns_names.canonical_name`); None if
    not a string or empty."""
    if not isinstance(name, str):
        return None
    found = _CANONICAL.get(name)  # each spelling worked out once: rules ask for the same names again and again
    if found is None:
        if len(_CANONICAL) >= 65536:
            _CANONICAL.clear()  # bounded: a long-lived process (the synth plugin) meets name after name
        found = _CANONICAL[name] = canonical_name(name)
    return found or None


#: ``canonical_name`` by spelling (a pure function of the text: nothing of a model is kept).
_CANONICAL: dict[str, str] = {}


def display_value(value: object) -> str:
    """Deterministic text for any resolved value (str, number, ResourceRef, Unresolved, list)."""
    if isinstance(value, (ResourceRef, Unresolved)):
        return value.display()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(display_value(v) for v in value)
    if value is None:
        return "-"
    return str(value)


def deploy_time(value: object) -> bool:
    """A value only known at deploy time (a reference or something the templates cannot resolve)."""
    return isinstance(value, (ResourceRef, Unresolved))
