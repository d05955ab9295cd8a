"""Names as Route 53 reads them (issue 50): ``\\ddd`` octal escapes, case and the trailing dot are
one spelling (core/dns_names.canonical_name), in templates and in what live reads return; two
weighted records named ``\\157.example.com.`` for the gRPC origin ``o.example.com`` are EO-DNS1.

Route 53 developer guide, "DNS domain name format": characters may be given "by using escape codes
in the format \\three-digit octal code", and Route 53 "stores alphabetic characters as lowercase
letters (a-z), regardless of how you specify them: as uppercase letters, lowercase letters, or the
corresponding letters in escape codes".
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from worlds import findings, res, world

from edge_origin.answers.types import normalize
from edge_origin.core.dns_names import canonical_name, fqdn, same_name
from edge_origin.live.paging import _norm as paging_norm
from edge_origin.model import normalize_name
from edge_origin.testing.route53 import normalize_name as double_fqdn
from tests.hardening_support import examples


def _spell(char: str) -> st.SearchStrategy[str]:
    """Every way Route 53 reads as ``char``: itself, upper case, or an octal escape of either."""
    forms = {char, char.upper(), f"\\{ord(char):03o}", f"\\{ord(char.upper()):03o}"}
    if char == ".":
        forms = {"."}  # an escaped dot (\056) is a dot inside a label: another name
    return st.sampled_from(sorted(forms))


def spellings(name: str) -> st.SearchStrategy[str]:
    """Spellings of ``name``: each character in any form, with or without the trailing dot."""
    return st.tuples(*[_spell(c) for c in name], st.sampled_from(["", "."])).map("".join)


@settings(max_examples=examples(50), deadline=None)
@given(spellings("o.example.com"))
def test_every_spelling_is_one_name_in_every_reader(spelling: str) -> None:
    assert canonical_name(spelling) == "o.example.com"
    assert normalize_name(spelling) == normalize(spelling) == paging_norm(spelling) == "o.example.com"
    assert fqdn(spelling) == double_fqdn(spelling) == "o.example.com."
    assert same_name(spelling, "O.EXAMPLE.COM.")


@settings(max_examples=examples(20), deadline=None)
@given(spellings("o.example.com"), spellings("o.example.com"))
def test_weighted_records_of_the_origin_in_any_spelling_are_eo_dns1(first: str, second: str) -> None:
    body = world()
    for logical_id, name in (("RecordA", first), ("RecordB", second)):
        props = res(body, logical_id)
        del props["MultiValueAnswer"]
        props.update(Weight=1, Name=name)
    found = findings(body, "EO-DNS1")
    assert [(f.resource, "weighted record" in f.message and "gRPC origin o.example.com" in f.message) for f in found] == [
        ("RecordA", True), ("RecordB", True)]


def test_the_issue_spelling_fires_and_another_name_stays_apart() -> None:
    body = world()
    for logical_id in ("RecordA", "RecordB"):
        props = res(body, logical_id)
        del props["MultiValueAnswer"]
        props.update(Weight=1, Name="\\157.example.com.")
    assert [f.resource for f in findings(body, "EO-DNS1")] == ["RecordA", "RecordB"]
    for logical_id in ("RecordA", "RecordB"):
        res(body, logical_id)["Name"] = "\\160.example.com."  # p.example.com: not the origin's name
    assert all("weighted record" not in f.message for f in findings(body, "EO-DNS1"))


def test_escapes_that_are_not_letters_stay_visible_and_apart() -> None:
    assert canonical_name("a\\056b.example.com") == "a\\056b.example.com"  # one label "a.b", never two
    assert canonical_name("a\\056b.example.com") != canonical_name("a.b.example.com")
    assert canonical_name("\\052.example.com") == canonical_name("*.Example.com.") == "*.example.com"
    assert canonical_name("\u200bo.example.com") == "\\342\\200\\213o.example.com"  # zero-width space shown
    assert canonical_name("\u212a.example.com") != "k.example.com"  # the Kelvin sign is not folded
    assert canonical_name("\\303\\251.x") == canonical_name("\u00e9.x")  # UTF-8 bytes, escaped or raw
    assert canonical_name("a\\9.x") == "a\\1349.x"  # not an octal escape: a literal backslash
    assert canonical_name("x.") == "x" and canonical_name(".") == "" and normalize_name(".") is None


def _label_by_label(name: str) -> str:
    """``canonical_name`` without its fast paths: every name through the byte-by-byte decoder."""
    from edge_origin.core.dns_names import _label_bytes, _render

    labels = _label_bytes(name.strip())
    while len(labels) > 1 and not labels[-1]:
        labels.pop()
    return ".".join(_render(label) for label in labels)


@settings(max_examples=examples(50), deadline=None)
@given(st.lists(st.sampled_from([*"aZ09-_.*${}:/ ", "\\", "\\157", "\x00", "\x7f", "é"]), max_size=16).map("".join))
def test_the_fast_paths_spell_names_as_the_decoder_does(name: str) -> None:
    """The printable-ASCII shortcut (a template's ``${Nlb.DNSName}`` composites, issue 53) and the plain
    one give the decoder's spelling, escapes, spaces and raw bytes included."""
    assert canonical_name(name) == _label_by_label(name)
    assert canonical_name("${Nlb.DNSName}.") == "${nlb.dnsname}"
    assert canonical_name("A B.") == "a\\040b"
