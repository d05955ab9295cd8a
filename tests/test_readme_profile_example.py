"""The README's Python example of a ConnectionProfile runs as written (issue 39)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_connection_profile_example_runs() -> None:
    blocks = [b for b in re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
              if "ConnectionProfile.preset(" in b]
    assert blocks, "no Python ConnectionProfile example in the README"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)  # noqa: S102 - the README's own example
    profile = namespace["profile"]
    assert (profile.client_keepalive_time_s, profile.nlb_idle_timeout_s) == (45, 400)
