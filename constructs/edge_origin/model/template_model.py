"""``TemplateModel``: all given templates as one world, indexed once, with typed views."""

from __future__ import annotations

import _weakref as weakref  # weakref's ref and proxy are _weakref's: without weakref.py's import (issue 53)
import gc
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from operator import itemgetter
from pathlib import Path

from edge_origin.model import read_cloudfront, read_elb, read_route53
from edge_origin.model.intrinsics import (
    NOT_LINKED,
    AssemblyLinks,
    StackResolver,
)
from edge_origin.model.loader import (
    LoadedTemplate,
    check_template_shape,
    check_values,
    parse_template,
    read_paths_result,
    read_validation_acknowledgements,
)

# the readers' constants are this module's names too, as before the readers moved out
from edge_origin.model.read_cloudfront import (
    CUSTOM_ORIGIN_CONFIG_KNOWN_MEMBERS as CUSTOM_ORIGIN_CONFIG_KNOWN_MEMBERS,
)
from edge_origin.model.read_cloudfront import (
    DISTRIBUTION as DISTRIBUTION,
)
from edge_origin.model.read_cloudfront import (
    ORIGIN_KNOWN_MEMBERS as ORIGIN_KNOWN_MEMBERS,
)
from edge_origin.model.read_cloudfront import (
    VPC_ORIGIN as VPC_ORIGIN,
)
from edge_origin.model.read_cloudfront import (
    VPC_ORIGIN_CONFIG_KNOWN_MEMBERS as VPC_ORIGIN_CONFIG_KNOWN_MEMBERS,
)
from edge_origin.model.read_elb import (
    EIP as EIP,
)
from edge_origin.model.read_elb import (
    LISTENER as LISTENER,
)
from edge_origin.model.read_elb import (
    LOAD_BALANCER as LOAD_BALANCER,
)
from edge_origin.model.read_elb import (
    SECURITY_GROUP as SECURITY_GROUP,
)
from edge_origin.model.read_elb import (
    SECURITY_GROUP_INGRESS as SECURITY_GROUP_INGRESS,
)
from edge_origin.model.read_elb import (
    SUBNET as SUBNET,
)
from edge_origin.model.read_elb import (
    TARGET_GROUP as TARGET_GROUP,
)
from edge_origin.model.read_route53 import (
    GRPC_ORIGIN_METADATA_KEY as GRPC_ORIGIN_METADATA_KEY,
)
from edge_origin.model.read_route53 import (
    HEALTH_CHECK as HEALTH_CHECK,
)
from edge_origin.model.read_route53 import (
    HOSTED_ZONE as HOSTED_ZONE,
)
from edge_origin.model.read_route53 import (
    MAX_RECORD_SETS as MAX_RECORD_SETS,
)
from edge_origin.model.read_route53 import (
    MAX_RECORD_SETS_PER_NAME as MAX_RECORD_SETS_PER_NAME,
)
from edge_origin.model.read_route53 import (
    RECORD_SET as RECORD_SET,
)
from edge_origin.model.read_route53 import (
    RECORD_SET_GROUP as RECORD_SET_GROUP,
)
from edge_origin.model.read_route53 import (
    ROUTE53_RECORD_TYPES as ROUTE53_RECORD_TYPES,
)
from edge_origin.model.read_route53 import (
    ROUTE53_RECORDS_PER_ZONE as ROUTE53_RECORDS_PER_ZONE,
)
from edge_origin.model.read_route53 import (
    SDK_DROPS_AZ_AFFINITY_KEY as SDK_DROPS_AZ_AFFINITY_KEY,
)
from edge_origin.model.values import ModelError, ResourceRef, Unresolved, display_value, normalize_name
from edge_origin.model.views import (
    BehaviorView,
    DistributionView,
    EipView,
    HealthCheckView,
    ListenerView,
    LoadBalancerView,
    OriginView,
    RecordSetView,
    Resource,
    SecurityGroupView,
    TargetGroupView,
    VpcOriginView,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

CROSS_REGION_WRITER = "Custom::CrossRegionExportWriter"
SSM_PARAMETER = "AWS::SSM::Parameter"
#: The types whose resources ``_index_exports`` reads (values other stacks read).
_LINKING = frozenset({SSM_PARAMETER, CROSS_REGION_WRITER})
#: A resource's Type (every resource of a checked shape has one, a string: ``check_template_shape``).
_type_of = itemgetter("Type")


class TemplateModel(AssemblyLinks):
    """Every resource of the given templates, indexed by stack/logical id and by type.

    Build with ``load_model(paths)`` or ``TemplateModel.from_templates({"Stack": dict})``.
    Construction builds the typed views (resolving the properties of the resources they read) and
    checks every other resource's properties without building them (``StackResolver.check``: bad
    input is refused here, naming its template); a resource's properties are resolved when first
    read, once. Linear in the size of the templates; the views are cached.
    """

    def __init__(self, loaded: Sequence[LoadedTemplate], *, strict: bool = True) -> None:
        """``strict``: raise the first ModelError; otherwise drop a bad template and list it in
        ``unreadable`` (``[(file, message)]``), checking the rest."""
        #: ``{construct path: {rule id: reason}}`` acknowledged outside the templates (a cdk.out's
        #: validation-report.json); ``rules.run_rules`` honours them like template metadata.
        self.acknowledged_paths: dict[str, dict[str, str]] = {}
        #: ``[(file, message)]``: templates left out because they are bad input (non-strict only).
        self.unreadable: list[tuple[str, str]] = []
        good = list(loaded)
        for _ in range(len(good) + 1):
            try:
                self._build(good)
                self._check_views()
                return
            except ModelError as exc:
                if strict or not good:
                    raise
                bad = exc.template if exc.template in {t.template for t in good} else None
                if bad is None:
                    bad = next((t.template for t in good if str(exc).startswith(t.template + ":")), None)
                if bad is None:
                    raise
                self.unreadable.append((bad, str(exc)))
                good = [t for t in good if t.template != bad]
                if not good:
                    raise ModelError(str(exc), template=bad) from None
        raise ModelError("templates could not be read")  # pragma: no cover (bounded loop)

    def _build(self, loaded: Sequence[LoadedTemplate]) -> None:
        keep = {k: self.__dict__[k] for k in ("acknowledged_paths", "unreadable")}
        self.__dict__.clear()  # cached views of an earlier attempt
        self.__dict__.update(keep)
        self.templates: dict[str, LoadedTemplate] = {t.stack: t for t in loaded}
        self._resolvers: dict[str, StackResolver] = {}
        self._exports: dict[str, tuple[str, Any]] = {}
        self._crossing: dict[tuple[str, ...], Any] = {}  # values read across stacks, cached
        self._children: dict[tuple[str, str], str] = {}  # (parent stack, Stack resource) -> nested stack
        self._region_exports: dict[str, list[tuple[str, Any, Any]]] = defaultdict(list)
        self._ssm: dict[str, list[tuple[str, Any, Any]]] = defaultdict(list)  # SSM parameter name -> (stack, value, Region)
        me, links = weakref.ref(self), weakref.proxy(self)  # resolvers do not keep the model alive

        def import_value(name: str) -> Any:
            return me()._import_value(name)  # type: ignore[union-attr]

        for item in loaded:
            self._resolvers[item.stack] = StackResolver(
                item.stack, item.template, item.body, import_value,
                environment=item.environment, links=links, nested=item.parent is not None, tree=item.tree,
            )
            if item.parent is not None:
                self._children[item.parent] = item.stack
        for item in loaded:
            self._index_exports(item)
        self._by_key: dict[tuple[str, str], Resource] = {}
        self._by_type: dict[str, list[Resource]] = defaultdict(list)
        self.resources: list[Resource] = []
        #: ``(stack, logical_id)`` of resources whose ``Condition`` is false with the defaults.
        self.skipped: list[tuple[str, str]] = []
        add, by_key, by_type = self.resources.append, self._by_key, self._by_type
        for item in loaded:
            resolver, stack, template = self._resolvers[item.stack], item.stack, item.template
            for logical_id, body in item.body["Resources"].items():
                condition = body.get("Condition")
                if condition is None:
                    pass
                elif not isinstance(condition, str):
                    condition = None
                elif _in_template(template, resolver.condition_for, condition, logical_id) is False:
                    self.skipped.append((stack, logical_id))
                    continue  # not created with these parameter defaults
                metadata = body.get("Metadata")
                type_ = body["Type"]
                # the properties resolved on first read by its _settle (_NOT_READ until then)
                res = Resource(stack, template, logical_id, type_, _NOT_READ, metadata if isinstance(metadata, dict) else {},
                               condition)
                res._settle = _Deferred(resolver, body.get("Properties") or {}, logical_id)
                add(res)
                by_key[(stack, logical_id)] = res
                by_type[type_].append(res)

    def _check_views(self) -> None:
        """Build every typed view once, so a shape CloudFormation refuses is found here (and its
        template named) rather than in a rule."""
        self.health_checks  # noqa: B018
        self._check_record_caps(self.all_record_sets)
        self._elb  # noqa: B018
        self.security_groups  # noqa: B018
        self.distributions  # noqa: B018
        self._check_unread()

    def _check_unread(self) -> None:
        """Check the Properties of every resource no view read, in order (``Resource.check_deferred``): the
        common one, a plain mapping of a parsed JSON tree, by ``StackResolver.check_mapping`` directly."""
        template = ""
        try:
            for res in self.resources:  # the rest is checked, not resolved: read (if ever) by a rule
                settle = res._settle
                if settle is None:
                    continue
                if settle.__class__ is not _Deferred or not settle.resolver.tree or _rooted_in_intrinsic(settle.raw):  # type: ignore[attr-defined]
                    res.check_deferred()
                    continue
                resolver = settle.resolver  # type: ignore[attr-defined]
                template = resolver.template
                resolver.check_mapping(settle.raw, settle.logical_id)  # type: ignore[attr-defined]
                settle.checked = True  # type: ignore[attr-defined]
        except ModelError as exc:  # as _in_template words it
            if exc.template is None:
                exc.template = template
            raise
        except RecursionError:
            raise ModelError(f"{template}: intrinsic functions nested too deeply", template=template) from None

    _check_record_caps = staticmethod(read_route53.check_record_caps)

    # --- construction ---------------------------------------------------------------------------
    @classmethod
    def from_templates(cls, templates: Mapping[str, Mapping[str, Any]], template_names: Mapping[str, str] | None = None) -> TemplateModel:
        """A model from in-memory templates ``{"StackName": template_dict}``.

        ``template_names`` optionally gives each stack a file name for findings (default
        ``<StackName>.template.json``). Templates are checked like files (Resources needed).
        """
        loaded = []
        for stack, body in templates.items():
            where = (template_names or {}).get(stack, f"{stack}.template.json")
            check_values(body, where)
            check_template_shape(body, where)
            loaded.append(LoadedTemplate(stack, where, dict(body)))
        return cls(loaded)

    def _index_exports(self, item: LoadedTemplate) -> None:
        """``Export`` names of the template's Outputs, and the names its cross-Region export
        writers write (``Custom::CrossRegionExportWriter``: ``WriterProps.exports``)."""
        resolver = self._resolvers[item.stack]
        outputs = item.body.get("Outputs") or {}
        if not isinstance(outputs, dict):
            raise ModelError(f"{item.template}: Outputs is not a mapping", template=item.template)
        for out_id, output in outputs.items():
            if not isinstance(output, dict) or not isinstance(output.get("Export"), dict):
                continue
            name = _in_template(item.template, resolver.resolve, output["Export"].get("Name"), f"Outputs.{out_id}")
            if isinstance(name, str):
                self._exports[name] = (item.stack, output.get("Value"))
        linking = (SSM_PARAMETER, CROSS_REGION_WRITER)
        resources = item.body["Resources"]
        if _LINKING.isdisjoint(map(_type_of, resources.values())):  # the common template: one scan in C
            return
        for resource in resources.values():
            if resource.get("Type") not in linking:  # the common resource: one look-up (shapes are checked)
                continue
            if resource.get("Type") == SSM_PARAMETER and isinstance(resource.get("Properties"), dict):
                props = resource["Properties"]
                if isinstance(props.get("Name"), str) and props.get("Type", "String") == "String" and "Value" in props:
                    self._ssm[props["Name"]].append((item.stack, props["Value"], item.environment.region))
            if resource.get("Type") != CROSS_REGION_WRITER or not isinstance(resource.get("Properties"), dict):
                continue
            props = resource["Properties"].get("WriterProps")
            exports = props.get("exports") if isinstance(props, dict) else None
            for name, raw in exports.items() if isinstance(exports, dict) else ():
                self._region_exports[name].append((item.stack, raw, props.get("region")))

    def _across(self, key: tuple[str, ...], stack: str, raw: Any, where: str, what: str) -> Any:
        """``raw`` resolved in ``stack`` (another stack's value read here), cached by ``key``; a
        cycle of such reads is unknown (``Unresolved("import", what)``)."""
        if key in self._crossing:
            value = self._crossing[key]
            return Unresolved("import", what) if value is _RESOLVING else value
        resolver = self._resolvers[stack]
        if resolver.pending(raw):  # the stack that holds it is resolving it: a cycle across stacks
            return Unresolved("import", what)
        saved = resolver._where
        self._crossing[key] = _RESOLVING
        try:
            value = _in_template(resolver.template, resolver.resolve, raw, where)
        except BaseException:
            del self._crossing[key]
            raise
        finally:
            resolver._where = saved
        self._crossing[key] = value
        return value

    def _import_value(self, name: str) -> Any:
        if name not in self._exports:
            return Unresolved("import", f"Fn::ImportValue {name}")
        stack, raw = self._exports[name]
        return self._across(("import", name), stack, raw, f"Outputs (export {name})", f"Fn::ImportValue {name}")

    # --- values across the assembly (intrinsics.AssemblyLinks) -------------------------------
    def nested_parameter(self, stack: str, name: str) -> Any:
        """The value the parent passes to parameter ``name`` of nested ``stack`` (``Parameters``
        of its ``AWS::CloudFormation::Stack`` resource, resolved in the parent), or NOT_LINKED."""
        item = self.templates.get(stack)
        if item is None or item.parent is None or item.parent[0] not in self.templates:
            return NOT_LINKED
        parent, logical_id = item.parent
        resource = self.templates[parent].body["Resources"].get(logical_id)
        props = resource.get("Properties") if isinstance(resource, dict) else None
        passed = props.get("Parameters") if isinstance(props, dict) else None
        if not isinstance(passed, dict) or name not in passed:
            if passed is not None and not isinstance(passed, dict):  # an Fn::If of whole mappings
                return Unresolved("parameter", f"Ref {name} (passed by {parent}/{logical_id})")
            return NOT_LINKED
        return self._across(("parameter", stack, name), parent, passed[name], f"{logical_id}.Parameters.{name}",
                            f"Ref {name} (passed by {parent}/{logical_id})")

    def stack_output(self, stack: str, logical_id: str, output: str) -> Any:
        """``Outputs.<output>`` of the nested stack ``stack``'s resource ``logical_id`` deploys,
        resolved in that stack; NOT_LINKED when its template is not in the assembly."""
        child = self._children.get((stack, logical_id))
        if child is None:
            return NOT_LINKED
        outputs = self.templates[child].body.get("Outputs") or {}
        entry = outputs.get(output) if isinstance(outputs, dict) else None
        if not isinstance(entry, dict) or "Value" not in entry:
            return Unresolved("import", f"{child} has no output {output}")
        return self._across(("output", child, output), child, entry["Value"], f"Outputs.{output}", f"{child}.Outputs.{output}")

    def cross_region_export(self, stack: str, name: str) -> Any:
        """The value a ``Custom::CrossRegionExportWriter`` of the assembly writes under ``name``
        (several writers: the one writing to the reader's Region); unknown when none or ambiguous."""
        writers = self._region_exports.get(name, [])
        if len(writers) > 1:
            region = self._resolvers[stack].region
            writers = [w for w in writers if region is not None and w[2] == region]
        if len(writers) != 1:
            many = "more than one writer" if writers else "no writer in the given templates"
            return Unresolved("import", f"cross-Region export {name} ({many})")
        writer, raw, _ = writers[0]
        return self._across(("region", name), writer, raw, f"WriterProps.exports.{name}", f"cross-Region export {name}")

    def named_stack_output(self, stack: str, name: str, output: str, region: str | None) -> Any:
        """``Outputs.<output>`` of the top-level stack of the assembly deployed as ``name`` in ``region``
        (None: the reading stack's Region; a stack of unknown Region matches any), read by
        ``Fn::GetStackOutput``; NOT_LINKED when no such stack is given, unknown when several could be."""
        region = region if region is not None else self._resolvers[stack].region
        root = self.templates[stack]
        while root.parent is not None and root.parent[0] in self.templates:
            root = self.templates[root.parent[0]]
        # a cloud assembly found in a folder walk names its stacks "<folder>/<stack>": the same folder's
        prefix = root.stack.rsplit("/", 1)[0] + "/" if "/" in root.stack else ""
        found = [t for t in self.templates.values() if t.stack in (name, prefix + name) and t.parent is None
                 and (region is None or t.environment.region is None or t.environment.region == region)]
        what = f"Fn::GetStackOutput {name}.{output}"
        if len(found) != 1:
            return NOT_LINKED if not found else Unresolved("import", f"{what} (more than one stack {name})")
        outputs = found[0].body.get("Outputs") or {}
        entry = outputs.get(output) if isinstance(outputs, dict) else None
        if not isinstance(entry, dict) or "Value" not in entry:
            return Unresolved("import", f"{what} ({name} has no output {output})")
        return self._across(("stackoutput", found[0].stack, output), found[0].stack, entry["Value"], f"Outputs.{output}", what)

    def ssm_parameter(self, stack: str, name: str) -> Any:
        """The value an ``AWS::SSM::Parameter`` of the assembly (a String named ``name``; in the reading
        stack's Region where both are known) or a cross-Region export writer (its ``/cdk/exports/...``
        parameters) stores; NOT_LINKED when none does, unknown when several could."""
        region = self._resolvers[stack].region
        found = [(s, raw) for s, raw, r in self._ssm.get(name, []) if region is None or r is None or r == region]
        found += [(s, raw) for s, raw, r in self._region_exports.get(name, []) if region is None or r is None or r == region]
        if not found:
            return NOT_LINKED
        if len(found) > 1:
            return Unresolved("parameter", f"SSM parameter {name} (more than one in the given templates)")
        holder, raw = found[0]
        return self._across(("ssm", name, region or ""), holder, raw, f"SSM parameter {name}", f"SSM parameter {name}")

    # --- generic access ----------------------------------------------------------------------
    @property
    def stacks(self) -> list[str]:
        return list(self.templates)

    def resource(self, stack: str, logical_id: str) -> Resource | None:
        """The resource with this stack and logical id, or None."""
        return self._by_key.get((stack, logical_id))

    def target(self, ref: Any) -> Resource | None:
        """The resource a ``ResourceRef`` points at (None for anything else)."""
        if isinstance(ref, ResourceRef):
            return self._by_key.get((ref.stack, ref.logical_id))
        return None

    def of_type(self, type_name: str) -> list[Resource]:
        """All resources of one CloudFormation type, in template order."""
        return list(self._by_type.get(type_name, ()))

    # --- Route 53 ----------------------------------------------------------------------------
    @cached_property
    def health_checks(self) -> list[HealthCheckView]:
        return read_route53.health_check_views(self)

    @cached_property
    def _health_check_by_key(self) -> dict[tuple[str, str], HealthCheckView]:
        return {hc.resource.key: hc for hc in self.health_checks}

    def health_check(self, ref: Any) -> HealthCheckView | None:
        """The health check a ``HealthCheckId`` value refers to (Ref or GetAtt), if in the model."""
        if isinstance(ref, ResourceRef):
            return self._health_check_by_key.get((ref.stack, ref.logical_id))
        return None

    def record_name_of(self, value: Any) -> Any:
        """A ``Ref`` of an ``AWS::Route53::RecordSet`` is that record's name (CloudFormation: "Ref
        returns the domain name of the record set"; aws-cdk-lib's ``Route53RecordTarget`` writes it);
        anything else is returned as it is."""
        res = self.target(value) if isinstance(value, ResourceRef) and value.attribute is None else None
        if res is None or res.type != RECORD_SET or not isinstance(res.properties, dict):
            return value
        name = res.properties.get("Name")  # resolved already
        return normalize_name(name) if isinstance(name, str) else value

    @cached_property
    def all_record_sets(self) -> list[RecordSetView]:
        """Every record set, RecordSetGroup members included, in template order."""
        return read_route53.record_set_views(self)

    @cached_property
    def _records_by_name(self) -> dict[Any, list[RecordSetView]]:
        index: dict[Any, list[RecordSetView]] = defaultdict(list)
        for view in self.all_record_sets:
            index[view.name].append(view)
        return index

    def record_sets(self, name: str | None = None) -> list[RecordSetView]:
        """All record sets, or those whose (normalized) name is ``name``."""
        if name is None:
            return list(self.all_record_sets)
        return list(self._records_by_name.get(normalize_name(name), ()))

    def record_names(self) -> list[Any]:
        """Distinct record names (normalized strings first, sorted), deterministic."""
        names = list(self._records_by_name)
        return sorted(n for n in names if isinstance(n, str)) + [n for n in names if not isinstance(n, str)]

    # --- EC2 / ELBv2 ------------------------------------------------------------------------------

    @cached_property
    def _elb(self) -> tuple[list[LoadBalancerView], list[ListenerView], list[TargetGroupView], list[EipView]]:
        return read_elb.elb_views(self)

    @property
    def load_balancers(self) -> list[LoadBalancerView]:
        return self._elb[0]

    @property
    def listeners(self) -> list[ListenerView]:
        return self._elb[1]

    @property
    def target_groups(self) -> list[TargetGroupView]:
        return self._elb[2]

    @property
    def eips(self) -> list[EipView]:
        return self._elb[3]

    @cached_property
    def _views_by_key(self) -> dict[tuple[str, str], Any]:
        out: dict[tuple[str, str], Any] = {}
        for group in (self.load_balancers, self.target_groups, self.eips, self.security_groups, self.distributions,
                      self.vpc_origins):
            for view in group:
                res = view.resource
                out[(res.stack, res.logical_id)] = view  # res.key
        return out

    @cached_property
    def _eips_by_key(self) -> dict[tuple[str, str], EipView]:
        """The EIP views by resource key (``_views_by_key``'s EIPs: a resource has one type, one view): ``eip`` in one
        look-up, rules ask it for every record value and health check address."""
        return {(view.resource.stack, view.resource.logical_id): view for view in self.eips}

    def view(self, ref: Any) -> Any:
        """The typed view (LoadBalancerView, EipView, ...) of the resource ``ref`` points at."""
        if isinstance(ref, ResourceRef):
            return self._views_by_key.get((ref.stack, ref.logical_id))
        return None

    def load_balancer(self, ref: Any) -> LoadBalancerView | None:
        view = self.view(ref)
        return view if isinstance(view, LoadBalancerView) else None

    def eip(self, ref: Any) -> EipView | None:
        if isinstance(ref, ResourceRef):
            return self._eips_by_key.get((ref.stack, ref.logical_id))
        return None

    @cached_property
    def security_groups(self) -> list[SecurityGroupView]:
        """Security groups with inline and separate (``SecurityGroupIngress``) ingress rules."""
        return read_elb.security_group_views(self)

    _ingress = staticmethod(read_elb.ingress_rule)  # live.preflight reads account rules through it

    # --- CloudFront -------------------------------------------------------------------------------
    @cached_property
    def distributions(self) -> list[DistributionView]:
        return read_cloudfront.distribution_views(self)

    @cached_property
    def vpc_origins(self) -> list[VpcOriginView]:
        """Every ``AWS::CloudFront::VpcOrigin`` (issue 31: CloudFront -> VPC origin -> internal NLB)."""
        return read_cloudfront.vpc_origin_views(self)

    def vpc_origin_load_balancer(self, origin: OriginView) -> LoadBalancerView | None:
        """The load balancer a VPC origin's endpoint names (None: not a VPC origin, or not in the templates)."""
        view = origin.vpc_origin
        return self.load_balancer(view.endpoint) if view is not None else None

    # --- origins and paths ---------------------------------------------------------------------
    def grpc_origins(self) -> list[tuple[DistributionView, BehaviorView, OriginView]]:
        """Every (distribution, gRPC behavior, origin) triple, in template order."""
        return [(d, b, o) for d in self.distributions for b in d.behaviors if b.grpc_enabled for o in b.origins]

    def grpc_origin_names(self) -> set[str]:
        """Names that are gRPC origins: (a) the DomainName of an origin used by a behavior with
        ``GrpcConfig.Enabled``; (b) names of record sets with the metadata marker
        ``edge-origin:grpc-origin: true``."""
        names = {o.domain_name for _, _, o in self.grpc_origins() if isinstance(o.domain_name, str) and o.vpc_origin_id is None}
        names.update(r.name for r in self.all_record_sets if r.grpc_marker and isinstance(r.name, str))
        return names

    def cloudfront_origin_names(self) -> set[str]:
        """DomainNames (normalized literal strings) of every CloudFront origin CloudFront resolves (a VPC
        origin's DomainName is its Host/SNI name: CloudFront reaches the VPC origin's endpoint)."""
        return {
            o.domain_name for d in self.distributions for o in d.origins
            if isinstance(o.domain_name, str) and o.vpc_origin_id is None
        }

    def long_lived_origin_names(self) -> set[str]:
        """CloudFront origin names (not gRPC) whose records point at NLBs: long-lived
        connections too, checked at warning level."""
        grpc = self.grpc_origin_names()
        return {n for n in self.cloudfront_origin_names() - grpc if self.load_balancers_for_name(n)}

    def cloudfront_origin_types(self, name: str) -> tuple[str, ...]:
        """The record types CloudFront asks for origin name ``name``: the union of
        ``OriginView.dns_types()`` over the origins (of every distribution) with that DomainName;
        ``("A",)`` when no origin names it. One index over the distributions, built once."""
        wanted = self._origin_types_by_name.get(name, ())
        return tuple(t for t in ("A", "AAAA") if t in wanted) or ("A",)

    @cached_property
    def _origin_types_by_name(self) -> dict[Any, set[str]]:
        """``{origin DomainName: record types CloudFront asks}`` over every distribution's origins."""
        index: dict[Any, set[str]] = defaultdict(set)
        for d in self.distributions:
            for o in d.origins:
                if o.vpc_origin_id is None and isinstance(o.domain_name, str):
                    index[o.domain_name].update(o.dns_types())
        return index

    def origin_names(self) -> dict[str, str]:
        """``{name: "grpc" | "long-lived"}`` for every origin name the rules look at (sorted)."""
        return dict(self._origin_names)

    @cached_property
    def _origin_names(self) -> dict[str, str]:
        out = dict.fromkeys(sorted(self.long_lived_origin_names()), "long-lived")
        out.update(dict.fromkeys(sorted(self.grpc_origin_names()), "grpc"))
        return dict(sorted(out.items()))

    def routing_choices(self) -> tuple[list[Any], int]:
        """Non-default ``AllowedValues`` of parameters that decide routing (``model.parameters``):
        ``([ParameterChoice], how many were left out over the bound)``."""
        from edge_origin.model.parameters import routing_choices

        return routing_choices(self.templates)

    def with_choice(self, choice: Any) -> TemplateModel:
        """The model of the same templates deployed with one ``ParameterChoice``."""
        from edge_origin.model.parameters import with_choice

        variant = TemplateModel(with_choice(self.templates, choice))
        variant.acknowledged_paths = self.acknowledged_paths
        return variant

    @cached_property
    def zones(self) -> Any:
        """The hosted zones, record sets and health checks as the answer model's input
        (``edge_origin.model.zones.TemplateZones``; ``model.zones.resolve(name)``)."""
        from edge_origin.model.zones import template_zones

        return template_zones(self)

    def record_load_balancers(self, record: RecordSetView) -> list[LoadBalancerView]:
        """NLBs a record leads to: values that are attached EIPs, or an alias to an LB's DNS name."""
        out: list[LoadBalancerView] = []
        for value in record.values:
            eip = self.eip(value)
            if eip is not None:
                out.extend(eip.load_balancers)
        if record.alias_target is not None:
            lb = self.load_balancer(record.alias_target.dns_name)
            if lb is not None:
                out.append(lb)
        return _unique(out)

    def load_balancers_for_name(self, name: str) -> list[LoadBalancerView]:
        """Load balancers behind a name, chains followed (CNAME and alias, across records of every
        zone holding the name), as the answer model resolves it. Cached per name: every
        distribution of a name asks, and a name may hold thousands of records."""
        memo = self.__dict__.setdefault("_load_balancers_by_name", {})
        if name not in memo:
            memo[name] = self._load_balancers_for_name(name)
        return list(memo[name])

    def _load_balancers_for_name(self, name: str) -> list[LoadBalancerView]:
        zones = self.zones
        out: list[LoadBalancerView] = []
        for item in zones.name_resolutions(name, cloudfront=False):
            out.extend(zones.resolution_load_balancers(self, item.resolution))
        by_view = zones.by_view  # zones.record(record), inlined
        for record in self._records_by_name.get(normalize_name(name), ()):  # record_sets(name), not copied
            if by_view.get(id(record)) is None:  # a record the answer model cannot read (decided at deploy)
                out.extend(self.record_load_balancers(record))
        return _unique(out)

    def load_balancers_for_origin(self, origin: OriginView) -> list[LoadBalancerView]:
        """Load balancers an origin reaches: a VPC origin's endpoint, by its name's records, or
        directly (GetAtt DNSName)."""
        if origin.vpc_origin_id is not None:
            lb = self.vpc_origin_load_balancer(origin)
            if lb is not None:
                return [lb]
        if isinstance(origin.domain_name, str):
            return self.load_balancers_for_name(origin.domain_name)
        lb = self.load_balancer(origin.domain_name)
        return [lb] if lb is not None else []


_RESOLVING = object()


#: The properties of a resource not read yet (never seen: ``Resource.properties`` resolves them first).
_NOT_READ: dict[str, Any] = {}


class _Deferred:
    """A resource's ``Properties``, resolved on first read (its ``Resource._settle``) into
    ``(properties, unknown_properties)``; ``check()`` raises, without resolving, what that read would
    raise, so the model refuses bad input when it is built and a later read cannot fail."""

    __slots__ = ("resolver", "raw", "logical_id", "checked")

    def __init__(self, resolver: StackResolver, raw: Any, logical_id: str) -> None:
        self.resolver, self.raw, self.logical_id, self.checked = resolver, raw, logical_id, False

    def check(self) -> None:
        resolver, raw = self.resolver, self.raw
        if isinstance(raw, dict) and len(raw) == 1 and next(iter(raw)).startswith(("Fn::", "Ref")):
            return  # Properties that is itself an intrinsic (a Fn::If of whole mappings): read now
        _in_template(resolver.template, resolver.check, raw, self.logical_id)
        self.checked = True

    def __call__(self) -> tuple[dict[str, Any], Unresolved | None]:
        resolver, raw = self.resolver, self.raw
        saved = resolver._where  # a read in the middle of another resolution leaves its name as it was
        if not self.checked and resolver.tree and type(raw) is dict and len(raw) != 1:
            # the common read (a view's): a plain mapping of a parsed JSON tree, resolved without the
            # general path's calls (_in_template, resolve, _resolve); errors worded as _in_template words them
            try:
                return resolver.resolve_mapping(raw, self.logical_id), None  # a mapping resolves to a mapping
            except ModelError as exc:
                if exc.template is None:
                    exc.template = resolver.template
                raise
            except RecursionError:
                raise ModelError(f"{resolver.template}: intrinsic functions nested too deeply",
                                 template=resolver.template) from None
            finally:
                resolver._where = saved
        try:
            resolve = resolver.resolve_checked if self.checked else resolver.resolve
            props = _in_template(resolver.template, resolve, self.raw, self.logical_id)
        finally:
            resolver._where = saved
        if isinstance(props, (Unresolved, ResourceRef)):
            return {}, props if isinstance(props, Unresolved) else Unresolved("other", display_value(props))
        if not isinstance(props, dict):
            raise ModelError(f"{resolver.template}: {self.logical_id}: Properties resolves to a {type(props).__name__}, "
                             "not a mapping", template=resolver.template)
        return props, None


def _rooted_in_intrinsic(raw: dict[str, Any]) -> bool:
    """``raw`` (a resource's Properties) is one key that ``_Deferred.check`` resolves now (``Fn::``, ``Ref``...)
    or ``StackResolver.check`` reads as an intrinsic (a ``Condition`` name)."""
    if len(raw) != 1:
        return False
    ((key, arg),) = raw.items()
    return key.startswith(("Fn::", "Ref")) or (key == "Condition" and arg.__class__ is str)


def _in_template(template: str, fn: Any, *args: Any) -> Any:
    """Call ``fn``; a ModelError without a file gets ``template`` as its file."""
    try:
        return fn(*args)
    except ModelError as exc:
        if exc.template is None:
            exc.template = template
        raise
    except RecursionError:
        raise ModelError(f"{template}: intrinsic functions nested too deeply", template=template) from None


def _unique(items: Iterable[Any]) -> list[Any]:
    seen: set[int] = set()
    out = []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a model is built or judged: the build makes
    hundreds of thousands of objects and no cycles, so each collection would walk them all for
    nothing (about 15 % of a large check). Restored as it was, even on an error."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_model(paths: Sequence[str | Path], *, strict: bool = True) -> TemplateModel:
    """Load template files (.json/.yaml/.yml/.template), folders and cdk.out directories as one model.

    ``strict`` (default): the first bad file raises ModelError. ``strict=False``: bad files are
    listed in ``model.unreadable`` and the rest is checked; ModelError only when no file could
    be read. For a cdk.out, findings CDK suppressed for the EdgeOrigin pack
    (``validation-report.json``, acknowledged with a reason) are kept in ``model.acknowledged_paths``.
    """
    with collector_paused():
        result = read_paths_result(paths)
        if strict and result.unreadable:
            raise ModelError(result.unreadable[0][1])
        model = TemplateModel(result.templates, strict=strict)
    model.unreadable[:0] = result.unreadable
    for directory in result.assemblies:
        try:
            acks = read_validation_acknowledgements(Path(directory))
        except ModelError as exc:
            if strict:
                raise
            model.unreadable.append((str(Path(directory) / "validation-report.json"), str(exc)))
            continue
        for path, rules in acks.items():
            model.acknowledged_paths.setdefault(path, {}).update(rules)
    return model


def model_from_text(text: str, stack: str = "Stack", template: str = "<string>") -> TemplateModel:
    """A model from one template's text (JSON or YAML): handy in tests."""
    body, tree = parse_template(text, template)
    return TemplateModel([LoadedTemplate(stack, template, body, tree=tree)])
