"""Print the keepalive verdicts over a grid of profiles, per implementation and per hop.

    python benchmarks/keepalive_grid.py

The grid is issue 19's shape: client keepalive time x server floor x permit-without-stream x NLB
idle timeout x CloudFront origin timeouts (1,440 profiles), judged for grpc-go, grpc-java and C-core.
"""

from __future__ import annotations

import itertools
from collections import Counter

from edge_origin.profile import ConnectionProfile


def main() -> None:
    grid = itertools.product(
        (20, 45, 60, 120, 300, 400),  # client keepalive time
        (30, 300),  # server floor
        (True, False),  # server permit without stream
        (60, 120, 350, 400, 600),  # NLB idle timeout
        ((5, 30), (30, 60), (60, 60), (5, 170), (30, 170), (60, 170)),  # CloudFront keepalive, read
        (20, 150),  # longest stream gap
    )
    counts: Counter[tuple[str, str, str]] = Counter()
    profiles = 0
    clean = Counter()
    for t, m, permit, idle, (cf_keepalive, cf_read), gap in grid:
        p = ConnectionProfile(
            client_keepalive_time_s=t, client_keepalive_timeout_s=5, server_min_ping_interval_s=m,
            server_permit_without_calls=permit, nlb_idle_timeout_s=idle, cloudfront_keepalive_timeout_s=cf_keepalive,
            cloudfront_read_timeout_s=cf_read, cloudfront_extended_timeouts=cf_read > 60, longest_stream_gap_s=gap,
            server_max_connection_idle_s=None,
        )
        profiles += 1
        for lang in ("go", "java", "python"):
            found = p.check(langs=(lang,))
            if not any(f.severity.value == "error" for f in found):
                clean[lang] += 1
            for f in found:
                hop = f.message.split("]", 1)[0].lstrip("[")
                counts[(lang, f"{f.rule} ({f.severity.value})", hop)] += 1
    print(f"profiles: {profiles}")
    for lang in ("go", "java", "python"):
        print(f"{lang}: {clean[lang]} without errors")
    for (lang, rule, hop), n in sorted(counts.items()):
        print(f"  {lang:6} {rule:45} {hop:28} {n}")


if __name__ == "__main__":
    main()
