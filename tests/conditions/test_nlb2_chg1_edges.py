"""EO-NLB2 and EO-CHG1 at the edges mutation testing found unguarded (issue 38): a value passed over never hides
the next one in the same record, and a single record set whose policy
changes while it is replaced is one delete and one create (two changes), not an in-place update."""

from __future__ import annotations

import copy
from importlib import resources
from pathlib import Path

from transition_worlds import props, record_ids, transition_findings, world

from edge_origin.core.findings import Severity
from edge_origin.model import load_model
from edge_origin.rules import RULES_BY_ID, run_rules

FIRE = resources.files("edge_origin.data").joinpath("rule_examples/eo-nlb2-fire.yaml").read_text()


def _nlb2(tmp_path: Path, text: str) -> list[tuple[str, str]]:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return [(f.resource, f.message) for f in run_rules(load_model([path]), [RULES_BY_ID["EO-NLB2"]])]


def test_a_private_address_before_a_bare_ip_in_one_record_does_not_hide_it(tmp_path):
    text = FIRE.replace("- {SubnetId: !Ref SubnetA, AllocationId: !GetAtt EipA.AllocationId}",
                        "- {SubnetId: !Ref SubnetA, AllocationId: !GetAtt EipA.AllocationId, PrivateIPv4Address: 10.0.0.5}")
    text = text.replace('ResourceRecords: ["203.0.113.10"]', 'ResourceRecords: ["10.0.0.5", "203.0.113.10"]')
    found = _nlb2(tmp_path, text)
    assert [r for r, _ in found] == ["RecordB"] and "203.0.113.10" in found[0][1] and "10.0.0.5" not in found[0][1]


def _single(policy_weighted: bool, name: str = "origin.example.com") -> dict:
    body = world(nlbs=1)
    for key in record_ids(body)[1:]:
        del body["Resources"][key]
        del body["Resources"][key.replace("Record", "Check")]
    record = props(body, "RecordNlb1A")
    record["Name"] = name
    if policy_weighted:
        record.pop("MultiValueAnswer")
        record["Weight"] = 10
    return body


def test_a_single_record_set_replaced_while_its_policy_changes_fires_chg1():
    base = _single(True)
    in_place = _single(False)
    assert transition_findings(base, in_place, "EO-CHG1") == []  # one UPSERT
    replaced = copy.deepcopy(in_place)
    props(replaced, "RecordNlb1A")["HostedZoneName"] = "Example.COM."  # the same zone, a create-only property: replaced
    found = transition_findings(base, replaced, "EO-CHG1")
    assert [(f.resource, f.severity) for f in found] == [("RecordNlb1A", Severity.ERROR)]
    assert "routing policy weighted -> multivalue" in found[0].message
