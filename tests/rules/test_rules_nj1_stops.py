"""EO-NJ1 where the answer model gives up on an origin name: an alias/CNAME loop, a chain longer than
MAX_CHAIN hops, CALCULATED health checks nested deeper than MAX_DEPTH levels. Before, each of these
resolved to no answers (or to a check counted healthy) and the check said "no findings", exit 0.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.answers import HealthCheck, HealthState, check_healthy
from edge_origin.answers.health import MAX_DEPTH, nested_too_deep
from edge_origin.answers.types import MAX_CHAIN
from edge_origin.core.findings import Finding, Severity
from edge_origin.rules import get_rule, run_rules
from tests.answers.answer_templates import NAME, base, eip, model, record

RULE = get_rule("EO-NJ1")


def _alias_to(name: str, target: str, **props: Any) -> dict[str, Any]:
    return record(name, AliasTarget={"DNSName": target, "HostedZoneId": {"Ref": "Zone"}, "EvaluateTargetHealth": False}, **props)


def _chain(hops: int) -> dict[str, dict[str, Any]]:
    """o.example.com -> h1 -> ... -> h<hops> (alias records), h<hops> holding two multivalue addresses."""
    names = [NAME] + [f"h{i}.example.com" for i in range(1, hops + 1)]
    records = {f"C{i}": _alias_to(names[i], names[i + 1]) for i in range(hops)}
    for n in (0, 1):
        records[f"Leaf{n}"] = record(names[-1], SetIdentifier=f"m{n}", MultiValueAnswer=True, ResourceRecords=[eip(n)],
                                     HealthCheckId={"Ref": f"Check{n}"})
    return records


def _nj1(records: dict[str, dict[str, Any]]) -> list[Finding]:
    return list(RULE.check(model(base(), **records)))


def test_an_alias_loop_on_a_grpc_origin_is_not_judged_whole():
    found = _nj1({"L1": _alias_to(NAME, "a.example.com"), "L2": _alias_to("a.example.com", "b.example.com"),
                  "L3": _alias_to("b.example.com", NAME)})
    assert found == [Finding(
        "EO-NJ1", Severity.WARNING,
        "not judged: gRPC origin o.example.com in zone example.com (loop): alias/CNAME loop: o.example.com -> "
        "a.example.com -> b.example.com -> o.example.com (the answer model stops there; the answers for o.example.com "
        "are not judged)",
        "To let edge-origin judge it: break the loop: each alias or CNAME must lead to addresses or a load balancer",
        "S.template.json", "S", "L1")]


def test_a_chain_one_hop_too_long_is_not_judged_and_one_within_is_judged():
    too_long = _nj1(_chain(MAX_CHAIN))
    assert len(too_long) == 1
    assert too_long[0].message.startswith(
        "not judged: gRPC origin o.example.com in zone example.com (chain too long): chain longer than 8 hops: "
        "o.example.com -> h1.example.com -> ")
    assert too_long[0].fix == "To let edge-origin judge it: point the name at most 8 alias/CNAME hops from its addresses"
    assert (too_long[0].severity, too_long[0].resource) == (Severity.WARNING, "C0")
    assert _nj1(_chain(MAX_CHAIN - 1)) == []
    # the whole check: the too-long chain is no longer "no findings"
    assert any(f.rule == "EO-NJ1" for f in run_rules(model(base(), **_chain(MAX_CHAIN))))
    assert [f for f in run_rules(model(base(), **_chain(MAX_CHAIN - 1))) if f.rule == "EO-NJ1"] == []


@settings(max_examples=12, deadline=None)
@given(st.integers(min_value=1, max_value=MAX_CHAIN + 3))
def test_a_chain_is_judged_exactly_while_the_model_follows_it(hops: int):
    found = _nj1(_chain(hops))
    assert (found != []) == (hops >= MAX_CHAIN)
    assert all("(chain too long)" in f.message for f in found)


def _calculated(levels: int) -> dict[str, dict[str, Any]]:
    """Calc0 -> Calc1 -> ... -> Calc<levels-1> -> Check0 (an endpoint check), on the record of EIP 0."""
    out: dict[str, dict[str, Any]] = {}
    for i in range(levels):
        child = {"Ref": f"Calc{i + 1}"} if i + 1 < levels else {"Ref": "Check0"}
        out[f"Calc{i}"] = {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {
            "Type": "CALCULATED", "ChildHealthChecks": [child], "HealthThreshold": 1}}}
    return out


def _records_on(check: str) -> dict[str, dict[str, Any]]:
    return {f"Rec{n}": record(SetIdentifier=f"m{n}", MultiValueAnswer=True, ResourceRecords=[eip(n)],
                              HealthCheckId={"Ref": check if n == 0 else f"Check{n}"}) for n in (0, 1)}


def test_calculated_checks_nested_too_deep_are_not_judged_and_within_the_bound_are():
    # Calc0 at depth 0 ... Check0 (the endpoint) at depth `levels`: evaluated while levels <= MAX_DEPTH
    too_deep = _nj1({**_calculated(MAX_DEPTH + 1), **_records_on("Calc0")})
    assert len(too_deep) == 1
    assert too_deep[0].message.startswith("not judged: gRPC origin o.example.com in zone example.com (health checks nested "
                                          "too deep): o.example.com A: health check ")
    assert "nests CALCULATED checks deeper than 16 levels: its status is not judged" in too_deep[0].message
    assert too_deep[0].fix.endswith("nest CALCULATED health checks at most 16 levels deep (or judge that check by hand "
                                    "and acknowledge)")
    assert _nj1({**_calculated(MAX_DEPTH), **_records_on("Calc0")}) == []


def _nested(levels: int) -> dict[str, HealthCheck]:
    checks = {f"c{i}": HealthCheck(f"c{i}", type="CALCULATED", children=(f"c{i + 1}",), health_threshold=1) for i in range(levels)}
    checks[f"c{levels}"] = HealthCheck(f"c{levels}", ip_address="192.0.2.1")
    return checks


def _reference(check_id: str, checks: dict[str, HealthCheck], state: HealthState) -> bool:
    """Route 53's status without any depth bound (the trees here have no cycle)."""
    check = checks.get(check_id)
    if check is None or check.disabled:
        return True
    if check.type == "CALCULATED":
        healthy = sum(_reference(c, checks, state) for c in check.children)
        threshold = check.health_threshold if check.health_threshold is not None else len(check.children)
        raw = healthy >= threshold
    else:
        raw = check.ip_address not in state.down_addresses
    return not raw if check.inverted else raw


@st.composite
def _trees(draw) -> tuple[dict[str, HealthCheck], frozenset[str]]:
    """Random CALCULATED trees (children only to higher numbers: no cycle), endpoint leaves up or down."""
    size = draw(st.integers(min_value=1, max_value=MAX_DEPTH + 6))
    checks: dict[str, HealthCheck] = {}
    down = set()
    for i in reversed(range(size)):
        later = [f"c{j}" for j in range(i + 1, size)]
        if later and draw(st.booleans()):
            children = tuple(draw(st.lists(st.sampled_from(later), min_size=1, max_size=3, unique=True)))
            checks[f"c{i}"] = HealthCheck(f"c{i}", type="CALCULATED", children=children,
                                          health_threshold=draw(st.integers(0, len(children) + 1)),
                                          inverted=draw(st.booleans()), disabled=draw(st.booleans()))
        else:
            checks[f"c{i}"] = HealthCheck(f"c{i}", ip_address=f"192.0.2.{i}", inverted=draw(st.booleans()))
            if draw(st.booleans()):
                down.add(f"192.0.2.{i}")
    return checks, frozenset(down)


@settings(max_examples=60, deadline=None)
@given(_trees())
def test_where_nesting_is_not_too_deep_the_bounded_status_is_route_53s(tree):
    checks, down = tree
    state = HealthState(down_addresses=down)
    if not nested_too_deep("c0", checks):
        assert check_healthy("c0", checks, state) == _reference("c0", checks, state)


def test_nesting_is_too_deep_exactly_past_the_bound():
    assert [nested_too_deep("c0", _nested(n)) for n in (MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1)] == [False, False, True]
    down = HealthState(down_addresses=frozenset({"192.0.2.1"}))
    assert check_healthy("c0", _nested(MAX_DEPTH + 1), down) is True  # what the model would have said: "healthy"
    loop = {"a": HealthCheck("a", type="CALCULATED", children=("b",)), "b": HealthCheck("b", type="CALCULATED", children=("a",))}
    assert nested_too_deep("a", loop) is True
    disabled = {**_nested(MAX_DEPTH + 1), "c0": HealthCheck("c0", type="CALCULATED", children=("c1",), disabled=True)}
    assert nested_too_deep("c0", disabled) is False  # disabled: always healthy, children not read
    assert nested_too_deep("missing", {}) is False


def test_each_kind_of_stop_is_named_once_even_after_a_second_way_into_a_loop():
    """o has three weighted aliases: two run into one loop (one finding), the third reaches a record whose CALCULATED
    check nests too deep (its own finding, met after the loop's second way)."""
    records = {f"W{s}": _alias_to(NAME, f"{s}.example.com", SetIdentifier=s, Weight=1) for s in ("a", "b", "c")}
    records.update(La=_alias_to("a.example.com", NAME), Lb=_alias_to("b.example.com", NAME))
    records.update(_calculated(MAX_DEPTH + 1))
    records["Deep"] = record("c.example.com", SetIdentifier="m0", MultiValueAnswer=True, ResourceRecords=[eip(0)],
                             HealthCheckId={"Ref": "Calc0"})
    kinds = [f.message.split(" (")[1].split(")")[0] for f in _nj1(records)]
    assert sorted(kinds) == ["health checks nested too deep", "loop"]


def test_a_stop_carries_the_cdk_path_of_the_origin_names_record():
    records = _chain(MAX_CHAIN)
    records["C0"] = {**records["C0"], "Metadata": {"aws:cdk:path": "S/Api/Resource"}}
    assert [(f.resource, f.path) for f in _nj1(records)] == [("C0", "S/Api/Resource")]
