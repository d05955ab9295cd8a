"""Reading input files safely: regular files only, a size bound, UTF-8 text, bounded parsing.

Every reader of user files (templates, cloud-assembly manifests, validation reports, connection
profiles, config files, rehearsal results) goes through :func:`read_text_file`, so a FIFO,
``/dev/zero``, a directory or a 50 GB file gets one clear line instead of a hang or an exhausted
memory; data files (JSON or YAML) through :func:`load_data_file`, which also bounds nesting and
alias expansion (:func:`check_expansion`: nodes, and characters against ``--max-eval-chars``).
The ``edge-origin`` program's read-and-print commands keep the memory a large file's parse frees for the
next file's (:func:`keep_freed_memory`), and give it back once every file is read.
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


def _flag(limit: int) -> str:
    """" (raise with edge-origin --max-file-mib N)" when ``limit`` is the flag's (other readers keep
    their own fixed bounds)."""
    from edge_origin.core.limits import FLAGS, current

    return f" (raise with edge-origin {FLAGS['file_bytes']} N)" if limit == current().file_bytes else ""


#: Set by the ``edge-origin`` program (``cli.entry``) for a read-and-print command, whose process ends by
#: ``os._exit`` once it has printed: memory it frees may then stay with it (:func:`keep_freed_memory`).
SHORT_LIVED_PROCESS = False
#: A file at least this large is "large": once a second one is read (or the first, when the run reads several
#: files: ``expect_several_files``), freed memory is kept for the next allocation. A check of one file, the common
#: case, imports no ctypes (~3 ms of its start); 11 files of 8.5 MB: ~12.7k page faults fewer than keeping from
#: the second.
LARGE_FILE_BYTES = 1 << 20
_large_read = 0  # large files read so far by this process (1 up front when several files are to be read)
#: glibc's ``mallopt`` parameters (malloc.h) and what they are set to: blocks under 256 MiB come from the
#: heap (orjson's reader takes ~12x a file's size at once, 100 MiB for an 8.5 MB template), and the heap's
#: free top goes back to the kernel only past 512 MiB.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEPT_BELOW, _TRIMMED_PAST = 256 << 20, 512 << 20
_kept: list[bool] = []  # [whether malloc was told] once it was tried


def keep_freed_memory() -> bool:
    """Tell glibc's malloc to keep what is freed for the next allocation (True when it was told).

    By default glibc hands a freed large block (over 128 KiB, then over the largest freed so far, up to 32
    MiB) back to the kernel at once, and trims the heap's free top: parsing the next large file then faults
    every page of its buffers in again (zeroed by the kernel). At 100k resources in 11 files, ~90k of a
    check's ~225k page faults and ~0.2 s of its system time. Only in a ``SHORT_LIVED_PROCESS`` (a library
    caller's process keeps its allocator as it was), only with glibc (``os.confstr``; ctypes is imported
    only then), tried once a process."""
    if not SHORT_LIVED_PROCESS:
        return False
    if not _kept:
        _kept.append(_mallopt())
    return _kept[0]


def expect_several_files() -> None:
    """The run reads more than one file (several paths, a folder, a cloud assembly): keep freed memory from the first
    large one on, so its parse's buffers serve the next file's."""
    global _large_read
    _large_read = max(_large_read, 1)


def _large_file_read() -> None:
    """One more large file read: from the second on (the first, after ``expect_several_files``), keep freed memory."""
    global _large_read
    _large_read += 1
    if _large_read > 1:
        keep_freed_memory()


def give_back_kept_memory() -> None:
    """Once a run's files are parsed, hand the heap's free memory back to the kernel (glibc's
    ``malloc_trim``), when :func:`keep_freed_memory` told malloc to keep it: the parse buffers served every
    file, and the process's peak stays what the trees and the model take (100k resources: 496 MB, as
    without keeping; 527 MB with the buffers kept)."""
    if _kept and _kept[0]:
        _trim()


def _trim() -> None:
    import ctypes

    ctypes.CDLL(None).malloc_trim(0)


def _mallopt() -> bool:
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return False
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
        return bool(mallopt(_M_MMAP_THRESHOLD, _KEPT_BELOW) and mallopt(_M_TRIM_THRESHOLD, _TRIMMED_PAST))
    except (ValueError, OSError, AttributeError, ImportError):  # no such name or library: the allocator as it was
        return False


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
        raise InputFileError(f"{where}: file is {_mib(info.st_size)}, larger than the {_mib(limit)} limit{_flag(limit)}")
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
        first = min(remaining, opened.st_size + 1)  # the whole file in one read (one copy), then to its end
        while remaining > 0:
            chunk = os.read(fd, first if not chunks else min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        raise InputFileError(f"{where}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if len(data) > limit:
        raise InputFileError(f"{where}: file is larger than the {_mib(limit)} limit{_flag(limit)}")
    if len(data) >= LARGE_FILE_BYTES and SHORT_LIVED_PROCESS and not _kept:  # its parse's buffers, reused by the next
        _large_file_read()
    return data


def read_text_file(path: str | Path, limit: int) -> str:
    """A regular UTF-8 text file (a BOM is dropped) of at most ``limit`` bytes."""
    return decode_text(read_bytes_file(path, limit), path)


def decode_text(raw: bytes, path: str | Path) -> str:
    """A file's bytes as UTF-8 text (a BOM is dropped); InputFileError naming ``path`` otherwise."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None


# --- the one safe loader of data files (config, profiles, rehearsal results, baselines) ----------------
#: Most nodes a data document may expand to through YAML aliases (cfn-lint's bound for templates).
MAX_EXPANDED_NODES = 250_000


def check_expansion(doc: object, where: str, max_nodes: int = MAX_EXPANDED_NODES) -> None:
    """InputFileError when ``doc`` (YAML aliases shared) expands to more than ``max_nodes`` nodes or
    more string characters than ``--max-eval-chars``, nests deeper than ``MAX_DEPTH`` or holds
    itself: counted once per distinct node (O(distinct nodes), never the expansion)."""
    from edge_origin.core.limits import MAX_DEPTH, current, raise_hint

    max_chars = current().eval_chars
    memo: dict[int, tuple[int, int, int]] = {}  # id -> (nodes, characters, depth)
    stack: list[tuple[object, bool]] = [(doc, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        children = list(node.values()) + list(node) if isinstance(node, dict) else node
        if not done:
            if id(node) in memo:
                continue
            memo[id(node)] = (-1, -1, -1)  # in progress
            stack.append((node, True))
            stack.extend((c, False) for c in children if isinstance(c, (dict, list)) and id(c) not in memo)
            continue
        nodes, chars, depth = 1, 0, 0
        for child in children:
            if isinstance(child, (dict, list)):
                size, text, below = memo[id(child)]
                if size < 0:
                    raise InputFileError(f"{where}: a recursive alias (a node that contains itself)")
            else:
                size, text, below = 1, len(child) if isinstance(child, str) else 8, -1
            nodes, chars, depth = nodes + size, chars + text, max(depth, below + 1)
        if nodes > max_nodes:
            raise InputFileError(f"{where}: aliases expand to more than {max_nodes:,} nodes (alias amplification is not accepted)")
        if chars > max_chars:
            raise InputFileError(f"{where}: aliases expand to too many characters {raise_hint('eval_chars')}")
        if depth >= MAX_DEPTH:
            raise InputFileError(f"{where}: nested deeper than {MAX_DEPTH} levels")
        memo[id(node)] = (nodes, chars, depth)


def parse_data_text(text: str, where: str) -> object:
    """JSON (a text starting with ``{`` or ``[``), else YAML (PyYAML's safe loader), checked by
    :func:`check_expansion`; InputFileError (one line naming ``where``) when it is neither."""
    if text.lstrip().startswith(("{", "[")):
        import json

        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputFileError(f"{where}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
        except (ValueError, RecursionError) as exc:  # an integer too long to convert, deep nesting
            raise InputFileError(f"{where}: not valid JSON ({'nested too deeply' if isinstance(exc, RecursionError) else str(exc)[:80]})") from None
    else:
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        try:
            data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f" at line {mark.line + 1}" if mark is not None else ""
            raise InputFileError(f"{where}: not valid JSON or YAML{line}") from None
        except (ValueError, RecursionError, TypeError) as exc:
            raise InputFileError(f"{where}: not valid YAML ({type(exc).__name__})") from None
    check_expansion(data, where)
    return data


def load_data_file(path: str | Path, limit: int | None = None) -> object:
    """A JSON or YAML data file through the one safe path: a regular file (no FIFO, device or
    directory) of at most ``limit`` bytes (default ``--max-file-mib``), UTF-8, parsed with bounded
    depth and alias expansion. InputFileError: one line naming the file."""
    from edge_origin.core.limits import current

    chosen = current().file_bytes if limit is None else limit
    return parse_data_text(read_text_file(path, chosen), str(path))
