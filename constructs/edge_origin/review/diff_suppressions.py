"""What ``edge-origin diff`` and ``report --base --head`` show of suppressions: the notices at the top
(an acknowledgement or a setting the change adds), head's findings set aside (with reasons), and the
``EO-ACK1`` errors. The sorting itself is ``review.suppressions``.

Layer 4. May import: core, model, rules, review.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from edge_origin.core.findings import Finding
from edge_origin.review.checker import format_markdown, format_sarif, format_text, notice_lines
from edge_origin.review.suppressions import ACK_RULE, Settings, acknowledgement_changes, split_findings
from edge_origin.rules import run_rules
from edge_origin.rules.selection import RuleSelection


@dataclass(frozen=True)
class DiffSuppressions:
    """What ``edge-origin diff`` adds to its output: ``notices`` (what the change sets aside, at
    the top), ``acknowledged`` (head's findings set aside, with reasons) and ``errors``
    (``EO-ACK1``: suppressions in head or the settings without a reason)."""

    result: object
    notices: list[str]
    acknowledged: list[Finding]
    errors: list[Finding]

    def wrap(self, text: str, fmt: str) -> str:
        """``text`` (a diff in ``fmt``) with the notices first and the acknowledged findings and errors after."""
        if fmt == "json":
            doc = json.loads(text)
            doc["notices"] = self.notices
            doc["acknowledged"] = [f.to_dict() for f in self.acknowledged]
            doc["suppression_errors"] = [f.to_dict() for f in self.errors]
            return json.dumps(doc, indent=2) + "\n"
        if fmt == "junit":
            return text  # JUnit's shape is one suite of the change's findings; the notices are in the other formats
        tail = ""
        if self.errors or self.acknowledged:
            render = format_markdown if fmt == "markdown" else format_text
            tail = "\n" + render(self.errors, self.acknowledged)
        return notice_lines(self.notices, fmt) + text + tail

    def sarif(self) -> str:
        items = self.result.findings  # type: ignore[attr-defined]
        findings = [*self.errors, *(f for f, _, _ in items)]
        state = {len(self.errors) + i: ("new" if new else "unchanged") for i, (_, _, new) in enumerate(items)}
        state.update({i: "new" for i in range(len(self.errors))})
        return format_sarif(findings, baseline_state=state, acknowledged=self.acknowledged, notices=self.notices)


def diff_with_suppressions(everything: object, result: object, settings: RuleSelection | None, notices: Sequence[str] = ()) -> DiffSuppressions:
    """The suppressions of a diff: ``everything`` is the DiffResult before the rule selection,
    ``result`` after it; ``notices`` come from the settings (``--head-config``)."""
    base, head = everything.base, everything.head  # type: ignore[attr-defined]
    head_all = run_rules(head, honour_acknowledgements=False)
    split = split_findings(head, head_all, settings)
    errors = [f for f in split.open if f.rule == ACK_RULE]
    acked = list(split.acknowledged)
    kept = {id(f) for f in result.transition_findings}  # type: ignore[attr-defined]
    for f in everything.transition_findings:  # type: ignore[attr-defined]
        if id(f) not in kept and isinstance(settings, Settings):
            why = settings.suppression_for(f.rule)
            if why is not None:
                acked.append(replace(f, suppression=why))
    worse = _acknowledged_made_worse(base, head_all, split.acknowledged)
    return DiffSuppressions(result, [*acknowledgement_changes(base, head), *worse, *notices], acked, errors)


def _acknowledged_made_worse(base: object, head_all: list[Finding], acknowledged: Sequence[Finding]) -> list[str]:
    """One line for each finding head sets aside that the change makes worse than base had it (an
    acknowledgement given for a warning now covers an error: weighted records "fine for a non-gRPC
    origin" under an origin this change turns gRPC). The acknowledgement is unchanged, so nothing else
    says so; the review states it at the top with the reason that no longer fits."""
    from edge_origin.review.checker import finding_fingerprints

    base_all = run_rules(base, honour_acknowledgements=False)  # type: ignore[arg-type]
    before = {fp: f.severity for f, fp in zip(base_all, finding_fingerprints(base_all), strict=True)}
    prints = dict(zip(map(_key, head_all), finding_fingerprints(head_all), strict=True))
    out = []
    for f in acknowledged:
        was = before.get(prints.get(_key(f), ""))
        if was is not None and f.severity.rank > was.rank:
            why = f.suppression
            out.append(f"makes an acknowledged finding worse: {f.rule} on {f.stack}/{f.resource} was {was.value} in base, is "
                       f"{f.severity.value} now (still set aside by {why.source if why else '?'}: {why.reason if why else ''})")
    return out


def _key(f: Finding) -> tuple[str, str, str, str, str]:
    return (f.rule, f.stack, f.resource, f.severity.value, f.message)


__all__ = ["DiffSuppressions", "diff_with_suppressions"]
