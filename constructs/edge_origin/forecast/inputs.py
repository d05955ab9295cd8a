"""Inputs of the internet-scale model: audience shares over edges, origin capacity, reconnect backoff.

Every parser raises :class:`ModelInputError` with one line naming the flag (or file and line) and the
allowed form; NaN, infinities and negatives are refused everywhere.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from edge_origin import _moved
from edge_origin.core.facts import value

SHARE_TOLERANCE = 1e-3  # shares in a file must sum to 1 within this (rounded CSV figures), then are normalized
MAX_EDGES = 100_000
MAX_CSV_BYTES = 16 << 20  # an edge,share or origin,capacity CSV
MAX_RETRY_ATTEMPTS = 1_000
# gRPC's connection backoff (grpc/doc/connection-backoff.md): 1 s initial, x1.6, +-20 % jitter, 120 s cap
_, GRPC_BACKOFF_MULTIPLIER, GRPC_BACKOFF_JITTER, GRPC_BACKOFF_MAX = value("grpc.backoff")  # gRPC connection-backoff.md


class ModelInputError(ValueError):
    """Bad model input (one line naming the flag)."""


def _finite(text: str, flag: str, what: str = "a number") -> float:
    try:
        value = float(text)
    except ValueError:
        raise ModelInputError(f"{flag}: {text.strip()[:40]!r} is not {what}") from None
    if not math.isfinite(value):
        raise ModelInputError(f"{flag}: {text.strip()[:40]!r} is not a finite number")
    return value


def _is_header(cells: Sequence[str], words: Sequence[str]) -> bool:
    """A header row names the columns (``edge,share`` / ``origin,capacity``, any case)."""
    return [c.lower() for c in cells] == list(words)


def _exists(text: str) -> bool:
    """True when ``text`` names something on disk (the reader then says what it is if not a file)."""
    try:
        os.stat(text)
    except (OSError, ValueError):
        return False
    return bool(text)


def _shown(path: str | Path, limit: int = 80) -> str:
    """A path as one line of a message: control and line-break characters escaped, long names shortened."""
    text = str(path)
    if any(ord(c) < 0x20 or c in "\x7f\x85\u2028\u2029" for c in text):
        text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= limit else f"{text[:limit // 2]}...{text[-limit // 4:]}"


def _read_csv(path: str | Path, flag: str, expected: str = "") -> str:
    """The text of a CSV input: a regular UTF-8 file of at most MAX_CSV_BYTES (stat'ed before it is
    opened, so a FIFO never blocks); ModelInputError naming the flag otherwise."""
    from edge_origin.core.files import InputFileError, read_text_file

    where = str(path)
    shown = _shown(where)
    if not where.strip():
        raise ModelInputError(f"{flag}: empty file name{expected}")
    try:
        return read_text_file(where, MAX_CSV_BYTES)
    except InputFileError as exc:
        reason = str(exc).removeprefix(f"{where}: ")
        raise ModelInputError(f"{flag}: {shown}: {reason}{expected}") from None
    except ValueError as exc:  # a NUL byte in the name
        raise ModelInputError(f"{flag}: {shown!r} is not a usable file name ({exc})") from None


def _csv_rows(text: str, path: str | Path, flag: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of a CSV text; a malformed row (a field past csv's limit, a NUL) is ModelInputError."""
    reader = csv.reader(text.splitlines())
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ModelInputError(f"{flag}: {_shown(path)}:{reader.line_num}: not a CSV row ({exc})") from None
        yield reader.line_num, row


# --- how devices spread over edges -----------------------------------------------------------
def zipf_shares(edges: int, exponent: float) -> list[float]:
    """Share of edge rank k (1..E) proportional to 1 / k**exponent (0: uniform)."""
    weights = [1.0 / (k**exponent) for k in range(1, edges + 1)]
    total = sum(weights)
    return [w / total for w in weights]


def read_shares_file(path: str | Path, flag: str = "--edge-traffic") -> tuple[list[str], list[float]]:
    """A CSV of ``edge,share`` rows (an optional header row; ``#`` comments): edge names and shares.

    Shares must be finite, >= 0, not all zero, and sum to 1 (within :data:`SHARE_TOLERANCE`).
    """
    text = _read_csv(path, flag, " (expected uniform, zipf:S or a CSV of edge,share)")
    p = _shown(path)
    names: list[str] = []
    shares: list[float] = []
    for lineno, row in _csv_rows(text, p, flag):
        cells = [c.strip() for c in row]
        if not cells or not any(cells) or cells[0].startswith("#"):
            continue
        if len(cells) != 2:
            raise ModelInputError(f"{flag}: {p}:{lineno}: expected 'edge,share', got {len(cells)} field(s)")
        name, raw = cells
        if not names and _is_header(cells, ("edge", "share")):
            continue
        try:
            value = float(raw)
        except ValueError:
            raise ModelInputError(f"{flag}: {p}:{lineno}: share {raw[:40]!r} is not a number") from None
        if not math.isfinite(value) or value < 0:
            raise ModelInputError(f"{flag}: {p}:{lineno}: share {raw[:40]!r} must be a finite number >= 0")
        if not name:
            raise ModelInputError(f"{flag}: {p}:{lineno}: empty edge name")
        if name in names:
            raise ModelInputError(f"{flag}: {p}:{lineno}: edge {name!r} listed twice")
        names.append(name)
        shares.append(value)
        if len(names) > MAX_EDGES:
            raise ModelInputError(f"{flag}: {p}: more than {MAX_EDGES} edges")
    if not names:
        raise ModelInputError(f"{flag}: {p}: no 'edge,share' rows")
    total = sum(shares)
    if abs(total - 1.0) > SHARE_TOLERANCE:
        raise ModelInputError(f"{flag}: {p}: shares sum to {total:.6g}, not 1 (tolerance {SHARE_TOLERANCE:g})")
    return names, [s / total for s in shares]


def edge_shares(spec: str | Sequence[float], edges: int, flag: str = "--edge-traffic") -> list[float]:
    """Shares of the devices per edge: ``uniform``, ``zipf:S`` (S >= 0), a CSV path, or a list of shares."""
    if not isinstance(spec, str):
        values = [float(v) for v in spec]
        if not values or any(not math.isfinite(v) or v < 0 for v in values):
            raise ModelInputError(f"{flag}: shares must be finite numbers >= 0")
        total = sum(values)
        if abs(total - 1.0) > SHARE_TOLERANCE:
            raise ModelInputError(f"{flag}: shares sum to {total:.6g}, not 1")
        if len(values) != edges:
            raise ModelInputError(f"{flag}: {len(values)} shares for {edges} edges (--edges)")
        return [v / total for v in values]
    text = spec.strip()
    if text == "uniform":
        return [1.0 / edges] * edges
    if text.startswith("zipf:"):
        exponent = _finite(text[5:], flag, "a zipf exponent")
        if exponent < 0 or exponent > 10:
            raise ModelInputError(f"{flag}: zipf exponent must be 0..10 (got {exponent:g})")
        return zipf_shares(edges, exponent)
    if text.startswith("zipf") or not _exists(text):
        raise ModelInputError(f"{flag}: {text[:60]!r} is not uniform, zipf:S or an existing CSV file of edge,share")
    _names, shares = read_shares_file(text, flag)
    if len(shares) != edges:
        raise ModelInputError(f"{flag}: {_shown(text)} lists {len(shares)} edges but --edges is {edges}")
    return shares


def shares_file_edges(spec: str) -> int | None:
    """The number of edges a shares file lists (None when ``spec`` is uniform or zipf:S)."""
    text = spec.strip()
    if text == "uniform" or text.startswith("zipf"):
        return None
    return len(read_shares_file(text)[0])


# --- origin capacity -------------------------------------------------------------------------
@dataclass(frozen=True)
class Capacity:
    """What one origin address takes before refusing: concurrent connections, or new connections a second."""

    value: float
    per_second: bool = False

    def __str__(self) -> str:
        number = f"{self.value:.0f}" if self.value >= 1000 else f"{self.value:g}"
        return f"{number}/s" if self.per_second else number


def parse_capacity(text: str, flag: str = "--origin-capacity") -> Capacity:
    """``N`` (concurrent connections) or ``N/s`` (new connections per second); N finite and > 0."""
    raw = text.strip().replace("_", "")
    per_second = raw.endswith("/s")
    number = raw[:-2] if per_second else raw
    value = _finite(number, flag, "N or N/s")
    if value <= 0:
        raise ModelInputError(f"{flag}: capacity must be > 0 (got {text.strip()[:40]!r})")
    return Capacity(value, per_second)


def read_capacity_file(path: str | Path, flag: str = "--origin-capacity-file") -> dict[str, Capacity]:
    """A CSV of ``origin,capacity`` rows (capacity ``N`` or ``N/s``; optional header; ``#`` comments)."""
    text = _read_csv(path, flag)
    p = _shown(path)
    out: dict[str, Capacity] = {}
    for lineno, row in _csv_rows(text, p, flag):
        cells = [c.strip() for c in row]
        if not cells or not any(cells) or cells[0].startswith("#"):
            continue
        if len(cells) != 2:
            raise ModelInputError(f"{flag}: {p}:{lineno}: expected 'origin,capacity', got {len(cells)} field(s)")
        name, raw = cells
        if not out and _is_header(cells, ("origin", "capacity")):
            continue
        cap = parse_capacity(raw, f"{flag}: {p}:{lineno}")
        if not name:
            raise ModelInputError(f"{flag}: {p}:{lineno}: empty origin name")
        if name in out:
            raise ModelInputError(f"{flag}: {p}:{lineno}: origin {name!r} listed twice")
        out[name] = cap
    if not out:
        raise ModelInputError(f"{flag}: {p}: no 'origin,capacity' rows")
    return out


def resolve_origin_name(keys: Sequence[str], text: str, flag: str) -> str:
    """An origin key from its key, its logical id (``Stack/Id`` -> ``Id``) or a unique part of it."""
    from edge_origin.rehearsal.plan import match_origin_key

    try:
        return match_origin_key(keys, text)
    except LookupError as exc:
        raise ModelInputError(f"{flag}: {exc.args[0]}") from None


def capacities_by_origin(
    keys: Sequence[str],
    default: Capacity | None,
    overrides: Mapping[str, Capacity] | None,
    flag: str = "--origin-capacity-file",
) -> dict[str, Capacity | None]:
    """Each origin's capacity: its override, else the default (None: never refuses)."""
    out: dict[str, Capacity | None] = dict.fromkeys(keys, default)
    for name, cap in (overrides or {}).items():
        out[resolve_origin_name(keys, name, flag)] = cap
    return out


# --- reconnects ------------------------------------------------------------------------------
@dataclass(frozen=True)
class RetryPolicy:
    """Reconnects after a refused attempt: ``attempts`` retries (``math.inf``: forever, as a gRPC channel
    does), the k-th after ``min(max_delay, base_delay * 1.6**(k-1))`` seconds, +-20 % jitter."""

    attempts: float = math.inf
    base_delay: float = 1.0
    max_delay: float = GRPC_BACKOFF_MAX
    multiplier: float = GRPC_BACKOFF_MULTIPLIER
    jitter: float = GRPC_BACKOFF_JITTER

    def delay(self, k: int) -> float:
        """Seconds before retry ``k`` (1-based), before jitter."""
        return min(self.max_delay, self.base_delay * self.multiplier ** (k - 1))

    def __str__(self) -> str:
        attempts = "inf" if math.isinf(self.attempts) else str(int(self.attempts))
        return f"{attempts}:{self.base_delay:g}:{self.max_delay:g}"


def parse_retry(text: str, flag: str = "--retry") -> RetryPolicy:
    """``ATTEMPTS[:BASE_DELAY[:MAX_DELAY]]``: retries per device (0 none, ``inf`` forever), seconds."""
    parts = [p.strip() for p in text.strip().split(":")]
    if not 1 <= len(parts) <= 3 or not parts[0]:
        raise ModelInputError(f"{flag}: expected ATTEMPTS[:BASE_DELAY[:MAX_DELAY]] (got {text[:40]!r})")
    if parts[0].lower() in ("inf", "forever"):
        attempts = math.inf
    else:
        try:
            attempts = float(int(parts[0].replace("_", "")))
        except ValueError:
            raise ModelInputError(f"{flag}: attempts {parts[0][:40]!r} is not an integer or 'inf'") from None
        if not 0 <= attempts <= MAX_RETRY_ATTEMPTS:
            raise ModelInputError(f"{flag}: attempts must be 0..{MAX_RETRY_ATTEMPTS} or inf (got {parts[0]})")
    base = _finite(parts[1], flag, "a base delay in seconds") if len(parts) > 1 else 1.0
    if base <= 0 or base > 3600:
        raise ModelInputError(f"{flag}: base delay must be > 0 and <= 3600 s (got {parts[1]})")
    top = _finite(parts[2], flag, "a max delay in seconds") if len(parts) > 2 else max(GRPC_BACKOFF_MAX, base)
    if top < base or top > 3600:
        raise ModelInputError(f"{flag}: max delay must be >= the base delay and <= 3600 s (got {parts[2]})")
    return RetryPolicy(attempts=attempts, base_delay=base, max_delay=top)


__getattr__ = _moved.old_names(__name__)  # ModelError -> ModelInputError, until 0.3
