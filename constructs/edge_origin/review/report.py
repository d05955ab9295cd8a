"""The review report: Markdown (Mermaid per path, records, idle timeouts, findings) or a short text plan.

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
    md_text,
    mermaid_label,
    plain,
    shorten,
)
from edge_origin.core.findings import Finding, Severity
from edge_origin.core.origin_verification import METADATA_KEY as VERIFICATION_METADATA_KEY
from edge_origin.core.origin_verification import VerificationStatus, verification_status
from edge_origin.model import EipView, LoadBalancerView, RecordSetView, TemplateModel, display_value
from edge_origin.rules import run_rules

REPORT_FORMATS = ("markdown", "text")
#: Characters of one line of the text plan (names in it are shortened to ``MAX_NAME`` each).
TEXT_LINE = 20 * MAX_NAME


#: Nodes drawn in one Mermaid diagram (a name with thousands of records stays readable and small).
MAX_DIAGRAM_NODES = 60
#: Bytes of the findings section; the rest of the report fits in what is left of MAX_SUMMARY_BYTES.
FINDINGS_BYTES = 600_000
#: Bytes of the "What this change does" section of ``report --base --head``.
CHANGE_SECTION_BYTES = 250_000


def _mm(text: object) -> str:
    """Text safe inside a quoted Mermaid label."""
    return mermaid_label(text)


def _md(text: object) -> str:
    """Inline Markdown text (table cells, headings): see ``edge_origin.core.escape.md_text``."""
    return md_text(text)


def _hc(record: RecordSetView) -> str:
    hc = record.health_check
    if hc is not None:
        return f"{hc.resource.logical_id} {hc.type or '?'}:{hc.port if hc.port is not None else '-'}"
    return display_value(record.health_check_id) if record.health_check_id is not None else "none"


def _value_zone(model: TemplateModel, value: object) -> str:
    eip = model.eip(value)
    return _eip_place(eip) if eip is not None else "?"


def _eip_place(eip: EipView) -> str:
    """The EIP's zone; for a subnet the templates do not define (an imported VPC: a literal
    ``subnet-...`` id), that subnet and "imported"; ``?`` only when nothing is known."""
    if eip.zone:
        return eip.zone
    subnets = [m.subnet for _, m in eip.attachments if isinstance(m.subnet, str) and m.subnet]
    if subnets:
        return f"{subnets[0]}, imported"
    return "?"


def _lb_zones(lb: LoadBalancerView) -> str:
    """The NLB's zones; for subnets of an imported VPC, their ids and "imported"."""
    if lb.zones:
        return ", ".join(lb.zones)
    subnets = sorted({m.subnet for m in lb.subnet_mappings if isinstance(m.subnet, str) and m.subnet})
    return f"{', '.join(subnets)} (imported subnets)" if subnets else "?"


def _idle(listener_protocol: str | None, idle: int | None) -> str:
    if listener_protocol == "TLS":
        return "350 s (fixed, TLS)"
    return f"{idle} s" if idle is not None else "350 s (default)"


def _capacity(lb: LoadBalancerView) -> str:
    """The NLB's LCU reservation (``MinimumLoadBalancerCapacity``) and each zone's even share."""
    if lb.capacity_unknown:
        return "capacity decided at deploy time"
    if lb.capacity_units is None:
        return "no capacity reserved"
    share = lb.capacity_per_zone
    per_zone = f", {share:g} a zone over {lb.zone_count}" if share is not None else ""
    return f"capacity {lb.capacity_units} LCU{per_zone}"


def _users(model: TemplateModel, name: str) -> list[str]:
    out = []
    for dist in model.distributions:
        if any(o.domain_name == name for o in dist.origins):
            out.append(f"{dist.resource.stack}/{dist.resource.logical_id}")
    return out


def _verifications(model: TemplateModel, name: str) -> list[tuple[str, str, VerificationStatus]]:
    """``(distribution, origin id, status)`` of every CloudFront origin of ``name``: header names only,
    never a value."""
    out = []
    for dist in model.distributions:
        meta = dist.resource.metadata.get(VERIFICATION_METADATA_KEY)
        declared = meta.get("header") if isinstance(meta, dict) else None
        for origin in dist.origins:
            if origin.domain_name == name:
                status = verification_status(origin.custom_headers, declared)
                out.append((f"{dist.resource.stack}/{dist.resource.logical_id}", origin.id, status))
    return out


def _verification_label(status: VerificationStatus) -> str:
    if status.state == "none":
        return "origin NOT verified"
    if status.state in ("plaintext", "parameter"):
        return f"{status.header} PLAINTEXT"
    return f"verified: {status.header}"


class _Graph:
    """Mermaid nodes and edges; every label through ``escape.mermaid_label``. Past
    ``MAX_DIAGRAM_NODES`` nodes further ones are counted, not drawn."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.lines: list[str] = []
        self.edges: set[tuple[str, str, str]] = set()
        self.left_out = 0

    def node(self, key: str, label: str) -> str:
        if key not in self.ids:
            if len(self.ids) >= MAX_DIAGRAM_NODES:
                self.left_out += 1
                return ""
            self.ids[key] = f"n{len(self.ids)}"
            self.lines.append(f'  {self.ids[key]}["{_mm(label)}"]')
        return self.ids[key]

    def edge(self, a: str, b: str, label: str = "") -> None:
        if not a or not b or (a, b, label) in self.edges:
            return
        self.edges.add((a, b, label))
        self.lines.append(f'  {a} -- "{_mm(label)}" --> {b}' if label else f"  {a} --> {b}")


def _lb_kind(lb: LoadBalancerView) -> str:
    return "NLB" if lb.is_network else "ALB"


def _chain_ends(model: TemplateModel, name: str, record: RecordSetView) -> list[tuple[LoadBalancerView, str]]:
    """Load balancers the answer model reaches from this record through a chain, with the chain."""
    zones = model.zones
    key = getattr(zones.record(record), "key", None)
    out: dict[int, tuple[LoadBalancerView, str]] = {}
    for item in zones.name_resolutions(name, cloudfront=False):
        for answer in item.resolution.answers:
            if key is None or not answer.chain or answer.chain[0].key != key or len(answer.chain) < 2 and not answer.load_balancers:
                continue
            hops = " -> ".join(h.key.name for h in answer.chain[1:]) or record.type or "alias"
            for lb in zones.answer_load_balancers(model, answer):
                out.setdefault(id(lb), (lb, hops))
    return list(out.values())


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
                    f"{_md(display_value(record.set_identifier))} | {_md(display_value(value))} | {_md(_value_zone(model, value))} | "
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


def _findings_section(findings: Sequence[Finding], budget: int = FINDINGS_BYTES) -> list[str]:
    from edge_origin.review.checker import budgeted_rows, markdown_rows

    if not findings:
        return ["### Findings", "", "No findings."]
    rows = budgeted_rows(markdown_rows(findings, template=False), budget)
    return ["### Findings", "", "| Severity | Rule | Resource | Message | Fix |", "|---|---|---|---|---|", *rows]


def render_markdown(
    model: TemplateModel,
    findings: Sequence[Finding],
    limit: int = MAX_SUMMARY_BYTES,
    *,
    acknowledged: Sequence[Finding] = (),
    notices: Sequence[str] = (),
) -> str:
    """The pull-request comment: one Mermaid diagram per origin path, tables, findings with fixes.

    Every template-controlled string is escaped where it is written (``edge_origin.core.escape``);
    the whole stays under ``limit`` bytes (GitHub's step summary takes 1 MiB): the findings
    section first gets its share, the paths and tables before it are cut to what is left."""
    origins = model.origin_names()
    names = list(origins)
    out = ["## edge-origin review", "", *suppression_notice(notices)]
    out.append(f"{len(model.stacks)} stack(s): {', '.join(md_code(s) for s in model.stacks)}; {len(model.resources)} resources.")
    out.append("")
    from edge_origin.review import report_vpc  # the VPC-origin topology (issue 31)

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
    tail = "\n".join([*_findings_section(findings, min(FINDINGS_BYTES, limit // 2)), *acknowledged_section(acknowledged)]) + "\n"
    head = fit_markdown("\n".join(out), limit - len(tail.encode("utf-8")) - 64, "paths and tables part of the report")
    return head.rstrip("\n") + "\n\n" + tail


def render_text(model: TemplateModel, findings: Sequence[Finding], acknowledged: Sequence[Finding] = ()) -> str:
    """A short plan: origin names, their records and zones, health checks, idle timeouts, findings count."""
    origins = model.origin_names()
    lines = [f"edge-origin plan: {len(model.stacks)} stack(s), {len(model.resources)} resource(s)"]
    from edge_origin.review import report_vpc  # the VPC-origin topology (issue 31)

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
            values = ", ".join(f"{shorten(display_value(v))} [{shorten(_value_zone(model, v))}]" for v in record.values) or (
                f"alias {shorten(display_value(record.alias_target.dns_name))}" if record.alias_target else "-"
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

        split = split_findings(model, run_rules(model, honour_acknowledgements=False), selection)
        found, acknowledged = split.open, split.acknowledged
    else:
        found = selection.filter(findings) if selection else list(findings)
    if fmt == "markdown":
        return render_markdown(model, found, acknowledged=acknowledged, notices=notices)
    return "".join(plain(f"NOTE: this change {n}", TEXT_LINE) + "\n" for n in notices) + render_text(model, found, acknowledged)


def report_paths(paths: Sequence[str | Path], fmt: str = "markdown", *, selection: Any = None, notices: Sequence[str] = ()) -> str:
    from edge_origin.model import load_model

    return render_report(load_model(paths), fmt, selection=selection, notices=notices)


# --- "What this change does" (edge-origin report --base ... --head ...) ----------------------------
def render_change_section(result: object) -> str:
    """The PR comment's "What this change does": per changed origin name, its changes and a
    before/after Mermaid view of the path; then the transition findings and head's new findings.
    ``result`` is an ``edge_origin.review.diff.DiffResult``."""
    from edge_origin.review.diff import changes_table, fixed_section, quota_section

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
    for name, changes in by_name.items():
        kind = tr.origin_names.get(name, "origin")
        out += [f"#### {_md(name)} ({_md(kind)})", "", *changes_table(changes), ""]
        for label, model in (("Before (base)", result.base), ("After (head)", result.head)):  # type: ignore[attr-defined]
            present = model.record_sets(name) or tr.distributions_using(model, name)
            out += [f"{label}:", "", _mermaid(model, name, kind) if present else "_not on this side_", ""]
    from edge_origin.review.checker import budgeted_rows, markdown_rows

    paths = fit_markdown("\n".join(out), CHANGE_SECTION_BYTES, "change section")
    out = [paths.rstrip("\n"), ""]
    transition = result.transition_findings  # type: ignore[attr-defined]
    out += ["#### Transition findings", ""]
    if not transition:
        out.append("None: no EO-CHG rule found a problem with deploying this change.")
    else:
        out += ["| Severity | Rule | Resource | Message | Fix |", "|---|---|---|---|---|"]
        out += budgeted_rows(markdown_rows(transition, template=False), CHANGE_SECTION_BYTES)
    new = [f for i, f in enumerate(result.head_findings) if i in result.new]  # type: ignore[attr-defined]
    out += ["", f"#### New findings in head ({len(new)} of {len(result.head_findings)})", ""]  # type: ignore[attr-defined]
    if not new:
        out.append("None: head's findings (if any) were already in base.")
    else:
        out += ["| Severity | Rule | Resource | Message |", "|---|---|---|---|"]
        rows = [f"| {f.severity.value} | {md_text(f.rule)} | {md_code(f'{f.stack}/{f.resource}')} | {_md(f.message)} |" for f in new]
        out += budgeted_rows(rows, CHANGE_SECTION_BYTES)
    out += ["", *fixed_section(result, "####")]  # type: ignore[arg-type]
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
    """The review report of head, with the "What this change does" section against base.

    Markdown: the section comes right after the report's title and summary; text: the plan of
    head followed by the diff's text. Raises ``ModelError`` (one line) on bad input."""
    from edge_origin.review.diff import diff_paths, format_diff

    if fmt not in REPORT_FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (allowed: {', '.join(REPORT_FORMATS)})")
    from edge_origin.review.suppressions import diff_with_suppressions

    everything = diff_paths(base_paths, head_paths)
    result = everything.selected(selection)
    shown = diff_with_suppressions(everything, result, selection, extra_notices)
    acknowledged, notices, head_findings = shown.acknowledged, shown.notices, [*shown.errors, *result.head_findings]
    if fmt == "text":
        notes = [plain(f"NOTE: this change {n}", TEXT_LINE) + "\n" for n in notices]
        return "".join(notes) + render_text(result.head, head_findings, acknowledged) + format_diff(result, "text")
    section = render_change_section(result)
    report = render_markdown(result.head, head_findings, MAX_SUMMARY_BYTES - len(section.encode("utf-8")) - 64,
                             acknowledged=acknowledged, notices=notices)
    cut = report.find("\n### ")
    if cut < 0:
        return report + "\n" + section
    return report[: cut + 1] + section + report[cut:]


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
