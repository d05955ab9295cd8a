"""A DNS name as Route 53 reads it: the one spelling every comparison of names uses.

Route 53 developer guide, "DNS domain name format" (https://docs.aws.amazon.com/Route53/latest/
DeveloperGuide/DomainNameFormat.html): names of hosted zones and records may hold printable ASCII;
other characters are given "by using escape codes in the format \\three-digit octal code"; and
"Amazon Route 53 stores alphabetic characters as lowercase letters (a-z), regardless of how you
specify them: as uppercase letters, lowercase letters, or the corresponding letters in escape
codes". A trailing dot names the root: ``o.example.com.`` is ``o.example.com``.

So ``\\157.example.com.``, ``O.Example.COM`` and ``o.example.com`` are one name. The canonical
spelling decodes every ``\\ddd`` octal escape (0..377) to its byte, writes a raw non-ASCII
character as the UTF-8 bytes Route 53 would need escaped, lowercases ASCII letters only (Route 53
does not fold other letters: the Kelvin sign is not ``k``), and writes back as ``\\ddd`` every byte
that is not printable ASCII, plus a dot or a backslash inside a label (``a\\056b`` is one label,
never two) and the space: invisible characters stay visible. A backslash not followed by three
octal digits of a byte is a literal backslash.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\([0-3][0-7]{2})")
_PLAIN = re.compile(r"[a-z0-9_*-]+(?:\.[a-z0-9_*-]+)*\.*")
_LITERAL = frozenset(range(0x21, 0x7F)) - {ord("."), ord("\\")}


def _label_bytes(text: str) -> list[bytearray]:
    """``text``'s labels as the bytes Route 53 stores (escapes decoded, raw characters UTF-8)."""
    labels = [bytearray()]
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char == "\\":
            match = _ESCAPE.match(text, pos)
            if match:
                labels[-1].append(int(match.group(1), 8))
                pos = match.end()
                continue
            labels[-1].append(ord("\\"))
        elif char == ".":
            labels.append(bytearray())
        else:
            labels[-1].extend(char.encode("utf-8", "surrogatepass"))
        pos += 1
    return labels


def _render(label: bytearray) -> str:
    out = []
    for byte in label:
        if 0x41 <= byte <= 0x5A:
            out.append(chr(byte + 0x20))
        elif byte in _LITERAL:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


def canonical_name(name: str, *, strip: bool = True) -> str:
    """``name`` in Route 53's one spelling: escapes decoded, ASCII lower case, no trailing dot,
    every byte that is not printable ASCII (and a dot or backslash inside a label) as ``\\ddd``.
    Surrounding white space is dropped (a template's ``" o.example.com"``) unless ``strip`` is
    False (a name about to be written, where a space is a character: ``\\040``)."""
    text = name.strip() if strip else name
    lowered = text.lower() if text.isascii() else ""
    if lowered and (_PLAIN.fullmatch(lowered) or _printable_without_escape(lowered)):  # nothing to decode
        return lowered.rstrip(".")
    labels = _label_bytes(text)
    while len(labels) > 1 and not labels[-1]:
        labels.pop()  # trailing dots: the root
    return ".".join(_render(label) for label in labels)


def _printable_without_escape(text: str) -> bool:
    """ASCII ``text`` whose every character is printable, not a space and not a backslash: each
    is its own byte and written as it is (``_render``), so its spelling is ``text`` lowercased,
    trailing dots dropped (a template's ``${Nlb.DNSName}`` composites)."""
    return text.isprintable() and " " not in text and "\\" not in text


def fqdn(name: str) -> str:
    """``canonical_name`` with the root's trailing dot, as Route 53's API returns names (white
    space kept, as a character: the live paths compare what they write)."""
    return canonical_name(name, strip=False) + "."


def same_name(a: str, b: str) -> bool:
    """Whether Route 53 reads ``a`` and ``b`` as one name."""
    return canonical_name(a) == canonical_name(b)
