"""Issue 51: a missing extra's message names a pip command that works before a release: the clone or
the wheel this install came from (PEP 610 direct_url.json), and the PyPI form for once it is released."""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

import pytest

from edge_origin.cli.common import install_hint


class _Dist:
    def __init__(self, direct: Any) -> None:
        self.direct = direct

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return None if self.direct is None else json.dumps(self.direct)


@pytest.mark.parametrize(("direct", "hint"), [
    ({"url": "file:///src/edge%20origin", "dir_info": {"editable": True}},
     "pip install -e '/src/edge origin[rehearsal]' (once released: pip install 'edge-origin[rehearsal]')"),
    ({"url": "file:///tmp/dist/edge_origin-0.2.0-py3-none-any.whl", "archive_info": {}},
     "pip install '/tmp/dist/edge_origin-0.2.0-py3-none-any.whl[rehearsal]' (once released: pip install 'edge-origin[rehearsal]')"),
    ({"url": "https://example.com/edge_origin-0.2.0.whl", "archive_info": {}}, "pip install 'edge-origin[rehearsal]'"),
    (None, "pip install 'edge-origin[rehearsal]'"),
])
def test_the_hint_names_where_this_install_came_from(monkeypatch: pytest.MonkeyPatch, direct: Any, hint: str) -> None:
    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(direct))
    assert install_hint("rehearsal") == hint

