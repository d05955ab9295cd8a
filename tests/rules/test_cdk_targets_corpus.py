"""Issue 36: what aws-cdk-lib writes is judged as its literal twin, and nothing on a path is silently unread.

The corpus (``tests/fixtures/cdk_targets``) is synthesized by the real aws-cdk-lib (version in
``VERSION``; ``generate.py`` rewrites it, and a slow test synthesizes it again and compares).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.intrinsics import dns_name_parts
from edge_origin.model.names import classify
from edge_origin.model.values import ResourceRef, Unresolved
from edge_origin.review.checker import check_paths
from edge_origin.rules import run_rules
from edge_origin.rules.nj1_unread_names import path_names
from tests.cdk_apps import load_corpus_generator

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "cdk_targets"
ASSEMBLY = CORPUS / "assembly"

#: case -> the template files checked together
FILES: dict[str, list[str]] = {
    "WeightedNlb": ["WeightedNlb.template.json"],
    "WeightedNlbAaaa": ["WeightedNlbAaaa.template.json"],
    "WeightedNlbAaaaDualstack": ["WeightedNlbAaaaDualstack.template.json"],
    "LatencyNlb": ["LatencyNlb.template.json"],
    "GeoNlb": ["GeoNlb.template.json"],
    "FailoverNlb": ["FailoverNlb.template.json"],
    "L1Sub": ["L1Sub.template.json"],
    "WeightedCname": ["WeightedCname.template.json"],
    "CrossStack": ["CrossStackNlbs.template.json", "CrossStackRecords.template.json"],
    "Prod": ["assembly-Prod"],
    "SimpleNlb": ["SimpleNlb.template.json"],
    "KeepaliveAtIdle": ["KeepaliveAtIdle.template.json"],
    "MultivalueEips": ["MultivalueEips.template.json"],
    "TargetCloudFront": ["TargetCloudFront.template.json"],
    "TargetRoute53Record": ["TargetRoute53Record.template.json"],
    "RecordChainTooLong": ["RecordChainTooLong.template.json"],
}
PILEUPS = ("WeightedNlb", "WeightedNlbAaaaDualstack", "CidrNlb", "WeightedCheckedNlb", "LatencyNlb", "GeoNlb", "FailoverNlb", "L1Sub", "WeightedCname", "CrossStack", "Prod")
QUIET = ("SimpleNlb", "MultivalueEips", "TargetCloudFront", "TargetRoute53Record")
NOT_JUDGED_TARGETS = {
    "TargetClassicLoadBalancer": "Classic Load Balancer",
    "TargetGlobalAccelerator": "Global Accelerator",
    "TargetApiGatewayDomain": "API Gateway domain",
    "TargetBucketWebsite": "S3 website",
    "TargetInterfaceVpcEndpoint": "expression",
    "TargetUserPoolDomain": "Custom::UserPoolCloudFrontDomainName",
    "TargetElasticBeanstalk": "Elastic Beanstalk environment",
    "TargetAppSync": "AppSync domain",
}


def _paths(case: str) -> list[Path]:
    return [ASSEMBLY / f for f in FILES.get(case, [f"{case}.template.json"])]


def _findings(case: str) -> list:
    result = check_paths(_paths(case))
    assert result.unreadable == []
    return result.findings


def test_corpus_records_the_aws_cdk_lib_version_that_wrote_it() -> None:
    assert (CORPUS / "VERSION").read_text().startswith("aws-cdk-lib 2.")
    assert len(list(ASSEMBLY.glob("*.template.json"))) >= 20


@pytest.mark.parametrize("case", PILEUPS)
def test_weighted_latency_geo_failover_aliases_to_nlbs_are_eo_dns1_errors(case: str) -> None:
    errors = [f for f in _findings(case) if f.rule == "EO-DNS1" and f.severity is Severity.ERROR]
    assert len(errors) == 2, [f.message for f in _findings(case)]
    assert all("holds one NLB" in f.message for f in errors)


@pytest.mark.parametrize("case", QUIET)
def test_a_single_alias_a_distribution_or_multivalue_eips_get_no_dns1_error_and_no_nj1(case: str) -> None:
    rules = {(f.rule, f.severity) for f in _findings(case)}
    assert ("EO-DNS1", Severity.ERROR) not in rules and not any(r == "EO-NJ1" for r, _ in rules)
    assert not any(r == "EO-DNS3" for r, _ in rules)  # an NLB in 2 subnets answers 2 addresses


def test_a_plain_cdk_target_group_gets_aws_default_unhealthy_termination() -> None:
    """Issue 52: ``listener.add_targets`` writes no target_health_state.unhealthy.connection_termination.enabled, so
    AWS's default (true) applies: EO-NLB3 warns on the synthesized template as on a hand-written one."""
    found = [f for f in _findings("SimpleNlb") if f.rule == "EO-NLB3" and "target_health_state" in f.message]
    assert [(f.severity, f.resource) for f in found] == [(Severity.WARNING, "Nlb0TcpPodsGroupFE8FCA7B")]
    assert "target_health_state.unhealthy.connection_termination.enabled unset: AWS's default is true" in found[0].message


def test_aaaa_aliases_only_behind_an_ipv4_origin_resolve_to_nothing_for_cloudfront() -> None:
    errors = [f for f in _findings("WeightedNlbAaaa") if f.rule == "EO-DNS1" and f.severity is Severity.ERROR]
    assert len(errors) == 1 and "has AAAA records only, and CloudFront asks A for it" in errors[0].message
    assert "IpAddressType to dualstack" in errors[0].fix


def test_cloudfront_keepalive_at_the_nlb_idle_timeout_is_seen_across_the_alias() -> None:
    cf2 = [f for f in _findings("KeepaliveAtIdle") if f.rule == "EO-CF2"]
    assert len(cf2) == 1 and "60 s" in cf2[0].message


@pytest.mark.parametrize(("case", "kind"), sorted(NOT_JUDGED_TARGETS.items()))
def test_every_other_route53_target_class_is_named_not_judged(case: str, kind: str) -> None:
    findings = _findings(case)
    nj1 = [f for f in findings if f.rule == "EO-NJ1"]
    assert len(nj1) == 1, [f.message for f in findings]
    assert nj1[0].message.startswith("not judged: Alias") and f"; {kind})" in nj1[0].message
    assert nj1[0].severity is Severity.WARNING and nj1[0].fix.startswith("To let edge-origin judge it: ")
    assert not [f for f in findings if f.rule in ("EO-DNS1", "EO-DNS3")]  # no verdict on what was not read


def test_a_chain_of_route53_record_targets_past_the_models_reach_is_not_judged() -> None:
    """aws-cdk-lib's Route53RecordTarget, nine hops from the gRPC origin name to the NLB alias: the answer model
    follows eight; it said "no findings" there, now EO-NJ1 names the stop (and no verdict on the unread end)."""
    findings = _findings("RecordChainTooLong")
    nj1 = [f for f in findings if f.rule == "EO-NJ1"]
    assert len(nj1) == 1, [f.message for f in findings]
    assert nj1[0].message.startswith(
        "not judged: gRPC origin api.example.com in zone example.com (chain too long): chain longer than 8 hops: "
        "api.example.com -> hop1.example.com -> ")
    assert nj1[0].severity is Severity.WARNING and nj1[0].resource.startswith("Api")
    assert not [f for f in findings if f.rule in ("EO-DNS1", "EO-DNS3")]


def test_records_in_another_stack_alone_are_not_judged_naming_the_import() -> None:
    findings = check_paths([ASSEMBLY / "CrossStackRecords.template.json"]).findings
    nj1 = [f for f in findings if f.rule == "EO-NJ1"]
    assert len(nj1) == 2 and all("Fn::ImportValue CrossStackNlbs:" in f.message for f in nj1)
    assert all("check the stack that exports it" in f.fix for f in nj1)


def _case_names() -> list[str]:
    return sorted({*FILES, *NOT_JUDGED_TARGETS} - {"Prod"})


@pytest.mark.parametrize("case", _case_names())
def test_every_record_and_origin_on_a_grpc_path_is_judged_or_not_judged(case: str) -> None:
    """The walk: each record set on a gRPC origin's path has a resolution that ends at an address,
    a load balancer or CloudFront, or an EO-NJ1 finding names it."""
    result = check_paths(_paths(case))
    model = result.model
    nj1 = {(f.stack, f.resource) for f in result.findings if f.rule == "EO-NJ1"}
    starts = {o.domain_name for _, _, o in model.grpc_origins() if isinstance(o.domain_name, str)}
    assert starts == {"api.example.com"}
    walked = 0
    for name in sorted(path_names(model, starts)):
        for view in model.record_sets(name):
            walked += 1
            record = model.zones.record(view)
            ends = [a for item in model.zones.name_resolutions(name, cloudfront=True) for a in item.resolution.answers if a.end]
            judged = record is not None and not ends
            assert judged or (view.resource.stack, view.resource.logical_id) in nj1, (case, view.label)
    assert walked >= 1


# --- the literal twin: rewrite what resolves to its value, check both --------------------------

def _spots(node: Any, path: tuple = ()) -> list[tuple]:
    """Paths of the intrinsics a twin may rewrite: name joins/subs and Refs of record sets."""
    out = []
    if isinstance(node, dict):
        if set(node) == {"Fn::Join"} or set(node) == {"Fn::Sub"}:
            out.append(path)
        for k, v in node.items():
            out += _spots(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _spots(v, (*path, i))
    return out


def _get(node: Any, path: tuple) -> Any:
    for step in path:
        node = node[step]
    return node


def _set(node: Any, path: tuple, value: Any) -> None:
    _get(node, path[:-1])[path[-1]] = value


def _twin_of(expr: dict) -> Any:
    """The literal twin of a name join/sub (``dualstack.`` + GetAtt DNSName -> GetAtt DNSName), or None."""
    if "Fn::Join" in expr:
        delimiter, items = expr["Fn::Join"]
        if delimiter == "" and len(items) == 2 and isinstance(items[0], str) and items[0].lower() in ("dualstack.", "ipv6.") and isinstance(items[1], dict):
            return items[1]
        if all(isinstance(i, str) for i in items):
            return delimiter.join(items)
    if "Fn::Sub" in expr and isinstance(expr["Fn::Sub"], list):
        text, variables = expr["Fn::Sub"]
        if text.startswith("dualstack.${") and text.endswith("}") and len(variables) == 1:
            return next(iter(variables.values()))
    return None


def _load(case: str) -> dict[str, dict]:
    out = {}
    for p in _paths(case):
        for f in sorted(p.glob("*.template.json")) if p.is_dir() else [p]:
            out[f.name.removesuffix(".template.json")] = json.loads(f.read_text())
    return out


def _verdicts(templates: dict[str, dict]) -> set[tuple[str, str, str, str]]:
    model = TemplateModel.from_templates(templates)
    return {(f.rule, f.severity.value, f.stack, f.resource) for f in run_rules(model)}


TWIN_CASES = ("WeightedNlb", "LatencyNlb", "GeoNlb", "FailoverNlb", "L1Sub", "SimpleNlb", "KeepaliveAtIdle", "TargetRoute53Record",
              "WeightedNlbAaaa", "WeightedNlbAaaaDualstack", "CidrNlb", "WeightedCheckedNlb")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(TWIN_CASES), data=st.data())
def test_a_template_and_its_literal_twin_get_the_same_findings(case: str, data: st.DataObject) -> None:
    templates = _load(case)
    base = _verdicts(templates)
    twin = copy.deepcopy(templates)
    rewritten = 0
    for stack, body in twin.items():
        for path in _spots(body):
            replacement = _twin_of(_get(body, path))
            if replacement is not None and data.draw(st.booleans(), label=f"rewrite {stack}{path}"):
                _set(body, path, replacement)
                rewritten += 1
        for logical_id, res in body.get("Resources", {}).items():  # Ref of a record set -> its name
            alias = res.get("Properties", {}).get("AliasTarget", {}) if res.get("Type") == "AWS::Route53::RecordSet" else {}
            ref = alias.get("DNSName", {}).get("Ref") if isinstance(alias.get("DNSName"), dict) else None
            if ref and data.draw(st.booleans(), label=f"literal name for {logical_id}"):
                alias["DNSName"] = body["Resources"][ref]["Properties"]["Name"]
                rewritten += 1
    assert _verdicts(twin) == base, f"rewrote {rewritten} spot(s)"
    assert base, "the corpus case gives findings to compare"


@given(
    prefix=st.sampled_from(["", "dualstack.", "DualStack.", "DUALSTACK.", "ipv6."]),
    suffix=st.sampled_from(["", "."]),
    split=st.integers(min_value=0, max_value=3),
)
def test_every_spelling_of_an_elb_alias_name_is_the_load_balancer(prefix: str, suffix: str, split: int) -> None:
    ref = ResourceRef("S", "Nlb", "DNSName")
    head = [prefix[:split], prefix[split:]] if prefix else []
    assert dns_name_parts([*head, ref, suffix]) == ref


@given(prefix=st.sampled_from(["www.", "dualstack", "x.dualstack.", "https://", "dualstack.dualstack."]), suffix=st.sampled_from(["", ".", "/", ":443"]))
def test_other_text_around_a_reference_stays_an_expression(prefix: str, suffix: str) -> None:
    ref = ResourceRef("S", "Nlb", "DNSName")
    assert dns_name_parts([prefix, ref, suffix]) is None
    assert dns_name_parts([ResourceRef("S", "Dist", "DomainName"), "."]) == ResourceRef("S", "Dist", "DomainName")
    assert dns_name_parts(["dualstack.", ResourceRef("S", "Dist", "DomainName")]) is None  # ELB only


def test_names_classify_what_aws_names() -> None:
    assert classify("my-nlb-0123456789abcdef.elb.us-east-1.amazonaws.com").kind.startswith("Network Load Balancer")
    assert classify("my-alb-1234.eu-west-1.elb.amazonaws.com").judged
    assert classify("d111111abcdef8.cloudfront.net").judged
    assert not classify("a1234.awsglobalaccelerator.com").judged
    assert not classify(Unresolved("parameter", "Ref OriginName")).judged
    assert classify("origin.example.com").kind == "name"


def test_an_undeclared_nlb_name_in_weighted_cnames_is_two_load_balancers() -> None:
    """Issue 34's held-out shape: weighted CNAMEs to two ELB names no template declares."""
    templates = _load("WeightedCname")
    body = templates["WeightedCname"]
    for i, rid in enumerate(sorted(r for r, v in body["Resources"].items() if v["Type"] == "AWS::Route53::RecordSet")):
        body["Resources"][rid]["Properties"]["ResourceRecords"] = [f"nlb{i}-0123456789abcdef.elb.us-east-1.amazonaws.com"]
    verdicts = _verdicts(templates)
    assert sum(1 for v in verdicts if v[0] == "EO-DNS1" and v[1] == "error") == 2


# --- the real tools ------------------------------------------------------------------------------

@pytest.mark.slow
def test_the_corpus_is_what_aws_cdk_lib_writes_today(tmp_path: Path) -> None:
    generate = load_corpus_generator(CORPUS / "generate.py", "cdk_targets_generate")  # by path: tests/*/generate.py are two modules
    out = generate.synthesize(tmp_path / "assembly")
    fresh = sorted(p.name for p in out.glob("*.template.json"))
    assert fresh == sorted(p.name for p in ASSEMBLY.glob("*.template.json"))
    for name in fresh:
        assert json.loads((out / name).read_text()) == json.loads((ASSEMBLY / name).read_text()), (
            f"{name}: aws-cdk-lib now writes it differently: run `PYTHONPATH=constructs python tests/fixtures/cdk_targets/generate.py`"
        )


def _cdk_synth(cli: Path, tmp_path: Path, case: str) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "app"
    shutil.copytree(ROOT / "tests" / "fixtures" / "cdk_l2_app", work)
    shutil.copytree(CORPUS, tmp_path / "cdk_targets", ignore=shutil.ignore_patterns("assembly"))
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT / "constructs"),
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
        "CDK_DISABLE_CLI_TELEMETRY": "true",
    }
    args = [str(cli), "synth", "--no-notices", "--quiet", "-o", str(tmp_path / "cdk.out"), "-c", f"case={case}"]
    return subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=300)


# The four plain-L2 shapes in ONE app and one `cdk synth` (a CLI synth is ~10 s of jsii start-up each): the
# plugin judges every stack before the CLI fails, and its summary names each stack with an error.
PLAIN_L2_CASES = {"WeightedNlb": "WeightedNlb", "CrossStack": "CrossStackRecords", "LatencyNlb": "LatencyNlb", "L1Sub": "L1Sub"}


@pytest.mark.slow
def test_cdk_synth_of_plain_l2_apps_fails_with_eo_dns1_in_each(cdk_cli: Path, tmp_path: Path) -> None:
    proc = _cdk_synth(cdk_cli, tmp_path, ",".join(PLAIN_L2_CASES))
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output[-3000:]
    summary = re.search(r"unacknowledged finding\(s\) at or above error \(([^)]*)\) in ([^;]*);", output)
    assert summary, output[-3000:]
    assert summary.group(1) == "EO-DNS1" and set(summary.group(2).split(", ")) == set(PLAIN_L2_CASES.values()), summary.group(0)
    check = subprocess.run(
        [sys.executable, "-m", "edge_origin.cli", "check", str(tmp_path / "cdk.out"), "--select", "EO-DNS1", "--format", "json"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "constructs")}, capture_output=True, text=True, timeout=120,
    )
    assert check.returncode == 1, check.stdout[-2000:] + check.stderr
    stacks = {f["stack"] for f in json.loads(check.stdout)["findings"] if f["rule"] == "EO-DNS1" and f["severity"] == "error"}
    assert stacks == set(PLAIN_L2_CASES.values()), stacks


def test_each_fn_if_branch_of_an_alias_is_judged() -> None:
    """An alias whose target an undecidable Fn::If chooses: each branch is judged, named by its condition."""
    templates = _load("WeightedNlb")
    body = templates["WeightedNlb"]
    body["Parameters"] = {**body.get("Parameters", {}), "Flavour": {"Type": "String"}}
    body["Conditions"] = {"UseFirst": {"Fn::Equals": [{"Ref": "Flavour"}, "first"]}}
    records = sorted(r for r, v in body["Resources"].items() if v["Type"] == "AWS::Route53::RecordSet")
    for rid in records:
        alias = body["Resources"][rid]["Properties"]["AliasTarget"]
        alias["DNSName"] = {"Fn::If": ["UseFirst", alias["DNSName"], {"Fn::Join": ["", ["dualstack.", {"Fn::GetAtt": ["Nlb1BCC70D8F", "DNSName"]}]]}]}
    found = run_rules(TemplateModel.from_templates(templates))
    dns1 = [f for f in found if f.rule == "EO-DNS1" and f.severity is Severity.ERROR]
    # UseFirst=true: the two records alias two NLBs (a pile-up); =false: both alias Nlb1 (one NLB, a lone target)
    assert {f.resource for f in dns1} == set(records)
    assert all("(only with condition UseFirst=true in stack WeightedNlb (decided at deploy))" in f.message for f in dns1)
    nj1 = [f for f in found if f.rule == "EO-NJ1"]
    assert len(nj1) == 2 and all("Fn::If whose condition the templates do not decide" in f.message for f in nj1)
