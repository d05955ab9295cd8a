"""The link check (issue 32): every link of the README and of every docs/ page leads somewhere.

- relative links stay inside the repository and name a file that exists (a user's clone has no
  ../shared/ folder: issue 39);
- an ``#anchor`` (in the same page or another Markdown file) names a heading of that page, as
  GitHub slugs it, or an ``<a id>`` anchor;
- the README is also PyPI's long description, where relative links break: it links to this
  repository by absolute ``https://github.com/edge-origin/edge-origin/blob/main/...`` URLs, and
  those are checked against the checkout as if they were relative;
- every section the README had before the docs/ split keeps its anchor in the README, pointing at
  the page and section it moved to.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"(?<![\w.])\.\./(?:shared|[\w-]+/background)|shared/background")
REPOSITORY = "https://github.com/edge-origin/edge-origin/blob/main/"
HTML_ANCHOR = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")

#: Pages other branches of issue 32 are adding (linked from docs/README.md before they land). A
#: missing one is allowed; once it exists, its links and anchors are checked like every page's.
PAGES_IN_FLIGHT: set[str] = set()

#: The README's section anchors before the split (commit daf0567): each must stay an anchor of the
#: README, so links people made to them land on the line that says where the section went.
OLD_README_ANCHORS = (
    "install", "the-failures-it-prevents", "use-it-from-your-stack",
    "a-stage-app-an-imported-vpc-exports-and-a-consumer-stack", "the-constructs", "props-with-their-real-defaults",
    "grpcedgetoorigin", "internalgrpcorigin", "originfleet", "multivalueoriginrecords", "grpcedgedistribution",
    "targetgroupbindings", "originwatch", "names-that-survive-an-env-change-set-identifiers-logical-ids",
    "the-first-deploy-quotas", "why-these-choices", "security-groups-and-the-addresses-known-at-synth",
    "choosing-a-topology-public-eips-or-a-cloudfront-vpc-origin", "the-rule-pack-and-the-template-checker",
    "rules-suppressions-a-config-file-junit", "reviewing-a-change", "in-github-actions", "as-a-pre-commit-hook",
    "safe-on-untrusted-templates-the-reviews-threat-model",
    "the-connection-profile-keepalive-idle-timeouts-connection-age",
    "origin-verification-only-our-distribution-reaches-the-pods", "the-flash-crowd-rehearsal",
    "the-same-rehearsal-as-locust-workers---engine-locust", "the-internet-scale-model---model",
    "the-incidents-events-fitted-and-predicted-edge-origin-model", "migrating-a-live-name-from-weighted-to-multivalue",
    "changing-records-at-run-time", "what-enact-reports-applied-not-applied-unknown",
    "route-53s-own-guards-protections-guardrails-change-history",
    "testing-your-own-dns-automation-edge_origintestingroute53",
    "faults-aws-has-and-moto-does-not-edge_origintestingfaults", "the-reference-app", "deploying-for-real",
    "before-and-after-cdk-deploy", "ready-for-the-event-capacity-for-a-burst-from-zero-and-edge-origin-ready",
    "watching-the-path-dashboard-alarms-and-edge-origin-watch", "tests-and-benchmarks", "aws-drift",
    "testing-the-suite-itself",
)


def _targets(text: str) -> list[str]:
    return [t for t in LINK.findall(_outside_code(text)) if not re.match(r"^[a-z]+:", t) and not t.startswith("#")]


def _outside_code(text: str) -> str:
    """The page without its fenced code blocks (a ``](x)`` or ``# x`` in code is no link or heading)."""
    kept, fence = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence:
            kept.append(line)
    return "\n".join(kept)


def _slug(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """What ``#x`` can name in a page: each heading's slug (a repeated one gets ``-1``, ``-2``, as on
    GitHub) and each ``<a id="x">``."""
    found: set[str] = set()
    for line in _outside_code(text).splitlines():
        if line.startswith("#"):
            slug, n = _slug(line.lstrip("#")), 0
            while (slug if n == 0 else f"{slug}-{n}") in found:
                n += 1
            found.add(slug if n == 0 else f"{slug}-{n}")
    return found | set(HTML_ANCHOR.findall(text))


def links(doc: Path) -> list[tuple[str, str]]:
    """(file relative to the repository root, anchor) of every link into this repository, absolute
    repository URLs included; ``("", anchor)`` for the page's own anchors."""
    out = []
    for target in LINK.findall(_outside_code(doc.read_text(encoding="utf-8"))):
        if target.startswith("#"):
            out.append(("", target[1:]))
            continue
        if target.startswith(REPOSITORY):
            target = target[len(REPOSITORY):]
            base = ROOT
        elif re.match(r"^[a-z]+:", target):
            continue
        else:
            base = doc.parent
        file, _, anchor = target.partition("#")
        path = (base / file).resolve()
        out.append((path.relative_to(ROOT).as_posix() if ROOT in (path, *path.parents) else str(path), anchor))
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_relative_links_stay_inside_the_repository_and_exist(doc: Path) -> None:
    bad = []
    for target in _targets(doc.read_text(encoding="utf-8")):
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        inside = path.relative_to(ROOT).as_posix() if ROOT in (path, *path.parents) else None
        if inside is None or (not path.exists() and inside not in PAGES_IN_FLIGHT):
            bad.append(target)
    assert not bad, f"{doc.name}: links outside the repository or to missing files: {bad}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_to_this_repository_lead_to_a_file_and_an_anchor_that_exist(doc: Path) -> None:
    bad = []
    for file, anchor in links(doc):
        page = doc if not file else ROOT / file
        if not page.exists():
            if file not in PAGES_IN_FLIGHT:
                bad.append(f"{file} (no such file)")
            continue
        if anchor and page.suffix == ".md" and anchor not in anchors(page.read_text(encoding="utf-8")):
            bad.append(f"{file or doc.name}#{anchor}")
    assert not bad, f"{doc.relative_to(ROOT)}: links that lead nowhere: {bad}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_no_reference_to_the_background_folder(doc: Path) -> None:
    hits = [m.group() for m in OUTSIDE.finditer(doc.read_text(encoding="utf-8"))]
    assert not hits, f"{doc.name} names files outside the repository: {hits}"


def test_the_checker_sees_a_link_outside() -> None:
    assert _targets("see [x](../shared/background/a.txt) and [y](https://example.com)") == ["../shared/background/a.txt"]
    assert OUTSIDE.search("(`../shared/background/x.txt`)")


def test_anchors_are_slugged_as_github_does() -> None:
    text = "# A `b` (c)\n## A `b` (c)\n```sh\n# not a heading\n```\n<a id=\"kept\"></a>\n### Route 53's guards\n"
    assert anchors(text) == {"a-b-c", "a-b-c-1", "kept", "route-53s-guards"}


def test_a_broken_anchor_is_seen(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n[x](#title) [y](#nowhere)\n", encoding="utf-8")
    page = (tmp_path / "a.md").read_text(encoding="utf-8")
    assert [a for f, a in [("", "title"), ("", "nowhere")] if a not in anchors(page)] == ["nowhere"]


def test_the_readme_links_to_this_repository_only_by_absolute_url() -> None:
    """PyPI shows the README as the long description, where a relative link (and a heading anchor:
    PyPI's renderer gives headings no ids) leads nowhere."""
    text = _outside_code((ROOT / "README.md").read_text(encoding="utf-8"))
    html_anchors = set(HTML_ANCHOR.findall(text))
    relative = [t for t in LINK.findall(text) if not re.match(r"^(https?|mailto):", t)
                and not (t.startswith("#") and t[1:] in html_anchors)]
    assert not relative, f"README.md: relative links (broken on PyPI); use {REPOSITORY}...: {relative}"


def test_every_old_readme_section_keeps_its_anchor() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    have = anchors(readme)
    missing = [a for a in OLD_README_ANCHORS if a not in have]
    assert not missing, f"README.md lost the anchors of these old sections: {missing}"
    moved = {a: line for line in readme.splitlines() for a in HTML_ANCHOR.findall(line)}
    for anchor, line in moved.items():  # each old anchor's line links to the section, same slug, in its page
        assert f"#{anchor})" in line and REPOSITORY in line, line


def test_every_docs_page_is_in_the_index() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    listed = {f for f, _ in links(ROOT / "docs" / "README.md")}
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")} - {"docs/README.md"}
    assert pages <= listed, f"docs/README.md does not list: {sorted(pages - listed)}"
    assert listed >= PAGES_IN_FLIGHT, index[:200]


def test_the_readme_is_a_front_door() -> None:
    """At most about 300 lines (issue 32), opening with the two commands exactly as .ci/run and the
    Makefile know them, and linking the docs index (which lists every page: see below)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300, len(text.splitlines())
    first_block = text.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split()[:2] for line in first_block] == [["make", "synth"], ["make", "test"]], first_block
    linked = {f for f, _ in links(ROOT / "README.md")}
    assert {"docs/README.md", "RULES.md", "docs/cli.md"} <= linked, linked
