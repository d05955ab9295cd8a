"""What the review report's drawings share (report.py: origin paths, report_vpc.py: VPC-origin paths):
escaped labels, the bounded Mermaid graph, and how a load balancer, its zones and an idle timeout read.

Both report modules import from here, so neither imports the other's internals (issue 48 item 3).
"""

from __future__ import annotations

from edge_origin.core.escape import md_text, mermaid_label
from edge_origin.model import EipView, LoadBalancerView

#: Nodes drawn in one Mermaid diagram (a name with thousands of records stays readable and small).
MAX_DIAGRAM_NODES = 60


def _mm(text: object) -> str:
    """Text safe inside a quoted Mermaid label."""
    return mermaid_label(text)


def _md(text: object) -> str:
    """Inline Markdown text (table cells, headings): see ``edge_origin.core.escape.md_text``."""
    return md_text(text)


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
    """The NLB's zones, from its subnet mappings or its subnets (an NLB made with ``Subnets``, as
    aws-cdk-lib writes one without EIPs); for subnets of an imported VPC, their ids and "imported"."""
    zones = lb.zones or sorted({s.zone for s in lb.subnets if isinstance(s.zone, str) and s.zone})
    if zones:
        return ", ".join(zones)
    subnets = sorted({m.subnet for m in [*lb.subnet_mappings, *lb.subnets] if isinstance(m.subnet, str) and m.subnet})
    return f"{', '.join(subnets)} (imported subnets)" if subnets else "?"


def _idle(listener_protocol: str | None, idle: int | None) -> str:
    if listener_protocol == "TLS":
        return "350 s (fixed, TLS)"
    return f"{idle} s" if idle is not None else "350 s (default)"


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
    """NLB or ALB; a load balancer whose Type is decided at deploy time is neither yet (never drawn as an ALB)."""
    if lb.type_undecided:
        return "LB (Type set at deploy time)"
    return "NLB" if lb.is_network else "ALB"
