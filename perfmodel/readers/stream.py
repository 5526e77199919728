"""STREAM (McCalpin) memory-bandwidth output, ``stream.c`` 5.x and its MPI variants.

    Function    Best Rate MB/s  Avg time     Min time     Max time
    Copy:           29191.7     0.014000     0.010962     0.014785

Each kernel becomes a one-row table named after it (``Copy``, ``Scale``, ``Add``, ``Triad``):
size = bytes moved per pass (2 arrays for Copy and Scale, 3 for Add and Triad, times the array
size and the element size), time = the best (minimum) time, from which STREAM computes its
rate (``1e-6 · bytes / mintime``, MB = 10^6 B).  The rate column is checked against that.
"""

from __future__ import annotations

import re
from dataclasses import replace

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, lines_of, numbers, truncated

NAME = "stream"
DESCRIPTION = "STREAM memory bandwidth (Copy, Scale, Add, Triad)"

_VERSION = re.compile(r"^STREAM version \$Revision:\s*(?P<ver>[0-9.]{1,20})\s*\$")
_HEADER = re.compile(r"^Function\s+Best Rate MB/s", re.I)
_ROW = re.compile(r"^(?P<kernel>Copy|Scale|Add|Triad):\s+(?P<rest>.*)$")
_ARRAY = re.compile(r"Array size\s*=\s*(?P<n>[0-9]{1,15})\b")
_ELEMENT = re.compile(r"uses\s+(?P<b>[0-9]{1,3})\s+bytes per array element")
_THREADS = re.compile(r"Number of Threads counted\s*=\s*(?P<n>[0-9]{1,9})\b")
_ARRAYS = {"Copy": 2, "Scale": 2, "Add": 3, "Triad": 3}


def sniff(text: str) -> bool:
    return any(_VERSION.match(ln) or _HEADER.match(ln) for _, ln in lines_of(text[:20000]))


def read(source: str, text: str) -> tuple[Measurements, ...]:
    version, elements, element_bytes, threads = "", None, 8, None
    tables: list[Measurements] = []
    left_out: list[str] = []
    header = None
    for lineno, ln in lines_of(text):
        if m := _VERSION.match(ln):
            version = m["ver"]
        elif m := _ARRAY.search(ln):
            elements = int(m["n"])
        elif m := _ELEMENT.search(ln):
            element_bytes = int(m["b"])
        elif m := _THREADS.search(ln):
            threads = int(m["n"])
        elif _HEADER.match(ln):
            header = lineno
        elif (m := _ROW.match(ln)) and header is not None:
            values = numbers(m["rest"].split(), 4)
            if values is None:
                raise truncated(source, lineno, len(m["rest"].split()), 4, "STREAM")
            rate, avg, best, worst = values
            kernel = m["kernel"]
            if not (rate > 0 and best > 0):
                said = "Best Rate" if not rate > 0 else "Min time"
                left_out.append(f"{kernel} left out: its {said} is 0 (line {lineno}; below "
                                "the timer's resolution: rerun STREAM with larger arrays)")
                continue
            attrs = {"element bytes": str(element_bytes)}
            if threads is not None:
                attrs["threads"] = str(threads)
            if elements is None:
                moved = float(round(rate * 1e6 * best))
                how = "bytes = rate × min time, rounded (the file gives no array size)"
            else:
                moved = float(_ARRAYS[kernel] * element_bytes * elements)
                how = f"bytes = {_ARRAYS[kernel]} arrays × {elements} × {element_bytes} B"
                attrs["array size"] = str(elements)
            table = Table(source, NAME, kernel, "memory", "time",
                          f"min time of one pass, seconds; {how}", version, statistic="min",
                          attrs=attrs)
            if best > 0 and elements is not None:
                ratio = moved / best / (rate * 1e6)
                table.notes.append(
                    "best rate checked: MB = 10^6 B" if abs(ratio - 1) < 0.01 else
                    f"best rate differs from bytes / min time by a factor {ratio:.4g}")
            table.add(lineno, moved, best, t_avg=avg, t_max=worst, rate=moved / best
                      if best > 0 else 0.0)
            built = table.build()
            if built is not None:
                tables.append(built)
    if not tables and left_out:
        raise InputError(f"every STREAM kernel is 0 ({left_out[0]})", file=source,
                         line=header, fix="rerun STREAM with arrays large enough to time")
    if left_out:
        tables[0] = replace(tables[0], notes=(*tables[0].notes, *left_out))
    if not tables:
        raise InputError("STREAM output without its results table (a truncated file?)",
                         file=source, line=header,
                         fix="rerun STREAM and keep its output through the Triad line")
    return tuple(tables)
