"""Template transforms, expanded by the libraries that implement them (imported only when needed).

- ``AWS::LanguageExtensions`` (``Fn::ForEach``, ``DefaultValue`` of ``Fn::FindInMap``, ...):
  cfn-lint's transform (``cfnlint.template.transforms``). ``Fn::Length`` and
  ``Fn::ToJsonString`` that it leaves are resolved by the model where the values are literal.
- ``AWS::Serverless-2016-10-31`` (SAM): aws-sam-translator, the library CloudFormation's SAM
  transform is built from, so implicit resources (``<Function>Role``, ``ServerlessRestApi``...)
  exist in the model. Local ``CodeUri``-style paths are replaced by a placeholder S3 URI first,
  as ``sam package`` would (the translator accepts only S3 locations); parameters without a
  default get their first ``AllowedValues`` entry (else a placeholder), and an
  ``AutoPublishAlias`` that is a ``Ref`` to a parameter gets that value, as a deploy would.
- Any other transform (a macro, ``AWS::Include``...) cannot be expanded here: the template is
  kept as written and ``Ref``/``Fn::GetAtt`` to resources the macro would make become
  ``Unresolved`` (see ``StackResolver.lenient``).

Bad input (the transform refuses the template) raises ``ModelError`` naming the file.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from edge_origin.model.values import ModelError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

LANGUAGE_EXTENSIONS = "AWS::LanguageExtensions"
SERVERLESS = "AWS::Serverless-2016-10-31"
EXPANDED = frozenset({LANGUAGE_EXTENSIONS, SERVERLESS})
PLACEHOLDER_S3 = "s3://edge-origin-placeholder/code"

# Properties that may be local paths before `sam package`: resource type -> property names.
_LOCAL_URIS = {
    "AWS::Serverless::Function": ("CodeUri",),
    "AWS::Serverless::LayerVersion": ("ContentUri",),
    "AWS::Serverless::Api": ("DefinitionUri",),
    "AWS::Serverless::HttpApi": ("DefinitionUri",),
    "AWS::Serverless::StateMachine": ("DefinitionUri",),
    "AWS::Serverless::GraphQLApi": ("SchemaUri",),
}


def transform_names(body: dict[str, Any]) -> list[str]:
    """The transforms a template declares, in order (macro mappings give their ``Name``)."""
    declared = body.get("Transform")
    items = declared if isinstance(declared, list) else [] if declared is None else [declared]
    names = []
    for item in items:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict) and isinstance(item.get("Name"), str):
            names.append(item["Name"])
        else:
            names.append(repr(item))
    return names


def unexpanded(body: dict[str, Any]) -> list[str]:
    """Declared transforms this module cannot expand (macros)."""
    return [n for n in transform_names(body) if n not in EXPANDED]


def expand(body: dict[str, Any], text: str, where: str) -> dict[str, Any]:
    """``body`` with LanguageExtensions and SAM expanded (in the order declared)."""
    for name in transform_names(body):
        if name == LANGUAGE_EXTENSIONS:
            body = _language_extensions(text, where)
        elif name == SERVERLESS and _has_serverless_resources(body):
            body = _serverless(body, where)
        text = ""  # later transforms work on the dict
    return body


def _has_serverless_resources(body: dict[str, Any]) -> bool:
    resources = body.get("Resources")
    return isinstance(resources, dict) and any(
        isinstance(r, dict) and isinstance(r.get("Type"), str) and r["Type"].startswith("AWS::Serverless::")
        for r in resources.values()
    )


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def _language_extensions(text: str, where: str) -> dict[str, Any]:
    if not text:
        raise ModelError(f"{where}: {LANGUAGE_EXTENSIONS} must come before other transforms")
    try:  # a checker-only install (the pre-commit hooks) has no cfn-lint
        from cfnlint.decode import decode_str
        from cfnlint.template import Template
        from cfnlint.template.transforms._language_extensions import language_extension
    except ImportError:
        raise ModelError(
            f"{where}: {LANGUAGE_EXTENSIONS} needs cfn-lint to expand (pip install cfn-lint; pre-commit hook: "
            "additional_dependencies: [cfn-lint])"
        ) from None

    try:
        decoded, matches = decode_str(text)
        if matches or not isinstance(decoded, dict):
            message = matches[0].message if matches else "not a mapping"
            raise ModelError(f"{where}: cannot decode template for {LANGUAGE_EXTENSIONS} ({message})")
        cfn = Template(where, decoded, ["us-east-1"])
        problems, template = language_extension(cfn)
    except ModelError:
        raise
    except Exception as exc:  # cfn-lint raises its own types on odd shapes
        raise ModelError(f"{where}: {LANGUAGE_EXTENSIONS} could not expand the template ({type(exc).__name__}: {str(exc)[:120]})") from None
    if problems:
        raise ModelError(f"{where}: {LANGUAGE_EXTENSIONS}: {problems[0].message}")
    return _plain(template)


@contextlib.contextmanager
def _region() -> Iterator[None]:
    saved = os.environ.get("AWS_DEFAULT_REGION")
    if not saved:
        os.environ["AWS_DEFAULT_REGION"] = "us-east-1"
    try:
        yield
    finally:
        if not saved:
            os.environ.pop("AWS_DEFAULT_REGION", None)


def _parameter_value(param: Any) -> Any:
    """What a deploy would pass: the Default, else the first allowed value, else a placeholder."""
    if not isinstance(param, dict):
        return "placeholder"
    if "Default" in param:
        return param["Default"]
    allowed = param.get("AllowedValues")
    if isinstance(allowed, list) and allowed and isinstance(allowed[0], (str, int, float)):
        return str(allowed[0])
    return "placeholder"


def _inline_alias_refs(template: dict[str, Any], parameters: dict[str, Any]) -> None:
    """``AutoPublishAlias: !Ref Param`` -> the parameter's value (the translator needs a literal)."""
    holders = [r.get("Properties") for r in template["Resources"].values() if isinstance(r, dict)]
    globals_ = template.get("Globals")
    if isinstance(globals_, dict):
        holders += [v for v in globals_.values() if isinstance(v, dict)]
    for props in holders:
        if not isinstance(props, dict):
            continue
        alias = props.get("AutoPublishAlias")
        if isinstance(alias, dict) and set(alias) == {"Ref"} and alias["Ref"] in parameters:
            value = parameters[alias["Ref"]]
            props["AutoPublishAlias"] = value if isinstance(value, str) and value.isalnum() else "live"


def _serverless(body: dict[str, Any], where: str) -> dict[str, Any]:
    try:
        from samtranslator.metrics.metrics import Metrics
        from samtranslator.parser.parser import Parser
        from samtranslator.public.exceptions import InvalidDocumentException
        from samtranslator.translator.translator import Translator
    except ImportError:
        raise ModelError(
            f"{where}: {SERVERLESS} needs aws-sam-translator to expand (pip install aws-sam-translator)"
        ) from None
    import copy

    template = copy.deepcopy(body)
    for resource in template["Resources"].values():
        if not isinstance(resource, dict):
            continue
        props = resource.get("Properties")
        for key in _LOCAL_URIS.get(resource.get("Type"), ()):
            if isinstance(props, dict) and isinstance(props.get(key), str) and not props[key].startswith("s3://"):
                props[key] = PLACEHOLDER_S3
        if (
            resource.get("Type") == "AWS::Serverless::Function"
            and isinstance(props, dict)
            and not {"CodeUri", "InlineCode", "ImageUri"} & set(props)
        ):
            props["CodeUri"] = PLACEHOLDER_S3
    parameters = {name: _parameter_value(p) for name, p in (template.get("Parameters") or {}).items()}
    _inline_alias_refs(template, parameters)
    metrics = Metrics()  # published (to nowhere) below, or it warns at exit
    try:
        with _region():
            out = Translator(managed_policy_map={}, sam_parser=Parser(), metrics=metrics).translate(
                sam_template=template, parameter_values=parameters
            )
    except InvalidDocumentException as exc:
        causes = [str(c) for c in getattr(exc, "causes", [])] or [str(exc)]
        raise ModelError(f"{where}: {SERVERLESS}: {causes[0][:200]}") from None
    except Exception as exc:  # the translator raises plain exceptions on odd shapes
        raise ModelError(f"{where}: {SERVERLESS} could not expand the template ({type(exc).__name__}: {str(exc)[:120]})") from None
    finally:
        metrics.publish()
    return _plain(out)
