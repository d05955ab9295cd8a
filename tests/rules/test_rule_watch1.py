"""EO-WATCH1 (advisory, info): a long-lived origin's NLBs with no alarm comparing their active flows."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from edge_origin.core.findings import Severity
from edge_origin.model import LoadedTemplate, TemplateModel
from edge_origin.rules import ADVISORY_RULES, RULES, RULES_BY_ID, run_rules

SNAPSHOT = Path(__file__).parents[1] / "snapshots" / "TelemetryIngest.template.json"
RULE = ADVISORY_RULES[0]


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    return json.loads(SNAPSHOT.read_text())


def _run(body: dict[str, Any]) -> list[Any]:
    return run_rules(TemplateModel([LoadedTemplate("S", "t.json", body)]), [RULE])


def _imbalance_id(body: dict[str, Any]) -> str:
    (lid,) = [k for k, r in body["Resources"].items() if r["Type"] == "AWS::CloudWatch::Alarm" and "Imbalance" in k]
    return lid


def _nlbs(body: dict[str, Any]) -> list[str]:
    return sorted(k for k, r in body["Resources"].items() if r["Type"] == "AWS::ElasticLoadBalancingV2::LoadBalancer")


def test_advisory_not_in_the_default_rules() -> None:
    assert RULE.id == "EO-WATCH1" and RULE.severity is Severity.INFO
    assert RULE not in RULES and "EO-WATCH1" not in RULES_BY_ID


def test_quiet_on_the_reference_template_made_with_origin_watch(reference: dict[str, Any]) -> None:
    assert _run(reference) == []


def test_fires_once_per_origin_without_the_alarm(reference: dict[str, Any]) -> None:
    body = copy.deepcopy(reference)
    del body["Resources"][_imbalance_id(body)]
    (found,) = _run(body)
    assert found.rule == "EO-WATCH1" and found.severity is Severity.INFO
    assert "origin.telemetry.example.com" in found.message and all(n in found.message for n in _nlbs(body))


def test_fires_for_the_nlb_an_alarm_leaves_out(reference: dict[str, Any]) -> None:
    body = copy.deepcopy(reference)
    first, second = _nlbs(body)
    metrics = body["Resources"][_imbalance_id(body)]["Properties"]["Metrics"]
    metrics[:] = [m for m in metrics if second not in json.dumps(m)]
    (found,) = _run(body)
    assert second in found.message and first not in found.message


def test_an_alarm_without_max_is_not_an_imbalance_alarm(reference: dict[str, Any]) -> None:
    body = copy.deepcopy(reference)
    for m in body["Resources"][_imbalance_id(body)]["Properties"]["Metrics"]:
        if "Expression" in m:
            m["Expression"] = "SUM(FILL([m0,m1,m2,m3,m4,m5],0))"
    assert [f.rule for f in _run(body)] == ["EO-WATCH1"]


def test_literal_load_balancer_dimension_matches_by_name(reference: dict[str, Any]) -> None:
    """A template made elsewhere names the NLB as ``net/<name>/<id>``."""
    body = copy.deepcopy(reference)
    for lid in _nlbs(body):
        body["Resources"][lid]["Properties"]["Name"] = lid.lower()[-20:]
    for m in body["Resources"][_imbalance_id(body)]["Properties"]["Metrics"]:
        for dim in m.get("MetricStat", {}).get("Metric", {}).get("Dimensions", []):
            if dim["Name"] == "LoadBalancer":
                dim["Value"] = f"net/{body['Resources'][dim['Value']['Fn::GetAtt'][0]]['Properties']['Name']}/50dc6c495c0c9188"
    assert _run(body) == []
    for m in body["Resources"][_imbalance_id(body)]["Properties"]["Metrics"]:
        for dim in m.get("MetricStat", {}).get("Metric", {}).get("Dimensions", []):
            if dim["Name"] == "LoadBalancer":
                dim["Value"] = "net/someone-else/50dc6c495c0c9188"
    assert [f.rule for f in _run(body)] == ["EO-WATCH1"]


def test_acknowledged_on_the_nlb(reference: dict[str, Any]) -> None:
    body = copy.deepcopy(reference)
    del body["Resources"][_imbalance_id(body)]
    first = _nlbs(body)[0]
    body["Resources"][first].setdefault("Metadata", {})["edge-origin:acknowledge"] = [
        {"id": "EO-WATCH1", "reason": "watched by the platform team's dashboards"}
    ]
    assert _run(body) == []


def test_quiet_without_an_nlb_origin() -> None:
    body = {"Resources": {"Topic": {"Type": "AWS::SNS::Topic", "Properties": {}}}}
    assert _run(body) == []


@pytest.fixture(scope="module")
def internal() -> dict[str, dict[str, Any]]:
    """InternalGrpcOrigin with and without monitoring (its records hold literal private IPs)."""
    import aws_cdk as cdk
    from aws_cdk import aws_route53 as route53

    from edge_origin import InternalGrpcOrigin

    app = cdk.App()
    env = cdk.Environment(account="123456789012", region="us-east-1")
    for name, monitoring in (("On", {}), ("Off", {"monitoring": None})):
        stack = cdk.Stack(app, name, env=env)
        zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Z", hosted_zone_id=f"Z{name}", zone_name="svc.internal")
        InternalGrpcOrigin(stack, "Tax", zone=zone, origin_name="tax.svc.internal", service_name="tax", **monitoring)
    assembly = app.synth()
    return {name: assembly.get_stack_by_name(name).template for name in ("On", "Off")}


def test_internal_origin_nlbs_found_by_private_address(internal: dict[str, dict[str, Any]]) -> None:
    assert _run(internal["On"]) == []
    (found,) = _run(internal["Off"])
    assert "tax.svc.internal" in found.message and len(_nlbs(internal["Off"])) == 2
    assert all(n in found.message for n in _nlbs(internal["Off"]))


def test_check_runs_it_on_request_only(reference: dict[str, Any], tmp_path: Path, capsys) -> None:
    """`edge-origin check --advisory` runs EO-WATCH1 (templates made elsewhere); plain `check` does not."""
    from edge_origin import cli

    body = copy.deepcopy(reference)
    del body["Resources"][_imbalance_id(body)]
    path = tmp_path / "no-imbalance-alarm.template.json"
    path.write_text(json.dumps(body))

    def rules(*flags: str) -> tuple[int, set[str]]:
        code = cli.main(["check", str(path), "--format", "json", *flags])
        return code, {f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]}

    code, plain = rules()
    assert code == 0 and RULE.id not in plain
    code, advised = rules("--advisory")
    assert code == 0 and RULE.id in advised  # info: not a failure at the default --fail-on error
    assert rules("--advisory", "--fail-on", "info")[0] == 1


def test_the_finding_whole(reference: dict[str, Any]) -> None:
    from edge_origin.rules.watch1_imbalance_alarm import FIX

    body = copy.deepcopy(reference)
    del body["Resources"][_imbalance_id(body)]
    (found,) = _run(body)
    assert found.fix == FIX and found.resource == _nlbs(body)[0]
    assert found.message.endswith(
        f"no CloudWatch alarm compares the active flows of {', '.join(_nlbs(body))} with the others (max over mean): "
        "a pile-up on one NLB shows only when clients fail")


def test_an_nlb_whose_type_is_decided_at_deploy_time_is_not_judged(reference: dict[str, Any]) -> None:
    """Without the alarm, a balancer whose Type is a parameter without Default may be an NLB: named as not judged,
    never left out; the other NLB keeps its advice."""
    body = copy.deepcopy(reference)
    del body["Resources"][_imbalance_id(body)]
    first, second = _nlbs(body)
    body.setdefault("Parameters", {})["LbType"] = {"Type": "String"}
    body["Resources"][first]["Properties"]["Type"] = {"Ref": "LbType"}
    found = sorted(_run(body), key=lambda f: f.severity.rank)
    assert [(f.severity, f.resource) for f in found] == [(Severity.INFO, second), (Severity.WARNING, first)], found
    assert found[1].message.startswith(f"not judged: load balancer {first} Type (as a network load balancer: no alarm")
    assert first not in found[0].message
