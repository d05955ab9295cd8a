"""RULES.md, generated from the registry: ``python -m edge_origin.rules.catalogue > RULES.md``.

``tests/test_rules_catalogue.py`` fails when RULES.md and the registry differ.
"""

from __future__ import annotations

from edge_origin.model import GRPC_ORIGIN_METADATA_KEY
from edge_origin.rules import ACKNOWLEDGE_METADATA_KEY, CATALOGUE, PACK_NAME

INTRO = f"""# edge-origin rules

Generated from `constructs/edge_origin/rules/` by `python -m edge_origin.rules.catalogue > RULES.md`;
a test keeps this file and the registry in step. Rule ids are stable.

The same rule functions run in `cdk synth` (the cdk-nag 3 pack `EdgeOriginChecks`, rule ids
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

## Severities and exit codes

`error` > `warning` > `info`. `edge-origin check` exits 1 when a finding is at or above
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
  `{ACKNOWLEDGE_METADATA_KEY}: [{{"id": "EO-DNS1", "reason": "..."}}]` (a reason is required).
"""


def render() -> str:
    parts = [INTRO, "## Rules", "", "| Id | Severity | Title |", "|---|---|---|"]
    parts += [f"| [{r.id}](#{r.id.lower()}) | {r.severity.value} | {r.title} |" for r in CATALOGUE]
    for r in CATALOGUE:
        parts += [
            "",
            f"### {r.id}",
            "",
            f"**{r.title}** ({r.severity.value})",
            "",
            f"- Catches: {r.catches}",
            f"- Incident: {r.incident}",
            f"- Fix: {r.fix}",
            f"- Acknowledge: {r.acknowledge}",
        ]
        if getattr(r, "why", ""):
            parts.append(f"- Why: {r.why}")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    print(render(), end="")
