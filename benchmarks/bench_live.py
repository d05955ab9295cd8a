"""Audit cost on a large account: wall time against the bare listing calls it needs, and API calls.

An account on moto (in-process): 10 hosted zones x 1,000 records, 50 NLBs (listener and target
group each), 300 health checks, a distribution. The floor is the same List/Describe/Get calls made
with plain botocore paginators and nothing else (no model, no rules), measured in the same run;
the minimum call count is what those paginators need. Targets: audit <= 1.5 x floor; audit calls
within 10 % of the minimum.

    python benchmarks/bench_live.py [--zones 10] [--records 1000] [--nlbs 50] [--checks 300] [--repeat 3]

Measured 2026-12-01 (2 cores shared with other jobs, load ~5, median of 3): floor 9.3 s wall / 3.7 s
CPU, audit 13.3 s wall / 4.9 s CPU, ratio 1.43 wall / 1.33 CPU; 547 API calls each (1.00). Most of
both is moto serializing 10,000 records; the audit's extra is the model and the rules.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "constructs"))
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")


def build(session: Any, zones: int, records: int, nlbs: int, checks: int) -> None:
    ec2, elbv2, route53 = session.client("ec2"), session.client("elbv2"), session.client("route53")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnets = [ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i}.0/24", AvailabilityZone=z)["Subnet"]["SubnetId"]
               for i, z in enumerate(("us-east-1a", "us-east-1b"))]
    sg = ec2.create_security_group(GroupName="nlb", Description="nlb", VpcId=vpc)["GroupId"]
    for n in range(nlbs):
        lb = elbv2.create_load_balancer(Name=f"nlb-{n}", Type="network", Subnets=subnets, SecurityGroups=[sg])["LoadBalancers"][0]
        tg = elbv2.create_target_group(Name=f"tg-{n}", Protocol="TCP", Port=8443, VpcId=vpc, TargetType="ip")["TargetGroups"][0]
        listener = elbv2.create_listener(LoadBalancerArn=lb["LoadBalancerArn"], Protocol="TCP", Port=443,
                                         DefaultActions=[{"Type": "forward", "TargetGroupArn": tg["TargetGroupArn"]}])["Listeners"][0]
        elbv2.modify_listener_attributes(ListenerArn=listener["ListenerArn"], Attributes=[{"Key": "tcp.idle_timeout.seconds", "Value": "600"}])
    health = [route53.create_health_check(CallerReference=str(uuid.uuid4()), HealthCheckConfig={
        "Type": "TCP", "IPAddress": f"192.0.2.{i % 250}", "Port": 443})["HealthCheck"]["Id"] for i in range(checks)]
    for z in range(zones):
        zone = route53.create_hosted_zone(Name=f"zone{z}.example.com", CallerReference=str(uuid.uuid4()))["HostedZone"]["Id"]
        changes = []
        for r in range(records):
            record = {"Name": f"h{r}.zone{z}.example.com", "Type": "A", "SetIdentifier": f"s{r}", "MultiValueAnswer": True,
                      "TTL": 60, "ResourceRecords": [{"Value": f"198.51.100.{r % 250}"}]}
            if z == 0 and r < len(health):
                record["HealthCheckId"] = health[r]
            changes.append({"Action": "CREATE", "ResourceRecordSet": record})
        for i in range(0, len(changes), 1000):
            route53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": changes[i:i + 1000]})


def floor(session: Any) -> None:
    """The bare calls: the same List/Describe/Get operations, plain paginators, nothing kept."""
    ec2, elbv2, route53, cf = (session.client(s) for s in ("ec2", "elbv2", "route53", "cloudfront"))
    ec2.describe_addresses()
    sgs: set[str] = set()
    used: set[str] = set()
    for page in elbv2.get_paginator("describe_load_balancers").paginate():
        for lb in page["LoadBalancers"]:
            sgs.update(lb.get("SecurityGroups", []))
            elbv2.describe_load_balancer_attributes(LoadBalancerArn=lb["LoadBalancerArn"])
            for lpage in elbv2.get_paginator("describe_listeners").paginate(LoadBalancerArn=lb["LoadBalancerArn"]):
                for listener in lpage["Listeners"]:
                    elbv2.describe_listener_attributes(ListenerArn=listener["ListenerArn"])
                    used.update(a.get("TargetGroupArn") for a in listener["DefaultActions"])
    for page in elbv2.get_paginator("describe_target_groups").paginate():
        for tg in page["TargetGroups"]:
            if tg["TargetGroupArn"] in used:
                elbv2.describe_target_group_attributes(TargetGroupArn=tg["TargetGroupArn"])
    if sgs:
        for _ in ec2.get_paginator("describe_security_groups").paginate(GroupIds=sorted(sgs)):
            pass
    for page in route53.get_paginator("list_health_checks").paginate():
        for hc in page["HealthChecks"]:
            route53.get_health_check_status(HealthCheckId=hc["Id"])
    for page in route53.get_paginator("list_hosted_zones").paginate():
        for zone in page["HostedZones"]:
            for _ in route53.get_paginator("list_resource_record_sets").paginate(HostedZoneId=zone["Id"]):
                pass
    for _ in cf.get_paginator("list_distributions").paginate():
        pass


def main() -> int:
    from moto import mock_aws

    from edge_origin.live.audit import audit
    from edge_origin.live.session import LiveSession

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--zones", type=int, default=10)
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--nlbs", type=int, default=50)
    parser.add_argument("--checks", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with mock_aws():
        session = LiveSession(region="us-east-1")
        started = time.perf_counter()
        build(session, args.zones, args.records, args.nlbs, args.checks)
        print(f"account: {args.zones} zones x {args.records} records, {args.nlbs} NLBs, {args.checks} health checks "
              f"(built in {time.perf_counter() - started:.1f} s, moto in-process)")
        calls: dict[str, int] = {"n": 0}
        audit_times, floor_times, audit_cpu, floor_cpu, audit_calls, floor_calls, findings = [], [], [], [], 0, 0, 0
        counting = LiveSession(region="us-east-1")
        counting.boto3_session.events.register("before-call.*.*", lambda **_: calls.__setitem__("n", calls["n"] + 1))
        floor(counting)  # warm both paths (clients, moto's lazy backends)
        audit(counting)
        for _ in range(args.repeat):
            calls["n"] = 0
            t, c = time.perf_counter(), time.process_time()
            floor(counting)
            floor_times.append(time.perf_counter() - t)
            floor_cpu.append(time.process_time() - c)
            floor_calls = calls["n"]
            calls["n"] = 0
            t, c = time.perf_counter(), time.process_time()
            result = audit(counting)
            audit_times.append(time.perf_counter() - t)
            audit_cpu.append(time.process_time() - c)
            audit_calls = calls["n"]
            findings = len(result.findings)
    audit_s, floor_s = statistics.median(audit_times), statistics.median(floor_times)
    audit_c, floor_c = statistics.median(audit_cpu), statistics.median(floor_cpu)
    print(f"floor (bare listing calls): {floor_s:.2f} s wall, {floor_c:.2f} s CPU, {floor_calls} API calls (the paginators' minimum)")
    print(f"audit (read + model + rules): {audit_s:.2f} s wall, {audit_c:.2f} s CPU, {audit_calls} API calls, {findings} finding(s)")
    print(f"ratio audit/floor: {audit_s / floor_s:.2f} wall, {audit_c / floor_c:.2f} CPU (target <= 1.5); calls audit/minimum: "
          f"{audit_calls / floor_calls:.2f} (target <= 1.10); median of {args.repeat}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
