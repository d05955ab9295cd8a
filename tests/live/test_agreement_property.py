"""Generated accounts: any mix of routing policies, health-check flags and a public and a private
zone of one name (reusing set identifiers) gives the same findings from moto (``audit``) as from
the equivalent template (``check``).

moto stands in for Route 53 here for the policies it keeps (simple, weighted, multivalue,
failover, latency, geolocation); geoproximity and CIDR, which it drops, are in
``test_agreement.py`` on Stubber responses.
"""

from __future__ import annotations

import itertools
from typing import Any

import accounts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_agreement import identity

from edge_origin.live.audit import audit
from edge_origin.model import TemplateModel
from edge_origin.rules import run_rules

COUNTER = itertools.count()
REGIONS = ("us-east-1", "eu-west-1", "ap-southeast-1", "us-west-2")
PLACES = ({"CountryCode": "*"}, {"CountryCode": "US"}, {"ContinentCode": "EU"}, {"CountryCode": "JP"})

check_flags = st.one_of(st.none(), st.fixed_dictionaries({"Disabled": st.booleans(), "Inverted": st.booleans()}))
record_set = st.fixed_dictionaries({"values": st.integers(1, 3), "check": check_flags})
zone_spec = st.fixed_dictionaries({
    "policy": st.sampled_from(["simple", "weighted", "multivalue", "failover", "latency", "geolocation"]),
    "sets": st.lists(record_set, min_size=1, max_size=4),
})


def _records(name: str, zone_n: int, spec: dict[str, Any], check_of: Any) -> list[dict[str, Any]]:
    policy, sets = spec["policy"], spec["sets"]
    if policy == "simple":
        sets = sets[:1]
    if policy == "failover":
        sets = sets[:2]
    out = []
    for i, s in enumerate(sets):
        values = [{"Value": f"192.0.2.{zone_n * 40 + i * 4 + v + 1}"} for v in range(s["values"])]
        record: dict[str, Any] = {"Name": name, "Type": "A", "TTL": 60, "ResourceRecords": values}
        if policy != "simple":
            record["SetIdentifier"] = f"s{i}"  # reused by every zone of the name
        if policy in ("weighted", "failover", "latency", "geolocation"):
            record["ResourceRecords"] = values[:1]  # one value a set, as the API reference documents
        if policy == "weighted":
            record["Weight"] = 10
        elif policy == "multivalue":
            record["MultiValueAnswer"] = True
        elif policy == "failover":
            record["Failover"] = ("PRIMARY", "SECONDARY")[i]
        elif policy == "latency":
            record["Region"] = REGIONS[i]
        elif policy == "geolocation":
            record["GeoLocation"] = PLACES[i]
        if s["check"] is not None and policy != "simple":
            record["HealthCheckId"] = check_of(record["ResourceRecords"][0]["Value"], s["check"])
        out.append(record)
    return out


@settings(max_examples=12, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(public=zone_spec, private=st.one_of(st.none(), zone_spec))
def test_audit_and_check_agree_on_generated_accounts(moto_session: Any, public: dict[str, Any], private: dict[str, Any] | None) -> None:
    zone_name = f"g{next(COUNTER)}.example.org"
    name = f"o.{zone_name}"
    built = accounts.Built()
    vpc_id = moto_session.client("ec2").create_vpc(CidrBlock="10.3.0.0/16")["Vpc"]["VpcId"]

    def check_of(ip: str, flags: dict[str, bool]) -> str:
        return accounts.health_check(moto_session, built, ip, **flags)

    for n, spec in enumerate([public, private]):
        if spec is None:
            continue
        zid = accounts.zone(moto_session, built, zone_name, vpc_id=vpc_id if n else None)
        accounts.change(moto_session, zid, _records(name, n, spec, check_of), built)
    accounts.fill_moto_gaps(moto_session, built)
    live = audit(moto_session, names=[name], grpc_origins=[name])
    by_live_id = {live_id: lid for lid, (_, live_id) in live.account.ids.items()}
    live_found = {(f.rule, f.severity.value, identity(live.model, live.model.resource("Live", by_live_id[f.resource]))) for f in live.findings}

    template = accounts.equivalent_template(built)
    for res in template["Resources"].values():
        if res["Type"] == "AWS::Route53::RecordSet":
            res["Metadata"] = {"edge-origin:grpc-origin": True}
    model = TemplateModel.from_templates({"Plan": template})
    # the template holds the checks of this example only; the account read holds those the records use
    template_found = {(f.rule, f.severity.value, identity(model, model.resource(f.stack, f.resource))) for f in run_rules(model)}
    assert live_found == template_found
    one_set_answers = ("weighted", "failover", "latency", "geolocation")
    if public["policy"] in one_set_answers and len(public["sets"]) >= 2:
        # each answer one record set of one address while the name has more: the pile-up, in the public zone
        assert any(rule == "EO-DNS1" and f"{zone_name} public" in where for rule, _, where in live_found), live_found
