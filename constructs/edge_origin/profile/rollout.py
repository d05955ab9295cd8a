"""A hitless pod rollout behind an NLB: the preStop, grace and deregistration delay a connection profile needs.

What happens when a pod behind a TargetGroupBinding goes (Kubernetes, the AWS Load Balancer Controller, ELB):

1. the pod is deleted: its preStop hook runs, the controller deregisters its IP; the target is draining;
2. a draining IP target keeps getting **new** connections for about two minutes, whatever
   ``deregistration_delay`` says (the facts table: ``elbv2.nlb.draining_window_s``, controller issues 2366 and
   3270): the pod must keep accepting them, so its preStop sleeps at least that long;
3. then SIGTERM: the gRPC server stops gracefully (GOAWAY, in-flight RPCs get
   ``server_max_connection_age_grace_s``), and Kubernetes kills it at ``terminationGracePeriodSeconds``;
4. at the end of ``deregistration_delay`` the NLB resets what is left (``connection_termination`` on, EO-NLB3).

So: preStop >= the window; terminationGracePeriodSeconds >= preStop + grace; deregistration delay >= the same.
"""

from __future__ import annotations

from edge_origin.core.facts import value
from edge_origin.core.fast_dataclass import dataclass, field
from edge_origin.profile.core import ConnectionProfile

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

DRAINING_WINDOW_S: int = value("elbv2.nlb.draining_window_s")
MARGIN_S = 5
"""Seconds on top of each bound: the controller's reaction to the endpoint change, signal delivery."""
DEFAULT_GRACE_S = 30
"""The grace assumed for in-flight RPCs when the profile sets none (it then never cuts them: unbounded)."""


@dataclass(frozen=True)
class RolloutPlan:
    """The pod and target-group settings of a hitless rollout, and what keeps a given setup from one."""

    pre_stop_s: int
    grace_s: int
    termination_grace_period_s: int
    deregistration_delay_s: int
    problems: list[str] = field(default_factory=list)


def rollout_plan(profile: ConnectionProfile, deregistration_delay_s: int | None = None) -> RolloutPlan:
    """The settings ``profile`` needs; ``problems`` names each way ``deregistration_delay_s`` (when given) breaks it."""
    grace = profile.server_max_connection_age_grace_s
    grace_s = int(-(-grace // 1)) if grace is not None else DEFAULT_GRACE_S
    pre_stop = DRAINING_WINDOW_S + MARGIN_S
    needed = pre_stop + grace_s + MARGIN_S
    problems = []
    if grace is None:
        problems.append(
            f"server_max_connection_age_grace_s is None: in-flight RPCs are never cut by the server, so the pod's "
            f"terminationGracePeriodSeconds ({needed} s here, {DEFAULT_GRACE_S} s of grace assumed) cuts them instead"
        )
    if deregistration_delay_s is not None and deregistration_delay_s < needed:
        problems.append(
            f"deregistration_delay {deregistration_delay_s} s is shorter than the pod's preStop ({pre_stop} s: new "
            f"connections reach a draining IP target for about {DRAINING_WINDOW_S} s) plus the server's grace "
            f"({grace_s} s): the NLB resets the pod's connections at {deregistration_delay_s} s, while it still "
            f"serves them; the rollout is not hitless (set deregistration_delay to at least {needed} s)"
        )
    return RolloutPlan(pre_stop, grace_s, needed, needed, problems)


def deployment_patch(plan: RolloutPlan, container: str) -> dict[str, Any]:
    """A strategic-merge patch for the Deployment of the pods (``kubectl patch deployment NAME --patch-file``)."""
    return {
        "spec": {
            "template": {
                "spec": {
                    "terminationGracePeriodSeconds": plan.termination_grace_period_s,
                    "containers": [{
                        "name": container,
                        "lifecycle": {"preStop": {"exec": {"command": ["sleep", str(plan.pre_stop_s)]}}},
                    }],
                }
            }
        }
    }


def rollout_configmap(plan: RolloutPlan, name: str, namespace: str, container: str) -> dict[str, Any]:
    """The rollout settings beside the TargetGroupBindings: the patch, and why each number."""
    import json

    why = {
        "preStop": f"sleep {plan.pre_stop_s} s: a draining IP target gets new connections for about {DRAINING_WINDOW_S} s",
        "terminationGracePeriodSeconds": f"{plan.termination_grace_period_s} s: preStop + grace {plan.grace_s} s + {MARGIN_S} s",
        "deregistration_delay": f"{plan.deregistration_delay_s} s: the NLB resets a draining target's connections after it",
        "readiness gate": "label the namespace elbv2.k8s.aws/pod-readiness-gate-inject=enabled so a new pod takes "
                          "traffic only once its target is healthy",
        "problems": plan.problems,
    }
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app.kubernetes.io/managed-by": "edge-origin"}},
        "data": {
            "deployment-patch.json": json.dumps(deployment_patch(plan, container), sort_keys=True),
            "why.json": json.dumps(why, sort_keys=True),
        },
    }


__all__ = ["DRAINING_WINDOW_S", "RolloutPlan", "deployment_patch", "rollout_configmap", "rollout_plan"]
