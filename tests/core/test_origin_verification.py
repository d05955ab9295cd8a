"""Origin verification on the AWS side: the secret header, its dynamic reference, bad input, EO-SEC1.

The reference app's template is covered by tests/cdk/test_reference_template.py (snapshot) and
``test_reference_app_*`` here; the pods' side by tests/profile/test_origin_verification_interceptors.py
and tests/loopback/test_origin_verify_interceptor.py.
"""

from __future__ import annotations

import json
import re
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_ssm as ssm
from hypothesis import example, given, settings
from hypothesis import strategies as st

from edge_origin import EdgeOriginPropError, GrpcEdgeDistribution, GrpcEdgeToOrigin, OriginVerification
from edge_origin.core.findings import Severity
from edge_origin.core.origin_verification import (
    CLOUDFRONT_DISALLOWED,
    METADATA_KEY,
    header_name_problem,
    is_dynamic_reference,
    rotation_steps,
    verification_status,
)
from edge_origin.model import TemplateModel
from edge_origin.review.report import render_report
from edge_origin.rules import get_rule, run_rules

SEC1 = get_rule("EO-SEC1")
SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:ingest-verify-AbCdEf"
VERSION = "0b1e2c3d-4f5a-6b7c-8d9e-0f1a2b3c4d5e"


def _stack(region: str | None = "us-east-1") -> cdk.Stack:
    env = cdk.Environment(account="123456789012", region=region) if region else None
    return cdk.Stack(cdk.App(), "S", env=env)


def _pattern(stack: cdk.Stack | None = None, **overrides: Any) -> GrpcEdgeToOrigin:
    stack = stack or _stack()
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Zone", hosted_zone_id="Z1", zone_name="example.com")
    return GrpcEdgeToOrigin(stack, "P", zone=zone, origin_name="origin.example.com", service_name="ingest", **overrides)


def _template(construct: Any) -> dict[str, Any]:
    stack = cdk.Stack.of(construct)
    return cdk.App.of(stack).synth().get_stack_by_name(stack.stack_name).template


def _of_type(template: dict[str, Any], rtype: str) -> dict[str, Any]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == rtype}


def _origin(template: dict[str, Any]) -> dict[str, Any]:
    (dist,) = _of_type(template, "AWS::CloudFront::Distribution").values()
    (origin,) = dist["Properties"]["DistributionConfig"]["Origins"]
    return origin


def _sec1(template: dict[str, Any]) -> list:
    return run_rules(TemplateModel.from_templates({"S": template}), [SEC1])


# --- the construct --------------------------------------------------------------------------------
def test_default_is_on_with_a_created_secret_and_a_dynamic_reference_only() -> None:
    pattern = _pattern()
    template = _template(pattern)
    secrets = _of_type(template, "AWS::SecretsManager::Secret")
    (secret_id,) = secrets
    generate = secrets[secret_id]["Properties"]["GenerateSecretString"]
    assert generate["GenerateStringKey"] == "current" and json.loads(generate["SecretStringTemplate"]) == {"previous": ""}
    assert generate["ExcludePunctuation"] is True and generate["PasswordLength"] == 48
    (header,) = _origin(template)["OriginCustomHeaders"]
    assert header["HeaderName"] == "x-origin-verify"
    assert header["HeaderValue"] == {
        "Fn::Join": ["", ["{{resolve:secretsmanager:", {"Ref": secret_id}, ":SecretString:current::}}"]]
    }
    (dist,) = _of_type(template, "AWS::CloudFront::Distribution").values()
    assert dist["Metadata"][METADATA_KEY] == {
        "header": "x-origin-verify", "source": "secretsmanager", "jsonField": "current",
        "previousJsonField": "previous", "versionId": "AWSCURRENT",
    }
    assert any(o["Value"] == {"Ref": secret_id} for o in template["Outputs"].values())
    assert "SecretString" not in secrets[secret_id]["Properties"]  # no value written, only a generator
    verify = [m for m in pattern.bindings.manifests if m["metadata"]["name"] == "ingest-origin-verify"]
    assert len(verify) == 1 and json.loads(verify[0]["data"]["origin-verify.json"])["header"] == "x-origin-verify"
    assert _sec1(template) == []


def test_none_turns_it_off_and_eo_sec1_fires_on_that_template() -> None:
    pattern = _pattern(origin_verification=None)
    template = _template(pattern)
    assert "OriginCustomHeaders" not in _origin(template)
    assert not _of_type(template, "AWS::SecretsManager::Secret")
    assert pattern.edge.origin_verification is None
    assert all(m["metadata"]["name"] != "ingest-origin-verify" for m in pattern.bindings.manifests)
    findings = _sec1(template)
    assert [(f.rule, f.severity) for f in findings] == [("EO-SEC1", Severity.WARNING)]
    assert "sends no origin verification header" in findings[0].message and "pl-3b927c52" in findings[0].message


def test_environment_agnostic_stack_fires_through_the_prefix_list_mapping() -> None:
    template = _template(_pattern(_stack(region=None), origin_verification=None))
    assert any("FindInMap" in json.dumps(r) for r in _of_type(template, "AWS::EC2::SecurityGroupIngress").values())
    assert [f.rule for f in _sec1(template)] == ["EO-SEC1"]
    assert _sec1(_template(_pattern(_stack(region=None)))) == []


def test_version_pin_header_name_and_field_reach_the_reference() -> None:
    verification = OriginVerification(header_name="x-proof-of-origin", json_field="now", previous_json_field="before", version_id=VERSION)
    template = _template(_pattern(origin_verification=verification))
    (header,) = _origin(template)["OriginCustomHeaders"]
    assert header["HeaderName"] == "x-proof-of-origin"
    assert header["HeaderValue"]["Fn::Join"][1][-1] == f":SecretString:now::{VERSION}}}}}"
    assert verification.with_version(None).version_id is None and verification.with_version(VERSION) == verification


def test_rotation_bump_changes_only_the_distribution() -> None:
    before = _template(_pattern(origin_verification=OriginVerification(version_id=VERSION)))
    after = _template(_pattern(origin_verification=OriginVerification(version_id=VERSION.replace("0b1e", "1c2f"))))
    changed = {k for k in before["Resources"] if before["Resources"][k] != after["Resources"].get(k)}
    assert {before["Resources"][k]["Type"] for k in changed} == {"AWS::CloudFront::Distribution"}


@pytest.mark.parametrize("kind", ["construct", "arn"])
def test_a_given_secret_is_used_and_none_is_created(kind: str) -> None:
    stack = _stack()
    secret = secretsmanager.Secret.from_secret_complete_arn(stack, "Given", SECRET_ARN) if kind == "construct" else SECRET_ARN
    template = _template(_pattern(stack, origin_verification=OriginVerification(secret=secret)))
    assert not _of_type(template, "AWS::SecretsManager::Secret")
    (header,) = _origin(template)["OriginCustomHeaders"]
    assert header["HeaderValue"] == f"{{{{resolve:secretsmanager:{SECRET_ARN}:SecretString:current::}}}}"
    assert not [o for o in template.get("Outputs", {}).values() if "secret" in o.get("Description", "").lower()]


def test_bare_distribution_is_off_by_default_and_takes_the_prop() -> None:
    stack = _stack()
    plain = GrpcEdgeDistribution(stack, "Plain", origin_name="a.example.com")
    verified = GrpcEdgeDistribution(stack, "Verified", origin_name="b.example.com", origin_verification=OriginVerification())
    assert plain.origin_verification is None and verified.origin_verification is not None
    assert verified.origin_verification.created and verified.origin_verification.header_name == "x-origin-verify"


# --- bad input ------------------------------------------------------------------------------------
TOKEN_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-_."
valid_names = (
    st.text(alphabet=TOKEN_CHARS, min_size=1, max_size=40)
    .map(lambda s: "x-" + s)
    .filter(lambda n: header_name_problem(n) is None)
)


@settings(max_examples=25, deadline=None)
@given(name=valid_names)
def test_valid_header_names_are_accepted(name: str) -> None:
    assert OriginVerification(header_name=name).validated("T").header_name == name


@settings(max_examples=40, deadline=None)
@given(
    name=st.one_of(
        st.just(""),
        st.text(min_size=1, max_size=20).filter(lambda s: not re.fullmatch(r"[0-9a-z_.-]+", s)),  # uppercase, spaces, ':' ...
        st.sampled_from(sorted(CLOUDFRONT_DISALLOWED)),
        st.tuples(st.sampled_from(["x-amz-", "x-edge-", "grpc-"]), st.text(alphabet=TOKEN_CHARS, max_size=10)).map("".join),
        st.text(alphabet=TOKEN_CHARS, min_size=1, max_size=10).map(lambda s: f"x-{s}-bin"),
        st.sampled_from(["content-type", "user-agent", "authorization", "x-" + "a" * 300]),
    )
)
def test_bad_header_names_fail_at_synth_naming_the_prop(name: str) -> None:
    with pytest.raises(EdgeOriginPropError, match=r"invalid origin_verification\.header_name=.*allowed: "):
        OriginVerification(header_name=name).validated("GrpcEdgeToOrigin S/P")


def test_cloudfront_list_is_checked_case_by_case() -> None:
    for name in ("host", "via", "x-real-ip", "x-amz-cf-id", "x-edge-location", "cookie", "te"):
        assert "CloudFront" in (header_name_problem(name) or ""), name
    assert "lowercase" in (header_name_problem("X-Origin-Verify") or "")


@pytest.mark.parametrize(
    ("props", "prop", "wanted"),
    [
        ({"header_name": "Host"}, "header_name", "lowercase HTTP/2 header name"),
        ({"header_name": "via"}, "header_name", "CloudFront can add"),
        ({"header_name": ""}, "header_name", "non-empty"),
        ({"json_field": ""}, "json_field", "JSON key"),
        ({"json_field": "a:b"}, "json_field", "JSON key"),
        ({"previous_json_field": "current"}, "previous_json_field", "other than json_field"),
        ({"version_id": ""}, "version_id", "VersionId"),
        ({"version_id": "v1"}, "version_id", "VersionId"),
        ({"secret_length": 8}, "secret_length", "32..128"),
        ({"secret": "arn:aws:ssm:us-east-1:123456789012:parameter/verify"}, "secret", "Secrets Manager secret ARN"),
        ({"secret": ""}, "secret", "Secrets Manager secret ARN"),
        ({"secret": 42}, "secret", "Secrets Manager secret"),
    ],
)
def test_bad_props_name_the_prop(props: dict[str, Any], prop: str, wanted: str) -> None:
    with pytest.raises(EdgeOriginPropError, match=rf"GrpcEdgeToOrigin S/P.*invalid origin_verification\.{prop}=.*{wanted}"):
        _pattern(origin_verification=OriginVerification(**props))


def test_a_secret_that_is_not_a_secrets_manager_secret_fails() -> None:
    stack = _stack()
    parameter = ssm.StringParameter(stack, "Param", string_value="not a secret")
    with pytest.raises(EdgeOriginPropError, match=r"origin_verification\.secret='StringParameter'.*Secrets Manager"):
        _pattern(stack, origin_verification=OriginVerification(secret=parameter))
    with pytest.raises(EdgeOriginPropError, match=r"origin_verification\.secret='<SecretValue>'.*not a SecretValue"):
        _pattern(_stack(), origin_verification=OriginVerification(secret=cdk.SecretValue.unsafe_plain_text("hunter2")))
    with pytest.raises(EdgeOriginPropError, match=r"invalid origin_verification=.*an OriginVerification or None"):
        _pattern(_stack(), origin_verification={"header_name": "x-origin-verify"})


# --- EO-SEC1 and the report on hand-written variants ------------------------------------------------
def _with_headers(template: dict[str, Any], headers: list[dict[str, Any]] | None) -> dict[str, Any]:
    body = json.loads(json.dumps(template))
    (dist,) = _of_type(body, "AWS::CloudFront::Distribution").values()
    (origin,) = dist["Properties"]["DistributionConfig"]["Origins"]
    origin.pop("OriginCustomHeaders", None)
    dist.pop("Metadata", None)
    if headers is not None:
        origin["OriginCustomHeaders"] = headers
    return body


@pytest.fixture(scope="module")
def plain_template() -> dict[str, Any]:
    return _PLAIN_TEMPLATE()


@pytest.mark.parametrize("name", ["x-origin-verify", "x-shared-secret", "x-cdn-token", "X-Auth-Proof"])
def test_plaintext_value_is_a_finding_that_names_the_header_never_the_value(plain_template: dict[str, Any], name: str) -> None:
    value = "pl41ntext-V4LUE-in-the-template"
    body = _with_headers(plain_template, [{"HeaderName": name, "HeaderValue": value}])
    model = TemplateModel.from_templates({"S": body})
    findings = run_rules(model, [SEC1])
    assert len(findings) == 1 and name.lower() in findings[0].message and "plaintext" in findings[0].message
    for fmt in ("markdown", "text"):
        report = render_report(model, fmt)
        assert value not in report and name.lower() in report and "PLAINTEXT" in report
    assert value not in json.dumps([f.to_dict() for f in findings])


def test_plain_ssm_parameter_is_not_a_secret(plain_template: dict[str, Any]) -> None:
    body = _with_headers(plain_template, [{"HeaderName": "x-origin-verify", "HeaderValue": "{{resolve:ssm:/edge/verify}}"}])
    model = TemplateModel.from_templates({"S": body})
    (finding,) = run_rules(model, [SEC1])
    assert "plain SSM parameter" in finding.message and "/edge/verify" not in finding.message
    assert "plain SSM parameter (PLAINTEXT" in render_report(model, "markdown")


@settings(max_examples=20, deadline=None)
@given(
    name=valid_names,
    value=st.one_of(
        st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=8, max_size=40).map(lambda v: ("literal", v)),
        st.sampled_from(["secretsmanager:arn:aws:secretsmanager:us-east-1:1:secret:v:SecretString:current", "ssm-secure:/v:1"])
        .map(lambda ref: ("reference", "{{resolve:" + ref + "}}")),
    ),
)
@example(name="x-origin-verify", value=("literal", "distribu"))  # a piece of the message's own wording
@example(name="x-origin-verify", value=("literal", "plaintext"))
@example(name="x-origin-verify", value=("literal", "cloudfront"))
@example(name="abcdefgh", value=("literal", "abcdefgh"))  # the value may equal the header's name
def test_eo_sec1_fires_exactly_when_no_header_comes_from_a_secret(name: str, value: tuple[str, str]) -> None:
    kind, text = value
    messages, report = _sec1_output(name, text)
    assert bool(messages) is (kind == "literal")
    # The value can be any text, even a piece of the fixed wording ('distribu'), so the oracle is not
    # "the value is no substring": the output must not depend on the value at all (another literal
    # gives the same messages and report), and must not carry the header the way it would be printed.
    other = "zz9" + text[::-1] + "9zz"  # a different literal of the same alphabet
    assert _sec1_output(name, other if kind == "literal" else text) == (messages, report)
    for printed in _printed_forms(name, text):
        assert printed not in report and all(printed not in m for m in messages), printed


def _sec1_output(name: str, value: str) -> tuple[list[str], str]:
    """EO-SEC1's messages and the markdown report for the plain template with this one header."""
    body = _with_headers(_PLAIN_TEMPLATE(), [{"HeaderName": name, "HeaderValue": value}])
    model = TemplateModel.from_templates({"S": body})
    findings = run_rules(model, [SEC1])
    return [f.message for f in findings], render_report(model, "markdown", findings)


def _printed_forms(name: str, value: str) -> list[str]:
    """How a header and its value would appear if printed: 'name: value', 'name=value', quoted."""
    forms = [f"{n}{sep}{value}" for n in {name, name.lower(), "HeaderValue"} for sep in (": ", ":", "=", " = ")]
    return [*forms, repr(value), json.dumps(value)]


def _plain_template_once() -> Any:
    cache: dict[str, dict[str, Any]] = {}

    def get() -> dict[str, Any]:
        if "t" not in cache:
            cache["t"] = _template(_pattern(origin_verification=None))
        return cache["t"]

    return get


_PLAIN_TEMPLATE = _plain_template_once()


def test_benign_plaintext_header_does_not_verify(plain_template: dict[str, Any]) -> None:
    body = _with_headers(plain_template, [{"HeaderName": "x-cdn", "HeaderValue": "cloudfront"}])
    findings = run_rules(TemplateModel.from_templates({"S": body}), [SEC1])
    assert len(findings) == 1 and "sends no origin verification header" in findings[0].message


@pytest.mark.parametrize(
    "value",
    [
        "{{resolve:secretsmanager:verify:SecretString:current}}",
        "{{resolve:ssm-secure:/edge/verify:3}}",
        {"Fn::Sub": "{{resolve:secretsmanager:${AWS::Region}-verify:SecretString:current}}"},
    ],
)
def test_dynamic_references_verify(plain_template: dict[str, Any], value: Any) -> None:
    body = _with_headers(plain_template, [{"HeaderName": "x-anything", "HeaderValue": value}])
    model = TemplateModel.from_templates({"S": body})
    assert run_rules(model, [SEC1]) == []
    assert "from a secret (dynamic reference)" in render_report(model, "markdown")


def test_acknowledgement_drops_the_finding(plain_template: dict[str, Any]) -> None:
    body = _with_headers(plain_template, None)
    (dist,) = _of_type(body, "AWS::CloudFront::Distribution").values()
    dist["Metadata"] = {"edge-origin:acknowledge": [{"id": "EO-SEC1", "reason": "pods check mTLS client certs instead"}]}
    assert run_rules(TemplateModel.from_templates({"S": body}), [SEC1]) == []


def test_quiet_when_the_nlb_does_not_admit_cloudfront(plain_template: dict[str, Any]) -> None:
    body = json.loads(json.dumps(plain_template))
    for res in _of_type(body, "AWS::EC2::SecurityGroupIngress").values():
        if "SourcePrefixListId" in res["Properties"]:
            res["Properties"].pop("SourcePrefixListId")
            res["Properties"]["CidrIp"] = "203.0.113.0/24"
    assert run_rules(TemplateModel.from_templates({"S": body}), [SEC1]) == []


def test_status_and_dynamic_reference_helpers() -> None:
    assert is_dynamic_reference("{{resolve:secretsmanager:x:SecretString:current}}")
    assert not is_dynamic_reference("{{resolve:ssm:/plain/parameter}}")  # plain SSM parameters are readable
    assert not is_dynamic_reference("hunter2") and not is_dynamic_reference(None)
    assert verification_status({}).state == "none"
    assert verification_status({"x-foo": "bar"}, declared_header="x-foo").state == "plaintext"
    assert verification_status({"x-origin-verify": 12345}).state == "plaintext"
    steps = rotation_steps(SECRET_ARN)
    assert len(steps) == 5 and SECRET_ARN in steps[1] and "version_id" in steps[3] and "AWSCURRENT" in steps[0]


# --- in synth: the cdk-nag 3 pack -------------------------------------------------------------------
def test_pack_warns_fails_on_warning_and_takes_an_acknowledgement() -> None:
    from edge_origin.review.nag import EdgeOriginChecks

    def violations(pattern: GrpcEdgeToOrigin, fail_on: Severity = Severity.ERROR) -> dict[str, str]:
        report = EdgeOriginChecks(fail_on=fail_on).validate_scope(cdk.Stack.of(pattern))
        return {v.rule_name: v.severity for v in report.violations}

    open_pattern = _pattern(origin_verification=None)
    assert violations(open_pattern)["EdgeOrigin-EO-SEC1"] == "warning"
    assert violations(open_pattern, Severity.WARNING)["EdgeOrigin-EO-SEC1"] == "error"
    assert "EdgeOrigin-EO-SEC1" not in violations(_pattern(), Severity.WARNING)


@pytest.mark.parametrize("acknowledged", [False, True])
def test_synth_fails_on_warning_unless_acknowledged(acknowledged: bool, tmp_path) -> None:  # noqa: ANN001
    from edge_origin.review.nag import EdgeOriginChecks

    app = cdk.App(outdir=str(tmp_path))
    pattern = _pattern(cdk.Stack(app, "S", env=cdk.Environment(account="123456789012", region="us-east-1")), origin_verification=None)
    cdk.Validations.of(app).add_plugins(EdgeOriginChecks(fail_on=Severity.WARNING))
    if acknowledged:
        cdk.Validations.of(pattern).acknowledge(
            cdk.Acknowledgment(id="EdgeOrigin::EdgeOrigin-EO-SEC1", reason="the pods verify mTLS client certificates")
        )
        app.synth()
        assert "the pods verify mTLS" in (tmp_path / "validation-report.json").read_text()
    else:
        with pytest.raises(Exception, match="EO-SEC1"):
            app.synth()
