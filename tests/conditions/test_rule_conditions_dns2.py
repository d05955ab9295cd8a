"""EO-DNS2 beyond tests/conditions/test_rule_conditions_dns.py: the whole finding (rule, resource, severity,
message, fix) for each way a record stays in Route 53's answers, and the record sets the rule passes over
(mutmut, issue 38). Templates are the quiet world edited as dicts."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import findings, quiet, res, world

from edge_origin.core.findings import Severity
from edge_origin.rules.dns2_multivalue_health import FIX

WHERE = "{rid}: {policy} record in zone example.com for gRPC origin o.example.com"
DEAD = "Route 53 keeps answering with a dead NLB's IP"


def _seen(body: dict[str, Any]) -> list[tuple[str, str, Severity, str, str]]:
    return [(f.rule, f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-DNS2")]


def _failover(body: dict[str, Any], primary: str = "PRIMARY", secondary: str = "SECONDARY") -> dict[str, Any]:
    for logical_id, role in (("RecordA", primary), ("RecordB", secondary)):
        props = res(body, logical_id)
        del props["MultiValueAnswer"]
        props["Failover"] = role
    return body


def test_dns2_multivalue_records_without_health_checks_each_the_whole_finding() -> None:
    body = world()
    for logical_id in ("RecordA", "RecordB"):
        del res(body, logical_id)["HealthCheckId"]
    assert _seen(body) == [
        ("EO-DNS2", rid, Severity.ERROR, WHERE.format(rid=rid, policy="multivalue") + f" has no HealthCheckId: {DEAD}", FIX)
        for rid in ("RecordA", "RecordB")
    ]


def test_dns2_a_disabled_check_the_whole_finding() -> None:
    body = world()
    res(body, "CheckB")["HealthCheckConfig"]["Disabled"] = True
    assert _seen(body) == [(
        "EO-DNS2", "RecordB", Severity.ERROR,
        WHERE.format(rid="RecordB", policy="multivalue")
        + f": health check CheckB is Disabled (Route 53 then considers it always healthy): {DEAD}",
        FIX,
    )]


def test_dns2_each_check_probing_the_other_records_address_the_whole_findings() -> None:
    body = world()
    res(body, "CheckA")["HealthCheckConfig"]["IPAddress"] = {"Ref": "EipB"}
    res(body, "CheckB")["HealthCheckConfig"]["IPAddress"] = {"Ref": "EipA"}
    tail = (
        "(another record's address), not this record's address ({own}); Route 53 \"doesn't check the health of the "
        "endpoint that is specified in the resource record set\": the record stays in answers when its own NLB is down"
    )
    assert _seen(body) == [
        ("EO-DNS2", rid, Severity.ERROR,
         WHERE.format(rid=rid, policy="multivalue") + f": health check {check} probes S/{probed} " + tail.format(own=f"S/{own}"), FIX)
        for rid, check, probed, own in (("RecordA", "CheckA", "EipB", "EipA"), ("RecordB", "CheckB", "EipA", "EipB"))
    ]


def test_dns2_a_check_probing_an_address_no_record_holds_is_not_another_records() -> None:
    body = world()
    res(body, "CheckA")["HealthCheckConfig"]["IPAddress"] = "198.51.100.7"
    # probed elsewhere, but by no record of the name: not "another record's address"; whether 198.51.100.7 is
    # EipA's address is decided at deploy time: not judged, said (never silence)
    found = findings(body, "EO-DNS2")
    assert [(f.resource, f.severity, f.message.startswith("not judged: ")) for f in found] == [("RecordA", Severity.WARNING, True)]
    assert "another record" not in found[0].message and "198.51.100.7" in found[0].message


def test_dns2_failover_the_primary_is_judged_in_any_case_the_secondary_never() -> None:
    for primary in ("PRIMARY", "primary"):
        body = _failover(world(), primary)
        for logical_id in ("RecordA", "RecordB"):
            del res(body, logical_id)["HealthCheckId"]
        assert _seen(body) == [(
            "EO-DNS2", "RecordA", Severity.ERROR, WHERE.format(rid="RecordA", policy="failover") + f" has no HealthCheckId: {DEAD}", FIX)]
    assert primary == "primary"


def test_dns2_weighted_records_are_not_judged_by_health() -> None:
    body = world()
    for logical_id in ("RecordA", "RecordB"):
        props = res(body, logical_id)
        del props["MultiValueAnswer"], props["HealthCheckId"]
        props["Weight"] = 1
    quiet(body, "EO-DNS2")


def _alias_to_pool(evaluate: bool, check: str | None) -> dict[str, Any]:
    """o.example.com: one multivalue alias (EvaluateTargetHealth ``evaluate``) to pool.example.com, which holds
    the two health-checked records."""
    body = world()
    for logical_id in ("RecordA", "RecordB"):
        res(body, logical_id)["Name"] = "pool.example.com"
    props: dict[str, Any] = {
        "HostedZoneName": "example.com.", "Name": "o.example.com", "Type": "A", "SetIdentifier": "p", "MultiValueAnswer": True,
        "AliasTarget": {"DNSName": "pool.example.com", "HostedZoneId": "Z1", "EvaluateTargetHealth": evaluate},
    }
    if check is not None:
        props["HealthCheckId"] = {"Ref": check}
    body["Resources"]["Alias"] = {"Type": "AWS::Route53::RecordSet", "Properties": props}
    return body


def test_dns2_an_alias_evaluating_its_targets_health_inherits_it() -> None:
    quiet(_alias_to_pool(True, None), "EO-DNS2")
    assert _seen(_alias_to_pool(False, None)) == [(
        "EO-DNS2", "Alias", Severity.ERROR, WHERE.format(rid="Alias", policy="multivalue") + f" has no HealthCheckId: {DEAD}", FIX)]
    body = _alias_to_pool(True, "CheckA")
    res(body, "CheckA")["HealthCheckConfig"]["Disabled"] = True  # its own check is judged, and the record's behind it
    assert [f.resource for f in findings(body, "EO-DNS2")] == ["Alias", "RecordA"]


def _duplicates(holding_b: int, other_holds_b: bool) -> dict[str, Any]:
    """RecordA (EipA) with CheckA probing EipB; ``holding_b`` more record sets under RecordA's identity (set id A)
    hold EipB; RecordB (EipB) kept when ``other_holds_b``."""
    body = world()
    res(body, "CheckA")["HealthCheckConfig"]["IPAddress"] = {"Ref": "EipB"}
    if not other_holds_b:
        del body["Resources"]["RecordB"], body["Resources"]["CheckB"]
    for i in range(holding_b):
        body["Resources"][f"Dup{i}"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            **res(body, "RecordA"), "ResourceRecords": [{"Ref": "EipB"}], "HealthCheckId": {"Ref": "CheckA"}}}
    return body


@pytest.mark.parametrize(("holding_b", "other_holds_b", "probes_another"),
                         [(1, False, False), (2, False, False), (1, True, True), (0, True, True)])
def test_dns2_a_set_under_the_same_identity_is_not_another_record(holding_b: int, other_holds_b: bool, probes_another: bool) -> None:
    # Route 53 refuses two sets of one identity (EO-CHG5 and the deploy say so); "another record's address" counts
    # only sets of another identity
    found = [f.resource for f in findings(_duplicates(holding_b, other_holds_b), "EO-DNS2") if "another record's address" in f.message]
    assert found == (["RecordA"] if probes_another else [])


def test_dns2_each_name_counts_the_addresses_of_its_own_records() -> None:
    # p.example.com (its own origin) has one record, whose check probes EipB: held by o.example.com's RecordB only
    body = world()
    res(body, "CheckA")["HealthCheckConfig"]["IPAddress"] = {"Ref": "EipB"}  # o's check: another record's address
    cfg = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]
    cfg["Origins"].append({**cfg["Origins"][0], "Id": "p", "DomainName": "p.example.com"})
    cfg["CacheBehaviors"] = [{**cfg["DefaultCacheBehavior"], "PathPattern": "/p/*", "TargetOriginId": "p"}]
    body["Resources"]["CheckP"] = {"Type": "AWS::Route53::HealthCheck", "Properties": {
        "HealthCheckConfig": {"Type": "TCP", "IPAddress": {"Ref": "EipB"}, "Port": 443}}}
    body["Resources"]["RecordP"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": "p.example.com", "Type": "A", "TTL": 60, "SetIdentifier": "P",
        "MultiValueAnswer": True, "ResourceRecords": ["192.0.2.50"], "HealthCheckId": {"Ref": "CheckP"}}}
    found = [f.resource for f in findings(body, "EO-DNS2") if "another record's address" in f.message]
    assert found == ["RecordA"]


def test_dns2_a_simple_alias_evaluating_health_before_the_pool_does_not_end_the_check() -> None:
    for multivalue in (True, False):
        body = _alias_to_pool(True, None)
        if not multivalue:
            props = res(body, "Alias")
            del props["SetIdentifier"], props["MultiValueAnswer"]
        del res(body, "RecordA")["HealthCheckId"]
        assert _seen(body) == [("EO-DNS2", "RecordA", Severity.ERROR,
                                "RecordA: multivalue record in zone example.com for gRPC origin o.example.com has no "
                                f"HealthCheckId: {DEAD}", FIX)]
    assert not multivalue


def test_dns2_a_secondary_before_the_primary_does_not_end_the_check() -> None:
    body = _failover(world(), primary="SECONDARY", secondary="PRIMARY")  # RecordA secondary, RecordB primary
    for logical_id in ("RecordA", "RecordB"):
        del res(body, logical_id)["HealthCheckId"]
    assert _seen(body) == [(
        "EO-DNS2", "RecordB", Severity.ERROR, WHERE.format(rid="RecordB", policy="failover") + f" has no HealthCheckId: {DEAD}", FIX)]


def test_dns2_a_record_of_two_addresses_lists_both_when_its_check_probes_another() -> None:
    body = world()
    res(body, "RecordA")["ResourceRecords"] = [{"Ref": "EipA"}, "192.0.2.77"]
    res(body, "CheckA")["HealthCheckConfig"]["IPAddress"] = {"Ref": "EipB"}
    found = [f.message for f in findings(body, "EO-DNS2") if "probes" in f.message]
    assert len(found) == 1 and "not this record's address (S/EipA, 192.0.2.77);" in found[0], found


def test_dns2_the_pool_behind_a_secondary_is_judged_after_the_secondary_is_passed_over() -> None:
    body = _failover(world())  # RecordA primary (checked), RecordB secondary
    del body["Resources"]["RecordB"], body["Resources"]["CheckB"]
    body["Resources"]["Secondary"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": "o.example.com", "Type": "A", "SetIdentifier": "B", "Failover": "SECONDARY",
        "AliasTarget": {"DNSName": "pool.example.com", "HostedZoneId": "Z1", "EvaluateTargetHealth": True}}}
    for i in (1, 2):
        body["Resources"][f"Pool{i}"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            "HostedZoneName": "example.com.", "Name": "pool.example.com", "Type": "A", "TTL": 60, "SetIdentifier": f"p{i}",
            "MultiValueAnswer": True, "ResourceRecords": [f"192.0.2.{i}"]}}
    assert _seen(body) == [
        ("EO-DNS2", rid, Severity.ERROR, WHERE.format(rid=rid, policy="multivalue") + f" has no HealthCheckId: {DEAD}", FIX)
        for rid in ("Pool1", "Pool2")
    ]


# --- issue 52: a public endpoint check of a private address never reaches it --------------------------------
def _literal(body: dict[str, Any], address: str, **config: Any) -> dict[str, Any]:
    for rid, check in (("RecordA", "CheckA"), ("RecordB", "CheckB")):
        own = address.replace("X", rid[-1].lower() == "a" and "1" or "2")
        res(body, rid)["ResourceRecords"] = [own]
        res(body, check)["HealthCheckConfig"].update(IPAddress=own, **config)
    return body


@pytest.mark.parametrize("address", ["10.0.0.X", "172.16.3.X", "192.168.1.X", "100.64.0.X", "fd00::X"])
def test_dns2_a_public_check_of_a_private_address_each_the_whole_finding(address: str) -> None:
    from edge_origin.rules.dns2_multivalue_health import PRIVATE_FIX

    body = _literal(world(), address)
    found = _seen(body)
    assert [(rule, rid, sev, fix) for rule, rid, sev, _, fix in found] == [
        ("EO-DNS2", rid, Severity.ERROR, PRIVATE_FIX) for rid in ("RecordA", "RecordB")]
    ip = address.replace("X", "1")
    assert found[0][3] == (
        WHERE.format(rid="RecordA", policy="multivalue") + f": health check CheckA is a public endpoint check of the "
        f"private address {ip}: Route 53's checkers probe from the internet and never reach it, so the record is never "
        "healthy (and with every record unhealthy Route 53 answers with all of them: fail-open); a private endpoint "
        "check needs EndpointType PRIVATE through a health check source (AWS::Route53::HealthCheckSource in CloudFormation)")


@pytest.mark.parametrize(("address", "config"), [
    ("192.0.2.X", {}),  # a public (documentation) address
    ("203.0.113.X", {}),
    ("10.0.0.X", {"EndpointType": "PRIVATE", "HealthCheckSourceId": "hcs-1"}),  # the API's private endpoint check
])
def test_dns2_a_public_address_or_a_private_endpoint_check_is_quiet(address: str, config: dict[str, Any]) -> None:
    quiet(_literal(world(), address, **config), "EO-DNS2")


# --- issue 52: an HTTPS health check of the gRPC port (Route 53's checks are not documented to speak HTTP/2) ------
@pytest.mark.parametrize(("check_type", "port", "fires"), [
    ("HTTPS", 443, True), ("HTTPS_STR_MATCH", 443, True), ("HTTPS", None, True),  # no Port: HTTPS's 443
    ("TCP", 443, False), ("HTTPS", 8081, False),  # a TCP check, or HTTPS on a port no gRPC listener serves
])
def test_dns2_an_https_check_of_the_grpc_listener_port(check_type: str, port: int | None, fires: bool) -> None:
    from edge_origin.rules.dns2_multivalue_health import HTTPS_FIX

    body = world()
    for check in ("CheckA", "CheckB"):
        cfg = res(body, check)["HealthCheckConfig"]
        cfg.update(Type=check_type, **({"ResourcePath": "/"} if check_type.startswith("HTTPS") else {}))
        if port is None:
            cfg.pop("Port")
        else:
            cfg["Port"] = port
    found = [(rid, sev, msg, fix) for _, rid, sev, msg, fix in _seen(body)]
    if not fires:
        assert found == []
        return
    assert [(rid, sev, fix) for rid, sev, _, fix in found] == [
        ("RecordA", Severity.WARNING, HTTPS_FIX), ("RecordB", Severity.WARNING, HTTPS_FIX)]
    assert "not documented to speak HTTP/2" in found[0][2] and f"is {check_type} on port 443" in found[0][2]
