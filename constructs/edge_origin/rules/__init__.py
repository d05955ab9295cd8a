"""The rule registry and the runner: the same pure rule functions for the CLI and the cdk-nag pack.

``RULES`` holds every rule (id, severity, title, catches, incident, fix, acknowledge, check).
``run_rules(model)`` runs them (or a chosen subset) and returns sorted findings, dropping those
acknowledged in the templates (or in a cdk.out's validation-report.json, see
``load_model``): a resource's Metadata ``edge-origin:acknowledge`` is a list of
``{"id": "EO-DNS1", "reason": "..."}`` (a reason is required; without one the entry is ignored).

Layer 3. May import: core, data, answers, profile, model, rules.
"""

from __future__ import annotations

from collections.abc import Iterable

from edge_origin.core.escape import reason_text
from edge_origin.core.fast_dataclass import replace
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import ModelError, TemplateModel
from edge_origin.model.template_model import collector_paused
from edge_origin.rules import (
    cf1_grpc_behavior,
    cf2_keepalive_vs_idle,
    cf3_response_completion,
    cf4_origin_timeout_quota,
    dns1_weighted_grpc,
    dns2_multivalue_health,
    dns3_origin_spread,
    dns4_ttl,
    dns5_mixed_policies,
    ka1_listener_idle_drift,
    ka2_origin_timeouts_drift,
    ka3_profile_invalid,
    nj1_unread_names,
    nj2_unknown_routing,
    nlb1_idle_timeout,
    nlb2_eip_subnet_mapping,
    nlb3_termination_cross_zone,
    nlb4_dns_attributes_eip_path,
    nlb5_capacity_reservation,
    nlb6_targets_per_nlb,
    sec1_origin_verification,
    sg1_health_checkers,
    vpc1_timeouts,
    vpc2_nlb_not_vpc_origin,
    vpc3_dns_vantage,
    vpc4_reachable_around_cloudfront,
    watch1_imbalance_alarm,
)
from edge_origin.rules.base import PACK_NAME, Rule, TransitionRule

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

ACKNOWLEDGE_METADATA_KEY = "edge-origin:acknowledge"

RULES: tuple[Rule, ...] = tuple(
    m.RULE
    for m in (
        dns1_weighted_grpc,
        dns2_multivalue_health,
        dns3_origin_spread,
        dns4_ttl,
        dns5_mixed_policies,
        nlb1_idle_timeout,
        nlb2_eip_subnet_mapping,
        nlb3_termination_cross_zone,
        nlb4_dns_attributes_eip_path,
        nlb5_capacity_reservation,
        nlb6_targets_per_nlb,
        sg1_health_checkers,
        cf1_grpc_behavior,
        cf2_keepalive_vs_idle,
        cf3_response_completion,
        cf4_origin_timeout_quota,
        ka1_listener_idle_drift,
        ka2_origin_timeouts_drift,
        ka3_profile_invalid,
        sec1_origin_verification,
        vpc1_timeouts,
        vpc2_nlb_not_vpc_origin,
        vpc3_dns_vantage,
        vpc4_reachable_around_cloudfront,
        nj1_unread_names,
        nj2_unknown_routing,
    )
)
RULES_BY_ID: dict[str, Rule] = {r.id: r for r in RULES}

#: Advisory (info) rules, run on request (``run_rules(model, ADVISORY_RULES)``; ``edge-origin watch``
#: runs them over the path it reads), not in synth or ``check``: they note what a template lacks.
ADVISORY_RULES: tuple[Rule, ...] = (watch1_imbalance_alarm.RULE,)

# ``TRANSITION_RULES`` (rules about a change, base model -> head model: run by ``edge-origin diff``, not
# in synth), ``TRANSITION_RULES_BY_ID`` and ``CATALOGUE`` (every rule RULES.md lists: the template
# rules, the advisory rules, then the transition rules) are made on first use (``__getattr__``):
# the transition rules' modules read the change model (model.transition), which a check never runs.


def _transition_rules() -> tuple[TransitionRule, ...]:
    from edge_origin.rules import (
        chg1_policy_across_resources,
        chg2_origin_ips_replaced,
        chg3_name_left_without_records,
        chg4_connection_profile_transition,
        chg5_record_identity_moved,
    )

    return tuple(
        m.RULE
        for m in (
            chg1_policy_across_resources,
            chg2_origin_ips_replaced,
            chg3_name_left_without_records,
            chg4_connection_profile_transition,
            chg5_record_identity_moved,
        )
    )


def _made(name: str) -> Any:
    """``TRANSITION_RULES``, ``TRANSITION_RULES_BY_ID`` or ``CATALOGUE``: made on the first call, kept."""
    if name not in globals():
        transition = _transition_rules()
        globals().update(
            TRANSITION_RULES=transition,
            TRANSITION_RULES_BY_ID={r.id: r for r in transition},
            CATALOGUE=RULES + ADVISORY_RULES + transition,
        )
    return globals()[name]


def __getattr__(name: str) -> object:
    if name in ("TRANSITION_RULES", "TRANSITION_RULES_BY_ID", "CATALOGUE"):
        return _made(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    TRANSITION_RULES: tuple[TransitionRule, ...]
    TRANSITION_RULES_BY_ID: dict[str, TransitionRule]
    CATALOGUE: tuple[Rule | TransitionRule, ...]


def get_rule(rule_id: str) -> Rule:
    """The rule with this id; ValueError naming the allowed ids otherwise."""
    try:
        return RULES_BY_ID[rule_id.upper()]
    except KeyError:
        raise ValueError(f"unknown rule {rule_id!r} (allowed: {', '.join(RULES_BY_ID)})") from None


def acknowledgements(model: TemplateModel) -> dict[tuple[str, str], dict[str, str]]:
    """``{(stack, logical_id): {rule_id: reason}}`` from ``edge-origin:acknowledge`` metadata and
    from acknowledgements CDK recorded in a cdk.out (``model.acknowledged_paths``)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for res in model.resources:
        if res.path and res.path in model.acknowledged_paths:
            out.setdefault(res.key, {}).update(model.acknowledged_paths[res.path])
        entries = res.metadata.get(ACKNOWLEDGE_METADATA_KEY)
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str) and reason_text(entry.get("reason")):
                out.setdefault(res.key, {})[entry["id"].upper()] = str(entry["reason"])
    return out


def _run(model: TemplateModel, rules: Iterable[Rule], acks: dict[tuple[str, str], dict[str, str]]) -> set[Finding]:
    found: set[Finding] = set()
    for rule in rules:
        for item in rule.check(model):
            if item.rule in acks.get((item.stack, item.resource), {}):
                continue
            found.add(item)
    return found


def run_rules(
    model: TemplateModel,
    rules: Iterable[Rule] | None = None,
    *,
    honour_acknowledgements: bool = True,
    parameter_choices: bool = True,
) -> list[Finding]:
    """Run rules over the model; findings sorted by (template, resource, rule, message), unique.

    ``parameter_choices``: where a parameter with ``AllowedValues`` decides routing, the rules
    also judge each other allowed value (``model.routing_choices()``); a finding that holds only
    for such a value says "only with parameter P=v".
    """
    with collector_paused():
        return _run_rules(model, list(rules) if rules is not None else list(RULES), honour_acknowledgements, parameter_choices)


def _run_rules(model: TemplateModel, chosen: list[Rule], honour_acknowledgements: bool, parameter_choices: bool) -> list[Finding]:
    acks = acknowledgements(model) if honour_acknowledgements else {}
    found = _run(model, chosen, acks)
    if parameter_choices:
        choices, _left_out = model.routing_choices()
        known = {(f.rule, f.stack, f.resource, f.severity) for f in found}
        for choice in choices:
            try:
                variant = model.with_choice(choice)
            except ModelError:
                continue  # this value makes the template bad input: CloudFormation refuses it too
            for item in _run(variant, chosen, acks):
                key = (item.rule, item.stack, item.resource, item.severity)
                if key not in known:
                    known.add(key)
                    found.add(replace(item, message=f"{item.message} (only with {choice.label})"))
    return sorted(found, key=lambda f: (f.template, f.stack, f.resource, f.rule, -f.severity.rank, f.message))


def run_transition_rules(
    base: TemplateModel,
    head: TemplateModel,
    rules: Iterable[TransitionRule] | None = None,
    *,
    honour_acknowledgements: bool = True,
    head_acknowledgements: dict[tuple[str, str], dict[str, str]] | None = None,
) -> list[Finding]:
    """Run transition rules over (base, head); sorted and unique like ``run_rules``.

    Acknowledgements are read from head (or given: ``acknowledgements(head)``); for a finding
    located at a resource head no longer has (the change removes it), from base.
    """
    acks: dict[int, dict[tuple[str, str], dict[str, str]]] = {}  # read on the first finding of each side
    if head_acknowledgements is not None:
        acks[id(head)] = head_acknowledgements
    found: set[Finding] = set()
    for rule in rules if rules is not None else _made("TRANSITION_RULES"):
        for item in rule.check(base, head):
            key = (item.stack, item.resource)
            if honour_acknowledgements:
                side = head if head.resource(*key) is not None else base
                if id(side) not in acks:
                    acks[id(side)] = acknowledgements(side)
                if item.rule in acks[id(side)].get(key, {}):
                    continue
            found.add(item)
    return sorted(found, key=lambda f: (f.template, f.stack, f.resource, f.rule, -f.severity.rank, f.message))


def at_or_above(findings: Iterable[Finding], threshold: Severity) -> list[Finding]:
    return [f for f in findings if f.severity.at_least(threshold)]


__all__ = [
    "ACKNOWLEDGE_METADATA_KEY",
    "CATALOGUE",
    "TRANSITION_RULES",
    "TRANSITION_RULES_BY_ID",
    "TransitionRule",
    "run_transition_rules",
    "PACK_NAME",
    "RULES",
    "RULES_BY_ID",
    "Rule",
    "acknowledgements",
    "at_or_above",
    "get_rule",
    "run_rules",
]
