"""How a resource's fate reads in `edge-origin diff` and the EO-CHG findings (``Status.describe``)."""

from __future__ import annotations

from edge_origin.model.transition import MAY_REPLACE, REMOVED, REPLACED, UPDATED, Status


def test_a_status_reads_as_its_word_and_its_reasons():
    assert Status(UPDATED).describe() == "updated"
    assert Status(REMOVED).describe() == "removed"
    assert Status(REPLACED, ("Address 192.0.2.1 -> 192.0.2.2",)).describe() == "replaced (Address 192.0.2.1 -> 192.0.2.2)"
    assert Status(MAY_REPLACE, ("a changed", "b not resolvable")).describe() == "may replace (a changed; b not resolvable)"
