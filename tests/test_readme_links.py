"""Every link in the README (and docs/) stays inside the repository and leads to a file that
exists: a user's clone has no ../shared/ folder (issue 39)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"(?<![\w.])\.\./(?:shared|[\w-]+/background)|shared/background")


def _targets(text: str) -> list[str]:
    return [t for t in LINK.findall(text) if not re.match(r"^[a-z]+:", t) and not t.startswith("#")]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_relative_links_stay_inside_the_repository_and_exist(doc: Path) -> None:
    bad = []
    for target in _targets(doc.read_text(encoding="utf-8")):
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        if ROOT not in (path, *path.parents) or not path.exists():
            bad.append(target)
    assert not bad, f"{doc.name}: links outside the repository or to missing files: {bad}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_no_reference_to_the_background_folder(doc: Path) -> None:
    hits = [m.group() for m in OUTSIDE.finditer(doc.read_text(encoding="utf-8"))]
    assert not hits, f"{doc.name} names files outside the repository: {hits}"


def test_the_checker_sees_a_link_outside() -> None:
    assert _targets("see [x](../shared/background/a.txt) and [y](https://example.com)") == ["../shared/background/a.txt"]
    assert OUTSIDE.search("(`../shared/background/x.txt`)")


def _slug(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_anchors_into_markdown_files_name_a_heading(doc: Path) -> None:
    bad = []
    for target in _targets(doc.read_text(encoding="utf-8")):
        file, _, anchor = target.partition("#")
        if not anchor or not file.endswith(".md"):
            continue
        text = (doc.parent / file).read_text(encoding="utf-8")
        slugs = {_slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}
        if anchor not in slugs:
            bad.append(target)
    assert not bad, f"{doc.name}: anchors that name no heading: {bad}"
