"""Old module paths of modules that moved in 0.2 (issue 32), importable for one more release.

``import edge_origin.pattern`` (or ``from edge_origin.checker import check_paths``) still works and
warns once (``DeprecationWarning``) with the new path. The old name is a thin module that forwards
every attribute to the moved one (PEP 562 ``__getattr__``), so classes and functions are the same
objects; assigning to it does not reach the moved module (patch the new path). Classes renamed in 0.2
(``RENAMED``) import under their old names the same way.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

#: Old module -> new module.
MOVED: dict[str, str] = {
    **{f"edge_origin.{m}": f"edge_origin.cdk.{m}" for m in (
        "edge", "eks_binding", "internal", "origin_fleet", "origin_records", "outputs", "pattern", "profile_binding",
        "props", "quotas", "vpc_origin", "watch",
    )},
    **{f"edge_origin.{m}": f"edge_origin.review.{m}" for m in ("checker", "report", "report_vpc", "junit", "nag")},
    **{f"edge_origin.{m}": f"edge_origin.core.{m}" for m in (
        "errors", "escape", "files", "findings", "origin_verification", "watch_math",
    )},
    "edge_origin.config": "edge_origin.cli.config",
    # the forecast's CLI, so that "model" names the template model only (issue 48)
    "edge_origin.cli.model": "edge_origin.cli.forecast",
    "edge_origin.cli.model_args": "edge_origin.cli.forecast_args",
    "edge_origin.diff": "edge_origin.review.diff",
    "edge_origin.diff.engine": "edge_origin.review.diff",
    "edge_origin.diff.quota_check": "edge_origin.review.quota_crossings",
    "edge_origin.diff.schemas": "edge_origin.model.replacement_schemas",
    "edge_origin.diff.transition": "edge_origin.model.transition",
    # the internet-scale model, out of rehearsal/ so that "model" names one thing (issue 32)
    **{f"edge_origin.rehearsal.{old}": f"edge_origin.forecast.{new}" for old, new in (
        ("model_inputs", "inputs"), ("model_sim", "sim"), ("model_events", "events"), ("model_events_run", "events_run"),
        ("model_fit", "fit"), ("model_agreement", "agreement"), ("model_capacity", "capacity"), ("montecarlo", "montecarlo"),
    )},
}
#: When the old paths go away.
REMOVED_IN = "0.3"

#: Classes renamed in 0.2 so that no public class name is defined twice (issue 32): module -> old -> new.
#: The old name still imports from its module, with a DeprecationWarning (``old_names``).
RENAMED: dict[str, dict[str, str]] = {
    "edge_origin.live.plans": {
        "PlanError": "LivePlanError", "PlanRecord": "LivePlanRecord", "HealthCheckSpec": "LiveHealthCheckSpec",
    },
    "edge_origin.live.plan_sources": {"Address": "AddressAtZone"},
    "edge_origin.rehearsal.health": {"HealthState": "HealthTracker"},
    "edge_origin.profile.hops": {"Hop": "PathHop"},
    "edge_origin.testing.fault_proxy": {"Rule": "FaultRule"},
    # the internet-scale model's bad-input error (the template model's is edge_origin.model.ModelError)
    "edge_origin.forecast.inputs": {"ModelError": "ModelInputError"},
    "edge_origin.forecast.montecarlo": {"ModelError": "ModelInputError"},
}


def old_names(module: str) -> Any:
    """A module's ``__getattr__`` (PEP 562) answering its old class names (``RENAMED``) with a warning."""
    renamed = RENAMED[module]

    def __getattr__(name: str) -> Any:
        new = renamed.get(name)
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(
            f"{module}.{name} is now {module}.{new}; the old name goes in edge-origin {REMOVED_IN}",
            DeprecationWarning, stacklevel=2,
        )
        return getattr(sys.modules[module], new)

    return __getattr__


class _Forwarder:  # an importlib Loader (duck-typed: importlib.abc costs ~15 ms at every start)
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = types.ModuleType(spec.name, f"Moved to {self.new} (this path goes in {REMOVED_IN}).")
        target = self.new

        def __getattr__(name: str) -> Any:
            return getattr(importlib.import_module(target), name)

        def __dir__() -> list[str]:
            return dir(importlib.import_module(target))

        module.__getattr__ = __getattr__  # type: ignore[attr-defined]
        module.__dir__ = __dir__  # type: ignore[method-assign]
        if spec.name == "edge_origin.diff":
            module.__path__ = []  # a package: its old submodules import too
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        warnings.warn(
            f"{module.__name__} moved to {self.new}; the old path goes in edge-origin {REMOVED_IN}",
            DeprecationWarning, stacklevel=3,
        )


class _MovedFinder:  # an importlib MetaPathFinder (duck-typed, as _Forwarder)
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Forwarder(new), is_package=fullname == "edge_origin.diff")


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (``edge_origin/__init__`` does)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
