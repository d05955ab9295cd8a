"""EO-NJ1: a name on a gRPC origin's path that edge-origin cannot follow: not judged, never quiet.

The answer model judges what a resolver receives for an origin name by following its records'
alias targets and CNAME values. When one of them, or the CloudFront origin's domain itself, is
an expression the templates do not decide (a parameter without a default, an import of an export
no given template declares, a ``Fn::Join`` that is not one name), or names an endpoint the model
does not know the answers of (a Classic Load Balancer, Global Accelerator, API Gateway, AppSync,
S3 website, VPC endpoint, Cognito or Elastic Beanstalk domain, a name in no given zone), the
other rules cannot say whether every edge gets one address. This rule names each such record or
origin, the expression as read, why, and what would let edge-origin judge it (issue 36).
Severity warning: ``--fail-on warning`` and the cdk-nag pack fail on it like any warning.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from edge_origin.answers.health import MAX_DEPTH
from edge_origin.answers.types import MAX_CHAIN, normalize
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import RecordSetView, TemplateModel, display_value
from edge_origin.model.names import NameTarget, classify
from edge_origin.model.values import ResourceRef, Unresolved
from edge_origin.model.zones import zone_apart, zone_undecided
from edge_origin.rules.base import Rule, origin_label, origin_resolutions, with_cdk
from edge_origin.rules.not_judged import not_judged, undecided_needs, undecided_reason

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

#: How many alias/CNAME hops from an origin name are followed to find the names on its path.
MAX_HOPS = 8
#: What lets edge-origin judge it, by what it is.
NEEDS = {
    "import": "check the stack that exports it together with this one (edge-origin check on the whole cloud assembly)",
    "nested": "check the whole cloud assembly (cdk.out), which holds the nested stack's template, not the parent template alone",
    "pseudo": "check the cloud assembly (cdk.out): its manifest gives each stack's account and Region (an environment-agnostic stack has none)",
    "parameter": "give the parameter a Default (or check with the value you deploy)",
    "name": "check the stack that holds its records together with this one",
    "endpoint": (
        "edge-origin does not model this endpoint kind: judge by hand how many addresses, in how many zones, each "
        "answer holds, then acknowledge this finding (edge-origin:acknowledge) with the reason"
    ),
    "expression": "spell the name as a literal, or as GetAtt of the load balancer's DNSName (a dualstack. prefix is read)",
    "macro": "check the template the macro returns (aws cloudformation get-template --template-stage Processed, or "
             "a change set's processed template) instead of the one written",
    "custom": "judge by hand the record sets that custom resource writes, or declare them as AWS::Route53::RecordSet "
              "(route53.ARecord in CDK) so edge-origin reads them",
    "origins": "write the distribution's origins in the template (no AWS::Include, import or undecidable Fn::If around them), "
               "or check the template they come from",
}
#: Where the answer model gives up on a name (answers.Resolution.stopped): what it is, what would let edge-origin
#: judge it.
LOOP = ("loop", "break the loop: each alias or CNAME must lead to addresses or a load balancer")
CHAIN = ("chain too long", f"point the name at most {MAX_CHAIN} alias/CNAME hops from its addresses")
NESTED = ("health checks nested too deep",
          f"nest CALCULATED health checks at most {MAX_DEPTH} levels deep (or judge that check by hand and acknowledge)")


def _stop_kind(stop: str) -> tuple[str, str]:
    """(what it is, what would let edge-origin judge it) for one of answers.resolve's stops."""
    if stop.startswith("alias/CNAME loop"):
        return LOOP
    return CHAIN if stop.startswith("chain longer than") else NESTED


def _needs(value: Any, target: NameTarget) -> str:
    if isinstance(value, Unresolved):
        return NEEDS.get(value.reason, NEEDS["expression"])
    if target.kind == "name":
        return NEEDS["name"]
    if isinstance(value, ResourceRef) and target.kind.startswith("resource not in"):
        return NEEDS["name"]
    return NEEDS["endpoint"]


def _target(model: TemplateModel, value: Any) -> NameTarget:
    res = model.target(value) if isinstance(value, ResourceRef) else None
    return classify(value, res.type if res is not None else None)


def _in_a_zone(model: TemplateModel, name: str) -> bool:
    """Some record set of the given templates carries the name (so the model follows it)."""
    return bool(model.record_sets(name))


def path_names(model: TemplateModel, start: set[str]) -> set[str]:
    """``start`` and every literal name its records lead to (alias targets, CNAME values)."""
    seen: set[str] = set()
    todo = sorted(normalize(n) for n in start)
    for _ in range(MAX_HOPS):
        following: list[str] = []
        for name in todo:
            if name in seen:
                continue
            seen.add(name)
            for view in model.record_sets(name):
                for value in _ends(view):
                    if isinstance(value, str):
                        following.append(normalize(value))
        todo = following
        if not todo:
            break
    return seen


def _ends(view: RecordSetView) -> list[Any]:
    """What a record set leads to: its alias target, or its CNAME values."""
    if view.alias_target is not None:
        return [view.alias_target.dns_name]
    if view.type == "CNAME":
        return list(view.values)
    return []


def _verdict(model: TemplateModel, value: Any) -> tuple[str, str, str] | None:
    """(what it is, why it is not judged, what would let edge-origin judge it) for a name the
    model cannot follow, else None."""
    target = _target(model, value)
    if not target.judged:
        return target.kind, target.reason, _needs(value, target)
    if isinstance(value, str) and target.kind == "name" and not _in_a_zone(model, value):
        writer = _record_writer(model)
        if writer:
            return ("a name no given template holds", f"no record set of {value} is in the given templates; {writer} may write "
                    "record sets at deploy time (a custom resource edge-origin does not run)", NEEDS["custom"])
        return "a name no given template holds", f"no record set of {value} is in the given templates", NEEDS["name"]
    return None


def _record_writer(model: TemplateModel) -> str:
    """``"Custom::AWS App/Rec"``: the first custom resource of the templates whose properties name Route 53
    (aws-cdk-lib's ``AwsCustomResource`` calling ``changeResourceRecordSets``, a hand-written record
    Lambda), or "". Its records are not in the templates: the name's answers are not judged, and the
    review says why (it said "check the stack that holds its records", which is this one)."""
    cache = model.__dict__.setdefault("_nj1_record_writer", [])
    if cache:
        return cache[0]
    found = ""
    for item in model.templates.values():
        for logical_id, body in (item.body.get("Resources") or {}).items():
            kind = str(body.get("Type", "")) if isinstance(body, dict) else ""
            if not (kind.startswith("Custom::") or kind == "AWS::CloudFormation::CustomResource"):
                continue
            if "route53" in json.dumps(body.get("Properties"), default=str).lower():
                found = f"{kind} {item.stack}/{logical_id}"
                break
        if found:
            break
    cache.append(found)
    return found


def grpc_path_names(model: TemplateModel, domains: set[str] | None = None) -> set[str]:
    """The names this rule follows: the gRPC origins' literal domains and gRPC origin names, and every name their
    records lead to (worked out once a model: EO-DNS5 asks which records this rule names)."""
    cache = model.__dict__.setdefault("_nj1_path_names", [])
    if cache:
        return cache[0]
    if domains is None:
        domains = {o.domain_name for _d, _b, o in model.grpc_origins() if o.vpc_origin_id is None and isinstance(o.domain_name, str)}
    start = set(domains)
    start.update(n for n, kind in model.origin_names().items() if kind == "grpc")
    cache.append(path_names(model, start))
    return cache[0]


def names_undecided(model: TemplateModel, view: RecordSetView, names: set[str]) -> bool:
    """Whether this rule names the record's undecided Name, Type or zone (``_unnamed_records``: the record may be
    one of a name on an origin's path)."""
    if view.unknown:
        return False
    if isinstance(view.name, str):
        if view.name not in names:
            return False
        if view.type is None and view.properties.get("Type") is not None:
            return True
        return zone_undecided(view) and zone_apart(model.record_sets(view.name))
    return bool(_unnamed_hits(view, names))


def _unnamed_hits(view: RecordSetView, names: set[str]) -> list[str]:
    zone = view.hosted_zone_name
    return sorted(n for n in names if zone is None or n == zone or n.endswith("." + zone))


def check(model: TemplateModel) -> Iterator[Finding]:
    grpc_names: set[str] = set()
    for dist, _behavior, origin in model.grpc_origins():
        if origin.vpc_origin_id is not None:
            continue  # a VPC origin: CloudFront reaches its endpoint (EO-VPC rules)
        domain = origin.domain_name
        if isinstance(domain, str):
            grpc_names.add(domain)
        verdict = _verdict(model, domain)
        if verdict is None:
            continue
        kind, reason, needs = verdict
        res = dist.resource
        yield not_judged(
            RULE.id, Severity.WARNING,
            subject=f"{res.logical_id} gRPC origin {origin.id} DomainName ({kind})", element=display_value(domain),
            reason=f"{reason}; what CloudFront's connections reach is not judged", needs=needs,
            at=res,
        )
    names = grpc_path_names(model, grpc_names)
    seen: set[tuple[str, str, int | None]] = set()
    for name in sorted(names):
        for view in model.record_sets(name):
            res = view.resource
            if (res.stack, res.logical_id, view.member_index) in seen:
                continue
            seen.add((res.stack, res.logical_id, view.member_index))
            yield from _unknown_addresses(view, name)
            for value in _ends(view):
                verdict = _verdict(model, value)
                if verdict is None:
                    continue
                kind, reason, needs = verdict
                how = "alias target" if view.alias_target is not None else "CNAME value"
                yield not_judged(
                    RULE.id, Severity.WARNING,
                    subject=f"{view.label}: {how} of {name} {view.type or '?'} (SetIdentifier {display_value(view.set_identifier)}; {kind})",
                    element=display_value(value),
                    reason=f"{reason}; the answers for {name} are not judged",
                    needs=needs,
                    at=res,
                )

    yield from _unnamed_records(model, names)
    yield from _stops(model)
    yield from _undecided_origins(model)
    yield from _macros(model)


#: Transforms that add resources no origin's path reads (CodeDeploy blue/green hooks, Secrets Manager
#: rotation functions): judging the template as written is judging what deploys, for this rule's purpose.
PATH_NEUTRAL_TRANSFORMS = frozenset({"AWS::CodeDeployBlueGreen", "AWS::SecretsManager-2020-07-23"})


def _macros(model: TemplateModel) -> Iterator[Finding]:
    """A template processed by a macro edge-origin cannot run (``Transform: MyMacro``): CloudFormation
    deploys what the macro returns, which may add, drop or rewrite the records and distributions read
    here; the template was judged as written and read as clean. Said once a template that holds any
    record set, distribution or load balancer."""
    from edge_origin.model.transforms import unexpanded

    path_types = ("AWS::Route53::", "AWS::CloudFront::", "AWS::ElasticLoadBalancingV2::")
    for item in model.templates.values():
        macros = [m for m in unexpanded(item.body) if m not in PATH_NEUTRAL_TRANSFORMS]
        resources = item.body.get("Resources") or {}
        if not macros or not any(isinstance(r, dict) and str(r.get("Type", "")).startswith(path_types) for r in resources.values()):
            continue
        yield not_judged(
            RULE.id, Severity.WARNING,
            subject=f"{item.stack} Transform edge-origin cannot run", element=", ".join(macros),
            reason="CloudFormation deploys what the transform returns (a macro, an AWS::Include); its records, distributions and load balancers were "
                   "judged as written",
            needs=NEEDS["macro"], template=item.template, stack=item.stack,
        )


def _undecided_origins(model: TemplateModel) -> Iterator[Finding]:
    """A distribution whose origins the templates do not decide (its DistributionConfig from an
    ``AWS::Include``, its Origins an ``Fn::ImportValue``...): whether it has a gRPC origin, and
    what names it reaches, is not judged (it read as a distribution with no origins: quiet)."""
    for dist in model.distributions:
        if not dist.origins_undecided:
            continue
        where, _, value = dist.origins_undecided.partition(" ")
        res = dist.resource
        yield not_judged(
            RULE.id, Severity.WARNING,
            subject=f"{res.logical_id} {where} (CloudFront origins)", element=value or where,
            reason="decided at deploy time; whether this distribution has a gRPC origin, and which names its "
                   "connections reach, is not judged",
            needs=NEEDS["origins"], at=res,
        )


def _unnamed_records(model: TemplateModel, names: set[str]) -> Iterator[Finding]:
    """A record set whose Name the templates do not decide (a parameter without Default, a mapping by an
    unknown Region), in a zone that holds a name on an origin's path (or in a zone not known either): it may
    be one of that name's records, so that name's answers are not judged (they were, without it)."""
    for view in model.all_record_sets:
        if view.unknown:
            continue
        if isinstance(view.name, str):
            if view.type is None and view.name in names and view.properties.get("Type") is not None:
                yield _unknown_type(view)
            elif view.name in names and zone_undecided(view) and zone_apart(model.record_sets(view.name)):
                yield _unknown_zone(view)
            continue
        zone = view.hosted_zone_name
        hits = _unnamed_hits(view, names)
        if not hits:
            continue
        res = view.resource
        yield not_judged(
            RULE.id, Severity.WARNING,
            subject=f"{view.label}: record set name ({view.type or '?'}, zone {zone or 'not known'})",
            element=display_value(view.name),
            reason=f"{_unresolved_words(view.name) if isinstance(view.name, Unresolved) else 'not a name'}; it may be "
                   f"a record of {hits[0]}, whose answers are then not judged",
            needs=NEEDS.get(view.name.reason, NEEDS["expression"]) if isinstance(view.name, Unresolved) else NEEDS["expression"],
            at=res,
        )


def _unknown_zone(view: RecordSetView) -> Finding:
    """A record set of a name on an origin's path whose hosted zone the templates do not decide, beside record sets
    of the name in another zone: it may be in theirs (one zone's answers), so that name's answers are not judged."""
    raw = view.hosted_zone
    member = "HostedZoneId" if view.hosted_zone_id is not None else "HostedZoneName"
    return not_judged(
        RULE.id, Severity.WARNING,
        subject=f"{view.label}: {member} of {view.name} {view.type or '?'} (SetIdentifier {display_value(view.set_identifier)})",
        element=display_value(raw),
        reason=f"{undecided_reason(raw)}; it may be the zone of the other record sets of {view.name}, whose answers are "
               "then not judged",
        needs=undecided_needs(raw), at=view.resource,
    )


def _unknown_type(view: RecordSetView) -> Finding:
    """A record set of a name on an origin's path whose Type the templates do not decide."""
    res = view.resource
    raw = view.properties.get("Type", res.properties.get("Type"))
    return not_judged(
        RULE.id, Severity.WARNING,
        subject=f"{view.label}: record type of {view.name}", element=display_value(raw),
        reason=f"{_unresolved_words(raw) if isinstance(raw, Unresolved) else 'not a record type'}; it may be an A or "
               f"AAAA record of {view.name}, whose answers are then not judged",
        needs=NEEDS.get(raw.reason, NEEDS["expression"]) if isinstance(raw, Unresolved) else NEEDS["expression"],
        at=res,
    )


def _unknown_addresses(view: RecordSetView, name: str) -> Iterator[Finding]:
    """An A/AAAA record on the path whose addresses the templates do not decide (a parameter without a
    Default, an output of a nested stack not given, a mapping by an unknown Region): how many different
    addresses the answers hold is not judged (two such values may be one address, or many)."""
    if view.alias_target is not None or view.type not in ("A", "AAAA"):
        return
    unknown = [v for v in view.values if isinstance(v, Unresolved)]
    if not unknown:
        return
    res = view.resource
    yield not_judged(
        RULE.id, Severity.WARNING,
        subject=f"{view.label}: address of {name} {view.type} (SetIdentifier {display_value(view.set_identifier)})",
        element=display_value(unknown[0]),
        reason=f"{_unresolved_words(unknown[0])}; how many addresses the answers for {name} hold is not judged",
        needs=NEEDS.get(unknown[0].reason, NEEDS["expression"]),
        at=res,
    )


def _unresolved_words(value: Unresolved) -> str:
    return classify(value, None).reason or "an expression edge-origin cannot evaluate"


def _stops(model: TemplateModel) -> Iterator[Finding]:
    """Where the answer model gave up on an origin name's answers (a loop, a chain too long, health
    checks nested too deep): not judged, naming the stop."""
    seen: set[tuple[str, str, str]] = set()
    for name, kind, item in origin_resolutions(model):
        for stop in item.resolution.stopped:
            what, needs = _stop_kind(stop)
            if (name, item.zone.id, what) in seen:  # one finding a kind of stop per name and zone (A and AAAA, two
                continue                            # paths into one loop): the first one met is shown
            seen.add((name, item.zone.id, what))
            res = model.record_sets(name)[0].resource  # the zone holds the name: it has a record set
            yield not_judged(
                RULE.id, Severity.WARNING,
                subject=f"{origin_label(name, kind)} in zone {item.zone.name} ({what})", element=stop,
                reason=f"the answer model stops there; the answers for {name} are not judged", needs=needs,
                at=res,
            )


RULE = Rule(
    id="EO-NJ1",
    severity=Severity.WARNING,
    title="Origin name not judged",
    catches=(
        "An alias target, CNAME value or CloudFront gRPC origin domain on an origin's path that edge-origin cannot "
        "follow: an expression the templates do not decide (a parameter without Default, Fn::ImportValue of an export "
        "no given template declares, a Fn::Join/Fn::Sub that is not one name), an endpoint kind the answer model does "
        "not know (Classic Load Balancer, Global Accelerator, API Gateway, AppSync, S3 website, VPC endpoint, Cognito, "
        "Elastic Beanstalk), or a name no given template holds; an A/AAAA record on the path whose addresses the "
        "templates do not decide (a parameter without Default, an output of a nested stack not given); a record set "
        "whose Name (in a zone holding such a name), Type (of such a name) or hosted zone (of such a name with record "
        "sets in another zone) the templates do not decide. Also where the "
        "answer model gives up on an origin "
        f"name: an alias/CNAME loop, a chain longer than {MAX_CHAIN} hops, CALCULATED health checks nested deeper than "
        f"{MAX_DEPTH} levels. And a CloudFront distribution whose origins the templates do not decide (its "
        "DistributionConfig from an AWS::Include, its Origins from an Fn::ImportValue): whether it has a gRPC origin is "
        "not judged; a template with a Transform macro edge-origin cannot run (it is judged as written)."
    ),
    incident=(
        "A plain aws-cdk-lib stack with weighted LoadBalancerTarget aliases (Fn::Join dualstack. + DNSName) passed with "
        "'no findings': the model read the alias as a name it did not know and said nothing (issue 36); weighted "
        "answers sent every CloudFront edge to one NLB (weighted-dns-flash-crowd-summary)."
    ),
    fix=with_cdk('EO-NJ1', "Check the stacks together, give parameters a Default, or spell names as literals or GetAtt DNSName.", 'synthesize every stack into one cdk.out and check it whole (`edge-origin check cdk.out`); `CfnParameter(default=...)`; records of `eip.ref` or `nlb.load_balancer_dns_name`.'),
    check=check,
)
