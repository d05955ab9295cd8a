"""The template model: every reader of infrastructure (rules, report, rehearsal) reads this.

Loading
    ``load_model(paths)`` takes template files (``.json``, ``.yaml``, ``.yml``, ``.template``;
    JSON first, else YAML with short-form tags via ``yaml_loader``: PyYAML + CloudFormation
    constructors), folders of them (recursive) and cloud-assembly directories (``cdk.out``:
    ``manifest.json`` names the stacks and their templates; nested assemblies of CDK Stages are
    followed, inside the assembly and without cycles), with every nested stack
    (``AWS::CloudFormation::Stack`` whose template is in the assembly or folder; named
    ``<Parent>/<Child>``; ``model.assembly``) and each stack's environment (account, Region) from
    the manifest. ``loader.load_assembly(cdk_out, template_files)`` gives the same from top-level
    templates (what a CDK validation plugin receives). Parameters and ``Outputs.X`` of nested
    stacks, exports and cross-Region export writers/readers are resolved across stacks. ``AWS::LanguageExtensions`` and SAM are
    expanded (``transforms``: cfn-lint, aws-sam-translator; imported only when declared). A file's
    stack name is its name minus the template extension; in a folder, its relative path; in a
    cdk.out the artifact's stack name. Only regular files of at most ``MAX_TEMPLATE_BYTES``
    (16 MiB) are read; numbers must be finite and fit 64 bits; documents nested deeper than
    ``MAX_DEPTH`` (100) are rejected. All bad input raises ``ModelError`` (a ValueError) with
    one line: ``<file>: [<logical id>: ][<property path>: ]<problem>``. ``load_model(paths,
    strict=False)`` instead lists bad files in ``model.unreadable`` and checks the rest.

    For a cdk.out, findings CDK suppressed for the EdgeOrigin pack (``validation-report.json``,
    acknowledged with a reason) land in ``model.acknowledged_paths`` (construct path -> rules),
    so ``edge-origin check cdk.out`` agrees with ``cdk synth``.

    ``TemplateModel.from_templates({"Stack": template_dict})`` builds a model in memory (the
    cdk-nag plugin does this with the stacks' resolved templates).

Resources
    ``model.resources`` (all, template order), ``model.resource(stack, logical_id)`` (or None),
    ``model.of_type("AWS::Route53::RecordSet")``, ``model.target(ref)`` (ResourceRef -> Resource),
    ``model.view(ref)`` (ResourceRef -> typed view). A ``Resource`` has ``stack``, ``template``
    (file path), ``logical_id``, ``type``, ``properties`` (resolved), ``metadata``, ``path``
    (``aws:cdk:path`` or ""), ``condition``.

Values (see ``intrinsics`` for the full list)
    Literal values stay ``str``/``int``/``bool``/``list``/``dict``. ``Ref``/``Fn::GetAtt`` of a
    resource becomes ``ResourceRef(stack, logical_id, attribute)`` (attribute None for Ref);
    ``Fn::ImportValue`` of an ``Export`` in any given template is followed into the exporting
    stack (so a record in stack B pointing at an EIP in stack A reads ``ResourceRef("A", "Eip",
    None)``). What the templates cannot know becomes ``Unresolved(reason, expr)``. ``Fn::If`` is
    resolved when its condition is decidable from the templates (parameter defaults), else it is
    ``Unresolved("condition", ...)``: the checker does not guess a branch. ``AWS::NoValue``
    removes the key. A resource whose ``Condition`` is false with the parameter defaults is left
    out (listed in ``model.skipped``); an undecidable one is kept. An unknown (newer) ``Fn::*`` is
    ``Unresolved("unknown", ...)``; a malformed known intrinsic or a Ref to a missing resource
    raises ``ModelError`` (unless a macro transform could make it: then ``Unresolved``). A whole
    ``Properties`` that is undecidable leaves ``resource.properties`` empty and sets
    ``resource.unknown_properties`` (record views: ``unknown``).

Shapes
    The typed views read properties through ``Props`` (``props_of(resource)``): each accessor
    returns the typed value, a deploy-time value, or None, and raises ``ModelError`` naming the
    file, resource and property path for a JSON type CloudFormation would refuse there. The
    model builds every view when it is constructed, so bad shapes surface at load, per file.
    ``normalize_name(name)``: lower case, no trailing dot. ``display_value(v)`` renders any value.

Typed views (built once, cached; linear in the number of resources)
    ``model.record_sets(name=None)`` -> ``RecordSetView`` (RecordSetGroup members included; name,
    type, set_identifier, routing_policy, weight, ttl, values, alias_target, health_check_id,
    health_check (``HealthCheckView``: type, ip_address, fqdn, port, resource_path,
    request_interval, failure_threshold), hosted_zone, hosted_zone_name, grpc_marker, label).
    ``model.record_names()``, ``model.health_checks``, ``model.eips`` (``EipView``:
    attachments [(LoadBalancerView, SubnetMappingView)], zone, load_balancers),
    ``model.load_balancers`` (type, scheme, attributes, cross_zone, security_groups,
    subnet_mappings, listeners, zones), ``model.listeners`` (protocol, port, idle_timeout from
    ``tcp.idle_timeout.seconds``, attributes, target_groups), ``model.target_groups``
    (attributes, connection_termination), ``model.security_groups`` (ingress: inline and
    ``AWS::EC2::SecurityGroupIngress``; ``IngressRule.covers_port``), ``model.distributions``
    (origins: ``OriginView`` domain_name, protocol_policy, keepalive_timeout, read_timeout;
    behaviors: ``BehaviorView`` path_pattern, origins, grpc_enabled, allowed_methods,
    cache_policy_id, forwarded_values; http_version).
    The views are read by one module a service (functions of the model, called once):
    ``read_route53`` (health checks, record sets, the caps on record sets), ``read_elb``
    (load balancers, listeners, target groups, EIPs, security groups), ``read_cloudfront``
    (distributions, VPC origins); ``template_model`` indexes the resources and caches the views.

Origins
    ``model.grpc_origin_names()``: (a) DomainName of an origin used by a behavior (default or
    ordered, origin groups followed) with ``GrpcConfig.Enabled``; (b) the name of any record set
    whose Metadata has ``edge-origin:grpc-origin: true`` (``GRPC_ORIGIN_METADATA_KEY``; Route 53
    record sets take no tags; in CDK: ``record.node.default_child.add_metadata(key, True)``).
    ``model.long_lived_origin_names()``: other CloudFront origin names whose records lead to
    load balancers. ``model.origin_names()`` -> ``{name: "grpc" | "long-lived"}``.
    ``model.load_balancers_for_name(name)`` (CNAME and alias chains followed through the answer
    model), ``model.record_load_balancers(record)``, ``model.load_balancers_for_origin(origin)``,
    ``model.grpc_origins()``.

Answers (``zones``)
    ``model.zones`` (``edge_origin.model.zones.TemplateZones``): the hosted zones, record sets
    (identified by zone + name + type + set id), health checks and load balancers as the answer
    model's input (``edge_origin.answers.ZoneSet``); ``model.zones.resolve(name, "A", vantage)``,
    ``name_resolutions(name, cloudfront=...)`` (per zone, from the vantage that sees it),
    ``policy(view)``, ``record(view)``, ``zone(view)``. A ``HostedZone`` with ``VPCs`` is private.

Parameters (``parameters``)
    ``model.routing_choices()``: the non-default ``AllowedValues`` of parameters that decide a
    routing resource (directly or through Conditions), at most 16; ``model.with_choice(choice)``:
    the model deployed with one of them. ``rules.run_rules`` judges each.

Layer 2. May import: core, data, answers, profile, model.
"""

from edge_origin.model.loader import MAX_DEPTH, MAX_TEMPLATE_BYTES, LoadedTemplate
from edge_origin.model.template_model import (
    GRPC_ORIGIN_METADATA_KEY,
    TemplateModel,
    load_model,
    model_from_text,
)
from edge_origin.model.values import ModelError, ResourceRef, Unresolved, display_value, normalize_name
from edge_origin.model.views import (
    CACHING_DISABLED_POLICY_ID,
    ROUTE53_PREFIX_LIST_METADATA_KEY,
    AliasTargetView,
    BehaviorView,
    DistributionView,
    EipView,
    HealthCheckView,
    IngressRule,
    ListenerView,
    LoadBalancerView,
    OriginView,
    Props,
    RecordSetView,
    Resource,
    SecurityGroupView,
    SubnetMappingView,
    TargetGroupView,
    VpcOriginView,
    as_bool,
    as_int,
    props_of,
)

__all__ = [
    "CACHING_DISABLED_POLICY_ID",
    "GRPC_ORIGIN_METADATA_KEY",
    "MAX_DEPTH",
    "ROUTE53_PREFIX_LIST_METADATA_KEY",
    "MAX_TEMPLATE_BYTES",
    "AliasTargetView",
    "BehaviorView",
    "DistributionView",
    "EipView",
    "HealthCheckView",
    "IngressRule",
    "ListenerView",
    "LoadBalancerView",
    "LoadedTemplate",
    "ModelError",
    "OriginView",
    "VpcOriginView",
    "Props",
    "RecordSetView",
    "Resource",
    "ResourceRef",
    "SecurityGroupView",
    "SubnetMappingView",
    "TargetGroupView",
    "TemplateModel",
    "as_bool",
    "as_int",
    "Unresolved",
    "display_value",
    "load_model",
    "model_from_text",
    "normalize_name",
    "props_of",
]
