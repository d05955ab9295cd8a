"""The model's mean 5xx is over the event's whole window (broadcasts and quiet hours), as a published average is."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.rehearsal.model_events import load_events, parse_events
from edge_origin.rehearsal.model_events_run import CapacityModel, run_event
from edge_origin.rehearsal.model_inputs import ModelError

# a small weighted crowd that overloads its 3 addresses at first
MODEL = CapacityModel(400.0, 5.0, horizon_seconds=120.0)


def _event(**changes: object):  # noqa: ANN202
    raw = {"name": "e", "routing": "weighted", "ips": 3, "concurrent_connections": 3000, "requests_per_second": 300,
           "ramp_seconds": 2, "duration_seconds": 600, "ttl": 60, "health_check_interval": 10, "failure_threshold": 3}
    raw.update(changes)
    return parse_events({"events": [raw]}, "f.json")[0]


def test_quiet_hours_add_requests_that_do_not_fail() -> None:
    alone = run_event(_event(), MODEL)
    quiet = run_event(_event(window_seconds=6000, quiet_share=0.5), MODEL)
    assert alone.failed > 0
    assert quiet.failed == pytest.approx(alone.failed)
    assert quiet.requests == pytest.approx(alone.requests + 0.5 * 300 * (6000 - 600))
    assert quiet.mean_5xx == pytest.approx(alone.mean_5xx * alone.requests / quiet.requests)
    assert quiet.peak_5xx == alone.peak_5xx  # the worst 5 minutes are the burst's either way


def test_each_broadcast_of_the_window_is_a_burst() -> None:
    one = run_event(_event(window_seconds=3600), MODEL)
    two = run_event(_event(window_seconds=3600, broadcasts=2), MODEL)
    assert two.failed == pytest.approx(2 * one.failed) and two.requests == pytest.approx(2 * one.requests)
    assert two.mean_5xx == pytest.approx(one.mean_5xx)  # quiet_share 0: the window adds nothing else


@settings(database=None, max_examples=25, deadline=None)
@given(quiet=st.floats(0, 1), extra=st.floats(0, 20 * 86_400), broadcasts=st.integers(1, 4))
def test_the_window_mean_never_exceeds_the_broadcasts_mean(quiet: float, extra: float, broadcasts: int) -> None:
    base = run_event(_event(window_seconds=600 * broadcasts, broadcasts=broadcasts), MODEL)
    wide = run_event(_event(window_seconds=600 * broadcasts + extra, broadcasts=broadcasts, quiet_share=quiet), MODEL)
    assert 0 <= wide.mean_5xx <= base.mean_5xx * (1 + 1e-9)


@pytest.mark.parametrize(("change", "message"), [
    ({"window_seconds": 100}, "window_seconds: must be 600..2678400 (broadcasts x duration_seconds at least; got 100)"),
    ({"window_seconds": 1000, "broadcasts": 2}, "window_seconds: must be 1200..2678400"),
    ({"broadcasts": 0}, "broadcasts: must be 1..31"),
    ({"broadcasts": 1.5}, "broadcasts: must be a whole number"),
    ({"quiet_share": 2}, "quiet_share: must be 0..1"),
    ({"window_seconds": "2d"}, "window_seconds: expected a number"),
])
def test_a_bad_window_field_is_one_line_naming_it(change: dict, message: str) -> None:
    with pytest.raises(ModelError) as exc:
        _event(**change)
    assert message in str(exc.value) and "\n" not in str(exc.value) and "f.json: events[0] (e)" in str(exc.value)


def test_the_shipped_windows_are_the_published_date_ranges() -> None:
    events = {e.name: e for e in load_events()}
    assert events["mar1-2"].window == 2 * 86_400 and events["mar7-9"].window == 3 * 86_400  # "Mar 1-2", "Mar 7-9"
    assert {e.quiet_share for e in events.values()} == {0.01}  # "100x traffic surge"
    assert events["mar7-9"].sources["window_seconds"].startswith("post: Improvement summary table")
