"""Account quotas the first deploy meets, counted at synth across every stack of one app.

The constructs record what they make (``QuotaLedger.of(construct).track(...)``); when the app
synthesizes, one aspect per app sums each quota per account (and region, for regional quotas)
and adds an ``Annotations`` warning to every construct that contributes to a sum above the
account's quota. No credentials, no lookups: the quota is the AWS default unless the app
declares the real one, with the ``account_quotas=`` prop of a construct or the cdk.json context
``edge-origin:accountQuotas`` (``{"elasticIps": 10, "healthChecks": 500,
"networkLoadBalancers": 100}``); the largest declared value wins.

Only what the edge-origin constructs make is counted: EIPs, NLBs and health checks made
elsewhere in the app or already in the account come on top.

The same ledger keeps each record name's set identifiers across the app, so two constructs
that would write the same ``(zone, name, set identifier)`` fail at construction, and runs the
synth hooks (``TargetGroupBindings`` writes its YAML there) from the same single aspect.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

import aws_cdk as cdk
import jsii
from constructs import Construct, IConstruct

from edge_origin.core.errors import EdgeOriginPropError, is_token
from edge_origin.core.facts import value as fact_value

CONTEXT_KEY = "edge-origin:accountQuotas"


@dataclass(frozen=True)
class Quota:
    """One AWS quota: what it is called, where it is raised, its default."""

    key: str
    context_key: str
    title: str
    service_code: str
    quota_code: str
    default: int
    regional: bool


QUOTAS: dict[str, Quota] = {
    q.key: q
    for q in (
        Quota("elastic_ips", "elasticIps", "EC2-VPC Elastic IPs", "ec2", "L-0263D0A3", fact_value("ec2.elastic_ips_quota"), True),
        Quota("health_checks", "healthChecks", "Route 53 health checks", "route53", "L-ACB674F3",
              fact_value("route53.health.checks_quota"), False),
        Quota(
            "network_load_balancers", "networkLoadBalancers", "Network Load Balancers per Region",
            "elasticloadbalancing", "L-69A177A2", fact_value("elbv2.nlb.quota"), True,
        ),
    )
}


@dataclass(frozen=True)
class AccountQuotas:
    """The account's real quotas, when raised above the AWS defaults.

    :param elastic_ips: Elastic IPs per region (EC2 quota L-0263D0A3). Default 5.
    :param health_checks: Route 53 health checks per account (L-ACB674F3). Default 200.
    :param network_load_balancers: NLBs per region (ELB quota L-69A177A2). Default 50.
    """

    elastic_ips: int = 5
    health_checks: int = 200
    network_load_balancers: int = 50

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1_000_000:
                raise EdgeOriginPropError("AccountQuotas", f.name, value, "an integer in 1..1000000")


def account_quotas_from(where: Any, prop: str, value: Any) -> AccountQuotas | None:
    """``AccountQuotas``, a mapping of its field names (or cdk.json's camelCase names), or None."""
    if value is None or isinstance(value, AccountQuotas):
        return value
    if not isinstance(value, Mapping):
        raise EdgeOriginPropError(where, prop, value, "an AccountQuotas or a mapping like {'elastic_ips': 10}")
    names = {q.key: q.key for q in QUOTAS.values()} | {q.context_key: q.key for q in QUOTAS.values()}
    kwargs: dict[str, Any] = {}
    for key, item in value.items():
        if key not in names:
            raise EdgeOriginPropError(where, prop, {key: item}, "keys " + ", ".join(sorted(names)))
        if isinstance(item, bool) or not isinstance(item, int) or not 1 <= item <= 1_000_000:
            raise EdgeOriginPropError(where, f"{prop}.{key}", item, "an integer in 1..1000000")
        kwargs[names[key]] = item
    return AccountQuotas(**kwargs)


@dataclass
class _Use:
    construct: Construct
    label: Any
    """What to call the construct in the message (a ``ConstructLabel``: its path, read when needed)."""
    quota: Quota
    count: int
    account: str
    region: str
    declared: AccountQuotas | None


class QuotaLedger:
    """What the edge-origin constructs of one app make, and which set identifiers they use."""

    _ledgers: weakref.WeakKeyDictionary[Any, QuotaLedger] = weakref.WeakKeyDictionary()
    _stacks: weakref.WeakKeyDictionary[Any, tuple[QuotaLedger, str, str]] = weakref.WeakKeyDictionary()

    def __init__(self, root: IConstruct) -> None:
        self._root = root
        self.uses: list[_Use] = []
        self.set_identifiers: dict[tuple[str, str, str], Any] = {}
        self.record_names: dict[tuple[str, str], Any] = {}
        self._context: AccountQuotas | None | bool = False  # False: not read yet
        self._aspect_added = False
        self._synth_hooks: list[Callable[[], None]] = []

    @classmethod
    def of(cls, construct: IConstruct, stack: cdk.Stack | None = None) -> QuotaLedger:
        """The ledger of ``construct``'s app (stacks, roots, accounts and regions read once each)."""
        return cls._entry(stack or cdk.Stack.of(construct))[0]

    @classmethod
    def _entry(cls, stack: cdk.Stack) -> tuple[QuotaLedger, str, str]:
        entry = cls._stacks.get(stack)
        if entry is None:
            root = stack.node.root
            ledger = cls._ledgers.get(root)
            if ledger is None:
                ledger = cls._ledgers[root] = cls(root)
            entry = cls._stacks[stack] = (ledger, stack.account, stack.region)
        return entry

    def context_quotas(self) -> AccountQuotas | None:
        if self._context is False:
            self._context = account_quotas_from(
                "cdk.json context", CONTEXT_KEY, self._root.node.try_get_context(CONTEXT_KEY)
            )
        return self._context  # type: ignore[return-value]

    def track(
        self,
        construct: Construct,
        label: Any,
        counts: Mapping[str, int],
        *,
        declared: AccountQuotas | None = None,
        stack: cdk.Stack | None = None,
    ) -> None:
        """Record what ``construct`` makes: ``{"elastic_ips": 6, "network_load_balancers": 2}``."""
        self.context_quotas()
        _, account, region = self._entry(stack or cdk.Stack.of(construct))
        for key, count in counts.items():
            if count:
                self.uses.append(_Use(construct, label, QUOTAS[key], count, account, region, declared))
        self._install(construct)

    def on_synth(self, construct: Construct, hook: Callable[[], None]) -> None:
        """Run ``hook`` once when the app synthesizes (before the templates are written)."""
        self._synth_hooks.append(hook)
        self._install(construct)

    def _install(self, construct: Construct) -> None:
        """One aspect per app, on a leaf of its own: one callback from jsii per synth, whatever
        the number of constructs (an aspect on a construct with children visits each child)."""
        if not self._aspect_added:
            anchor = Construct(construct, "EdgeOriginSynth")
            cdk.Aspects.of(anchor).add(_SynthAspect(self))
            self._aspect_added = True

    def synthesizing(self) -> None:
        """Called once per synth by the aspect: warn about quotas, run the hooks."""
        self.warn()
        for hook in self._synth_hooks:
            hook()

    def claim_set_identifier(self, where: Any, zone_key: str, name: str, set_identifier: str, owner: Any) -> None:
        """Refuse a ``(zone, name, set identifier)`` another construct of this app already writes."""
        key = (zone_key, name, set_identifier)
        other = self.set_identifiers.get(key)
        if other is not None and other != owner:
            raise EdgeOriginPropError(
                where, "set_identifier", set_identifier,
                f"a set identifier not used for {name} by {other} in the same zone (give one of them another "
                "name_prefix: Route 53 refuses two records with one name and set identifier)",
            )
        self.set_identifiers[key] = owner

    def claim_record_name(self, zone_key: str, name: str, owner: Any) -> Any:
        """The other construct of this app that already writes records for ``name`` in that zone, if any."""
        other = self.record_names.setdefault((zone_key, name), owner)
        return other if other != owner else None

    # -- at synth -------------------------------------------------------------------------------
    def totals(self) -> list[tuple[Quota, str, str, int, int, list[_Use]]]:
        """(quota, account, region or "", needed, quota value, uses) for every sum above its quota."""
        groups: dict[tuple[str, str, str], list[_Use]] = {}
        for use in self.uses:
            key = (use.quota.key, use.account, use.region if use.quota.regional else "")
            groups.setdefault(key, []).append(use)
        context = self.context_quotas()
        out = []
        for (key, account, region), uses in groups.items():
            quota = QUOTAS[key]
            declared = [getattr(u.declared, key) for u in uses if u.declared is not None]
            if context is not None:
                declared.append(getattr(context, key))
            limit = max(declared) if declared else quota.default
            needed = sum(u.count for u in uses)
            if needed > limit:
                out.append((quota, account, region, needed, limit, uses))
        return out

    def warn(self) -> None:
        for quota, account, region, needed, limit, uses in self.totals():
            where = _env_label(account, region if quota.regional else None)
            region_arg = f" --region {region}" if quota.regional and not is_token(region) else ""
            default = " (the AWS default)" if limit == quota.default else " (declared)"
            for use in uses:
                cdk.Annotations.of(use.construct).add_warning_v2(
                    f"edge-origin:quota-{quota.key.replace('_', '-')}",
                    f"{quota.title}: this app needs {needed} in {where} ({use.label} makes {use.count}), above the "
                    f"quota of {limit}{default}; the deploy fails when it runs out. Raise it first "
                    f"(Service Quotas, service {quota.service_code}, quota code {quota.quota_code}: `aws "
                    f"service-quotas request-service-quota-increase --service-code {quota.service_code} "
                    f"--quota-code {quota.quota_code} --desired-value {needed}{region_arg}`) and declare it with "
                    f"account_quotas=AccountQuotas({quota.key}=N) or cdk.json context {CONTEXT_KEY} "
                    f"{{\"{quota.context_key}\": N}}"
                    + ("; or make fewer (nlb_count=1 needs one per zone)" if quota.key == "elastic_ips" else "")
                    + ". Resources already in the account count too.",
                )


def _env_label(account: str, region: str | None) -> str:
    acct = "the deploy account" if is_token(account) else f"account {account}"
    if region is None:
        return acct
    return f"{acct}, " + ("the deploy region" if is_token(region) else region)


@jsii.implements(cdk.IAspect)
class _SynthAspect:
    """Visits one leaf construct per app, once per synth: sums the ledger, warns, runs the hooks."""

    def __init__(self, ledger: QuotaLedger) -> None:
        self._ledger = ledger

    def visit(self, node: IConstruct) -> None:
        self._ledger.synthesizing()
