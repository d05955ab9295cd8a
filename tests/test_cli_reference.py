"""docs/cli.md is generated from the argparse parsers (scripts/cli_reference.py): it is never stale,
and it holds every command and every flag a user can type."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "cli_reference.py"


def _module():
    spec = importlib.util.spec_from_file_location("cli_reference", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_cli_md_is_what_the_parsers_say() -> None:
    written = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert written == _module().render(), (
        "docs/cli.md is stale: run PYTHONPATH=constructs python scripts/cli_reference.py and commit it")


def test_every_command_and_flag_is_in_it() -> None:
    from edge_origin.cli import build_parser

    module = _module()
    text = module.render()
    commands = list(module.walk(build_parser()))
    assert len(commands) >= 25
    for path, _, parser in commands:
        assert f"# edge-origin {' '.join(path)}\n" in text, path
        for action in parser._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help") and action.help != "==SUPPRESS==":
                    assert f"`{flag}`" in text, (path, flag)


def test_check_mode_says_stale_and_exits_1(tmp_path: Path) -> None:
    module = _module()
    module.OUTPUT = tmp_path / "cli.md"
    module.OUTPUT.write_text("# old\n", encoding="utf-8")
    assert module.main(["--check"]) == 1
    assert module.OUTPUT.read_text(encoding="utf-8") == "# old\n"  # --check writes nothing
    module.OUTPUT.write_text(module.render(), encoding="utf-8")
    assert module.main(["--check"]) == 0


def test_the_output_does_not_depend_on_the_terminal_width() -> None:
    env = {"PYTHONPATH": str(ROOT / "constructs"), "PATH": "/usr/bin:/bin"}
    outs = {subprocess.run([sys.executable, str(SCRIPT), "--check"], env={**env, "COLUMNS": cols},
                           capture_output=True, text=True, timeout=120).returncode for cols in ("40", "200")}
    assert outs == {0}
