"""EO-SG1: the NLB's security group does not admit the Route 53 health checkers on the checked port."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from functools import cache, lru_cache

from edge_origin.answers import HEALTHY_CHECKER_SHARE, HealthCheck, reachable_share, share_is_healthy
from edge_origin.core.findings import Finding, Severity
from edge_origin.data import cloudfront_origin_facing_prefix_lists, load
from edge_origin.model import (
    ROUTE53_PREFIX_LIST_METADATA_KEY,
    HealthCheckView,
    LoadBalancerView,
    SecurityGroupView,
    TemplateModel,
)
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.not_judged import not_judged

DEFAULT_PORTS = {"HTTP": 80, "HTTP_STR_MATCH": 80, "HTTPS": 443, "HTTPS_STR_MATCH": 443}
FIX = with_cdk(
    "EO-SG1",
    "Add ingress on the health-checked port from the Route 53 health-checker CIDRs "
    "(edge_origin/data/route53_health_checkers.json, ip-ranges.json service ROUTE53_HEALTHCHECKS; those of every region in the check's Regions, all regions when it names none) to the NLB's security group: Route 53 "
    "calls the endpoint healthy only when more than 18 % of its checkers do.",
    'OriginFleet / GrpcEdgeToOrigin admit the checkers (route53_health_checker_prefix_list_id="pl-...", the id of the AWS-managed prefix list com.amazonaws.<region>.route53-healthchecks, weight 25; by default the shipped CIDRs); by hand `security_group.add_ingress_rule(ec2.Peer.prefix_list(pl_id), ec2.Port.tcp(port))`.',
)


def _port(hc: HealthCheckView) -> int | None:
    return hc.port if hc.port is not None else DEFAULT_PORTS.get((hc.type or "").upper())


def route53_health_checkers() -> dict:
    return load("route53_health_checkers.json")


@cache
def _cloudfront_lists() -> frozenset[str]:
    return frozenset(entry["id"] for entry in cloudfront_origin_facing_prefix_lists().values())


EVERY_CHECKER = ipaddress.IPv4Network("0.0.0.0/0")
#: The text ``_admitted`` gives the networks it admits by: a rule's CidrIp as written (parsed once, by
#: ``_network``), this for every checker.
_EVERY_CHECKER_TEXT = "0.0.0.0/0"


def _route53_list(group: SecurityGroupView) -> object:
    """The id of com.amazonaws.<region>.route53-healthchecks the group's Metadata names (the constructs write it)."""
    return group.resource.metadata.get(ROUTE53_PREFIX_LIST_METADATA_KEY) if isinstance(group.resource.metadata, dict) else None


def _admitted(groups: list[SecurityGroupView], port: int) -> tuple[list[str], object]:
    """Networks admitted on ``port`` (each IPv4 CidrIp as written, ``_network`` parses it), and the first
    source that cannot be decided (a parameter, an unknown prefix list, rules decided at deploy time) or
    None. The AWS-managed Route 53 health-checker prefix list, named in the group's Metadata, admits every
    checker."""
    cloudfront = _cloudfront_lists()
    nets: list[str] = []
    unknown: object = None
    for group in groups:
        if group.ingress_unknown:
            unknown = unknown or f"{group.resource.logical_id} SecurityGroupIngress (decided at deploy time)"
            continue
        route53_list = _route53_list(group)
        for rule in group.ingress:
            if rule.unknown:
                unknown = unknown or f"{group.resource.logical_id} ingress rule (protocol or ports decided at deploy time)"
                continue
            # rule.covers_port(port), inlined: a group lists every checker range, one rule each (18 an NLB)
            protocol = rule.protocol
            if protocol != "-1" and protocol != "all":
                low, high = rule.from_port, rule.to_port
                if (protocol != "tcp" and protocol != "6") or low is None or high is None:
                    continue
                if not (low == -1 and high == -1) and not low <= port <= high:
                    continue
            cidr = rule.cidr_ip
            if cidr is not None:
                if not isinstance(cidr, str):
                    unknown = unknown or cidr
                else:
                    parses = _IPV4.get(cidr)
                    if parses is None:
                        if len(_IPV4) >= 4096:
                            _IPV4.clear()
                        parses = _IPV4[cidr] = _network(cidr) is not None
                    if parses:
                        nets.append(cidr)
            elif rule.prefix_list_id is not None and route53_list is not None and rule.prefix_list_id == route53_list:
                nets.append(_EVERY_CHECKER_TEXT)  # AWS keeps the list to the checkers' ranges
            elif rule.prefix_list_id is not None and rule.prefix_list_id not in cloudfront:
                unknown = unknown or rule.prefix_list_id  # a customer list, or Route 53's not named in Metadata
    return nets, unknown


#: Whether a CidrIp text is an IPv4 network (``_network`` parses it): a dict look-up per rule, not lru_cache's.
_IPV4: dict[str, bool] = {}


@lru_cache(maxsize=4096)
def _network(cidr: str) -> ipaddress.IPv4Network | None:
    """``cidr`` parsed once per run (the same CIDRs recur on every security group), None if not IPv4."""
    try:
        return ipaddress.IPv4Network(cidr, strict=False)
    except ValueError:
        return None


@cache
def _region_ranges() -> dict[str, tuple[ipaddress.IPv4Network, ...]]:
    """Checker ranges per checker region, GLOBAL ranges included in every region."""
    data = route53_health_checkers()["regions"]
    shared = tuple(ipaddress.IPv4Network(c) for c in data.get("GLOBAL", ()))
    return {r: tuple(ipaddress.IPv4Network(c) for c in cidrs) + shared for r, cidrs in data.items() if r != "GLOBAL"}


def _coverage(check: HealthCheck, admitted: list[str]) -> tuple[float, list[str], list[ipaddress.IPv4Network]]:
    """(share of the check's checkers that get through, blocked regions, blocked ranges)."""
    # keyed by the texts as admitted (in order): a tuple of the same strings hashes and compares faster than a
    # frozenset, and what is returned depends on the set of them only
    key = (check.checker_regions, tuple(admitted))
    found = _COVERAGE.get(key)
    if found is None:
        if len(_COVERAGE) >= 4096:
            _COVERAGE.clear()
        reachable, blocked = _coverage_of(key[0], frozenset(admitted))
        blocked_regions = tuple(r for r in check.checker_regions if r not in reachable)
        found = _COVERAGE[key] = (reachable_share(check, reachable), blocked_regions, blocked)
    share, blocked_regions, blocked = found
    return share, list(blocked_regions), list(blocked)


#: ``_coverage`` by (checker regions, admitted CIDR texts): what it returns depends on nothing else.
_COVERAGE: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[float, tuple[str, ...], tuple[ipaddress.IPv4Network, ...]]] = {}


@lru_cache(maxsize=4096)
def _coverage_of(regions: tuple[str, ...], admitted: frozenset[str]) -> tuple[frozenset[str], tuple[ipaddress.IPv4Network, ...]]:
    """(checker regions that get through, blocked ranges) once per distinct checker regions and set of
    admitted CIDR texts: the NLBs of a template mostly share their security groups' shape and their
    checks' Regions (texts hash once; networks hash in Python on every lookup)."""
    reachable: set[str] = set()
    blocked: list[ipaddress.IPv4Network] = []
    for region in regions:
        missing = _missing(region, admitted)
        if missing:
            blocked.extend(m for m in missing if m not in blocked)
        else:
            reachable.add(region)
    return frozenset(reachable), tuple(blocked)


@lru_cache(maxsize=4096)
def _missing(region: str, admitted: frozenset[str]) -> tuple[ipaddress.IPv4Network, ...]:
    """The checker ranges of ``region`` no network of ``admitted`` (CIDR texts ``_network`` parses) holds:
    once per distinct pair."""
    # c.subnet_of(n), as ipaddress tests it (n's first address <= c's, c's last <= n's), on the addresses as integers
    spans = [(int(net.network_address), int(net.broadcast_address)) for net in map(_network, admitted) if net is not None]
    return tuple(c for c in _region_ranges().get(region, ())
                 if not any(low <= int(c.network_address) and int(c.broadcast_address) <= high for low, high in spans))


def check(model: TemplateModel) -> Iterator[Finding]:
    seen: set[tuple[int, int]] = set()  # (id of an NLB's view, port): one view per resource
    checks = model.zones.zone_set.health_checks
    for hc in model.health_checks:
        port = _port(hc)
        eip = model.eip(hc.ip_address) if port is not None else None
        if eip is None:
            continue
        answer_check = None  # the answer model's check: looked up for the first NLB not yet judged on this port
        for lb, _mapping in eip.attachments:  # eip.load_balancers, without the list
            if not lb.security_groups or (id(lb), port) in seen:
                continue
            if answer_check is None:
                answer_check = checks.get(f"{hc.resource.stack}/{hc.resource.logical_id}")  # value_key(hc.resource.ref)
                if answer_check is None:
                    break  # not in the answer model: this check judges no NLB
            seen.add((id(lb), port))
            views = [model.view(ref) for ref in lb.security_groups]
            groups = [g for g in views if isinstance(g, SecurityGroupView)]
            admitted, unknown = _admitted(groups, port)
            if len(groups) < len(views):
                unknown = unknown or next(ref for ref, g in zip(lb.security_groups, views, strict=True) if not isinstance(g, SecurityGroupView))
            share, regions, blocked = _coverage(answer_check, admitted)
            if not blocked:
                continue  # every checker range admitted (0.0.0.0/0 admits them all)
            if unknown is not None:
                yield _not_judged(lb, port, hc, unknown)
                continue
            where = (
                f"NLB {lb.resource.logical_id}: security group(s) {', '.join(g.resource.logical_id for g in groups)} "
                f"do not admit {len(blocked)} Route 53 health-checker range(s) on port {port} (health check "
                f"{hc.resource.logical_id}, checker regions {', '.join(answer_check.checker_regions)}"
                f"{'' if answer_check.regions else ' (all: no Regions given)'}; e.g. {blocked[0]})"
            )
            if not share_is_healthy(share):
                yield finding(
                    RULE_ID, Severity.ERROR, lb.resource,
                    f"{where}: only {share:.0%} of the checkers get through and Route 53 needs more than "
                    f"{HEALTHY_CHECKER_SHARE:.0%} healthy: the check reports unhealthy, Route 53 fails open",
                    FIX,
                )
            else:
                yield finding(
                    RULE_ID, Severity.WARNING, lb.resource,
                    f"{where}: checkers of {', '.join(regions)} are blocked; {share:.0%} get through, so the check holds only "
                    f"while more than {HEALTHY_CHECKER_SHARE:.0%} of all checkers see the NLB healthy",
                    FIX,
                )


def _not_judged(lb: LoadBalancerView, port: int, hc: HealthCheckView, unknown: object) -> Finding:
    """A source (or a security group) the model cannot see into: the checkers may or may not get through."""
    return not_judged(
        RULE_ID, Severity.WARNING, subject=f"NLB {lb.resource.logical_id} admits the Route 53 health checkers of "
        f"{hc.resource.logical_id} on port {port}?", element=unknown,
        reason="a prefix list, parameter or security group the given templates do not hold: which addresses it "
        "admits is not known, and the rules that are known do not admit every checker",
        needs="admit the checkers by CIDR in the given templates, or name the AWS-managed list "
        f"com.amazonaws.<region>.route53-healthchecks in the group's Metadata ({ROUTE53_PREFIX_LIST_METADATA_KEY}: "
        "the prefix list id; OriginFleet writes it), or check the stack that defines the group too",
        template=lb.resource.template, stack=lb.resource.stack, resource=lb.resource.logical_id, path=lb.resource.path,
    )


RULE_ID = "EO-SG1"
RULE = Rule(
    id=RULE_ID,
    lower="warning while more than 18 % of the checkers still get through",
    severity=Severity.ERROR,
    title="Health checkers blocked by the NLB security group",
    catches=(
        "An NLB whose security groups admit too few of the Route 53 health checkers of the check's Regions (all regions "
        "when none are given) on the health-checked port for more than 18 % to report healthy (error), or leave some "
        "checker regions out (warning); 0.0.0.0/0 admits all. A source the given templates do not show (a prefix "
        "list other than CloudFront's or the Route 53 list the group's Metadata names, a parameter, a security group "
        "outside them) is not judged (warning) unless the rules that are known already admit every checker."
    ),
    incident="The NLB security group (CDK's feature flag gives it no inbound rules) blocked health checks: all unhealthy, Route 53 failed open and answered with dead IPs too.",
    fix=FIX,
    check=check,
    facts=("route53.health.healthy_share", "route53.health.checker_prefix_list", "route53.health.checker_prefix_list_weight"),
)
