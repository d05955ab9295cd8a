"""Bad input to `edge-origin diff`: one line naming the side, path or flag; exit 2; never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from edge_origin.cli import main

PAIRS = Path(__file__).resolve().parents[1] / "fixtures" / "diff"
BASE = PAIRS / "ttl-lowered" / "base" / "Edge.template.json"
HEAD = PAIRS / "ttl-lowered" / "head" / "Edge.template.json"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["diff", *args])
    captured = capsys.readouterr()
    return code, captured.err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def cdk_out(folder: Path, stack: str, template: Path) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(template, folder / f"{stack}.template.json")
    manifest = {"version": "40.0.0", "artifacts": {stack: {"type": "aws:cloudformation:stack", "properties": {"templateFile": f"{stack}.template.json"}}}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_base_missing(capsys, tmp_path: Path) -> None:
    code, err = run(capsys, "--base", str(tmp_path / "nope.json"), "--head", str(HEAD))
    assert code == 2 and "--base" in one_line(err) and "no such file" in err


def test_head_unparsable(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "head" / "Edge.template.json"
    bad.parent.mkdir()
    bad.write_text("{not json: [")
    code, err = run(capsys, "--base", str(BASE), "--head", str(bad))
    assert code == 2 and one_line(err).startswith("edge-origin diff: --head: ") and str(bad) in err


def test_head_not_a_template(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "Edge.template.json"
    bad.write_text(json.dumps({"Outputs": {}}))
    code, err = run(capsys, "--base", str(BASE), "--head", str(bad))
    assert code == 2 and "no Resources mapping" in one_line(err)


def test_same_path_for_both(capsys) -> None:
    code, err = run(capsys, "--base", str(BASE), "--head", str(BASE))
    assert code == 2 and "the same path is given for --base and --head" in one_line(err)


def test_same_directory_for_both_via_another_spelling(capsys, tmp_path: Path) -> None:
    out = cdk_out(tmp_path / "cdk.out", "Edge", BASE)
    code, err = run(capsys, "--base", str(out), "--head", str(out / ".." / "cdk.out"))
    assert code == 2 and "same path" in one_line(err)


def test_no_common_stacks_says_everything_is_added(capsys, tmp_path: Path) -> None:
    other = tmp_path / "Other.template.json"
    shutil.copy(HEAD, other)
    code, err = run(capsys, "--base", str(BASE), "--head", str(other))
    line = one_line(err)
    assert code == 2 and "no stack in common (base: Edge; head: Other)" in line and "removed and added" in line


def test_mismatched_kinds_are_named(capsys, tmp_path: Path) -> None:
    out = cdk_out(tmp_path / "cdk.out", "EdgeStack", BASE)
    code, err = run(capsys, "--base", str(out), "--head", str(HEAD))
    line = one_line(err)
    assert code == 2 and "--base is a cloud assembly (cdk.out) and --head is template files" in line


def test_matching_kinds_differ_but_stacks_match_is_fine(capsys, tmp_path: Path) -> None:
    out = cdk_out(tmp_path / "cdk.out", "Edge", BASE)
    code = main(["diff", "--base", str(out), "--head", str(HEAD)])
    assert code == 0 and "ttl 60 -> 30" in capsys.readouterr().out


def test_directory_without_manifest(capsys, tmp_path: Path) -> None:
    folder = tmp_path / "not-cdk-out"
    folder.mkdir()
    shutil.copy(BASE, folder)
    code, err = run(capsys, "--base", str(folder), "--head", str(HEAD))
    assert code == 2 and "no manifest.json" in one_line(err)


def test_empty_file(capsys, tmp_path: Path) -> None:
    empty = tmp_path / "Edge.template.json"
    empty.write_text("")
    code, err = run(capsys, "--base", str(empty), "--head", str(HEAD))
    assert code == 2 and "empty file" in one_line(err)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--format", "html"], "--format 'html': allowed text, json, markdown, sarif"),
        (["--fail-on", "fatal"], "--fail-on: unknown severity 'fatal'"),
    ],
)
def test_bad_flags(capsys, args: list[str], needle: str) -> None:
    code, err = run(capsys, "--base", str(BASE), "--head", str(HEAD), *args)
    assert code == 2 and needle in one_line(err)


def test_missing_side_is_an_argparse_error(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["diff", "--base", str(BASE)])
    assert exc.value.code == 2
    assert "--head" in one_line(capsys.readouterr().err)


def test_duplicate_stack_names_on_one_side(capsys, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    shutil.copy(BASE, a / "Edge.template.json")
    shutil.copy(BASE, b / "Edge.json")
    code, err = run(capsys, "--base", str(a / "Edge.template.json"), str(b / "Edge.json"), "--head", str(HEAD))
    assert code == 2 and "--base" in one_line(err) and "stack name 'Edge'" in err
