"""The synth plugin's report-only mode, the nested stacks it reads from the assembly on disk, and the
quiet clean synth (issues 49 item 4, 51 items 1 and 5, 53 item 3). In-process synths, validation off."""

from __future__ import annotations

import json
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_route53_targets as targets
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.cli import main
from edge_origin.review import nag
from edge_origin.review.nag import REPORT_ONLY_ENV, EdgeOriginChecks, report_only_setting
from tests.cdk_apps import quiet_app

#: What the CDK CLI sets for an app it runs (path and asset metadata on).
CLI_CONTEXT = {"aws:cdk:enable-path-metadata": True, "aws:cdk:enable-asset-metadata": True}


def _origins(scope: cdk.Stack | cdk.NestedStack, *, weighted: bool) -> None:
    """Two NLBs behind the origin name: weighted aliases (the pile-up) or health-checked multivalue EIPs."""
    zone = route53.PublicHostedZone(scope, "Zone", zone_name="example.com")
    if not weighted:
        for i in range(2):
            eip = ec2.CfnEIP(scope, f"Eip{i}")
            check = route53.HealthCheck(scope, f"Check{i}", type=route53.HealthCheckType.TCP, ip_address=eip.attr_public_ip, port=443)
            route53.ARecord(scope, f"Multi{i}", zone=zone, record_name="api", multi_value_answer=True, set_identifier=f"m{i}",
                            health_check=check, ttl=cdk.Duration.seconds(60),
                            target=route53.RecordTarget.from_ip_addresses(eip.attr_public_ip))
        return
    vpc = ec2.Vpc(scope, "Vpc", max_azs=2, nat_gateways=0)
    for i in range(2):
        nlb = elbv2.NetworkLoadBalancer(scope, f"Nlb{i}", vpc=vpc, internet_facing=True)
        nlb.add_listener("Tcp", port=443).add_targets("Pods", port=443, targets=[])
        route53.ARecord(scope, f"Weighted{i}", zone=zone, record_name="api", weight=1, set_identifier=f"w{i}",
                        target=route53.RecordTarget.from_alias(targets.LoadBalancerTarget(nlb)))


def _app(out: Path, *, weighted: bool, nested: bool, context: dict | None = None, pack: EdgeOriginChecks | None = None) -> cdk.App:
    app = quiet_app(outdir=str(out), context=context or {})
    parent = cdk.Stack(app, "Parent")
    _origins(cdk.NestedStack(parent, "Origins") if nested else parent, weighted=weighted)
    cloudfront.Distribution(parent, "Edge", default_behavior=cloudfront.BehaviorOptions(
        origin=origins.HttpOrigin("api.example.com", protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY),
        allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL, cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
        enable_grpc=True))
    cdk.Validations.of(app).add_plugins(pack or EdgeOriginChecks())
    return app


def _pack_report(out: Path) -> dict | None:
    report = json.loads((out / "validation-report.json").read_text())
    packs = [r for r in report["pluginReports"] if r["pluginName"] == "EdgeOrigin"]
    return packs[0] if packs else None


def _check(out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    """``edge-origin check OUT --format json``, in this process."""
    capsys.readouterr()
    code = main(["check", str(out), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


# --- report-only --------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None, database=None)
@given(
    context=st.sampled_from([None, True, False, "true", "false", "True", " 1 ", "0", "yes", "off", ""]),
    env=st.sampled_from([None, "1", "0", "true", "false", "", "ON"]),
)
def test_report_only_is_on_when_either_setting_says_so(context: object, env: str | None) -> None:
    truthy = {"true", "1", "yes", "on"}
    expected = context is True or str(context).strip().lower() in truthy or (env or "").strip().lower() in truthy
    environ = {} if env is None else {REPORT_ONLY_ENV: env}
    assert report_only_setting(context, environ) is expected


@pytest.mark.parametrize(("context", "env", "named"), [("maybe", None, "edge-origin:reportOnly"), (None, "2", REPORT_ONLY_ENV)])
def test_a_report_only_typo_is_one_line_naming_the_setting(context: object, env: str | None, named: str) -> None:
    with pytest.raises(ValueError, match=rf"^{named}=.*allowed values are true/false") as info:
        report_only_setting(context, {} if env is None else {REPORT_ONLY_ENV: env})
    assert "\n" not in str(info.value)


def test_report_only_synth_of_a_bad_app_passes_and_check_of_its_cdk_out_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-c edge-origin:reportOnly=true``: synth succeeds with every finding recorded; check exits 1."""
    out = tmp_path / "cdk.out"
    _app(out, weighted=True, nested=False, context={"edge-origin:reportOnly": "true"}).synth()  # no ValidationFailed
    pack = _pack_report(out)
    assert pack is not None and pack["conclusion"] == "success"
    by_rule = {v["ruleName"]: v for v in pack["violations"]}
    dns1 = by_rule["EdgeOrigin-EO-DNS1"]
    assert dns1["severity"] == "warning" and dns1["description"].startswith("[error, fails check] ")
    assert dns1["ruleMetadata"] == {"edge-origin:severity": "error"}
    assert {c["constructPath"] for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-EO-DNS1" for c in v["violatingConstructs"]} \
        >= {"Parent/Weighted0/Resource"}
    summary = by_rule["EdgeOrigin-Summary"]
    assert summary["severity"] == "warning" and "report-only" in summary["description"] and "EO-DNS1" in summary["description"]
    code, checked = _check(out, capsys)
    assert code == 1
    assert "EO-DNS1" in {f["rule"] for f in checked["findings"]}


def test_the_same_app_without_report_only_fails_synth(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="EO-DNS1"):
        _app(tmp_path / "cdk.out", weighted=True, nested=False, pack=EdgeOriginChecks(report_only=False),
             context={"edge-origin:reportOnly": "true"}).synth()  # the constructor's setting wins over context


# --- nested stacks ----------------------------------------------------------------------------
@pytest.mark.parametrize("context", [CLI_CONTEXT, {}], ids=["cli-metadata", "python-app-py"])
def test_a_pile_up_inside_a_nested_stack_fails_synth(tmp_path: Path, context: dict) -> None:
    """aws-cdk-lib hands the plugin only Parent.template.json; the records are in the nested template."""
    out = tmp_path / "cdk.out"
    with pytest.raises(RuntimeError) as info:
        _app(out, weighted=True, nested=True, context=context).synth()
    assert "EO-DNS1" in str(info.value)
    pack = _pack_report(out)
    paths = {c["constructPath"] for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-EO-DNS1" for c in v["violatingConstructs"]}
    assert paths == {"Parent/Origins/Weighted0/Resource", "Parent/Origins/Weighted1/Resource"}
    (summary,) = [v for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-Summary"]
    if context:  # the nested stack named by its construct path
        assert "in Parent/Origins;" in summary["description"], summary["description"]


def test_a_clean_synth_says_nothing_and_reads_no_acknowledgement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No finding: no summary entry (the CLI would print "Acknowledge with ..." under it), no jsii metadata reads."""
    def forbidden(*_: object) -> None:
        raise AssertionError("acknowledgements read on a synth with no open finding")

    monkeypatch.setattr(nag, "acknowledged_rules", forbidden)
    monkeypatch.setattr(nag, "_stack_paths", forbidden)  # no stack naming (jsii or manifest) either
    monkeypatch.setattr(EdgeOriginChecks, "report_only", forbidden)  # nor the context look-up
    out = tmp_path / "cdk.out"
    pack = EdgeOriginChecks()
    _app(out, weighted=False, nested=True, context=CLI_CONTEXT, pack=pack).synth()
    assert _pack_report(out) is None
    assert pack.findings == []


# --- beside cdk-nag 2 or 3: the pack needs neither -------------------------------------------------
def test_the_pack_works_with_cdk_nag_unimportable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """EdgeOriginChecks is aws-cdk-lib's IPolicyValidationPlugin, not a cdk-nag NagPack: an app whose cdk-nag
    is 2.x (Aspects, another API) or absent gets the same verdict. Here the module is loaded afresh with
    ``cdk_nag`` unimportable, and judges an app."""
    import importlib.util
    import sys

    monkeypatch.setitem(sys.modules, "cdk_nag", None)  # any `import cdk_nag` now raises ImportError
    spec = importlib.util.find_spec("edge_origin.review.nag")
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    with pytest.raises(RuntimeError, match="EO-DNS1"):
        _app(tmp_path / "out", weighted=True, nested=False, pack=fresh.EdgeOriginChecks()).synth()


# --- the same baseline at synth as check --baseline ----------------------------------------------------
def test_a_baseline_at_synth_passes_known_findings_and_fails_new_ones(tmp_path: Path) -> None:
    baseline_module = pytest.importorskip("edge_origin.review.baseline")
    from edge_origin.model import load_model
    from edge_origin.rules import run_rules

    first = tmp_path / "first"
    _app(first, weighted=True, nested=False, context={"edge-origin:reportOnly": "true"}).synth()
    baseline = tmp_path / "baseline.json"
    baseline_module.write_baseline(run_rules(load_model([first])), baseline)  # what check --create-baseline writes
    known = tmp_path / "known"
    pack = EdgeOriginChecks()
    _app(known, weighted=True, nested=False, context={"edge-origin:baseline": str(baseline)}, pack=pack).synth()  # passes
    (summary,) = [v for v in _pack_report(known)["violations"] if v["ruleName"] == "EdgeOrigin-Summary"]
    assert summary["severity"] == "info" and f"in the baseline {baseline} pass" in summary["description"]
    assert not [f for f in pack.findings if f.rule == "EO-DNS1"]
    with pytest.raises(RuntimeError, match=r"EO-DNS1"):  # a new pile-up (the nested one) is not in the baseline
        _app(tmp_path / "new", weighted=True, nested=True, context={"edge-origin:baseline": str(baseline)}).synth()


def test_a_baseline_that_cannot_be_read_fails_synth_with_one_line(tmp_path: Path) -> None:
    pytest.importorskip("edge_origin.review.baseline")
    missing = tmp_path / "nope.json"
    with pytest.raises(RuntimeError) as info:
        _app(tmp_path / "out", weighted=True, nested=False, context={"edge-origin:baseline": str(missing)}).synth()
    line = [x for x in str(info.value).splitlines() if "edge-origin:baseline" in x]
    assert line and str(missing) in line[0], str(info.value)[-1500:]
