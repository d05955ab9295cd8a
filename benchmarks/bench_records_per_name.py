"""Check time of N multivalue records on ONE origin name against N records spread over many names.

An attacker controls how many records a template puts on one name (a 16 MiB template holds about
38,000); the check must stay linear in records per name (issue 40). Both templates hold the same
resources apart from the names: one distribution, N ``AWS::Route53::RecordSet`` (multivalue,
literal address, own SetIdentifier), N/4 health checks and one gRPC distribution per name of the
spread template (in the one-name template all of them use that name).

Run from the repo root: ``PYTHONPATH=constructs python benchmarks/bench_records_per_name.py
[--records 12000] [--names 1000] [--rounds 3]``. Prints both times (best of the rounds, CPU of this
process, one round = both templates, so a load spike hits both) and the ratio; exit 1 when the
ratio is over 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from edge_origin.review.checker import check_paths

TARGET_RATIO = 2.0


def template(records: int, names: int, distributions: int) -> dict[str, Any]:
    """``records`` multivalue records over ``names`` origin names (round robin), and
    ``distributions`` gRPC distributions, the n-th using name n % ``names``."""
    origins = [f"o{n}.example.com" for n in range(names)]
    res: dict[str, Any] = {}
    for d in range(distributions):
        res[f"Dist{d}"] = {
            "Type": "AWS::CloudFront::Distribution",
            "Properties": {
                "DistributionConfig": {
                    "Enabled": True,
                    "HttpVersion": "http2",
                    "Origins": [{"Id": "o", "DomainName": origins[d % names], "CustomOriginConfig": {"OriginProtocolPolicy": "https-only"}}],
                    "DefaultCacheBehavior": {
                        "TargetOriginId": "o",
                        "ViewerProtocolPolicy": "https-only",
                        "GrpcConfig": {"Enabled": True},
                        "AllowedMethods": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"],
                    },
                }
            },
        }
    for i in range(records):
        address = f"198.{18 + i // 65536 % 2}.{i // 256 % 256}.{i % 256}"
        props: dict[str, Any] = {
            "HostedZoneName": "example.com.", "Name": origins[i % names], "Type": "A", "TTL": 60,
            "SetIdentifier": f"s{i}", "MultiValueAnswer": True, "ResourceRecords": [address],
        }
        if i % 4 == 0:
            res[f"Check{i}"] = {"Type": "AWS::Route53::HealthCheck",
                                "Properties": {"HealthCheckConfig": {"Type": "TCP", "IPAddress": address, "Port": 443}}}
            props["HealthCheckId"] = {"Ref": f"Check{i}"}
        res[f"Rec{i}"] = {"Type": "AWS::Route53::RecordSet", "Properties": props}
    return {"AWSTemplateFormatVersion": "2010-09-09", "Resources": res}


def time_check(path: Path) -> tuple[float, float, int]:
    """(CPU s, wall s, findings) of one in-process check (load + every rule)."""
    cpu, wall = time.process_time(), time.perf_counter()
    found = len(check_paths([path]).findings)
    return time.process_time() - cpu, time.perf_counter() - wall, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=12_000)
    parser.add_argument("--names", type=int, default=1_000, help="names of the spread template (default 1000)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    best = {"one name": (float("inf"), 0.0, 0), f"{args.names} names": (float("inf"), 0.0, 0)}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for label, names in (("one name", 1), (f"{args.names} names", args.names)):
            paths[label] = Path(tmp) / f"{names}.template.json"
            paths[label].write_text(json.dumps(template(args.records, names, args.names)))
        for round_no in range(max(1, args.rounds)):
            print(f"... round {round_no + 1}/{args.rounds}", file=sys.stderr, flush=True)
            for label, path in paths.items():
                result = time_check(path)
                if result[0] < best[label][0]:
                    best[label] = result
    for label, (cpu, wall, found) in best.items():
        print(f"{args.records:,} multivalue records on {label}: check {cpu:.2f} s CPU ({wall:.2f} s wall), {found} findings")
    one, spread = best["one name"][0], best[f"{args.names} names"][0]
    ratio = one / spread if spread else float("inf")
    print(f"ratio one name / {args.names} names: {ratio:.2f} (target <= {TARGET_RATIO:g}: linear in records per name)")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
