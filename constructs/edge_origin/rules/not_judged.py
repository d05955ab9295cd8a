"""The one shape of a "not judged" finding, shared by every rule that meets what the model cannot read.

What the model cannot read is named, never read as absent (fail closed). A rule that meets an
alias target, a CNAME value, an origin domain, a routing element or an attribute it does not
model says so with :func:`not_judged`: the subject (which record set, origin or listener), the
element (the expression, member or attribute, shown as written), why it cannot be judged, and
what would let it judge. Such findings are never suppressed by the verdicts of other rules.

Severity is the caller's: ``Severity.WARNING`` where the issue is an expression edge-origin cannot
evaluate (``--fail-on warning`` and the cdk-nag pack fail on it like any warning);
``Severity.NOT_CHECKED`` where Route 53 or CloudFront documents a behaviour edge-origin does not
know (an unknown routing element): it ranks above error, so no threshold reads it as clean.
"""

from __future__ import annotations

import json

from edge_origin.core.findings import Finding, Severity

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

#: Longest expression text a message shows before it is shortened.
MAX_ELEMENT_CHARS = 160


def describe(element: Any) -> str:
    """A template expression or element as one short line (JSON for intrinsics)."""
    if isinstance(element, str):
        text = element
    else:
        try:
            text = json.dumps(element, sort_keys=True, default=str)
        except (TypeError, ValueError):
            text = repr(element)
    if len(text) > MAX_ELEMENT_CHARS:
        text = text[: MAX_ELEMENT_CHARS - 1] + "…"
    return text


def not_judged_message(subject: str, element: Any, reason: str) -> str:
    """``not judged: <subject>: <element> (<reason>)``."""
    return f"not judged: {subject}: {describe(element)} ({reason})"


def not_judged(
    rule_id: str,
    severity: Severity,
    *,
    subject: str,
    element: Any,
    reason: str,
    needs: str,
    template: str = "",
    stack: str = "",
    resource: str = "",
    path: str = "",
    at: Any = None,
) -> Finding:
    """A finding that says what was not judged, why, and what would let edge-origin judge it; ``at`` (a
    model resource) gives its template, stack, logical id and path."""
    if at is not None:
        template, stack, resource, path = at.template, at.stack, at.logical_id, at.path
    return Finding(
        rule=rule_id,
        severity=severity,
        message=not_judged_message(subject, element, reason),
        fix=f"To let edge-origin judge it: {needs}",
        template=template,
        stack=stack,
        resource=resource,
        path=path,
    )
