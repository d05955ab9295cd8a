"""DNS plans: built in code and read from templates through the template model (fast)."""

from __future__ import annotations

import json

import pytest
from rehearsal_paths import NAME, REFERENCE

from edge_origin.model import model_from_text
from edge_origin.rehearsal.from_model import load_plan, plan_from_model
from edge_origin.rehearsal.plan import DnsPlan, HealthCheckSpec, PlanError, PlanRecord, reference_plan


def test_reference_plan_from_templates_has_six_health_checked_multivalue_records(reference_plan_from_templates) -> None:
    plan = reference_plan_from_templates
    assert plan.routing == "multivalue"
    assert plan.ttl == 60
    assert len(plan.records) == len(plan.origins) == 6
    assert {o.nlb for o in plan.origins} == {"Nlb1", "Nlb2"}
    assert all(r.health_check is not None and r.health_check.failure_threshold == 3 for r in plan.records)
    assert len(plan.health_checks()) == 6


def test_weighted_variant_keeps_weights(weighted_plan_from_templates) -> None:
    plan = weighted_plan_from_templates
    assert plan.routing == "weighted"
    assert [r.weight for r in plan.records] == [1] * 6


def test_ref_and_getatt_of_one_eip_are_one_origin() -> None:
    model = model_from_text(
        json.dumps(
            {
                "Resources": {
                    "Eip": {"Type": "AWS::EC2::EIP"},
                    "A": _record("a", [{"Ref": "Eip"}]),
                    "B": _record("b", [{"Fn::GetAtt": ["Eip", "PublicIp"]}]),
                }
            }
        )
    )
    plan = plan_from_model(model, NAME)
    assert plan.origin_keys == ["Stack/Eip"]


def test_literal_ips_are_origins() -> None:
    model = model_from_text(json.dumps({"Resources": {"A": _record("a", ["192.0.2.1", "192.0.2.2"])}}))
    assert plan_from_model(model, NAME).origin_keys == ["192.0.2.1", "192.0.2.2"]


def test_no_records_for_the_name_is_an_error() -> None:
    with pytest.raises(PlanError, match="no Route 53 A record sets for other.example.com"):
        load_plan([REFERENCE], "other.example.com")


def test_records_pointing_at_nothing_resolvable_are_an_error() -> None:
    model = model_from_text(
        json.dumps(
            {
                "Parameters": {"Ip": {"Type": "String"}},
                "Resources": {"Sub": {"Type": "AWS::EC2::Subnet"}, "A": _record("a", [{"Ref": "Ip"}, {"Ref": "Sub"}])},
            }
        )
    )
    with pytest.raises(PlanError, match="points at nothing resolvable"):
        plan_from_model(model, NAME)


def test_unrehearsed_routing_policies_are_an_error() -> None:
    record = _record("a", ["192.0.2.1"])
    record["Properties"].pop("MultiValueAnswer")
    record["Properties"]["Failover"] = "PRIMARY"
    with pytest.raises(PlanError, match="failover is not rehearsed"):
        plan_from_model(model_from_text(json.dumps({"Resources": {"A": record}})), NAME)


def test_plan_rejects_empty_and_mixed_records() -> None:
    with pytest.raises(PlanError, match="no Route 53 record sets"):
        DnsPlan(name=NAME, records=())
    with pytest.raises(PlanError, match="mix routing policies"):
        DnsPlan(
            name=NAME,
            records=(PlanRecord("a", "weighted", ("x",), weight=1), PlanRecord("b", "multivalue", ("y",))),
        )


def test_reference_plan_in_code_matches_its_shape() -> None:
    plan = reference_plan(nlbs=2, zones=3, routing="weighted")
    assert len(plan.origins) == 6 and plan.routing == "weighted"
    assert plan.nlb_of("Nlb2Eip3") == "Nlb2"
    assert HealthCheckSpec("k", request_interval=10, failure_threshold=3).window_seconds == 30.0


def _record(set_id: str, values: list) -> dict:
    return {
        "Type": "AWS::Route53::RecordSet",
        "Properties": {
            "Name": f"{NAME}.",
            "Type": "A",
            "TTL": 60,
            "SetIdentifier": set_id,
            "MultiValueAnswer": True,
            "ResourceRecords": values,
        },
    }


def test_alias_targets_are_origins() -> None:
    template = {
        "Resources": {
            "Lb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {"Type": "network"}},
            "A": {
                "Type": "AWS::Route53::RecordSet",
                "Properties": {
                    "Name": NAME, "Type": "A", "SetIdentifier": "a", "Weight": 1,
                    "AliasTarget": {"DNSName": {"Fn::GetAtt": ["Lb", "DNSName"]}, "HostedZoneId": "Z1"},
                },
            },
            "B": {
                "Type": "AWS::Route53::RecordSet",
                "Properties": {
                    "Name": NAME, "Type": "A", "SetIdentifier": "b", "Weight": 1,
                    "AliasTarget": {"DNSName": "Other-NLB.elb.amazonaws.com.", "HostedZoneId": "Z1"},
                },
            },
        }
    }
    plan = plan_from_model(model_from_text(json.dumps(template)), NAME)
    assert plan.routing == "weighted"
    assert plan.origin_keys == ["Stack/Lb", "other-nlb.elb.amazonaws.com"]
    assert plan.ttl == 60  # alias records take the target's TTL
