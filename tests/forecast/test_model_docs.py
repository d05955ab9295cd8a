"""docs/model.md's commands run from the repository root and print what the page shows."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from pathlib import Path

import pytest

from edge_origin import cli

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "model.md"
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def _examples() -> list:
    out = []
    for block in BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        lines = block.replace("\\\n", " ").splitlines()
        command = shlex.split(lines[0].removeprefix("$ "))
        assert command[0] == "edge-origin"
        out.append(pytest.param(command[1:], lines[1:], id=" ".join(command[1:4])))
    return out


@pytest.mark.parametrize(("argv", "shown"), _examples())
def test_every_command_of_the_page_prints_what_the_page_shows(argv: list[str], shown: list[str]) -> None:
    out = io.StringIO()
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = cli.main(argv)
    finally:
        os.chdir(cwd)
    printed = out.getvalue()
    assert code in (cli.EXIT_OK, cli.EXIT_FINDINGS)
    for line in shown:
        if line.strip() in ("", "..."):
            continue
        wanted = line.removesuffix("...").rstrip() if line.endswith("...") else line
        if re.search(r"\d+\.\d s$", wanted):  # the run time of `model fit`
            wanted = wanted.rsplit(";", 1)[0]
        assert wanted in printed, (argv, line)
