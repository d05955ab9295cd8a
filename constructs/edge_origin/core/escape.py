"""Escaping at the point of writing: one function per output format, for every string a template
controls (logical ids, record names, SetIdentifier, origin ids and domains, tags, descriptions,
parameter defaults, file names) and every message that quotes one.

The review commands run on templates someone else wrote (a pull request's author). Whatever a
name holds, the output keeps the structure the tool gives it: no heading, table row, link,
image, HTML, fence, workflow command or terminal sequence comes from template text. Escape where
the text is written, in the format being written, never where it is read (the model and the
findings keep the raw text; JSON carries it as data).

==================  =========================================================================
``plain``           one line of terminal / log text: control characters visible (``\\x1b``,
                    ``\\n``, ``\\u2028``), GitHub's legacy ``##[command]`` defused, shortened
``md_text``         inline Markdown (paragraphs, headings, table cells): every character
                    CommonMark or GitHub gives a meaning escaped (emphasis, links, images,
                    HTML, entities, autolinks, ``|``); line breaks visible, never raw
``md_table_cell``   the same (``md_text`` already escapes ``|``): named for the reader
``md_code``         a code span of any content (backtick runs, ``|`` in tables, line breaks)
``mermaid_label``   text inside a quoted Mermaid label (``"``, brackets, ``%%``, ``#``, backticks)
``gha_data``        a GitHub Actions workflow command's data (``%`` ``\\r`` ``\\n`` -> ``%25``...)
``gha_property``    a workflow command's property value (also ``:`` and ``,``)
``sarif_text``      a SARIF ``message.text``: one line, controls visible
``shorten``         a name over a limit cut with a marker saying how much was left out
``fit_markdown``    a whole Markdown document cut at a line under a byte limit (GitHub's step
                    summary takes 1 MiB), an open fence closed, a note saying so
==================  =========================================================================

Each takes ``str`` (anything else is ``str()``-ed) and returns ``str``; none raises.
"""

from __future__ import annotations

import re
import unicodedata

from edge_origin.core.lazy_re import lazy

#: Characters of one template-controlled name shown before ``shorten`` cuts it (Route 53 names
#: and CloudFormation logical ids stop at 255).
MAX_NAME = 256
#: Characters of one message (which may quote names) shown.
MAX_TEXT = 2000
#: Bytes of Markdown the review report stays under: GitHub's step summary takes 1 MiB
#: ("GITHUB_STEP_SUMMARY ... maximum size of 1MiB"), leave room for the job's other lines.
MAX_SUMMARY_BYTES = 1_000_000

# Shown as escapes, never written raw (issue 50: two names that read the same are told apart):
# - C0, DEL, C1 (NEL is U+0085), the Unicode line and paragraph separators, lone surrogates (a JSON
#   "\\ud800" escape: not encodable, a crash when printed);
# - every format character (Unicode category Cf, as of Unicode 15.1): soft hyphen U+00AD, the
#   zero-width space/non-joiner/joiner U+200B-D, the bidirectional controls of "Trojan Source"
#   (CVE-2021-42574: U+200E/F, U+202A-E, U+2066-9, U+061C), word joiner and invisible operators
#   U+2060-4, Mongolian vowel separator U+180E, BOM U+FEFF, the tag block U+E0000-E007F ...;
# - characters that draw nothing though not Cf: combining grapheme joiner U+034F, Hangul fillers
#   (U+115F, U+1160, U+3164, U+FFA0), Khmer inherent vowels U+17B4/5, braille blank U+2800,
#   variation selectors (U+FE00-F, U+E0100-E01EF), and every space other than U+0020 (no-break,
#   en/em, narrow, ideographic: Zs).
# tests/core/test_escape_invisible.py holds the class against the installed unicodedata (every Cf, Zs).
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_INVISIBLE = lazy(
    "[\x00-\x1f\x7f-\xa0\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u1680"
    "\u17b4\u17b5\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u2800\u3000\u3164"
    "\ud800-\udfff\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)


def _visible_one(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: object) -> str:
    """``text`` with every control, format or invisible character and line or paragraph separator
    written as an escape (``\\x1b``, ``\\r``, ``\\n``, ``\\u2028``, ``\\u200b``, ``\\U000e0041``):
    one line, nothing a terminal acts on, nothing that reads the same as something else."""
    s = text if isinstance(text, str) else str(text)
    if type(s) is str and s.isascii() and s.isprintable():  # " " to "~" only: none of the class (compiled on first use)
        return s
    return _INVISIBLE.sub(_visible_one, s)


def reason_text(value: object) -> str:
    """A suppression's reason as given, stripped; "" when it is not a string or shows nothing: no
    letter, digit, punctuation or symbol outside the invisible class above (a reason of spaces,
    zero-width or format characters, a BOM, Hangul fillers... is no reason: EO-ACK1)."""
    if not isinstance(value, str):
        return ""
    text = value.strip()
    shown = _INVISIBLE.sub("", text)
    return text if any(unicodedata.category(ch)[0] in "LNPS" for ch in shown) else ""


def shorten(text: object, limit: int = MAX_NAME) -> str:
    """``text`` cut to about ``limit`` characters with a marker: ``abc…[+1234 chars]``."""
    s = text if isinstance(text, str) else str(text)
    if len(s) <= limit:
        return s
    return f"{s[:limit]}…[+{len(s) - limit} chars]"


def plain(text: object, limit: int = MAX_TEXT) -> str:
    """One line of plain text (terminal, CI log, pre-commit output): shortened, controls visible,
    GitHub's legacy ``##[command]`` form (recognised anywhere in a log line) defused. Callers put
    it after a fixed prefix, so untrusted text never starts a line (``::command::`` forms)."""
    return visible(shorten(text, limit)).replace("##[", "##\\x5b")


# Markdown: CommonMark lets any ASCII punctuation be backslash-escaped; these are the ones that
# open something inline (emphasis, strikethrough, code, links, images, HTML, entities) or in a
# GFM table (``|``), or close a heading (``#``). Line-start constructs (lists, headings, fences,
# HTML blocks) cannot arise: line breaks are made visible, and callers never start a line with it.
# ``_`` between two letters or digits opens nothing (CommonMark's flanking rules): left as is,
# so ``domain_name`` stays readable in the raw Markdown.
_MD_SPECIAL = lazy(r"([\\`*~\[\]<>&|#!])|_(?![^\W_])|(?<![^\W_])_")
# GFM autolinks with no punctuation to escape: ``www.``, ``scheme:`` + ``//``, e-mail addresses
# (and GitHub's @mentions): a word joiner (U+2060, invisible) breaks them.
_MD_SCHEME = lazy(r"(?i)(?<=[a-z0-9]):(?=//)|(?<=www)\.")


def md_text(text: object, limit: int = MAX_TEXT) -> str:
    """Inline Markdown text that renders as exactly ``text`` (shortened, controls visible) and
    makes nothing: no emphasis, link, image, HTML, entity, autolink, code span or table cell."""
    s = visible(shorten(text, limit))
    s = _MD_SPECIAL.sub(lambda m: "\\" + m.group(), s)
    return _MD_SCHEME.sub(r"\\\g<0>", s).replace("@", "\u2060@")


#: The same escaping: ``md_text`` escapes ``|`` wherever it writes.
md_table_cell = md_text


def md_code(text: object, limit: int = MAX_NAME) -> str:
    """A Markdown code span holding ``text`` (shortened, controls visible): fenced with one more
    backtick than its longest run, padded when it starts or ends with a backtick or space, ``|``
    escaped for GFM tables (the table parser splits cells before code spans are read)."""
    s = visible(shorten(text, limit)).replace("|", "\\|")
    if not s:
        return "` `"
    run = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (run + 1)
    if s[0] in "` " or s[-1] in "` ":
        s = f" {s} "
    return f"{fence}{s}{fence}"


_MERMAID = {
    '"': "#quot;", "<": "#lt;", ">": "#gt;", "#": "#35;", "%": "#37;", "`": "#96;", "&": "#38;",
    "[": "#91;", "]": "#93;", "{": "#123;", "}": "#125;",
}
_MERMAID_SPECIAL = lazy("[" + re.escape("".join(_MERMAID)) + "]")


def mermaid_label(text: object, limit: int = MAX_NAME) -> str:
    """Text for inside a quoted Mermaid label (``n0["..."]``): quotes, square and curly brackets,
    ``%%`` directives, ``#`` entities, ``&`` and backtick Markdown strings written as Mermaid
    entity codes (``#quot;``, ``#35;``); line breaks visible, so no ``click`` or other statement
    can start (parentheses stay: inside quotes they are text)."""
    return _MERMAID_SPECIAL.sub(lambda m: _MERMAID[m.group()], visible(shorten(text, limit)))


def gha_data(text: object, limit: int = MAX_TEXT) -> str:
    """A workflow command's data (after ``::``), as GitHub's toolkit escapes it: ``%`` ``\\r``
    ``\\n`` as ``%25`` ``%0D`` ``%0A``; other controls visible, ``##[`` defused as in ``plain``."""
    s = shorten(text, limit).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return visible(s).replace("##[", "##\\x5b")


def gha_property(text: object, limit: int = MAX_NAME) -> str:
    """A workflow command's property value (``file=``, ``title=``): ``gha_data`` plus ``:`` and
    ``,`` as ``%3A`` ``%2C``."""
    return gha_data(text, limit).replace(":", "%3A").replace(",", "%2C")


def stop_commands_token() -> str:
    """A fresh token for ``::stop-commands::TOKEN`` ... ``::TOKEN::`` around untrusted log text."""
    import secrets  # imported when a report is written, not by every check

    return secrets.token_hex(16)


_SARIF_SPECIAL = lazy(r"[\\\[\]{}]")
_SARIF_ESCAPES = {"\\": "\\\\", "[": "\\[", "]": "\\]", "{": "{{", "}": "}}"}


def sarif_text(text: object, limit: int = MAX_TEXT) -> str:
    """A SARIF ``message.text`` (plain text, SARIF 2.1.0 §3.11.3): one line, controls visible, and
    nothing a viewer reads as an embedded link or a placeholder: literal ``[`` ``]`` (and the
    backslash that escapes them) backslash-escaped (§3.11.6), ``{`` ``}`` doubled (§3.11.5)."""
    return _SARIF_SPECIAL.sub(lambda m: _SARIF_ESCAPES[m.group()], visible(shorten(text, limit)))


def sarif_plain(text: object, limit: int = MAX_TEXT) -> str:
    """A SARIF string shown as is (not a message: a logical location's name, a justification):
    one line, controls and invisible characters visible."""
    return visible(shorten(text, limit))


_FENCE = lazy(r"^ {0,3}(`{3,}|~{3,})")


def fit_markdown(text: str, limit: int = MAX_SUMMARY_BYTES, what: str = "report") -> str:
    """``text`` when it fits in ``limit`` UTF-8 bytes; else cut at a line boundary, a fenced block
    left open closed, and a note that the rest is not shown."""
    if len(text.encode("utf-8")) <= limit:
        return text
    note = f"\n_The {what} was cut here: it would pass {limit} bytes (GitHub's step summary takes 1 MiB)._\n"
    budget = limit - len(note.encode()) - 16
    kept = text.encode("utf-8")[: max(budget, 0)].decode("utf-8", errors="ignore")
    kept = kept[: kept.rfind("\n") + 1] if "\n" in kept else ""
    fence = None
    for line in kept.splitlines():
        m = _FENCE.match(line)
        if m and (fence is None or (m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence))):
            fence = None if fence is not None else m.group(1)
    return kept + (f"{fence}\n" if fence else "") + note


def budget_lines(lines: list[str], budget: int) -> tuple[list[str], int]:
    """The leading ``lines`` whose UTF-8 size (with newlines) stays within ``budget`` bytes, and
    how many were left out."""
    used = 0
    for i, line in enumerate(lines):
        used += len(line.encode("utf-8")) + 1
        if used > budget:
            return lines[:i], len(lines) - i
    return lines, 0


__all__ = [
    "MAX_NAME",
    "MAX_SUMMARY_BYTES",
    "MAX_TEXT",
    "budget_lines",
    "fit_markdown",
    "gha_data",
    "gha_property",
    "md_code",
    "md_table_cell",
    "md_text",
    "mermaid_label",
    "plain",
    "reason_text",
    "sarif_plain",
    "sarif_text",
    "shorten",
    "stop_commands_token",
    "visible",
]
