"""The pack's summary entry: an error when unacknowledged findings exist (so the CDK CLI fails
whatever it selected), an info line when none do; acknowledgements matched as CDK matches them."""

from __future__ import annotations

import json
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_route53 as r53
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.review.nag import EdgeOriginChecks, _closest_acknowledged
from tests.cdk_apps import quiet_app

SEGMENT = st.sampled_from(["Dev", "Records", "Origin0", "Resource", "Edge"])
PATH = st.lists(SEGMENT, min_size=0, max_size=4).map("/".join)


@settings(database=None, max_examples=200)
@given(path=PATH, acknowledged=st.sets(PATH, max_size=4))
def test_closest_acknowledgement_is_the_path_or_an_ancestor(path: str, acknowledged: set[str]) -> None:
    parts = path.split("/") if path else []
    ancestors = {"/".join(parts[:i]) for i in range(len(parts) + 1)}
    assert _closest_acknowledged(path, acknowledged) == bool(ancestors & acknowledged)


def _synth(tmp_path: Path, *, stage: bool, acknowledge_at: str | None, depth: int = 1, register_on: str = "app",
           reason: str = "weighted on purpose", summary_reason: str | None = None, metadata_reason: str | None = None) -> dict:
    try:  # the CloudFormation validation costs 2 s a synth; the prop is newer than the floor (2.264.0)
        app = quiet_app(outdir=str(tmp_path))
    except TypeError:
        app = cdk.App(outdir=str(tmp_path))
    parent = app
    for level in range(depth if stage else 0):
        parent = cdk.Stage(parent, "Dev" if level == 0 else f"Inner{level}")
    records = cdk.Stack(parent, "Records")
    zone = r53.PublicHostedZone(records, "Zone", zone_name="example.com")
    for i, ip in enumerate(["192.0.2.1", "192.0.2.2"]):
        record = r53.ARecord(records, f"Origin{i}", zone=zone, record_name="origin", set_identifier=f"z{i}",
                             target=r53.RecordTarget.from_ip_addresses(ip), weight=10)
        if metadata_reason is not None:
            record.node.default_child.add_metadata("edge-origin:acknowledge", [{"id": "EO-DNS1", "reason": metadata_reason}])
    edge = cdk.Stack(parent, "Edge")
    cloudfront.Distribution(
        edge, "Dist", http_version=cloudfront.HttpVersion.HTTP2,
        default_behavior=cloudfront.BehaviorOptions(
            origin=origins.HttpOrigin("origin.example.com", protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY),
            enable_grpc=True, allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
            cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
        ),
    )
    cdk.Stack(parent, "Empty")  # a stack with no resources: valid CDK, counted, no findings
    if acknowledge_at is not None:
        scope = {"app": app, "stack": records}[acknowledge_at]
        cdk.Validations.of(scope).acknowledge(
            cdk.Acknowledgment(id="EdgeOrigin::EdgeOrigin-EO-DNS1", reason=reason)
        )
    if summary_reason is not None:
        cdk.Validations.of(app).acknowledge(cdk.Acknowledgment(id="EdgeOrigin::EdgeOrigin-Summary", reason=summary_reason))
    cdk.Validations.of(app if register_on == "app" else parent).add_plugins(EdgeOriginChecks())
    app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    (pack,) = [r for r in report["pluginReports"] if r["pluginName"] == "EdgeOrigin"]
    return pack


@pytest.mark.parametrize("where", ["app", "stack"])
def test_acknowledged_findings_give_an_info_summary(tmp_path: Path, where: str) -> None:
    pack = _synth(tmp_path, stage=True, acknowledge_at=where)
    assert pack["conclusion"] == "success"
    (summary,) = [v for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-Summary"]
    assert summary["severity"] == "info"
    assert "no unacknowledged findings at or above error" in summary["description"]
    assert "3 stack(s) (Dev/Edge, Dev/Empty, Dev/Records)" in summary["description"]
    assert len(pack["suppressedViolations"]) == 2  # CDK applied the acknowledgement to both records


def test_unacknowledged_findings_give_an_error_summary_without_a_construct(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError) as info:  # in-memory synth (pytest) raises on any error
        _synth(tmp_path, stage=True, acknowledge_at=None)
    text = str(info.value)
    assert "2 unacknowledged finding(s) at or above error (EO-DNS1) in Dev/Records" in text
    report = json.loads((tmp_path / "validation-report.json").read_text())
    (pack,) = [r for r in report["pluginReports"] if r["pluginName"] == "EdgeOrigin"]
    (summary,) = [v for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-Summary"]
    assert summary["severity"] == "error"
    # no construct path: aws-cdk's CLI keeps such a violation whatever stacks it selected
    assert all("constructPath" not in c or not c["constructPath"] for c in summary["violatingConstructs"])


@pytest.mark.parametrize(("depth", "register_on"), [(2, "app"), (2, "stage"), (1, "stage")])
def test_nested_stages_and_a_pack_on_a_stage(tmp_path: Path, depth: int, register_on: str) -> None:
    """Wherever the stacks sit and wherever the pack is registered, an open error gives the error
    summary (no construct: the CLI keeps it) and an acknowledged one the info line."""
    with pytest.raises(RuntimeError, match="EdgeOrigin-Summary|unacknowledged finding"):
        _synth(tmp_path / "open", stage=True, acknowledge_at=None, depth=depth, register_on=register_on)
    pack = _synth(tmp_path / "acked", stage=True, acknowledge_at="app", depth=depth, register_on=register_on)
    (summary,) = [v for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-Summary"]
    assert summary["severity"] == "info" and "3 stack(s)" in summary["description"]


@pytest.mark.parametrize("reason", ["", "\u200b\ufeff \u3164"])
def test_a_cdk_acknowledgement_without_a_reason_does_not_pass_synth(tmp_path: Path, reason: str) -> None:
    """CDK takes ``Acknowledgment(reason="")`` and suppresses the violation; the summary keeps the
    finding open (an error: synth fails) and says which acknowledgement has no reason (redteam)."""
    with pytest.raises(RuntimeError) as info:
        _synth(tmp_path, stage=False, acknowledge_at="stack", reason=reason)
    text = str(info.value)
    assert "2 unacknowledged finding(s) at or above error (EO-DNS1)" in text
    assert "without a reason, not applied (every acknowledgement needs one): EO-DNS1 at Records" in text


def test_acknowledging_the_summary_without_a_reason_does_not_pass_synth(tmp_path: Path) -> None:
    """The summary has no construct, so CDK applies the app's acknowledgement of it: one without a
    reason would let every open error through; the pack fails synth with one line instead."""
    with pytest.raises(RuntimeError, match="EdgeOrigin-Summary is acknowledged at the app without a reason"):
        _synth(tmp_path, stage=False, acknowledge_at="stack", reason="", summary_reason=" ")


def test_a_metadata_acknowledgement_at_synth_is_in_the_summary_with_its_reason(tmp_path: Path) -> None:
    """Template Metadata ``edge-origin:acknowledge`` sets a finding aside at synth too; it used to
    vanish (no violation, no summary: a clean-looking synth). The summary now names each one with
    its reason (redteam)."""
    pack = _synth(tmp_path, stage=False, acknowledge_at=None, metadata_reason="weighted on purpose [x](y)")
    (summary,) = [v for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-Summary"]
    assert summary["severity"] == "info" and pack["conclusion"] == "success"
    assert "2 finding(s) acknowledged in template Metadata edge-origin:acknowledge" in summary["description"]
    assert summary["description"].count(": weighted on purpose [x](y)") == 2
