"""Adoption through a baseline (issue 51 item 3), as checkov's ``--create-baseline`` / ``--baseline``:
record today's findings once, then fail only on new ones.

A baseline file is JSON: ``{"edge-origin-baseline": 1, "findings": [{rule, stack, resource, path,
fingerprint, message, severity}, ...]}``. A finding matches an entry of the same rule by its fingerprint
(``review.checker.finding_fingerprints``: rule + stack + logical id + its ordinal among that
resource's findings of the rule; never the line or the message's numbers), else by its construct
path (``aws:cdk:path``: the same construct under a new logical id); each entry matches once, and
only a finding no worse than the one recorded (``severity``: a warning recorded, e.g. weighted
records behind a non-gRPC origin, that became an error when the origin turned gRPC is new).
Findings that match pass (``known``); the others fail as usual (``new``); entries nothing matched
are reported as ``fixed``.

The same baseline at synth (helper prflow's plugin): ``apply_baseline(findings, path)`` returns the
split; ``load_baseline`` / ``write_baseline`` read and write the file (through the one safe loader,
``core.files.load_data_file``). Bad input: ``BaselineError``, one line naming the file.

Layer 4. May import: core, model, rules, review.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from edge_origin.core.findings import Finding, Severity
from edge_origin.review.checker import finding_fingerprints

VERSION_KEY = "edge-origin-baseline"
VERSION = 1
_FIELDS = ("rule", "stack", "resource", "path", "fingerprint", "message", "severity")


class BaselineError(ValueError):
    """A baseline file that cannot be used: one line naming the file and the problem."""


@dataclass(frozen=True)
class BaselineEntry:
    rule: str
    stack: str
    resource: str
    path: str
    fingerprint: str
    message: str = ""
    #: The finding's severity when it was recorded ("" in a baseline written before it was kept): a
    #: finding that is now worse (a warning that became an error) is new, not known.
    severity: str = ""

    def admits(self, finding: Finding) -> bool:
        """Whether ``finding`` is this entry's finding as recorded, not worse."""
        if not self.severity:
            return True
        try:
            return finding.severity.rank <= Severity(self.severity).rank
        except ValueError:
            return False


@dataclass(frozen=True)
class BaselineSplit:
    """``new``: findings not in the baseline (they count); ``known``: in it (they pass);
    ``fixed``: baseline entries no finding matched any more."""

    new: list[Finding]
    known: list[Finding]
    fixed: list[BaselineEntry]


@dataclass(frozen=True)
class Baseline:
    source: str
    entries: tuple[BaselineEntry, ...]

    def split(self, findings: Sequence[Finding]) -> BaselineSplit:
        """Match ``findings`` (all of a run, fingerprints are taken over them) against the entries."""
        from edge_origin.review.unreadable import NEVER_SET_ASIDE

        prints = finding_fingerprints(findings)
        free = [e for e in self.entries if e.rule not in NEVER_SET_ASIDE]
        matched: list[bool] = [False] * len(findings)
        by_print = {(e.rule, e.fingerprint): i for i, e in enumerate(free)}
        taken: set[int] = set()
        worse: set[int] = set()  # entries whose finding is still there, now worse: not fixed, not known
        for n, f in enumerate(findings):
            i = by_print.get((f.rule, prints[n]))
            if i is not None and i not in taken and free[i].admits(f):
                taken.add(i)
                matched[n] = True
            elif i is not None and i not in taken:
                worse.add(i)
        by_path: dict[tuple[str, str], list[int]] = {}
        for i, e in enumerate(free):
            if i not in taken and e.path:
                by_path.setdefault((e.rule, e.path), []).append(i)
        for n, f in enumerate(findings):
            candidates = by_path.get((f.rule, f.path), []) if not matched[n] and f.path else []
            i = next((i for i in candidates if free[i].admits(f)), None)
            if i is not None:
                candidates.remove(i)
                taken.add(i)
                matched[n] = True
        return BaselineSplit(
            new=[f for n, f in enumerate(findings) if not matched[n]],
            known=[f for n, f in enumerate(findings) if matched[n]],
            fixed=[e for i, e in enumerate(free) if i not in taken and i not in worse],
        )


def baseline_document(findings: Sequence[Finding]) -> dict[str, object]:
    """The baseline file's content for ``findings`` (not-checked findings are left out: a rule
    that could not run is never accepted, nor a suppression without a reason or a file not read)."""
    from edge_origin.review.unreadable import NEVER_SET_ASIDE

    prints = finding_fingerprints(findings)
    entries = [
        {"rule": f.rule, "stack": f.stack, "resource": f.resource, "path": f.path, "fingerprint": prints[n], "message": f.message,
         "severity": f.severity.value}
        for n, f in enumerate(findings)
        if f.severity is not Severity.NOT_CHECKED and f.rule not in NEVER_SET_ASIDE
    ]
    return {VERSION_KEY: VERSION, "findings": entries}


def write_baseline(findings: Sequence[Finding], path: str | Path) -> int:
    """Write the baseline of ``findings`` to ``path``; how many entries. BaselineError when it cannot be written."""
    doc = baseline_document(findings)
    try:
        Path(path).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as exc:
        raise BaselineError(f"{path}: cannot write the baseline ({exc.strerror or exc})") from None
    return len(doc["findings"])  # type: ignore[arg-type]


def load_baseline(path: str | Path) -> Baseline:
    """Read a baseline file (regular file, size-bounded, JSON); BaselineError naming the file otherwise."""
    from edge_origin.core.files import InputFileError, load_data_file

    try:
        doc = load_data_file(path)
    except (InputFileError, ValueError) as exc:
        raise BaselineError(f"baseline {exc}" if str(path) in str(exc) else f"baseline {path}: {exc}") from None
    if not isinstance(doc, dict) or doc.get(VERSION_KEY) != VERSION or not isinstance(doc.get("findings"), list):
        raise BaselineError(
            f"baseline {path}: not an edge-origin baseline (expected {{\"{VERSION_KEY}\": {VERSION}, \"findings\": [...]}}; "
            "write one with check --create-baseline FILE)"
        )
    entries = []
    for n, item in enumerate(doc["findings"]):
        if not isinstance(item, dict) or not all(isinstance(item.get(k, ""), str) for k in _FIELDS) or not item.get("rule"):
            raise BaselineError(f"baseline {path}: findings[{n}] must be a mapping of strings with a rule ({', '.join(_FIELDS)})")
        entries.append(BaselineEntry(*(str(item.get(k, "")) for k in _FIELDS)))
    return Baseline(str(path), tuple(entries))


def apply_baseline(findings: Sequence[Finding], baseline: str | Path | Baseline) -> BaselineSplit:
    """The library entry point (``check --baseline`` and the synth plugin): split ``findings``
    against a baseline file (or a loaded Baseline)."""
    loaded = baseline if isinstance(baseline, Baseline) else load_baseline(baseline)
    return loaded.split(findings)


__all__ = [
    "Baseline",
    "BaselineEntry",
    "BaselineError",
    "BaselineSplit",
    "apply_baseline",
    "baseline_document",
    "load_baseline",
    "write_baseline",
]
