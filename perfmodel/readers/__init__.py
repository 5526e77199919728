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

from perfmodel.errors import InputError
from perfmodel.io import read_text
from perfmodel.kinds import own_kind, refusal
from perfmodel.measurements import Measurements
from perfmodel.readers import (
    canonical,
    extrap,
    hpcc,
    hpcg,
    hpl,
    imb,
    mpi4py_bench,
    mpibenchmarks,
    mpptest,
    netgauge,
    netperf,
    netpipe,
    npb,
    osu,
    perftest,
    reframe,
    reframe4,
    sacct,
    stream,
)

REGISTRY: dict[str, ModuleType] = {r.NAME: r for r in (
    osu, imb, mpi4py_bench, mpibenchmarks, netperf, perftest, netgauge, mpptest, stream, npb,
    hpcc, hpl, hpcg, reframe, reframe4, sacct, extrap, netpipe, canonical)}
FALLBACKS = (netpipe.NAME, canonical.NAME)
"""Formats without a banner, tried only when no tool's banner is found."""

SCRIPTS = (".sh", ".bash", ".py", ".pl", ".slurm", ".pbs", ".lsf", ".sbatch")
"""Programs that run benchmarks (a ``#!`` line says so too), read only where a tool's banner
is in them."""
DOCUMENTS = (".md", ".rst", ".html", ".htm", ".tex", ".ipynb")
"""Pages about benchmarks: read only where a tool's banner is in them (an output pasted in)."""
NEAR_MISSES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"^\s*JobID(?:Raw)?\s+\S.*\n\s*-{4,}\s+-{4,}", re.M),
     "Slurm sacct's default table (columns cut to their width and aligned with spaces): its "
     "names and times may be cut short",
     "rerun sacct with --parsable2 --format JobID,JobName,NNodes,NTasks,Elapsed,State"),
    (re.compile(r"\bxhpl\w*"),
     "an HPL run's log without HPL's result table (the 'T/V  N  NB  P  Q  Time  Gflops' "
     "lines): cut before the end, or the run failed",
     "give the whole output, through the result line and its residual check"),
)
"""Files that no reader claims but whose kind is plain: what is missing, said where."""


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
    if not found or found[0].NAME in FALLBACKS:   # no tool's banner: a script? a page?
        if text.lstrip().startswith("#!") or Path(source).suffix.lower() in SCRIPTS:
            raise InputError("is a script, not a benchmark's output", file=source,
                             line=1, fix="give the outputs the script wrote")
        if Path(source).suffix.lower() in DOCUMENTS:
            raise InputError(f"is a document ({Path(source).suffix}), not a benchmark's output",
                             file=source, fix="give the benchmark's own output, as it wrote it")
    if not found or found[0] is canonical:   # perfmodel's own TOML, a timings CSV?
        other = refusal(own_kind(text), source, "measurements")
        if other is not None:
            raise other
    if not found:
        for pattern, what, fix in NEAR_MISSES:
            if m := pattern.search(text[:20000]):
                raise InputError(what, file=source, line=text.count("\n", 0, m.start()) + 1,
                                 fix=fix)
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
    if (whole and reader is not canonical and not getattr(reader, "WRITTEN_BY_HAND", False)
            and (cut := _cut_row(text, tables)) is not None):
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
    """Tables of messages of one name and process count: ``--benchmark NAME@P`` picks the
    first, so the others can never be chosen; each says so.  (Whole runs and memory kernels are
    not chosen that way: the node takes the best of them, ``scaling`` picks by label.)"""
    keys = [(t.benchmark.lower(), t.counts("processes")) for t in tables]
    by_key: dict[object, list[Measurements]] = {}
    for t, key in zip(tables, keys, strict=True):
        by_key.setdefault(key, []).append(t)
    out = []
    for t, key in zip(tables, keys, strict=True):
        same = by_key[key]
        if len(same) > 1 and t.pattern not in ("application", "memory"):
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
