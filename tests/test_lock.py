"""Issue 48: the dev and test environment installs from requirements-dev.txt (pinned, with hashes).

The lock must hold, for every requirement pyproject.toml names (the core and every extra, the
self-referencing ``edge-origin[...]`` extras followed), a pinned version the range allows, and a hash
for every pin; ``.ci/moved`` names what a wheel job installed past the lock."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements-dev.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked() -> dict[str, str]:
    return {canonical(m.group(1)): m.group(2) for line in LOCK.read_text().splitlines() if (m := PIN.match(line))}


def wanted() -> list[Requirement]:
    if tomllib is None:
        pytest.skip("tomllib: Python 3.11+")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    out, todo, seen = [Requirement(r) for r in project["dependencies"]], ["dev"], set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for text in extras[extra]:
            req = Requirement(text)
            if canonical(req.name) == "edge-origin":
                todo.extend(req.extras)
            else:
                out.append(req)
    return out


def test_every_requirement_is_pinned_within_its_range() -> None:
    pins = locked()
    problems = []
    for req in wanted():
        if req.marker is not None and not req.marker.evaluate():
            continue
        version = pins.get(canonical(req.name))
        if version is None:
            problems.append(f"{req}: not in the lock")
        elif not req.specifier.contains(Version(version), prereleases=True):
            problems.append(f"{req}: the lock pins {version}")
    assert problems == [], "requirements-dev.txt is stale; run `make lock`: " + "; ".join(problems)


def test_every_pin_has_a_hash() -> None:
    text = LOCK.read_text()
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text)
    pinned = [b for b in blocks if PIN.match(b)]
    assert len(pinned) > 50
    assert [b.split()[0] for b in pinned if "--hash=sha256:" not in b] == []


def test_the_build_tools_are_locked_too() -> None:
    """`make setup` installs the package with --no-build-isolation: its build back-end comes from the lock."""
    pins = locked()
    assert {"pip", "setuptools", "wheel"} <= set(pins)
    assert Version(pins["setuptools"]) >= Version("77")


def test_moved_lists_only_packages_newer_than_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "dev.lock"
    lock.write_text("moto==5.2.6 \\\n    --hash=sha256:00\nboto3==1.44.18 \\\n    --hash=sha256:11\naws-cdk-lib==2.275.0 \\\n")
    freeze = tmp_path / "freeze.txt"
    freeze.write_text("moto==5.3.0\nBoto3==1.44.18\naws_cdk_lib==2.264.0\nnot-locked==1.0\n")
    done = subprocess.run([sys.executable, str(ROOT / ".ci" / "moved"), str(lock), str(freeze), str(tmp_path / "absent.txt")],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "moto: 5.2.6 -> 5.3.0\n", "")
    same = subprocess.run([sys.executable, str(ROOT / ".ci" / "moved"), str(lock), str(lock)],
                          capture_output=True, text=True, timeout=60)
    assert (same.returncode, same.stdout) == (0, "")


def test_the_set_up_installs_from_the_lock() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "--require-hashes -r $(LOCK)" in makefile and "$(VENV)/.installed: pyproject.toml $(LOCK)" in makefile
    # with --no-deps pip installs in no dependency order, and aws-cdk.cloud-assembly-schema can overwrite
    # aws-cdk-lib's aws_cdk/cloud_assembly_schema/__init__.py (see the next test)
    assert "--require-hashes --no-deps -r $(LOCK)" not in makefile
    assert "pip install --quiet -e '.[dev]'" not in makefile


def test_aws_cdk_lib_s_cloud_assembly_schema_module_is_the_one_installed() -> None:
    """aws-cdk-lib and aws-cdk.cloud-assembly-schema both ship aws_cdk/cloud_assembly_schema/__init__.py; the
    one left must be aws-cdk-lib's (it registers the types jsii returns when CDK's messages are read), as pip
    leaves it when it installs dependencies first. The other one: "Unknown interface:
    aws-cdk-lib.cloud_assembly_schema.MetadataEntry" in every test that reads a stack's annotations."""
    import importlib.util

    spec = importlib.util.find_spec("aws_cdk.cloud_assembly_schema")
    assert spec is not None and spec.origin is not None
    assert "aws-cdk-lib.cloud_assembly_schema." in Path(spec.origin).read_text(encoding="utf-8")
