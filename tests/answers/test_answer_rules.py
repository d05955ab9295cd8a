"""The rules ask the answer model: every class issue 17 names, judged as described (a fire and
a quiet test each), and generated zone sets of every policy."""

from __future__ import annotations

import pytest
from answer_templates import NAME, base, eip, model, nlb_alias, nlb_dns, one_per_set, record
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.rules import get_rule, run_rules


def dns1(m) -> list:
    return run_rules(m, [get_rule("EO-DNS1")])


ONE_ADDRESS_POLICIES = {
    "latency": [{"Region": "us-east-1"}, {"Region": "eu-west-1"}],
    "failover": [{"Failover": "PRIMARY"}, {"Failover": "SECONDARY"}],
    "geolocation": [{"GeoLocation": {"CountryCode": "US"}}, {"GeoLocation": {"CountryCode": "*"}}],
    "geoproximity": [{"GeoProximityLocation": {"AWSRegion": "us-east-1"}}, {"GeoProximityLocation": {"AWSRegion": "eu-west-1", "Bias": 10}}],
    "cidr": [{"CidrRoutingConfig": {"CollectionId": "c", "LocationName": "office"}}, {"CidrRoutingConfig": {"CollectionId": "c", "LocationName": "*"}}],
    "weighted": [{"Weight": 1}, {"Weight": 1}],
}


@pytest.mark.parametrize("policy", sorted(ONE_ADDRESS_POLICIES))
def test_one_address_per_set_is_the_pile_up_for_every_policy(policy: str) -> None:
    findings = dns1(model(base(), **one_per_set(ONE_ADDRESS_POLICIES[policy])))
    errors = [f for f in findings if f.severity is Severity.ERROR]
    assert {f.resource for f in errors} == {"Rec0", "Rec1"}, findings
    for f in errors:
        assert f"{policy} record" in f.message and "public zone example.com" in f.message
        assert "holds one address" in f.message and "while the name has 2" in f.message and "chain o.example.com A" in f.message
    if policy in ("latency", "geolocation"):
        assert "each region's" in errors[0].fix or "each location's" in errors[0].fix


@pytest.mark.parametrize("policy", ["latency", "failover", "geolocation"])
def test_each_set_an_alias_of_a_multivalue_pool_is_quiet(policy: str) -> None:
    """The fix the rule gives: each set points at a pool holding every address of its region."""
    records = {}
    for i, props in enumerate(ONE_ADDRESS_POLICIES[policy]):
        pool = f"pool{i}.example.com"
        records[f"Rec{i}"] = record(SetIdentifier=f"s{i}", AliasTarget={"DNSName": pool, "HostedZoneId": "Z", "EvaluateTargetHealth": True}, **props)
        for j in (2 * i, 2 * i + 1):
            records[f"Pool{i}{j}"] = record(pool, SetIdentifier=f"p{j}", MultiValueAnswer=True, ResourceRecords=[eip(j % 4)], HealthCheckId={"Ref": f"Check{j % 4}"})
    assert [f for f in dns1(model(base(), **records)) if f.severity is Severity.ERROR] == []


def test_weighted_sets_each_holding_every_address_are_not_the_pile_up() -> None:
    every = [eip(0), eip(1)]
    m = model(base(), **one_per_set([{"Weight": 1}, {"Weight": 1}], values=[every, every]))
    findings = dns1(m)
    assert {f.severity for f in findings} == {Severity.WARNING}
    assert all("one value per weighted set" in f.message for f in findings)
    assert "each resolver gets one" not in " ".join(f.message for f in findings)


def test_a_name_whose_only_set_is_weighted_answers_like_simple() -> None:
    m = model(base(), Rec0=record(SetIdentifier="s0", Weight=5, ResourceRecords=[eip(0), eip(1)], HealthCheckId={"Ref": "Check0"}))
    findings = dns1(m)
    assert [f.severity for f in findings] == [Severity.WARNING] and "one value per weighted set" in findings[0].message


def test_weighted_cnames_to_two_nlb_names() -> None:
    records = {
        f"Rec{i}": record(rtype="CNAME", SetIdentifier=f"s{i}", Weight=1, ResourceRecords=[nlb_dns(lb)])
        for i, lb in enumerate(("NlbA", "NlbB"))
    }
    findings = [f for f in dns1(model(base(), **records)) if f.severity is Severity.ERROR]
    assert {f.resource for f in findings} == {"Rec0", "Rec1"}
    assert all("one NLB (Nlb" in f.message for f in findings)
    quiet = {"Rec0": record(rtype="CNAME", ResourceRecords=[nlb_dns("NlbA")])}
    assert dns1(model(base(), **quiet)) == []


def test_alias_to_a_weighted_pool_of_the_zone_is_followed() -> None:
    records = {
        "Front": record(AliasTarget={"DNSName": "pool.example.com", "HostedZoneId": "Z", "EvaluateTargetHealth": True}),
        **{f"Pool{i}": record("pool.example.com", SetIdentifier=f"p{i}", Weight=1, ResourceRecords=[eip(i)]) for i in (0, 2)},
    }
    findings = [f for f in dns1(model(base(), **records)) if f.severity is Severity.ERROR]
    assert findings and all("alias -> pool.example.com" in f.message for f in findings)


def test_cname_to_an_nlb_lets_the_nlb_rules_see_it() -> None:
    m = model(base(), Rec0=record(rtype="CNAME", ResourceRecords=[nlb_dns("NlbA")]))
    assert [lb.resource.logical_id for lb in m.load_balancers_for_name(NAME)] == ["NlbA"]
    from edge_origin.rules.base import origin_load_balancers

    assert [(n, [lb.resource.logical_id for lb in lbs]) for n, _, lbs in origin_load_balancers(m)] == [(NAME, ["NlbA"])]


def test_simple_alias_to_nlb_with_evaluate_target_health_is_not_a_lone_record() -> None:
    assert dns1(model(base(), Rec0=record(AliasTarget=nlb_alias("NlbA")))) == []


def test_simple_alias_to_an_alb_is_named_an_alb() -> None:
    body = base()
    body["Resources"]["NlbA"]["Properties"]["Type"] = "application"
    body["Resources"]["NlbA"]["Properties"]["SubnetMappings"] = body["Resources"]["NlbA"]["Properties"]["SubnetMappings"][:1]
    findings = dns1(model(body, Rec0=record(AliasTarget=nlb_alias("NlbA"))))
    assert findings and all("ALB" in f.message and "NLB (" not in f.message for f in findings)


def test_private_zone_records_are_not_the_distributions_origin() -> None:
    body = base()
    body["Resources"]["Private"] = {
        "Type": "AWS::Route53::HostedZone",
        "Properties": {"Name": "example.com", "VPCs": [{"VPCId": "vpc-1", "VPCRegion": "us-east-1"}]},
    }
    weighted = one_per_set([{"Weight": 1}, {"Weight": 1}])
    for rec in weighted.values():
        rec["Properties"]["HostedZoneId"] = {"Ref": "Private"}
    public = {f"Pub{i}": record(SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"}) for i in (0, 2)}
    findings = run_rules(model(body, **weighted, **public))
    assert [f for f in findings if f.rule == "EO-DNS1"] == []
    # marked as an in-VPC gRPC origin, the private zone is judged, and the finding names it
    for rec in weighted.values():
        rec["Metadata"] = {"edge-origin:grpc-origin": True}
    marked = [f for f in run_rules(model(body, **weighted, **public)) if f.rule == "EO-DNS1" and f.severity is Severity.ERROR]
    assert {f.resource for f in marked} == {"Rec0", "Rec1"} and all("private zone example.com (S/Private)" in f.message for f in marked)


# --- EO-DNS2: health that never takes a record out ------------------------------------------
def _mv(**check_props) -> dict:
    records = {f"Rec{i}": record(SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"}) for i in (0, 2)}
    body = base()
    body["Resources"]["Check0"]["Properties"]["HealthCheckConfig"].update(check_props)
    return model(body, **records)


def dns2(m) -> list:
    return run_rules(m, [get_rule("EO-DNS2")])


def test_dns2_quiet_with_working_checks() -> None:
    assert dns2(_mv()) == []


@pytest.mark.parametrize(("props", "words"), [({"Disabled": True}, "Disabled"), ({"Inverted": False, "Disabled": "true"}, "Disabled")])
def test_dns2_disabled_check_never_fails(props: dict, words: str) -> None:
    findings = dns2(_mv(**props))
    assert [f.resource for f in findings] == ["Rec0"] and words in findings[0].message


def test_dns2_calculated_threshold_zero() -> None:
    body = base()
    body["Resources"]["Calc"] = {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {"Type": "CALCULATED", "ChildHealthChecks": [{"Ref": "Check0"}], "HealthThreshold": 0}}}
    records = {f"Rec{i}": record(SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": "Calc" if i == 0 else f"Check{i}"}) for i in (0, 2)}
    findings = dns2(model(body, **records))
    assert [f.resource for f in findings] == ["Rec0"] and "HealthThreshold 0" in findings[0].message
    body["Resources"]["Calc"]["Properties"]["HealthCheckConfig"]["HealthThreshold"] = 1
    assert dns2(model(body, **records)) == []


def test_dns2_check_probing_another_records_address() -> None:
    records = {f"Rec{i}": record(SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": "Check2"}) for i in (0, 2)}
    findings = dns2(model(base(), **records))
    assert [f.resource for f in findings] == ["Rec0"] and "another record's address" in findings[0].message


def test_dns2_failover_primary_without_check() -> None:
    records = one_per_set(ONE_ADDRESS_POLICIES["failover"])
    del records["Rec0"]["Properties"]["HealthCheckId"]
    assert [f.resource for f in dns2(model(base(), **records))] == ["Rec0"]
    del records["Rec1"]["Properties"]["HealthCheckId"]  # the secondary without a check: the reference allows it
    records["Rec0"]["Properties"]["HealthCheckId"] = {"Ref": "Check0"}
    assert dns2(model(base(), **records)) == []


def test_dns2_no_health_check_still_says_so() -> None:
    records = {f"Rec{i}": record(SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)]) for i in (0, 2)}
    findings = dns2(model(base(), **records))
    assert {f.resource for f in findings} == {"Rec0", "Rec2"} and all("no HealthCheckId" in f.message for f in findings)


# --- EO-DNS3: every condition pinned ---------------------------------------------------------
def dns3(m) -> list:
    return run_rules(m, [get_rule("EO-DNS3")])


def test_dns3_all_origin_ips_in_one_zone() -> None:
    records = {f"Rec{i}": record(SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(0)], HealthCheckId={"Ref": "Check0"}) for i in range(1)}
    body = base()
    body["Resources"]["Subnet1"]["Properties"]["AvailabilityZone"] = "us-east-1a"
    records = {f"Rec{i}": record(SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"}) for i in (0, 1)}
    findings = dns3(model(body, **records))
    assert [(f.resource, f.message) for f in findings] == [
        ("Rec0", "gRPC origin o.example.com (public zone example.com (S/Zone)): all 2 origin IPs are in one zone (us-east-1a)")
    ]
    assert dns3(model(base(), **records)) == []


def test_dns3_more_than_eight_multivalue_records() -> None:
    body = base()
    for i in range(4, 10):
        body["Resources"][f"Eip{i}"] = {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}}
        body["Resources"][f"Check{i}"] = {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {"Type": "TCP", "IPAddress": eip(i), "Port": 443}}}
    records = {f"Rec{i}": record(SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"}) for i in range(9)}
    findings = dns3(model(body, **records))
    # more than eight healthy: "Route 53 responds to different DNS resolvers with different combinations" (no spares)
    assert [f.message for f in findings if "multivalue records" in f.message] == []
    del records["Rec8"]
    assert [f for f in dns3(model(body, **records)) if "multivalue records" in f.message] == []


def test_dns3_alias_to_nlb_counts_its_zonal_addresses() -> None:
    assert dns3(model(base(), Rec0=record(AliasTarget=nlb_alias("NlbA")))) == []


# --- EO-CF1: match-viewer on gRPC ------------------------------------------------------------
def test_cf1_match_viewer_on_grpc_is_https() -> None:
    body = base()
    origin = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]
    origin["CustomOriginConfig"]["OriginProtocolPolicy"] = "match-viewer"
    m = model(body, Rec0=record(AliasTarget=nlb_alias("NlbA")))
    assert run_rules(m, [get_rule("EO-CF1")]) == []
    origin["CustomOriginConfig"]["OriginProtocolPolicy"] = "http-only"
    findings = run_rules(model(body, Rec0=record(AliasTarget=nlb_alias("NlbA"))), [get_rule("EO-CF1")])
    assert [f.resource for f in findings] == ["Dist"] and "not reached over HTTPS" in findings[0].message


# --- generated: the rule's verdict is the answer model's --------------------------------------
POLICY_CHOICES = sorted(ONE_ADDRESS_POLICIES) + ["multivalue"]


@settings(database=None, max_examples=60, deadline=None)
@given(policy=st.sampled_from(POLICY_CHOICES), sets=st.integers(1, 4), per_set=st.integers(1, 4), data=st.data())
def test_dns1_error_iff_an_answer_holds_one_of_several(policy: str, sets: int, per_set: int, data: st.DataObject) -> None:
    props = (ONE_ADDRESS_POLICIES.get(policy) or [{"MultiValueAnswer": True}] * 2)
    if policy == "geolocation":
        props = [{"GeoLocation": {"CountryCode": c}} for c in ("US", "DE", "FR", "*")]
    elif policy == "latency":
        props = [{"Region": r} for r in ("us-east-1", "eu-west-1", "ap-south-1", "sa-east-1")]
    elif policy == "geoproximity":
        props = [{"GeoProximityLocation": {"AWSRegion": r}} for r in ("us-east-1", "eu-west-1", "ap-south-1", "sa-east-1")]
    elif policy == "cidr":
        props = [{"CidrRoutingConfig": {"CollectionId": "c", "LocationName": n}} for n in ("a", "b", "c", "*")]
    elif policy == "failover":
        sets = min(sets, 2)
    else:
        props = [props[0]] * 4
    values = [sorted(data.draw(st.sets(st.integers(0, 3), min_size=1, max_size=per_set))) for _ in range(sets)]
    if policy == "multivalue":
        values = [[v[0]] for v in values]
    records = {}
    for i in range(sets):
        records[f"Rec{i}"] = record(SetIdentifier=f"s{i}", ResourceRecords=[eip(v) for v in values[i]], HealthCheckId={"Ref": f"Check{values[i][0]}"}, **props[i])
    m = model(base(), **records)
    found = [f for f in dns1(m) if f.severity is Severity.ERROR]
    errors = {f.resource for f in found if "no answer" not in f.message}
    # geolocation and CIDR sets without the * default give other locations (CloudFront's) no answer
    no_default = policy in ("geolocation", "cidr") and sets < 4
    assert len([f for f in found if "no answer" in f.message]) == (1 if no_default else 0)
    distinct = {v for vs in values for v in vs}
    if policy == "multivalue":
        expected = set()  # every healthy record in one answer
    else:
        expected = {f"Rec{i}" for i in range(sets) if len(values[i]) == 1} if len(distinct) > 1 else set()
    assert errors == expected


def test_report_diagram_draws_the_chain_end() -> None:
    from edge_origin.review.report import render_report

    text = render_report(model(base(), Rec0=record(rtype="CNAME", ResourceRecords=[nlb_dns("NlbA")])), "markdown", [])
    assert '-- "CNAME" --> ' in text and '["NLB NlbA"]' in text
    pooled = {
        "Front": record(AliasTarget={"DNSName": "pool.example.com", "HostedZoneId": "Z", "EvaluateTargetHealth": True}),
        "Pool": record("pool.example.com", ResourceRecords=[nlb_dns("NlbB")], rtype="CNAME"),
    }
    assert '-- "pool.example.com" --> ' in render_report(model(base(), **pooled), "markdown", [])


def test_nlb2_sees_the_multivalue_pool_behind_an_alias() -> None:
    records = {
        "Front": record(AliasTarget={"DNSName": "pool.example.com", "HostedZoneId": "Z", "EvaluateTargetHealth": True}),
        "Pool0": record("pool.example.com", SetIdentifier="p0", MultiValueAnswer=True, ResourceRecords=[eip(0)], HealthCheckId={"Ref": "Check0"}),
        "Pool1": record("pool.example.com", SetIdentifier="p1", MultiValueAnswer=True, ResourceRecords=["203.0.113.9"], HealthCheckId={"Ref": "Check2"}),
    }
    findings = run_rules(model(base(), **records), [get_rule("EO-NLB2")])
    assert [f.resource for f in findings] == ["Pool1"] and "203.0.113.9 is a literal address" in findings[0].message
    records["Pool1"]["Properties"]["ResourceRecords"] = [eip(2)]
    assert run_rules(model(base(), **records), [get_rule("EO-NLB2")]) == []


def test_an_account_reads_load_balancers_by_their_dns_name() -> None:
    body = base()
    body["Resources"]["NlbA"]["Metadata"] = {"edge-origin:dns-name": "nlb-a-123.elb.us-east-1.amazonaws.com"}
    body["Resources"]["NlbB"]["Metadata"] = {"edge-origin:dns-name": "nlb-b-456.elb.us-east-1.amazonaws.com"}
    records = {
        f"Rec{i}": record(SetIdentifier=f"s{i}", Weight=1, AliasTarget={"DNSName": f"dualstack.{n}", "HostedZoneId": "Z", "EvaluateTargetHealth": True})
        for i, n in enumerate(("nlb-a-123.elb.us-east-1.amazonaws.com", "nlb-b-456.elb.us-east-1.amazonaws.com"))
    }
    m = model(body, **records)
    assert sorted(lb.resource.logical_id for lb in m.load_balancers_for_name(NAME)) == ["NlbA", "NlbB"]
    assert {f.resource for f in dns1(m) if f.severity is Severity.ERROR} == {"Rec0", "Rec1"}


def test_two_stacks_with_the_same_record_identity_are_both_reported() -> None:
    def stack() -> dict:
        body = base()
        for i in (0, 2):
            body["Resources"][f"Rec{i}"] = record(SetIdentifier=f"s{i}", Weight=1, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"})
            body["Resources"][f"Rec{i}"]["Properties"].pop("HostedZoneId")
            body["Resources"][f"Rec{i}"]["Properties"]["HostedZoneName"] = "example.com."
        return body

    from edge_origin.model import TemplateModel

    m = TemplateModel.from_templates({"A": stack(), "B": stack()})
    errors = {(f.stack, f.resource) for f in dns1(m) if f.severity is Severity.ERROR}
    assert errors == {("A", "Rec0"), ("A", "Rec2"), ("B", "Rec0"), ("B", "Rec2")}


def test_template_zones_map_back_to_the_views() -> None:
    from edge_origin.model.zones import value_key

    records = {f"Rec{i}": record(SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"}) for i in (0, 2)}
    m = model(base(), **records)
    assert [lb.resource.logical_id for lb in m.load_balancers_for_name(NAME)] == ["NlbA", "NlbB"]
    view = next(v for v in m.record_sets(NAME) if v.logical_id == "Rec0")
    assert m.zones.zone(view).label == "public zone example.com (S/Zone)"
    assert m.zones.policy(view) == "multivalue" and m.zones.record(view).key.set_id == "s0"
    assert value_key("O.Example.COM.") == "o.example.com" and value_key(view.values[0]) == "S/Eip0"


def test_a_cname_chain_answers_with_the_shortest_ttl() -> None:
    records = {
        "Front": record(rtype="CNAME", ResourceRecords=["pool.example.com"], TTL=300),
        "Pool": record("pool.example.com", AliasTarget=nlb_alias("NlbA")),
    }
    answers = model(base(), **records).zones.resolve(NAME).answers
    assert [(a.ttl, [h.via for h in a.chain]) for a in answers] == [(300, ["query", "cname"])]
    records["Pool"] = record("pool.example.com", ResourceRecords=[eip(0)], TTL=30)
    assert [a.ttl for a in model(base(), **records).zones.resolve(NAME).answers] == [30]


def test_a_literal_zone_id_without_a_name_takes_its_records_common_suffix() -> None:
    records = {
        f"Rec{i}": record(n, SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"})
        for i, n in ((0, NAME), (2, "other.example.com"))
    }
    for rec in records.values():
        rec["Properties"]["HostedZoneId"] = "Z0123456789"
    zones = model(base(), **records).zones
    assert [(z.id, z.name) for z in zones.zone_set.zones.values() if z.id == "Z0123456789"] == [("Z0123456789", "example.com")]
    assert zones.resolve(NAME).zone.id == "Z0123456789"


def test_dns1_a_record_decided_at_deploy_counts_as_more() -> None:
    body = base()
    body["Parameters"] = {"Flag": {"Type": "String"}}  # no default: undecidable
    body["Conditions"] = {"On": {"Fn::Equals": [{"Ref": "Flag"}, "on"]}}
    body["Resources"]["Rec0"] = record(SetIdentifier="s0", Weight=1, ResourceRecords=[eip(0)], HealthCheckId={"Ref": "Check0"})
    body["Resources"]["Rec2"] = {
        "Type": "AWS::Route53::RecordSet",
        "Properties": {"Fn::If": ["On", record(SetIdentifier="s2", Weight=1, ResourceRecords=[eip(2)])["Properties"], {"Ref": "AWS::NoValue"}]},
    }
    findings = dns1(model(body))
    # each branch of the undecidable condition is judged (issue 36): with On=true Rec2 piles up too
    assert [(f.resource, f.severity) for f in findings] == [("Rec0", Severity.ERROR), ("Rec2", Severity.ERROR)]
    assert "while the name has 1 (and records decided at deploy)" in findings[0].message
    assert findings[1].message.endswith("(only with condition On=true in stack S (decided at deploy))")
    del body["Resources"]["Rec2"]
    assert [f.severity for f in dns1(model(body))] == [Severity.WARNING]  # alone: a lone weighted record


def test_dns2_failover_alias_with_evaluate_target_health_is_its_health() -> None:
    pool = {f"Pool{i}": record("pool.example.com", SetIdentifier=f"p{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"}) for i in (0, 2)}
    primary = record(SetIdentifier="p", Failover="PRIMARY", AliasTarget={"DNSName": "pool.example.com", "HostedZoneId": "Z", "EvaluateTargetHealth": True})
    secondary = record(SetIdentifier="s", Failover="SECONDARY", ResourceRecords=[eip(1)], HealthCheckId={"Ref": "Check1"})
    assert dns2(model(base(), Primary=primary, Secondary=secondary, **pool)) == []
    primary["Properties"]["AliasTarget"]["EvaluateTargetHealth"] = False
    findings = dns2(model(base(), Primary=primary, Secondary=secondary, **pool))
    assert [f.resource for f in findings] == ["Primary"] and "no HealthCheckId" in findings[0].message


def test_dns3_a_load_balancer_without_known_addresses_is_one_origin() -> None:
    body = base()
    body["Resources"]["NlbA"]["Properties"].pop("SubnetMappings")
    findings = dns3(model(body, Rec0=record(AliasTarget=nlb_alias("NlbA"))))
    assert [f.message for f in findings] == ["gRPC origin o.example.com (public zone example.com (S/Zone)) has 1 origin IP(s): one NLB takes every connection"]


def test_dns_rules_survive_a_cname_loop_of_the_origin() -> None:
    records = {
        "Rec0": record(rtype="CNAME", ResourceRecords=["loop.example.com"]),
        "Loop": record("loop.example.com", rtype="CNAME", ResourceRecords=[NAME]),
    }
    m = model(base(), **records)
    assert m.zones.resolve(NAME).problems
    assert [f.rule for f in run_rules(m, [get_rule("EO-DNS1"), get_rule("EO-DNS2"), get_rule("EO-DNS3"), get_rule("EO-NLB2")])] == []
