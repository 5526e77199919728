"""mpptest (the MPICH "perftest" suite, Gropp & Lusk), 1.0.x–1.2.x: its point-to-point
tables, as the gnuplot data file (``-gnuplot``, ``X.gpl``) or as the default C.It output,
where plotter commands surround the rows.

    #p0	p1	dist	len	ave time (us)	rate
    0	1	1	32	1833.333333	17454.55
    0	1	1	64	1880.000000	34042.55

Each row is ``p0 p1 dist len time rate`` (``grph.c``), or with ``-givedy`` eight columns,
``p0 p1 dist len t_mean rate t_min t_max``; ``len`` is bytes, times µs, ``rate`` bytes/s,
printed ``%.2f`` or, from 1.2 on without ``-givedy``, ``%.3fe+3`` / ``%.3fe+6``.

Meaning, from ``mpptest.c`` (1.0.5, 1.0.13 and 1.2.7p1): the default test is a ping-pong
between two ranks whose time is scaled by 0.5, a **one-way** time.  Each size runs several
trials of many iterations; the six-column time, labelled "ave time", is the per-iteration
average of the **fastest** trial (statistic ``min``); with ``-givedy`` column 5 is the mean
over the trials (statistic ``mean``) and columns 7 and 8 the fastest and slowest (kept as
``t_min`` and ``t_max``).  The rate is ``len`` over the fastest time, times the number of
pairs in flight: it is checked against the times, and a rate k times ``len / t_min`` is a
``-bisect`` run's total over k pairs (``-halo`` scales it by its partners too: the data file
does not say which; the C.It title's ``type = …`` does).  Both output files are opened for
appending, so one file may hold several runs, each after its own ``#p0`` header: each
becomes a table.  goptest (the suite's collective test, ``#np time (us) for various
sizes``) is refused.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

import numpy as np

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements, Pattern, Quantity
from perfmodel.readers._table import (
    Table,
    integer,
    kept,
    lines_of,
    number,
    precise,
    truncated,
)

NAME = "mpptest"
DESCRIPTION = "mpptest (MPICH perftest) ping-pong tables: gnuplot data, C.It output, -givedy"

_HEADER = re.compile(r"^#\s{0,9}p0\s{1,20}p1\s{1,20}dist\s{1,20}len\s{1,20}ave\s{1,9}time\s{1,9}"
                     r"\(us\)\s{1,20}rate$")
_GOPTEST = re.compile(r"^#\s{0,9}np\s{1,20}time\s{1,9}\(us\)")
_TYPE = re.compile(r"^'type = (?P<type>[^']{1,200})'$")
_TOP = re.compile(r"top 'Comm Perf for \S{1,40} \((?P<host>[^)]{0,200})\)")
_TITLE = re.compile(r"^set title \"Comm Perf for \S{1,40} \((?P<host>[^)]{0,200})\).{0,300}? "
                    r"type (?P<type>[^\"]{1,200})\"$")
_FIT = re.compile(r"^#\s{0,9}Model complexity is \((?P<fit>[^)]{1,200})\)$")
_SUFFIXED = re.compile(r"^[0-9]{1,12}\.[0-9]{3}e\+[36]$")
_COMMANDS = ("set ", "title ", "top ", "plot", "join", "wait", "new page", "clear", "exit",
             "pause", "'")
_COLUMNS = ("p0", "p1", "dist", "len", "time", "rate", "t_min", "t_max")
_FIX = "give mpptest's output (C.It or the -gnuplot .gpl data file) as it wrote it"


@dataclass
class _Run:
    """One ``#p0`` header and the lines after it."""

    line: int
    kind: str | None
    host: str | None
    rows: list[tuple[int, list[str]]] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    fit: str | None = None


def sniff(text: str) -> bool:
    return any(_HEADER.match(ln) or _GOPTEST.match(ln) for _, ln in lines_of(text[:20000]))


def read(source: str, text: str) -> tuple[Measurements, ...]:
    runs: list[_Run] = []
    kind: str | None = None
    host: str | None = None
    continued = False
    for line, ln in lines_of(text):
        if _GOPTEST.match(ln):
            raise InputError("goptest output (collective times per process count, '#np time "
                             "(us) …'), not mpptest's point-to-point table", file=source,
                             line=line, fix="perfmodel reads mpptest's ping-pong tables; time "
                             "collectives with osu_allreduce or IMB and give their output")
        if _HEADER.match(ln):
            runs.append(_Run(line, kind, host))
            kind = None
            continue
        if m := _TYPE.match(ln):
            kind = m["type"].strip()
        elif m := _TITLE.match(ln):
            host, kind = m["host"], m["type"].strip()
        elif m := _TOP.search(ln):
            host = m["host"]
        was, continued = continued, ln.endswith("\\")
        if not runs or not ln or was:
            continue
        run = runs[-1]
        if ln.startswith("#"):
            if m := _FIT.match(ln):
                run.fit = m["fit"]
            continue
        tokens = ln.split()
        if integer(tokens[0]) is not None:
            run.rows.append((line, tokens))
        elif not ln.startswith(_COMMANDS):
            run.skipped.append(line)
    if not runs:
        raise InputError("no mpptest '#p0 p1 dist len ave time (us) rate' header", file=source,
                         line=1, fix=_FIX)
    tables = [_table(source, run) for run in runs]
    empty = [run.line for run, t in zip(runs, tables, strict=True) if t is None]
    out = kept(tables, source, "mpptest", runs[0].line)
    if empty:
        said = ", ".join(map(str, empty))
        out = (_noted(out[0], f"the header at line{'s' if len(empty) > 1 else ''} {said} has "
                              "no rows after it (a run that stopped?)"), *out[1:])
    return out


def _noted(table: Measurements, note: str) -> Measurements:
    return replace(table, notes=(*table.notes, note))


def _values(source: str, line: int, tokens: list[str], width: int) -> list[float]:
    """The row's numbers: 6 or 8 of them, the first four whole; else one clear error."""
    values = [number(t) for t in tokens]
    good = next((i for i, v in enumerate(values) if v is None), len(values))
    if good < len(values):
        what = _COLUMNS[good] if good < len(_COLUMNS) else f"column {good + 1}"
        raise InputError(f"mpptest row: {what} is {tokens[good][:40]!r}, not a number",
                         file=source, line=line,
                         fix="the row is damaged; correct it from the original or delete it")
    if len(values) < width:
        raise truncated(source, line, len(values), width, "mpptest")
    if len(values) != width:
        raise InputError(f"mpptest row has {len(values)} values; this run's rows have {width}",
                         file=source, line=line, fix="mpptest writes 6 values a row, or 8 "
                         "with -givedy: the row is damaged or two runs were joined without "
                         "their header")
    if any(integer(t) is None for t in tokens[:4]):
        raise InputError(f"mpptest row: p0 p1 dist len are {' '.join(tokens[:4])[:60]!r}, not "
                         "whole numbers", file=source, line=line, fix="the row is damaged; "
                         "delete it")
    return [v for v in values if v is not None]


def _kind(kind: str | None) -> tuple[str, Pattern, Quantity, str | None]:
    """The test (mpptest's option name), pattern and quantity of a run from the type its title
    names, and what is said about it."""
    if kind is None:
        return "pair", "pingpong", "one_way", ("the data file does not say the test: a "
                                               "ping-pong between two ranks (mpptest's "
                                               "default, -pair) assumed")
    low = kind.lower()
    if "memcpy" in low:
        return "memcpy", "other", "time", f"type = {kind}: a memory copy on one rank, not a " \
                                          "message"
    if "halo" in low:
        return "halo", "other", "time", f"type = {kind}: a halo exchange with several " \
                                        "partners, not half a round trip"
    if "overlap" in low:
        return "overlap", "other", "time", f"type = {kind}: a ping-pong overlapped with " \
                                           "computation, whose time includes the computation"
    return ("bisect" if "bisect" in low else "pair"), "pingpong", "one_way", None


def _table(source: str, run: _Run) -> Measurements | None:
    if not run.rows:
        return None
    width = len(run.rows[0][1])
    if width not in (6, 8):
        width = 6 if len(run.rows[0][1]) < 6 else 8
    rows = [(line, _values(source, line, tokens, width)) for line, tokens in run.rows]
    givedy = width == 8
    test, pattern, quantity, said = _kind(run.kind)
    if givedy:
        meaning = ("column 5, µs: the mean over the trials of a one-way time (mpptest halves "
                   "the round trip); t_min, t_max: columns 7 and 8")
    else:
        meaning = ("'ave time (us)', one-way (mpptest halves the round trip): despite its "
                   "label the per-iteration average of the fastest trial")
    if pattern != "pingpong":
        meaning = "µs as printed: " + (said or "")
    suffixed = any(_SUFFIXED.match(tokens[5]) for _, tokens in run.rows)
    table = Table(source, NAME, test, pattern, quantity, meaning,
                  "1.2.x" if suffixed else "", statistic="mean" if givedy else "min")
    table.attrs["lines"] = f"{run.line}–{run.rows[-1][0]}"
    if run.kind is not None:
        table.attrs["type"] = run.kind
    if run.host:
        table.attrs["host"] = run.host
    if run.fit is not None:
        table.attrs["fit"] = f"{run.fit} (mpptest's own s + n·r, seconds)"
    if said is not None:
        table.notes.append(said)
    ranks = {(int(v[0]), int(v[1]), int(v[2])) for _, v in rows}
    if len(ranks) == 1:
        p0, p1, dist = next(iter(ranks))
        table.attrs["ranks"] = f"{p0} and {p1} (distance {dist})"
    else:
        table.notes.append(f"rows of {len(ranks)} rank pairs (p0, p1, dist vary): their "
                           "distance is kept in the distance column")
    ratios = []
    for (line, v), (_, tokens) in zip(rows, run.rows, strict=True):
        size, rate = v[3], v[5]
        fastest = v[6] if givedy else v[4]
        derived = size / (fastest * 1e-6) if fastest * 1e-6 > 0 else 0.0
        if 0 < derived < math.inf and 0 < rate < math.inf and precise(tokens[5]):
            ratios.append(min(max(rate / derived, 1e-300), 1e300))
            table.agree(line, derived, rate, "rate", "fastest time")
        extra = {"rate": rate}
        if givedy:
            extra.update(t_min=v[6] * 1e-6, t_max=v[7] * 1e-6)
        if len(ranks) > 1:
            extra["distance"] = v[2]
        table.add(line, size, v[4] * 1e-6, None, **extra)
    _rates(table, ratios, run.kind)
    for line in run.skipped:
        table.skip(line)
    return table.build()


def _rates(table: Table, ratios: list[float], kind: str | None) -> None:
    """What the rate column says of the times: checked, or the total over k pairs."""
    fastest = "t_min" if table.statistic == "mean" else "the time"
    bisect = kind is not None and "bisect" in kind.lower()
    if not ratios:
        table.notes.append("no row to check the rate column against"
                           + ("; -bisect: the rate is a total over the pairs" if bisect else ""))
        if bisect:
            table.pattern = "other"
        return
    k = float(np.median(ratios))
    pairs = round(k)
    if abs(k - 1) < 0.02 and not bisect:
        table.concurrency.update(pairs=1)
        table.notes.append(f"rate column checked against len / {fastest} ({len(ratios)} rows)")
    elif pairs >= 2 and abs(k - pairs) < 0.02 * k and table.pattern == "pingpong":
        table.concurrency.update(pairs=pairs, processes=2 * pairs)
        table.benchmark = "bisect"
        which = "-bisect" if bisect else ("-bisect (or -halo with that many partners: the "
                                          "data file does not say which)")
        table.notes.append(f"the rate column is {pairs} × len / {fastest}: the total over "
                           f"{pairs} pairs timed at once, {which}; each time is one pair's")
    elif table.pattern != "pingpong":
        table.notes.append(f"the rate column is {k:.4g} × len / {fastest}")
    else:
        table.notes.append(f"the rate column is {k:.4g} × len / {fastest}, not explained; "
                           "times used as printed")
        if bisect:
            table.pattern = "other"
