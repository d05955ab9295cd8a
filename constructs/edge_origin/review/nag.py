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

The summary entry (``EdgeOrigin-Summary``, synth only): the CDK CLI passes
``@aws-cdk/core:failSynthOnValidationErrors=false`` and fails only on violations of the stacks
it selected, and stacks inside a ``Stage`` are not selected without a pattern (``'**'``). A
violation with no construct is kept whatever is selected (aws-cdk's
``cloud-assembly-api/lib/validation/loading.ts``, ``filterReportsByStacks``), so ``validate``
adds one: an ``error`` naming the stacks and counts when unacknowledged error findings exist
anywhere in the app (so ``cdk synth`` fails for Stage apps too), an ``info`` line ("N rules
over M stacks: no findings at or above error") when none do, so the report shows the pack ran.
Acknowledgements are applied by CDK after the plugin returns; the summary counts a finding as
acknowledged the way CDK does (``collect-acknowledged-rule-ids``: the
``aws:cdk:acknowledged-rules`` metadata on the finding's construct or its closest ancestor).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import jsii
from cdk_nag import NagPack

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel, load_model
from edge_origin.rules import PACK_NAME, RULES_BY_ID, run_rules

SUMMARY_RULE = f"{PACK_NAME}-Summary"
def _report_path(app: Any) -> str:
    """Where CDK writes the validation report: the app's real output folder (``App(outdir=)``,
    ``CDK_OUTDIR``, ``cdk synth -o``; a temporary folder for ``python app.py`` without either),
    relative to the current folder when it is below it."""
    import os

    try:
        outdir = str(app.node.root.outdir)
    except Exception:  # noqa: BLE001 - a scope without an outdir (unit tests): the CLI's default
        return "cdk.out/validation-report.json"
    try:
        rel = os.path.relpath(outdir)
        outdir = rel if not rel.startswith("..") else outdir
    except ValueError:  # another drive (Windows)
        pass
    return os.path.join(outdir, "validation-report.json")


# A resource without a construct path: the CLI keeps it for any stack selection and prints it.
_NO_CONSTRUCT = cdk.PolicyViolatingResource(locations=["edge-origin summary"])


def _acknowledged_paths(app: Any) -> dict[str, set[str]]:
    """Validation id -> construct paths acknowledging it (CDK stores ids normalized, ``Ns::Rule``)."""
    found: dict[str, set[str]] = {}
    for construct in [app, *app.node.find_all()]:
        for entry in construct.node.metadata:
            if entry.type == "aws:cdk:acknowledged-rules" and isinstance(entry.data, dict):
                for rule_id in entry.data:
                    found.setdefault(str(rule_id), set()).add(construct.node.path)
    return found


def _has_resources(template: Path) -> bool:
    """Whether a synthesized (JSON) template has a Resources mapping; unreadable ones are kept
    so that the loader reports them."""
    try:
        return bool(json.loads(template.read_text(encoding="utf-8")).get("Resources"))
    except (OSError, ValueError, AttributeError):
        return True


def _closest_acknowledged(path: str, acknowledged_at: set[str]) -> bool:
    """CDK's ``findClosestAck``: the path itself or any ancestor (``""`` is the app)."""
    while True:
        if path in acknowledged_at:
            return True
        if not path:
            return False
        path = path.rsplit("/", 1)[0] if "/" in path else ""


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
        self._model_stacks: set[str] = set()
        self._reported: list[tuple[str, Finding]] = []
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
        # an empty stack (no resources) is valid CDK: CDK writes a template without Resources
        self._model = load_model([p for p in map(Path, context.template_paths) if _has_resources(p)])
        try:
            report = self.validate_scope(app)
        finally:
            self._model = None
        paths = {s.artifact_id: s.node.path for s in app.node.find_all() if cdk.Stack.is_stack(s)}
        given = {Path(p).name.removesuffix(".template.json") for p in context.template_paths}
        summary = self._summary(app, sorted(paths.get(a, a) for a in given | self._model_stacks), paths)
        return cdk.PolicyValidationPluginReport(
            success=report.success and summary.severity != "error",
            violations=[*report.violations, summary],
        )

    def validate_scope(self, scope: Any) -> cdk.PolicyValidationPluginReport:
        """Run the rules over every stack of ``scope``'s app; report findings under ``scope``."""
        if self._busy:  # Template.from_stack re-entered synth with this pack registered
            return cdk.PolicyValidationPluginReport(success=True, violations=[])
        model = self._model or self._model_from_constructs(scope)
        self._model_stacks = set(model.templates)
        self.findings = run_rules(model)
        self._by_resource = {}
        for item in self.findings:
            self._by_resource.setdefault((item.stack, item.resource), []).append(item)
        self._matched = []
        super().validate_scope(scope)  # walks the tree: _check_resource collects (path, finding)
        violations = [self._violation(path, item) for path, item in self._matched]
        self._reported, self._matched = self._matched, []
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

    def _summary(self, app: Any, stacks: list[str], stack_paths: dict[str, str]) -> cdk.PolicyViolation:
        """One violation with no construct: kept by the CDK CLI whatever stacks it selected."""
        acknowledged = _acknowledged_paths(app)
        open_errors = [
            item for path, item in self._reported
            if item.severity.at_least(self._fail_on)
            and not _closest_acknowledged(path, acknowledged.get(f"{PACK_NAME}::{PACK_NAME}-{item.rule}", set()))
        ]
        scope = f"{len(RULES_BY_ID)} rules over {len(stacks)} stack(s) ({', '.join(stacks) or 'none'})"
        if open_errors:
            where = ", ".join(sorted({stack_paths.get(item.stack, item.stack) for item in open_errors}))
            rules = ", ".join(sorted({item.rule for item in open_errors}))
            return cdk.PolicyViolation(
                rule_name=SUMMARY_RULE,
                description=(
                    f"edge-origin: {len(open_errors)} unacknowledged finding(s) at or above {self._fail_on.value} "
                    f"({rules}) in {where}; {scope}. Each is listed under its resource in "
                    f"{_report_path(app)} (and by `cdk synth '**'`). This entry fails `cdk synth` "
                    "whatever stacks are selected (stacks inside a Stage included)"
                ),
                severity="error",
                violating_resources=[_NO_CONSTRUCT],
            )
        return cdk.PolicyViolation(
            rule_name=SUMMARY_RULE,
            description=f"edge-origin: {scope}: no unacknowledged findings at or above {self._fail_on.value}",
            severity="info",
            violating_resources=[_NO_CONSTRUCT],
        )

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
