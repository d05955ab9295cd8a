"""A load balancer whose ``Type`` is decided at deploy time, as the NLB rules say it.

``AWS::ElasticLoadBalancingV2::LoadBalancer`` ``Type`` defaults to ``application`` (CloudFormation's
resource reference; botocore elbv2 ``CreateLoadBalancerInput.Type``: "The default is application."); a
parameter without Default, an import no given template declares or an undecidable ``Fn::If`` may be
``network``. The view keeps that (``LoadBalancerView.type_undecided``); a rule that judges network load
balancers judges such a balancer as if it were one, and when that judgement finds something it says
"not judged" once for the balancer (:func:`as_if_network`) instead: never "fine", never a verdict that
rests on a type the templates do not give. When it finds nothing, the balancer is fine either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model.values import deploy_time
from edge_origin.model.views import UNKNOWN_ATTRIBUTES, LoadBalancerView, Resource, props_of
from edge_origin.rules.not_judged import not_judged

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

NEEDS_DEFAULT = "give the parameter a Default, or check the stacks together"
NEEDS = f"a literal Type ({NEEDS_DEFAULT})"


def type_element(lb: LoadBalancerView) -> object:
    """The balancer's ``Type`` as written (its whole Properties when those are an undecidable ``Fn::If``)."""
    raw = props_of(lb.resource).raw("Type")
    if raw is None:
        return lb.resource.unknown_properties or "Type"
    return raw


def undecided_type(rule_id: str, lb: LoadBalancerView, judges: str) -> Finding:
    """The one not-judged finding of ``rule_id`` for ``lb`` (``judges``: what the rule would judge on it, were it
    a network load balancer)."""
    return not_judged(
        rule_id, Severity.WARNING,
        subject=f"load balancer {lb.resource.logical_id} Type (as a network load balancer: {judges})",
        element=type_element(lb),
        reason="decided at deploy time: a network load balancer or not; absent, it is application",
        needs=NEEDS,
        at=lb.resource,
    )


def as_if_network(rule_id: str, lb: LoadBalancerView, findings: Iterable[Finding], judges: str) -> Iterator[Finding]:
    """``findings`` (the rule's, judging ``lb`` as a network load balancer) when its Type is literal; for a Type
    decided at deploy time, one :func:`undecided_type` finding when they hold any, else nothing (fine either way)."""
    if not lb.type_undecided:
        yield from findings
        return
    if next(iter(findings), None) is not None:
        yield undecided_type(rule_id, lb, judges)


def attribute_element(resource: Resource, prop: str, attributes: dict[str, Any], key: str) -> object:
    """An attribute ``key`` the templates do not decide, as written: its value, or the whole ``prop`` list
    (``LoadBalancerAttributes``, ``TargetGroupAttributes``) when the list or a key in it is decided at deploy time."""
    if key in attributes:
        return attributes[key]
    if resource.unknown_properties is not None:
        return resource.unknown_properties
    return resource.properties.get(prop, prop)


def attribute_overrides(res: Resource, prop: str, attributes: dict[str, Any], key: str) -> list[tuple[int, object, object]]:
    """``(index, entry, Value)`` of each entry of the attribute list ``prop`` whose Key (or the whole entry: its Value
    is then the entry) is decided at deploy time, beside a literal ``key`` entry, and whose Value is not that entry's:
    it may be ``key`` again. [] without a literal ``key`` entry or an undecided one (the view's ``UNKNOWN_ATTRIBUTES``
    mark: no walk for the others)."""
    if UNKNOWN_ATTRIBUTES not in attributes or key not in attributes:
        return []
    literal = attributes[key]
    raw = res.properties.get(prop)
    out: list[tuple[int, object, object]] = []
    for index, entry in enumerate(raw if isinstance(raw, list) else ()):
        if deploy_time(entry):
            out.append((index, entry, entry))
        elif isinstance(entry, dict) and deploy_time(entry.get("Key")):
            value = entry.get("Value")
            if deploy_time(value) or str(value) != str(literal):
                out.append((index, entry, value))
    return out
