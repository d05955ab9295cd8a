"""edge_origin.testing.faults: each fault does what it says, on StrictRoute53 and on moto.

The same checks run on three clients: StrictRoute53 behind the wrapper, a botocore client of a
moto server (the hook), and in-process ``mock_aws`` (the hook in front of moto's own stub; slow).
Each counts what reached the endpoint (the zone's records), not only what the client saw.
"""

from __future__ import annotations

import botocore.config
import botocore.exceptions
import botocore.parsers
import pytest

from edge_origin.testing.faults import Fault, Faults
from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.moto_server import moto_server

ATTEMPTS = 3


def _batch(ip: str, name: str = "a.example.com") -> dict:
    return {"Changes": [{"Action": "CREATE", "ResourceRecordSet": {"Name": name, "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": ip}]}}]}


def _a_records(client, zone_id: str) -> list[str]:
    pages = client.get_paginator("list_resource_record_sets").paginate(HostedZoneId=zone_id)
    return [v["Value"] for page in pages for r in page["ResourceRecordSets"] if r["Type"] == "A" for v in r["ResourceRecords"]]


@pytest.fixture(scope="module")
def aws_env():
    with pytest.MonkeyPatch.context() as mp:
        for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            mp.setenv(key, "testing")
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        yield


@pytest.fixture(scope="module")
def moto_url(aws_env):
    with moto_server() as url:
        yield url


def _boto(url: str | None = None, attempts: int = ATTEMPTS):
    import boto3

    config = botocore.config.Config(retries={"mode": "standard", "total_max_attempts": attempts})
    return boto3.client("route53", region_name="us-east-1", endpoint_url=url, config=config)


@pytest.fixture(params=["strict", "moto-server"])
def backend(request):
    """(plain client to check the truth with, a factory attaching Faults, zone id)."""
    if request.param == "strict":
        r53 = StrictRoute53()
        zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"]
        return r53, lambda faults, attempts=ATTEMPTS: faults.attach(r53, max_attempts=attempts), zone_id
    url = request.getfixturevalue("moto_url")
    plain = _boto(url)
    name = f"faults{id(request)}.example.com"
    zone_id = plain.create_hosted_zone(Name="example.com", CallerReference=name)["HostedZone"]["Id"]
    return plain, lambda faults, attempts=ATTEMPTS: faults.attach(_boto(url, attempts)), zone_id


def test_no_fault_passes_every_call(backend):
    plain, attach, zone_id = backend
    faults = Faults()
    client = attach(faults)
    client.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert _a_records(plain, zone_id) == ["192.0.2.1"]
    assert faults.log == [("ChangeResourceRecordSets", "ok")]


def test_throttle_n_calls_is_absorbed_by_the_retries_below_the_attempts(backend):
    plain, attach, zone_id = backend
    faults = Faults().throttle("ChangeResourceRecordSets", times=ATTEMPTS - 1)
    attach(faults).change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert [k for _, k in faults.log] == ["throttle"] * (ATTEMPTS - 1) + ["ok"]
    assert _a_records(plain, zone_id) == ["192.0.2.1"]


def test_throttle_every_call_raises_throttling_after_max_attempts_and_applies_nothing(backend):
    plain, attach, zone_id = backend
    faults = Faults().throttle("ChangeResourceRecordSets", times=None)
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        attach(faults).change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert exc.value.response["Error"]["Code"] == "Throttling"
    assert faults.hits("throttle") == ATTEMPTS
    assert _a_records(plain, zone_id) == []


def test_prior_request_not_complete_is_route53s_code(backend):
    plain, attach, zone_id = backend
    faults = Faults().prior_request_not_complete(times=None)
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        attach(faults).change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert exc.value.response["Error"]["Code"] == "PriorRequestNotComplete"
    assert _a_records(plain, zone_id) == []


def test_server_error_after_apply_lands_the_write_and_botocore_resends_it(backend):
    """The issue's case: the batch lands, the answer is a 500, the resend is refused."""
    plain, attach, zone_id = backend
    faults = Faults().server_error_after_apply("ChangeResourceRecordSets")
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        attach(faults).change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert exc.value.response["Error"]["Code"] == "InvalidChangeBatch"  # the resend: "already exists"
    assert faults.log == [("ChangeResourceRecordSets", "server_error_after_apply"), ("ChangeResourceRecordSets", "ok")]
    assert _a_records(plain, zone_id) == ["192.0.2.1"]


def test_server_error_before_apply_applies_nothing(backend):
    plain, attach, zone_id = backend
    faults = Faults().server_error("ChangeResourceRecordSets", times=None, status=503)
    with pytest.raises(botocore.exceptions.ClientError):
        attach(faults).change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert _a_records(plain, zone_id) == []


def test_reset_after_apply_lands_the_write(backend):
    plain, attach, zone_id = backend
    faults = Faults().reset_after_apply("ChangeResourceRecordSets", times=None)
    with pytest.raises(botocore.exceptions.ConnectionClosedError):
        attach(faults).change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert faults.hits() == ATTEMPTS
    assert _a_records(plain, zone_id) == ["192.0.2.1"]


@pytest.mark.parametrize(("lands", "landed"), [("never", []), ("before", ["192.0.2.1"])])
def test_stall_times_out_and_the_write_lands_or_not(backend, lands, landed):
    plain, attach, zone_id = backend
    faults = Faults().stall("ChangeResourceRecordSets", times=None, lands=lands)
    with pytest.raises(botocore.exceptions.ReadTimeoutError):
        attach(faults).change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert _a_records(plain, zone_id) == landed


def test_stall_that_lands_later_lands_before_the_next_call(backend):
    plain, attach, zone_id = backend
    faults = Faults().stall("ChangeResourceRecordSets", times=1, lands="later")
    client = attach(faults)
    with pytest.raises(botocore.exceptions.ClientError) as exc:  # the resend meets the landed write
        client.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert exc.value.response["Error"]["Code"] == "InvalidChangeBatch"
    assert _a_records(plain, zone_id) == ["192.0.2.1"]


def test_release_lands_a_stalled_write(backend):
    plain, attach, zone_id = backend
    faults = Faults().stall("ChangeResourceRecordSets", times=None, lands="later")
    client = attach(faults, attempts=1)
    with pytest.raises(botocore.exceptions.ReadTimeoutError):
        client.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert _a_records(plain, zone_id) == []  # not yet
    assert faults.release() == 1
    assert _a_records(plain, zone_id) == ["192.0.2.1"]
    assert faults.release() == 0


def test_deny_is_access_denied_and_not_retried(backend):
    plain, attach, zone_id = backend
    faults = Faults().deny("ChangeResourceRecordSets")
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        attach(faults).change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    assert exc.value.response["Error"]["Code"] == "AccessDenied"
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert faults.log == [("ChangeResourceRecordSets", "deny")]
    assert _a_records(plain, zone_id) == []


def test_deny_hits_only_its_operation(backend):
    plain, attach, zone_id = backend
    faults = Faults().deny("ListHealthChecks")
    client = attach(faults)
    client.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    with pytest.raises(botocore.exceptions.ClientError):
        client.list_health_checks()


def test_skip_lets_the_first_calls_through(backend):
    plain, attach, zone_id = backend
    faults = Faults().deny("ChangeResourceRecordSets", skip=1)
    client = attach(faults)
    client.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
    with pytest.raises(botocore.exceptions.ClientError):
        client.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.2", "b.example.com"))
    assert _a_records(plain, zone_id) == ["192.0.2.1"]


def test_garbage_is_a_response_parser_error(backend):
    plain, attach, zone_id = backend
    faults = Faults().garbage("ListHostedZones", times=None, status=200, body="Directory listing for /", content_type="text/plain")
    with pytest.raises(botocore.parsers.ResponseParserError):
        attach(faults).list_hosted_zones()


def test_bad_faults_are_refused_naming_the_field():
    with pytest.raises(ValueError, match="kind: 'boom'"):
        Faults().add(Fault("boom"))
    with pytest.raises(ValueError, match="lands: 'soon'"):
        Faults().stall("GetChange", lands="soon")
    with pytest.raises(ValueError, match="times must be >= 1"):
        Faults().throttle(times=0)
    with pytest.raises(ValueError, match="max_attempts: 0"):
        Faults().attach(StrictRoute53(), max_attempts=0)


def test_the_wrapper_passes_non_operations_through():
    r53 = StrictRoute53()
    client = Faults().attach(r53)
    assert client.target is r53 and client.records is not None and client.exceptions is r53.exceptions


@pytest.mark.slow  # in-process moto: ~2 s
def test_the_hook_works_in_front_of_in_process_mock_aws(aws_env):
    moto = pytest.importorskip("moto")
    with moto.mock_aws():
        client = _boto()
        zone_id = client.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"]
        faults = Faults().server_error_after_apply("ChangeResourceRecordSets").throttle("ListResourceRecordSets", times=1)
        faults.attach(client)
        with pytest.raises(botocore.exceptions.ClientError) as exc:
            client.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=_batch("192.0.2.1"))
        assert exc.value.response["Error"]["Code"] == "InvalidChangeBatch"
        assert _a_records(client, zone_id) == ["192.0.2.1"]
        assert ("ListResourceRecordSets", "throttle") in faults.log
