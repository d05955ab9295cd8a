"""Which rules a run reports: ``--select`` / ``--ignore`` (and the config file's ``select`` / ``ignore``)
by rule id or id prefix, as cfn-lint's ``--ignore-checks`` and ruff's ``--select`` take them.

A selector is a rule id (``EO-NLB3``) or a prefix of one (``EO-DNS``, ``EO-CHG``, ``EO-``),
case-insensitive. ``select`` keeps the rules some selector matches (all when empty); ``ignore``
then drops those it matches. A selector that matches no rule of the catalogue is bad input
(ValueError naming the nearest id), so a typo never silently turns a rule off.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from edge_origin.core.fast_dataclass import dataclass
from edge_origin.core.findings import Finding


def _catalogue_ids() -> tuple[str, ...]:
    from edge_origin.rules import CATALOGUE

    return tuple(r.id for r in CATALOGUE)


def parse_selectors(values: Iterable[str], *, what: str = "--ignore", known: Sequence[str] | None = None) -> tuple[str, ...]:
    """``["EO-NLB3,eo-dns", "EO-KA1"]`` -> ``("EO-NLB3", "EO-DNS", "EO-KA1")``: comma or space
    separated, upper-cased; ValueError for a selector that matches no known rule id."""
    ids = tuple(known) if known is not None else _catalogue_ids()
    out: list[str] = []
    for value in values:
        for part in str(value).replace(",", " ").split():
            selector = part.strip().upper()
            if not any(rule_id.startswith(selector) for rule_id in ids):
                import difflib  # only for a selector that matches no rule

                near = difflib.get_close_matches(selector, ids, n=1, cutoff=0.6)
                hint = f"; did you mean {near[0]}?" if near else ""
                raise ValueError(
                    f"{what} {part!r}: no rule id starts with it{hint} (rule ids: {', '.join(ids)}; `edge-origin rules` lists them)"
                )
            if selector not in out:
                out.append(selector)
    return tuple(out)


@dataclass(frozen=True)
class RuleSelection:
    """``select`` (empty: every rule) minus ``ignore``; both hold upper-case ids or prefixes."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def allows(self, rule_id: str) -> bool:
        rule_id = rule_id.upper()
        if self.select and not any(rule_id.startswith(s) for s in self.select):
            return False
        return not any(rule_id.startswith(s) for s in self.ignore)

    def filter(self, findings: Iterable[Finding]) -> list[Finding]:
        return [f for f in findings if self.allows(f.rule)]

    def __bool__(self) -> bool:
        return bool(self.select or self.ignore)

    def reason(self, rule_id: str) -> str:
        """Why ``rule_id`` is left out ("" when it is not): for JUnit's ``<skipped>``."""
        if self.allows(rule_id):
            return ""
        return "not selected (--select)" if self.select and not any(rule_id.upper().startswith(s) for s in self.select) else "ignored (--ignore)"


ALL_RULES = RuleSelection()

__all__ = ["ALL_RULES", "RuleSelection", "parse_selectors"]
