"""The review report: Markdown (verdict, findings, Mermaid per path, records, idle timeouts) or a short text plan.

Made to read in ten seconds (issue 51): the first line is the verdict with counts; the findings
come next, errors first; each diagram and table appears once (a change review draws the head's
paths once, in the paths section, and only the base's "before" view in the change section).

Deterministic: the same templates give byte-identical output (no timestamps, no absolute paths
beyond what the caller passed, stable ordering by template order and name).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edge_origin.core.escape import (
    MAX_NAME,
    MAX_SUMMARY_BYTES,
    fit_markdown,
    md_code,
    plain,
    shorten,
)
from edge_origin.core.findings import Finding, Severity
from edge_origin.core.origin_verification import METADATA_KEY as VERIFICATION_METADATA_KEY
from edge_origin.core.origin_verification import VerificationStatus, verification_status
from edge_origin.model import LoadBalancerView, RecordSetView, TemplateModel, display_value
from edge_origin.review import report_vpc
from edge_origin.review.checker import budgeted_rows, markdown_rows
from edge_origin.review.report_parts import (  # noqa: F401 - _mm, _Graph, MAX_DIAGRAM_NODES: kept importable from here
    MAX_DIAGRAM_NODES,
    _eip_place,
    _Graph,
    _idle,
    _lb_kind,
    _lb_zones,
    _md,
    _mm,
)
from edge_origin.rules import run_rules

REPORT_FORMATS = ("markdown", "text")
#: Characters of one line of the text plan (names in it are shortened to ``MAX_NAME`` each).
TEXT_LINE = 20 * MAX_NAME

#: Bytes of the findings section; the rest of the report fits in what is left of MAX_SUMMARY_BYTES.
FINDINGS_BYTES = 600_000
#: Bytes of the "What this change does" section of ``report --base --head``.
CHANGE_SECTION_BYTES = 250_000


def _hc(record: RecordSetView) -> str:
    hc = record.health_check
    if hc is not None:
        return f"{hc.resource.logical_id} {hc.type or '?'}:{hc.port if hc.port is not None else '-'}"
    return display_value(record.health_check_id) if record.health_check_id is not None else "none"


def _value_zone(model: TemplateModel, value: object) -> str:
    eip = model.eip(value)
    return _eip_place(eip) if eip is not None else "?"


def _record_zone(model: TemplateModel, record: RecordSetView, value: object) -> str:
    """Where a record's value lands: an EIP's zone; for an alias (or a CNAME chain) to load
    balancers, their zones (an alias answers with every zonal address of its NLB)."""
    if record.alias_target is None and model.eip(value) is not None:
        return _value_zone(model, value)
    lbs = model.record_load_balancers(record) if record.alias_target is not None else []
    if not lbs and record.alias_target is None and record.values:
        lbs = [lb for lb, _ in _chain_ends(model, record.name, record)] if record.name else []
    zones = sorted({z for lb in lbs for z in _lb_zones(lb).split(", ") if z and z != "?"})
    return ", ".join(zones) if zones else _value_zone(model, value)


def _capacity(lb: LoadBalancerView) -> str:
    """The NLB's LCU reservation (``MinimumLoadBalancerCapacity``) and each zone's even share."""
    if lb.capacity_unknown:
        return "capacity decided at deploy time"
    if lb.capacity_units is None:
        return "no capacity reserved"
    share = lb.capacity_per_zone
    per_zone = f", {share:g} a zone over {lb.zone_count}" if share is not None else ""
    return f"capacity {lb.capacity_units} LCU{per_zone}"


def _origins_by_name(model: TemplateModel) -> dict[object, list[tuple[Any, Any]]]:
    """``{origin DomainName: [(distribution, origin), ...]}`` in template order, built once a model (the
    report asks per name: scanning every origin of every distribution for each was names x origins,
    2 s of a 4 s review of 2,000 names)."""
    index = model.__dict__.get("_report_origins_by_name")
    if index is None:
        index = {}
        for dist in model.distributions:
            for origin in dist.origins:
                try:
                    index.setdefault(origin.domain_name, []).append((dist, origin))
                except TypeError:  # an unhashable deploy-time value: no name asks for it
                    continue
        model.__dict__["_report_origins_by_name"] = index
    return index


def _users(model: TemplateModel, name: str) -> list[str]:
    out: list[str] = []
    for dist, _ in _origins_by_name(model).get(name, ()):
        label = f"{dist.resource.stack}/{dist.resource.logical_id}"
        if label not in out:
            out.append(label)
    return out


def _verifications(model: TemplateModel, name: str) -> list[tuple[str, str, VerificationStatus]]:
    """``(distribution, origin id, status)`` of every CloudFront origin of ``name``: header names only,
    never a value."""
    out = []
    for dist, origin in _origins_by_name(model).get(name, ()):
        meta = dist.resource.metadata.get(VERIFICATION_METADATA_KEY)
        declared = meta.get("header") if isinstance(meta, dict) else None
        status = verification_status(origin.custom_headers, declared)
        out.append((f"{dist.resource.stack}/{dist.resource.logical_id}", origin.id, status))
    return out


def _verification_label(status: VerificationStatus) -> str:
    if status.state == "none":
        return "origin NOT verified"
    if status.state in ("plaintext", "parameter"):
        return f"{status.header} PLAINTEXT"
    if status.state == "deploy-time":
        return f"{status.header} set at deploy time: not judged"
    return f"verified: {status.header}"


def _chain_ends(model: TemplateModel, name: str, record: RecordSetView) -> list[tuple[LoadBalancerView, str]]:
    """Load balancers the answer model reaches from this record through a chain, with the chain."""
    zones = model.zones
    key = getattr(zones.record(record), "key", None)
    if key is None:
        return []
    out: dict[int, tuple[LoadBalancerView, str]] = {}
    for answer in _answers_by_first_record(model, name).get(key, ()):
        hops = " -> ".join(h.key.name for h in answer.chain[1:]) or record.type or "alias"
        for lb in zones.answer_load_balancers(model, answer):
            out.setdefault(id(lb), (lb, hops))
    return list(out.values())


def _answers_by_first_record(model: TemplateModel, name: str) -> dict[object, list]:
    """The answers for ``name`` that lead somewhere, by the record their chain starts at: built once
    a name and kept on the model (a name with N record sets is drawn and tabled record by record:
    scanning every answer for each record was N x N, 13 s for 3,920 weighted records)."""
    cache = model.__dict__.setdefault("_report_answers_by_first_record", {})
    if name not in cache:
        index: dict[object, list] = {}
        for item in model.zones.name_resolutions(name, cloudfront=False):
            for answer in item.resolution.answers:
                if answer.chain and (len(answer.chain) >= 2 or answer.load_balancers):
                    index.setdefault(answer.chain[0].key, []).append(answer)
        cache[name] = index
    return cache[name]


def _mermaid(model: TemplateModel, name: str, kind: str) -> str:
    g = _Graph()
    origin = g.node(f"name:{name}", f"{name} ({kind})")
    for user, _, status in _verifications(model, name):
        g.edge(g.node(f"dist:{user}", f"CloudFront {user}"), origin, _verification_label(status))
    for record in model.record_sets(name):
        rec = g.node(
            f"rec:{record.stack}/{record.label}",
            f"{record.label} {record.routing_policy}"
            + (f" {display_value(record.set_identifier)}" if record.set_identifier is not None else "")
            + (f" TTL {record.ttl}" if record.ttl is not None else ""),
        )
        g.edge(origin, rec)
        lbs: list[LoadBalancerView] = []
        for value in record.values:
            eip = model.eip(value)
            if eip is None:
                g.edge(rec, g.node(f"val:{display_value(value)}", display_value(value)))
                continue
            node = g.node(f"eip:{eip.resource.stack}/{eip.resource.logical_id}", f"EIP {eip.resource.logical_id} ({_eip_place(eip)})")
            g.edge(rec, node)
            for lb in eip.load_balancers:
                g.edge(node, g.node(f"lb:{lb.resource.stack}/{lb.resource.logical_id}", f"NLB {lb.resource.logical_id}"))
                lbs.append(lb)
        if record.alias_target is not None:
            for lb in model.record_load_balancers(record):
                g.edge(rec, g.node(f"lb:{lb.resource.stack}/{lb.resource.logical_id}", f"NLB {lb.resource.logical_id}"), "alias")
                lbs.append(lb)
        if not lbs:
            for lb, chain in _chain_ends(model, name, record):  # CNAME / alias chains: draw where they end
                g.edge(rec, g.node(f"lb:{lb.resource.stack}/{lb.resource.logical_id}", f"{_lb_kind(lb)} {lb.resource.logical_id}"), chain)
                lbs.append(lb)
        for lb in lbs:
            lb_node = g.ids.get(f"lb:{lb.resource.stack}/{lb.resource.logical_id}", "")
            for listener in lb.listeners:
                for tg in listener.target_groups:
                    tg_node = g.node(f"tg:{tg.resource.stack}/{tg.resource.logical_id}", f"TG {tg.resource.logical_id} {tg.protocol or ''}:{tg.port or ''}")
                    g.edge(lb_node, tg_node, f"{listener.protocol} :{listener.port} idle {_idle(listener.protocol, listener.idle_timeout)}")
    if g.left_out:
        g.lines.append(f'  more["{g.left_out} more nodes not drawn"]')
    return "```mermaid\nflowchart LR\n" + "\n".join(g.lines) + "\n```"


def _records_table(model: TemplateModel, names: Sequence[str]) -> list[str]:
    lines = [
        "| Name | Record | Policy | Set id | Value | Zone | Health check | TTL |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in names:
        for record in model.record_sets(name):
            values = record.values or ([record.alias_target.dns_name] if record.alias_target else [])
            for value in values or ["-"]:
                lines.append(
                    f"| {_md(name)} | {md_code(f'{record.stack}/{record.label}')} | {_md(record.routing_policy)} | "
                    f"{_md(display_value(record.set_identifier))} | {_md(display_value(value))} | {_md(_record_zone(model, record, value))} | "
                    f"{_md(_hc(record))} | {_md(record.ttl) if record.ttl is not None else '-'} |"
                )
    return lines


def _listener_table(model: TemplateModel, names: Sequence[str]) -> list[str]:
    lines = ["| NLB | Listener | Protocol | Port | Idle timeout | Target groups |", "|---|---|---|---|---|---|"]
    seen: set[tuple[str, str]] = set()
    for name in names:
        for lb in model.load_balancers_for_name(name):
            for li in lb.listeners:
                if li.resource.key in seen:
                    continue
                seen.add(li.resource.key)
                tgs = ", ".join(t.resource.logical_id for t in li.target_groups) or "-"
                lines.append(
                    f"| {md_code(f'{lb.resource.stack}/{lb.resource.logical_id}')} | {_md(li.resource.logical_id)} | {_md(li.protocol)} | "
                    f"{_md(li.port)} | {_md(_idle(li.protocol, li.idle_timeout))} | {_md(tgs)} |"
                )
    return lines if len(lines) > 2 else ["No listeners of these origins' load balancers in the given templates."]


def _capacity_table(model: TemplateModel, names: Sequence[str]) -> list[str]:
    """One row per NLB of these origins: reserved LCUs (``MinimumLoadBalancerCapacity``), zones, share."""
    lines = ["| NLB | Zones | Reserved LCUs | Per zone |", "|---|---|---|---|"]
    seen: set[tuple[str, str]] = set()
    for name in names:
        for lb in model.load_balancers_for_name(name):
            if lb.resource.key in seen:
                continue
            seen.add(lb.resource.key)
            units = "deploy time" if lb.capacity_unknown else "none" if lb.capacity_units is None else str(lb.capacity_units)
            share = lb.capacity_per_zone
            lines.append(
                f"| {md_code(f'{lb.resource.stack}/{lb.resource.logical_id}')} | {_md(lb.zone_count)} | {_md(units)} | "
                f"{_md(f'{share:g}') if share is not None else '-'} |"
            )
    return lines if len(lines) > 2 else ["No load balancers of these origins in the given templates."]


def _verification_table(model: TemplateModel, names: Sequence[str]) -> list[str]:
    lines = ["| Origin | CloudFront origin | Verification |", "|---|---|---|"]
    for name in names:
        for user, origin_id, status in _verifications(model, name):
            lines.append(f"| {_md(name)} | {md_code(user)} {_md(origin_id)} | {_verification_md(status)} |")
    return lines if len(lines) > 2 else ["No CloudFront origins of these names in the given templates."]


def _verification_md(status: VerificationStatus) -> str:
    """``status.describe()`` in Markdown, the header name (template text) as a code span."""
    text = status.describe()
    quoted = f"`{status.header}`"
    if status.header is None or quoted not in text:
        return _md(text)
    head, _, tail = text.partition(quoted)
    return f"{_md(head)}{md_code(status.header)}{_md(tail)}"


def errors_first(findings: Sequence[Finding]) -> list[Finding]:
    """Not-checked, errors, then warnings, then info (``Severity.rank``); within a severity, the
    order the rules gave (stable)."""
    return sorted(findings, key=lambda f: -f.severity.rank)


def _counts(findings: Sequence[Finding]) -> str:
    counts = {s: sum(f.severity is s for f in findings) for s in Severity}
    text = f"{counts[Severity.ERROR]} error(s), {counts[Severity.WARNING]} warning(s), {counts[Severity.INFO]} info"
    return text + (f", {counts[Severity.NOT_CHECKED]} not checked" if counts[Severity.NOT_CHECKED] else "")


def verdict_line(findings: Sequence[Finding], *, new: Sequence[Finding] | None = None, fixed: int = 0) -> str:
    """The report's first line: the verdict (``fails`` when an error finding is open, at the
    default ``--fail-on error``; for a change, when the change brings one: a transition finding or
    a finding base did not have) and the counts."""
    errors = [f for f in findings if f.severity.at_least(Severity.ERROR)]
    if new is None:
        verdict = f"fails, {len(errors)} error(s)" if errors else "passes, no errors"
        return f"## edge-origin review: {verdict}. Findings: {_counts(findings)}"
    new_errors = [f for f in new if f.severity.at_least(Severity.ERROR)]
    if new_errors:
        verdict = f"fails, {len(new_errors)} new error(s)"
    elif errors:
        verdict = f"passes on what this change brings, no new error ({len(errors)} already in base)"
    else:
        verdict = "passes, no errors"
    return f"## edge-origin review: {verdict}. Findings: {_counts(findings)} ({len(new)} new, {fixed} fixed)"


def _findings_section(findings: Sequence[Finding], budget: int = FINDINGS_BYTES, *, new: set[int] | None = None) -> list[str]:
    """The one findings table, errors first; for a change, a column says which are new (``new``:
    indexes into ``findings`` of the transition findings and head's findings base did not have)."""
    if not findings:
        return ["### Findings", "", "No findings."]
    order = sorted(range(len(findings)), key=lambda i: -findings[i].severity.rank)
    rows = markdown_rows([findings[i] for i in order], template=False)
    if new is None:
        return ["### Findings", "", "| Severity | Rule | Resource | Message | Fix |", "|---|---|---|---|---|",
                *budgeted_rows(rows, budget)]
    marked = [f"| {'new' if i in new else 'in base'} {row}" for i, row in zip(order, rows, strict=True)]
    return ["### Findings", "", "| Change | Severity | Rule | Resource | Message | Fix |", "|---|---|---|---|---|---|",
            *budgeted_rows(marked, budget)]


def _paths_and_tables(model: TemplateModel) -> list[str]:
    """Each origin path's diagram (once), the VPC-origin paths, then the tables."""
    origins = model.origin_names()
    names = list(origins)
    out: list[str] = []
    vpc_sections = report_vpc.markdown_sections(model)
    if not names and not vpc_sections:
        out += ["No gRPC or long-lived CloudFront origins found.", ""]
    for name in names:
        out += [f"### {_md(name)} ({_md(origins[name])})", "", _mermaid(model, name, origins[name]), ""]
    out += vpc_sections
    if names:
        out += ["### Records", "", *_records_table(model, names), ""]
        out += ["### Listener idle timeouts", "", *_listener_table(model, names), ""]
        out += ["### NLB capacity reservations", "", *_capacity_table(model, names), ""]
        out += ["### Origin verification", "", *_verification_table(model, names), ""]
    return out


def render_markdown(
    model: TemplateModel,
    findings: Sequence[Finding],
    limit: int = MAX_SUMMARY_BYTES,
    *,
    change: Any = None,
    acknowledged: Sequence[Finding] = (),
    notices: Sequence[str] = (),
) -> str:
    """The pull-request comment: the verdict line, the findings (errors first), then one Mermaid
    diagram per origin path and the tables. ``change`` (a ``DiffResult``): the verdict and the
    findings are the change's (transition findings and head's, new ones marked), and "What this
    change does" comes between the findings and the paths.

    Every template-controlled string is escaped where it is written (``edge_origin.core.escape``);
    the whole stays under ``limit`` bytes (GitHub's step summary takes 1 MiB): the findings
    section first gets its share, the paths and tables after it are cut to what is left."""
    new: set[int] | None = None
    new_findings: list[Finding] | None = None
    if change is not None:  # transition findings, then head's (``findings``: head's, with any extra errors)
        brought = {id(f) for i, f in enumerate(change.head_findings) if i in change.new}
        in_head = {id(f) for f in change.head_findings}
        findings = [*change.transition_findings, *findings]
        new = {i for i, f in enumerate(findings) if i < len(change.transition_findings) or id(f) in brought or id(f) not in in_head}
        new_findings = [findings[i] for i in sorted(new)]
    head = [verdict_line(findings, new=new_findings, fixed=len(change.fixed) if change is not None else 0), "",
            *suppression_notice(notices)]
    head.append(f"{len(model.stacks)} stack(s): {', '.join(_stack_label(model, s) for s in model.stacks)}; {len(model.resources)} resources.")
    section = _findings_section(findings, min(FINDINGS_BYTES, limit // 2), new=new)
    findings_part = "\n".join([*head, "", *section, *acknowledged_section(acknowledged)]) + "\n"
    rest: list[str] = []
    if change is not None:
        rest += [render_change_section(change, drawn=set(model.origin_names()))]
    rest += _paths_and_tables(model)
    room = limit - len(findings_part.encode("utf-8")) - 64
    body = fit_markdown("\n".join(rest), room, "change, paths and tables part of the report")
    return findings_part + "\n" + body.rstrip("\n") + "\n"


def render_text(model: TemplateModel, findings: Sequence[Finding], acknowledged: Sequence[Finding] = ()) -> str:
    """A short plan: origin names, their records and zones, health checks, idle timeouts, findings count."""
    origins = model.origin_names()
    lines = [f"edge-origin plan: {len(model.stacks)} stack(s), {len(model.resources)} resource(s)"]
    vpc_lines = report_vpc.text_lines(model)
    if not origins and not vpc_lines:
        lines.append("no gRPC or long-lived CloudFront origins found")
    lines += vpc_lines
    for name, kind in origins.items():
        users = ", ".join(_users(model, name)) or "no distribution in these templates"
        lines.append(f"origin {shorten(name)} ({kind}) <- {shorten(users, 4 * MAX_NAME)}")
        for user, origin_id, status in _verifications(model, name):
            lines.append(f"  verification {shorten(user)} {shorten(origin_id)}: {shorten(status.describe().replace('`', ''))}")
        for record in model.record_sets(name):
            values = ", ".join(f"{shorten(display_value(v))} [{shorten(_record_zone(model, record, v))}]" for v in record.values) or (
                f"alias {shorten(display_value(record.alias_target.dns_name))} "
                f"[{shorten(_record_zone(model, record, record.alias_target.dns_name))}]" if record.alias_target else "-"
            )
            ttl = f"ttl {record.ttl}" if record.ttl is not None else "alias"
            zone = shorten(record.hosted_zone_name or display_value(record.hosted_zone))
            set_id = f" set {shorten(record.set_identifier)}" if record.set_identifier else ""
            lines.append(
                f"  record {shorten(record.label)}{set_id} ({zone}) {record.routing_policy} {ttl} -> {values}; health check {shorten(_hc(record))}"
            )
        for lb in model.load_balancers_for_name(name):
            idles = ", ".join(f"{li.protocol}:{li.port} idle {_idle(li.protocol, li.idle_timeout)}" for li in lb.listeners) or "no listeners"
            lines.append(
                f"  nlb {shorten(lb.resource.stack)}/{shorten(lb.resource.logical_id)} zones {shorten(_lb_zones(lb))}: {idles}; "
                f"{_capacity(lb)}"
            )
    counts = {s: sum(f.severity is s for f in findings) for s in Severity}
    lines.append(
        f"findings: {len(findings)} ({counts[Severity.ERROR]} error, {counts[Severity.WARNING]} warning, {counts[Severity.INFO]} info)"
    )
    lines += acknowledged_text(acknowledged)
    # every line starts with the plan's own words; what follows is one line with controls visible
    return "\n".join(plain(line, TEXT_LINE) for line in lines) + "\n"


def _stack_label(model: TemplateModel, stack: str) -> str:
    """A stack's name; a nested stack says which stack deploys it."""
    parent = model.templates[stack].parent
    return f"{md_code(stack)} (nested in {md_code(parent[0])})" if parent else md_code(stack)


def render_report(
    model: TemplateModel, fmt: str = "markdown", findings: Sequence[Finding] | None = None, *, selection: Any = None,
    notices: Sequence[str] = (),
) -> str:
    """Render the report; runs the rules unless ``findings`` are given (``selection``: a
    RuleSelection, the rules whose findings are shown)."""
    if fmt not in REPORT_FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (allowed: {', '.join(REPORT_FORMATS)})")
    acknowledged: list[Finding] = []
    if findings is None:
        from edge_origin.review.suppressions import split_findings
        from edge_origin.review.unreadable import unreadable_findings

        split = split_findings(model, run_rules(model, honour_acknowledgements=False), selection)
        found, acknowledged = [*split.open, *unreadable_findings(model.unreadable)], split.acknowledged
    else:
        found = selection.filter(findings) if selection else list(findings)
    if fmt == "markdown":
        return render_markdown(model, found, acknowledged=acknowledged, notices=notices)
    return "".join(plain(f"NOTE: this change {n}", TEXT_LINE) + "\n" for n in notices) + render_text(model, found, acknowledged)


def report_paths(paths: Sequence[str | Path], fmt: str = "markdown", *, selection: Any = None, notices: Sequence[str] = ()) -> str:
    from edge_origin.model import load_model

    # the files that can be read are reviewed; each one that cannot is an EO-READ1 finding in the
    # review (ModelError only when none can be read), as `check` does
    return render_report(load_model(paths, strict=False), fmt, selection=selection, notices=notices)


# --- "What this change does" (edge-origin report --base ... --head ...) ----------------------------
def render_change_section(result: object, drawn: set[str] | None = None) -> str:
    """The PR comment's "What this change does": per changed origin name, its changes and the
    base's view of the path (the head's is drawn once, in the paths section, for names in
    ``drawn``; here for the others); then what the change fixes and the quotas it crosses. The
    transition findings and head's new ones are in the report's one findings table.
    ``result`` is an ``edge_origin.review.diff.DiffResult``."""
    from edge_origin.review.diff import changes_table, fixed_section, quota_section

    drawn = drawn or set()
    tr = result.transition  # type: ignore[attr-defined]
    keys = tr.changed_keys
    out = ["### What this change does", ""]
    stacks = f"{len(tr.common_stacks)} stack(s) in common"
    if tr.added_stacks:
        stacks += f", added {', '.join(md_code(s) for s in tr.added_stacks)}"
    if tr.removed_stacks:
        stacks += f", removed {', '.join(md_code(s) for s in tr.removed_stacks)}"
    out += [f"{stacks}; resources: {len(keys['added'])} added, {len(keys['removed'])} removed, {len(keys['changed'])} changed.", ""]
    by_name: dict[str, list] = {}
    for change in result.changes:  # type: ignore[attr-defined]
        by_name.setdefault(change.name, []).append(change)
    if not by_name:
        out += ["No change on any origin path.", ""]
    transition = result.transition_findings  # type: ignore[attr-defined]
    out += [f"Transition findings (EO-CHG rules, in the findings table): {len(transition)}." if transition else
            "Transition findings: none (no EO-CHG rule found a problem with deploying this change).", ""]
    for name, changes in by_name.items():
        kind = tr.origin_names.get(name, "origin")
        out += [f"#### {_md(name)} ({_md(kind)})", "", *changes_table(changes), ""]
        for label, model in (("Before (base)", result.base), ("After (head)", result.head)):  # type: ignore[attr-defined]
            present = model.record_sets(name) or tr.distributions_using(model, name)
            if label.startswith("After") and present and name in drawn:
                out += [f"{label}: the path as drawn under {md_code(name)} below.", ""]
                continue
            out += [f"{label}:", "", _mermaid(model, name, kind) if present else "_not on this side_", ""]
    paths = fit_markdown("\n".join(out), CHANGE_SECTION_BYTES, "change section")
    out = [paths.rstrip("\n"), ""]
    out += fixed_section(result, "####")  # type: ignore[arg-type]
    quotas = quota_section(result, "####")  # type: ignore[arg-type]
    if quotas:
        out += ["", *quotas]
    return "\n".join(out).rstrip("\n") + "\n"


def report_change_paths(
    base_paths: Sequence[str | Path],
    head_paths: Sequence[str | Path],
    fmt: str = "markdown",
    *,
    selection: Any = None,
    extra_notices: Sequence[str] = (),
) -> str:
    """The review report of head against base: the change's verdict and findings first, then
    "What this change does", then head's paths and tables.

    Text: the plan of head followed by the diff's text. Raises ``ModelError`` (one line) on bad input."""
    from edge_origin.review.diff import diff_paths, format_diff

    if fmt not in REPORT_FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (allowed: {', '.join(REPORT_FORMATS)})")
    from edge_origin.review.diff_suppressions import diff_with_suppressions

    everything = diff_paths(base_paths, head_paths)
    result = everything.selected(selection)
    shown = diff_with_suppressions(everything, result, selection, extra_notices)
    acknowledged, notices, head_findings = shown.acknowledged, shown.notices, [*shown.errors, *result.head_findings]
    if fmt == "text":
        notes = [plain(f"NOTE: this change {n}", TEXT_LINE) + "\n" for n in notices]
        return "".join(notes) + render_text(result.head, head_findings, acknowledged) + format_diff(result, "text")
    return render_markdown(result.head, head_findings, change=result, acknowledged=acknowledged, notices=notices)


# --- acknowledged findings, and a change that sets more aside (issue 50; owner: helper outputs) ---------
#: Bytes of the acknowledged section.
ACKNOWLEDGED_BYTES = 100_000


def acknowledged_section(acknowledged: Sequence[Finding], level: str = "###") -> list[str]:
    """The "Acknowledged" section: counts by source, then each finding with its reason and source."""
    from edge_origin.review.checker import ACKNOWLEDGED_HEADER, acknowledged_rows, budgeted_rows

    if not acknowledged:
        return ["", f"{level} Acknowledged (0)", "", "No finding is set aside."]
    by_source: dict[str, int] = {}
    for f in acknowledged:
        key = f.suppression.source if f.suppression else "?"
        by_source[key] = by_source.get(key, 0) + 1
    counts = "; ".join(f"{n} by {_md(source)}" for source, n in by_source.items())
    rows = budgeted_rows(acknowledged_rows(acknowledged), ACKNOWLEDGED_BYTES, "acknowledged findings")
    return ["", f"{level} Acknowledged ({len(acknowledged)})", "", f"Set aside, each with its reason: {counts}.", "",
            *ACKNOWLEDGED_HEADER, *rows]


def acknowledged_text(acknowledged: Sequence[Finding]) -> list[str]:
    """The text plan's acknowledged lines: a count, then one line each with the reason."""
    if not acknowledged:
        return []
    lines = [f"acknowledged: {len(acknowledged)}"]
    for f in acknowledged:
        why = f.suppression
        lines.append(f"  {f.rule} {f.stack}/{f.resource}: {why.reason if why else ''} ({why.source if why else ''})")
    return lines


def suppression_notice(notices: Sequence[str]) -> list[str]:
    """The top of the review when a change adds or widens a suppression or a config: a quoted
    warning block listing each (escaped; the count first)."""
    if not notices:
        return []
    out = ["> [!WARNING]", f"> This change sets more aside: {len(notices)} suppression change(s)."]
    out += [f"> - {_md(n)}" for n in notices[:50]]
    if len(notices) > 50:
        out.append(f"> - … and {len(notices) - 50} more")
    return [*out, ""]
