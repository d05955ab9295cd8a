"""A killed origin's "RPCs after the kill" is what the origin itself served after it was stopped: the clients'
view also holds answers the origin sent just before the kill and a loaded client read just after it (a CI run
once counted one of those and failed a correct run)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from edge_origin.rehearsal.metrics import kill_report
from edge_origin.rehearsal.origins import _CountingHealth


class _Context:
    def peer(self) -> str:
        return "ipv4:127.0.0.1:5000"

    def set_trailing_metadata(self, _md) -> None:
        pass


def test_the_origin_counts_what_it_served_after_stopping_began() -> None:
    service = _CountingHealth("nlb1/a")
    asyncio.run(service.check(b"", _Context()))
    assert (service.rpcs, service.rpcs_after_stop) == (1, 0)
    service.stopping = True
    asyncio.run(service.check(b"", _Context()))
    assert (service.rpcs, service.rpcs_after_stop) == (2, 1)


def _report(served_after_kill):
    clients = [{"origins": [(0.1, "a"), (0.9, "a")], "error_log": []},  # read an answer of "a" after the kill at 0.8
               {"origins": [(0.1, "a"), (1.5, "b")], "error_log": [(1.0, "UNAVAILABLE")]}]
    auth = SimpleNamespace(answers=[], addresses={"a": "127.0.0.1"})
    return kill_report("a", 0.8, None, 0.0, 1.5, clients, auth, [], 0.6, served_after_kill)


def test_the_report_takes_the_origins_count_and_shows_the_clients_view_beside_it() -> None:
    report = _report(0)
    assert report["rpcs_on_killed_after_kill"] == 0 and report["responses_read_after_kill"] == 1
    assert _report(2)["rpcs_on_killed_after_kill"] == 2
    assert _report(None)["rpcs_on_killed_after_kill"] == 1  # no count from the origin: the clients' view
    assert report["clients_on_killed"] == 2 and report["clients_moved"] == 1 and report["rpcs_failed"] == 1
