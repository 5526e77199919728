"""NetPIPE 3.x and 5.x: the ``np.out`` file and the transmitter's standard output.

``np.out`` of 3.x has three columns, ``bytes  Mbps  seconds``; 5.x has five (or six),
``bytes  avg-Gbps  min-Gbps  max-Gbps  avg-µs [work]``.  The transmitter prints lines such as
``  3:       4 bytes  18018 times -->      7.39 Mbps in       4.13 usec``.

Meaning, from the sources: 3.x ``NetPIPE.c`` writes ``bits / (t · 2^20)`` as "Mbps" (so the
column is 2^20 bit/s, not 10^6) and ``t``, half the round trip; 5.x ``netpipe.c`` writes
10^9 bit/s and ``t / nrepeat``, halved for ping-pong.  Times are read from the time column
and the rate column is only checked against them.  The file does not say whether the run was
streaming (``-s``) or bidirectional (``-2``); the default, ping-pong, is assumed and said.
"""

from __future__ import annotations

import re

import numpy as np

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import (
    Table,
    integer,
    lines_of,
    number,
    numbers,
    precise,
    truncated,
)

NAME = "netpipe"
DESCRIPTION = "NetPIPE 3.x/5.x np.out, and the 3.x transmitter's output"

_STDOUT = re.compile(r"^\s*[0-9]{1,9}:\s+(?P<bytes>[0-9]{1,18})\s+bytes\s+"
                     r"(?P<reps>[0-9]{1,18})\s+times\s+-->\s+(?P<rate>[0-9.]{1,30})\s+Mbps"
                     r"\s+in\s+(?P<usec>[0-9.]{1,30})\s+usec\s*$")
_BUFFERS = re.compile(r"Send and receive buffers are (\d+) and (\d+) bytes")
_ASSUMED = "the file does not say the mode: ping-pong (NetPIPE's default) assumed, not -s or -2"


def _numeric_rows(text: str) -> list[tuple[int, list[str]]]:
    return [(n, ln.split()) for n, ln in lines_of(text) if ln]


def _fits(tokens: list[str], width: int) -> bool:
    """Whether one row looks like an np.out row of ``width`` columns."""
    values = numbers(tokens, min(len(tokens), 5))
    if len(tokens) != width or values is None or integer(tokens[0]) is None:
        return False
    return width != 3 or 0 < values[2] < 1        # 3.x: seconds


def _layout(rows: list[tuple[int, list[str]]]) -> tuple[int, list[int]] | None:
    """``(3 or 5, the lines of rows that do not fit)`` when the rows look like a NetPIPE
    np.out table, else None.  One row in ten may be damaged (and is then named by
    :func:`read`): a file is not refused as unrecognised for one bad line."""
    if len(rows) < 2:
        return None
    widths = [len(t) for _, t in rows]
    width = max(set(widths), key=widths.count)
    if width not in (3, 5, 6):
        return None
    good = [(n, t) for n, t in rows if _fits(t, width)]
    bad = [n for n, t in rows if not _fits(t, width)]
    if len(good) < 2 or len(bad) > max(len(rows) // 10, 0 if len(rows) < 5 else 1):
        return None
    sizes = [float(t[0]) for _, t in good]
    if not all(np.diff(sizes) >= 0):
        return None
    return (3 if width == 3 else 5), bad


def sniff(text: str) -> bool:
    head = text[:20000]
    if sum(1 for _, ln in lines_of(head) if _STDOUT.match(ln)) >= 2:
        return True
    rows = _numeric_rows(head)
    if len(head) < len(text):      # judge a long file by its first whole rows
        rows = rows[:-1]
    return _layout(rows) is not None


def read(source: str, text: str) -> tuple[Measurements, ...]:
    if any(_STDOUT.match(ln) for _, ln in lines_of(text[:20000])):
        return (_stdout(source, text),)
    rows = _numeric_rows(text)
    layout = _layout(rows)
    if layout is None:
        bad = next((n for n, t in rows if len(t) != len(rows[0][1])), rows[-1][0] if rows else 1)
        raise InputError("not a NetPIPE np.out table: rows differ in width or order "
                         "(a truncated file?)",
                         file=source, line=bad, fix="give NetPIPE's np.out as it wrote it")
    width, bad_rows = layout
    if bad_rows:
        line = bad_rows[0]
        tokens = next(t for n, t in rows if n == line)
        said = f"{len(tokens)} values" if len(tokens) != (3 if width == 3 else len(rows[0][1])) \
            else "values that are not a NetPIPE row's"
        raise InputError(f"NetPIPE row has {said}: {' '.join(tokens)[:60]!r}", file=source,
                         line=line, fix="the line is damaged; correct it from the original "
                         "np.out or delete it")
    if width == 3:
        meaning = "seconds as printed (3.x: half the round trip)"
        table = Table(source, NAME, "NPtcp", "pingpong", "one_way", meaning, "3.x",
                      concurrency={"pairs": 1})
        ratios = []
        for line, t in rows:
            size, mbps, sec = (float(v) for v in t)
            if size > 0 and sec > 0:
                ratios.append(mbps * 2**20 / (8 * size / sec))
                if precise(t[1]):
                    table.agree(line, size / sec, mbps * 2**20 / 8, "Mbps")
            table.add(line, size, sec, rate=mbps * 2**20 / 8)
        table.notes.append(_rate_check(ratios, "Mbps = 2^20 bit/s"))
    else:
        meaning = "µs as printed (5.x: the round trip halved)"
        table = Table(source, NAME, "NetPIPE", "pingpong", "one_way", meaning, "5.x",
                      concurrency={"pairs": 1})
        for line, t in rows:
            size, avg, lo, hi, usec = (float(v) for v in t[:5])   # _layout checked them
            if size > 0 and usec > 0 and precise(t[1]):
                table.agree(line, size / (usec * 1e-6), avg * 1.25e8, "avg-Gbps")
            table.add(line, size, usec * 1e-6, rate=avg * 1.25e8,
                      rate_min=lo * 1.25e8, rate_max=hi * 1.25e8)
    table.notes.append(_ASSUMED)
    return _built(table, source)


def _stdout(source: str, text: str) -> Measurements:
    table = Table(source, NAME, "NPtcp", "pingpong", "one_way",
                  "usec as printed (3.x: half the round trip)", "3.x", concurrency={"pairs": 1})
    for line, ln in lines_of(text):
        if m := _STDOUT.match(ln):
            usec, mbps = number(m["usec"]), number(m["rate"])
            if usec is None or mbps is None:
                raise InputError(f"NetPIPE line with {m['usec']!r} usec and {m['rate']!r} Mbps",
                                 file=source, line=line, fix="the file is damaged here")
            table.add(line, float(m["bytes"]), usec * 1e-6, float(m["reps"]),
                      rate=mbps * 2**20 / 8)
        elif m := _BUFFERS.search(ln):
            table.attrs["buffers"] = f"send {m[1]} B, receive {m[2]} B"
        elif re.match(r"^\s*\d+:", ln):
            raise truncated(source, line, len(ln.split()), 9, "NetPIPE")
    table.notes.append(_ASSUMED)
    return _built(table, source)[0]


def _rate_check(ratios: list[float], unit: str) -> str:
    if not ratios:
        return "no row to check the rate column against"
    r = float(np.median(ratios))
    if abs(r - 1) < 0.02:
        return f"rate column checked against the times: {unit} ({len(ratios)} rows)"
    return f"rate column disagrees with the times by a factor {r:.4g}; times used as printed"


def _built(table: Table, source: str) -> tuple[Measurements]:
    return (table.required("NetPIPE output with no rows",
                           "give np.out or the transmitter's output"),)
