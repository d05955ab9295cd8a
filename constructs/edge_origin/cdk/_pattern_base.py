"""What ``GrpcEdgeToOrigin`` and ``InternalGrpcOrigin`` share, in the order both build it.

A pattern is: its props checked (``OriginProps``, before anything is made), its connection
profile checked, the ``OriginFleet``, its own records and edge, then the shared tail
(``_finish``): the ``TargetGroupBindings``, the pattern's own extras, the ``OriginWatch``, the
outputs and their exports. A part both patterns get is wired once, in ``_finish`` (or in the
step it belongs to); a part one pattern gets goes in that pattern's hook (``_edge_parts``,
``_edge_outputs``). Construct ids and the order parts are made in are the synthesized
template's: changing them replaces resources (the snapshot tests say so).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from constructs import Construct

from edge_origin.cdk.origin_records import MultivalueOriginRecords, OriginAddress
from edge_origin.cdk.outputs import export_every_output, origin_outputs
from edge_origin.cdk.profile_binding import apply_profile_checks, bind_fleet
from edge_origin.cdk.props import OriginProps
from edge_origin.cdk.watch import WatchOptions, make_watch
from edge_origin.core.errors import ConstructLabel
from edge_origin.profile import ConnectionProfile
from edge_origin.profile.rollout import rollout_plan

if TYPE_CHECKING:
    import aws_cdk as cdk
    from aws_cdk import aws_cloudfront as cloudfront
    from aws_cdk import aws_route53 as route53

    from edge_origin.cdk.eks_binding import TargetGroupBindings
    from edge_origin.cdk.origin_fleet import OriginFleet
    from edge_origin.cdk.watch import OriginWatch


class _OriginPattern(Construct):
    """The shared steps of the two patterns (private: the public classes are the patterns)."""

    #: The pattern's name in error messages (``"<kind> <construct path>: invalid <prop>=..."``).
    KIND: ClassVar[str]

    props: OriginProps
    profile: ConnectionProfile
    fleet: OriginFleet
    records: MultivalueOriginRecords | None
    bindings: TargetGroupBindings
    watch: OriginWatch | None
    exports: dict[str, cdk.CfnOutput]

    def _label(self) -> ConstructLabel:
        return ConstructLabel(self.KIND, self)

    @staticmethod
    def _checked_props(where: ConstructLabel, **props: Any) -> OriginProps:
        """``OriginProps`` validated: a bad prop fails here, before anything is made."""
        return OriginProps(**props).validate(where)

    def _check_profile(self, where: ConstructLabel, given: ConnectionProfile | None, preset: str, *, cloudfront: bool) -> None:
        """``self.profile``: the given connection profile (else ``preset``), checked for this topology."""
        self.profile = apply_profile_checks(
            where, given if given is not None else ConnectionProfile.preset(preset), cloudfront=cloudfront
        )

    def _make_fleet(self, where: ConstructLabel, **extra: Any) -> None:
        """``self.fleet`` ("Fleet"), its NLB idle timeout and deregistration delay from the connection profile (the
        delay covers the pods' preStop over the NLB's ~2-minute draining window plus the server's grace:
        :mod:`edge_origin.profile.rollout`)."""
        self.fleet = self.props.make_fleet(
            self, where, idle_timeout=round(self.profile.nlb_idle_timeout_s),
            deregistration_delay=rollout_plan(self.profile).deregistration_delay_s, **extra,
        )

    def _make_records(self, zone: route53.IHostedZone, origin_name: str, **extra: Any) -> None:
        """``self.records`` ("Records"): one multivalue record of ``origin_name`` a fleet address
        (EIP or fixed private IP), in the fleet's order; ``extra``: the pattern's health checks."""
        self.records = MultivalueOriginRecords(
            self, "Records", zone=zone, record_name=origin_name,
            addresses=[OriginAddress(a.ip_address, a.set_identifier) for a in self.fleet.addresses], **extra,
        )

    def _finish(self, where: ConstructLabel, monitoring: WatchOptions | None, export_prefix: str | None) -> None:
        """The shared tail, in this order: bindings, the pattern's extras, watch, outputs, exports."""
        self.bindings = bind_fleet(self, self.fleet, profile=self.profile, **self.props.binding_kwargs())
        self._edge_parts()
        self.watch = make_watch(self, where, monitoring, self.fleet, self.records, *self._watched_edge())
        self._edge_outputs()
        origin_outputs(self, *self._origin_output())
        self.exports = export_every_output(self, export_prefix, **self._export_names())

    # --- hooks: what one pattern adds to the shared tail (nothing by default) --------------------
    def _edge_parts(self) -> None:
        """Parts made after the bindings and before the watch."""

    def _watched_edge(self) -> tuple[()] | tuple[cloudfront.IDistribution, str]:
        """``make_watch``'s distribution and origin name, if the pattern has a distribution."""
        return ()

    def _edge_outputs(self) -> None:
        """Outputs made before ``OriginName``."""

    def _origin_output(self) -> tuple[str] | tuple[str, list[str]]:
        """``origin_outputs``' origin name (and custom domains)."""
        return (self.records.record_name,)  # type: ignore[union-attr]  # the patterns without records override this

    def _export_names(self) -> dict[str, Any]:
        """``export_every_output``'s keyword arguments (export names other than the output ids)."""
        return {}
