"""``export_prefix`` exports every output docs/constructs.md lists, under the listed name: a consumer
stack imports each with ``Fn.import_value`` and the app synthesizes (one synth for the module)."""

from __future__ import annotations

import re
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_route53 as route53

from edge_origin import GrpcEdgeToOrigin, InternalGrpcOrigin
from edge_origin.cdk.outputs import export_every_output

ROOT = Path(__file__).resolve().parents[2]
ENV = cdk.Environment(account="123456789012", region="us-east-1")


def _documented_patterns() -> list[re.Pattern[str]]:
    """The output ids of the docs/constructs.md paragraph "Stack outputs of the pattern", ``<i>``/``<k>`` as digits."""
    text = (ROOT / "docs" / "constructs.md").read_text(encoding="utf-8")
    paragraph = text[text.index("Stack outputs of the pattern"):].split("\n\n", 1)[0]
    names = [n for n in re.findall(r"`([A-Z][A-Za-z<>]+)`", paragraph) if n not in {"InternalGrpcOrigin", "CfnOutput"}]
    assert len(names) >= 10, names
    return [re.compile(re.escape(n).replace("<i>", r"\d+").replace("<k>", r"\d+")) for n in names]


@pytest.fixture(scope="module")
def synthesized() -> dict[str, dict]:
    app = cdk.App()
    producer = cdk.Stack(app, "Producer", env=ENV)
    zone = route53.HostedZone.from_hosted_zone_attributes(producer, "Zone", hosted_zone_id="Z1", zone_name="example.com")
    cert = acm.Certificate.from_certificate_arn(producer, "Cert", "arn:aws:acm:us-east-1:123456789012:certificate/abc")
    edge = GrpcEdgeToOrigin(
        producer, "Ingest", zone=zone, origin_name="origin.example.com", service_name="ingest", nlb_count=2,
        export_prefix="dev-ingest", domain_names=["api.example.com"], certificate=cert,
    )
    private = route53.PrivateHostedZone.from_hosted_zone_attributes(
        producer, "Private", hosted_zone_id="Z2", zone_name="svc.internal"
    )
    internal = InternalGrpcOrigin(
        producer, "Tax", zone=private, origin_name="tax.svc.internal", service_name="tax",
        vpc=edge.fleet.vpc, export_prefix="dev-tax",
    )
    consumer = cdk.Stack(app, "Consumer", env=ENV)
    names = sorted({*edge.exports, *internal.exports})
    for i, name in enumerate(names):
        cdk.CfnOutput(consumer, f"Imported{i}", value=cdk.Fn.import_value(name))
    assembly = app.synth()
    return {
        "producer": assembly.get_stack_by_name("Producer").template,
        "consumer": assembly.get_stack_by_name("Consumer").template,
    }


def _exports(template: dict) -> dict[str, str]:
    return {o["Export"]["Name"]: k for k, o in template.get("Outputs", {}).items() if "Export" in o}


def test_every_output_of_both_patterns_is_exported(synthesized: dict[str, dict]) -> None:
    outputs = synthesized["producer"]["Outputs"]
    assert outputs and all("Export" in o for o in outputs.values()), [k for k, o in outputs.items() if "Export" not in o]


def test_the_consumer_imports_every_export_and_nothing_else(synthesized: dict[str, dict]) -> None:
    imported = {o["Value"]["Fn::ImportValue"] for o in synthesized["consumer"]["Outputs"].values()}
    assert imported == set(_exports(synthesized["producer"]))
    for name in ("dev-ingest-Nlb1TargetGroupArn", "dev-ingest-Nlb2SecurityGroup1Id", "dev-ingest-OriginVerifySecretArn",
                 "dev-ingest-OriginName", "dev-ingest-DomainNames", "dev-tax-Nlb1TargetGroupArn", "dev-tax-OriginName"):
        assert name in imported


def test_readme_names_are_the_real_export_names(synthesized: dict[str, dict]) -> None:
    patterns = _documented_patterns()
    ids = [n.split("-", 2)[2] for n in _exports(synthesized["producer"])]
    undocumented = [i for i in ids if not any(p.fullmatch(i) for p in patterns)]
    assert not undocumented, undocumented
    unused = [p.pattern for p in patterns if not any(p.fullmatch(i) for i in ids)]
    assert not unused, unused


def test_no_prefix_no_exports() -> None:
    stack = cdk.Stack(cdk.App(), "S", env=ENV)
    cdk.CfnOutput(stack, "A", value="x")
    assert export_every_output(stack, None) == {}


def test_two_outputs_wanting_one_export_name_are_refused() -> None:
    stack = cdk.Stack(cdk.App(), "S", env=ENV)
    for parent in ("One", "Two"):
        cdk.CfnOutput(_child(stack, parent), "Arn", value="x")
    with pytest.raises(ValueError, match="two outputs would be exported as p-Arn"):
        export_every_output(stack, "p")


def _child(scope: cdk.Stack, name: str):  # noqa: ANN202 - a plain Construct
    from constructs import Construct

    return Construct(scope, name)
