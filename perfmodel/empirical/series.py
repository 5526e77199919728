"""A scaling series from the files users have: process count against run time.

Two kinds of input, mixed freely:

- a timing CSV (:mod:`perfmodel.apps.timings`): a count column (``nodes``, ``processes``,
  ``ranks`` or ``p``), a time column (``time_s``, ``time`` or ``seconds``), optional
  ``size`` (``problem_size``, ``n``: the problem size, which tells strong from weak scaling),
  ``rep`` (``repetition``, ``run``), ``ranks_per_node`` (``ppn``), ``part``, and any labels;
- any file a reader knows (:mod:`perfmodel.readers`) whose tables carry a process count: NAS
  Parallel Benchmarks results (one whole run per row), or benchmark tables of a collective at
  several process counts, read at one message size (``at``).

Rows are filtered by ``where`` (labels; a reader's table gives ``benchmark`` and ``class``);
what is left must be one series: one value of every label, one part.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from perfmodel.errors import InputError

FloatArray = NDArray[np.float64]

SIZE = ("size", "problem_size", "n")
REPEAT = ("rep", "repetition", "run", "ranks_per_node", "ppn", "source", "note", "date",
          "commit", "file")
"""Label columns that may differ inside one series (they describe runs, not series)."""


@dataclass(frozen=True)
class Series:
    """One scaling series: ``processes`` and ``times`` (s) per run, the problem ``sizes`` when
    the input gives them, where each run came from (``origin``: ``file:line``), the name of
    the count (``nodes``, ``processes``), and notes on what was read."""

    processes: FloatArray
    times: FloatArray
    sizes: FloatArray | None
    origin: tuple[str, ...]
    count: str
    sources: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.times)


@dataclass
class _Rows:
    p: list[float]
    t: list[float]
    size: list[float]
    origin: list[str]
    labels: list[dict[str, str]]


def load_series(paths: Sequence[str | Path], where: Mapping[str, str] | None = None,
                at: float | None = None) -> Series:
    """The runs of ``paths`` that ``where`` selects, as one series."""
    if not paths:
        raise InputError("no timing files", fix="give a CSV of process count and time, or NPB "
                                                 "result files")
    rows = _Rows([], [], [], [], [])
    counts: set[str] = set()
    notes: list[str] = []
    for path in paths:
        counts.add(_read(path, at, rows, notes))
    want = dict(where or {})
    known = set().union(*(r.keys() for r in rows.labels)) if rows.labels else set()
    for key in want:
        if key not in known:
            raise InputError(f"--where {key}: no input has a column or attribute {key!r}",
                             fix=f"labels: {', '.join(sorted(known)) or 'none'}")
    keep = [i for i, lab in enumerate(rows.labels)
            if all(lab.get(k) == v for k, v in want.items())]
    if not keep:
        raise InputError("no runs left to fit" + (" after --where" if want else "") +
                         (f" ({len(notes)} unverified runs left out)" if notes else ""),
                         fix="check the labels and values, and that the runs verified")
    _one_series([rows.labels[i] for i in keep])
    size = np.array([rows.size[i] for i in keep])
    sizes = size if np.all(np.isfinite(size)) else None
    if sizes is None and np.any(np.isfinite(size)):
        raise InputError("some runs give a problem size and some do not",
                         fix="give every run its size, or none")
    if len(counts) > 1:
        raise InputError(f"the inputs count in {' and '.join(sorted(counts))}",
                         fix="give one kind of count (nodes or processes) in every file")
    return Series(np.array([rows.p[i] for i in keep]), np.array([rows.t[i] for i in keep]),
                  sizes, tuple(rows.origin[i] for i in keep), counts.pop(),
                  tuple(str(p) for p in paths), tuple(notes))


def _one_series(labels: list[dict[str, str]]) -> None:
    """Refuse rows that hold several series (two machines, two parts, two benchmarks)."""
    keys = set().union(*(lab.keys() for lab in labels))
    for key in sorted(keys - set(REPEAT)):
        values = sorted({lab.get(key, "") for lab in labels})
        if len(values) > 1:
            shown = ", ".join(v or "(none)" for v in values[:6])
            raise InputError(f"the runs hold {len(values)} values of {key} ({shown}): several "
                             "series", fix=f"choose one with --where {key}={values[0] or '...'}")


def _read(path: str | Path, at: float | None, rows: _Rows, notes: list[str]) -> str:
    from perfmodel.apps.timings import COUNT, RATE, TIME
    from perfmodel.readers import read_text

    text, _ = read_text(path)
    header = next((ln for ln in text.splitlines()
                   if ln.strip() and not ln.lstrip().startswith("#")), "")
    names = [h.strip().lower() for h in next(csv.reader(io.StringIO(header)), [])]
    count = next((c for c in COUNT if c in names), None)
    if count is not None and any(c in names for c in (*TIME, *RATE)):
        _read_timings(path, rows)
        return "nodes" if count == "nodes" else "processes"
    return _read_tables(path, at, rows, notes)


def _read_timings(path: str | Path, rows: _Rows) -> None:
    from perfmodel.apps.timings import read_timings

    runs = read_timings(path)
    if runs.measure != "time":
        raise InputError("gives a rate (Mflop/s), not times; an empirical form is fitted to "
                         "times", file=path, fix="give a time_s column")
    size_key = next((k for k in SIZE if k in runs.labels), None)
    for i in range(len(runs)):
        lab = {k: v[i] for k, v in runs.labels.items() if k != size_key}
        if runs.parts[i]:
            lab["part"] = runs.parts[i]
        size = math.nan
        if size_key is not None:
            cell = runs.labels[size_key][i]
            try:
                size = float(cell)
            except ValueError:
                raise InputError(f"{size_key} is {cell!r}, not a number", file=path,
                                 line=runs.lines[i],
                                 fix="give the problem size as a number") from None
            if not (math.isfinite(size) and size > 0):
                raise InputError(f"{size_key} is {cell}", file=path, line=runs.lines[i],
                                 fix="problem sizes are positive numbers")
        rows.p.append(float(runs.processes[i]))
        rows.t.append(float(runs.times[i]))
        rows.size.append(size)
        rows.origin.append(f"{path}:{runs.lines[i]}")
        rows.labels.append(lab)


def _read_tables(path: str | Path, at: float | None, rows: _Rows, notes: list[str]) -> str:
    from perfmodel.readers import read

    tables = read(path)
    seen = 0
    for tab in tables:
        procs = tab.concurrency.get("processes")
        if procs is None:
            continue
        lab = {"benchmark": tab.benchmark, **({"class": tab.attrs["class"]}
                                               if "class" in tab.attrs else {})}
        if tab.pattern == "application":
            picked = np.arange(len(tab))
        else:
            if at is None:
                raise InputError(f"{tab.label} times messages of several sizes", file=path,
                                 fix="say which size to read with --at SIZE (e.g. --at 8KiB)")
            picked = np.flatnonzero(tab.size == at)
        seen += len(picked)
        for i in picked:
            if "verified" in tab.extra and tab.extra["verified"][i] == 0.0:
                notes.append(f"{path}:{tab.line[i]}: run not verified, left out")
                continue
            rows.p.append(float(procs[i]))
            rows.t.append(float(tab.time[i]))
            rows.size.append(math.nan)
            rows.origin.append(f"{path}:{tab.line[i]}")
            rows.labels.append(dict(lab))
    if seen == 0:
        what = "no table with a process count" if at is None else \
            f"no table with a process count and a row at {at:g} B"
        raise InputError(what, file=path,
                         fix="give NPB results, benchmark tables run at several process "
                             "counts, or a CSV with processes and time_s columns")
    return "threads" if any(t.attrs.get("counts") == "threads" for t in tables) else "processes"
