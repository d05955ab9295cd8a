"""The rule base's distribution -> NLB helper (rules/base.py ``origin_load_balancers``, shared by EO-NLB1
and the hop rules through ka_profile): one entry per load balancer a CloudFront origin reaches straight
by its DNSName, however many behaviors (or distributions) reach it; the first behavior names its kind."""

from __future__ import annotations

from typing import Any

from worlds import behavior, dist_config, origin, res, set_attribute, world

from edge_origin.model import TemplateModel
from edge_origin.model.loader import LoadedTemplate
from edge_origin.rules.base import origin_load_balancers


def _direct(*behavior_grpc: bool) -> dict[str, Any]:
    """The quiet world with its origin at ``Nlb.DNSName`` (no records), used by one behavior per flag."""
    body = world()
    origin(body)["DomainName"] = {"Fn::GetAtt": ["Nlb", "DNSName"]}
    for record in ("RecordA", "RecordB", "CheckA", "CheckB"):
        del body["Resources"][record]
    set_attribute(res(body, "Listener"), "ListenerAttributes", "tcp.idle_timeout.seconds", None)
    first, *others = behavior_grpc
    behavior(body)["GrpcConfig"] = {"Enabled": first}
    dist_config(body)["CacheBehaviors"] = [
        {**behavior(body), "PathPattern": f"/p{i}/*", "GrpcConfig": {"Enabled": grpc}} for i, grpc in enumerate(others)
    ]
    return body


def _entries(body: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    model = TemplateModel([LoadedTemplate("S", "t.json", body)])
    return [(label, kind, [lb.resource.logical_id for lb in lbs]) for label, kind, lbs in origin_load_balancers(model)]


def test_base_one_behavior_at_the_nlbs_dns_name_is_one_entry() -> None:
    assert _entries(_direct(True)) == [("Nlb.DNSName", "grpc", ["Nlb"])]
    assert _entries(_direct(False)) == [("Nlb.DNSName", "long-lived", ["Nlb"])]


def test_base_behaviors_reaching_one_nlb_give_one_entry_of_the_first_behaviors_kind() -> None:
    assert _entries(_direct(True, False, True)) == [("Nlb.DNSName", "grpc", ["Nlb"])]
    assert _entries(_direct(False, True)) == [("Nlb.DNSName", "long-lived", ["Nlb"])]
