"""Parameters that decide routing: every allowed value, not only the default.

A template can leave the routing policy of an origin to a ``Parameter`` (directly, or through a
``Condition`` of an ``Fn::If`` or of the resource). The model resolves parameters to their
``Default``; where ``AllowedValues`` bounds the choices, :func:`routing_choices` lists each other
value of each such parameter (one parameter changed at a time, at most ``MAX_CHOICES`` in all)
and :func:`with_choice` builds the model a stack deployed with that value would have. The rule
runner judges every choice; a finding that holds only for a non-default value names it.
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.fast_dataclass import dataclass, replace
from edge_origin.model.loader import LoadedTemplate

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

#: How many non-default parameter values are judged at most (each costs one model build).
MAX_CHOICES = 16
#: Resources whose properties decide what Route 53 answers (and which origin CloudFront resolves).
ROUTING_TYPES = (
    "AWS::Route53::RecordSet", "AWS::Route53::RecordSetGroup", "AWS::Route53::HealthCheck", "AWS::Route53::HostedZone",
    "AWS::CloudFront::Distribution",
    # The NLB side of the path: its attributes (cross-zone, zonal shift, idle timeout, connection termination,
    # deregistration delay) and security groups decide verdicts as much as the records do.
    "AWS::ElasticLoadBalancingV2::LoadBalancer", "AWS::ElasticLoadBalancingV2::Listener",
    "AWS::ElasticLoadBalancingV2::TargetGroup", "AWS::EC2::SecurityGroup", "AWS::EC2::SecurityGroupIngress",
)


@dataclass(frozen=True)
class ParameterChoice:
    """One non-default value of a parameter that decides routing."""

    stack: str
    parameter: str
    value: str
    default: str | None

    @property
    def label(self) -> str:
        default = f"default {self.default}" if self.default is not None else "no default"
        return f"parameter {self.parameter}={self.value} in stack {self.stack} ({default})"


@dataclass(frozen=True)
class ConditionChoice:
    """One value of a Condition the templates cannot decide (a parameter without Default, a pseudo
    parameter): each ``Fn::If`` branch it selects is judged (issue 36)."""

    stack: str
    condition: str
    value: bool

    @property
    def label(self) -> str:
        return f"condition {self.condition}={'true' if self.value else 'false'} in stack {self.stack} (decided at deploy)"


def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair of a JSON document, depth first (bounded by the loader's depth check)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, inner in item.items():
                yield key, inner
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)


def _refs_and_conditions(value: Any) -> tuple[set[str], set[str]]:
    refs: set[str] = set()
    conditions: set[str] = set()
    for key, inner in _walk(value):
        if key == "Ref" and isinstance(inner, str):
            refs.add(inner)
        elif key == "Fn::If" and isinstance(inner, list) and inner and isinstance(inner[0], str):
            conditions.add(inner[0])
        elif key == "Condition" and isinstance(inner, str):
            conditions.add(inner)
        elif key == "Fn::Sub" and isinstance(inner, (str, list)):
            text = inner if isinstance(inner, str) else inner[0] if inner and isinstance(inner[0], str) else ""
            refs.update(part.split("}")[0] for part in text.split("${")[1:])
    return refs, conditions


def routing_conditions(body: dict[str, Any]) -> set[str]:
    """Conditions the routing resources of one template read (``Fn::If`` and resource conditions, transitively)."""
    return _routing_refs(body)[1]


def routing_parameters(body: dict[str, Any]) -> set[str]:
    """Parameters that the routing resources of one template read, directly or through Conditions."""
    return _routing_refs(body)[0]


def _routing_refs(body: dict[str, Any]) -> tuple[set[str], set[str]]:
    resources = body.get("Resources") or {}
    all_conditions = body.get("Conditions") if isinstance(body.get("Conditions"), dict) else {}
    refs: set[str] = set()
    pending: set[str] = set()
    for resource in resources.values() if isinstance(resources, dict) else ():
        if not isinstance(resource, dict) or resource.get("Type") not in ROUTING_TYPES:
            continue
        found_refs, found_conditions = _refs_and_conditions({"Properties": resource.get("Properties"), "Condition": resource.get("Condition")})
        refs |= found_refs
        pending |= found_conditions
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        found_refs, found_conditions = _refs_and_conditions(all_conditions.get(name))
        refs |= found_refs
        pending |= found_conditions - seen
    return refs, seen


def _undecided_conditions(loaded: LoadedTemplate) -> list[str]:
    """Routing conditions the template alone cannot decide, sorted."""
    from edge_origin.model.intrinsics import StackResolver
    from edge_origin.model.values import ModelError, Unresolved

    conditions = loaded.body.get("Conditions")
    if not isinstance(conditions, dict) or not conditions:
        return []  # no Condition to decide (a name the section lacks is refused by the model, not chosen)
    names = sorted(routing_conditions(loaded.body))
    if not names:
        return []
    resolver = StackResolver(loaded.stack, loaded.template, loaded.body, lambda n: Unresolved("import", f"Fn::ImportValue {n}"))
    out = []
    for name in names:
        try:
            if name in resolver.conditions and resolver.condition(name) is None:
                out.append(name)
        except ModelError:
            continue  # a bad condition: the model reports it
    return out


def routing_choices(templates: dict[str, LoadedTemplate]) -> tuple[list[ParameterChoice | ConditionChoice], int]:
    """(the choices to judge, how many more there were than ``MAX_CHOICES``): other allowed values of
    routing parameters, and both values of each routing condition the templates cannot decide."""
    choices: list[ParameterChoice | ConditionChoice] = []
    skipped = 0
    for stack, loaded in templates.items():
        for name in _undecided_conditions(loaded):
            for value in (True, False):
                if len(choices) >= MAX_CHOICES:
                    skipped += 1
                    continue
                choices.append(ConditionChoice(stack, name, value))
    for stack, loaded in templates.items():
        params = loaded.body.get("Parameters")
        if not isinstance(params, dict) or not any(isinstance(p, dict) and isinstance(p.get("AllowedValues"), list) for p in params.values()):
            continue  # no parameter with AllowedValues: nothing to choose, the template is not walked
        for name in sorted(routing_parameters(loaded.body)):
            spec = params.get(name)
            if not isinstance(spec, dict) or not isinstance(spec.get("AllowedValues"), list):
                continue
            default = spec.get("Default")
            default_text = None if default is None else str(default)
            for value in spec["AllowedValues"]:
                if isinstance(value, (dict, list)) or str(value) == default_text:
                    continue
                if len(choices) >= MAX_CHOICES:
                    skipped += 1
                    continue
                choices.append(ParameterChoice(stack, name, str(value), default_text))
    return choices, skipped


def with_choice(templates: dict[str, LoadedTemplate], choice: ParameterChoice | ConditionChoice) -> list[LoadedTemplate]:
    """The templates as a stack deployed with ``choice`` reads them (its Default replaced, or the
    condition fixed to its value)."""
    out = []
    for stack, loaded in templates.items():
        if stack != choice.stack:
            out.append(loaded)
            continue
        body = dict(loaded.body)
        if isinstance(choice, ConditionChoice):
            conditions = dict(body["Conditions"])
            conditions[choice.condition] = {"Fn::Equals": ["1", "1" if choice.value else "0"]}
            body["Conditions"] = conditions
            out.append(replace(loaded, body=body))
            continue
        params = dict(body["Parameters"])
        params[choice.parameter] = {**params[choice.parameter], "Default": choice.value}
        body["Parameters"] = params
        out.append(replace(loaded, body=body))
    return out


__all__ = ["MAX_CHOICES", "ConditionChoice", "ParameterChoice", "routing_choices", "routing_conditions", "routing_parameters", "with_choice"]
