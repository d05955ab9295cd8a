"""CDK apps for tests, across the aws-cdk-lib releases pyproject.toml allows."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk


def quiet_app(**kwargs: Any) -> cdk.App:
    """An App without aws-cdk-lib's own CloudFormation validation (a slow step these tests do not
    need); releases before the prop existed (the floor, 2.264) have no such validation to turn off."""
    try:
        return cdk.App(builtin_cloud_formation_validation=False, **kwargs)
    except TypeError:
        return cdk.App(**kwargs)


def load_corpus_generator(path: Any, name: str) -> Any:
    """A corpus's ``generate.py`` as its own module ``name`` (each corpus folder has one: a plain ``import
    generate`` gets whichever one a worker imported first)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
