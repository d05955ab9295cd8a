"""The incident's published table, reproduced by the model from the incident's own figures.

Where each input comes from (files under /work/shared/background/, "guide" is
weighted-to-multivalue-migration-guide-zh.txt, "summary" is weighted-dns-flash-crowd-summary.txt):

* 14 M devices: guide line 47 "在 2 月 27 日事件（1400 万并发连接）中" (14 million concurrent
  connections), again line 229.
* joining over seconds: guide line 7 "直播开始后几秒内持续建立 gRPC 连接" and line 55 "从接近零到峰值仅需
  数秒" (near zero to peak in seconds): a 10 s ramp.
* TTL 60: guide line 45 "在每个 DNS TTL 窗口（60 秒）内" and line 176 "TTL：60 秒".
* the weighted plan with 4 origin IPs: guide line 47 "尽管扩展到 4 个 NLB IP，3 月 1 日问题再次出现"
  (scaled to 4 NLB IPs, the problem recurred on 1 March); the fixture IncidentWeighted4.
* ~80 % peak errors: guide line 63, the table: "峰值5xx错误率 | 79.80% | 0.033%" (peak 5xx error rate
  before, 1-2 March, and after, 7-9 March); line 47 "约 80% 的请求因 HTTP 500 错误失败".
* the multivalue plan with 6 IPs: guide line 49 "切换至多值答案路由后，CloudFront缓存主机立即开始同时解析所有
  6个源IP" (after the switch the cache hosts resolved all 6 origin IPs at once).
* health checks every 10 s, failure threshold 3: guide lines 140 and 142 (step 2 of the guide).
* one shared answer per TTL window (resolvers R = 1): guide line 15 "这导致所有 CloudFront 缓存主机在
  TTL 有效期内解析到相同源端点" (all CloudFront cache hosts resolved to the same origin within the TTL).
* 600 edge locations: issue 13 ("run on the incident's weighted plan with 600 edges").
* "adding NLB capacity had no effect": summary line 5; guide line 233 (2 -> 6 IPs, the problem stayed).

Unknown and therefore calibrated: the capacity per origin address. It is set so that the weighted
4-IP plan predicts the published 79.80 % peak; everything else is then a prediction.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from rehearsal_paths import FIXTURES, NAME, REFERENCE

from edge_origin import cli
from edge_origin.forecast.montecarlo import ModelConfig, ModelResult, calibrate_capacity, run_model
from edge_origin.rehearsal.from_model import load_plan
from edge_origin.rehearsal.plan import DnsPlan, reference_plan

INCIDENT_WEIGHTED = FIXTURES / "IncidentWeighted4.template.json"
DEVICES = 14_000_000
RAMP_SECONDS = 10.0
TTL = 60
PUBLISHED_PEAK_BEFORE = 0.798
PUBLISHED_PEAK_AFTER = 0.00033
CALIBRATION_TOLERANCE = 0.01  # the calibrated peak is within 1 point of 79.8 %
# "~0 %": a predicted peak at or under 0.1 % (the published 0.033 % is over real traffic the model leaves out)
NEAR_ZERO = 0.001

CFG = ModelConfig(devices=DEVICES, edges=600, ramp_seconds=RAMP_SECONDS, ttl=TTL, seed=1)


def _plan(ips: int, routing: str) -> DnsPlan:
    """2 NLBs x ips/2 zones (one EIP each), TTL 60, health checks 10 s x 3, as the guide's steps."""
    return reference_plan(nlbs=2 if ips > 1 else 1, zones=max(1, ips // 2), routing=routing, ttl=TTL,
                          request_interval=10, failure_threshold=3)


@pytest.fixture(scope="module")
def calibrated() -> tuple[float, ModelResult]:
    return calibrate_capacity(load_plan([INCIDENT_WEIGHTED], NAME), CFG, PUBLISHED_PEAK_BEFORE, tolerance=0.001)


def test_the_fixture_is_the_incident_plan() -> None:
    plan = load_plan([INCIDENT_WEIGHTED], NAME)
    assert plan.routing == "weighted" and plan.ttl == TTL and len(plan.origin_keys) == 4
    assert {(s.request_interval, s.failure_threshold) for s in plan.health_checks().values()} == {(10, 3)}


def test_weighted_four_ips_predict_the_published_peak(calibrated: tuple[float, ModelResult]) -> None:
    capacity, result = calibrated
    assert result.predicted_errors["peak"] == pytest.approx(PUBLISHED_PEAK_BEFORE, abs=CALIBRATION_TOLERANCE)
    assert result.verdict == "overload"
    # "more than enough NLB capacity": the four addresses together hold the whole crowd with room to spare
    assert 4 * capacity > 1.5 * DEVICES
    # ... yet the first TTL window sent everyone to one address, which the health check then took out
    assert max(load["peak_load_over_capacity"] for load in result.origin_load.values()) > 1.5
    assert any(not e["healthy"] for e in result.details["health_events"])


def test_multivalue_six_ips_at_the_same_capacity_predict_about_zero(calibrated: tuple[float, ModelResult]) -> None:
    capacity, _weighted = calibrated
    result = run_model(_plan(6, "multivalue"), replace(CFG, origin_capacity=capacity))
    assert result.predicted_errors["peak"] <= NEAR_ZERO, result.predicted_errors
    assert PUBLISHED_PEAK_AFTER <= NEAR_ZERO
    assert result.verdict == "spread"
    assert result.max_over_mean <= 1.01
    assert result.steady_state_seconds is not None and result.steady_state_seconds <= RAMP_SECONDS + 1


def test_two_to_four_weighted_ips_do_not_lower_the_errors(calibrated: tuple[float, ModelResult]) -> None:
    capacity, four = calibrated
    # 79.8 % calibrates to ~7.0 M a address: two addresses hold the 14 M too (the 27 February event,
    # with 2 IPs, saw "~80 %" as well: guide line 47), so only the routing is left to blame
    assert 2 * capacity >= DEVICES
    two = run_model(_plan(2, "weighted"), replace(CFG, origin_capacity=capacity))
    six = run_model(_plan(6, "weighted"), replace(CFG, origin_capacity=capacity))
    assert four.predicted_errors["peak"] >= two.predicted_errors["peak"] - CALIBRATION_TOLERANCE
    assert six.predicted_errors["peak"] >= two.predicted_errors["peak"] - CALIBRATION_TOLERANCE
    assert two.verdict == six.verdict == "overload"


def test_the_cli_prints_the_prediction(calibrated: tuple[float, ModelResult], capsys: pytest.CaptureFixture[str]) -> None:
    capacity, _ = calibrated
    common = ["--model", "--devices", str(DEVICES), "--edges", "600", "--ramp-seconds", str(RAMP_SECONDS),
              "--ttl", str(TTL), "--origin-capacity", str(round(capacity)), "--seed", "1", "--json"]
    code = cli.main(["rehearse", str(INCIDENT_WEIGHTED), "--name", NAME, *common])
    data = json.loads(capsys.readouterr().out)
    assert code == cli.EXIT_FINDINGS
    assert data["verdict"] == "overload"
    assert data["predicted_errors"]["peak"] == pytest.approx(PUBLISHED_PEAK_BEFORE, abs=CALIBRATION_TOLERANCE)
    assert 0 <= data["predicted_errors"]["mean"] <= 1
    code = cli.main(["rehearse", str(REFERENCE), "--name", NAME, *common])
    data = json.loads(capsys.readouterr().out)
    assert code == cli.EXIT_OK
    assert data["predicted_errors"]["peak"] <= NEAR_ZERO


def test_the_reference_app_takes_the_incident_crowd(calibrated: tuple[float, ModelResult], reference_app) -> None:  # noqa: ANN001
    """The lead's reference app (6 health-checked multivalue EIPs, synthesized) at the calibrated capacity."""
    capacity, _ = calibrated
    _stack, _template, assembly = reference_app
    plan = load_plan([assembly], "origin.telemetry.example.com")  # cdk.json edge-origin:originName
    result = run_model(plan, replace(CFG, origin_capacity=capacity))
    assert result.predicted_errors["peak"] <= NEAR_ZERO
    assert result.verdict == "spread"
    assert max(load["peak_load_over_capacity"] for load in result.origin_load.values()) < 0.5
