"""EO-NJ2 names a record set on an origin's path whose ResourceRecords the templates do not decide (an intrinsic read
as unknown): how many addresses its answers hold is not known, so it is "not judged", never read as empty. Found by
tests/model/test_hardening_model.py: a weighted gRPC record whose ResourceRecords became ``{"Fn::Base64": null}`` was
reported by no rule (its values read as none)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from edge_origin.model import model_from_text
from edge_origin.rules import RULES_BY_ID

FIRE = json.loads((Path(__file__).parents[1] / "fixtures" / "templates" / "rules" / "eo-dns1-fire.json").read_text())


def _findings(values: Any, record: str = "RecordB") -> list[Any]:
    body = copy.deepcopy(FIRE)
    body["Resources"][record]["Properties"]["ResourceRecords"] = values
    model = model_from_text(json.dumps(body))
    return [(f.rule, f.resource) for rule in ("EO-NJ2", "EO-DNS1") for f in RULES_BY_ID[rule].check(model)]


@pytest.mark.parametrize("values", [{"Fn::Base64": None}, {"Fn::GetAtt": ["EipB", "Ips"]}, {"Fn::ImportValue": "Addresses"},
                                    {"Fn::Split": [",", {"Fn::ImportValue": "Csv"}]}])
def test_a_record_whose_values_are_decided_at_deploy_is_not_judged_and_the_pile_up_still_reported(values: Any) -> None:
    found = _findings(values)
    assert ("EO-NJ2", "RecordB") in found  # named: not judged
    assert ("EO-DNS1", "RecordA") in found  # the other weighted set still holds one address of a name with more


@pytest.mark.parametrize("values", [[{"Ref": "EipB"}], ["192.0.2.7"], [{"Fn::GetAtt": ["EipB", "PublicIp"]}]])
def test_values_the_templates_decide_are_judged(values: Any) -> None:
    found = _findings(values)
    assert not [f for f in found if f[0] == "EO-NJ2"]
    assert ("EO-DNS1", "RecordB") in found
