"""core.files.keep_freed_memory: the ``edge-origin`` program's read-and-print commands keep freed memory once a
second large file is read (the next file's parse reuses the pages instead of faulting them in again; a check of
one file imports no ctypes); a library caller's process keeps its allocator as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from edge_origin.core import files

ROOT = Path(__file__).resolve().parents[2]
GLIBC = (getattr(os, "confstr", lambda name: "")("CS_GNU_LIBC_VERSION") or "").startswith("glibc")


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each time malloc would be told (``_mallopt``), recorded instead, in a fresh process state."""
    calls: list[str] = []
    monkeypatch.setattr(files, "_kept", [])
    monkeypatch.setattr(files, "_large_read", 0)
    monkeypatch.setattr(files, "_mallopt", lambda: calls.append("told") or True)
    monkeypatch.setattr(files, "_trim", lambda: calls.append("trimmed"))
    return calls


def test_a_library_process_keeps_its_allocator(tmp_path: Path, told: list[str]) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * files.LARGE_FILE_BYTES + b"{}")
    assert not files.SHORT_LIVED_PROCESS
    files.read_bytes_file(big, 4 * files.LARGE_FILE_BYTES)
    assert files.keep_freed_memory() is False
    files.give_back_kept_memory()
    assert told == []


def test_the_program_keeps_freed_memory_once_a_second_large_file_is_read(tmp_path: Path, told: list[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "SHORT_LIVED_PROCESS", True)
    small, big = tmp_path / "small.json", tmp_path / "big.json"
    small.write_bytes(b" " * (files.LARGE_FILE_BYTES - 3) + b"{}")
    big.write_bytes(b" " * files.LARGE_FILE_BYTES + b"{}")
    files.read_bytes_file(small, 4 * files.LARGE_FILE_BYTES)
    assert told == []  # under the bound: nothing to reuse worth a ctypes import
    files.read_bytes_file(big, 4 * files.LARGE_FILE_BYTES)
    assert told == []  # one large file: its buffers are never reused (a check of one file imports no ctypes)
    files.read_bytes_file(big, 4 * files.LARGE_FILE_BYTES)
    files.read_bytes_file(big, 4 * files.LARGE_FILE_BYTES)
    assert told == ["told"]  # once a process
    assert files.keep_freed_memory() is True
    files.give_back_kept_memory()
    assert told == ["told", "trimmed"]


def test_a_run_of_several_files_keeps_freed_memory_from_the_first_large_one(tmp_path: Path, told: list[str],
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Several paths (or a folder): the first large file's parse buffers already serve the next file's."""
    from edge_origin.model import loader

    monkeypatch.setattr(files, "SHORT_LIVED_PROCESS", True)
    first, second = _template(tmp_path / "a.template.json"), _template(tmp_path / "b.template.json")
    reads: list[str] = []
    real = files.read_bytes_file

    def reading(path: object, limit: int) -> bytes:
        data = real(path, limit)
        reads.append(f"{Path(str(path)).name}: {told.count('told')}")
        return data

    monkeypatch.setattr(loader, "read_bytes_file", reading)
    loader.read_paths_result([first, second])
    assert reads == ["a.template.json: 1", "b.template.json: 1"]  # told at the first large file, once


def test_one_file_alone_is_read_with_the_allocator_as_it_was(tmp_path: Path, told: list[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_origin.model import loader

    monkeypatch.setattr(files, "SHORT_LIVED_PROCESS", True)
    loader.read_paths_result([_template(tmp_path / "a.template.json")])
    assert told == []  # never told (nor trimmed): a single file's buffers are never reused


def _template(path: Path) -> Path:
    """A template over LARGE_FILE_BYTES (one resource, a long Metadata string): cheap to check."""
    body = {"Resources": {"B": {"Type": "AWS::S3::Bucket", "Metadata": {"pad": "x" * files.LARGE_FILE_BYTES}}}}
    path.write_text(json.dumps(body))
    return path


CHILD = """
import sys
from edge_origin.core import files
real = files._mallopt
def traced():
    told = real()
    print("mallopt told:", told, file=sys.stderr)
    return told
files._mallopt = traced
trim = files._trim
def traced_trim():
    print("malloc_trim", file=sys.stderr)
    trim()
files._trim = traced_trim
sys.argv = ["edge-origin", "check", *sys.argv[2:]]
from edge_origin import cli
cli.entry() if sys.argv_mode == "program" else print("exit", cli.main(sys.argv[1:]), file=sys.stderr)
"""


@pytest.mark.parametrize("mode", ["program", "library"])
def test_only_the_program_tells_malloc(tmp_path: Path, mode: str) -> None:
    """``edge-origin check`` of two large templates tells glibc's malloc once (True where glibc is the libc),
    and gives the kept memory back once the files are read; ``cli.main`` called as a library function does
    neither."""
    first, second = _template(tmp_path / "a.template.json"), _template(tmp_path / "b.template.json")
    code = CHILD.replace("sys.argv_mode", repr(mode))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    run = subprocess.run([sys.executable, "-c", code, mode, str(first), str(second)], capture_output=True, text=True,
                         env=env, timeout=120, check=False)
    told = [line for line in run.stderr.splitlines() if line.startswith(("mallopt told:", "malloc_trim"))]
    if mode == "program":
        assert told == [f"mallopt told: {GLIBC}", *(["malloc_trim"] if GLIBC else [])], run.stderr[-2000:]
    else:
        assert told == [], run.stderr[-2000:]
        assert "exit " in run.stderr, run.stderr[-2000:]
