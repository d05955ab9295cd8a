"""The review of a name with many record sets is linear in them (redteam): the Markdown report drew and
tabled each record by scanning every answer of its name, N x N (3,920 weighted records in 8 stacks: 13 s;
5,000: 19 s, where `check` of the same took 1.5 s). The answers of a name are now indexed once, by the
record their chain starts at: the answer model is asked about each name a bounded number of times,
however many records it has, and the report is the same."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.model import TemplateModel
from edge_origin.model.loader import LoadedTemplate
from edge_origin.review.report import render_report

ROOT = Path(__file__).resolve().parents[2]
WEIGHTED = json.loads((ROOT / "tests" / "assembly" / "corpus" / "weighted-flat" / "App.template.json").read_text())
RECORD = next(r for r in WEIGHTED["Resources"].values() if r["Type"] == "AWS::Route53::RecordSet")


def _stacks(records: int, stacks: int) -> list[LoadedTemplate]:
    """The weighted app, plus ``records`` more weighted records of its origin name (one address each,
    TTL 60) spread over ``stacks`` stacks."""
    out = [LoadedTemplate("App", "App.json", copy.deepcopy(WEIGHTED))]
    for s in range(stacks):
        body: dict[str, Any] = {"Resources": {}}
        for i in range(s, records, stacks):
            r = copy.deepcopy(RECORD)
            props = r["Properties"]
            props.pop("AliasTarget")
            props.update(SetIdentifier=f"x{i}", ResourceRecords=[f"10.0.{i // 250}.{i % 250 + 1}"], TTL="60",
                         HostedZoneId="Z0123456789ABC")
            body["Resources"][f"Extra{i}"] = r
        out.append(LoadedTemplate(f"More{s}", f"More{s}.json", body))
    return out


def _render_counting(loaded: list[LoadedTemplate]) -> tuple[str, int]:
    model = TemplateModel(loaded)
    zones = model.zones
    asked = 0
    real = zones.name_resolutions

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal asked
        asked += 1
        return real(*args, **kwargs)

    zones.name_resolutions = counting  # type: ignore[method-assign]
    return render_report(model), asked


@settings(max_examples=12, deadline=None, database=None)
@given(records=st.integers(1, 60), stacks=st.integers(1, 4))
def test_the_answer_model_is_asked_per_name_not_per_record(records: int, stacks: int) -> None:
    few_text, few = _render_counting(_stacks(0, 1))
    text, asked = _render_counting(_stacks(records, stacks))
    assert asked <= few + 2, (records, asked, few)  # bounded by the names, not by the records
    assert text.count("| api.example.com |") >= records + 2  # every record is still in the table


class _CountingList(list):
    walks = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        _CountingList.walks += 1
        return super().__iter__()


def _names_app(names: int) -> TemplateModel:
    """The weighted app with ``names`` more gRPC origin names (two weighted records each), one distribution each."""
    body = copy.deepcopy(WEIGHTED)
    (dist_id,) = [k for k, r in body["Resources"].items() if r["Type"] == "AWS::CloudFront::Distribution"]
    for n in range(names):
        for i, record in enumerate(r for r in WEIGHTED["Resources"].values() if r["Type"] == "AWS::Route53::RecordSet"):
            r = copy.deepcopy(record)
            r["Properties"]["Name"] = f"o{n}.example.com."
            body["Resources"][f"N{n}R{i}"] = r
        d = copy.deepcopy(WEIGHTED["Resources"][dist_id])
        d["Properties"]["DistributionConfig"]["Origins"][0]["DomainName"] = f"o{n}.example.com"
        body["Resources"][f"D{n}"] = d
    return TemplateModel([LoadedTemplate("App", "App.json", body)])


@settings(max_examples=8, deadline=None, database=None)
@given(names=st.integers(0, 25))
def test_the_distributions_are_walked_per_review_not_per_name(names: int) -> None:
    """Each origin name's diagram asked which distributions use it by scanning every origin of every
    distribution: names x origins (2 s of a 4 s review of 2,000 names). Now one index a model."""
    def walks(model: TemplateModel) -> tuple[int, str]:
        model.__dict__["distributions"] = _CountingList(model.distributions)
        _CountingList.walks = 0
        text = render_report(model)
        return _CountingList.walks, text

    few, _ = walks(_names_app(0))
    many, text = walks(_names_app(names))
    assert many <= few + 4, (names, few, many)  # bounded by the review's sections, not by the names
    assert text.count("CloudFront App/D") >= names  # every name still drawn with its distribution
