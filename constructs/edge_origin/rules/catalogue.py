"""RULES.md, generated from the registry: ``python -m edge_origin.rules.catalogue > RULES.md``.

``tests/rules/test_rules_catalogue.py`` fails when RULES.md and the registry differ.
"""

from __future__ import annotations

from edge_origin.core.facts import cite
from edge_origin.model import GRPC_ORIGIN_METADATA_KEY
from edge_origin.rules import ACKNOWLEDGE_METADATA_KEY, CATALOGUE, PACK_NAME

INTRO = f"""# edge-origin rules

Generated from `constructs/edge_origin/rules/` by `python -m edge_origin.rules.catalogue > RULES.md`;
a test keeps this file and the registry in step. Rule ids are stable.

The same rule functions run in `cdk synth` (the CDK validation plugin `EdgeOriginChecks`, rule ids
`{PACK_NAME}-<id>`) and in `edge-origin check` (templates or a `cdk.out`), over one model of all
given templates (intrinsics resolved, `Fn::ImportValue` followed across stacks, names normalized).

## Which names the rules look at

- **gRPC origin**: (a) the `DomainName` of a CloudFront origin used by a cache behavior (default or
  ordered, origin groups followed) with `GrpcConfig.Enabled: true`, in any given template; or
  (b) a record set (or record set group) with Metadata `{GRPC_ORIGIN_METADATA_KEY}: true`
  (record sets take no tags; in CDK `record.node.default_child.add_metadata("{GRPC_ORIGIN_METADATA_KEY}", True)`).
- **Long-lived origin**: any other CloudFront origin name whose records lead to load balancers
  (values that are EIPs on NLB subnet mappings, or aliases to an NLB). Rules that are errors for
  gRPC origins report these as warnings.
- EO-DNS5, EO-NLB3 look at every record / NLB, origin or not.

## How the DNS rules judge: the answer model

EO-DNS1/2/3/5, EO-SG1, EO-NLB1/2 and EO-CF2 do not read `Weight`, `Failover`, `Region` or
`MultiValueAnswer` themselves: they ask the answer model (`edge_origin.answers`) what a resolver
receives for the origin name. It reads the record sets of every hosted zone (identified by zone
+ name + type + set id; a public and a private zone of one name are two zones), follows CNAME and
alias chains (at most 8 hops; an alias to an NLB/ALB answers with its zonal addresses, an alias to
another record of the zone with that record's answer), and judges each zone from the vantage that
sees it: CloudFront resolves on the public internet, so a private zone's records are never a
distribution's origin (they are judged for names marked as in-VPC gRPC origins, and findings name
the zone). Findings name the zone, the policy, the answer's size and the chain.

Health is Route 53's (API reference, `HealthCheckConfig`): no check = healthy; `Disabled` =
always healthy; `Inverted` flips; CALCULATED is healthy with at least `HealthThreshold` healthy
children (0: always; more than the children: never); CloudWatch-alarm checks follow the alarm and
`InsufficientDataHealthStatus`; endpoint checks are healthy when more than 18 % of the checkers
of the check's `Regions` (all regions when none) report healthy; an alias with
`EvaluateTargetHealth` inherits its target's health.

Parameters: where a parameter with `AllowedValues` decides a routing resource (a record set, health
check, hosted zone or distribution) or the NLB side of the path (load balancer, listener, target group,
security group) (directly or through a Condition), every other allowed value is judged too (one parameter at a time, at most
16 values); a finding that holds only then ends "(only with parameter P=v in stack S (default d))".

| Policy | One answer holds | API reference (ResourceRecordSet) | EO-DNS1 |
|---|---|---|---|
| simple | every value of the one set | one record set per name and type | warning when that is one address, or several without health checks |
| weighted | one set, chosen by weight / sum | "You can only specify one ResourceRecord per weighted resource record set"; weight 0 never answers unless all are 0 | error when a set holds one address of several; warning when a set holds several values |
| multivalue | up to 8 healthy sets (a different 8 per resolver above 8; up to 8 unhealthy when none is healthy) | "Route 53 responds to DNS queries with up to eight healthy records" | quiet (EO-DNS2: health; EO-DNS3: count, zones) |
| failover | the PRIMARY while healthy, else the SECONDARY (the PRIMARY again when both fail) | "When the primary resource record set is healthy, Route 53 responds ... from the primary" | error when each set holds one address; fix: alias each to a multivalue pool |
| latency | the set of the region nearest the resolver | "You can only specify one ResourceRecord per latency resource record set" | error per region; fix: alias each region's set to a pool of that region's addresses |
| geolocation | the most specific location set, else `*`, else no answer | "priority goes to the smallest geographic region" | error per location; fix: alias each to a pool |
| geoproximity | the set nearest the resolver (with bias) | `GeoProximityLocation` | error per set; fix: alias each to a pool |
| CIDR | the set of the client's CIDR location, else `*`, else no answer | `CidrRoutingConfig` | error per location; fix: alias each to a pool |

## Severities and exit codes

`error` > `warning` > `info`. One severity per rule, everywhere: the one below (and in `rules
explain`, SARIF's `defaultConfiguration`, the review's counts) is the highest a finding of the rule
gets; where a finding gets less, the rule's section says when ("warning for ..."). Every rule also
gives a `warning` where it cannot judge (a value decided at deploy time, a resource in no given
template: "not judged"), and rules that are errors for gRPC origins give at most a warning for
other long-lived origins. A test holds every finding of the fixture corpus to this table.
`edge-origin check` exits 1 when a finding is at or above
`--fail-on` (default `error`), 2 on bad input. In synth, findings at or above
`EdgeOriginChecks(fail_on=...)` (default `Severity.ERROR`) fail it; the others are listed in
the validation report as warnings and synth passes.

## Transition rules (EO-CHG*)

`edge-origin diff --base ... --head ...` (and `edge-origin report --base ... --head ...`) run them
over two models, base (main) and head (the pull request), matched by stack and logical id.
Whether a change replaces a resource comes from the resource schemas cfn-lint ships
(`createOnlyProperties`, and the writable parts of `primaryIdentifier`); where the schema does
not decide, the diff says "may replace". They cannot run in synth (one template alone does not
show a transition), so they are acknowledged in template Metadata only.

## Acknowledging a finding

- In a CDK app: `Validations.of(scope).acknowledge(Acknowledgment(id="{PACK_NAME}::{PACK_NAME}-EO-DNS1", reason="..."))`
  on the resource or any parent; the reason is kept in `cdk.out/validation-report.json`.
- In any template (CLI and synth): resource Metadata
  `{ACKNOWLEDGE_METADATA_KEY}: [{{"id": "EO-DNS1", "reason": "..."}}]` (a reason is required: an entry without one
  is not applied and is an `EO-ACK1` error naming the resource).
- Acknowledged findings are not dropped: every output format lists them with the reason and the source
  (SARIF `suppressions`, JUnit `<skipped>`, the review's "Acknowledged" section).

## Files not read

A file given to `check` or `report` (or a nested stack's template) that cannot be read (bad input, a
budget passed, a cycle of nested stacks, a path that leaves the assembly) is an `EO-READ1` error in every
format ("not judged: <file>: <why>"), counted as not judged: what it holds is not judged, so the review
never reads as clean. Like `EO-ACK1`, no `--ignore`, `select`, acknowledgement or baseline sets it aside.
"""


def severity_text(rule: object, *, short: bool = False) -> str:
    """A rule's severity as RULES.md states it: the highest, and when a finding gets less."""
    top = rule.severity.value  # type: ignore[attr-defined]
    lower = getattr(rule, "lower", "")
    if not lower:
        return top
    return f"{top} (or warning)" if short else f"{top}; {lower}"


def render() -> str:
    parts = [INTRO, "## Rules", "", "| Id | Severity | Title |", "|---|---|---|"]
    parts += [f"| [{r.id}](#{r.id.lower()}) | {severity_text(r, short=True)} | {r.title} |" for r in CATALOGUE]
    for r in CATALOGUE:
        parts += [
            "",
            f"### {r.id}",
            "",
            f"**{r.title}** ({severity_text(r)})",
            "",
            f"- Catches: {r.catches}",
            f"- Incident: {r.incident}",
            f"- Fix: {r.fix}",
            f"- Acknowledge: {r.acknowledge}",
        ]
        if getattr(r, "why", ""):
            parts.append(f"- Why: {r.why}")
        if r.facts:
            parts.append("- Facts (edge_origin/core/facts.py):")
            parts += [f"  {line}" for line in cite(*r.facts).splitlines()]
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    print(render(), end="")
