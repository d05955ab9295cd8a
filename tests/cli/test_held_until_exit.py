"""check keeps its model until ``os._exit`` only under the program's fast exit (issue 53).

``edge-origin check`` (``cli.entry``) ends with ``os._exit``: a model freed object by object when the
command returns costs time and changes nothing, so the command hands it to ``cli.common.hold_until_exit``.
``main`` called as a library function must hold nothing (a test process or a tool calling it many times
would keep every model).
"""

from __future__ import annotations

import contextlib
import gc
import io
import weakref
from pathlib import Path

import pytest

from edge_origin.cli import common, main
from edge_origin.review import checker

TEMPLATE = Path(__file__).parents[1] / "snapshots" / "TelemetryIngest.template.json"


def _check_and_watch_the_model(monkeypatch: pytest.MonkeyPatch) -> weakref.ref:
    """Run ``main(["check", TEMPLATE])``; a weak reference to the model it built."""
    seen: list[weakref.ref] = []
    real = checker.check_paths

    def watched(*args: object, **kwargs: object) -> checker.CheckResult:
        result = real(*args, **kwargs)
        seen.append(weakref.ref(result.model))
        return result

    monkeypatch.setattr(checker, "check_paths", watched)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["check", str(TEMPLATE)]) == 0
    gc.collect()
    assert len(seen) == 1
    return seen[0]


def test_main_as_a_library_holds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "HELD_UNTIL_EXIT", None)
    model = _check_and_watch_the_model(monkeypatch)
    assert model() is None, "main() kept the model alive after it returned"


def test_the_fast_exit_keeps_the_model_until_the_process_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    held: list[object] = []
    monkeypatch.setattr(common, "HELD_UNTIL_EXIT", held)
    model = _check_and_watch_the_model(monkeypatch)
    assert model() is not None
    assert [type(item).__name__ for item in held] == ["CheckResult"]
