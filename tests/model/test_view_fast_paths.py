"""The views' fast paths read what the typed accessors read (issue 53: check at the speed of reading JSON).

``ingress_rule`` and ``Props.key_values`` take a shortcut for the common all-literal shape; for any
value (literals of every JSON type, deploy-time references, nulls, missing keys, wrong shapes) they
return what ``read_ingress_rule`` / ``Props.read_key_values`` return, or raise the same error.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from edge_origin.model import ModelError, Props, ResourceRef, Unresolved
from edge_origin.model.read_elb import ingress_rule, read_ingress_rule
from edge_origin.model.views import Resource

RES = Resource("S", "t.json", "Sg", "AWS::EC2::SecurityGroup", {}, {})
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 70000), st.floats(allow_nan=False, width=32),
                    st.sampled_from(["tcp", "TCP", "-1", "6", "443", " 80 ", "10.0.0.0/8", "pl-1", "sg-1", ""]),
                    st.just(ResourceRef("S", "X", None)), st.just(Unresolved("parameter", "P")),
                    st.just([]), st.just({}))
KEYS = ("IpProtocol", "FromPort", "ToPort", "CidrIp", "CidrIpv6", "SourcePrefixListId", "SourceSecurityGroupId")


def outcome(fn: Any, *args: Any) -> Any:
    """("ok", the fields of what ``fn`` returns) or ("error", its message)."""
    try:
        got = fn(*args)
    except ModelError as exc:
        return "error", str(exc)
    return "ok", got if isinstance(got, dict) else vars(got)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS), SCALARS))
def test_ingress_rule_reads_as_the_accessors(rule: dict[str, Any]) -> None:
    props = Props(rule, RES, "Properties.SecurityGroupIngress[0]")
    assert outcome(ingress_rule, RES, props) == outcome(read_ingress_rule, RES, props)


def test_the_literal_permission_takes_the_shortcut_and_reads_the_same() -> None:
    rule = {"IpProtocol": "TCP", "FromPort": 443, "ToPort": 443, "CidrIp": "15.177.0.0/18", "Description": "x"}
    props = Props(rule, RES)
    fast = ingress_rule(RES, props)
    assert vars(fast) == vars(read_ingress_rule(RES, props))
    assert (fast.protocol, fast.from_port, fast.to_port, fast.cidr_ip, fast.unknown) == ("tcp", 443, 443, "15.177.0.0/18", False)


ENTRIES = st.one_of(st.fixed_dictionaries({}, optional={"Key": SCALARS, "Value": SCALARS}), SCALARS)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(ENTRIES, max_size=4), SCALARS), st.booleans())
def test_key_values_reads_as_the_accessors(items: Any, unknown: bool) -> None:
    props = Props({"Attributes": items}, RES)
    if unknown:
        props = Props(Unresolved("condition", "Fn::If"), RES)
        props._data = {"Attributes": items}
    assert outcome(props.key_values, "Attributes") == outcome(props.read_key_values, "Attributes")


def test_an_error_names_the_whole_path() -> None:
    props = Props({"Listeners": [{"Port": 1}, {"Port": [1]}]}, RES)
    try:
        props.mappings("Listeners")[1].int("Port")
    except ModelError as exc:
        assert "Properties.Listeners[1].Port is a list" in str(exc)
    else:
        raise AssertionError("a list as a port was read")


def _groups_read_one_by_one(model: Any) -> list[Any]:
    """security_group_views' inline permissions as they were read: p.mappings, then ingress_rule each."""
    from edge_origin.model.read_elb import SECURITY_GROUP
    from edge_origin.model.views import props_of

    out = []
    for res in model.of_type(SECURITY_GROUP):
        p = props_of(res)
        out.append((p.list_unknown("SecurityGroupIngress"),
                    [vars(ingress_rule(res, rule)) for rule in p.mappings("SecurityGroupIngress")]))
    return out


INGRESS_LISTS = st.one_of(st.lists(st.one_of(st.dictionaries(st.sampled_from(KEYS), SCALARS), SCALARS), max_size=4), SCALARS)


LITERAL = {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": "10.0.0.0/8"}


@settings(max_examples=50, deadline=None)
@given(INGRESS_LISTS)
@example([LITERAL, {**LITERAL, "FromPort": "80"}, {**LITERAL, "ToPort": [443]}])  # the error names the index
def test_inline_permissions_read_as_one_by_one(ingress: Any) -> None:
    """A group's inline SecurityGroupIngress, any shape: the views hold what ingress_rule reads of each
    mapping, ingress_unknown as list_unknown says, or the same error."""
    from edge_origin.model import TemplateModel
    from edge_origin.model.read_elb import security_group_views

    model = TemplateModel.from_templates({"S": {"Resources": {"Sg": {
        "Type": "AWS::EC2::SecurityGroup", "Properties": {"GroupDescription": "d", "SecurityGroupIngress": []}}}}})
    res = model.resource("S", "Sg")
    assert res is not None
    res._properties, res._settle = {"GroupDescription": "d", "SecurityGroupIngress": ingress}, None

    def fast() -> Any:
        return [(g.ingress_unknown, [vars(rule) for rule in g.ingress]) for g in security_group_views(model)]

    def read(fn: Any) -> Any:
        try:
            return "ok", fn()
        except ModelError as exc:
            return "error", str(exc)

    assert read(fast) == read(lambda: _groups_read_one_by_one(model))


def test_record_views_are_made_by_position_in_the_class_order() -> None:
    from dataclasses import fields

    from edge_origin.model.read_route53 import RECORD_SET_VIEW_FIELDS
    from edge_origin.model.views import RecordSetView

    assert tuple(f.name for f in fields(RecordSetView)) == RECORD_SET_VIEW_FIELDS


MAPPING_VALUES = st.one_of(SCALARS, st.just(ResourceRef("S", "Eip", "AllocationId")), st.just(ResourceRef("S", "Sn", None)))
MAPPINGS = st.one_of(st.lists(st.one_of(st.dictionaries(st.sampled_from(("AllocationId", "SubnetId", "PrivateIPv4Address")),
                                                        MAPPING_VALUES), SCALARS), max_size=3), SCALARS)


@settings(max_examples=50, deadline=None)
@given(MAPPINGS, st.one_of(st.none(), st.dictionaries(st.just("CapacityUnits"), SCALARS), SCALARS))
@example([{"AllocationId": ResourceRef("S", "Eip", "AllocationId"), "SubnetId": ResourceRef("S", "Sn", None)},
          {"SubnetId": 7}, {"SubnetId": [1]}], None)  # a number read as its text; the error names the index
def test_load_balancer_reads_its_mappings_as_one_by_one(mappings: Any, capacity: Any) -> None:
    """SubnetMappings and MinimumLoadBalancerCapacity, any shape: the view holds what the typed accessors
    read of each mapping (its EIP and its subnet's zone) and of the capacity, or the same error."""
    from edge_origin.model import TemplateModel
    from edge_origin.model.read_elb import LOAD_BALANCER, elb_views
    from edge_origin.model.views import props_of

    model = TemplateModel.from_templates({"S": {"Resources": {
        "Nlb": {"Type": LOAD_BALANCER, "Properties": {"Type": "network"}},
        "Eip": {"Type": "AWS::EC2::EIP"},
        "Sn": {"Type": "AWS::EC2::Subnet", "Properties": {"AvailabilityZone": "us-east-1a"}}}}})
    res = model.resource("S", "Nlb")
    assert res is not None
    res._properties, res._settle = {"Type": "network", "SubnetMappings": mappings, "MinimumLoadBalancerCapacity": capacity}, None

    def fast() -> Any:
        lb = elb_views(model)[0][0]
        return ([(m.subnet, m.allocation, m.eip and m.eip.resource.logical_id, m.zone) for m in lb.subnet_mappings],
                lb.capacity_units, lb.capacity_unknown)

    def one_by_one() -> Any:
        p = props_of(res)
        read = []
        for m in p.mappings("SubnetMappings"):
            alloc, subnet = m.str("AllocationId"), m.str("SubnetId")
            read.append((subnet, alloc, "Eip" if alloc == ResourceRef("S", "Eip", "AllocationId") else None,
                         "us-east-1a" if subnet == ResourceRef("S", "Sn", None) else None))
        units = p.mapping("MinimumLoadBalancerCapacity").int("CapacityUnits")
        return read, units, p.has("MinimumLoadBalancerCapacity") and units is None

    def read(fn: Any) -> Any:
        try:
            return "ok", fn()
        except ModelError as exc:
            return "error", str(exc)

    assert read(fast) == read(one_by_one)


@settings(max_examples=50, deadline=None)
@given(st.one_of(st.lists(SCALARS, max_size=4), SCALARS))
def test_behavior_methods_read_as_the_accessors(methods: Any) -> None:
    """AllowedMethods, any shape: what the behavior view holds (upper-cased texts, whether one is decided
    at deploy time) is what display_value and deploy_time say of each item, or the same error."""
    from edge_origin.model.read_cloudfront import behavior_view
    from edge_origin.model.values import deploy_time, display_value

    b = Props({"TargetOriginId": "o", "AllowedMethods": methods}, RES, "Properties.DefaultCacheBehavior")

    def fast() -> Any:
        view = behavior_view(b, None, {}, {})
        return view.allowed_methods, view.methods_unknown

    def one_by_one() -> Any:
        items = b.strs("AllowedMethods") if b.has("AllowedMethods") else None
        return ([display_value(m).upper() for m in items] if items is not None else None,
                deploy_time(b.raw("AllowedMethods")) or any(deploy_time(m) for m in (items or ())))

    def read(fn: Any) -> Any:
        try:
            return "ok", fn()
        except ModelError as exc:
            return "error", str(exc)

    assert read(fast) == read(one_by_one)


ACTIONS = st.lists(st.fixed_dictionaries({}, optional={
    "TargetGroupArn": SCALARS,
    "ForwardConfig": st.one_of(SCALARS, st.fixed_dictionaries({}, optional={
        "TargetGroups": st.one_of(SCALARS, st.lists(st.dictionaries(st.just("TargetGroupArn"), SCALARS), max_size=2))}))}),
    max_size=3)


@settings(max_examples=50, deadline=None)
@given(ACTIONS)
def test_listener_target_groups_read_as_the_accessors(actions: Any) -> None:
    """DefaultActions, any ForwardConfig (absent, null, a mapping, a wrong shape): the listener's target group
    references are what the accessors read, or the same error."""
    from edge_origin.model.read_elb import _listener

    res = Resource("S", "t.json", "L", "AWS::ElasticLoadBalancingV2::Listener", {"DefaultActions": actions}, {})

    def one_by_one() -> Any:
        refs = []
        for action in Props(res.properties, res).mappings("DefaultActions"):
            if action.has("TargetGroupArn"):
                refs.append(action.str("TargetGroupArn"))
            for tg in action.mapping("ForwardConfig").mappings("TargetGroups"):
                if tg.has("TargetGroupArn"):
                    refs.append(tg.str("TargetGroupArn"))
        return refs

    def read(fn: Any) -> Any:
        try:
            return "ok", fn()
        except ModelError as exc:
            return "error", str(exc)

    assert read(lambda: _listener(res, {}, {}).target_group_refs) == read(one_by_one)


@settings(max_examples=50, deadline=None)
@given(st.one_of(st.text(max_size=30), st.sampled_from(["O.Example.COM.", " o.example.com ", "a\\046b.example", "", " ", "."])))
def test_normalize_name_is_canonical_name_asked_once_or_again(name: str) -> None:
    """normalize_name keeps each spelling's canonical_name (bounded): the same answer the first time and after."""
    from edge_origin.core.dns_names import canonical_name
    from edge_origin.model import values

    expected = canonical_name(name) or None
    assert values.normalize_name(name) == expected
    assert values.normalize_name(name) == expected
    assert values.normalize_name(None) is None and values.normalize_name(3) is None
    assert len(values._CANONICAL) <= 65536
