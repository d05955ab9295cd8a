"""Resolving CloudFormation intrinsic functions as far as the given templates allow.

Resolved: ``Ref`` (resources -> ``ResourceRef``; parameters with a ``Default``; ``AWS::StackName``,
``AWS::URLSuffix``, ``AWS::NoValue``; the environment's pseudo parameters, below), ``Fn::GetAtt`` (-> ``ResourceRef`` with the attribute),
``Fn::Sub``, ``Fn::Join``, ``Fn::Select``, ``Fn::Split``, ``Fn::FindInMap``, ``Fn::If`` /
``Fn::Equals`` / ``Fn::Not`` / ``Fn::And`` / ``Fn::Or`` / ``Condition`` when the condition is
decidable, and ``Fn::ImportValue`` of an ``Export`` in any given template (CDK's cross-stack
references). Everything else becomes ``Unresolved``: parameters without a default, other pseudo
parameters, imports not exported by the given templates, undecidable conditions, ``Fn::GetAZs``,
``Fn::Cidr``, ``Fn::Base64``, ``Fn::Transform``, ``Fn::GetStackOutput`` of a stack not given (one
that is given is followed, below), and any ``Fn::*`` this
module does not know (newer intrinsics: ``Unresolved("unknown", ...)``, so one intrinsic in a
resource no rule reads does not reject the file). ``Fn::Length`` and ``Fn::ToJsonString`` are
resolved when their argument is literal. A known intrinsic of the wrong shape, or a
``Ref``/``GetAtt`` to a missing resource, raises ``ModelError`` (CloudFormation refuses those too),
except in a template with a transform this package cannot expand (a macro may make the
resource): there it is ``Unresolved("transform", ...)``.

Across the assembly (issue 49; the model answers through :class:`AssemblyLinks`): a nested stack's
parameter is the value its parent passes (``Parameters`` of the ``AWS::CloudFormation::Stack``
resource, resolved in the parent); ``Fn::GetAtt [Stack, "Outputs.X"]`` is output ``X`` of the nested
stack, resolved in it; ``Fn::GetAtt [Reader, "/cdk/exports/..."]`` of a
``Custom::CrossRegionExportReader`` is the value a ``Custom::CrossRegionExportWriter`` writes under
that name. ``AWS::Region``, ``AWS::AccountId``, ``AWS::Partition`` and ``AWS::URLSuffix`` come from the
stack's environment (the manifest's) where it is concrete, else stay ``Unresolved("pseudo", ...)``
(``AWS::URLSuffix`` then reads ``amazonaws.com``, as before); a nested stack's ``AWS::StackName`` is
unknown (CloudFormation makes it). ``Fn::GetAZs ""`` is the stack's Region's zones, so ``Fn::Select``
of it matches ``Fn::GetAZs`` of the Region by name.

Bounded work (:mod:`edge_origin.core.limits`): each value node is resolved once per stack (a memo by
identity, so a ``Fn::Sub`` variable used ten times at each of eight levels, a YAML alias used
40,000 times, or a chain of ``Fn::FindInMap`` through Mappings costs its size, not its
expansion); every node visited (memo hits included) is a step, and every character a
``Fn::Join``/``Fn::Sub``/``Fn::Split``/``Fn::ToJsonString`` builds is counted before it is built.
Past ``eval_steps`` or ``eval_chars`` the template is refused with one line naming the limit and
the flag that raises it; a value that refers back to itself (a cycle through Mappings) is refused.
``check`` counts and refuses exactly as ``resolve`` would without building the value (the model checks
the resources no view reads and resolves them when a rule first reads them: ``resolve_checked``).
"""

from __future__ import annotations

import json
import re
import sys
from itertools import compress

from edge_origin.core.limits import current as current_limits
from edge_origin.core.limits import raise_hint, short_repr
from edge_origin.model.values import ModelError, ResourceRef, Unresolved, display_value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from edge_origin.model.assembly import StackEnvironment

KNOWN = frozenset(
    {
        "Ref", "Condition", "Fn::Base64", "Fn::Cidr", "Fn::FindInMap", "Fn::GetAtt", "Fn::GetAZs",
        "Fn::ImportValue", "Fn::Join", "Fn::Select", "Fn::Split", "Fn::Sub", "Fn::Transform",
        "Fn::If", "Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or", "Fn::Length", "Fn::ToJsonString",
        "Fn::GetStackOutput",
    }
)
OPAQUE = frozenset({"Fn::Base64", "Fn::Cidr", "Fn::GetAZs", "Fn::Transform", "Fn::GetStackOutput"})
_NOVALUE = object()
_PENDING = object()
#: What an ``AssemblyLinks`` hook returns when the assembly does not hold the value (the stack is
#: not nested, the parameter not passed): the resolver then reads the template as before.
NOT_LINKED = object()
NESTED_STACK = "AWS::CloudFormation::Stack"
CROSS_REGION_READER = "Custom::CrossRegionExportReader"
#: Types whose ``Fn::GetAtt`` the assembly may answer (``AssemblyLinks``): never the fast path.
_LINKED_TYPES = frozenset({NESTED_STACK, CROSS_REGION_READER})


class AssemblyLinks:
    """Values that cross stacks of one assembly (the model answers; this base answers nothing).

    ``nested_parameter(stack, name)``: the value a parent passes to nested ``stack``'s parameter;
    ``stack_output(stack, logical_id, output)``: ``Outputs.<output>`` of the nested stack behind
    ``stack``'s ``AWS::CloudFormation::Stack`` resource ``logical_id``; ``cross_region_export(stack,
    name)``: the value a ``Custom::CrossRegionExportWriter`` writes under ``name`` for reader stack
    ``stack``; ``ssm_parameter(stack, name)``: the value of the SSM parameter ``name`` an
    ``AWS::SSM::Parameter`` (or a cross-Region export writer) of the assembly puts in ``stack``'s
    Region, read by a parameter of type ``AWS::SSM::Parameter::Value<String>``;
    ``named_stack_output(stack, name, output, region)``: ``Outputs.<output>`` of the assembly's
    stack deployed as ``name`` (in ``region``, None: the reader's), read by ``Fn::GetStackOutput``
    (aws-cdk-lib writes it for cross-account references). Each returns ``NOT_LINKED`` when the
    assembly does not hold the value.
    """

    def nested_parameter(self, stack: str, name: str) -> Any:
        return NOT_LINKED

    def stack_output(self, stack: str, logical_id: str, output: str) -> Any:
        return NOT_LINKED

    def cross_region_export(self, stack: str, name: str) -> Any:
        return NOT_LINKED

    def ssm_parameter(self, stack: str, name: str) -> Any:
        return NOT_LINKED

    def named_stack_output(self, stack: str, name: str, output: str, region: str | None) -> Any:
        return NOT_LINKED


#: ``AWS::Partition`` and ``AWS::URLSuffix`` by Region prefix (the AWS General Reference, "AWS
#: partitions"; botocore's ``data/partitions.json``, ``regionRegex`` and ``outputs.dnsSuffix``: a test
#: holds this table to it): the first prefix that matches wins.
PARTITIONS = (
    ("us-isob-", "aws-iso-b", "sc2s.sgov.gov"),
    ("us-isof-", "aws-iso-f", "csp.hci.ic.gov"),
    ("eu-isoe-", "aws-iso-e", "cloud.adc-e.uk"),
    ("us-iso-", "aws-iso", "c2s.ic.gov"),
    ("us-gov-", "aws-us-gov", "amazonaws.com"),
    ("cn-", "aws-cn", "amazonaws.com.cn"),
    ("eusc-", "aws-eusc", "amazonaws.eu"),
    ("", "aws", "amazonaws.com"),
)


def partition_of(region: str) -> tuple[str, str]:
    """``(partition, URL suffix)`` of a Region name."""
    return next((p, suffix) for prefix, p, suffix in PARTITIONS if region.startswith(prefix))
_SUB = re.compile(r"\$\{([^}]*)\}")
MAX_RESOLVE_DEPTH = 100


def _concrete(value: Any) -> bool:
    if isinstance(value, (ResourceRef, Unresolved)):
        return False
    if isinstance(value, list):
        return all(_concrete(v) for v in value)
    if isinstance(value, dict):
        return all(_concrete(v) for v in value.values())
    return True


#: Longest text of a value kept in an ``Unresolved`` expression (its display is cut, never built whole).
MAX_DISPLAY = 400


def _short(value: Any) -> str:
    """A bounded repr: cut while it is built (a 100 MB argument costs no more than a small one)."""
    return short_repr(value, 60)


def _display(value: Any, limit: int = MAX_DISPLAY) -> str:
    """``display_value`` cut to ``limit`` characters while it is built (lists stop early)."""
    if isinstance(value, list):
        out: list[str] = []
        size = 0
        for item in value:
            if size > limit:
                out.append("...")
                break
            text = _display(item, limit - size)
            out.append(text)
            size += len(text) + 2
        text = ", ".join(out)
    elif isinstance(value, str):
        text = value[: limit + 1]
    else:
        text = display_value(value)
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _json_size(value: Any, cap: int) -> int:
    """Characters ``json.dumps`` would write for ``value``, counted up to just past ``cap``."""
    size = 0
    stack = [value]
    while stack and size <= cap:
        item = stack.pop()
        if isinstance(item, dict):
            size += 2 + sum(len(k) + 4 for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            size += 2 + len(item)
            stack.extend(item)
        else:
            size += len(item) + 2 if isinstance(item, str) else 24
    return size


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _equals(a: Any, b: Any) -> bool:
    """Fn::Equals of two resolved values: scalars compare as text (``true`` equals ``"true"``, 1
    equals ``"1"``); a list or a mapping equals only the same structure, never a string, on either side."""
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return a == b
    return _text(a) == _text(b)


#: Prefixes Route 53 accepts before an Elastic Load Balancing DNS name in an alias target, and
#: which name the same load balancer: "If you're routing traffic to an ELB load balancer ...
#: DNSName: the value ... prefixed with dualstack." (Route 53 API reference, AliasTarget.DNSName);
#: ``ipv6.`` is the Classic Load Balancer's IPv6-only name. aws-cdk-lib's
#: ``route53_targets.LoadBalancerTarget`` / ``ClassicLoadBalancerTarget`` write
#: ``Fn::Join ["", ["dualstack.", GetAtt Lb.DNSName]]``.
ELB_NAME_PREFIXES = ("dualstack.", "ipv6.")


def _names_a_host(attribute: str | None) -> bool:
    """An attribute whose value is a DNS name (DNSName, DomainName, RegionalDomainName, DnsName...)."""
    return attribute is None or "name" in attribute.lower()


def _concat_size(parts: list[Any]) -> tuple[bool, ResourceRef | Unresolved | None, int]:
    """What joining ``parts`` (a Fn::Join / Fn::Sub) makes, before it is built: (all literal, the
    resource it names (``dns_name_parts``) or None, the characters it charges)."""
    if _TEXT_AND_REFERENCES.issuperset(map(type, parts)):  # the common join (a dashboard's body): counted in C
        is_text = list(map(_IS_STR, map(type, parts)))
        text = sum(map(len, compress(parts, is_text)))
        others = refs = len(parts) - sum(is_text)
        numbers = 0
    else:
        text, others, numbers, refs = _sized_one_by_one(parts)
    if not others:
        return True, None, text + 24 * numbers
    named = dns_name_parts(parts) if refs == 1 and not numbers and others == 1 else None
    return False, named, 0 if named is not None else text + (MAX_DISPLAY + 3) * (numbers + others)


#: Exact types of the parts ``_concat_size`` counts in C: text, and the references and unknowns it renders.
_TEXT_AND_REFERENCES = frozenset({str, ResourceRef, Unresolved})
_IS_STR = frozenset({str}).__contains__


def _delimited(delimiter: str, items: list[Any]) -> list[Any]:
    """A Fn::Join's parts: ``items`` with ``delimiter`` between each two (the list itself when there is nothing to add)."""
    if not delimiter or len(items) < 2:
        return items
    parts = [delimiter] * (2 * len(items) - 1)
    parts[::2] = items
    return parts


def _sized_one_by_one(parts: list[Any]) -> tuple[int, int, int, int]:
    """(characters of the strings, parts that are neither strings nor numbers, numbers, references and
    unknowns among the former) of ``parts`` of any types (subclasses included)."""
    text = others = numbers = refs = 0
    for p in parts:
        if p.__class__ is str or isinstance(p, str):
            text += len(p)
        elif isinstance(p, (int, float)) and not isinstance(p, bool):
            numbers += 1
        else:
            others += 1
            refs += isinstance(p, (ResourceRef, Unresolved))
    return text, others, numbers, refs


#: The container types of a JSON tree (exact types: a parsed tree has no subclasses).
_CONTAINERS = frozenset({dict, list})


def _scalars_only(items: Iterable[Any]) -> bool:
    """No mapping or list among ``items`` (the values of a JSON tree: exact types, no subclasses); the
    scan runs in C (``map(type, ...)`` into ``frozenset.isdisjoint``)."""
    return _CONTAINERS.isdisjoint(map(type, items))


def dns_name_parts(parts: list[Any]) -> ResourceRef | Unresolved | None:
    """The resource whose DNS name ``parts`` (a Fn::Join / Fn::Sub, split at its references) spell,
    or None. One reference with nothing around it, a trailing root dot (``name.`` is ``name``), or an
    ELB prefix before a load balancer's ``DNSName`` (case-insensitive, as DNS is) name the
    referenced resource itself; anything else stays a composite."""
    pieces = [p for p in parts if not (isinstance(p, str) and p == "")]
    refs = [i for i, p in enumerate(pieces) if isinstance(p, (ResourceRef, Unresolved))]
    if len(refs) != 1 or not all(isinstance(p, (str, ResourceRef, Unresolved)) for p in pieces):
        return None
    ref = pieces[refs[0]]
    prefix = "".join(pieces[: refs[0]]).lower()
    suffix = "".join(pieces[refs[0] + 1 :])
    if isinstance(ref, Unresolved):
        # the name around an import or parameter the templates do not decide is that value's name:
        # say why it is not known (the import), not that the join is a composite
        return ref if suffix in ("", ".") and prefix in ("", *ELB_NAME_PREFIXES) and ref.reason != "composite" else None
    if suffix not in ("", ".") or (suffix and not _names_a_host(ref.attribute)):
        return None
    if not prefix:
        return ref
    if prefix in ELB_NAME_PREFIXES and ref.attribute == "DNSName":
        return ref
    return None


def _simple_getatt(key: str, arg: Any, resources: dict[str, Any]) -> bool:
    """Whether ``{key: arg}`` is a ``Fn::GetAtt`` the fast path takes (``StackResolver._simple_reference``
    makes its reference; ``check`` only counts it): ``[Resource, "Attr"]`` of a resource of this template
    that is not a nested stack or a cross-Region export reader."""
    if key != "Fn::GetAtt" or arg.__class__ is not list or len(arg) != 2:
        return False
    logical_id, attribute = arg
    if logical_id.__class__ is not str or attribute.__class__ is not str or not attribute:
        return False
    body = resources.get(logical_id)
    return body.__class__ is dict and body.get("Type") not in _LINKED_TYPES


class StackResolver:
    """Resolves values inside one stack. ``import_value(name)`` comes from the model (all stacks)."""

    def __init__(
        self,
        stack: str,
        template: str,
        body: dict[str, Any],
        import_value: Callable[[str], Any],
        *,
        environment: StackEnvironment | None = None,
        links: AssemblyLinks | None = None,
        nested: bool = False,
        tree: bool = False,
    ) -> None:
        """``environment``: the stack's account and Region (``AWS::AccountId``, ``AWS::Region``,
        ``AWS::Partition``, ``AWS::URLSuffix``); ``links``: values across the assembly's stacks;
        ``nested``: a nested stack (its ``AWS::StackName`` is made at deploy time); ``tree``: no node of
        ``body`` is reachable twice (JSON text), so only intrinsics are memoised."""
        from edge_origin.model.transforms import unexpanded

        self.stack = stack
        self.template = template
        #: A macro this package cannot expand may create resources: missing refs are then unknown.
        self.lenient = bool(unexpanded(body))
        self.resources: dict[str, Any] = body.get("Resources") or {}
        self.parameters: dict[str, Any] = body.get("Parameters") or {}
        self.mappings: dict[str, Any] = body.get("Mappings") or {}
        self.conditions: dict[str, Any] = body.get("Conditions") or {}
        self._import_value = import_value
        self.account = environment.account if environment is not None else None
        self.region = environment.region if environment is not None else None
        self.links = links or AssemblyLinks()
        self.nested = nested
        self._condition_cache: dict[str, bool | None] = {}
        self._where = ""
        limits = current_limits()
        self._max_steps = limits.eval_steps
        self._max_chars = limits.eval_chars
        self._steps = 0
        self._chars = 0
        #: id(node) -> (node, its resolved value); the node is kept so its id is never reused.
        self._memo: dict[int, tuple[Any, Any]] = {}
        #: (logical id, attribute) -> its ResourceRef (``_simple_reference``: one object each)
        self._references: dict[tuple[str, str | None], ResourceRef] = {}
        #: logical id -> the ResourceRef of ``{"Ref": id}`` (a resource of this template)
        self._ref_of: dict[str, ResourceRef] = {}
        #: ``body`` is a tree (``LoadedTemplate.tree``): its plain containers are not memoised
        self.tree = tree

    # --- public -----------------------------------------------------------------------------
    def resolve(self, value: Any, where: str = "") -> Any:
        """Resolve every intrinsic inside ``value``; ``where`` (a logical id) names errors."""
        self._where = where
        out = self._resolve(value, 0)
        return None if out is _NOVALUE else out

    def resolve_mapping(self, value: dict[str, Any], where: str) -> Any:
        """``resolve(value, where)`` of a plain mapping of a tree of more or fewer keys than one (a resource's
        Properties that is no intrinsic), with the root's ``_resolve`` inlined (the same step, test and walk)."""
        self._where = where
        self._steps += 1
        if self._steps > self._max_steps:
            raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")
        return self._resolve_tree(value, 0)  # (a leaf comes back as it is: a resource's Properties seldom is one)

    def check(self, value: Any, where: str = "") -> None:
        """Raise what ``resolve(value, where)`` would raise, building nothing, and count the steps and
        characters it would count: plain containers and the simple references (``_simple_reference``)
        are walked and depth checked, a ``Fn::Join`` is sized, not built (``_joined_quickly``), every
        other intrinsic is resolved (memoised: a later ``resolve`` finds it). After it returns, ``resolve_checked(value)`` raises nothing (the model's deferred resources
        rest on it). A node shared by a plain container and an intrinsic (YAML aliases) may be walked
        by both: at most twice, never more."""
        self._where = where
        if not isinstance(value, (dict, list)):
            return
        seen: set[int] = set()
        if self.tree:  # no node reached twice: walked by recursion, as _resolve_tree resolves
            self._check_tree([value], -1, seen)  # the root as the one child of an uncounted list
            return
        memo, limit, steps, tree = self._memo, self._max_steps, self._steps, self.tree
        todo: list[tuple[Any, int]] = [(value, 0)]
        push = todo.append
        while todo:
            node, depth = todo.pop()
            if depth > MAX_RESOLVE_DEPTH:  # first, as in _resolve, for every node
                self._steps = steps
                raise self._error(f"nested deeper than {MAX_RESOLVE_DEPTH} levels")
            if isinstance(node, dict):
                if len(node) == 1:
                    (key, arg), = node.items()
                    if key == "Ref" or key.startswith("Fn::") or (key == "Condition" and isinstance(arg, str)):
                        if node.__class__ is not dict or self._simple_reference(node) is None:
                            self._steps = steps
                            self._check_intrinsic(node, key, arg, depth, seen)
                            steps = self._steps
                            continue
                        steps += 1  # a simple reference: one step, nothing below it is walked
                        if steps > limit:
                            break
                        continue
                items = node.values()
            else:
                items = node
            steps += 1
            if steps > limit:
                break
            if not tree:  # a node seen before is a step (a memo hit in resolve), not walked again
                if id(node) in seen or id(node) in memo:
                    continue
                seen.add(id(node))
            depth += 1
            for item in reversed(items):  # pushed last first: popped in document order, as resolve walks
                if isinstance(item, (dict, list)):
                    push((item, depth))
        self._steps = steps
        if steps > limit:
            raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")

    def check_mapping(self, value: dict[str, Any], where: str) -> None:
        """``check(value, where)`` of a plain mapping of a tree (one that is no intrinsic: a resource's
        Properties), with the root's step and leaf test inlined."""
        self._where = where
        self._steps += 1
        if self._steps > self._max_steps:
            raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")
        for child in value.values():
            if type(child) in _CONTAINERS:
                self._check_tree(value, 0, set())
                return

    def _check_tree(self, node: dict[str, Any] | list[Any], depth: int, seen: set[int]) -> None:
        """``check`` of the children of a plain container of a tree (counted and depth checked by the
        caller, which found a container among them), in document order: the same steps, errors and order as the walk below (each child
        container is depth checked, then a simple reference counts one step and is not walked, another
        intrinsic is checked by ``_check_intrinsic``, a plain container counts one step and is walked).
        The steps are counted in a local and written back before anything else reads them (a call out, an error)."""
        values = node.values() if type(node) is dict else node  # type: ignore[union-attr]
        below, limit, resources = depth + 1, self._max_steps, self.resources
        steps = self._steps
        for item in values:
            cls = type(item)  # (a call of type is the cheaper look-up in 3.11)
            if cls is not dict and cls is not list:
                continue
            if below > MAX_RESOLVE_DEPTH:
                self._steps = steps
                raise self._error(f"nested deeper than {MAX_RESOLVE_DEPTH} levels")
            if cls is list:
                steps += 1
                if steps > limit:
                    self._steps = steps
                    raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")
                if item:  # walked without a leaf test (a leaf's walk finds no container: the same steps)
                    self._steps = steps
                    self._check_tree(item, below, seen)
                    steps = self._steps
                continue
            if len(item) == 1:
                ((key, arg),) = item.items()
                if key == "Ref" or key.startswith("Fn::") or (key == "Condition" and type(arg) is str):
                    if not (type(arg) is str and arg in resources if key == "Ref" else _simple_getatt(key, arg, resources)):
                        self._steps = steps
                        self._check_intrinsic(item, key, arg, below, seen)  # not a simple reference
                        steps = self._steps
                        continue
                    steps += 1  # a simple reference: one step, nothing below it is walked
                    if steps > limit:
                        self._steps = steps
                        raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")
                    continue
            steps += 1
            if steps > limit:
                self._steps = steps
                raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")
            for child in item.values():  # a leaf (JSON values only) is done
                if type(child) in _CONTAINERS:
                    self._steps = steps
                    self._check_tree(item, below, seen)
                    steps = self._steps
                    break
        self._steps = steps

    def _check_intrinsic(self, node: dict[str, Any], key: str, arg: Any, depth: int, seen: set[int]) -> None:
        """``check`` of an intrinsic other than a simple reference: a Join is sized, any other resolved."""
        if id(node) in seen:  # a Join the fast path counted before: a step, as a memo hit is
            self._count_step()
        elif key != "Fn::Join" or not self._joined_quickly(node, arg, depth):
            self._resolve(node, depth)  # counted, memoised and charged there
        else:
            seen.add(id(node))

    def resolve_checked(self, value: Any, where: str = "") -> Any:
        """``resolve`` of a value ``check`` passed: its steps and characters were counted there (the
        same count), not again."""
        steps, chars, limits = self._steps, self._chars, (self._max_steps, self._max_chars)
        self._max_steps = self._max_chars = sys.maxsize
        try:
            return self.resolve(value, where)
        finally:
            self._steps, self._chars, (self._max_steps, self._max_chars) = steps, chars, limits

    def pending(self, value: Any) -> bool:
        """Whether ``value`` (a node of this template) is being resolved right now: a value read
        across stacks that comes back to it is a cycle (the model answers it as unknown)."""
        hit = self._memo.get(id(value))
        return hit is not None and hit[1] is _PENDING

    def condition_for(self, name: str, where: str) -> bool | None:
        """``condition(name)`` with errors naming ``where`` (the resource that uses it)."""
        self._where = where
        return self.condition(name)

    def condition(self, name: str) -> bool | None:
        """The value of a named condition, or None when the templates cannot decide it."""
        if name in self._condition_cache:
            return self._condition_cache[name]
        if name not in self.conditions:
            raise self._error(f"Condition {name!r} is not defined")
        self._condition_cache[name] = None  # cycle guard
        result = self._truth(self._resolve(self.conditions[name], 0))
        self._condition_cache[name] = result
        return result

    # --- internals --------------------------------------------------------------------------
    def _error(self, problem: str) -> ModelError:
        where = f"{self.template}: {self._where}: " if self._where else f"{self.template}: "
        return ModelError(where + problem)

    def _charge(self, chars: int) -> None:
        """Count ``chars`` characters about to be built; refuse past the budget."""
        self._chars += chars
        if self._chars > self._max_chars:
            raise self._error(
                f"intrinsic functions build too many characters {raise_hint('eval_chars')}"
            )

    def _resolve(self, value: Any, depth: int) -> Any:
        """One value, memoised by identity and counted against the step budget."""
        if depth > MAX_RESOLVE_DEPTH:
            raise self._error(f"nested deeper than {MAX_RESOLVE_DEPTH} levels")
        if not isinstance(value, (dict, list)):
            return value
        self._steps += 1
        if self._steps > self._max_steps:
            raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")
        if value.__class__ is dict and len(value) == 1:
            simple = self._simple_reference(value)
            if simple is not None:
                return simple
        elif self.tree:  # a plain container of a tree is reached once: no memo (a 1-key mapping takes it)
            if _CONTAINERS.isdisjoint(map(type, value.values() if value.__class__ is dict else value)):
                return value  # JSON values only: nothing below to resolve
            return self._resolve_tree(value, depth)
        return self._resolve_memo(value, depth)

    def _resolve_memo(self, value: Any, depth: int) -> Any:
        """``_resolve`` of a container that may be reached twice (an intrinsic, or any node of a
        template that is not a tree), once counted: memoised by identity, cycles refused."""
        key = id(value)
        hit = self._memo.get(key)
        if hit is not None:
            if hit[1] is _PENDING:
                raise self._error("a value refers back to itself (a cycle through Mappings or aliases)")
            return hit[1]
        self._memo[key] = (value, _PENDING)
        try:
            out = self._resolve_node(value, depth)
        except BaseException:
            del self._memo[key]
            raise
        self._memo[key] = (value, out)
        return out

    def _simple_reference(self, value: dict[str, Any]) -> ResourceRef | None:
        """The fast path of the commonest intrinsics: ``{"Ref": Resource}`` and ``{"Fn::GetAtt":
        [Resource, "Attr"]}`` of a resource of this template (not a nested stack or a cross-Region
        export reader, whose attributes the assembly answers), as ``_intrinsic`` resolves them, one
        ``ResourceRef`` per (resource, attribute); None for anything else (the general path)."""
        ((key, arg),) = value.items()
        if key == "Ref":
            if type(arg) is not str:
                return None
            ref = self._ref_of.get(arg)
            if ref is None:
                if arg not in self.resources:
                    return None
                ref = self._ref_of[arg] = ResourceRef(self.stack, arg, None)
            return ref
        if key != "Fn::GetAtt" or type(arg) is not list or len(arg) != 2:
            return None
        logical_id, attribute = arg
        if type(logical_id) is not str or type(attribute) is not str:
            return None
        ref = self._references.get((logical_id, attribute))  # made before: _simple_getatt passed then
        if ref is None:
            body = self.resources.get(logical_id)  # _simple_getatt's test, the types known already
            if not attribute or type(body) is not dict or body.get("Type") in _LINKED_TYPES:
                return None
            ref = self._references[(logical_id, attribute)] = ResourceRef(self.stack, logical_id, attribute)
        return ref

    def _resolve_tree(self, value: dict[str, Any] | list[Any], depth: int) -> Any:
        """``_resolve_node`` of a plain container of a tree (counted and depth checked by the caller),
        with ``_resolve`` of each child container inlined: the hot loop of resolving a parsed JSON
        template (same steps, same errors, same order, same copy on change). The caller found a container
        among its children (a leaf is returned as it is before this is called), or it is a resource's Properties
        (``resolve_mapping``: a leaf comes back as it is, nothing changed)."""
        is_dict = value.__class__ is dict  # never a mapping of one key: _resolve memoises those
        pairs = value.items() if is_dict else enumerate(value)  # type: ignore[union-attr]
        below = depth + 1
        if below > MAX_RESOLVE_DEPTH:
            raise self._error(f"nested deeper than {MAX_RESOLVE_DEPTH} levels")
        changed: list[tuple[Any, Any]] | None = None  # (key or index, resolved) of the children that changed
        limit = self._max_steps  # (self._simple_reference called as a method: no bound method made per call)
        for key, item in pairs:
            cls = type(item)  # (not item.__class__: a call of type is the cheaper look-up in 3.11)
            if cls is not dict and cls is not list:
                continue
            self._steps += 1
            if self._steps > limit:
                raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")
            if cls is list:
                if below >= MAX_RESOLVE_DEPTH:  # its items are as deep as may be: walked only when one is a container
                    for child in item:
                        if type(child) in _CONTAINERS:
                            break
                    else:
                        continue  # a leaf: JSON values only, returned as it is
                # else walked without a leaf test (a list of a template seldom is a leaf: one comes back as it is)
                resolved = self._resolve_tree(item, below)
            elif len(item) == 1:
                resolved = self._simple_reference(item)
                if resolved is None:
                    resolved = self._resolve_memo(item, below)
            else:
                for child in item.values():
                    if type(child) in _CONTAINERS:
                        break
                else:
                    continue
                resolved = self._resolve_tree(item, below)
            if resolved is not item:
                if changed is None:
                    changed = []
                changed.append((key, resolved))
        if changed is None:
            return value
        if is_dict:
            out = dict(value)
            for key, resolved in changed:
                if resolved is _NOVALUE:
                    del out[key]
                else:
                    out[key] = resolved
            return out
        items = list(value)
        for index, resolved in reversed(changed):
            if resolved is _NOVALUE:
                del items[index]
            else:
                items[index] = resolved
        return items

    def _resolve_node(self, value: Any, depth: int) -> Any:
        if isinstance(value, dict):
            if len(value) == 1:
                (key, arg), = value.items()
                if key == "Ref" or key == "Condition" or key.startswith("Fn::"):
                    if key == "Condition" and not isinstance(arg, str):
                        pass  # a property named Condition, not the intrinsic
                    else:
                        return self._intrinsic(key, arg, depth + 1)
            # Copy on change: a mapping with no intrinsic inside is returned as it is (the model
            # never mutates properties), which halves the memory of a large template.
            if self.tree and _scalars_only(value.values()):
                return value  # JSON values only (exact types): nothing below to resolve
            out: dict[str, Any] | None = None
            for i, (key, item) in enumerate(value.items()):
                if not isinstance(item, (dict, list)):
                    if out is not None:
                        out[key] = item
                    continue
                resolved = self._resolve(item, depth + 1)
                if out is None and resolved is not item:
                    out = dict(list(value.items())[:i])
                if out is not None and resolved is not _NOVALUE:
                    out[key] = resolved
            return value if out is None else out
        if isinstance(value, list):
            if self.tree and _scalars_only(value):
                return value
            items: list[Any] | None = None
            for i, item in enumerate(value):
                if not isinstance(item, (dict, list)):
                    if items is not None:
                        items.append(item)
                    continue
                resolved = self._resolve(item, depth + 1)
                if items is None and resolved is not item:
                    items = value[:i]
                if items is not None and resolved is not _NOVALUE:
                    items.append(resolved)
            return value if items is None else items
        return value

    def _intrinsic(self, key: str, arg: Any, depth: int) -> Any:
        if key not in KNOWN:  # an Fn::* this module does not know (Ref and Condition are known)
            inner = self._resolve(arg, depth)
            return Unresolved("unknown", f"{key}({_display(inner, 200)[:80]})")
        if key == "Ref":
            return self._ref(self._resolve(arg, depth))
        if key == "Fn::GetAtt":
            return self._getatt(arg, depth)
        if key == "Fn::Sub":
            return self._sub(arg, depth)
        if key == "Fn::Join":
            return self._join(arg, depth)
        if key == "Fn::Select":
            return self._select(arg, depth)
        if key == "Fn::Split":
            return self._split(arg, depth)
        if key == "Fn::ImportValue":
            name = self._resolve(arg, depth)
            if not isinstance(name, str):
                return Unresolved("import", f"Fn::ImportValue {_display(name)}")
            return self._import_value(name)
        if key == "Fn::FindInMap":
            return self._find_in_map(arg, depth)
        if key == "Fn::If":
            return self._if(arg, depth)
        if key in ("Condition", "Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or"):
            return self._condition_expr(key, arg, depth)
        if key == "Fn::Length":
            inner = self._resolve(arg, depth)
            if isinstance(inner, list):
                return len(inner)
            if isinstance(inner, (dict, str, int, float, bool)) or inner is None:
                raise self._error(f"Fn::Length needs a list, got {_short(arg)}")
            return Unresolved("other", f"Fn::Length({_display(inner)})")
        if key == "Fn::ToJsonString":
            inner = self._resolve(arg, depth)
            if isinstance(inner, (dict, list)) and _concrete(inner):
                self._charge(_json_size(inner, self._max_chars - self._chars))
                return json.dumps(inner, separators=(",", ":"))
            if not isinstance(inner, (dict, list, ResourceRef, Unresolved)):
                raise self._error(f"Fn::ToJsonString needs a mapping or a list, got {_short(arg)}")
            return Unresolved("other", "Fn::ToJsonString(...)")
        # OPAQUE: keep a readable form; resolve the argument to catch errors inside it.
        inner = self._resolve(arg, depth)
        if key == "Fn::GetStackOutput" and isinstance(inner, dict):
            # {StackName, OutputName, Region?, RoleArn?}: another stack's output, no export needed (CloudFormation
            # template reference, Fn::GetStackOutput); Region defaults to the reading stack's
            name, output, region = inner.get("StackName"), inner.get("OutputName"), inner.get("Region")
            if isinstance(name, str) and isinstance(output, str) and (region is None or isinstance(region, str)):
                linked = self.links.named_stack_output(self.stack, name, output, region)
                if linked is not NOT_LINKED:
                    return linked
        if key == "Fn::GetAZs" and inner == "" and self.region:
            inner = self.region  # "" is the stack's Region: the same zones as GetAZs of it by name
        return Unresolved("other", f"{key}({_display(inner)})")

    def _ref(self, name: Any) -> Any:
        if not isinstance(name, str):
            raise self._error(f"Ref needs a name, got {_short(_display(name))}")
        if name in self.resources:
            return ResourceRef(self.stack, name, None)
        if name in self.parameters:
            param = self.parameters[name] or {}
            ptype = str(param.get("Type", ""))
            passed = self.links.nested_parameter(self.stack, name)
            if passed is not NOT_LINKED and not ptype.startswith(("AWS::SSM::", "List<AWS::SSM::")):
                if isinstance(passed, str) and (ptype.startswith("List<") or ptype == "CommaDelimitedList"):
                    return [part.strip() for part in passed.split(",")]
                return passed
            if ptype.startswith(("AWS::SSM::Parameter::Value<", "List<AWS::SSM::Parameter::Value<")):
                named = passed if passed is not NOT_LINKED else param.get("Default")
                if ptype == "AWS::SSM::Parameter::Value<String>" and isinstance(named, str):
                    linked = self.links.ssm_parameter(self.stack, named)
                    if linked is not NOT_LINKED:
                        return linked
                return Unresolved("parameter", f"Ref {name} (SSM parameter value)")  # the Default names it
            if "Default" in param:
                default = param["Default"]
                if isinstance(default, str) and (ptype.startswith("List<") or ptype == "CommaDelimitedList"):
                    self._charge(len(default) + 50 * default.count(","))
                    return [part.strip() for part in default.split(",")]
                return default
            return Unresolved("parameter", f"Ref {name}")
        if name == "AWS::NoValue":
            return _NOVALUE
        if name == "AWS::StackName":
            return Unresolved("pseudo", name) if self.nested else self.stack
        if name == "AWS::URLSuffix":
            return partition_of(self.region)[1] if self.region else "amazonaws.com"
        if name == "AWS::Region" and self.region:
            return self.region
        if name == "AWS::Partition" and self.region:
            return partition_of(self.region)[0]
        if name == "AWS::AccountId" and self.account:
            return self.account
        if name.startswith("AWS::"):
            return Unresolved("pseudo", name)
        if self.lenient:
            return Unresolved("transform", f"Ref {name}")
        raise self._error(f"Ref to {name!r}: no such resource or parameter in the template")

    def _getatt(self, arg: Any, depth: int) -> Any:
        if isinstance(arg, str):
            logical_id, _, attribute = arg.partition(".")
        elif isinstance(arg, list) and len(arg) == 2:
            logical_id = arg[0]
            attribute = self._resolve(arg[1], depth)
        else:
            raise self._error(f"Fn::GetAtt needs [LogicalId, Attribute], got {_short(arg)}")
        if isinstance(logical_id, str) and logical_id not in self.resources and self.lenient:
            return Unresolved("transform", f"Fn::GetAtt {logical_id}.{_display(attribute)}")
        if not isinstance(logical_id, str) or logical_id not in self.resources:
            raise self._error(f"Fn::GetAtt of {logical_id!r}: no such resource in the template")
        if not isinstance(attribute, str) or not attribute:
            return Unresolved("other", f"Fn::GetAtt {logical_id}.{_display(attribute)}")
        kind = self.resources[logical_id].get("Type") if isinstance(self.resources[logical_id], dict) else None
        if kind == NESTED_STACK and attribute.startswith("Outputs."):
            linked = self.links.stack_output(self.stack, logical_id, attribute[len("Outputs.") :])
            if linked is not NOT_LINKED:
                return linked
            # its template is not in the given templates: an output no template here decides
            return Unresolved("nested", f"{self.stack}/{logical_id}.{attribute}")
        elif kind == CROSS_REGION_READER:
            linked = self.links.cross_region_export(self.stack, attribute)
            if linked is not NOT_LINKED:
                return linked
        return ResourceRef(self.stack, logical_id, attribute)

    def _sub(self, arg: Any, depth: int) -> Any:
        if isinstance(arg, str):
            text, variables = arg, {}
        elif isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str) and isinstance(arg[1], dict):
            text, variables = arg[0], arg[1]
        else:
            raise self._error(f"Fn::Sub needs a string or [string, mapping], got {_short(arg)}")
        parts: list[Any] = []
        last = 0
        for match in _SUB.finditer(text):
            parts.append(text[last : match.start()])
            last = match.end()
            name = match.group(1)
            if name.startswith("!"):
                parts.append("${" + name[1:] + "}")
            elif name in variables:
                parts.append(self._resolve(variables[name], depth))
            elif "." in name and name.split(".", 1)[0] in self.resources:
                parts.append(self._getatt(name, depth))
            else:
                parts.append(self._ref(name.strip()))
        parts.append(text[last:])
        return self._concat(parts, "Fn::Sub")

    def _concat(self, parts: list[Any], fn: str, *, build: bool = True) -> Any:
        """The text ``parts`` join to (a ``Unresolved("composite")`` when a part is not literal), or
        the resource a DNS name of them names; ``build=False``: charged, nothing built (None)."""
        literal, named, chars = _concat_size(parts)
        if named is not None:
            return named
        self._charge(chars)
        if not build:
            return None
        if literal:
            return "".join(_text(p) for p in parts)
        rendered = "".join(p if isinstance(p, str) else "${" + _display(p) + "}" for p in parts)
        return Unresolved("composite", rendered)

    def _count_step(self, steps: int = 1) -> None:
        self._steps += steps
        if self._steps > self._max_steps:
            raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")

    def _joined_quickly(self, node: dict[str, Any], arg: Any, depth: int) -> bool:
        """``check``'s path for a ``Fn::Join`` (a CloudWatch dashboard body, an ARN): counted and
        charged as ``resolve`` counts and charges it, its text not built (nor memoised: a later read
        builds it); False, nothing counted, where the general path must run (memoised before)."""
        if id(node) in self._memo:
            return False
        if depth > MAX_RESOLVE_DEPTH:
            raise self._error(f"nested deeper than {MAX_RESOLVE_DEPTH} levels")
        self._count_step()
        if not self._join_sized(arg, depth + 1):
            self._join(arg, depth + 1, build=False)
        return True

    def _join_sized(self, arg: Any, depth: int) -> bool:
        """``_join(arg, depth, build=False)`` of the common Join of a parsed tree (a literal delimiter, a list
        written out with containers in it): the same steps, characters and errors in the same order, the list's
        simple references counted (made only when the text may name one), its other containers resolved as
        ``_resolve_tree`` resolves them, nothing joined; False, nothing done, for any other Join."""
        if not (self.tree and arg.__class__ is list and len(arg) == 2 and arg[0].__class__ is str):
            return False
        delimiter, items = arg
        if items.__class__ is not list or depth + 1 > MAX_RESOLVE_DEPTH or _CONTAINERS.isdisjoint(map(type, items)):
            return False  # not written out, refused for its depth, or literal: _join's own path
        self._count_step()  # _resolve of the list
        below, limit, resources = depth + 1, self._max_steps, self.resources
        parts: list[Any] = []  # the list as _resolve_tree makes it (a simple reference as written: made if needed)
        # counted as _sized_one_by_one counts, in the resolving pass (a second pass over the parts costs as much as
        # this path saves: +22M instructions at 10k resources)
        text = numbers = others = refs = 0
        steps = self._steps  # counted in a local, written back before anything else reads it (a call out, an error)
        for item in items:
            cls = type(item)
            if cls is str:  # the common part: a literal text
                parts.append(item)
                text += len(item)
                continue
            if cls is dict or cls is list:
                steps += 1
                if steps > limit:
                    self._steps = steps
                    raise self._error(f"intrinsic evaluation takes too many steps {raise_hint('eval_steps')}")
                if cls is dict and len(item) == 1:
                    ((key, value),) = item.items()
                    if value in resources if key == "Ref" and type(value) is str else _simple_getatt(key, value, resources):
                        parts.append(item)
                        others += 1
                        refs += 1
                        continue
                    self._steps = steps
                    item = self._resolve_memo(item, below)
                    steps = self._steps
                elif not _CONTAINERS.isdisjoint(map(type, item.values() if cls is dict else item)):
                    self._steps = steps
                    item = self._resolve_tree(item, below)
                    steps = self._steps
                if item is _NOVALUE:
                    continue  # Ref AWS::NoValue: not in the list
                cls = type(item)
            parts.append(item)
            if cls is str or isinstance(item, str):
                text += len(item)
            elif isinstance(item, (int, float)) and not isinstance(item, bool):
                numbers += 1
            else:
                others += 1
                refs += isinstance(item, (ResourceRef, Unresolved))
        self._steps = steps
        if delimiter and len(parts) > 1:
            text += len(delimiter) * (len(parts) - 1)
        if not others:
            self._charge(text + 24 * numbers)
        elif refs == 1 and not numbers and others == 1:  # the text may name one resource: _concat decides
            made = [self._simple_reference(p) if p.__class__ is dict else p for p in parts]
            self._concat(_delimited(delimiter, made), "Fn::Join", build=False)
        else:
            self._charge(text + (MAX_DISPLAY + 3) * (numbers + others))
        return True

    def _join(self, arg: Any, depth: int, *, build: bool = True) -> Any:
        if not (isinstance(arg, list) and len(arg) == 2):
            raise self._error(f"Fn::Join needs [delimiter, [values]], got {_short(arg)}")
        delimiter = self._resolve(arg[0], depth)
        items = self._resolve(arg[1], depth)
        if not isinstance(delimiter, str):
            return Unresolved("composite", f"Fn::Join {_display(items)}")
        if not isinstance(items, list):
            return Unresolved("composite", f"Fn::Join {_display(items)}")
        return self._concat(_delimited(delimiter, items), "Fn::Join", build=build)

    def _select(self, arg: Any, depth: int) -> Any:
        if not (isinstance(arg, list) and len(arg) == 2):
            raise self._error(f"Fn::Select needs [index, [values]], got {_short(arg)}")
        index = self._resolve(arg[0], depth)
        items = self._resolve(arg[1], depth)
        try:
            i = int(index)
        except (TypeError, ValueError, OverflowError):
            return Unresolved("other", f"Fn::Select {_display(index)}")
        if isinstance(items, list):
            if 0 <= i < len(items):
                return items[i]
            raise self._error(f"Fn::Select index {i} out of range (list has {len(items)} items)")
        return Unresolved("other", f"{_display(items).strip('<>')}[{i}]")

    def _split(self, arg: Any, depth: int) -> Any:
        if not (isinstance(arg, list) and len(arg) == 2):
            raise self._error(f"Fn::Split needs [delimiter, string], got {_short(arg)}")
        delimiter = self._resolve(arg[0], depth)
        source = self._resolve(arg[1], depth)
        if isinstance(delimiter, str) and isinstance(source, str) and delimiter:
            self._charge(len(source) + 50 * source.count(delimiter))  # each piece is a new object too
            return source.split(delimiter)
        return Unresolved("other", f"Fn::Split {_display(source)}")

    def _find_in_map(self, arg: Any, depth: int) -> Any:
        if not (isinstance(arg, list) and len(arg) in (3, 4)):
            raise self._error(f"Fn::FindInMap needs [map, key, key], got {_short(arg)}")
        keys = [self._resolve(a, depth) for a in arg[:3]]
        if all(isinstance(k, str) for k in keys):
            try:
                return self._mapped(self.mappings[keys[0]][keys[1]][keys[2]], keys)
            except (KeyError, TypeError):
                if len(arg) == 4 and isinstance(arg[3], dict) and "DefaultValue" in arg[3]:
                    return self._resolve(arg[3]["DefaultValue"], depth)
                raise self._error(f"Fn::FindInMap: no entry {keys[0]}/{keys[1]}/{keys[2]} in Mappings") from None
        return Unresolved("other", "Fn::FindInMap " + "/".join(_display(k) for k in keys))

    def _mapped(self, value: Any, keys: list[str]) -> Any:
        """A Mappings value as written: "The values can be of type String or List. You can't include
        parameters, pseudo parameters, or intrinsic functions in the Mappings section" (CloudFormation
        User Guide, Mappings syntax), so a value is never evaluated (no chain, no cycle, no blow-up)."""
        items = value if isinstance(value, list) else [value]
        self._steps += len(items)
        if any(isinstance(item, (dict, list)) for item in items):
            raise self._error(
                f"Mappings.{'.'.join(k[:40] for k in keys)} holds a {'list of lists or mappings' if isinstance(value, list) else 'mapping'}: "
                "mapping values are strings or lists of strings, never intrinsic functions (CloudFormation Mappings syntax)"
            )
        return value

    def _truth(self, value: Any) -> bool | None:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return None

    def _condition_expr(self, key: str, arg: Any, depth: int) -> Any:
        if key == "Condition":  # its argument is a name: _resolve reads any other as a plain mapping
            result = self.condition(arg)
            return Unresolved("condition", f"Condition {arg}") if result is None else result
        args = self._resolve(arg, depth)
        if not isinstance(args, list):
            raise self._error(f"{key} needs a list, got {_short(arg)}")
        if key == "Fn::Not" and len(args) != 1:
            raise self._error("Fn::Not needs a list of one condition")
        if key in ("Fn::And", "Fn::Or") and not 2 <= len(args) <= 10:
            raise self._error(f"{key} needs 2 to 10 conditions, got {len(args)}")
        if key == "Fn::Equals":
            if len(args) != 2:
                raise self._error("Fn::Equals needs two values")
            if _concrete(args[0]) and _concrete(args[1]):
                return _equals(args[0], args[1])
            return Unresolved("condition", f"Fn::Equals {_display(args)}")
        truths = [self._truth(a) for a in args]
        if key == "Fn::Not":
            return Unresolved("condition", "Fn::Not") if truths[0] is None else not truths[0]
        if key == "Fn::And":
            if any(t is False for t in truths):
                return False
            return Unresolved("condition", "Fn::And") if any(t is None for t in truths) else True
        if any(t is True for t in truths):  # Fn::Or
            return True
        return Unresolved("condition", "Fn::Or") if any(t is None for t in truths) else False

    def _if(self, arg: Any, depth: int) -> Any:
        if not (isinstance(arg, list) and len(arg) == 3 and isinstance(arg[0], str)):
            raise self._error(f"Fn::If needs [condition, then, else], got {_short(arg)}")
        result = self.condition(arg[0])
        if result is None:
            return Unresolved("condition", f"Fn::If {arg[0]}")
        return self._resolve(arg[1] if result else arg[2], depth)
