"""Readers of measurement files, chosen by content, never by extension.

Each reader module has ``NAME``, ``DESCRIPTION``, ``sniff(text) -> bool`` and
``read(source, text) -> tuple[Measurements, ...]``.  :data:`REGISTRY` lists them in the order
they are tried: tools with a banner first, then the headerless NetPIPE table, and the
canonical CSV last because it is the most permissive.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from perfmodel.errors import InputError
from perfmodel.io import MEASUREMENT_CAP, TOML_CAP, read_file
from perfmodel.measurements import PATTERNS, POINT_TO_POINT, Measurements
from perfmodel.readers import canonical, imb, mpi4py_bench, netperf, netpipe, npb, osu, stream
from perfmodel.readers._toml import check_header as check_header
from perfmodel.readers._toml import check_version as check_version
from perfmodel.readers._toml import key_line as key_line
from perfmodel.readers._toml import kind_error as kind_error
from perfmodel.readers._toml import parse_toml as parse_toml
from perfmodel.readers._toml import unknown_key as unknown_key
from perfmodel.readers.kinds import binary_kind, wrong_kind

REGISTRY: dict[str, ModuleType] = {r.NAME: r for r in (
    osu, imb, mpi4py_bench, netperf, stream, npb, netpipe, canonical)}
FALLBACKS = (netpipe.NAME, canonical.NAME)
"""Formats without a banner, tried only when no tool's banner is found."""

MAX_BYTES = MEASUREMENT_CAP


def read_text(path: str | Path, what: str = "a measurement file", cap: int = MAX_BYTES
              ) -> tuple[str, bytes]:
    """The file's text (UTF-8, BOM removed) and its raw bytes; one clear error otherwise.
    ``what`` the file should be ("a machine profile") goes in the fixes; at most ``cap`` bytes
    are read (:func:`perfmodel.io.read_file` refuses FIFOs, devices and folders first)."""
    p = Path(path)
    raw = read_file(p, what, cap)
    if b"\x00" in raw[:65536] or binary_kind(raw):
        looks = binary_kind(raw)
        raise InputError(f"is binary, not text{f' ({looks})' if looks else ''}", file=p,
                         fix="give the benchmark's text output or a CSV"
                         if what == "a measurement file" else f"give {what} (plain text)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError("is not UTF-8 text", file=p, line=line,
                         fix="save it as UTF-8 (or give the benchmark's original output)") from None
    return text, raw


def read_toml(path: str | Path, what: str = "a perfmodel TOML file", want: str | None = None
              ) -> tuple[dict[str, Any], str]:
    """A TOML file's document and text; a syntax error names its line.  ``want``, the key
    (:data:`~perfmodel.readers.kinds.WANTED`) of the kind the caller reads: a file that is
    not TOML but some other kind perfmodel knows (a benchmark output, a CSV) is named as that
    kind, with the command that takes it."""
    text, _ = read_text(path, what, TOML_CAP)
    try:
        return parse_toml(text, path), text
    except InputError:
        other = wrong_kind(path, text, want, noun=what.split(" (")[0])
        if other is not None:
            raise other from None
        raise


def claims(text: str) -> list[ModuleType]:
    """Every reader that recognises ``text``: tools with a banner first, the one whose banner
    comes first in the file leading; then the formats without a banner, in registry order."""
    banners = [r for name, r in REGISTRY.items() if name not in FALLBACKS and r.sniff(text)]
    if len(banners) > 1:
        banners.sort(key=lambda reader: _first_line(reader, text))
    if banners:
        return banners
    return [REGISTRY[n] for n in FALLBACKS if REGISTRY[n].sniff(text)][:1]


def _first_line(reader: ModuleType, text: str) -> int:
    """The line of ``text`` where ``reader``'s banner first appears (by bisection on lines)."""
    lines = text.splitlines(keepends=True)
    lo, hi = 1, len(lines)
    if not reader.sniff("".join(lines[:hi])):
        return hi
    while lo < hi:
        mid = (lo + hi) // 2
        if reader.sniff("".join(lines[:mid])):
            hi = mid
        else:
            lo = mid + 1
    return lo


def sniff(text: str) -> ModuleType | None:
    """The reader ``text`` is read with, or None."""
    found = claims(text)
    return found[0] if found else None


def parse(source: str, text: str, whole: bool = False) -> tuple[Measurements, ...]:
    """Every table of measurements in ``text``, read by the first reader that knows it.
    ``whole``: ``text`` is a whole file as written, so a last row without a line end was cut
    (:func:`_cut_row`)."""
    if not text.strip():
        raise InputError("is empty", file=source, fix="give a file with a header and data rows")
    found = claims(text)
    if not found or found[0] is canonical:   # perfmodel's own TOML, a timings CSV?
        other = wrong_kind(source, text, "measurements", measurements=False)
        if other is not None:
            raise other
    if not found:
        raise InputError(f"format not recognised (tried {', '.join(REGISTRY)})", file=source,
                         line=1, fix="give a benchmark's own output unchanged, or perfmodel's "
                         "CSV (see docs/formats/csv.md)")
    if len(found) > 1:   # two tools' outputs run together: which rows are whose is a guess
        starts = [(r.NAME, _first_line(r, text)) for r in found]
        listed = ", ".join(f"{name} from line {line}" for name, line in starts)
        raise InputError(f"holds the output of {len(found)} tools ({listed})", file=source,
                         line=starts[1][1], fix="split it into one file per tool")
    reader = found[0]
    tables: tuple[Measurements, ...] = reader.read(source, text)
    if whole and reader is not canonical and (cut := _cut_row(text, tables)) is not None:
        kept = text[: text.rstrip("\n").rfind("\n") + 1]
        said = (f"line {cut} left out: the output ends inside it, with no line end (cut while "
                "being written?), so its last number may be cut short")
        tables = tuple(replace(t, notes=(*t.notes, said)) for t in reader.read(source, kept))
    return _same_names(tables)


def _cut_row(text: str, tables: tuple[Measurements, ...]) -> int | None:
    """The line of a tool's output that ends the file without a line end, when a table
    holds it as a row: a tool ends every line, so the file was cut, perhaps inside the row's
    last number (``89.48`` read as ``8``)."""
    if not text or text.endswith(("\n", "\r")):
        return None
    last = text.count("\n") + 1
    return last if any(last in t.line for t in tables) else None


def _same_names(tables: tuple[Measurements, ...]) -> tuple[Measurements, ...]:
    """Tables of one name and process count: ``--benchmark NAME@P`` picks the first, so the
    others can never be chosen; each says so."""
    keys = [(t.benchmark.lower(), t.counts("processes")) for t in tables]
    out = []
    for t, key in zip(tables, keys, strict=True):
        same = [u for u, k in zip(tables, keys, strict=True) if k == key]
        if len(same) > 1:
            where = ", ".join(f"line {u.line[0]}" for u in same)
            t = replace(t, notes=(*t.notes, f"{len(same)} {t.label} tables ({where}): "
                                  f"--benchmark picks the first; split the file to use another"))
        out.append(t)
    return tuple(out)


def read(path: str | Path) -> tuple[Measurements, ...]:
    """Every table of measurements in ``path``, with the file's sha256 attached."""
    text, raw = read_text(path)
    digest = hashlib.sha256(raw).hexdigest()
    return tuple(replace(t, sha256=digest) for t in parse(str(path), text, whole=True))


def choose(tables: tuple[Measurements, ...], source: str,
           benchmark: str | None = None) -> Measurements:
    """The table a point-to-point calibration uses.

    With ``benchmark``, the table of that name (case-insensitive; ``osu_`` prefix allowed),
    or failing that of that pattern; ``NAME@P`` picks the block at P processes.  Without it,
    the first ping-pong table, else the first fan-in (for the fabric; ``calibrate`` keeps its
    streams out of the point-to-point fit): any other kind of table is fitted only when asked
    for by name.
    """
    def listing() -> str:
        return ", ".join(dict.fromkeys(f"{t.benchmark}@{p}" if len(
            [u for u in tables if u.benchmark == t.benchmark]) > 1 and (p := _procs(t))
            else t.benchmark for t in tables))

    if benchmark is None:
        ping = [t for t in tables if t.pattern in POINT_TO_POINT] or \
            [t for t in tables if t.is_fanin]
        if ping:
            return ping[0]
        if len(tables) == 1:
            only = tables[0]
            if only.pattern in ("application", "memory"):
                raise InputError(f"holds {only.label}: {PATTERNS[only.pattern]}, not messages",
                                 file=source, fix="calibrate a network on ping-pong data")
            raise InputError(f"holds {only.label}: {PATTERNS[only.pattern]}, not a ping-pong",
                             file=source, fix=f"fit it anyway with --benchmark {only.benchmark}")
        raise InputError(f"holds {len(tables)} benchmarks and no ping-pong", file=source,
                         fix=f"choose one with --benchmark: {listing()}")
    name, _, at = benchmark.partition("@")
    want = name.strip().lower().removeprefix("osu_")
    found = [t for t in tables if t.benchmark.lower() == want] or \
        [t for t in tables if t.pattern == want]
    if at:
        procs = int(at) if re.fullmatch(r"[0-9]{1,9}", at.strip()) else -1
        found = [t for t in found if _procs(t) == procs]
    found = found or [t for t in tables if t.is_fanin]   # a fan-in serves any fabric fit
    if not found:
        raise InputError(f"has no benchmark {benchmark!r}", file=source,
                         fix=f"it holds: {listing()}")
    return found[0]


def _procs(table: Measurements) -> int | None:
    counts = table.counts("processes")
    return counts[0] if len(counts) == 1 else None
