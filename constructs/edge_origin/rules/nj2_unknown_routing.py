"""EO-NJ2: a record set of an origin's path whose routing the answer model does not judge.

The one table of Route 53 routing elements (``edge_origin.answers.routing``) reads every record
set. A member the table does not know (a routing element AWS shipped after it), a
``SetIdentifier`` with no routing element (Route 53 refuses it, or the reader's botocore dropped
the element: AZAffinity needs botocore >= 1.44), or a traffic-policy record is **not judged**:
the record is left out of the answers (the rules that judge its name say "records decided at
deploy") and this rule names it, never reading it as simple. Severity ``not-checked``: no
``--fail-on`` threshold reads the name as clean.

A set whose ResourceRecords or MultiValueAnswer is decided at deploy time (a parameter without Default,
an import, an undecidable ``Fn::If``) is left out of the answers too; this rule names it once (one finding
a set and element: EO-DNS2, EO-DNS3, EO-DNS5 and EO-NLB2 read the set, none of them names it again).
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.answers.routing import Routing
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import RecordSetView, TemplateModel, display_value
from edge_origin.model.values import ResourceRef, Unresolved
from edge_origin.rules.base import Rule, with_cdk
from edge_origin.rules.nj1_unread_names import path_names
from edge_origin.rules.not_judged import not_judged, undecided_needs, undecided_reason

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

NEEDS = (
    "an edge-origin release whose routing table knows this element (python benchmarks/aws_drift.py lists what the "
    "installed botocore documents and the table lacks), or, for a live read, botocore >= 1.44 (AZAffinity); "
    "a SetIdentifier needs one routing element"
)
def unjudged(view: RecordSetView) -> Routing | None:
    """The view's routing when the table does not judge it for a reason this rule names."""
    routing = view.routing
    if isinstance(routing, Routing) and not routing.judged and routing.reason is not None:
        return routing
    return None


#: What a record set whose ResourceRecords the templates do not decide needs to be judged.
NEEDS_VALUES = (
    "ResourceRecords the templates decide (literal addresses, or Refs of the EIPs), or a live read of the deployed "
    "record sets (edge-origin read)"
)


def undecided_values(view: RecordSetView) -> Any:
    """The view's ``ResourceRecords`` when the list itself is decided at deploy time (an intrinsic the templates
    do not decide: how many values it holds is not known; the answer model leaves the set out), else None."""
    if view.alias_target is not None:
        return None
    values = view.properties.get("ResourceRecords") if isinstance(view.properties, dict) else None
    return values if isinstance(values, (ResourceRef, Unresolved)) else None


def undecided_element(view: RecordSetView) -> tuple[str, Any] | None:
    """(member, value as read) when the set's routing element is decided at deploy time (a ``MultiValueAnswer``
    that is a parameter without Default, an import, an undecidable ``Fn::If``: multivalue or simple, or refused
    with a SetIdentifier): the answer model leaves the set out (``Routing.reason`` None), else None."""
    routing = view.routing
    if not isinstance(routing, Routing) or routing.judged or routing.reason is not None or routing.element is None:
        return None
    raw = view.properties.get(routing.element) if isinstance(view.properties, dict) else None
    return (routing.element, raw) if isinstance(raw, (ResourceRef, Unresolved)) else None


def _subject(view: RecordSetView) -> str:
    """What a finding of this rule is about (spelled only for a finding)."""
    return f"{view.label}: record set {view.name} {view.type or '?'} (SetIdentifier {view.set_identifier or '-'})"


def origin_path_names(model: TemplateModel) -> set[str]:
    """The names whose record sets this rule reads: every origin name and the names its records lead to (worked
    out once a model: EO-DNS5 asks which record sets this rule names)."""
    cache = model.__dict__.setdefault("_nj2_path_names", [])
    if not cache:
        cache.append(path_names(model, set(model.origin_names())))
    return cache[0]


def check(model: TemplateModel) -> Iterator[Finding]:
    names = origin_path_names(model)
    for view in model.all_record_sets:
        if not isinstance(view.name, str) or view.name not in names:
            continue
        routing = unjudged(view)
        if routing is not None:
            yield not_judged(
                RULE.id, Severity.NOT_CHECKED, subject=_subject(view), element=routing.element or "?",
                reason=f"{routing.reason}; its answers are left out of every verdict on {view.name}",
                needs=NEEDS, at=view.resource,
            )
            continue
        values = undecided_values(view)
        if values is not None:
            yield not_judged(
                RULE.id, Severity.NOT_CHECKED, subject=_subject(view), element=values,
                reason=("its ResourceRecords is decided at deploy time: how many addresses its answers hold is not known; "
                        f"its answers are left out of every verdict on {view.name}"),
                needs=NEEDS_VALUES, at=view.resource,
            )
            continue
        element = undecided_element(view)
        if element is not None:  # the one finding for this set and element: EO-DNS2/3/5, EO-NLB2 read the set too
            member, raw = element
            # left out of every verdict on the name, as the two above: the same status (above error: never clean)
            yield not_judged(
                RULE.id, Severity.NOT_CHECKED, subject=f"{_subject(view)} {member}", element=display_value(raw),
                reason=(f"{undecided_reason(raw)}; multivalue or simple is not known; "
                        f"its answers are left out of every verdict on {view.name}"),
                needs=undecided_needs(raw), at=view.resource,
            )


RULE = Rule(
    id="EO-NJ2",
    severity=Severity.NOT_CHECKED,
    title="Routing element not judged",
    catches=(
        "A record set on an origin's path (the origin name, or a name its aliases and CNAMEs reach) with a member "
        "edge-origin's table of Route 53 routing elements does not know, a SetIdentifier with no routing element (Route "
        "53: 'Expected exactly one of [Weight, Region, Failover, GeoLocation, MultiValueAnswer, GeoProximityLocation, or "
        "CidrRoutingConfig]'; a botocore older than 1.44 drops AZAffinity from what it lists), or a traffic-policy record "
        "(TrafficPolicyInstanceId), or a record set whose ResourceRecords the templates do not decide (an intrinsic "
        "read as unknown: how many addresses it answers is not known), or whose MultiValueAnswer is decided at deploy time "
        "(a parameter without Default, an import, an undecidable Fn::If: multivalue or simple): not judged, never read "
        "as simple or empty."
    ),
    incident=(
        "AZ-affinity records read by a tool that did not know AZAffinity were judged 'a lone simple A record' while "
        "CloudFront received only the Global record's one address (issue 34)."
    ),
    fix=with_cdk('EO-NJ2', "Use an edge-origin release that knows the element, or botocore >= 1.44 for a live read; give a set id its routing element.", 'the edge-origin constructs (MultivalueOriginRecords, GrpcEdgeToOrigin) write only routing elements edge-origin reads.'),
    check=check,
)
