"""Rewrites of a template that CloudFormation deploys as the same resources (issue 49's property).

Each takes one stack's template and a set of logical ids and returns ``LoadedTemplate`` objects:

- ``nest``: the ids move into a nested stack (``AWS::CloudFormation::Stack``); what the child reads
  from the parent is passed as ``Parameters``, what the parent reads from the child is
  ``Fn::GetAtt [Stack, "Outputs.X"]`` of an output the child declares (as aws-cdk-lib writes them);
- ``split``: the ids move into a second top-level stack, read back through ``Export``/
  ``Fn::ImportValue`` (``regions=False``) or a ``Custom::CrossRegionExportWriter`` in the producer and
  a ``Custom::CrossRegionExportReader`` in the consumer (``regions=True``), in both directions;
- ``map_literals``: the chosen literal strings of properties come from ``Fn::FindInMap [Values,
  {Ref: AWS::Region}, Kn]`` (another Region's row holds other values).

Only ``Ref`` and ``Fn::GetAtt`` cross stacks here (the corpus templates hold no ``Fn::Sub``).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from edge_origin.model.assembly import StackEnvironment
from edge_origin.model.loader import LoadedTemplate

INTRINSIC = re.compile(r"^(Ref|Condition|Fn::.+)$")


def _walk(value: Any, swap: Any) -> Any:
    """``value`` with every Ref/GetAtt replaced by ``swap(logical_id, attribute)`` where it returns
    something (None: keep)."""
    if isinstance(value, dict):
        if len(value) == 1:
            (key, arg), = value.items()
            if key == "Ref" and isinstance(arg, str):
                out = swap(arg, None)
                return value if out is None else out
            if key == "Fn::GetAtt":
                logical_id, attribute = arg.split(".", 1) if isinstance(arg, str) else arg
                out = swap(logical_id, attribute)
                return value if out is None else out
        return {k: _walk(v, swap) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, swap) for v in value]
    return value


def _name(logical_id: str, attribute: str | None) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", f"{logical_id}{attribute or 'Ref'}")


def _ref(logical_id: str, attribute: str | None) -> dict[str, Any]:
    return {"Ref": logical_id} if attribute is None else {"Fn::GetAtt": [logical_id, attribute]}


def _parts(body: dict[str, Any], moved: set[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(what stays, what moves): CDK's bootstrap parameter and rules stay; DependsOn across is dropped."""
    assert "Fn::Sub" not in repr(body)
    stay = {k: v for k, v in body.items() if k != "Resources"}
    stay["Resources"] = {}
    other: dict[str, Any] = {"Resources": {}}
    if body.get("Mappings"):
        other["Mappings"] = copy.deepcopy(body["Mappings"])
    for logical_id, resource in body["Resources"].items():
        side = other if logical_id in moved else stay
        resource = copy.deepcopy(resource)
        depends = resource.get("DependsOn")
        if depends is not None:
            kept = [d for d in ([depends] if isinstance(depends, str) else depends) if (d in moved) == (logical_id in moved)]
            resource["DependsOn"] = kept
            if not kept:
                del resource["DependsOn"]
        side["Resources"][logical_id] = resource
    return stay, other


def nest(stack: str, body: dict[str, Any], moved: set[str], env: StackEnvironment) -> list[LoadedTemplate]:
    """``moved`` into a nested stack ``<stack>/Kid``."""
    parent, child = _parts(body, moved)
    passed: dict[str, Any] = {}
    child["Parameters"] = {}
    child["Outputs"] = {}

    def into_child(logical_id: str, attribute: str | None) -> Any:
        known = logical_id in parent["Resources"] or (attribute is None and logical_id in parent.get("Parameters", {}))
        if logical_id in moved or not known:
            return None
        name = "P" + _name(logical_id, attribute)
        child["Parameters"][name] = {"Type": "String"}
        passed[name] = _ref(logical_id, attribute)
        return {"Ref": name}

    def out_of_child(logical_id: str, attribute: str | None) -> Any:
        if logical_id not in moved:
            return None
        name = "O" + _name(logical_id, attribute)
        child["Outputs"][name] = {"Value": _ref(logical_id, attribute)}
        return {"Fn::GetAtt": ["KidStack", f"Outputs.{name}"]}

    child["Resources"] = {k: _walk(v, into_child) for k, v in child["Resources"].items()}
    parent["Resources"] = {k: _walk(v, out_of_child) for k, v in parent["Resources"].items()}
    if "Outputs" in parent:  # a nested stack nested again: its outputs read the grandchild
        parent["Outputs"] = _walk(parent["Outputs"], out_of_child)
    parent["Resources"]["KidStack"] = {"Type": "AWS::CloudFormation::Stack",
                                       "Properties": {"TemplateURL": "https://bucket.s3.amazonaws.com/kid.json", "Parameters": passed}}
    if not child["Parameters"]:
        del child["Parameters"]
    return [LoadedTemplate(stack, f"{stack}.json", parent, env),
            LoadedTemplate(f"{stack}/Kid", f"{stack}Kid.nested.json", child, env, (stack, "KidStack"))]


def split(stack: str, body: dict[str, Any], moved: set[str], env: StackEnvironment, other_env: StackEnvironment, *,
          regions: bool, stack_output: bool = False) -> list[LoadedTemplate]:
    """``moved`` into a second stack ``<stack>Other`` (its environment ``other_env``); values cross
    as exports (``Fn::ImportValue``), cross-Region export writers/readers (``regions``), or as
    aws-cdk-lib writes a cross-account reference (``stack_output``: an Output read with
    ``Fn::GetStackOutput {StackName, OutputName, Region, RoleArn}``)."""
    first, second = _parts(body, moved)
    for mapping in second.get("Mappings", {}).values():  # the author maps the other Region too
        if env.region in mapping and other_env.region is not None:
            mapping[other_env.region] = copy.deepcopy(mapping[env.region])
    names = {id(first): stack, id(second): f"{stack}Other"}
    envs = {id(first): env, id(second): other_env}

    def reader(consumer: dict[str, Any], producer: dict[str, Any]) -> Any:
        def swap(logical_id: str, attribute: str | None) -> Any:
            if logical_id not in producer["Resources"] or logical_id in consumer["Resources"]:
                return None
            key = _name(logical_id, attribute)
            if stack_output:
                producer.setdefault("Outputs", {})[f"Publish{key}"] = {"Value": _ref(logical_id, attribute)}
                account = envs[id(producer)].account or "222222222222"
                return {"Fn::GetStackOutput": {"StackName": names[id(producer)], "OutputName": f"Publish{key}",
                                               "Region": envs[id(producer)].region,
                                               "RoleArn": f"arn:aws:iam::{account}:role/{names[id(producer)]}PublishRole"}}
            if not regions:
                producer.setdefault("Outputs", {})[f"Export{key}"] = {"Value": _ref(logical_id, attribute), "Export": {"Name": f"{names[id(producer)]}:{key}"}}
                return {"Fn::ImportValue": f"{names[id(producer)]}:{key}"}
            path = f"/cdk/exports/{names[id(consumer)]}/{key}"
            writer = producer["Resources"].setdefault(f"ExportsWriter{names[id(consumer)]}", {
                "Type": "Custom::CrossRegionExportWriter",
                "Properties": {"ServiceToken": "arn:aws:lambda:writer", "WriterProps": {"region": envs[id(consumer)].region, "exports": {}}}})
            writer["Properties"]["WriterProps"]["exports"][path] = _ref(logical_id, attribute)
            consumer["Resources"].setdefault("ExportsReader", {"Type": "Custom::CrossRegionExportReader",
                                                               "Properties": {"ServiceToken": "arn:aws:lambda:reader"}})
            return {"Fn::GetAtt": ["ExportsReader", path]}
        return swap

    first_reads, second_reads = reader(first, second), reader(second, first)
    first["Resources"] = {k: _walk(v, first_reads) for k, v in list(first["Resources"].items())} | {
        k: v for k, v in first["Resources"].items() if k == "ExportsReader"}
    second["Resources"] = {k: _walk(v, second_reads) for k, v in list(second["Resources"].items())} | {
        k: v for k, v in second["Resources"].items() if k == "ExportsReader"}
    return [LoadedTemplate(stack, f"{stack}.json", first, env), LoadedTemplate(f"{stack}Other", f"{stack}Other.json", second, other_env)]


def literal_strings(body: dict[str, Any]) -> list[tuple[str, ...]]:
    """Paths of the literal strings in resources' Properties (intrinsics not entered)."""
    out: list[tuple[str, ...]] = []

    def walk(value: Any, path: tuple[str, ...]) -> None:
        if isinstance(value, dict):
            if len(value) == 1 and INTRINSIC.match(next(iter(value))):
                return
            for k, v in value.items():
                walk(v, (*path, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, (*path, str(i)))
        elif isinstance(value, str):
            out.append(path)

    for logical_id, resource in body["Resources"].items():
        walk(resource.get("Properties", {}), (logical_id, "Properties"))
    return out


def map_literals(stack: str, body: dict[str, Any], chosen: list[tuple[str, ...]], env: StackEnvironment) -> list[LoadedTemplate]:
    """The ``chosen`` literal strings read from a mapping by the stack's Region."""
    assert env.region is not None
    body = copy.deepcopy(body)
    mine: dict[str, str] = {}
    theirs: dict[str, str] = {}
    for n, path in enumerate(chosen):
        holder: Any = body["Resources"]
        for key in path[:-1]:
            holder = holder[int(key)] if isinstance(holder, list) else holder[key]
        last = int(path[-1]) if isinstance(holder, list) else path[-1]
        mine[f"K{n}"] = holder[last]
        theirs[f"K{n}"] = f"other-{n}.example.net"
        holder[last] = {"Fn::FindInMap": ["Values", {"Ref": "AWS::Region"}, f"K{n}"]}
    other_region = "sa-east-1"  # a Region no rewrite deploys to: its row must never be read
    if chosen:
        body["Mappings"] = {**body.get("Mappings", {}), "Values": {env.region: mine, other_region: theirs}}
    return [LoadedTemplate(stack, f"{stack}.json", body, env)]
