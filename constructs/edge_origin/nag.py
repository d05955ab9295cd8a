"""``EdgeOriginChecks``: the cdk-nag 3 pack that runs the edge-origin rules during ``cdk synth``.

Usage::

    Validations.of(app).add_plugins(EdgeOriginChecks())            # errors fail synth
    Validations.of(app).add_plugins(EdgeOriginChecks(fail_on=Severity.WARNING))

How it sees the app: the rules are cross-stack (a distribution in one stack, its records in
another), so the pack builds ONE ``TemplateModel`` from every stack of the app and runs the
same rule functions as the CLI (``edge_origin.rules.run_rules``) over it:

- inside synth, CDK calls ``validate(context)`` after writing the templates; the pack reads
  ``context.template_paths`` (the resolved templates, so ``add_property_override`` is seen),
  and walks ``appConstruct`` to attach each finding to its ``CfnResource``;
- ``validate_scope(scope)`` (unit tests) builds the templates with ``Template.from_stack`` for
  every stack of ``scope``'s app; do not register the pack on that app's ``Validations`` in
  the same test (synth would run it again).

Findings are matched to constructs by (stack artifact id, logical id); each finding is its own
violation (its message, its construct path), built here rather than with cdk-nag's
``applyRule``, which groups every finding of a rule under the first finding's message. CDK
itself applies acknowledgements to these violations. Severities: a finding
at or above ``fail_on`` (default ``Severity.ERROR``) is an ``error`` violation and fails synth;
findings below it are ``warning`` violations: printed in the validation report, synth passes
(the pack's report sets ``success`` from errors only). Acknowledge a finding with
``Validations.of(scope).acknowledge(Acknowledgment(id="EdgeOrigin::EdgeOrigin-EO-DNS1",
reason="..."))``: CDK suppresses it and keeps the reason in ``cdk.out/validation-report.json``.
Template metadata ``edge-origin:acknowledge`` (see ``rules``) works here and in the CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aws_cdk as cdk
import jsii
from cdk_nag import NagPack

from edge_origin.findings import Finding, Severity
from edge_origin.model import TemplateModel, load_model
from edge_origin.rules import PACK_NAME, RULES_BY_ID, run_rules


class EdgeOriginChecks(NagPack):
    """The edge-origin rules as a CDK validation plugin (cdk-nag 3 NagPack)."""

    def __init__(self, scope: Any = None, *, fail_on: Severity = Severity.ERROR, verbose: bool = False) -> None:
        super().__init__(scope, verbose=verbose)
        self._pack_name = PACK_NAME
        self._fail_on = Severity(fail_on)
        self._verbose = verbose
        self._model: TemplateModel | None = None
        self._by_resource: dict[tuple[str, str], list[Finding]] = {}
        self._matched: list[tuple[str, Finding]] = []
        self._busy = False
        self.findings: list[Finding] = []

    @property
    def name(self) -> str:
        return PACK_NAME

    @property
    def fail_on(self) -> Severity:
        return self._fail_on

    # --- entry points -----------------------------------------------------------------------
    def validate(self, context: cdk.IPolicyValidationContext) -> cdk.PolicyValidationPluginReport:
        """Called by CDK during synth with the written templates and the app construct."""
        app = jsii.get(context, "appConstruct")
        self._model = load_model([Path(p) for p in context.template_paths])
        try:
            return self.validate_scope(app)
        finally:
            self._model = None

    def validate_scope(self, scope: Any) -> cdk.PolicyValidationPluginReport:
        """Run the rules over every stack of ``scope``'s app; report findings under ``scope``."""
        if self._busy:  # Template.from_stack re-entered synth with this pack registered
            return cdk.PolicyValidationPluginReport(success=True, violations=[])
        model = self._model or self._model_from_constructs(scope)
        self.findings = run_rules(model)
        self._by_resource = {}
        for item in self.findings:
            self._by_resource.setdefault((item.stack, item.resource), []).append(item)
        self._matched = []
        super().validate_scope(scope)  # walks the tree: _check_resource collects (path, finding)
        violations = [self._violation(path, item) for path, item in self._matched]
        self._matched = []
        return cdk.PolicyValidationPluginReport(
            success=not any(v.severity == "error" for v in violations), violations=violations
        )

    # --- internals --------------------------------------------------------------------------
    def _model_from_constructs(self, scope: Any) -> TemplateModel:
        from aws_cdk.assertions import Template

        root = scope.node.root
        stacks = [c for c in root.node.find_all() if cdk.Stack.is_stack(c) and not c.nested]
        self._busy = True
        try:
            templates = {s.artifact_id: Template.from_stack(s).to_json() for s in stacks}
        finally:
            self._busy = False
        templates = {k: v for k, v in templates.items() if v.get("Resources")}
        return TemplateModel.from_templates(templates)

    def _check_resource(self, node: cdk.CfnResource) -> None:
        stack = cdk.Stack.of(node)
        logical_id = stack.resolve(node.logical_id)
        items = self._by_resource.get((stack.artifact_id, logical_id), ())
        if items:
            path = node.node.path
            self._matched.extend((path, item) for item in items)

    def _violation(self, path: str, item: Finding) -> cdk.PolicyViolation:
        """One violation per finding: its own message and resource (cdk-nag's ``applyRule`` groups
        every finding of a rule under the first one's message)."""
        level = "error" if item.severity.at_least(self._fail_on) else "warning"
        description = f"{item.message}. Fix: {item.fix}" if item.fix else item.message
        rule = RULES_BY_ID.get(item.rule)
        if self._verbose and rule is not None:
            description += f" Why: {rule.incident} Acknowledge: {rule.acknowledge}"
        return cdk.PolicyViolation(
            rule_name=f"{PACK_NAME}-{item.rule}",
            description=description,
            severity=level,
            violating_resources=[cdk.PolicyViolatingResource(construct_path=path, locations=["Properties"])],
        )
