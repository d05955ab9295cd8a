"""Reading input files safely: regular files only, a size bound, UTF-8 text.

Every reader of user files (templates, cloud-assembly manifests, validation reports, connection
profiles) goes through :func:`read_text_file`, so a FIFO, ``/dev/zero``, a directory or a 50 GB
file gets one clear line instead of a hang or an exhausted memory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class InputFileError(ValueError):
    """A file that cannot be read as input: one line naming the file and what it is."""


def describe_mode(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB" if size < 10 * 1024 * 1024 else f"{size // (1024 * 1024)} MiB"


def read_bytes_file(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; InputFileError otherwise.

    The file is stat'ed before it is opened (a FIFO would block ``open``), opened non-blocking,
    checked again on the open descriptor, and read up to ``limit + 1`` bytes (a file that grows
    while read is still refused).
    """
    where = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(f"{where}: cannot read (no such file)") from None
    except OSError as exc:
        raise InputFileError(f"{where}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(f"{where}: is {describe_mode(info.st_mode)}, not a regular file")
    if info.st_size > limit:
        raise InputFileError(f"{where}: file is {_mib(info.st_size)}, larger than the {_mib(limit)} limit")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputFileError(f"{where}: cannot read ({exc.strerror or exc})") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise InputFileError(f"{where}: is {describe_mode(opened.st_mode)}, not a regular file")
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        raise InputFileError(f"{where}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise InputFileError(f"{where}: file is larger than the {_mib(limit)} limit")
    return data


def read_text_file(path: str | Path, limit: int) -> str:
    """A regular UTF-8 text file (a BOM is dropped) of at most ``limit`` bytes."""
    raw = read_bytes_file(path, limit)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
