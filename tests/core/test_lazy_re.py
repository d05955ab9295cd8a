"""``core.lazy_re.lazy``: a pattern compiled on first use answers as ``re.compile`` of the same source
(issue 53), for every lazily compiled pattern of the package; ``escape.visible``'s shortcut for printable
ASCII gives what the pattern gives."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core import escape
from edge_origin.core.lazy_re import LazyPattern, lazy

PKG = Path(escape.__file__).resolve().parents[1]


def _lazy_patterns() -> list[LazyPattern]:
    """Every ``lazy(...)`` a module of the package holds (module level, or in a module-level tuple)."""
    found: list[LazyPattern] = []
    for path in sorted(PKG.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "import lazy" not in text or path.name == "lazy_re.py":
            continue
        module = importlib.import_module(".".join(path.relative_to(PKG.parent).with_suffix("").parts))
        for value in vars(module).values():
            items = [value] + [i for row in value for i in (row if isinstance(row, tuple) else (row,))] \
                if isinstance(value, tuple) else [value]
            found += [i for i in items if isinstance(i, LazyPattern) and i not in found]
    return found


PATTERNS = _lazy_patterns()
TEXT = st.lists(st.sampled_from(list("aZ09_.-:/\\[]{}`*~<>&|#!@ \n\t\x1b\u200b\u2028\xa0é") + [
    "elb", "amazonaws", "com", ".cn", "cloudfront.net", "NestedStack", "arn:aws:secretsmanager:us-east-1:",
    "123456789012", ":secret:", "```", "~~~", "www.", "https://"]), max_size=12).map("".join)



def test_the_package_compiles_these_patterns_on_first_use() -> None:
    assert len(PATTERNS) >= 20, len(PATTERNS)


@settings(max_examples=50, deadline=None)
@given(text=TEXT)
def test_a_lazy_pattern_answers_as_the_compiled_one(text: str) -> None:
    assert PATTERNS  # the loop below ran
    for pattern in PATTERNS:
        source, flags = pattern._source  # noqa: SLF001
        fresh, compiled = lazy(source, flags), re.compile(source, flags)
        for method in ("match", "fullmatch", "search"):
            got, expected = getattr(fresh, method)(text), getattr(compiled, method)(text)
            assert (got and (got.span(), got.groups())) == (expected and (expected.span(), expected.groups()))
        assert fresh.sub("#", text) == compiled.sub("#", text) and fresh.findall(text) == compiled.findall(text)
        assert [m.span() for m in fresh.finditer(text)] == [m.span() for m in compiled.finditer(text)]
        assert fresh.split(text) == compiled.split(text) and fresh.subn("", text) == compiled.subn("", text)
        assert (fresh.pattern, fresh.flags, fresh.groups, fresh.groupindex) == \
            (compiled.pattern, compiled.flags, compiled.groups, compiled.groupindex)


def test_it_compiles_once_and_then_holds_the_compiled_methods() -> None:
    pattern = lazy(r"(a)(b)?")
    assert "match" not in vars(pattern)
    assert pattern.match("ab").groups() == ("a", "b")
    assert vars(pattern)["compiled"] is re.compile(r"(a)(b)?") and pattern.search.__self__ is vars(pattern)["compiled"]


@settings(max_examples=50, deadline=None)
@given(text=st.text(max_size=20) | TEXT)
def test_visible_is_the_pattern_s_substitution(text: str) -> None:
    expected = re.compile(escape._INVISIBLE.pattern).sub(escape._visible_one, text)  # noqa: SLF001
    assert escape.visible(text) == expected
    assert escape.visible(7) == "7"
