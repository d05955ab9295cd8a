"""The review report's VPC-origin paths (issue 31): CloudFront -> VPC origin -> internal NLB -> targets.

A VPC origin has no origin records to draw: the path is the distribution, the
``AWS::CloudFront::VpcOrigin``, its load balancer (scheme, cross-zone, DNS client routing policy,
zones), listeners with their idle timeouts, and target groups. ``report.py`` calls these.
"""

from __future__ import annotations

from edge_origin.model import TemplateModel, display_value
from edge_origin.profile import hops
from edge_origin.review.report_parts import _Graph, _idle, _lb_kind, _lb_zones, _md
from edge_origin.rules.vpc_paths import VpcOriginPath, vpc_origin_paths


def _timeouts(path: VpcOriginPath) -> str:
    ka = path.origin.keepalive_timeout if path.origin.keepalive_timeout is not None else hops.CF_VPC_ORIGIN_DEFAULT_KEEPALIVE_S
    read = path.origin.read_timeout if path.origin.read_timeout is not None else hops.CF_VPC_ORIGIN_DEFAULT_READ_S
    return f"keepalive {ka} s, read {read} s"


def _lb_facts(path: VpcOriginPath) -> str:
    lb = path.load_balancer
    if lb is None:
        return "load balancer not in these templates"
    policy = lb.attributes.get("dns_record.client_routing_policy", "any_availability_zone (default)")
    return f"{lb.scheme}, cross-zone {'on' if lb.cross_zone else 'off'}, DNS {display_value(policy)}, zones {_lb_zones(lb)}"


def _mermaid(model: TemplateModel, path: VpcOriginPath) -> str:
    g = _Graph()
    dist = path.distribution.resource.logical_id
    d = g.node(f"dist:{dist}", f"CloudFront {dist}")
    vpc = path.origin.vpc_origin
    label = vpc.resource.logical_id if vpc is not None else display_value(path.origin.vpc_origin_id)
    v = g.node(f"vpc:{label}", f"VPC origin {label} ({display_value(path.origin.domain_name)})")
    g.edge(d, v, _timeouts(path))
    lb = path.load_balancer
    if lb is not None:
        n = g.node(f"lb:{lb.resource.stack}/{lb.resource.logical_id}", f"{_lb_kind(lb)} {lb.resource.logical_id} ({_lb_facts(path)})")
        g.edge(v, n, f"{vpc.protocol_policy or 'unset'} :{vpc.https_port or 443}" if vpc is not None else "")
        for listener in lb.listeners:
            for tg in listener.target_groups:
                t = g.node(f"tg:{tg.resource.stack}/{tg.resource.logical_id}", f"TG {tg.resource.logical_id} {tg.protocol or ''}:{tg.port or ''}")
                g.edge(n, t, f"{listener.protocol} :{listener.port} idle {_idle(listener.protocol, listener.idle_timeout)}")
    return "```mermaid\nflowchart LR\n" + "\n".join(g.lines) + "\n```"


def markdown_sections(model: TemplateModel) -> list[str]:
    """One section per VPC-origin path (empty when there are none)."""
    out: list[str] = []
    for path in vpc_origin_paths(model):
        out += [f"### {_md(path.label)}", "", _mermaid(model, path), ""]
    return out


def text_lines(model: TemplateModel) -> list[str]:
    """The plan's lines for each VPC-origin path."""
    lines = []
    for path in vpc_origin_paths(model):
        lines.append(f"vpc origin {path.label}: {_timeouts(path)}; {_lb_facts(path)}")
        if path.load_balancer is not None:
            idles = ", ".join(
                f"{li.protocol}:{li.port} idle {_idle(li.protocol, li.idle_timeout)}" for li in path.load_balancer.listeners
            ) or "no listeners"
            lines.append(f"  nlb {path.load_balancer.resource.stack}/{path.load_balancer.resource.logical_id}: {idles}")
    return lines
