"""NAS Parallel Benchmarks result blocks (NPB 2.x/3.x MPI and OpenMP, the multi-zone
hybrids NPB-MZ, and the C ports).

     CG Benchmark Completed.
     Class           =                        A
     Time in seconds =                     3.02
     Total processes =                        1
     Mop/s total     =                   495.93

Every block is one run; the runs of one benchmark and class (several files or one
concatenated file) form one table, one row per run: processes (or threads) and the whole
run's time.  There is no message size (``size`` is NaN).  ``Mop/s total`` and the iteration
count are kept (and a multi-zone run's total threads beside its processes, its runs of each
number of threads a process one table); a run whose
verification failed is kept, flagged in ``verified`` and said.
The earlier, unrelated "Benchmark completed" of CG is not a result block: blocks are anchored
on the two-letter benchmark name.
"""

from __future__ import annotations

import math
import re

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, built, integer, lines_of, number

NAME = "npb"
DESCRIPTION = "NAS Parallel Benchmarks result blocks (time per run against processes)"

_BANNER = re.compile(r"NAS Parallel Benchmarks\s+\(?(?:NPB)?\s*(?P<ver>[0-9.]{1,20})", re.I)
_DONE = re.compile(r"^(?P<bm>[A-Z]{2}(?:-MZ)?)\s+Benchmark Completed\.?$")
_FIELD = re.compile(r"^(?P<key>[A-Za-z/ ()]+?)\s*=\s*(?P<value>.*?)$")
_COUNT_KEYS = ("active processes", "total processes", "total threads", "threads",
               "processes", "compiled procs")


_DONE_ANYWHERE = re.compile(r"^\s*[A-Z]{2}(?:-MZ)?\s+Benchmark Completed\.?\s*$", re.M)


def sniff(text: str) -> bool:
    """A result block anywhere: it comes at the end of a run's output."""
    return _DONE_ANYWHERE.search(text) is not None


def read(source: str, text: str) -> tuple[Measurements, ...]:
    lines = lines_of(text)
    version = ""
    tables: dict[tuple[str, str, str], Table] = {}
    i = 0
    while i < len(lines):
        lineno, ln = lines[i]
        if (m := _BANNER.search(ln)) and not version:
            version = m["ver"]
        done = _DONE.match(ln)
        i += 1
        if not done:
            continue
        fields: dict[str, tuple[int, str]] = {}
        while i < len(lines) and (f := _FIELD.match(lines[i][1])):
            fields[" ".join(f["key"].lower().split())] = (lines[i][0], f["value"].strip())
            i += 1
        _row(source, done["bm"], lineno, fields, version, tables)
    out = built(tables.values())
    if not out:
        raise InputError("NPB output without a complete result block", file=source,
                         fix="give the output through the 'Verification =' line")
    return out


def _row(source: str, bm: str, lineno: int, fields: dict[str, tuple[int, str]],
         version: str, tables: dict[tuple[str, str, str], Table]) -> None:
    if "time in seconds" not in fields:
        raise InputError(f"NPB {bm} result block has no 'Time in seconds' (a truncated file?)",
                         file=source, line=lineno, fix="give the whole result block")
    tline, tvalue = fields["time in seconds"]
    time = number(tvalue)
    if time is None:
        raise InputError(f"NPB {bm} time is {tvalue!r}, not a number", file=source,
                         line=tline, fix="give the benchmark's own output")
    key = next((k for k in _COUNT_KEYS if k in fields), None)
    count = integer(fields[key][1]) if key else None
    if key is not None and count is None:
        raise InputError(f"NPB {bm} {key} is {fields[key][1]!r}", file=source,
                         line=fields[key][0], fix="give the benchmark's own output")
    cls = fields.get("class", (0, "?"))[1]
    threads = integer(fields.get("total threads", (0, ""))[1]) \
        if key == "total processes" else None
    per = f"{threads / count:g}" if threads and count else ""   # a hybrid's threads a process
    table = tables.get((bm, cls, per))
    if table is None:
        unit = "threads" if key is not None and "thread" in key else "processes"
        table = Table(source, NAME, bm, "application", "time",
                      f"whole-run seconds ('Time in seconds'), against {unit}",
                      fields.get("version", (0, version))[1] or version,
                      attrs={"class": cls, "counts": unit})
        if per:
            table.attrs["threads per process"] = per
        for k in ("size", "operation type", "compile date"):
            if k in fields:
                table.attrs[k] = fields[k][1]
        tables[(bm, cls, per)] = table
    verified = fields.get("verification", (0, ""))[1].upper()
    ok = verified == "SUCCESSFUL"
    if not ok:
        table.notes.append(f"run at line {lineno}: verification "
                           f"{verified.lower() or 'missing'}")
    extra = {"verified": 1.0 if ok else 0.0}
    for k, name in (("mop/s total", "mops"), ("iterations", "iterations")):
        if k in fields and (v := number(fields[k][1])) is not None:
            extra[name] = v * (1e6 if name == "mops" else 1.0)
    if threads:
        extra["threads"] = float(threads)   # the multi-zone hybrids: processes × threads
    counts = {"processes": float(count)} if count is not None else None
    table.add(tline, math.nan, time, None, counts, **extra)
