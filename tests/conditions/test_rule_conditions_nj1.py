"""EO-NJ1: the whole finding a user reads (subject, element, reason and what would let edge-origin judge
it) for each kind of name not judged, and the names on an origin's path that reach it (mutmut survivors,
issue 38). Templates are the quiet world edited as dicts."""

from __future__ import annotations

import copy
from typing import Any

from worlds import behavior, dist_config, findings, origin, world

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import LoadedTemplate
from edge_origin.model.values import ResourceRef
from edge_origin.rules.nj1_unread_names import NEEDS, _verdict

FIX = "To let edge-origin judge it: "


def _record(name: str, **props: Any) -> dict[str, Any]:
    return {"Type": "AWS::Route53::RecordSet", "Properties": {"HostedZoneName": "example.com.", "Name": name, "Type": "A", **props}}


def _cname(name: str, value: str) -> dict[str, Any]:
    return _record(name, Type="CNAME", TTL=60, ResourceRecords=[value])


def _seen(body: dict[str, Any]) -> list[tuple[str, str, Severity, str, str]]:
    return [(f.rule, f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-NJ1")]


def test_nj1_an_origin_domain_joined_around_a_parameter_the_whole_finding() -> None:
    body = world()
    body["Parameters"] = {"Dom": {"Type": "String"}}
    origin(body)["DomainName"] = {"Fn::Join": ["", ["a.", {"Ref": "Dom"}, ".example.com"]]}
    assert _seen(body) == [(
        "EO-NJ1", "Dist", Severity.WARNING,
        "not judged: Dist gRPC origin o DomainName (expression): <a.${<Ref Dom>}.example.com> (an Fn::Join/Fn::Sub "
        "edge-origin cannot reduce to one name; what CloudFront's connections reach is not judged)",
        FIX + NEEDS["expression"],
    )]


def test_nj1_an_origin_domain_of_a_global_accelerator_the_whole_finding() -> None:
    body = world()
    origin(body)["DomainName"] = "a1234567890abcdef.awsglobalaccelerator.com"
    assert _seen(body) == [(
        "EO-NJ1", "Dist", Severity.WARNING,
        "not judged: Dist gRPC origin o DomainName (Global Accelerator): a1234567890abcdef.awsglobalaccelerator.com "
        "(edge-origin does not model what this Global Accelerator answers; what CloudFront's connections reach is not judged)",
        FIX + NEEDS["endpoint"],
    )]


def test_nj1_an_alias_to_a_classic_load_balancer_of_the_template_the_whole_finding() -> None:
    body = world()
    body["Resources"]["Clb"] = {"Type": "AWS::ElasticLoadBalancing::LoadBalancer", "Properties": {}}
    body["Resources"]["Al"] = _record("o.example.com", SetIdentifier="C", MultiValueAnswer=True,
                                      AliasTarget={"DNSName": {"Fn::GetAtt": ["Clb", "DNSName"]}, "HostedZoneId": "Z1"})
    assert _seen(body) == [(
        "EO-NJ1", "Al", Severity.WARNING,
        "not judged: Al: alias target of o.example.com A (SetIdentifier C; Classic Load Balancer): S/Clb.DNSName "
        "(edge-origin does not model what this Classic Load Balancer answers; the answers for o.example.com are not judged)",
        FIX + NEEDS["endpoint"],
    )]


def test_nj1_a_reference_to_a_resource_the_templates_lack_needs_its_stack() -> None:
    model = TemplateModel([LoadedTemplate("S", "t.json", world())])
    assert _verdict(model, ResourceRef("Other", "Nlb", "DNSName")) == (
        "resource not in these templates", "Other/Nlb.DNSName is not a resource of the given templates", NEEDS["name"])


def _path() -> dict[str, Any]:
    """o -> weighted aliases to a and b; a -> CNAME b; b -> CNAME c; c -> CNAME d.example.org (held nowhere)."""
    body = world()
    for logical_id in ("RecordA", "RecordB", "CheckA", "CheckB"):
        del body["Resources"][logical_id]
    for set_id in ("a", "b"):
        body["Resources"][f"Weighted{set_id}"] = _record(
            "o.example.com", SetIdentifier=set_id, Weight=1, AliasTarget={"DNSName": f"{set_id}.example.com", "HostedZoneId": "Z1"})
    body["Resources"].update(A=_cname("a.example.com", "b.example.com"), B=_cname("b.example.com", "c.example.com"),
                             C=_cname("c.example.com", "d.example.org"))
    return body


C_FINDING = (
    "EO-NJ1", "C", Severity.WARNING,
    "not judged: C: CNAME value of c.example.com CNAME (SetIdentifier -; a name no given template holds): d.example.org "
    "(no record set of d.example.org is in the given templates; the answers for c.example.com are not judged)",
    FIX + NEEDS["name"],
)


def test_nj1_a_name_met_again_on_the_path_does_not_stop_the_walk() -> None:
    # the third hop meets b again (through a) before c: c's record is still named
    assert _seen(_path()) == [C_FINDING]


def test_nj1_names_off_every_origin_path_are_not_named() -> None:
    body = world()
    body["Resources"].update(U=_cname("u.example.com", "v.example.com"), V=_cname("v.example.com", "w.example.org"))
    assert _seen(body) == []  # v's CNAME leaves the templates, but no origin's path reaches u or v


def test_nj1_a_vpc_origin_and_a_judged_origin_before_it_do_not_end_the_check_of_the_next() -> None:
    body = world()
    body["Resources"]["Dist"]["Metadata"] = {"aws:cdk:path": "S/Dist/Resource"}
    cfg = dist_config(body)
    first, last = copy.deepcopy(origin(body)), copy.deepcopy(origin(body))
    first.pop("CustomOriginConfig")
    first.update(Id="v", DomainName="v.example.com", VpcOriginConfig={"VpcOriginId": "vo-1"})
    last.update(Id="g", DomainName="a1234567890abcdef.awsglobalaccelerator.com")
    cfg["Origins"] = [first, origin(body), last]  # a VPC origin, the judged o, then one not judged
    cfg["CacheBehaviors"] = [{**behavior(body), "PathPattern": f"/{o}/*", "TargetOriginId": o} for o in ("v", "g")]
    found = findings(body, "EO-NJ1")
    assert [(f.template, f.stack, f.resource, f.path, f.message.split(":")[1]) for f in found] == [
        ("t.json", "S", "Dist", "S/Dist/Resource", " Dist gRPC origin g DomainName (Global Accelerator)")]


def test_nj1_a_cname_of_two_values_names_the_one_not_judged_after_a_judged_one() -> None:
    body = _path()
    body["Resources"]["C"]["Properties"]["ResourceRecords"] = ["b.example.com", "d.example.org"]
    # the answer model follows a CNAME's first value: c -> b is a loop (one finding for both ways into it)
    loop = (
        "EO-NJ1", "Weighteda", Severity.WARNING,
        "not judged: gRPC origin o.example.com in zone example.com (loop): alias/CNAME loop: o.example.com -> a.example.com "
        "-> b.example.com -> c.example.com -> b.example.com (the answer model stops there; the answers for o.example.com "
        "are not judged)",
        FIX + "break the loop: each alias or CNAME must lead to addresses or a load balancer",
    )
    assert _seen(body) == [C_FINDING, loop]


def test_nj1_a_name_marked_as_a_grpc_origin_is_on_a_path() -> None:
    body = world()
    body["Resources"]["M"] = {**_cname("m.example.com", "d.example.org"), "Metadata": {"edge-origin:grpc-origin": True}}
    assert _seen(body) == [(
        "EO-NJ1", "M", Severity.WARNING,
        "not judged: M: CNAME value of m.example.com CNAME (SetIdentifier -; a name no given template holds): d.example.org "
        "(no record set of d.example.org is in the given templates; the answers for m.example.com are not judged)",
        FIX + NEEDS["name"],
    )]


def test_nj1_an_alias_record_without_a_type_shows_a_question_mark_and_its_cdk_path() -> None:
    body = world()
    body["Resources"]["Clb"] = {"Type": "AWS::ElasticLoadBalancing::LoadBalancer", "Properties": {}}
    alias = _record("o.example.com", SetIdentifier="C", MultiValueAnswer=True,
                    AliasTarget={"DNSName": {"Fn::GetAtt": ["Clb", "DNSName"]}, "HostedZoneId": "Z1"})
    del alias["Properties"]["Type"]
    body["Resources"]["Al"] = {**alias, "Metadata": {"aws:cdk:path": "S/Al/Resource"}}
    found = findings(body, "EO-NJ1")
    assert [(f.resource, f.path, f.message.split(" (SetIdentifier")[0]) for f in found] == [
        ("Al", "S/Al/Resource", "not judged: Al: alias target of o.example.com ?")]
