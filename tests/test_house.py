"""Issue 32: the house. Every public name imports as before; no import goes up a layer; no file-level
import circle; the old module paths still import (with a DeprecationWarning) for one release. And the tests'
house: tests/ mirrors the source folders (only whole-package tests at its top), no two test modules share a name."""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import edge_origin
from edge_origin import _moved

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "constructs" / "edge_origin"

#: Which folder may import which: a unit imports only units of a lower (or its own) layer.
#: base = the top-level modules (``__init__``, ``_moved``, ``_version``); core = what every layer shares
#: (findings, errors, escape, files, origin_verification, watch_math); data = the published AWS values.
LAYERS: dict[str, int] = {
    "base": 0, "core": 0, "data": 0,
    "answers": 1, "profile": 1,
    "model": 2,
    "rules": 3,
    "review": 4, "cdk": 4, "rehearsal": 4, "forecast": 4, "live": 4,
    "testing": 5,
    "cli": 6,
}

#: The public API as 0.1 documented it (README, docstrings): ``from edge_origin import NAME``.
PUBLIC = {
    "AccountQuotas", "ConnectionProfile", "DnsPlan", "EdgeOriginChecks", "EdgeOriginPropError", "Finding", "FleetMember",
    "GrpcEdgeDistribution", "GrpcEdgeToOrigin", "InternalGrpcOrigin", "ModelError", "MultivalueOriginRecords",
    "NetworkingIngress", "OriginAddress", "OriginFleet", "OriginProps", "OriginRecord", "OriginVerification",
    "OriginVerificationSecret", "OriginWatch", "PROFILE_METADATA_KEY", "ProfileError", "RehearsalResult", "Severity",
    "TargetGroupBindings", "TemplateModel", "WatchOptions", "ZonalAddress", "__version__", "client_service_config",
    "configmap", "load_model", "normalize_name", "python_channel_options", "render", "select_answer",
    "target_group_binding",
}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and (PKG / parts[1]).is_dir() else "base"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        out[".".join(rel.parts).removesuffix(".__init__")] = path
    return out


def _type_only(tree: ast.Module) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (types only: never imported at run time)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out |= {id(sub) for stmt in node.body for sub in ast.walk(stmt)}
    return out


@functools.cache
def _parsed(path: Path) -> ast.Module:
    """A module's tree, parsed once per process (several tests walk every module)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _imports(path: Path, *, module_level: bool) -> list[tuple[str, int]]:
    tree = _parsed(path)
    skip = _type_only(tree)
    nodes = [n for n in (tree.body if module_level else list(ast.walk(tree))) if id(n) not in skip]
    out = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("edge_origin"):
            # ``from pkg import sub`` imports the submodule (and the package's __init__ first)
            subs = [f"{node.module}.{a.name}" for a in node.names if (PKG.parent / f"{node.module}.{a.name}".replace(".", "/")).with_suffix(".py").exists()
                    or (PKG.parent / f"{node.module}.{a.name}".replace(".", "/") / "__init__.py").exists()]
            names = subs or [node.module]
            out += [(n, node.lineno) for n in names]
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.startswith("edge_origin.")]
    return out


def test_every_public_name_imports_as_before_without_a_warning() -> None:
    assert set(edge_origin.__all__) >= PUBLIC
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for name in sorted(PUBLIC):
            assert getattr(edge_origin, name) is not None, name


def test_every_unit_is_in_a_layer() -> None:
    units = {_unit(m) for m in _modules()}
    assert units <= set(LAYERS), units - set(LAYERS)
    assert {"cdk", "review", "model", "rules", "answers"} <= units


def test_each_subpackage_docstring_says_its_layer_and_what_it_may_import() -> None:
    """The layering is written where a reader opens a folder: ``Layer N. May import: a, b.`` in its ``__init__``."""
    order = sorted(LAYERS, key=lambda u: (LAYERS[u], list(LAYERS).index(u)))
    units = sorted(u for u in LAYERS if (PKG / u / "__init__.py").exists())
    assert len(units) == len(LAYERS) - 1  # every folder but the top-level modules ("base")
    for unit in units:
        doc = ast.get_docstring(ast.parse((PKG / unit / "__init__.py").read_text(encoding="utf-8"))) or ""
        may = ", ".join(u for u in order if u != "base" and LAYERS[u] <= LAYERS[unit])
        assert f"Layer {LAYERS[unit]}. May import: {may}." in doc, (unit, doc[-300:])


def test_no_import_goes_up_a_layer() -> None:
    """Module-level and function-level imports alike: a lazy import up a layer is still a dependency."""
    upward = []
    modules = _modules()
    for module, path in modules.items():
        if module == "edge_origin":
            continue  # the package's lazy public names reach every layer by design
        src = _unit(module)
        for target, line in _imports(path, module_level=False):
            if LAYERS[_unit(target)] > LAYERS[src]:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {module} ({src}) imports {target} ({_unit(target)})")
    assert len(modules) > 100
    assert upward == []


def test_no_file_level_import_circle() -> None:
    modules = _modules()
    graph = _import_graph(module_level=True)
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1 and len(cycles) < 5:
                cycles.append([*stack[stack.index(nxt):], nxt] if nxt in stack else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for module in sorted(modules):
        if module not in state:
            visit(module, [module])
    assert sum(len(v) for v in graph.values()) > 100
    assert cycles == []


def test_old_module_paths_import_with_a_deprecation_warning() -> None:
    """Every moved module, from its old path, in one fresh interpreter: the same objects, one warning each."""
    code = (
        "import importlib, json, sys, warnings\n"
        "moved = json.loads(sys.argv[1])\n"
        "warnings.simplefilter('always')\n"
        "for old, new in moved.items():\n"
        "    with warnings.catch_warnings(record=True) as w:\n"
        "        warnings.simplefilter('always')\n"
        "        mod = importlib.import_module(old)\n"
        "    target = importlib.import_module(new)\n"
        "    name = next(n for n in dir(target) if not n.startswith('__'))\n"
        "    assert getattr(mod, name) is getattr(target, name), (old, name)\n"
        "    assert any(new in str(x.message) and x.category is DeprecationWarning for x in w), (old, [str(x.message) for x in w])\n"
        "print(len(moved))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(_moved.MOVED)], capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT / "constructs"), "PATH": "/usr/bin:/bin", "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == str(len(_moved.MOVED)) and len(_moved.MOVED) >= 20


#: Public class names still defined in two modules, each with the reason it waits.
TWICE_FOR_NOW: dict[str, set[str]] = {}


def test_no_public_class_name_is_defined_in_two_modules() -> None:
    """One definition of each class: two classes of one name in the package is a reader's trap."""
    where: dict[str, set[str]] = defaultdict(set)
    for module, path in _modules().items():
        for node in _parsed(path).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].add(module)
    twice = {name: modules for name, modules in where.items() if len(modules) > 1}
    assert twice == TWICE_FOR_NOW
    assert len(where) > 200


def test_renamed_classes_import_under_their_old_names_with_a_deprecation_warning() -> None:
    import importlib

    assert sum(len(v) for v in _moved.RENAMED.values()) >= 7
    for module, names in _moved.RENAMED.items():
        mod = importlib.import_module(module)
        for old, new in names.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert getattr(mod, old) is getattr(mod, new)
            assert [str(w.message) for w in caught] == [
                f"{module}.{old} is now {module}.{new}; the old name goes in edge-origin {_moved.REMOVED_IN}"
            ]
            assert all(w.category is DeprecationWarning for w in caught)
        try:
            mod.NoSuchName  # noqa: B018
        except AttributeError as error:
            assert str(error) == f"module {module!r} has no attribute 'NoSuchName'"
        else:
            raise AssertionError(module)


# -- the tests' own house (issue 32: "Tests mirror the source folders") ------------------------------------
TESTS = ROOT / "tests"

#: Test files of the whole package, not of one source folder: they stay at tests/ top level.
WHOLE_PACKAGE_TESTS: dict[str, str] = {
    "test_action_script.py": "the GitHub Action's scripts (action.yml)",
    "test_aws_drift.py": "benchmarks/aws_drift.py over every table of the package",
    "test_cli_reference.py": "docs/cli.md, generated from every parser",
    "test_constructs_readme.py": "docs/constructs.md and the README walk-through's example",
    "test_house.py": "the package's layers, public names, old paths and this layout",
    "test_layout.py": "the constructs/ source root never shadows the constructs library",
    "test_lock.py": "requirements-dev.txt against pyproject.toml, and .ci/moved",
    "test_packaging.py": "the install, the extras, the version, the distributions",
    "test_pre_commit_hook.py": "the pre-commit hooks (.pre-commit-hooks.yaml)",
    "test_readme_commands.py": "every command block of the README and docs/",
    "test_readme_links.py": "every link of the README and docs/",
    "test_readme_profile_example.py": "docs/connection-profile.md's example",
    "test_readme_stage_example.py": "docs/constructs.md's Stage app",
}

#: Folders of tests/ that are not named after a source package, and what each holds.
OTHER_TEST_FOLDERS: dict[str, str] = {
    "assembly": "the cloud assembly as CDK deploys it (model loading, intrinsics, rules): nested stacks, Regions; its aws-cdk-lib corpus",
    "conditions": "one rule's or one intrinsic's conditions, across model and rules",
    "corpus": "public templates (data)",
    "diff": "review.diff and `edge-origin diff`",
    "fixtures": "templates, apps and stubs the tests read (data)",
    "live_write": "live.enact and the plans against moto (a package: its own module names)",
    "loopback": "real gRPC on 127.0.0.1 (profile keepalive, interceptors)",
    "snapshots": "golden templates (data)",
    "suite": "the suite's own tools (loop asserts, flake watch, mutation runners)",
}


def top_level_strays(tests: Path) -> list[str]:
    """Test files at the top of ``tests`` that are not whole-package tests: one line each, naming where they go."""
    return [f"tests/{p.name}: a test of one source folder goes in tests/<package>/ (tests/{{{','.join(_source_packages())}}}); "
            f"a whole-package test is listed in WHOLE_PACKAGE_TESTS (tests/test_house.py)"
            for p in sorted(tests.glob("test_*.py")) if p.name not in WHOLE_PACKAGE_TESTS]


def unknown_test_folders(tests: Path) -> list[str]:
    folders = sorted(p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((".", "__")))
    return [f"tests/{name}/: names no source package (constructs/edge_origin/{name}/ does not exist) and is not listed "
            f"in OTHER_TEST_FOLDERS (tests/test_house.py)"
            for name in folders if name not in _source_packages() and name not in OTHER_TEST_FOLDERS]


def shared_module_names(tests: Path) -> list[str]:
    """pytest imports tests/ in "prepend" mode with no ``__init__.py`` at its top: a test or helper module is
    imported by its file name, so two files of one name (outside packages) would be one module."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(tests.rglob("*.py")):
        rel = path.relative_to(tests)
        if rel.parts[0] == "fixtures" or path.name in ("conftest.py", "__init__.py"):
            continue
        package = path.parent
        dotted = [path.stem]
        while package != tests and (package / "__init__.py").exists():
            dotted.insert(0, package.name)
            package = package.parent
        where[".".join(dotted)].append(f"tests/{rel.as_posix()}")
    return [f"module name {name!r} is used by {' and '.join(paths)}: rename one (prepend import mode)"
            for name, paths in sorted(where.items()) if len(paths) > 1]


def _source_packages() -> list[str]:
    return sorted(p.name for p in PKG.iterdir() if (p / "__init__.py").exists() and p.name != "data")


def test_every_top_level_test_file_tests_the_whole_package() -> None:
    assert top_level_strays(TESTS) == []
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == sorted(WHOLE_PACKAGE_TESTS)


def test_every_test_folder_names_a_source_package_or_says_what_it_holds() -> None:
    assert unknown_test_folders(TESTS) == []
    assert {"cdk", "cli", "core", "model", "profile", "review", "rules"} <= {p.name for p in TESTS.iterdir() if p.is_dir()}


def test_no_two_test_modules_share_a_name() -> None:
    assert shared_module_names(TESTS) == []
    assert len(list(TESTS.rglob("test_*.py"))) >= 200


def test_the_layout_checks_fire_on_a_stray_file_an_unknown_folder_and_a_shared_name(tmp_path: Path) -> None:
    (tmp_path / "test_house.py").write_text("")
    (tmp_path / "test_rules_new.py").write_text("")
    (tmp_path / "misc").mkdir()
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "test_rules_new.py").write_text("")
    (tmp_path / "live_write").mkdir()
    (tmp_path / "live_write" / "__init__.py").write_text("")
    (tmp_path / "live_write" / "test_rules_new.py").write_text("")  # a package's module: live_write.test_rules_new
    packages = ",".join(_source_packages())
    assert top_level_strays(tmp_path) == [
        f"tests/test_rules_new.py: a test of one source folder goes in tests/<package>/ (tests/{{{packages}}}); "
        "a whole-package test is listed in WHOLE_PACKAGE_TESTS (tests/test_house.py)"
    ]
    assert unknown_test_folders(tmp_path) == [
        "tests/misc/: names no source package (constructs/edge_origin/misc/ does not exist) and is not listed "
        "in OTHER_TEST_FOLDERS (tests/test_house.py)"
    ]
    assert shared_module_names(tmp_path) == [
        "module name 'test_rules_new' is used by tests/rules/test_rules_new.py and tests/test_rules_new.py: "
        "rename one (prepend import mode)"
    ]


def _import_graph(*, module_level: bool) -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        for target, _line in _imports(path, module_level=module_level):
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != module and target != "edge_origin":
                graph[module].add(target)
    return graph


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module: each holds at least one import circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def connect(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return out


def test_no_import_circle_at_any_depth_deferred_imports_included() -> None:
    """Issue 48: an import inside a function is still a dependency; no two files may depend on each other
    through any chain of imports, module-level or deferred (a package's ``__init__`` counts as a file)."""
    graph = _import_graph(module_level=False)
    assert sum(len(v) for v in graph.values()) > 150
    assert _strongly_connected(graph) == []


def test_the_circle_check_fires_on_a_deferred_circle() -> None:
    assert _strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _strongly_connected({"a": {"b"}, "b": set(), "c": {"a"}}) == []


MAX_FUNCTION_LINES = 120


def _function_lengths() -> list[tuple[str, int]]:
    """(file:line name, lines of code) for every function: lines that hold code, its docstring aside."""
    out = []
    for path in sorted(PKG.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = _parsed(path)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                body = body[1:]
            lines: set[int] = set()
            for stmt in body:
                for sub in ast.walk(stmt):
                    if hasattr(sub, "lineno"):
                        lines.update(range(sub.lineno, (getattr(sub, "end_lineno", None) or sub.lineno) + 1))
            text = source.splitlines()
            code = [n for n in lines if text[n - 1].strip() and not text[n - 1].strip().startswith("#")]
            out.append((f"{path.relative_to(ROOT)}:{node.lineno} {node.name}", len(code)))
    return out


def test_no_function_over_120_lines_of_code() -> None:
    lengths = _function_lengths()
    assert len(lengths) > 1000
    assert [f"{where}: {n} lines" for where, n in lengths if n > MAX_FUNCTION_LINES] == []



def _keyword_uses(paths: list[Path], keyword: str) -> list[str]:
    """``file:line`` of every call that passes ``keyword``."""
    return [f"{path.name}:{node.value.lineno}" for path in paths for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.keyword) and node.arg == keyword]


def test_no_subprocess_is_started_with_preexec_fn() -> None:
    """``preexec_fn`` makes Popen fork() instead of vfork(): in a process with live gRPC channels (the rehearsal,
    the loopback tests' workers) grpcio's fork handler restarts its poller in the child, close_fds closes the
    poller's epoll fd, and the child aborts before exec (grpc/grpc#43055; measured here: 13 of 300 children of a
    process with one busy channel died with -6, none with start_new_session). Start a small Python that sets
    what is needed and execs instead (tests/rehearsal/test_rehearsal_loopback.py)."""
    paths = [p for p in sorted([*PKG.rglob("*.py"), *TESTS.rglob("*.py")]) if not {"corpus", "fixtures"} & set(p.parts)]
    assert not _keyword_uses(paths, "preexec_fn")


def test_the_preexec_fn_check_finds_a_use(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("import subprocess\nsubprocess.run(['true'])\nsubprocess.run(['true'], preexec_fn=None)\n")
    assert _keyword_uses([probe], "preexec_fn") == ["probe.py:3"]


def test_cdk_app_props_newer_than_the_floor_go_through_quiet_app() -> None:
    """``App(builtin_cloud_formation_validation=...)`` does not exist at the floor, aws-cdk-lib 2.264, where
    `.ci/wheel-job floor` runs these tests: two tests that passed it directly failed only there. Tests build
    such apps with ``tests.cdk_apps.quiet_app``, which leaves the prop out where it does not exist."""
    paths = [p for p in sorted(TESTS.rglob("*.py")) if p.name != "cdk_apps.py" and "corpus" not in p.parts]
    assert not _keyword_uses(paths, "builtin_cloud_formation_validation")


def test_the_floor_prop_check_finds_a_use(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("import aws_cdk as cdk\napp = cdk.App()\napp = cdk.App(builtin_cloud_formation_validation=False)\n")
    assert _keyword_uses([probe], "builtin_cloud_formation_validation") == ["probe.py:3"]
