"""Issue 49's property, generated: any nesting, split (one Region or two) or mapping of the corpus
apps' resources gets the flat app's findings (rule, severity, resource)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rewrites import literal_strings, map_literals, nest, split

from edge_origin.model import TemplateModel
from edge_origin.model.assembly import StackEnvironment
from edge_origin.model.loader import LoadedTemplate
from edge_origin.rules import run_rules

CORPUS = Path(__file__).resolve().parent / "corpus"
SCENARIOS = ("weighted", "keepalive", "fleet", "mapped")
HOME = StackEnvironment("111111111111", "eu-west-1")
EDGE = StackEnvironment("111111111111", "us-east-1")
FLAT: dict[str, dict[str, Any]] = {s: json.loads((CORPUS / f"{s}-flat" / "App.template.json").read_text()) for s in SCENARIOS}


def _shape(loaded: list[LoadedTemplate]) -> list[tuple[str, str, str]]:
    return sorted((f.rule, f.severity.value, f.resource) for f in run_rules(TemplateModel(loaded)))


BASELINE = {s: _shape([LoadedTemplate("App", "App.json", body, HOME)]) for s, body in FLAT.items()}


def test_the_baselines_are_the_issue_s_verdicts() -> None:
    assert {r for r, _, _ in BASELINE["weighted"]} == {"EO-DNS1"} and {r for r, _, _ in BASELINE["keepalive"]} == {"EO-CF2"}
    assert BASELINE["fleet"] == [] and {r for r, _, _ in BASELINE["mapped"]} == {"EO-DNS1"}


@st.composite
def rewrites(draw: st.DrawFn) -> tuple[str, list[LoadedTemplate], str]:
    scenario = draw(st.sampled_from(SCENARIOS))
    body = FLAT[scenario]
    paths = literal_strings(body)
    chosen = draw(st.lists(st.sampled_from(paths), unique=True, max_size=8)) if draw(st.booleans()) else []
    loaded = map_literals("App", body, chosen, HOME)
    body = loaded[0].body
    ids = sorted(body["Resources"])
    moved = draw(st.sets(st.sampled_from(ids), min_size=1, max_size=len(ids) - 1))
    kind = draw(st.sampled_from(["nest", "nest-twice", "split", "regions", "regions-reverse", "accounts"]))
    if kind.startswith("nest"):
        loaded = nest("App", body, moved, HOME)
        if kind == "nest-twice" and len(moved) > 1:
            deeper = draw(st.sets(st.sampled_from(sorted(moved)), min_size=1, max_size=len(moved) - 1))
            kid = loaded[1]
            inner = nest(kid.stack, kid.body, deeper, HOME)
            loaded = [loaded[0], LoadedTemplate(kid.stack, kid.template, inner[0].body, HOME, kid.parent), inner[1]]
    elif kind == "split":
        loaded = split("App", body, moved, HOME, HOME, regions=False)
    elif kind == "accounts":  # another account and Region: aws-cdk-lib reads the values with Fn::GetStackOutput
        other = StackEnvironment("222222222222", draw(st.sampled_from(["eu-west-1", "us-east-1"])))
        loaded = split("App", body, moved, HOME, other, regions=False, stack_output=True)
    else:
        other = EDGE if kind == "regions" else StackEnvironment("111111111111", "ap-south-1")
        loaded = split("App", body, moved, HOME, other, regions=True)
    return scenario, loaded, f"{kind} of {sorted(moved)} with {len(chosen)} mapped literals"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rewrites())
def test_a_rewritten_app_gets_the_flat_apps_findings(case: tuple[str, list[LoadedTemplate], str]) -> None:
    scenario, loaded, what = case
    assert _shape(loaded) == BASELINE[scenario], what


#: Literals a stack may well read from a mapping by Region: names, addresses, the listener idle timeout.
DECIDING = re.compile(r"(Name|DomainName|DNSName|HostedZoneId|ResourceRecords/\d+|ListenerAttributes/\d+/Value|IPAddress)$")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_an_unknown_region_is_not_judged_never_fine(scenario: str) -> None:
    """Every name, address and idle timeout read through a mapping by Region, in a stack whose Region is
    unknown: what the flat app gets flagged is not judged now (a warning saying so), never quiet."""
    body = FLAT[scenario]
    chosen = [p for p in literal_strings(body) if DECIDING.search("/".join(p))]
    assert chosen
    mapped = map_literals("App", body, chosen, HOME)[0].body
    shape = _shape([LoadedTemplate("App", "App.json", mapped)])
    assert all(s != "error" for _, s, _ in shape)
    findings = run_rules(TemplateModel([LoadedTemplate("App", "App.json", mapped)]))
    if BASELINE[scenario]:
        assert findings and all(f.message.startswith("not judged") for f in findings), [f.message for f in findings]
    assert _shape(map_literals("App", body, chosen, HOME)) == BASELINE[scenario]  # the Region known: judged as flat
