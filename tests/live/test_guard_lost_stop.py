"""A deadline whose Stop is lost still stops the command. Python drops an exception a signal handler raises
while a finalizer runs ("Exception ignored in: <finalize object>"): a make test run saw `audit --deadline 2`
lose its Stop that way and then read a dripping endpoint for 11 minutes. The timer fires again until the
guard is left, and no AWS call starts after the deadline."""

from __future__ import annotations

import gc
import time
import weakref

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError

from edge_origin.live.guard import STOP_REPEAT_S, RunGuard, Stop, track_client


class _Held:
    pass


def _lose_the_first_stop(seconds: float) -> None:
    """Run a finalizer that is busy when the deadline passes: the Stop raised inside it is dropped."""
    held = _Held()
    weakref.finalize(held, time.sleep, seconds)
    del held
    gc.collect()


def test_a_stop_lost_in_a_finalizer_is_raised_again(recwarn) -> None:
    started = time.monotonic()
    with pytest.raises(Stop) as stop, RunGuard("audit", 0.2):
        _lose_the_first_stop(0.6)  # the deadline passes inside the finalizer
        time.sleep(10)  # a dripping read: only a repeated Stop ends it
    took = time.monotonic() - started
    assert stop.value.kind == "deadline" and "deadline 0.2 s passed" in str(stop.value)
    assert took < 0.6 + 2 * STOP_REPEAT_S + 1.5, took


def test_no_call_starts_after_a_lost_deadline() -> None:
    # an endpoint nobody answers on: a call that started would end in a connection error, not a Stop
    config = Config(retries={"max_attempts": 1}, connect_timeout=1)
    client = track_client(boto3.client("route53", region_name="us-east-1", endpoint_url="http://127.0.0.1:9",
                                       aws_access_key_id="a", aws_secret_access_key="b", config=config))
    with RunGuard("audit", 30) as guard:
        with pytest.raises(EndpointConnectionError):
            client.list_health_checks()  # before the deadline: the call is made
        guard.expired = True  # the deadline passed; its Stop went nowhere
        with pytest.raises(Stop) as stop:
            client.list_health_checks()
    assert "deadline 30 s passed during ListHealthChecks to http://127.0.0.1:9" in str(stop.value)


def test_the_timer_is_quiet_after_the_guard_and_in_its_grace() -> None:
    with pytest.raises(Stop), RunGuard("enact", 0.1):
        time.sleep(5)
    time.sleep(3 * STOP_REPEAT_S)  # no stray Stop once the guard is left
    with RunGuard("enact", 0.1) as guard:
        with pytest.raises(Stop):
            time.sleep(5)
        guard.grace(1.0)  # the read-back: the repeat is off until the grace passes
        time.sleep(0.3 + STOP_REPEAT_S)
        guard.disarm()
