"""The thresholds and metric math shared by ``OriginWatch`` (alarms) and ``edge-origin watch`` (verdicts).

Standard library only: the live command imports this without aws-cdk-lib. Every default here is
the one place that default lives; the construct's props and the CLI flags read it from here.

CloudWatch facts the expressions rest on (Amazon CloudWatch User Guide):
- Metric math functions and their inputs, "Metric math syntax and functions"
  (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html):
  ``MAX``/``AVG``/``SUM`` of an array of time series return one time series (the value per
  timestamp); ``FILL(x, 0)`` fills missing points; ``IF(cond, a, b)``; ``PERIOD(m)`` is the
  period of ``m`` in seconds.
- "Alarms based on metric math expressions can reference a maximum of 10 metrics. This is a
  hard limit" (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-limits.html);
  ``PutMetricAlarm`` takes at most 20 ``MetricDataQuery`` items, 10 of them ``MetricStat``
  (botocore cloudwatch service-2 ``PutMetricAlarmInput.Metrics``). ``Expression`` is at most
  2048 characters (``MetricExpression`` shape).
- ``GetMetricData``: up to 500 metrics and 100,800 data points a request (botocore
  ``GetMetricData`` documentation); ``Period`` is 10, 20, 30 or a multiple of 60.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: One alarm's metric math may read this many metrics (hard limit, see the module docstring).
ALARM_MAX_METRICS = 10
#: The NLB and Route 53 metrics are published once a minute.
DEFAULT_PERIOD_S = 60
PERIOD_RANGE_S = (60, 3600)

#: max/mean of ActiveFlowCount over the zonal nodes above this is a pile-up. Balanced multivalue
#: answers over 6 nodes with 500 flows give about 1.2 (binomial spread); one node taking a burst
#: gives up to the node count (6 for 2 NLBs x 3 zones). The rehearsal's limit is 1.35 for counts
#: it controls; a live path has fewer flows per node at the floor, so the alarm allows more.
IMBALANCE_THRESHOLD = 1.5
IMBALANCE_THRESHOLD_RANGE = (1.05, 20.0)
#: Below this many active flows in total nothing is judged (an idle origin is never "imbalanced").
IMBALANCE_FLOW_FLOOR = 500
FLOW_FLOOR_RANGE = (0, 100_000_000)
#: N of M: datapoints that must breach (N) out of evaluation periods (M), for every alarm.
DATAPOINTS_TO_ALARM = 3
EVALUATION_PERIODS = 5
EVALUATION_PERIODS_RANGE = (1, 60)

#: TCP_ELB_Reset_Count per second, summed over the NLBs, above this: resets after idle.
RESET_RATE_THRESHOLD = 1.0
RESET_RATE_RANGE = (0.001, 1_000_000.0)
#: CloudFront 5xxErrorRate (percent) above this.
ORIGIN_5XX_THRESHOLD = 5.0
ORIGIN_5XX_RANGE = (0.01, 100.0)
#: Active flows growing by this share over the window while new flows stay near zero: flows accumulate.
ACCUMULATION_GROWTH = 0.5
#: New flows a period at or under this count as "flat".
NEW_FLOWS_FLAT = 1.0


def default_min_healthy(records: int) -> int:
    """The healthy-records alarm's default K: half the records, rounded up (at least 1)."""
    return max(1, math.ceil(records / 2))


def array(ids: Sequence[str]) -> str:
    """``[m0,m1,...]``: a metric math array literal."""
    return "[" + ",".join(ids) + "]"


def imbalance_expression(ids: Sequence[str], floor: int) -> str:
    """max/mean of the zonal ActiveFlowCount series while their total is at or above ``floor``, else 0."""
    filled = f"FILL({array(ids)},0)"
    return f"IF(SUM({filled})>={floor},MAX({filled})/AVG({filled}),0)"


def healthy_expression(ids: Sequence[str]) -> str:
    """Healthy records: the sum of each record's HealthCheckStatus (1 healthy, 0 not; missing = 0)."""
    return f"SUM(FILL({array(ids)},0))"


def reset_rate_expression(ids: Sequence[str]) -> str:
    """TCP_ELB_Reset_Count per second, summed over the NLBs."""
    return f"SUM(FILL({array(ids)},0))/PERIOD({ids[0]})"


def max_over_mean(values: Sequence[float]) -> float:
    """max/mean of one period's values (0 when all are 0): the same figure as the imbalance alarm."""
    if not values:
        return 0.0
    mean = sum(values) / len(values)
    return max(values) / mean if mean > 0 else 0.0


def chunks(items: Sequence[str], size: int = ALARM_MAX_METRICS) -> list[list[str]]:
    """``items`` in groups of at most ``size`` (one alarm each)."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]
