"""HPCG (High Performance Conjugate Gradients) result summaries, 3.x, as the benchmark writes
them (``HPCG-Benchmark_3.1_….txt``, flat ``Section::Key=value`` lines).

    HPCG-Benchmark
    version=3.1
    Machine Summary::Distributed Processes=64
    Machine Summary::Threads per processes=1
    Benchmark Time Summary::Total=1871.23
    Floating Point Operations Summary::Total=3.09111e+13
    GFLOP/s Summary::Raw Total=16.5191
    Final Summary::HPCG result is VALID with a GFLOP/s rating of=16.3978

One summary is one run: a table of pattern ``application`` (no message size) with one row,
the benchmark's total time against its processes (× threads, said).  Its extra columns keep
the floating-point operations counted, the raw rate (operations / time, checked against the
``Raw Total`` printed) and the official rating, a memory-bound rate for the node.  A result
HPCG calls INVALID is kept and flagged (``verified`` = 0) with a note; the companion log
(``hpcg<date>.txt``, iterations and residuals only) has no summary and is not read.
"""

from __future__ import annotations

import re

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import AGREE, Table, lines_of, number

NAME = "hpcg"
DESCRIPTION = "HPCG result summaries: total time, operations and GFLOP/s rating"

_KEY = re.compile(r"^(?P<key>[A-Za-z][^=]{0,120})=(?P<value>.*)$")
_RESULT = re.compile(r"HPCG result is (?P<verdict>VALID|INVALID) with a GFLOP/s rating of$")


def sniff(text: str) -> bool:
    head = text[:20000]
    return head.lstrip().startswith("HPCG-Benchmark") and "Machine Summary::" in head


def read(source: str, text: str) -> tuple[Measurements, ...]:
    values: dict[str, tuple[int, str]] = {}
    for lineno, ln in lines_of(text):
        if m := _KEY.match(ln.strip()):
            values.setdefault(m["key"].strip(), (lineno, m["value"].strip()))
    version = values.get("version", (0, ""))[1]

    def num(key: str) -> tuple[int, float]:
        line, raw = values.get(key, (0, ""))
        value = number(raw)
        if value is None:
            raise InputError(f"HPCG summary has no number for {key!r}"
                             + (f" (it says {raw!r})" if raw else ""), file=source,
                             line=line or None, fix="give the HPCG-Benchmark_*.txt summary "
                             "as the benchmark wrote it, whole")
        return line, value

    _, processes = num("Machine Summary::Distributed Processes")
    threads = num("Machine Summary::Threads per processes")[1] \
        if "Machine Summary::Threads per processes" in values else 1.0
    tline, total = num("Benchmark Time Summary::Total")
    _, work = num("Floating Point Operations Summary::Total")
    rated = next(((k, v) for k, v in values.items() if _RESULT.search(k)), None)
    if rated is None:
        raise InputError("HPCG summary has no Final Summary result line", file=source,
                         fix="the run did not finish, or the file is cut short: rerun HPCG")
    key, (rline, raw) = rated
    verdict = _RESULT.search(key)
    assert verdict is not None
    rating = number(raw)
    if rating is None:
        raise InputError(f"HPCG rating {raw!r} is not a number", file=source, line=rline,
                         fix="give the summary as the benchmark wrote it")
    table = Table(source, NAME, "HPCG", "application", "time",
                  "Benchmark Time Summary::Total, seconds as printed", version,
                  attrs={"counts": "processes (Distributed Processes)",
                         "threads per process": f"{threads:g}"})
    if threads != 1:
        table.notes.append(f"{threads:g} threads per process: the count is processes, each "
                           "using that many cores")
    ok = verdict["verdict"] == "VALID"
    if not ok:
        table.notes.append(f"HPCG calls this result INVALID (line {rline}): kept, flagged in "
                           "verified")
    extra = {"flops": work, "flop_rate": rating * 1e9, "verified": 1.0 if ok else 0.0}
    if "GFLOP/s Summary::Raw Total" in values:
        raw_line, raw_rate = num("GFLOP/s Summary::Raw Total")
        extra["flop_rate_raw"] = raw_rate * 1e9
        if total > 0 and raw_rate > 0 and \
                not 1 / AGREE <= work / total / (raw_rate * 1e9) <= AGREE:
            raise InputError(f"HPCG: its operations and total time give "
                             f"{work / total / 1e9:.4g} GFLOP/s, but its Raw Total says "
                             f"{raw_rate:.4g}", file=source, line=raw_line,
                             fix="the summary is damaged (a number was changed); use the "
                                 "benchmark's own file")
    if "GB/s Summary::Raw Total B/W" in values:   # the kernels' memory traffic, all ranks
        extra["memory_rate"] = num("GB/s Summary::Raw Total B/W")[1] * 1e9
    table.add(tline, float("nan"), total, None, {"processes": processes}, **extra)
    return (table.required("HPCG summary with no run", "rerun HPCG", tline),)
