"""Issue 41: kills and interrupts are part of the protocol. The enactor (a real ``edge-origin
enact`` process) is stopped at every step, with SIGKILL and with SIGINT, against a moto server on
127.0.0.1 behind ``FaultProxy`` (which answers the batch PENDING so the INSYNC wait is reached, and
can hold the batch's answer after it applied: the kill "in flight"). The steps are hit
deterministically: ``EDGE_ORIGIN_STEP_SIGNAL`` makes the enactor signal itself at the named step;
the in-flight point waits for the proxy's "applied" event. After each stop, the next run of the
same plan must leave the store agreeing with Route 53. Asserted every time: the name is never
empty, the live plan is never deleted from the store, the exit code and the message say what
happened."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from edge_origin.live.enact import EnactOptions, PlanStore, enact
from edge_origin.live.name_state import read_name
from edge_origin.live.session import LiveSession
from edge_origin.testing.fault_proxy import FaultProxy, wait_for
from tests.live_write.conftest import make_plan
from tests.live_write.moto_server import moto_server

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
RUN_LIMIT_S = 90
_counter = itertools.count(1)

# step -> (applied when stopped here?, exit on SIGINT)
POINTS = {
    "before-send#1": (False, 130),
    "during-store-write#1": (False, 130),  # the intent entry, before the batch
    "in-flight": (True, 4),  # the batch applied, its answer held by the proxy
    "after-send#1": (True, 4),
    "during-store-write#2": (True, 4),  # the "sent" entry with the change id
    "during-wait#1": (True, 4),
    "during-read-back#1": (True, 4),
    "during-store-write#3": (True, 4),  # the plan file of the outcome
}


@pytest.fixture(scope="module", autouse=True)
def aws_env(tmp_path_factory):
    none = str(tmp_path_factory.mktemp("aws") / "none")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
                           "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none}.items():
            mp.setenv(key, value)
        mp.delenv("AWS_PROFILE", raising=False)
        yield


@pytest.fixture(scope="module")
def endpoint(aws_env):
    with moto_server() as url:
        yield url


def _env(step_signal: str | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs"), "PYTHONWARNINGS": "ignore"}
    env.pop("EDGE_ORIGIN_STEP_SIGNAL", None)
    if step_signal:
        env["EDGE_ORIGIN_STEP_SIGNAL"] = step_signal
    return env


def _start(plan: Path, url: str, store: Path, step_signal: str | None = None) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "edge_origin.cli", "enact", str(plan), "--endpoint-url", url, "--plan-store", str(store),
            "--allow-full-change", "--wait", "5"]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(step_signal), cwd=ROOT)


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=RUN_LIMIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate(timeout=10)
        raise
    return proc.returncode, out, err


def _addresses(r53, zone_id: str, name: str) -> list[str]:
    return sorted(r["ResourceRecords"][0]["Value"] for r in read_name(r53, zone_id, name).records)


@pytest.mark.parametrize("signame", ["SIGKILL", "SIGINT"])
@pytest.mark.parametrize("point", list(POINTS))
def test_stopped_at_every_step_the_store_and_route53_agree_after_the_next_run(endpoint, tmp_path, point, signame):
    r53 = LiveSession(endpoint_url=endpoint).client("route53")
    zone = f"kill{next(_counter)}.com"
    zone_id = r53.create_hosted_zone(Name=zone, CallerReference=zone)["HostedZone"]["Id"].split("/")[-1]
    store = PlanStore(tmp_path / "store")
    first = make_plan(zone_id, 1, ["203.0.113.10", "203.0.113.11"])
    first = type(first)(f"origin.{zone}", zone_id, 1, 60, first.records)
    enact(r53, first, EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0), journal=store.journal(first))
    second = type(first)(first.name, zone_id, 2, 60, make_plan(zone_id, 2, ["203.0.113.10", "203.0.113.12"]).records)
    plan_file = tmp_path / "plan2.json"
    plan_file.write_text(second.dumps())
    applied_when_stopped, sigint_exit = POINTS[point]

    with FaultProxy(endpoint) as proxy:
        proxy.pending("ChangeResourceRecordSets")
        if point == "in-flight":
            proxy.hold("ChangeResourceRecordSets")
            proc = _start(plan_file, proxy.url, store.directory)
            try:
                assert wait_for(proxy.applied, 60), "the batch never reached the proxy"
                os.kill(proc.pid, getattr(signal, signame))
            finally:
                proxy.release()
            code, out, err = _finish(proc)
        else:
            code, out, err = _finish(_start(plan_file, proxy.url, store.directory, f"{point}={signame}"))

        live = read_name(r53, zone_id, first.name)
        assert live.records, "the name was left empty"
        assert live.live_generation == (2 if applied_when_stopped else 1), (point, signame, err)
        assert "Traceback" not in err, err
        if signame == "SIGKILL":
            assert code == -signal.SIGKILL
        else:
            assert code == sigint_exit, (code, err)
            assert err.count("\n") == 1 and "interrupted by SIGINT" in err, err
            if applied_when_stopped:
                assert "after the batch may have been sent" in err and "read back: applied: generation 2" in err, err
                assert f"plan show --name {first.name} --zone-id {zone_id}" in err
            else:
                assert "before the batch was sent: nothing changed" in err, err

        proxy.clear()
        code, out, err = _finish(_start(plan_file, proxy.url, store.directory))
    assert code == 0, err
    assert ("nothing to do" in out) == applied_when_stopped, out
    live = read_name(r53, zone_id, first.name)
    assert live.live_generation == 2 and _addresses(r53, zone_id, first.name) == ["203.0.113.10", "203.0.113.12"]
    assert live.generation.digest == second.digest()
    folder = store.directory / first.name.lower()
    assert (folder / "2.json").is_file() and (folder / "1.json").is_file(), "a live (or the previous) plan is missing"
    state = json.loads((folder / "2.state.json").read_text())
    assert state["state"] == "applied" and state["digest"] == second.digest()
    if signame == "SIGKILL" and point in ("during-wait#1", "during-read-back#1", "during-store-write#3"):
        assert state["change_id"], "the change id was recorded before the kill and must survive it"
    if signame == "SIGKILL" and applied_when_stopped:
        assert "plan store: generation 2 was" in out and "recorded as applied" in out, out


@pytest.mark.parametrize(("point", "want"), [("before-send#1", 143), ("during-wait#1", 4)])
def test_sigterm_is_an_interrupt_too(endpoint, tmp_path, point, want):
    r53 = LiveSession(endpoint_url=endpoint).client("route53")
    zone = f"term{next(_counter)}.com"
    zone_id = r53.create_hosted_zone(Name=zone, CallerReference=zone)["HostedZone"]["Id"].split("/")[-1]
    base = make_plan(zone_id, 1, ["203.0.113.10"])
    plan = type(base)(f"origin.{zone}", zone_id, 1, 60, base.records)
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.dumps())
    with FaultProxy(endpoint) as proxy:
        proxy.pending("ChangeResourceRecordSets")
        code, _, err = _finish(_start(plan_file, proxy.url, tmp_path / "store", f"{point}=SIGTERM"))
    assert code == want and "interrupted by SIGTERM" in err and err.count("\n") == 1, err
