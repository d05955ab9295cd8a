"""What every rule is: an id, a severity, the catalogue text, and a pure check function."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from edge_origin.answers import RecordKey
from edge_origin.core.fast_dataclass import dataclass
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import RecordSetView, Resource, TemplateModel
from edge_origin.model.zones import OriginResolution

PACK_NAME = "EdgeOrigin"
DOCS_URL = "https://github.com/edge-origin/edge-origin/blob/main/docs/rules.md"
"""docs/rules.md on the repository (pyproject's Repository URL): each rule has a section ``#eo-xxx`` there."""


def docs_link(rule_id: str) -> str:
    """The rule's section in docs/rules.md on the repository (not a file of the wheel)."""
    return f"{DOCS_URL}#{rule_id.lower()}"


def with_cdk(rule_id: str, fix: str, cdk: str) -> str:
    """A fix in the user's language: what to change, the CDK prop and the edge-origin construct, the docs section."""
    return f"{fix.rstrip()} In CDK: {cdk} Docs: {docs_link(rule_id)}"


@dataclass(frozen=True)
class Rule:
    """One rule. ``check(model)`` yields findings; it never mutates the model.

    ``severity`` is the highest a finding of this rule gets (what RULES.md, ``rules explain``
    and the review's counts say); ``lower`` says when a finding gets less (empty: never, but for
    a not-judged warning or a long-lived origin, which RULES.md states for every rule).
    ``tests/rules/test_rule_severities.py`` holds every finding to it."""

    id: str
    severity: Severity
    title: str
    catches: str
    incident: str
    fix: str
    check: Callable[[TemplateModel], Iterable[Finding]]
    lower: str = ""
    facts: tuple[str, ...] = ()
    """Keys of :mod:`edge_origin.core.facts` the verdict rests on (cited by RULES.md and ``rules explain``)."""

    @property
    def acknowledge(self) -> str:
        """How to acknowledge a finding of this rule (CDK and CLI)."""
        return (
            f'CDK: Validations.of(construct).acknowledge(Acknowledgment(id="{PACK_NAME}::{PACK_NAME}-{self.id}", '
            f'reason="...")). Template/CLI: resource Metadata "edge-origin:acknowledge": '
            f'[{{"id": "{self.id}", "reason": "..."}}].'
        )


def finding(rule_id: str, severity: Severity, resource: Resource, message: str, fix: str) -> Finding:
    """A finding located at ``resource``."""
    return Finding(
        rule=rule_id,
        severity=severity,
        message=message,
        fix=fix,
        template=resource.template,
        stack=resource.stack,
        resource=resource.logical_id,
        path=resource.path,
    )


def origin_severity(base: Severity, kind: str) -> Severity:
    """gRPC origins get the rule's severity; other long-lived origins at most a warning."""
    if kind == "grpc" or base is not Severity.ERROR:
        return base
    return Severity.WARNING


def origin_label(name: str, kind: str) -> str:
    return f"gRPC origin {name}" if kind == "grpc" else f"long-lived origin {name} (CloudFront origin on NLBs)"


def origin_load_balancers(model: TemplateModel) -> list[tuple[str, str, list]]:
    """``[(origin label, kind, [LoadBalancerView])]`` for every origin name, and for CloudFront
    origins that point straight at a load balancer's DNS name (``Fn::GetAtt Nlb.DNSName``)."""
    out: list[tuple[str, str, list]] = []
    for name, kind in model.origin_names().items():
        lbs = model.load_balancers_for_name(name) or _internal_by_address(model, name)
        if lbs:
            out.append((name, kind, lbs))
    seen: set[tuple[str, str]] = set()
    for dist in model.distributions:
        for behavior in dist.behaviors:
            for origin in behavior.origins:
                if isinstance(origin.domain_name, str):
                    continue
                lbs = model.load_balancers_for_origin(origin)
                if lbs and lbs[0].resource.key not in seen:
                    seen.add(lbs[0].resource.key)
                    kind = "grpc" if behavior.grpc_enabled else "long-lived"
                    out.append((f"{lbs[0].resource.logical_id}.DNSName", kind, lbs))
    return out


def _internal_by_address(model: TemplateModel, name: str) -> list:
    """Internal NLBs whose SubnetMappings fix the private addresses ``name``'s records hold (an in-VPC gRPC
    origin, ``InternalGrpcOrigin``): the model's name -> load balancer view follows EIPs and aliases only."""
    values = {v for r in model.record_sets(name) for v in r.values if isinstance(v, str)}
    if not values:
        return []
    return [
        lb for lb in model.load_balancers
        if lb.is_network and any(isinstance(m, dict) and m.get("PrivateIPv4Address") in values
                                 for m in (lb.resource.properties.get("SubnetMappings") or [])
                                 if isinstance(lb.resource.properties.get("SubnetMappings"), list))
    ]


def origin_resolutions(model: TemplateModel) -> list[tuple[str, str, OriginResolution]]:
    """``[(name, kind, OriginResolution)]``: every origin name as the answer model resolves it,
    per zone that holds it, from the vantage that sees that zone (CloudFront: the public
    internet; a private zone only for names marked as in-VPC gRPC origins). A CloudFront origin
    name's public zones answer the record types its origins' ``IpAddressType`` makes CloudFront ask
    (``model.cloudfront_origin_types``): AAAA is judged exactly as A for ``dualstack``/``ipv6``, and
    an AAAA set of an ``ipv4`` origin's name is left out (it never reaches CloudFront). Computed once
    per model (six rules ask)."""
    memo = model.__dict__.get("_origin_resolutions")
    if memo is None:
        memo = model.__dict__["_origin_resolutions"] = _origin_resolutions(model)
    return list(memo)


def _origin_resolutions(model: TemplateModel) -> list[tuple[str, str, OriginResolution]]:
    cloudfront = model.cloudfront_origin_names()
    out = []
    for name, kind in model.origin_names().items():
        types = model.cloudfront_origin_types(name) if name in cloudfront else None
        for item in model.zones.name_resolutions(name, cloudfront=name in cloudfront, types=types):
            out.append((name, kind, item))
    return out


def answer_views(model: TemplateModel, keys: Iterable[RecordKey]) -> list[RecordSetView]:
    """The record set views behind answer-model record keys (first of each, in order)."""
    zones = model.zones
    out: dict[int, RecordSetView] = {}
    if isinstance(keys, tuple):  # a resolution's record_keys (four rules ask): its views are worked out once
        for _key, view, _record in zones.key_views(keys):
            out.setdefault(id(view), view)
    else:
        views = zones.views  # zones.view_of(key), inlined
        for key in keys:
            found = views.get(key)
            if found:
                out.setdefault(id(found[0]), found[0])
    return list(out.values())


@dataclass(frozen=True)
class TransitionRule:
    """A rule about a change: ``check(base, head)`` yields findings about deploying head over base.

    ``why`` (optional) is the reasoning behind the rule, printed in RULES.md. Transition rules run
    in ``edge-origin diff`` (and ``report --base/--head``), not in synth: one template alone
    cannot show them.
    """

    id: str
    severity: Severity
    title: str
    catches: str
    incident: str
    fix: str
    check: Callable[[TemplateModel, TemplateModel], Iterable[Finding]]
    why: str = ""
    lower: str = ""  # as Rule.lower
    facts: tuple[str, ...] = ()

    @property
    def acknowledge(self) -> str:
        return (
            f'Resource Metadata "edge-origin:acknowledge": [{{"id": "{self.id}", "reason": "..."}}] on the resource the '
            "finding names, in the head template (for a resource the change removes: in the base template); in CDK "
            f'cfn_resource.add_metadata("edge-origin:acknowledge", [{{"id": "{self.id}", "reason": "..."}}]).'
        )
