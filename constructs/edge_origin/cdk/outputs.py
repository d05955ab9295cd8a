"""Stack outputs of the patterns, and ``export_prefix``: every output under a pattern exported
as ``<prefix>-<output id>`` (the id is the ``CfnOutput``'s construct id, e.g. ``Nlb1Arn``)."""

from __future__ import annotations

from collections.abc import Mapping

import aws_cdk as cdk
from constructs import Construct


def export_every_output(
    scope: Construct, prefix: str | None, *, names: Mapping[str, str] | None = None
) -> dict[str, cdk.CfnOutput]:
    """Give every ``CfnOutput`` under ``scope`` the export ``<prefix>-<name>`` (``names`` maps a
    construct path to a name other than its id). Returns ``{export name: output}``; no prefix:
    no exports, ``{}``. Two outputs wanting one export name raise (CloudFormation would refuse
    the deploy: export names are unique per account and region)."""
    if prefix is None:
        return {}
    renamed = dict(names or {})
    made: dict[str, cdk.CfnOutput] = {}
    for construct in scope.node.find_all():
        if not isinstance(construct, cdk.CfnOutput):
            continue
        name = f"{prefix}-{renamed.get(construct.node.path, construct.node.id)}"
        if name in made:
            raise ValueError(
                f"{scope.node.path}: two outputs would be exported as {name} "
                f"({made[name].node.path}, {construct.node.path})"
            )
        construct.export_name = name
        made[name] = construct
    return made


def origin_outputs(scope: Construct, origin_name: str, domain_names: list[str] | None = None) -> None:
    """``OriginName`` (the name CloudFront or the clients resolve) and, with custom domains,
    ``DomainNames`` (comma-separated, as given)."""
    cdk.CfnOutput(scope, "OriginName", value=origin_name, description="origin DNS name (multivalue records, one per EIP)")
    if domain_names:
        cdk.CfnOutput(
            scope, "DomainNames", value=",".join(domain_names),
            description="custom domains of the distribution, comma-separated (Fn::Split to use one)",
        )
