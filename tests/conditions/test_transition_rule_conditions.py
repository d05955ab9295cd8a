"""Each condition of EO-CHG1, EO-CHG2, EO-CHG3 and EO-CHG5: one change of a quiet before/after pair makes exactly
one finding of the rule, on the named resource, with the key phrase; boundaries are tested on both sides."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from transition_worlds import (
    NAME,
    copy_records,
    drop_record,
    make_pairs,
    one_change,
    props,
    quiet_change,
    record_ids,
    resources,
    set_policy,
    world,
)

from edge_origin.core.findings import Severity

MV_NAME = "origin-mv.example.com"


# --- EO-CHG1: routing policy across separate record sets -----------------------------------------------
def _policies(*policies: str) -> dict[str, Any]:
    """One NLB's two records (RecordNlb1A, RecordNlb1B) with these policies, in that order."""
    body = world(nlbs=1)
    for key, policy in zip(record_ids(body), policies, strict=True):
        set_policy(props(body, key), policy)
    return body


def _single_record(policy: str) -> dict[str, Any]:
    body = _policies(policy, "multivalue")
    drop_record(body, "RecordNlb1B")
    return body


def test_chg1_one_record_set_becoming_two_with_a_new_policy_fires() -> None:
    """The base record set keeps its logical id, but head adds a second: two resources, not one change."""
    one_change(_single_record("weighted"), _policies("multivalue", "multivalue"), "EO-CHG1", "RecordNlb1A",
               Severity.ERROR, "routing policy weighted -> multivalue", "head: Edge/RecordNlb1A, Edge/RecordNlb1B")


def test_chg1_the_only_record_set_changing_policy_in_place_is_quiet() -> None:
    quiet_change(_single_record("weighted"), _single_record("multivalue"), "EO-CHG1")


def test_chg1_the_finding_is_on_the_first_head_record_with_a_policy_base_did_not_have() -> None:
    one_change(_policies("weighted", "weighted"), _policies("weighted", "multivalue"), "EO-CHG1", "RecordNlb1B",
               Severity.ERROR, "routing policy weighted -> multivalue/weighted")


def test_chg1_without_a_new_policy_the_finding_is_on_the_first_head_record() -> None:
    one_change(_policies("weighted", "multivalue"), _policies("weighted", "weighted"), "EO-CHG1", "RecordNlb1A",
               Severity.ERROR, "routing policy multivalue/weighted -> weighted")


def _grouped(*groups: list[str], policy: str) -> dict[str, Any]:
    """One NLB's records as members of RecordSetGroups: ``groups`` lists which records go in each
    (Records, Records2, ...), every member with ``policy``."""
    body = world(nlbs=1)
    members = {key: resources(body).pop(key)["Properties"] for key in record_ids(body)}
    for n, keys in enumerate(groups, start=1):
        sets = []
        for key in keys:
            member = members[key]
            member.pop("HostedZoneName")
            set_policy(member, policy)
            sets.append(member)
        resources(body)[f"Records{n if n > 1 else ''}"] = {
            "Type": "AWS::Route53::RecordSetGroup", "Properties": {"HostedZoneName": "example.com.", "RecordSets": sets}}
    return body


def test_chg1_a_policy_flip_inside_one_record_set_group_is_quiet() -> None:
    both = ["RecordNlb1A", "RecordNlb1B"]
    quiet_change(_grouped(both, policy="weighted"), _grouped(both, policy="multivalue"), "EO-CHG1")


def test_chg1_group_members_split_over_two_groups_fire() -> None:
    """Every record is a group member, but head holds them in two groups: two change batches."""
    base = _grouped(["RecordNlb1A", "RecordNlb1B"], policy="weighted")
    head = _grouped(["RecordNlb1A"], ["RecordNlb1B"], policy="multivalue")
    one_change(base, head, "EO-CHG1", "Records", Severity.ERROR, "routing policy weighted -> multivalue",
               "head: Edge/Records[0], Edge/Records2[0]")


# --- EO-CHG2: origin IPs replaced or removed ---------------------------------------------------------------
def _nlbs(count: int, origin_name: str = NAME) -> dict[str, Any]:
    body = world(nlbs=count)
    props(body, "Dist")["DistributionConfig"]["Origins"][0]["DomainName"] = origin_name
    return body


def test_chg2_an_nlb_removed_from_a_live_name_fires_on_its_first_head_record() -> None:
    one_change(_nlbs(3), _nlbs(2), "EO-CHG2", "RecordNlb1A", Severity.WARNING,
               "2 of its 6 addresses are removed or replaced (4 stay)", "EIP Edge/Nlb3EipA removed",
               "edges keep connecting to the old addresses until their TTL (60 s) ends")


def test_chg2_a_name_no_distribution_uses_is_not_its_business() -> None:
    quiet_change(_nlbs(3, "other.example.com"), _nlbs(2, "other.example.com"), "EO-CHG2")


def test_chg2_a_ttl_decided_at_deploy_time_says_until_the_cached_answer_expires() -> None:
    base, head = _nlbs(3), _nlbs(2)
    for body in (base, head):
        body["Parameters"] = {"Ttl": {"Type": "Number"}}
        for key in record_ids(body):
            props(body, key)["TTL"] = {"Ref": "Ttl"}
    f = one_change(base, head, "EO-CHG2", "RecordNlb1A", Severity.WARNING,
                   "edges keep connecting to the old addresses until their cached answer expires")
    assert "TTL (" not in f.message


def test_chg2_a_replaced_record_alone_says_the_set_identifier_is_lost() -> None:
    base = world()
    head = copy.deepcopy(base)
    props(head, "RecordNlb2B")["SetIdentifier"] = "origin-nlb2-b"
    f = one_change(base, head, "EO-CHG2", "RecordNlb1A", Severity.WARNING, "records are replaced",
                   "Edge/RecordNlb2B replaced", "no longer finds them")
    assert "edges keep connecting" not in f.message


def _without_addresses(set_identifier: str) -> dict[str, Any]:
    body = world(nlbs=1)
    for key in record_ids(body):
        props(body, key)["ResourceRecords"] = []
    props(body, "RecordNlb1B")["SetIdentifier"] = set_identifier
    return body


def test_chg2_a_name_whose_base_records_answer_with_no_address_is_not_its_business() -> None:
    """No base address to lose: even a replaced record set is not reported."""
    quiet_change(_without_addresses("nlb1-us-east-1b"), _without_addresses("renamed"), "EO-CHG2")


# --- EO-CHG3: the switch to a name whose records this deploy creates ------------------------------------------
def _with_mv_records(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` plus records of MV_NAME (same EIPs and checks), logical ids prefixed ``Mv``."""
    copy_records(world(name=MV_NAME), body, "Mv")
    return body


def _origin(body: dict[str, Any], name: str) -> dict[str, Any]:
    props(body, "Dist")["DistributionConfig"]["Origins"][0]["DomainName"] = name
    return body


def test_chg3_a_distribution_switched_to_new_records_without_depends_on_fires() -> None:
    one_change(world(), _origin(_with_mv_records(world()), MV_NAME), "EO-CHG3", "Dist", Severity.WARNING,
               f"Dist switches to {MV_NAME}, whose records this deploy creates", "nothing orders them")


@pytest.mark.parametrize("depends_on", ["MvRecordNlb2B", ["MvRecordNlb1A"], ["Targets", "MvRecordNlb2A"]])
def test_chg3_depends_on_one_of_the_new_records_orders_the_switch(depends_on: Any) -> None:
    head = _origin(_with_mv_records(world()), MV_NAME)
    resources(head)["Dist"]["DependsOn"] = depends_on
    quiet_change(world(), head, "EO-CHG3")


@pytest.mark.parametrize("depends_on", ["Targets", ["Targets"]])
def test_chg3_depends_on_something_else_does_not_order_the_switch(depends_on: Any) -> None:
    head = _origin(_with_mv_records(world()), MV_NAME)
    resources(head)["Dist"]["DependsOn"] = depends_on
    one_change(world(), head, "EO-CHG3", "Dist", Severity.WARNING, "nothing orders them")


def test_chg3_a_switch_to_a_name_whose_records_already_exist_is_quiet() -> None:
    quiet_change(_with_mv_records(world()), _origin(_with_mv_records(world()), MV_NAME), "EO-CHG3")


def test_chg3_a_new_distribution_on_new_records_is_quiet() -> None:
    """A distribution head creates is not switched: nothing serves traffic through it yet."""
    head = _with_mv_records(world())
    resources(head)["Dist2"] = copy.deepcopy(resources(head)["Dist"])
    _origin(head, MV_NAME)  # Dist switches too ...
    resources(head)["Dist"]["DependsOn"] = ["MvRecordNlb1A"]  # ... ordered; Dist2 is new
    quiet_change(world(), head, "EO-CHG3")


def test_chg3_a_distribution_that_already_used_the_name_is_quiet() -> None:
    """Base's distribution already had the name (its records outside these templates): not a switch."""
    quiet_change(_origin(world(), MV_NAME), _origin(_with_mv_records(world()), MV_NAME), "EO-CHG3")


# --- EO-CHG3: a live name left with no records, or no health-checked record ------------------------------------
def _two_distributions() -> dict[str, Any]:
    body = world()
    resources(body)["Dist2"] = copy.deepcopy(resources(body)["Dist"])
    return body


def _without_records(body: dict[str, Any]) -> dict[str, Any]:
    for key in record_ids(body):
        drop_record(body, key)
    return body


def test_chg3_every_record_removed_fires_on_the_first_distribution_using_the_name() -> None:
    one_change(_two_distributions(), _without_records(_two_distributions()), "EO-CHG3", "Dist", Severity.ERROR,
               f"{NAME}: every record is removed", "while the name is still an origin of Edge/Dist, Edge/Dist2: after")


def _marked_only() -> dict[str, Any]:
    """The name is a gRPC origin by its records' marker; the distribution is outside these templates."""
    body = world()
    del resources(body)["Dist"]
    for key in record_ids(body):
        resources(body)[key]["Metadata"] = {"edge-origin:grpc-origin": True}
    return body


def test_chg3_every_record_of_a_marked_name_removed_fires_on_its_first_base_record() -> None:
    one_change(_marked_only(), _without_records(_marked_only()), "EO-CHG3", "RecordNlb1A", Severity.ERROR,
               f"{NAME}: every record is removed", "while the name is still an origin: after the deploy")


def test_chg3_every_health_check_removed_fires_on_the_first_head_record() -> None:
    base = world()
    head = copy.deepcopy(base)
    for key in record_ids(head):
        props(head, key).pop("HealthCheckId")
    one_change(base, head, "EO-CHG3", "RecordNlb1A", Severity.ERROR, "4 health-checked record(s) in base, none in head")


def test_chg3_one_health_checked_record_left_is_quiet() -> None:
    base = world()
    head = copy.deepcopy(base)
    for key in record_ids(head)[1:]:
        props(head, key).pop("HealthCheckId")
    quiet_change(base, head, "EO-CHG3")


# --- EO-CHG5: a record moved to another resource ------------------------------------------------------------------
def test_chg5_a_record_under_a_new_logical_id_fires_with_the_same_stack_story() -> None:
    base, head = (side["Edge"] for side in make_pairs.pairs()["record-logical-id-renamed"])
    f = one_change(base, head, "EO-CHG5", "RecordNlb1ARenamed", Severity.ERROR,
                   "moves from Edge/RecordNlb1A to Edge/RecordNlb1ARenamed (a new logical id)",
                   "CloudFormation creates the new resource while the old one still holds the record")
    assert "another stack" not in f.message


def test_chg5_a_record_moved_to_another_stack_fires_with_the_two_deploys_story() -> None:
    base = world()
    edge = copy.deepcopy(base)
    moved = resources(edge).pop("RecordNlb1A")
    moved["Properties"].pop("HealthCheckId")
    moved["Properties"]["ResourceRecords"] = ["203.0.113.5"]  # the EIP stays in Edge: its address, literally
    dns = {"Resources": {"RecordNlb1A": moved}}
    found = one_change({"Edge": base}, {"Edge": edge, "Dns": dns}, "EO-CHG5", "RecordNlb1A", Severity.ERROR,
                       "moves from Edge/RecordNlb1A to Dns/RecordNlb1A (another stack)",
                       "the stacks deploy separately")
    assert found.stack == "Dns" and "a new logical id" not in found.message


def test_chg5_a_copy_beside_the_record_it_copies_is_a_duplicate_not_a_move() -> None:
    base = world()
    head = copy.deepcopy(base)
    resources(head)["RecordNlb1ACopy"] = copy.deepcopy(resources(head)["RecordNlb1A"])
    quiet_change(base, head, "EO-CHG5")
