"""Findings as SARIF 2.1.0 for GitHub code scanning (``--format sarif``), placed where the user works.

- The driver names itself: ``name``, ``version`` and ``semanticVersion`` (the package version),
  ``informationUri`` (the project's URL, ``[project.urls]`` in pyproject.toml); every rule has a
  ``helpUri`` to its section of the catalogue (RULES.md on the repository), ``fullDescription`` and
  ``help`` as text and Markdown.
- Every result names its construct in ``logicalLocations``: ``fullyQualifiedName`` is the construct
  path (``aws:cdk:path``; ``Stack/LogicalId`` for plain CloudFormation), ``name`` the construct id.
- The physical location is the source line that created the construct where it can be found
  (``edge_origin.review.placement``), with the template line as a related location; else the
  template, and the message names the construct path. URIs are relative to the repository root
  (``uriBaseId`` ``%SRCROOT%``, declared in ``originalUriBaseIds``).
- An acknowledged finding stays a result, with ``suppressions`` (kind, status, justification).
- GitHub's documented upload limits hold: at most 25,000 results a run (more: the most severe are
  kept and the run's properties say how many were left out), at most 1,000 locations a result,
  one run a file; tests/review/test_sarif_placement.py validates against the SARIF 2.1.0 schema.

Layer 4. May import: core, model, rules, review.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from edge_origin._version import __version__
from edge_origin.core.escape import sarif_plain, sarif_text
from edge_origin.core.findings import Finding, Severity

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

#: The project's home (pyproject.toml [project.urls] Repository; a test holds them equal).
PROJECT_URL = "https://github.com/edge-origin/edge-origin"
#: Where each rule's section lives: RULES.md, generated from the registry, one ``### EO-XXX`` section a rule.
RULES_DOC = f"{PROJECT_URL}/blob/main/RULES.md"
#: The key of ``partialFingerprints`` (``review.checker.finding_fingerprints`` computes the value).
FINGERPRINT_KEY = "edgeOriginFinding/v1"
#: GitHub code scanning's hard limit of results per run (docs: "SARIF results exceed hard limit").
MAX_RESULTS = 25_000
SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note", Severity.NOT_CHECKED: "none"}
_RANK = {"error": 0, "warning": 1, "note": 2, "none": 3}


def help_uri(rule_id: str) -> str:
    """The rule's section on the repository (GitHub's heading anchor: the id lower-cased);
    ``EO-ACK1`` (no catalogue rule: a suppression without a reason) links how to acknowledge."""
    from edge_origin.review.suppressions import ACK_RULE
    from edge_origin.review.unreadable import READ_RULE

    anchor = {ACK_RULE: "acknowledging-a-finding", READ_RULE: "files-not-read"}.get(rule_id, rule_id.lower())
    return f"{RULES_DOC}#{anchor}"


def _descriptor(rule_id: str, title: str, catches: str, fix: str, acknowledge: str, level: str) -> dict[str, Any]:
    return {
        "id": rule_id,
        "name": title.replace(" ", ""),
        "shortDescription": {"text": title},
        "fullDescription": {"text": catches, "markdown": catches},
        "help": {
            "text": f"{fix} Acknowledge: {acknowledge} See {help_uri(rule_id)}",
            "markdown": f"**Fix:** {fix}\n\n**Acknowledge:** {acknowledge}\n\n[{rule_id} in RULES.md]({help_uri(rule_id)})",
        },
        "helpUri": help_uri(rule_id),
        "defaultConfiguration": {"level": level},
    }


def driver_rules() -> list[dict[str, Any]]:
    """The catalogue, then ``EO-ACK1`` (a suppression without a reason) and ``EO-READ1`` (a file not read)."""
    from edge_origin.review.suppressions import ACK_CATCHES, ACK_FIX, ACK_RULE, ACK_TITLE
    from edge_origin.review.unreadable import READ_CATCHES, READ_FIX, READ_RULE, READ_TITLE
    from edge_origin.rules import CATALOGUE

    rules = [_descriptor(r.id, r.title, r.catches, r.fix, r.acknowledge, SARIF_LEVEL[r.severity]) for r in CATALOGUE]
    rules.append(_descriptor(ACK_RULE, ACK_TITLE, ACK_CATCHES, ACK_FIX, "a suppression cannot be acknowledged: give its reason", "error"))
    rules.append(_descriptor(READ_RULE, READ_TITLE, READ_CATCHES, READ_FIX, "a file that was not read cannot be acknowledged", "error"))
    return rules


def construct_of(f: Finding) -> str:
    """The finding's construct path, or ``Stack/LogicalId`` when the template carries none."""
    return f.path or (f"{f.stack}/{f.resource}" if f.resource else f.stack)


def _result(f: Finding, fingerprint: str, index: Mapping[str, int], placer: Any, line_of: Callable[[str, str], int]) -> dict[str, Any]:
    construct = construct_of(f)
    template = placer.uri(f.template) if f.template else None
    template_loc: dict[str, Any] | None = None
    if template is not None:
        artifact: dict[str, Any] = {"uri": template.uri}
        if template.base:
            artifact["uriBaseId"] = template.base
        template_loc = {"artifactLocation": artifact, "region": {"startLine": line_of(f.template, f.resource)}}
    source = placer.source(f.template, f.path) if f.template and f.path else None
    message = f"{f.message}. Fix: {f.fix}"
    location: dict[str, Any] = {
        "logicalLocations": [{
            "name": sarif_plain(construct.rsplit("/", 2)[-2] if construct.endswith(("/Resource", "/Default")) else construct.rsplit("/", 1)[-1]),
            "fullyQualifiedName": sarif_plain(construct),
            "kind": "resource",
            "properties": {"stack": f.stack, "logicalId": f.resource},
        }],
    }
    result: dict[str, Any] = {"ruleId": f.rule, "level": SARIF_LEVEL[f.severity]}
    if source is not None:
        artifact = {"uri": source.uri, **({"uriBaseId": source.base} if source.base else {})}
        location["physicalLocation"] = {"artifactLocation": artifact, "region": {"startLine": source.line}}
        if template_loc is not None:
            result["relatedLocations"] = [{"id": 1, "physicalLocation": template_loc,
                                           "message": {"text": sarif_text(f"synthesized as {f.stack}/{f.resource}")}}]
    elif template_loc is not None:
        location["physicalLocation"] = template_loc
        message = f"{construct}: {message}" if construct else message
    result["message"] = {"text": sarif_text(message)}
    result["locations"] = [location]
    if f.rule in index:
        result["ruleIndex"] = index[f.rule]
    if f.severity is Severity.NOT_CHECKED:
        result["kind"] = "open"  # SARIF: the tool could not tell whether the rule holds
    result["partialFingerprints"] = {FINGERPRINT_KEY: fingerprint}
    if f.suppression is not None:
        # SARIF 2.1.0 §3.35: the result stays, marked suppressed with the reason
        result["suppressions"] = [{
            "kind": f.suppression.kind,
            "status": "accepted",
            "justification": sarif_plain(f.suppression.reason),
            "properties": {"source": f.suppression.source, "where": f.suppression.where},
        }]
    return result


def format_sarif(
    findings: Sequence[Finding],
    *,
    fingerprints: Sequence[str],
    line_of: Callable[[str, str], int],
    baseline_state: Mapping[int, str] | None = None,
    acknowledged: Sequence[Finding] = (),
    summary: Any = None,
    notices: Sequence[str] = (),
    root: str | None = None,
    fixed: Sequence[Any] = (),
) -> str:
    """SARIF 2.1.0, one run (see the module doc). ``baseline_state`` maps an index of
    ``findings + acknowledged`` to ``new`` / ``unchanged`` / ``absent``; ``root``: the repository
    root URIs are relative to (default: found from the templates, see ``placement``).
    ``fingerprints`` (one a finding, same order) and ``line_of(template, logical id)`` come from
    ``review.checker``, whose ``format_sarif`` is the entry point."""
    from edge_origin.review.placement import SRCROOT, Placer

    rules = driver_rules()
    index = {r["id"]: i for i, r in enumerate(rules)}
    placer = Placer(root)
    everything = [*findings, *acknowledged]
    results = []
    for number, f in enumerate(everything):
        result = _result(f, fingerprints[number], index, placer, line_of)
        if baseline_state is not None and number in baseline_state:
            result["baselineState"] = baseline_state[number]
        results.append(result)
    properties: dict[str, Any] = {}
    if len(results) > MAX_RESULTS:
        results.sort(key=lambda r: _RANK.get(r["level"], 3))
        properties["resultsLeftOut"] = len(results) - MAX_RESULTS
        results = results[:MAX_RESULTS]
    driver = {
        "name": "edge-origin",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": PROJECT_URL,
        "rules": rules,
    }
    first = next((f.template for f in everything if f.template), "")
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SRCROOT: {"uri": placer.root(first).as_uri().rstrip("/") + "/"}},
        "results": results,
    }
    if summary is not None:
        properties["summary"] = summary.to_dict()
    if notices:
        properties["notices"] = [sarif_plain(n) for n in notices]
    if fixed:  # baseline entries no finding matched: fixed since the baseline
        properties["fixed"] = [{"ruleId": e.rule, "fullyQualifiedName": e.path or f"{e.stack}/{e.resource}"} for e in fixed]
    if properties:
        run["properties"] = properties
    doc = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2) + "\n"


__all__ = ["FINGERPRINT_KEY", "MAX_RESULTS", "PROJECT_URL", "RULES_DOC", "construct_of", "driver_rules", "format_sarif", "help_uri"]
