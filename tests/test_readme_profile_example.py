"""The connection profile page's Python example (docs/connection-profile.md) runs as written (issue 39)."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "connection-profile.md"


def test_the_connection_profile_example_runs() -> None:
    blocks = [b for b in re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
              if "ConnectionProfile.preset(" in b]
    assert blocks, "no Python ConnectionProfile example in docs/connection-profile.md"
    namespace: dict = {}
    exec(compile(blocks[0], "docs/connection-profile.md", "exec"), namespace)  # noqa: S102 - the page's own example
    profile = namespace["profile"]
    assert (profile.client_keepalive_time_s, profile.nlb_idle_timeout_s) == (45, 400)
