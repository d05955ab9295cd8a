"""``EdgeOriginChecks``: the cdk-nag 3 pack that runs the edge-origin rules during ``cdk synth``.

Usage::

    Validations.of(app).add_plugins(EdgeOriginChecks())            # errors fail synth
    Validations.of(app).add_plugins(EdgeOriginChecks(fail_on=Severity.WARNING))

How it sees the app: the rules are cross-stack (a distribution in one stack, its records in
another), so the pack builds ONE ``TemplateModel`` from every stack of the app and runs the
same rule functions as the CLI (``edge_origin.rules.run_rules``) over it:

- inside synth, CDK calls ``validate(context)`` after writing the assembly; the pack reads
  ``context.template_paths`` (the resolved templates, so ``add_property_override`` is seen)
  through ``edge_origin.model.load_assembly`` with the nested stack templates they name
  (aws-cdk-lib hands plugins only the top-level templates; the loader follows each
  ``AWS::CloudFormation::Stack`` to its ``*.nested.template.json`` inside the assembly and
  resolves parameters, ``Outputs.X`` and exports across), so synth judges the same assembly as
  ``edge-origin check cdk.out``. Each finding names its construct by the template's
  ``aws:cdk:path`` metadata (no walk of the construct tree through jsii); without path metadata
  (``--no-path-metadata``) the pack walks the tree once to match (stack, logical id);
- ``validate_scope(scope)`` (unit tests) builds the templates with ``Template.from_stack`` for
  every stack of ``scope``'s app; do not register the pack on that app's ``Validations`` in
  the same test (synth would run it again).

Each finding is its own violation (its message, its construct path), built here rather than
with cdk-nag's ``applyRule``, which groups every finding of a rule under the first finding's
message. CDK itself applies acknowledgements to these violations. Severities: a finding at or
above ``fail_on`` (default ``Severity.ERROR``) is an ``error`` violation and fails synth;
findings below it are ``warning`` violations: printed in the validation report, synth passes
(the pack's report sets ``success`` from errors only). Acknowledge a finding with
``Validations.of(scope).acknowledge(Acknowledgment(id="EdgeOrigin::EdgeOrigin-EO-DNS1",
reason="..."))``: CDK suppresses it and keeps the reason in ``cdk.out/validation-report.json``.
Template metadata ``edge-origin:acknowledge`` (see ``rules``) works here and in the CLI.

Report-only (``EdgeOriginChecks(report_only=True)``, context ``edge-origin:reportOnly=true``
(``cdk synth -c edge-origin:reportOnly=true``, cdk.json) or the environment variable
``EDGE_ORIGIN_REPORT_ONLY=1`` for CI): every finding is recorded in the validation report, as
a ``warning`` violation whose text starts with its real severity (``[error] ...``), and synth
succeeds; ``edge-origin check cdk.out`` (or the GitHub Action) then fails on them. This is how
a pull-request workflow gets its review from a head that would fail synth (docs/review.md).

Baseline at synth (issue 51 item 3): context ``edge-origin:baseline=<file>`` (or
``EDGE_ORIGIN_BASELINE``) names a file ``edge-origin check --create-baseline`` wrote; findings it
holds pass (``edge_origin.review.baseline.apply_baseline``, the function ``check --baseline``
uses), new ones are reported as usual, and the summary counts both. A file that cannot be used
fails synth with one line naming it.

The summary entry (``EdgeOrigin-Summary``, synth only): the CDK CLI passes
``@aws-cdk/core:failSynthOnValidationErrors=false`` and fails only on violations of the stacks
it selected, and stacks inside a ``Stage`` are not selected without a pattern (``'**'``). A
violation with no construct is kept whatever is selected (aws-cdk's
``cloud-assembly-api/lib/validation/loading.ts``, ``filterReportsByStacks``), so ``validate``
adds one: an ``error`` naming the stacks and counts when unacknowledged error findings exist
anywhere in the app (so ``cdk synth`` fails for Stage apps too); a ``warning`` in report-only
mode naming what would have failed; an ``info`` line when findings exist but none is open at
``fail_on``; nothing at all on a clean synth (the CDK CLI prints "Acknowledge with ..." under
every violation, which a clean run should not show). Acknowledgements are applied by CDK after
the plugin returns; the summary counts a finding as acknowledged the way CDK does
(``collect-acknowledged-rule-ids``: the ``aws:cdk:acknowledged-rules`` metadata on the
finding's construct or its closest ancestor), reading that metadata only on the constructs of
findings at or above ``fail_on`` and their ancestors (a clean synth reads none). CDK takes an
acknowledgement without a reason (``reason=""``) and suppresses the violation; the summary does
not count it (the finding stays open, synth fails, the summary names it), and an app-level
acknowledgement of the summary itself without a reason fails synth with one line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import jsii

from edge_origin.core.escape import plain, reason_text
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import LoadedTemplate, load_assembly, read_paths
from edge_origin.model.template_model import collector_paused
from edge_origin.rules import PACK_NAME, RULES_BY_ID, run_rules

SUMMARY_RULE = f"{PACK_NAME}-Summary"
#: Context key (``cdk synth -c edge-origin:reportOnly=true``) and its environment twin for CI.
REPORT_ONLY_CONTEXT = "edge-origin:reportOnly"
REPORT_ONLY_ENV = "EDGE_ORIGIN_REPORT_ONLY"
#: Context key and environment twin naming a baseline file (``edge-origin check --create-baseline FILE``).
BASELINE_CONTEXT = "edge-origin:baseline"
BASELINE_ENV = "EDGE_ORIGIN_BASELINE"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")


def report_only_setting(context_value: object, environ: dict[str, str] | None = None) -> bool:
    """Report-only from the context value (``true``/``false``, a bool) or ``EDGE_ORIGIN_REPORT_ONLY``.

    Either one turning it on is enough. A value that is neither raises ``ValueError`` with one
    line naming the key and the allowed values (a typo must not silently fail or pass synth)."""
    environ = os.environ if environ is None else environ
    on = False
    for where, raw in ((REPORT_ONLY_CONTEXT, context_value), (REPORT_ONLY_ENV, environ.get(REPORT_ONLY_ENV))):
        if raw is None or isinstance(raw, bool):
            on = on or bool(raw)
            continue
        text = str(raw).strip().lower()
        if text not in _TRUE + _FALSE:
            raise ValueError(f"{where}={raw!r}: allowed values are true/false (or 1/0)")
        on = on or text in _TRUE
    return on


def _report_path(app: Any) -> str:
    """Where CDK writes the validation report: the app's real output folder (``App(outdir=)``,
    ``CDK_OUTDIR``, ``cdk synth -o``; a temporary folder for ``python app.py`` without either),
    relative to the current folder when it is below it."""
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


def _read_template(template: Path) -> dict[str, Any] | None:
    """A synthesized (JSON) template, or None when it cannot be read (the loader then reports it)."""
    try:
        body = json.loads(template.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def _has_resources(template: Path) -> bool:
    """Whether a top-level template has resources (CDK writes an empty stack's template without
    any); unreadable ones are kept so that the loader names them."""
    body = _read_template(template)
    return body is None or bool(body.get("Resources"))


def _nested_paths(model: TemplateModel) -> dict[str, str]:
    """``{nested template file's stack name: the nested stack's construct path}``: from the
    ``aws:cdk:path`` of its ``AWS::CloudFormation::Stack`` resource in the parent (CDK writes
    ``.../<Id>.NestedStack/<Id>.NestedStackResource``), else ``<parent>/<logical id>``."""
    out: dict[str, str] = {}
    for loaded in model.templates.values():
        if loaded.parent is None:
            continue
        parent_stack, logical_id = loaded.parent
        resource = model.resource(parent_stack, logical_id)
        path = resource.path if resource is not None else ""
        if path.count("/") >= 2:
            out[_file_stack(loaded.template)] = path.rsplit("/", 2)[0] + "/" + path.rsplit("/", 1)[-1].removesuffix(".NestedStackResource")
        else:
            out[_file_stack(loaded.template)] = f"{parent_stack}/{logical_id}"
    return out


def _closest_acknowledged(path: str, acknowledged_at: set[str]) -> bool:
    """CDK's ``findClosestAck``: the path itself or any ancestor (``""`` is the app)."""
    while True:
        if path in acknowledged_at:
            return True
        if not path:
            return False
        path = path.rsplit("/", 1)[0] if "/" in path else ""


def _reasonless(every: dict[str, dict[str, str]], findings: Iterable[tuple[str, Finding]]) -> str:
    """``"EO-DNS1 at App/Stack"``... for each open finding whose closest acknowledgement CDK
    applied has no reason (or one that shows nothing)."""
    out: set[str] = set()
    for path, item in findings:
        at = every.get(f"{PACK_NAME}::{PACK_NAME}-{item.rule}", {})
        closest = next((a for a in _ancestors(path) if a in at), None)
        if closest is not None and not reason_text(at[closest]):
            out.add(f"{item.rule} at {closest or 'the app'}")
    return ", ".join(sorted(out))


def _metadata_split(model: TemplateModel, findings: list[Finding]) -> tuple[list[Finding], str]:
    """``findings`` without those template Metadata ``edge-origin:acknowledge`` sets aside, and what
    the summary says of those (they are not dropped silently: "" when none)."""
    from edge_origin.rules import acknowledgements

    acks = acknowledgements(model)
    kept, acked = [], []
    for item in findings:
        reason = acks.get((item.stack, item.resource), {}).get(item.rule)
        (kept if reason is None else acked).append((item, reason))
    if not acked:
        return findings, ""
    shown = [f"{item.rule} on {item.stack}/{item.resource}: {plain(reason, 200)}" for item, reason in acked[:5]]
    more = f"; and {len(acked) - 5} more" if len(acked) > 5 else ""
    return [item for item, _ in kept], (
        f"{len(acked)} finding(s) acknowledged in template Metadata edge-origin:acknowledge ({'; '.join(shown)}{more})"
    )


def _ancestors(path: str) -> list[str]:
    """``path`` and every ancestor, the app (``""``) last."""
    parts = path.split("/") if path else []
    return ["/".join(parts[:i]) for i in range(len(parts), -1, -1)]


def acknowledged_rules(app: Any, paths: Iterable[str]) -> dict[str, set[str]]:
    """``{validation id: construct paths acknowledging it with a reason}`` read from the constructs
    at ``paths`` and their ancestors only (one jsii look-up per construct; CDK stores ids as
    ``Ns::Rule``). An acknowledgement whose reason shows nothing (CDK takes ``reason=""``) does
    not count: its finding stays open in the summary (``core.escape.reason_text``)."""
    return {rule: {p for p, reason in at.items() if reason_text(reason)} for rule, at in acknowledgements_at(app, paths).items()}


def acknowledgements_at(app: Any, paths: Iterable[str]) -> dict[str, dict[str, str]]:
    """``{validation id: {construct path: reason}}`` of every acknowledgement on the constructs at
    ``paths`` and their ancestors (the reason as CDK stored it, "" when none)."""
    found: dict[str, dict[str, str]] = {}
    constructs: dict[str, Any] = {"": app}
    for path in {a for p in paths for a in _ancestors(p)}:
        node = app
        for depth, part in enumerate(path.split("/") if path else []):
            prefix = "/".join(path.split("/")[: depth + 1])
            if prefix not in constructs:
                constructs[prefix] = node.node.try_find_child(part) if node is not None else None
            node = constructs[prefix]
    for path, construct in constructs.items():
        if construct is None:
            continue
        for entry in construct.node.metadata:
            if entry.type == "aws:cdk:acknowledged-rules" and isinstance(entry.data, dict):
                for rule_id, reason in entry.data.items():
                    found.setdefault(str(rule_id), {})[path] = reason if isinstance(reason, str) else ""
    return found


@jsii.implements(cdk.IPolicyValidationPlugin)
class EdgeOriginChecks:
    """The edge-origin rules as a CDK validation plugin (aws-cdk-lib's ``IPolicyValidationPlugin``).

    Not a cdk-nag ``NagPack``: it imports nothing from cdk-nag, so it runs beside cdk-nag 3 packs
    (validation plugins too) and beside cdk-nag 2 packs (Aspects) alike. ``scope`` is accepted
    and unused, as cdk-nag 3 packs take one (``EdgeOriginChecks(app)`` reads like them)."""

    def __init__(
        self, scope: Any = None, *, fail_on: Severity = Severity.ERROR, verbose: bool = False, report_only: bool | None = None
    ) -> None:
        del scope
        self._fail_on = Severity(fail_on)
        self._verbose = verbose
        self._report_only = report_only
        self._busy = False
        self._reported: list[tuple[str, Finding]] = []
        self.findings: list[Finding] = []

    @property
    def name(self) -> str:
        return PACK_NAME

    @property
    def version(self) -> str:
        from edge_origin._version import __version__

        return __version__

    @property
    def rule_ids(self) -> list[str]:
        return [f"{PACK_NAME}-{rule_id}" for rule_id in RULES_BY_ID]

    @property
    def fail_on(self) -> Severity:
        return self._fail_on

    def report_only(self, app: Any) -> bool:
        """Whether this synth only records findings: the constructor's ``report_only`` when given,
        else context ``edge-origin:reportOnly`` or ``EDGE_ORIGIN_REPORT_ONLY``."""
        if self._report_only is not None:
            return self._report_only
        return report_only_setting(app.node.try_get_context(REPORT_ONLY_CONTEXT))

    # --- entry points -----------------------------------------------------------------------
    def validate(self, context: cdk.IPolicyValidationContext) -> cdk.PolicyValidationPluginReport:
        """Called by CDK during synth with the written templates and the app construct.

        A synth with no finding costs one jsii call (``templatePaths``): the app construct, the
        report-only setting and the stack paths are read only when there is something to report."""
        given = list(context.template_paths)
        top = [Path(p) for p in given if _has_resources(Path(p))]  # nested stacks: load_assembly follows them
        if not top:  # only empty stacks (valid CDK: templates without Resources)
            return cdk.PolicyValidationPluginReport(success=True, violations=[])
        model = _assembly_model(top)
        judged = {_file_stack(t.template) for t in model.templates.values()}
        self.findings, in_metadata = _metadata_split(model, run_rules(model, honour_acknowledgements=False))
        self._reported = []
        if not self.findings and not in_metadata:
            return cdk.PolicyValidationPluginReport(success=True, violations=[])
        app = jsii.get(context, "appConstruct")
        baseline_note = "; ".join(n for n in (self._apply_baseline(app), in_metadata) if n)
        matched = self._match_by_metadata(model)
        # templates without aws:cdk:path (`python app.py`, --no-path-metadata): match through the construct tree
        self._reported = matched if matched is not None else self._match_by_tree(app, self.findings)
        report_only = self.report_only(app)
        violations = [self._violation(path, item, report_only) for path, item in self._reported]
        stack_paths = {**_stack_paths(context, given), **_nested_paths(model)}
        names = {_file_stack(p) for p in given} | judged
        stacks = sorted(stack_paths.get(a, a) for a in names)
        summary = self._summary(app, stacks, stack_paths, report_only, baseline_note)
        if summary is not None:
            violations.append(summary)
        return cdk.PolicyValidationPluginReport(
            success=not any(v.severity == "error" for v in violations), violations=violations
        )

    def validate_scope(self, scope: Any) -> cdk.PolicyValidationPluginReport:
        """Run the rules over every stack of ``scope``'s app; report findings under ``scope``."""
        if self._busy:  # Template.from_stack re-entered synth with this pack registered
            return cdk.PolicyValidationPluginReport(success=True, violations=[])
        self.findings = run_rules(self._model_from_constructs(scope))
        self._reported = self._match_by_tree(scope, self.findings)
        violations = [self._violation(path, item, False) for path, item in self._reported]
        return cdk.PolicyValidationPluginReport(
            success=not any(v.severity == "error" for v in violations), violations=violations
        )

    # --- internals --------------------------------------------------------------------------
    def _match_by_metadata(self, model: TemplateModel) -> list[tuple[str, Finding]] | None:
        """``(construct path, finding)`` from each resource's ``aws:cdk:path``; None when a finding's
        resource has none (then the construct tree decides)."""
        out: list[tuple[str, Finding]] = []
        for item in self.findings:
            resource = model.resource(item.stack, item.resource)
            if resource is None:  # no resource of the templates (the tree walk would not match it either)
                continue
            if not resource.path:
                return None
            out.append((resource.path, item))
        return out

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

    def _summary(
        self, app: Any, stacks: list[str], stack_paths: dict[str, str], report_only: bool, baseline_note: str = ""
    ) -> cdk.PolicyViolation | None:
        """One violation with no construct (kept by the CDK CLI whatever stacks it selected), or
        None on a clean synth (no findings: nothing to say, nothing to acknowledge)."""
        if not self._reported and not baseline_note:
            return None
        at_fail = [(path, item) for path, item in self._reported if item.severity.at_least(self._fail_on)]
        every = acknowledgements_at(app, [path for path, _ in at_fail]) if at_fail else {}
        acknowledged = {rule: {p for p, reason in at.items() if reason_text(reason)} for rule, at in every.items()}
        open_errors = [
            item for path, item in at_fail
            if not _closest_acknowledged(path, acknowledged.get(f"{PACK_NAME}::{PACK_NAME}-{item.rule}", set()))
        ]
        scope = f"{len(RULES_BY_ID)} rules over {len(stacks)} stack(s) ({', '.join(stacks) or 'none'})"
        blank = _reasonless(every, [(path, item) for path, item in at_fail if item in open_errors])
        if blank:  # CDK suppressed these violations; the summary keeps them open and says why
            scope += f"; CDK acknowledgement(s) without a reason, not applied (every acknowledgement needs one): {blank}"
        if baseline_note:
            scope += f"; {baseline_note}"
        if not open_errors:
            return cdk.PolicyViolation(
                rule_name=SUMMARY_RULE,
                description=f"edge-origin: {scope}: no unacknowledged findings at or above {self._fail_on.value}",
                severity="info",
                violating_resources=[_NO_CONSTRUCT],
            )
        where = ", ".join(sorted({stack_paths.get(_file_stack(item.template), item.stack) for item in open_errors}))
        rules = ", ".join(sorted({item.rule for item in open_errors}))
        counted = (
            f"{len(open_errors)} unacknowledged finding(s) at or above {self._fail_on.value} ({rules}) in {where}; {scope}. "
            f"Each is listed under its resource in {_report_path(app)} (and by `cdk synth '**'`)"
        )
        if report_only:
            return cdk.PolicyViolation(
                rule_name=SUMMARY_RULE,
                description=(
                    f"edge-origin (report-only: {REPORT_ONLY_CONTEXT} / {REPORT_ONLY_ENV}): {counted}. Synth passes; "
                    "`edge-origin check` of this cdk.out (or the GitHub Action) fails on them"
                ),
                severity="warning",
                violating_resources=[_NO_CONSTRUCT],
            )
        summary_ack = acknowledgements_at(app, [""]).get(f"{PACK_NAME}::{SUMMARY_RULE}", {})
        if "" in summary_ack and not reason_text(summary_ack[""]):
            # CDK would suppress this entry (it has no construct: the app's acknowledgement applies)
            raise ValueError(f"edge-origin: {counted}; {PACK_NAME}::{SUMMARY_RULE} is acknowledged at the app without a "
                             "reason: not applied (every acknowledgement needs one)")
        return cdk.PolicyViolation(
            rule_name=SUMMARY_RULE,
            description=(
                f"edge-origin: {counted}. This entry fails `cdk synth` whatever stacks are selected "
                f"(stacks inside a Stage included); `-c {REPORT_ONLY_CONTEXT}=true` records them and lets synth pass"
            ),
            severity="error",
            violating_resources=[_NO_CONSTRUCT],
        )

    def _match_by_tree(self, scope: Any, findings: list[Finding]) -> list[tuple[str, Finding]]:
        """``(construct path, finding)`` for every CfnResource under ``scope`` that a finding names,
        matched by (template file, logical id): a nested stack's model name is Parent/Child."""
        by_resource: dict[tuple[str, str], list[Finding]] = {}
        for item in findings:
            by_resource.setdefault((_file_stack(item.template), item.resource), []).append(item)
        matched: list[tuple[str, Finding]] = []
        for node in [scope, *scope.node.find_all()]:
            if not cdk.CfnResource.is_cfn_resource(node):
                continue
            stack = cdk.Stack.of(node)
            items = by_resource.get((_file_stack(stack.template_file), stack.resolve(node.logical_id)), ())
            if items:
                path = node.node.path
                matched.extend((path, item) for item in items)
        return matched

    def _apply_baseline(self, app: Any) -> str:
        """With a baseline (context ``edge-origin:baseline`` or ``EDGE_ORIGIN_BASELINE``: a file
        ``edge-origin check --create-baseline`` wrote), keep only the findings it does not hold, as
        ``check --baseline`` does; returns what the summary says of it ("" without one). A file
        that cannot be used raises ``ValueError`` with one line (CDK fails synth with it)."""
        raw = app.node.try_get_context(BASELINE_CONTEXT) or os.environ.get(BASELINE_ENV) or ""
        if not str(raw).strip():
            return ""
        from edge_origin.review.baseline import BaselineError, apply_baseline

        try:
            split = apply_baseline(self.findings, str(raw).strip())
        except BaselineError as exc:
            raise ValueError(f"{BASELINE_CONTEXT}: {exc}") from None
        self.findings = split.new
        return f"{len(split.known)} finding(s) in the baseline {raw} pass, {len(split.fixed)} of its entries are fixed"

    def _violation(self, path: str, item: Finding, report_only: bool) -> cdk.PolicyViolation:
        """One violation per finding: its own message and resource (cdk-nag's ``applyRule`` groups
        every finding of a rule under the first one's message). Report-only: a warning that says
        its real severity first."""
        failing = item.severity.at_least(self._fail_on)
        level = "error" if failing and not report_only else "warning"
        description = f"{item.message}. Fix: {item.fix}" if item.fix else item.message
        if report_only:
            description = f"[{item.severity.value}{', fails check' if failing else ''}] {description}"
        rule = RULES_BY_ID.get(item.rule)
        if self._verbose and rule is not None:
            description += f" Why: {rule.incident} Acknowledge: {rule.acknowledge}"
        return cdk.PolicyViolation(
            rule_name=f"{PACK_NAME}-{item.rule}",
            description=description,
            severity=level,
            rule_metadata={"edge-origin:severity": item.severity.value},
            violating_resources=[cdk.PolicyViolatingResource(construct_path=path, locations=["Properties"])],
        )


def _file_stack(template: str | Path) -> str:
    """A template file's name without ``.template.json``: the key the plugin names stacks by."""
    return Path(template).name.removesuffix(".template.json")


def _assembly_model(top: Sequence[Path]) -> TemplateModel:
    """One model of the given top-level templates and their nested stacks (``load_assembly`` per
    assembly folder: the root and each Stage's), so values cross the nesting as ``check`` sees them."""
    by_folder: dict[Path, list[Path]] = {}
    for path in top:
        by_folder.setdefault(path.parent, []).append(path)
    loaded: list[LoadedTemplate] = []
    with collector_paused():
        for folder, paths in by_folder.items():
            if (folder / "manifest.json").is_file():
                loaded += load_assembly(folder, paths)
            else:  # templates outside an assembly (a hand-made context): the files as given
                loaded += read_paths(paths)
        return TemplateModel(loaded)


def _stack_paths(context: Any, template_paths: Sequence[str]) -> dict[str, str]:
    """``{template file's stack name: stack construct path}``: from each assembly folder's
    ``manifest.json`` (a stack artifact's ``displayName`` is its construct path), else from the
    context's ``stackTemplates`` (jsii calls), else the template's own name."""
    out = {_file_stack(p): _file_stack(p) for p in template_paths}
    missing = set(out)
    for folder in {Path(p).parent for p in template_paths}:
        manifest = _read_template(folder / "manifest.json") or {}
        artifacts = manifest.get("artifacts")
        for artifact_id, artifact in artifacts.items() if isinstance(artifacts, dict) else ():
            props = artifact.get("properties") if isinstance(artifact, dict) else None
            template = props.get("templateFile") if isinstance(props, dict) else None
            if isinstance(template, str) and _file_stack(template) in out:
                display = artifact.get("displayName")
                out[_file_stack(template)] = display if isinstance(display, str) and display else artifact_id
                missing.discard(_file_stack(template))
    if not missing:
        return out
    try:
        stacks = context.stack_templates or []
    except Exception:  # noqa: BLE001 - an aws-cdk-lib without stackTemplates
        return out
    for item in stacks:
        out[_file_stack(item.template_path)] = item.stack_construct_path
    return out
