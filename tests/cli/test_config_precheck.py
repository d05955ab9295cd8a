"""A pyproject.toml is parsed for edge-origin's settings only when it may hold ``[tool.edge-origin]`` (issue 53: a
project that depends on edge-origin, or its own repository with the ``edge-origin`` console script, costs no TOML
parse on every check). The pre-check never says no for a document whose ``tool.edge-origin`` tomllib reads."""

from __future__ import annotations

import tomllib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.cli.config import _may_hold_table

ROOT = Path(__file__).resolve().parents[2]

HEADERS = ["[tool]", "[ tool ]", '["tool"]', "['tool']", "[tool] # settings", "[project]", "[project.scripts]",
           "[tool.other]", "[[tool.list]]", '[tool."edge-origin"]', "[tool.edge-origin]", "[ tool . 'edge-origin' ]",
           "[tool.edge-origin.sub]", '["to\\u006fl"]']
LINES = ['edge-origin = "edge_origin.cli:entry"', 'edge-origin = { fail_on = "error" }', '"edge-origin" = {}',
         "'edge-origin' = {}", 'name = "edge-origin"', 'deps = ["edge-origin>=0.2", "x"]', "# edge-origin = 1",
         'tool.edge-origin.fail_on = "error"', 'tool = { edge-origin = { a = 1 } }', 'm = [\n  [1, 2]\n]',
         'm = [\n  [1, 2],\n  ["[tool]"],\n]', 's = "[tool] edge-origin = x"', "s = '''\n[tool]\n'''", 'x = 1',
         'url = "https://example.com/edge-origin#readme"', "edge-origin-x = 2", 'k = "a\\"[b"']


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(HEADERS), st.lists(st.sampled_from(LINES), max_size=4)), max_size=5),
       st.lists(st.sampled_from(LINES), max_size=3))
def test_a_document_that_holds_the_table_is_never_passed_over(sections: list[tuple[str, list[str]]], top: list[str]) -> None:
    text = "\n".join([*top, *(line for header, lines in sections for line in (header, *lines))]) + "\n"
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # not TOML: what the pre-check says is parsed (and refused) or passed over, as any file without the table
    tool = doc.get("tool")
    if isinstance(tool, dict) and "edge-origin" in tool:
        assert _may_hold_table(text), text


def test_the_repository_s_own_pyproject_and_a_dependent_s_are_not_parsed() -> None:
    assert "edge-origin" in (ROOT / "pyproject.toml").read_text()  # its name, its console script, its URLs
    assert not _may_hold_table((ROOT / "pyproject.toml").read_text())
    assert not _may_hold_table('[project]\nname = "app"\ndependencies = ["edge-origin[rehearsal]>=0.2"]\n')
    assert _may_hold_table('[project]\nname = "app"\n\n[tool.edge-origin]\nfail_on = "warning"\n')


TOOL_HEADERS = ["[tool]", "[ tool ]", '["tool"]', "['tool']", "[tool] # settings", "[tool]#[x]", '["to\\u006fl"]']
NOISE = ["", "x = 1", "m = [\n  [1, 2]\n]", 'm = [\n  [1, 2],\n  ["[other]"],\n]', 's = "[other]"', "# [other]",
         "n = [ # [\n  1,\n]", "t = { a = [1] }"]
KEYS = ['edge-origin = { fail_on = "error" }', '"edge-origin" = {}', "'edge-origin' = {}", "  edge-origin = {}",
        "edge-origin.fail_on = 'error'"]


def test_every_spelling_of_the_table_under_tool_is_parsed() -> None:
    """Deterministic: each way ``[tool]`` can be written, with arrays, strings and comments holding brackets between
    it and the key, then each spelling of the key: whenever tomllib reads ``tool.edge-origin``, the pre-check says yes."""
    held = 0
    for prefix in ("", '[project]\nname = "app"\n\n[project.scripts]\nedge-origin = "x"\n'):
        for header in TOOL_HEADERS:
            for noise in NOISE:
                for key in KEYS:
                    text = f"{prefix}{header}\n{noise}\n{key}\n"
                    tool = tomllib.loads(text).get("tool")
                    if isinstance(tool, dict) and "edge-origin" in tool:
                        held += 1
                        assert _may_hold_table(text), text
    assert held == 2 * len(TOOL_HEADERS) * len(NOISE) * len(KEYS)  # every combination is TOML that holds it
