"""STREAM (McCalpin) memory-bandwidth output, ``stream.c`` 5.x and its MPI variants.

    Function    Best Rate MB/s  Avg time     Min time     Max time
    Copy:           29191.7     0.014000     0.010962     0.014785

Each kernel becomes a one-row table named after it (``Copy``, ``Scale``, ``Add``, ``Triad``):
size = bytes moved per pass (2 arrays for Copy and Scale, 3 for Add and Triad, times the array
size and the element size), time = the best (minimum) time, from which STREAM computes its
rate (``1e-6 · bytes / mintime``, MB = 10^6 B).  The rate column is checked against that.
The markdown layout of the Windows ports (``| Function | Avg (MB/s) | Best (MB/s) | Worst
(MB/s) | Avg time | Min time | Max time |``) is read the same way: its best rate and its times.
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
_MD_HEADER = re.compile(r"^\|\s*Function\s*\|\s*Avg \(MB/s\)\s*\|\s*Best \(MB/s\)\s*\|"
                        r"\s*Worst \(MB/s\)\s*\|\s*Avg time\s*\|\s*Min time\s*\|\s*Max time\s*"
                        r"\|?\s*$", re.I)
_MD_ROW = re.compile(r"^\|\s*(?P<kernel>Copy|Scale|Add|Triad)\s*\|(?P<rest>.*)$")


def _markdown_row(rest: str, source: str, line: int) -> str:
    """A row of the markdown layout (Windows ports: average, best and worst rates, then
    average, min and max times) as the classic one: best rate, then the three times."""
    cells = [c.strip() for c in rest.strip().removesuffix("|").split("|")]
    if len(cells) != 6:
        raise InputError(f"STREAM table row has {len(cells)} values after its kernel, not 6 "
                         "(average, best and worst MB/s; average, min and max time)",
                         file=source, line=line, fix="give the table as STREAM printed it")
    return " ".join(cells[1:2] + cells[3:])


def sniff(text: str) -> bool:
    return any(_VERSION.match(ln) or _HEADER.match(ln) or _MD_HEADER.match(ln)
               for _, ln in lines_of(text[:20000]))


def read(source: str, text: str) -> tuple[Measurements, ...]:
    version, elements, element_bytes, threads = "", None, 8, None
    tables: list[Measurements] = []
    left_out: list[str] = []
    header, markdown = None, False
    for lineno, ln in lines_of(text):
        if m := _VERSION.match(ln):
            version = m["ver"]
        elif m := _ARRAY.search(ln):
            elements = int(m["n"])
        elif m := _ELEMENT.search(ln):
            element_bytes = int(m["b"])
        elif m := _THREADS.search(ln):
            threads = int(m["n"])
        elif _HEADER.match(ln) or _MD_HEADER.match(ln):
            header, markdown = lineno, ln.startswith("|")
        elif (m := (_MD_ROW if markdown else _ROW).match(ln)) and header is not None:
            rest = _markdown_row(m["rest"], source, lineno) if markdown else m["rest"]
            values = numbers(rest.split(), 4)
            if values is None:
                raise truncated(source, lineno, len(rest.split()), 4, "STREAM")
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
                    f"best rate differs from bytes / min time by a factor {ratio:.4g}: "
                    "bytes / min time is used (a modified STREAM, or another array size?)")
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
        raise InputError("STREAM output without a results table perfmodel knows (a "
                         "truncated file, or a port that prints another layout)",
                         file=source, line=header,
                         fix="give stream.c's own output through the Triad line ('Function  "
                         "Best Rate MB/s  Avg time  Min time  Max time', then 'Copy:' …)")
    return tuple(tables)
