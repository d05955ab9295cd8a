"""The facts table against the installed botocore's service models, and the checker against doctored copies."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from edge_origin.core import facts_check
from edge_origin.core.facts import FACTS, OWNERS, cite, fact


def test_every_fact_has_owner_source_date() -> None:
    assert len(FACTS) >= 40
    for f in FACTS.values():
        assert f.owner in OWNERS, f.key
        assert f.source and f.says, f.key
        assert len(f.read) == 10 and f.read[4] == "-", f.key


def test_installed_botocore_documents_every_fact() -> None:
    assert facts_check.checked_facts(), "no fact is held against a service model"
    assert facts_check.check() == []


def _doctored(tmp_path: Path, service: str, edit) -> Path:
    """A copy of botocore's data folder holding ``service``'s newest model, edited by ``edit(model)``."""
    src = facts_check._newest_model(facts_check.installed_data_dir(), service)
    data = tmp_path / "data"
    for other in facts_check.SERVICES:
        model = facts_check._newest_model(facts_check.installed_data_dir(), other)
        dest = data / other / model.parent.name
        dest.mkdir(parents=True)
        if other != service:
            shutil.copy(model, dest / model.name)
    with gzip.open(src, "rt", encoding="utf-8") as f:
        model = json.load(f)
    edit(model["shapes"])
    with gzip.open(data / service / src.parent.name / "service-2.json.gz", "wt", encoding="utf-8") as f:
        json.dump(model, f)
    return data


def _replace(shape: str, member: str, old: str, new: str):
    def edit(shapes: dict) -> None:
        doc = shapes[shape]["members"][member]["documentation"]
        assert old in doc
        shapes[shape]["members"][member]["documentation"] = doc.replace(old, new)
    return edit


@pytest.mark.parametrize(
    ("service", "edit", "key"),
    [
        ("route53", _replace("ResourceRecordSet", "MultiValueAnswer", "up to eight healthy records", "up to ten healthy records"),
         "route53.multivalue.max_answers"),
        ("route53", _replace("ResourceRecordSet", "TTL", "60 seconds or less", "300 seconds or less"), "route53.ttl.health_checked"),
        ("ec2", _replace("ConnectionTrackingSpecificationRequest", "TcpEstablishedTimeout", "350 seconds for Nitro v6",
                         "600 seconds for Nitro v6"), "ec2.conntrack.tcp_established.nitro_v6"),
        ("elbv2", _replace("TargetGroupAttribute", "Key", "terminates connections to unhealthy targets. The value is "
                           "<code>true</code> or <code>false</code>. The default is <code>true</code>",
                           "terminates connections to unhealthy targets. The value is <code>true</code> or "
                           "<code>false</code>. The default is <code>false</code>"),
         "elbv2.tg.unhealthy_connection_termination"),
        ("cloudfront", _replace("Origin", "ResponseCompletionTimeout", "doesn't enforce a maximum value",
                                "enforces a maximum of 3600 seconds"), "cloudfront.response_completion.api_max"),
        ("route53", lambda shapes: shapes["RequestInterval"].update(max=60), "route53.health.request_interval"),
        ("route53", lambda shapes: shapes["EndpointType"].update(enum=["PUBLIC"]), "route53.health.endpoint_types"),
        ("route53", lambda shapes: shapes["HealthCheckConfig"]["members"].pop("EndpointType"), "route53.health.endpoint_types"),
    ],
    ids=["eight", "ttl-advice", "conntrack-default", "unhealthy-termination-default", "rct-no-max", "range", "enum",
         "member-gone"],
)
def test_a_doctored_model_fails_the_check(tmp_path: Path, service: str, edit, key: str) -> None:
    data = _doctored(tmp_path, service, edit)
    mismatches = facts_check.check(data)
    assert [m.key for m in mismatches] == [key], [str(m) for m in mismatches]
    assert key in str(mismatches[0]) and "expected" in str(mismatches[0])


def test_the_pinned_cfn_lint_does_not_know_private_health_checks_yet() -> None:
    """CloudFormation declares private endpoint checks (``route53.health.cfn_private`` is True: the template
    reference's AWS::Route53::HealthCheckSource), but cfn-lint 1.58's bundled schemas lack EndpointType and the
    HealthCheckSource resource. When this fails, the tools caught up: offer private checks in InternalGrpcOrigin
    (issue 52 item 4)."""
    from cfnlint.schema import PROVIDER_SCHEMA_MANAGER

    assert fact("route53.health.cfn_private").value is True and "route53-healthchecksource" in fact("route53.health.cfn_private").source
    schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", "AWS::Route53::HealthCheck").schema
    members = schema["properties"]["HealthCheckConfig"]["properties"]
    assert "EndpointType" not in members
    types = PROVIDER_SCHEMA_MANAGER.get_resource_types("us-east-1")
    assert "AWS::Route53::HealthCheckSource" not in types


def test_cite_names_owner_source_and_date() -> None:
    line = cite("elbv2.nlb.capacity_units_per_zone")
    assert "aws-cdk-lib" in line and "read 2026-" in line and "2750" not in line  # the range is in the value, not the text
    with pytest.raises(KeyError):
        fact("no.such.fact")


def test_a_live_read_keeps_what_makes_a_check_private() -> None:
    """audit reads a private endpoint check (EndpointType PRIVATE, HealthCheckSourceId) into the model, so EO-DNS2
    does not call it a public check of a private address."""
    from edge_origin.live.account import HEALTH_CHECK_FIELDS
    from edge_origin.model.zones import HEALTH_CHECK_KNOWN_MEMBERS

    assert {"EndpointType", "HealthCheckSourceId"} <= set(HEALTH_CHECK_FIELDS) & set(HEALTH_CHECK_KNOWN_MEMBERS)
