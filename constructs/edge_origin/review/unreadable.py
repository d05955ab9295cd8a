"""A file the review could not read is a finding of the review, not only a line on stderr.

``check`` and ``report`` read every file they can and list the others as ``unreadable`` (bad input:
a nested stack past a budget or in a cycle, a template that does not parse, a path that leaves the
assembly). Before, those files were only named on stderr (and in ``--format json``): the SARIF had
no result, the Markdown review said "No findings" with "0 not judged", and the GitHub Action's
step summary was empty while the job failed, so a pile-up in a file the review could not read
left no trace in what a reviewer reads. Now each unreadable file is an ``EO-READ1`` error finding
("not judged: ...", counted as not judged in the summary line) in every format. Like ``EO-ACK1`` it
is not a catalogue rule: no ``--ignore``/``select``, acknowledgement or baseline sets it aside.

Layer 4. May import: core.
"""

from __future__ import annotations

from collections.abc import Iterable

from edge_origin.core.findings import Finding, Severity

READ_RULE = "EO-READ1"
READ_TITLE = "Template not read"
READ_CATCHES = (
    "A file given to the review (or a nested stack's template) that could not be read: bad input, a budget "
    "passed, a cycle of nested stacks, a path that leaves the assembly. What it holds is not judged, so the "
    "review cannot say the change is clean."
)
READ_FIX = "Make the file readable (the message names the file, the limit and the flag that raises it), or leave it out of the paths given."
#: Findings no suppression, selection or baseline sets aside (they say the review itself is incomplete or refused).
NEVER_SET_ASIDE = ("EO-ACK1", READ_RULE)


def unreadable_findings(unreadable: Iterable[tuple[str, str]]) -> list[Finding]:
    """One ``EO-READ1`` error a ``(file, message)`` the loader could not read."""
    out = []
    for path, message in unreadable:
        text = message if message.startswith(str(path)) else f"{path}: {message}"
        out.append(Finding(
            READ_RULE, Severity.ERROR,
            f"not judged: {text} (this file could not be read: the records, distributions and load balancers it holds are not judged)",
            READ_FIX, template=str(path),
        ))
    return out


__all__ = ["NEVER_SET_ASIDE", "READ_CATCHES", "READ_FIX", "READ_RULE", "READ_TITLE", "unreadable_findings"]
