"""An NLB's capacity reservation (``MinimumLoadBalancerCapacity``): the facts the construct's
validator (:mod:`edge_origin.cdk.origin_fleet`) and the template rule EO-NLB5 both rest on.

Pure constants, in the model layer so that the rules (which never import aws-cdk-lib) and the
constructs read the same numbers.
"""

from __future__ import annotations

from edge_origin.core.facts import value

CAPACITY_UNITS_PER_ZONE_RANGE: tuple[int, int] = value("elbv2.nlb.capacity_units_per_zone")
"""An NLB's reserved LCUs per zone. aws-cdk-lib 2.275's elbv2 README: "The ``minimumCapacityUnit``
value is evenly distributed across all active Availability Zones (AZs) for the network load balancer.
The distributed value per AZ must be between 2,750 and 45,000 units." (its NetworkLoadBalancer
refuses other values at construction). botocore 1.44.8 (elbv2 ``MinimumLoadBalancerCapacity``:
"The number of capacity units.", an integer), CloudFormation's resource schema (cfn-lint 1.58) and
the ELB guide's "Request Load balancer Capacity Unit reservation" page state no range: the CDK
bounds are the ones enforced here."""
CAPACITY_TLS_REASON = "capacity reservations are not supported on NLBs using TLS listeners"
"""ELB guide, "Request Load balancer Capacity Unit reservation for your Network Load Balancer"
(https://docs.aws.amazon.com/elasticloadbalancing/latest/network/request-capacity-unit-reservation.html):
"LCU reservation is not supported on Network Load Balancers using TLS listeners."."""
CAPACITY_SOURCE = "https://docs.aws.amazon.com/elasticloadbalancing/latest/network/request-capacity-unit-reservation.html"
LCU_MBPS = 2.2
""""convert your capacity needs from Mbps to LCUs using the conversion rate of 1 LCU to 2.2 Mbps"
(the same ELB guide page; aws-cdk-lib 2.275 elbv2 README): a reservation is throughput, not connections."""
