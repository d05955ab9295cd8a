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
from edge_origin.model.values import ResourceRef, Unresolved, display_value

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


#: Why a value is decided at deploy time, by ``Unresolved.reason`` (``model/values.py``); a ``ResourceRef``
#: is an attribute of a resource, known once it exists.
UNDECIDED_REASONS = {
    "parameter": "decided at deploy time: a parameter without Default",
    "import": "decided at deploy time: an import of an export no given template declares",
    "condition": "decided at deploy time: a condition the templates cannot decide",
    "pseudo": "decided at deploy time: a pseudo parameter of a stack whose environment is not given",
    "nested": "decided at deploy time: an output of a nested stack whose template is not given",
    "composite": "decided at deploy time: an expression with a part the templates do not decide",
    "other": "decided at deploy time: an intrinsic edge-origin does not evaluate",
    "resource": "decided at deploy time: an attribute of a resource, known once it exists",
}
#: What would let edge-origin judge such a value, by the same key.
UNDECIDED_NEEDS = {
    "parameter": "give the parameter a Default (or check with the value you deploy)",
    "import": "check the stack that exports it together with this one (edge-origin check on the whole cloud assembly)",
    "condition": "give the parameters the condition reads a Default, or check the stacks together",
    "pseudo": "check the cloud assembly (cdk.out): its manifest gives each stack's account and Region",
    "nested": "check the whole cloud assembly (cdk.out), which holds the nested stack's template",
    "composite": "give the parameters it reads a Default, or check the stacks together",
    "other": "spell the value as a literal",
    "resource": "spell the value as a literal",
}


def undecided(value: Any) -> Unresolved | ResourceRef | None:
    """The first value decided at deploy time in ``value`` (itself, or in a list or mapping of it), else None."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, (Unresolved, ResourceRef)):
            return item
        if isinstance(item, dict):
            todo.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            todo.extend(reversed(item))
    return None


def _undecided_kind(value: Any) -> str:
    found = undecided(value)
    if isinstance(found, Unresolved):
        return found.reason if found.reason in UNDECIDED_REASONS else "other"
    return "resource" if found is not None else "other"


def undecided_reason(value: Any) -> str:
    """Why ``value`` (or the first deploy-time value in it) is not known: "decided at deploy time: ..."."""
    return UNDECIDED_REASONS[_undecided_kind(value)]


def undecided_needs(value: Any) -> str:
    """What would let edge-origin judge ``value``."""
    return UNDECIDED_NEEDS[_undecided_kind(value)]


def not_judged_value(rule_id: str, subject: str, value: Any, consequence: str, at: Any, *, needs: str = "",
                     why: str = "") -> Finding:
    """The one not-judged warning of ``rule_id`` on ``at`` for a ``value`` decided at deploy time: ``subject`` is
    ``value`` (shown as written), ``undecided_reason(value)`` (or ``why``) then ``consequence`` (what some of its values
    would make of it) is why, ``undecided_needs(value)`` (or ``needs``) what would let edge-origin judge it."""
    reason = why or undecided_reason(value)
    return not_judged(rule_id, Severity.WARNING, subject=subject, element=display_value(value),
                      reason=f"{reason}; {consequence}" if consequence else reason,
                      needs=needs or undecided_needs(value), at=at)
