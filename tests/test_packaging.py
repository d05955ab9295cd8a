"""Packaging: the core install (no rehearsal dependencies), the extras, the version source, the
distributions. The fresh-venv installs at the floor and newest aws-cdk-lib run in CI
(`.ci/wheel-job`, `make test-floor`); here: what can be proven in seconds, and the build (slow)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "constructs" / "edge_origin"
REHEARSAL_DISTRIBUTIONS = {"grpcio", "grpcio-health-checking", "dnspython", "numpy", "matplotlib", "locust"}
REFERENCE_TEMPLATE = ROOT / "tests" / "snapshots" / "TelemetryIngest.template.json"
YAML_TEMPLATE = ROOT / "tests" / "fixtures" / "templates" / "world" / "Origins.yaml"


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower()


# --- the core install, as the import graph sees it ---------------------------------------------
# A subprocess where the rehearsal's modules cannot be imported (as in `pip install edge-origin`):
# the package, its light names, check/report/profile (a YAML template too: cfn-lint's decoder) work
# and import none of them; `rehearse` says which extra, exit 2, one line.
_CORE_PROBE = r"""
import contextlib, io, json, sys
BLOCKED = {"grpc", "grpc_health", "dns", "numpy", "matplotlib"}

class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Absent())
import edge_origin
from edge_origin import _LIGHT_EXPORTS
for name in _LIGHT_EXPORTS:
    getattr(edge_origin, name)
after_import = sorted(m for m in sys.modules if m.split(".")[0] in {"aws_cdk", "cdk_nag", "cfnlint", "yaml"})
from edge_origin.cli import main

def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}

template, yaml_template = sys.argv[1], sys.argv[2]
results = {
    "check": run("check", template),
    "check_yaml": run("check", yaml_template),
    "report": run("report", template),
    "profile": run("profile", "render", "--lang", "python"),
    "help": run("rehearse", "--help"),
    "rehearse": run("rehearse", template, "--name", "origin.telemetry.example.com", "--model"),
}
loaded = sorted({m.split(".")[0] for m in sys.modules} & (BLOCKED | {"aws_cdk", "cdk_nag"}))
print(json.dumps({"results": results, "loaded": loaded, "after_import": after_import}))
"""


@pytest.fixture(scope="module")
def core_probe() -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    result = subprocess.run(
        [sys.executable, "-c", _CORE_PROBE, str(REFERENCE_TEMPLATE), str(YAML_TEMPLATE)],
        capture_output=True, text=True, timeout=120, env=env, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_import_edge_origin_loads_no_third_party_module(core_probe: dict) -> None:
    assert core_probe["after_import"] == []


def test_core_commands_work_without_the_rehearsal_modules(core_probe: dict) -> None:
    results = core_probe["results"]
    for command in ("check", "check_yaml", "report", "profile"):
        assert results[command]["code"] in (0, 1), (command, results[command]["err"])
        assert results[command]["out"].strip(), command
    assert "Traceback" not in json.dumps(results)
    assert results["help"]["code"] == 0 and "--model" in results["help"]["out"]
    # The command-line tools never load aws-cdk-lib (a Node.js runtime) nor a rehearsal module.
    assert core_probe["loaded"] == []


def test_rehearse_without_its_extra_names_it_and_exits_2(core_probe: dict) -> None:
    rehearse = core_probe["results"]["rehearse"]
    assert rehearse["code"] == 2
    lines = rehearse["err"].strip().splitlines()
    assert len(lines) == 1, rehearse["err"]
    assert "pip install 'edge-origin[rehearsal]'" in lines[0] and lines[0].startswith("edge-origin rehearse:")


# --- the metadata, as pyproject.toml writes it -------------------------------------------------
def test_core_dependencies_are_ranges_without_rehearsal_packages() -> None:
    project = _pyproject()["project"]
    core = {_name(r): r for r in project["dependencies"]}
    assert not (set(core) & REHEARSAL_DISTRIBUTIONS), "rehearsal packages belong in the extra"
    assert "moto" not in core
    for name, upper in (("aws-cdk-lib", "<3"), ("constructs", "<11"), ("cdk-nag", "<4")):
        assert ">=" in core[name] and upper in core[name] and "==" not in core[name], core[name]
    assert "cfn-lint" in core  # diff's resource schemas and the YAML decoder: see the README
    extras = project["optional-dependencies"]
    assert {_name(r) for r in extras["rehearsal"]} == REHEARSAL_DISTRIBUTIONS
    assert {_name(r) for r in extras["testing"]} == {"moto"}
    assert any(r.startswith("edge-origin[") and "rehearsal" in r and "testing" in r for r in extras["dev"])


def test_the_rehearsal_extra_provides_every_module_the_cli_asks_for() -> None:
    from edge_origin.rehearsal import EXTRA_MODULES

    provided = metadata.packages_distributions()
    rehearsal = {_name(r) for r in _pyproject()["project"]["optional-dependencies"]["rehearsal"]}
    for module in (*EXTRA_MODULES, "matplotlib"):
        if module not in provided:
            pytest.skip(f"{module} is not installed here (a core install): nothing to map")
        distributions = {d.lower() for d in provided[module]}
        assert distributions & rehearsal, f"{module} comes from {distributions}, not in the rehearsal extra"


def test_the_version_is_written_once_and_the_changelog_has_it() -> None:
    pyproject = _pyproject()
    assert "version" in pyproject["project"]["dynamic"] and "version" not in pyproject["project"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "edge_origin._version.__version__"}
    version = re.search(r'__version__ = "([^"]+)"', (PACKAGE_DIR / "_version.py").read_text()).group(1)
    import edge_origin

    assert edge_origin.__version__ == version
    assert f"## [{version}]" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    # the version as a written value (quoted), not a substring of an address like 192.0.2.0/24
    written = re.compile(rf"""["']v?{re.escape(version)}["']""")
    hits = [p for p in PACKAGE_DIR.rglob("*.py") if p.name != "_version.py" and written.search(p.read_text())]
    assert not hits, f"the version is also written in {hits}"


def test_the_floor_in_pyproject_is_the_one_the_readme_names() -> None:
    floor = re.search(r'"aws-cdk-lib>=([0-9.]+)', (ROOT / "pyproject.toml").read_text()).group(1)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"aws-cdk-lib>={floor},<3" in readme


def test_the_long_description_renders_and_its_links_work_on_pypi() -> None:
    """The README is the long description (pyproject ``readme``). Rendered as PyPI does it (GitHub
    Flavored Markdown, then readme_renderer's sanitizer; twine check fails when rendering does), every
    link must work off GitHub: absolute, or an in-page ``#x`` whose ``id`` survives the sanitizer
    (PyPI gives headings no ids, so ``<a id>`` anchors are what a ``#x`` can name)."""
    cmarkgfm = pytest.importorskip("cmarkgfm")  # in the dev extra (twine's markdown renderer, GitHub's parser)
    from readme_renderer.clean import clean

    assert _pyproject()["project"]["readme"]["file"] == "README.md"
    source = (ROOT / "README.md").read_text(encoding="utf-8")
    html = clean(cmarkgfm.github_flavored_markdown_to_html(source, options=cmarkgfm.cmark.Options.CMARK_OPT_UNSAFE))
    assert html is not None and "<h1>edge-origin</h1>" in html
    ids = set(re.findall(r'id="([^"]+)"', html))
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert len(hrefs) >= 20 and len(ids) >= 40  # the docs links and the old sections' anchors
    broken = [h for h in hrefs if not re.match(r"^https?://", h) and not (h.startswith("#") and h[1:] in ids)]
    assert not broken, f"links in the long description that lead nowhere on PyPI: {broken}"


def test_package_json_pins_a_supported_node_and_the_lock_agrees() -> None:
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    dev = package["devDependencies"]
    assert int(dev["node"].split(".")[0]) in (22, 24), "Node 22 or 24: what jsii and the CDK CLI support"
    assert package.get("allowScripts", {}).get("node") is True, "npm skips the node binary's install script otherwise"
    assert lock["packages"][""]["devDependencies"] == dev
    for name, version in dev.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version


# --- the distributions (builds in an isolated env: slow) ---------------------------------------
@pytest.fixture(scope="session")
def distributions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return {"wheel": next(out.glob("*.whl")), "sdist": next(out.glob("*.tar.gz"))}


@pytest.mark.slow
def test_twine_accepts_the_wheel_and_the_sdist(distributions: dict[str, Path]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, distributions.values())],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_the_wheel_requires_no_rehearsal_package_outside_its_extra(distributions: dict[str, Path]) -> None:
    with zipfile.ZipFile(distributions["wheel"]) as wheel:
        names = set(wheel.namelist())
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(wheel.read(meta_name).decode())
    assert {"edge_origin/py.typed", "edge_origin/_version.py"} <= names
    assert any(n.startswith("edge_origin/data/") and n.endswith(".json") for n in names)
    assert meta["Description-Content-Type"] == "text/markdown" and "# edge-origin" in meta.get_payload()
    assert meta["License-Expression"] == "Apache-2.0" and meta.get_all("Project-URL")
    unconditional = {_name(r) for r in meta.get_all("Requires-Dist") if "extra ==" not in r}
    assert not (unconditional & (REHEARSAL_DISTRIBUTIONS | {"moto"})), unconditional
    assert {"aws-cdk-lib", "constructs", "cdk-nag", "cfn-lint"} <= unconditional


@pytest.mark.slow
def test_the_sdist_carries_the_changelog_and_the_tests(distributions: dict[str, Path]) -> None:
    with tarfile.open(distributions["sdist"]) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert {"CHANGELOG.md", "README.md", "LICENSE", "pyproject.toml", "constructs/edge_origin/py.typed"} <= names
    assert {"tests/conftest.py", "stacks/app_builder.py", "app.py", "cdk.json"} <= names
    assert not any("__pycache__" in n for n in names)
