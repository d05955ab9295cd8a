"""The CloudFront rules' "not judged" for a value decided at deploy time (EO-CF1, EO-CF2, EO-CF3, EO-VPC1, EO-SEC1).

A value a rule rests on that the templates do not decide (a String parameter without Default, an
``Fn::ImportValue`` of an export no given template declares, an ``Fn::If`` on a condition the templates cannot
decide) is never read as absent: the rule judges it both ways where it can, else says so with one finding of
:func:`undecided` (severity WARNING: a value edge-origin cannot evaluate; the reason and what would let it judge
are ``rules/not_judged.py``'s shared wording by the kind of value).
"""

from __future__ import annotations

from edge_origin.core.findings import Finding
from edge_origin.model import DistributionView, OriginView, display_value
from edge_origin.model.values import deploy_time
from edge_origin.rules.not_judged import not_judged_value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

    from edge_origin.model import BehaviorView


def undecided(rule_id: str, dist: DistributionView, subject: str, value: Any, consequence: str,
              needs: str = "", why: str = "") -> Finding:
    """One not-judged finding on ``dist``: ``subject`` (the property path) is ``value`` (shown as written), decided
    at deploy time; ``consequence`` says what some of its values would make of it; ``needs`` (default: the shared
    wording by the kind of value) what would let edge-origin judge it; ``why`` (default: that wording) why it is not
    known, for a value that is not decided at deploy time but lives outside the templates."""
    res = dist.resource
    return not_judged_value(rule_id, f"{res.logical_id} {subject}", value, consequence, res, needs=needs, why=why)


def timeout_undecided(origin: OriginView, field: str) -> Any:
    """The deploy-time value of ``field`` (``OriginKeepaliveTimeout``/``OriginReadTimeout``) where the origin view
    reads it (``CustomOriginConfig``, or ``VpcOriginConfig`` for a VPC origin without one), or of that whole
    config; None when it is literal or absent (the view then has the value or the default)."""
    config = origin.raw.get("CustomOriginConfig" if origin.custom else "VpcOriginConfig")
    if deploy_time(config):
        return config
    value = config.get(field) if isinstance(config, dict) else None
    return value if deploy_time(value) else None


def target_element(behavior: BehaviorView, origin: OriginView) -> tuple[str, Any]:
    """(what decides whether ``behavior`` reaches ``origin``, its value): the behavior's ``TargetOriginId`` when
    that is decided at deploy time, else the origin's ``Id``."""
    target = behavior.target_origin_id
    if deploy_time(target) or not origin.id_undecided:
        return f"{behavior.label} TargetOriginId", target
    return f"origin Id (the target of {behavior.label} {display_value(target)})", origin.raw.get("Id")
