"""``python -m mpi4py.bench pingpong``: mpi4py's own ping-pong.

    # MPI PingPong Test
    # Size [B]  Bandwidth [MB/s] | Time Mean [s] ± StdDev [s]  Samples
             1              0.23 | 4.3745745e-06 ± 6.6547e-05    10000

From ``mpi4py/bench.py``: each sample is half a round trip, so ``Time Mean`` is a **one-way**
time in seconds; ``Bandwidth`` is size / mean in 10^6 B/s.  With ``--no-stats`` only the
bandwidth is printed (two decimals), and the time is read back from it, less precisely; the
reader says so.  With ``--no-header`` the ``|`` and ``±`` of the rows identify the format.
"""

from __future__ import annotations

import re

from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, integer, lines_of, precise, row_values

NAME = "mpi4py-bench"
DESCRIPTION = "python -m mpi4py.bench pingpong"

_TITLE = re.compile(r"^#\s*MPI PingPong Test\s*$")
_ROW = re.compile(r"^[0-9]+\s+[^\s|]+\s*\|\s*[^\s±]+\s*±\s*\S+\s+[0-9]+$")


def sniff(text: str) -> bool:
    lines = lines_of(text[:20000])
    return any(_TITLE.match(ln) for _, ln in lines) or \
        sum(1 for _, ln in lines if _ROW.match(ln)) >= 2


def read(source: str, text: str) -> tuple[Measurements, ...]:
    stats = True
    header_seen = False
    rows: list[tuple[int, list[str]]] = []
    skipped: list[int] = []
    for lineno, ln in lines_of(text):
        if ln.startswith("#"):
            if "Size" in ln and "Bandwidth" in ln:
                header_seen = True
                stats = "Time Mean" in ln
            continue
        if not ln:
            continue
        tokens = ln.replace("|", " | ").replace("±", " ± ").split()
        if integer(tokens[0]) is not None:
            rows.append((lineno, tokens))
        elif rows:
            skipped.append(lineno)
    if not header_seen and rows:
        stats = "|" in rows[0][1]
    if stats:
        meaning = "Time Mean [s] as printed: one-way (bench.py halves each round trip)"
    else:
        meaning = "size / Bandwidth (10^6 B/s, two decimals): printed without --stats"
    table = Table(source, NAME, "pingpong", "pingpong", "one_way" if stats else "bandwidth",
                  meaning, statistic="mean", concurrency={"pairs": 1, "processes": 2})
    if not stats:
        table.notes.append("times read back from a bandwidth rounded to 0.01 MB/s")
    need = 5 if stats else 2      # size, bandwidth [, mean, stddev, samples]
    for lineno, tokens in rows:
        cells = [t for t in tokens if t not in ("|", "±")]
        values = row_values(table, lineno, cells, need, "mpi4py.bench")
        if values is None:
            continue
        size, bw = values[0], values[1] * 1e6
        if stats and values[4] == 0:
            table.drop(lineno, "Samples is 0, so nothing was timed")
        elif stats:
            if size > 0 and values[2] > 0 and precise(cells[1]):
                table.agree(lineno, size / values[2], bw, "Bandwidth [MB/s]")
            table.add(lineno, size, values[2], values[4], stddev=values[3], rate=bw)
        elif size > 0 and bw > 0:
            table.add(lineno, size, size / bw, rate=bw)
        else:
            table.drop(lineno, "no time can be read from a zero size or bandwidth")
    for lineno in skipped:
        table.skip(lineno)
    return (table.required("mpi4py.bench output with no rows (a truncated file?)",
                           "rerun it and keep the whole output"),)
