"""The top-level constructs/ folder must never shadow the `constructs` library."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_constructs_folder_is_not_a_package() -> None:
    assert not (ROOT / "constructs" / "__init__.py").exists()


def test_import_constructs_resolves_to_the_library_from_repo_root() -> None:
    code = (
        "import constructs, edge_origin, pathlib;"
        "print(pathlib.Path(constructs.__file__).resolve());"
        "print(pathlib.Path(edge_origin.__file__).resolve());"
        "print(hasattr(constructs, 'Construct'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    constructs_file, edge_origin_file, has_construct = out
    assert "site-packages" in constructs_file, constructs_file
    assert Path(edge_origin_file).is_relative_to(ROOT / "constructs" / "edge_origin")
    assert has_construct == "True"
