"""The one safe loader of data files (issue 50): config files, connection profiles, rehearsal
results go through core/files.load_data_file: regular files only (a FIFO, /dev/zero, a directory
are one line, never a hang or a MemoryError), the --max-file-mib bound, bounded nesting, aliases
bounded in nodes and characters."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from edge_origin import cli
from edge_origin.core.files import InputFileError, load_data_file, parse_data_text
from edge_origin.core.limits import using
from tests.hostile_support import profile_alias_bomb

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


@needs_fifo
def test_non_regular_files_are_named_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "r.json"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match=r"r.json: is a named pipe \(FIFO\), not a regular file"):
        load_data_file(fifo)
    with pytest.raises(InputFileError, match="/dev/zero: is a character device, not a regular file"):
        load_data_file("/dev/zero")
    with pytest.raises(InputFileError, match="is a directory"):
        load_data_file(tmp_path)


def test_size_depth_and_aliases_are_bounded(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text("[" + " " * (2 * 1024 * 1024) + "]")
    with using(file_bytes=1024 * 1024), pytest.raises(
        InputFileError, match=r"big.json: file is 2.0 MiB, larger than the 1.0 MiB limit \(raise with edge-origin --max-file-mib N\)"
    ):
        load_data_file(big)
    with pytest.raises(InputFileError, match="deep.json: not valid JSON"):
        parse_data_text("[" * 100_000 + "]" * 100_000, "deep.json")
    with pytest.raises(InputFileError, match="nested deeper than 100 levels"):
        parse_data_text("[" * 150 + "]" * 150, "d.json")
    assert parse_data_text("[" * 50 + "]" * 50, "d.json") is not None
    _, bomb = profile_alias_bomb()
    with pytest.raises(InputFileError, match="aliases expand to more than 250,000 nodes"):
        parse_data_text(bomb, "p.yaml")
    wide = "s: &s " + "x" * 1000 + "\nl: [" + ", ".join(["*s"] * 2000) + "]\n"
    with using(eval_chars=1_000_000), pytest.raises(InputFileError, match="too many characters.*--max-eval-chars"):
        parse_data_text(wide, "w.yaml")
    with using(eval_chars=3_000_000):
        assert len(parse_data_text(wide, "w.yaml")["l"]) == 2000  # type: ignore[index]


@needs_fifo
@pytest.mark.parametrize("kind", ["fifo", "zero", "deep"])
def test_ready_rehearsal_file_is_one_line_exit_2(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "deep":
        path.write_text("[" * 200_000 + "]" * 200_000)
    else:
        path = Path("/dev/zero")
    assert cli.main(["ready", "--rehearsal", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"--rehearsal {path}: not a readable JSON file (" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@needs_fifo
def test_profile_and_config_readers_take_the_same_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "p.yaml"
    os.mkfifo(fifo)
    assert cli.main(["profile", "check", str(fifo)]) == 2
    assert "is a named pipe (FIFO), not a regular file" in capsys.readouterr().err
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(profile_alias_bomb()[1])
    assert cli.main(["profile", "check", str(bomb)]) == 2
    assert "aliases expand to more than 250,000 nodes" in capsys.readouterr().err
    template = tmp_path / "t.json"
    template.write_text('{"Resources": {"R": {"Type": "AWS::SNS::Topic"}}}')
    assert cli.main(["check", "--config", str(bomb), str(template)]) == 2
    err = capsys.readouterr().err
    assert "bomb.yaml" in err and "aliases expand to more than 250,000 nodes" in err and len(err.strip().splitlines()) == 1


def _alias_dag(levels: int, fan: int) -> list:
    """A list whose repr would be ``fan ** levels`` strings long (what YAML aliases build)."""
    node: list = ["x" * 100]
    for _ in range(levels):
        node = [node] * fan
    return node


def test_error_text_is_cut_while_it_is_built() -> None:
    from edge_origin.core.limits import short_repr
    from edge_origin.profile.core import _r

    bomb = _alias_dag(12, 10)  # 10**12 leaves once expanded: repr() would never finish
    assert len(short_repr(bomb)) == 60 and short_repr(bomb).startswith("[[[[")
    assert len(_r({"edges": bomb})) <= 60
    assert short_repr("x" * 10**7, 20) == "'" + "x" * 16 + "..."
    assert short_repr({"a": (1,)}) == repr({"a": (1,)})
    assert short_repr(10**5000).startswith("<an integer of")
