"""One implementation: over generated zone sets, the answers the rules judge (the answer model
read from the template) and the answers the loopback DNS server sends (the rehearsal plan read
from the same template) agree: every measured answer is one the model lists, with its size,
and every listed answer is measured."""

from __future__ import annotations

import random

import dns.message
import dns.query
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.model import TemplateModel
from edge_origin.rehearsal.dns_server import AuthoritativeServer, DnsLoop, bind_dns_sockets, message_responder
from edge_origin.rehearsal.from_model import plan_from_model

pytestmark = pytest.mark.slow
NAME = "o.example.com"
QUERIES = 60


def _template(policy: str, sets: list[tuple[int, list[int]]]) -> dict:
    resources = {}
    for i, (weight, values) in enumerate(sets):
        props = {"HostedZoneName": "example.com.", "Name": NAME, "Type": "A", "TTL": 60, "ResourceRecords": [f"192.0.2.{v}" for v in values]}
        if policy != "simple":
            props["SetIdentifier"] = f"s{i}"
        if policy == "weighted":
            props["Weight"] = weight
        if policy == "multivalue":
            props["MultiValueAnswer"] = True
        resources[f"Rec{i}"] = {"Type": "AWS::Route53::RecordSet", "Metadata": {"edge-origin:grpc-origin": True}, "Properties": props}
    return {"Resources": resources}


zone_sets = st.one_of(
    st.tuples(st.just("simple"), st.lists(st.tuples(st.just(0), st.lists(st.integers(1, 12), min_size=1, max_size=4, unique=True)), min_size=1, max_size=1)),
    st.tuples(st.just("weighted"), st.lists(st.tuples(st.integers(0, 3), st.lists(st.integers(1, 12), min_size=1, max_size=1)), min_size=1, max_size=4)),
    st.tuples(st.just("multivalue"), st.lists(st.tuples(st.just(0), st.lists(st.integers(1, 12), min_size=1, max_size=1)), min_size=1, max_size=11)),
)


@settings(database=None, max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(zone_set=zone_sets, seed=st.integers(0, 2**16))
def test_model_and_loopback_dns_server_agree(zone_set: tuple[str, list[tuple[int, list[int]]]], seed: int) -> None:
    policy, sets = zone_set
    if policy == "multivalue":
        sets = [(w, [i + 1]) for i, (w, _) in enumerate(sets)]  # one address per record, distinct
    model = TemplateModel.from_templates({"S": _template(policy, sets)})
    resolution = model.zones.resolve(NAME)
    listed = {frozenset(a.addresses): a for a in resolution.answers}
    plan = plan_from_model(model, NAME)
    addresses = {o.key: o.key.replace("192.0.2.", "127.0.30.") for o in plan.origins}
    server = AuthoritativeServer(plan, addresses, lambda _key: True, rng=random.Random(seed))
    loop = DnsLoop("auth")
    udp, tcp = bind_dns_sockets("127.0.0.1", 0)
    port = udp.getsockname()[1]
    loop.add(udp, tcp, message_responder(server.respond))
    loop.start()
    measured: list[frozenset[str]] = []
    try:
        for _ in range(QUERIES):
            response = dns.query.udp(dns.message.make_query(NAME, "A"), "127.0.0.1", port=port, timeout=2)
            ips = [rd.address.replace("127.0.30.", "192.0.2.") for rrset in response.answer for rd in rrset]
            measured.append(frozenset(ips))
    finally:
        loop.stop()
    assert len(measured) == QUERIES and listed  # every query answered; the loops below check something
    for answer in measured:
        if answer in listed:
            assert len(answer) == listed[answer].size
            continue
        pools = [a for a in resolution.answers if a.pick is not None and answer <= set(a.addresses)]
        assert pools and len(answer) == pools[0].pick, (answer, resolution.answers)
    for addresses, answer in listed.items():
        if answer.pick is None and answer.probability >= 0.2:
            assert addresses in measured, (addresses, answer.probability, measured)
