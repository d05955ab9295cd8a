"""Every command block of the README and of the docs/ pages runs as written (or is listed with the
reason it cannot run here): see tests/readme_blocks.py for the table, the fixtures and how to add a
block."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from readme_blocks import (
    BLOCKS,
    FIXTURES,
    ROOT,
    Block,
    Run,
    Skip,
    alternatives_in,
    entry_for,
    normalize,
    readme_blocks,
)

BLOCK_LIST = readme_blocks()


def _params() -> list:
    params = []
    for block in BLOCK_LIST:
        found = entry_for(block)
        if found is None or isinstance(found[1], Skip):
            continue
        marks = [pytest.mark.slow] if found[1].slow else []
        params.append(pytest.param(block, found[1], id=f"{block.file}:L{block.line}:{block.key[:60]}", marks=marks))
    return params


def test_every_command_block_is_listed() -> None:
    unlisted = [f"{b.file}:{b.line}: {b.key!r}" for b in BLOCK_LIST if entry_for(b) is None]
    assert not unlisted, ("command blocks neither run nor skipped; add each KEY (or a prefix) to BLOCKS in "
                          "tests/readme_blocks.py:\n" + "\n".join(unlisted))


def test_every_listed_block_exists() -> None:
    used = {entry_for(b)[0] for b in BLOCK_LIST if entry_for(b) is not None}
    stale = sorted(set(BLOCKS) - used)
    assert not stale, f"BLOCKS entries that match no block of their page (edited, moved or removed?): {stale}"


def test_skips_say_why() -> None:
    for key, entry in BLOCKS.items():
        if isinstance(entry, Skip):
            assert len(entry.reason) > 10, key


def test_no_command_reads_differently_in_a_shell() -> None:
    """`--format json|sarif` is a pipe and `[--flag]` a glob when copied: write one real command."""
    bad = [f"{b.file}:{c.line}: {w}" for b in BLOCK_LIST for c in b.commands for w in alternatives_in(c.text)]
    assert not bad, bad


def test_the_docs_pages_are_read_and_keys_name_their_page() -> None:
    from readme_blocks import entry_for, parse_blocks

    files = {b.file for b in BLOCK_LIST}
    assert "README.md" in files and any(f.startswith("docs/") for f in files), files
    (here,) = parse_blocks("```sh\nmake synth\n```\n", "README.md")
    (there,) = parse_blocks("```sh\nmake synth\n```\n", "docs/other.md")
    assert entry_for(here) is not None and entry_for(there) is None  # keyed by (page, prefix)


def test_the_parser_reads_console_blocks() -> None:
    from readme_blocks import parse_blocks

    (block,) = parse_blocks("```console\n$ tool a \\\n    --b   # exit 3\nout 1\n(exit 3)\n$ echo $?\n3\n```\n")
    (command,) = block.commands
    assert command.text == "tool a \\\n    --b   # exit 3" and command.comment_code == 3
    assert command.output == ("out 1", "(exit 3)") and block.key == "tool a --b"


@pytest.fixture(scope="module")
def assembly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference app synthesized once for the module (what `cdk synth` would leave in cdk.out)."""
    from stacks.app_builder import build_reference_app, cdk_json_context

    outdir = tmp_path_factory.mktemp("readme-assembly") / "cdk.out"
    app, _ = build_reference_app(cdk_json_context(), outdir=str(outdir), checks=False)
    app.synth()
    return outdir


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT / "constructs")
    env.setdefault("CDK_VALIDATION", "false")
    # `pip install` in a block (the install block's fresh venv) skips byte-compiling what it installs
    # (botocore, cfn-lint, aws-cdk-lib: over a minute here); what is installed is the same.
    env.setdefault("PIP_COMPILE", "0")
    return env


def _shown_lines_hold(shown: tuple[str, ...], actual: str) -> list[str]:
    """Console output lines (spaces collapsed) missing from the real output."""
    squash = lambda text: " ".join(text.split())  # noqa: E731
    real = squash(actual)
    missing = []
    for line in shown:
        line = re.sub(r"\s*\(exit \d+\)\s*$", "", line)
        head = line.split("...", 1)[0] if "..." in line else line
        if squash(head) and squash(head) not in real:
            missing.append(line)
    return missing


@pytest.mark.parametrize(("block", "entry"), _params())
def test_readme_block_runs(block: Block, entry: Run, tmp_path: Path, assembly: Path) -> None:
    cwd = FIXTURES[entry.fixture](tmp_path, assembly)
    outputs = []
    for index, command in enumerate(block.commands):
        if index in entry.stand_ins:
            continue
        want = entry.codes.get(index, command.comment_code if command.comment_code is not None else 0)
        proc = subprocess.run(["bash", "-c", command.text], cwd=cwd, env=_env(), capture_output=True, text=True,
                              timeout=600)
        where = f"{block.file}:{command.line}: {normalize(command.text)}"
        wanted = set(want) if isinstance(want, tuple) else {want}
        assert proc.returncode in wanted, f"{where}: exit {proc.returncode}, want {want}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        missing = _shown_lines_hold(command.output, proc.stdout + proc.stderr)
        assert not missing, f"{where}: the page shows lines the command does not print: {missing}\n{proc.stdout[-3000:]}"
        outputs.append(proc.stdout + proc.stderr)
    for text in entry.expect:
        assert any(text in out for out in outputs), text


def test_shown_output_must_be_printed() -> None:
    """The check that caught the model example's old logical id."""
    actual = "origin nlb\nTelemetryIngest/IngestFleetNlb1EipZone1E3BF8B3E IngestFleetNlb1F83F75E5   2,334,945\nverdict: spread\n"
    assert _shown_lines_hold(("TelemetryIngest/IngestFleetNlb1EipZone1E3BF8B3E   IngestFleetNlb1F83F75E5 2,334,945",
                              "...   (elided)", "verdict: spread        (exit 0)"), actual) == []
    assert _shown_lines_hold(("TelemetryIngest/IngestFleetNlb1EipDummy1a878516ED IngestFleetNlb1F83F75E5",), actual)
