"""netgauge 2.x, LogGP pattern (``netgauge -m mpi -x loggp [-o FILE]``): the screen output
of rank 0 and the ``-o`` results file (default ``ng.out``).

The screen output prints, for each message size, the LogGP parameters netgauge fitted::

    # Info:   (0): Netgauge v2.4.6 MPI enabled (P=2, threadlevel=0) (…)
    Testing 1025 bytes 200 times:
     L=1.128100  s=1025  o_s=0.217390  o_r=0.281527  g=0.203484  G=0.000208 (37.550458 GiB/s) …

The results file writes, one row per size, ``size n PRTT(1,0,s) PRTT(n,0,s)
PRTT(n,PRTT(1,0,s),s) L o_s o_r g G lsqu(g,G)``.  Every time is µs, ``G`` µs per byte,
``s`` bytes (``ptrn_loggp.c`` of spcl/netgauge 2.4.6, all from ``HRT_GET_USEC``).

Meaning, from that source: ``PRTT(1,0,s)`` is the median over the tests of one message's
round trip, so the results file becomes a ping-pong table whose time is ``PRTT(1,0,s) / 2``
(quantity ``round_trip``, statistic ``median``).  The screen output has no measured time:
its time is **derived from the tool's own fitted parameters**, the LogGP time of one message
of ``s`` bytes, ``T = o_s + (s − 1)·G + L + o_r`` (quantity ``one_way``; the table's meaning
and ``attrs["derived"]`` say so).  ``L``, ``o_s``, ``o_r``, ``g`` and ``G`` are kept as
extra columns in seconds and seconds per byte.  The value netgauge prints as "GiB/s" after
``G`` is ``8/(1024·G)``, not GiB/s, and is not read.

What the tool prints beside the rows, and how each is read:

* ``-nan``: the first size has no ``g``, ``G`` (a fit needs two sizes); ``(s − 1)·G`` is 0
  there, so its time is ``o_s + L + o_r``, said in a note.  Any other ``nan`` or ``inf`` in a
  parameter the time needs leaves the row out, said.
* a negative ``o_s``, ``o_r`` or ``G`` (a fit of noisy TCP runs) gives no LogGP time: the
  screen row is left out, said; in the results file the time is measured, so the row is kept
  and the negative parameters are said.
* ``!!! d (…) is smaller than g+size*G (…) !!!``: the delay was shorter than the gap, so
  netgauge itself says that row's ``o_s`` is not an overhead: the screen row is left out.
* ``we detected a protocol change at X bytes:`` is followed by the size's row twice: first
  the fit of the sizes before the change, then the one that holds for this size.  The
  second is kept, the first left out, said (the results file holds the same pair).
* ``**** removed value …`` (an outlier netgauge left out of its ``g``, ``G`` fit),
  launcher lines (Slurm, hostnames) and a modified netgauge's debug lines are not rows:
  said in notes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, integer, lines_of, number, spans, truncated

NAME = "netgauge"
DESCRIPTION = "netgauge 2.x LogGP (-x loggp): the screen output and the -o results file"

_BANNER = re.compile(r"^#\s*Info:\s{0,9}(?:\([0-9]{1,9}\):\s{0,9})?Netgauge v"
                     r"(?P<ver>[0-9]{1,3}(?:\.[0-9]{1,4}){0,3})\b(?P<rest>.{0,2000})$")
_TESTING = re.compile(r"^Testing (?P<size>[0-9]{1,18}) bytes (?P<count>[0-9]{1,18}) times:$")
_PARAMS = re.compile(r"^L=(?P<L>\S{1,40})\s+s=(?P<s>\S{1,40})\s+o_s=(?P<o_s>\S{1,40})\s+"
                     r"o_r=(?P<o_r>\S{1,40})\s+g=(?P<g>\S{1,40})\s+G=(?P<G>\S{1,40})\s+"
                     r"\(\S{1,40} GiB/s\)\s+lsqu\(g,G\)=\S{1,40}(?P<warn>.{0,400})$")
_WARN = re.compile(r"^\s*!!! d \(\S{1,40}\) is smaller than g\+size\*G \(\S{1,40}\) !!!$")
_CHANGE = re.compile(r"^we detected a protocol change at (?P<at>[0-9]{1,18}) bytes:$")
_REMOVED = re.compile(r"^\*\*\*\* removed value \S{1,40} for size (?P<size>[0-9]{1,18}) "
                      r"from gresults")
_FORK = re.compile(r"^n is [0-9]{1,9}, d is \S{1,40}, o_r is [0-9], s is [0-9]{1,18}, "
                   r"the median latency in the test is")
_HEADER = "# size n PRTT(1,0,s) PRTT(n,0,s) PRTT(n,PRTT(1,0,s),s) L o_s o_r g G lsqu(g,G)"
_COLUMNS = ("size", "n", "PRTT(1,0,s)", "PRTT(n,0,s)", "PRTT(n,d,s)", "L", "o_s", "o_r", "g",
            "G", "lsqu(g,G)")
_US = 1e-6
_TWICE = ("printed twice at a protocol change: the first line holds the fit of the sizes "
          "before the change, the second (kept) the fit that holds for this size")
_FIX = "give netgauge's -x loggp screen output or its -o file as it wrote them"


def _value(token: str) -> float | None:
    """A number as C's ``%lf`` prints it, ``-nan``, ``nan``, ``inf`` and ``-inf`` included."""
    if token.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return float(token.lower())
    return number(token)


def _is_header(line: str) -> bool:
    return line.split() == _HEADER.split()


def sniff(text: str) -> bool:
    for _, ln in lines_of(text[:20000]):
        if _is_header(ln) or _BANNER.match(ln) or (ln.startswith("L=") and _PARAMS.match(ln)):
            return True
    return False


def read(source: str, text: str) -> tuple[Measurements, ...]:
    lines = lines_of(text)
    header = next((n for n, ln in lines if _is_header(ln)), None)
    screen = any(ln.startswith("L=") or _TESTING.match(ln) for _, ln in lines)
    tables = []
    if header is not None:
        tables.append(_results(source, [(n, ln) for n, ln in lines if n > header], header))
    if screen or header is None:
        tables.append(_screen(source, lines if header is None else
                              [(n, ln) for n, ln in lines if n < header]))
    return tuple(tables)


@dataclass
class _Params:
    line: int
    size: float
    reps: float | None
    values: dict[str, float]
    warned: bool


def _params(source: str, line: int, ln: str) -> tuple[float, dict[str, float], bool]:
    """The size, the parameters (µs) and whether netgauge warned on one parameter line."""
    m = _PARAMS.match(ln)
    if m is None:
        raise InputError("netgauge LogGP line is cut short or damaged (L=, s=, o_s=, o_r=, "
                         "g=, G= expected)", file=source, line=line,
                         fix="rerun netgauge, or delete the broken line")
    size = integer(m["s"])
    if size is None:
        raise InputError(f"netgauge size s={m['s']!r} is not a whole number of bytes",
                         file=source, line=line, fix="the line is damaged; delete it")
    values: dict[str, float] = {}
    for key in ("L", "o_s", "o_r", "g", "G"):
        value = _value(m[key])
        if value is None:
            raise InputError(f"netgauge {key}={m[key]!r} is not a number", file=source,
                             line=line, fix="the line is damaged; correct it from the "
                             "original output or delete it")
        values[key] = value
    warn = m["warn"].strip()
    if warn and not _WARN.match(warn):
        raise InputError(f"netgauge LogGP line ends in {warn[:60]!r}", file=source, line=line,
                         fix="the line is damaged; delete it")
    return float(size), values, bool(warn)


def _screen(source: str, lines: list[tuple[int, str]]) -> Measurements:
    version, attrs, processes = "", {}, None
    rows: list[_Params] = []
    removed: list[int] = []
    fork: list[int] = []
    skipped: list[int] = []
    testing: tuple[int, float, float] | None = None
    started, waiting = False, False
    for line, ln in lines:
        if m := _BANNER.match(ln):
            version = m["ver"]
            if p := re.search(r"\(P=([0-9]{1,9})\b", m["rest"]):
                processes = float(p[1])
            if (c := re.search(r"\(([^()]{1,1000})\)$", m["rest"])) and "netgauge" in c[1]:
                attrs["command"] = c[1].strip()
            continue
        if m := _TESTING.match(ln):
            testing, started, waiting = (line, float(m["size"]), float(m["count"])), True, True
        elif ln.startswith("L="):
            size, values, warned = _params(source, line, ln)
            reps = testing[2] if testing is not None and testing[1] == size else None
            rows.append(_Params(line, size, reps, values, warned))
            started, waiting = True, False
        elif _CHANGE.match(ln) or not ln or ln.startswith("#") or _WARN.match(ln):
            continue
        elif _REMOVED.match(ln):
            removed.append(line)
        elif _FORK.match(ln):
            fork.append(line)
        elif started:
            skipped.append(line)
    if not rows:
        raise InputError("netgauge output with no LogGP parameter lines (another pattern than "
                         "-x loggp, or a run cut short?)", file=source,
                         line=lines[0][0] if lines else None, fix=_FIX)
    meaning = ("LogGP time o_s + (s − 1)·G + L + o_r, µs, derived from netgauge's own fitted "
               "parameters (not a measured time)")
    table = Table(source, NAME, "loggp", "pingpong", "one_way", meaning, version,
                  concurrency={"pairs": 1} if processes is None else
                  {"pairs": 1, "processes": processes}, attrs=attrs)
    table.attrs["derived"] = "T = o_s + (s - 1)*G + L + o_r (netgauge's fitted LogGP)"
    table.notes.append("times derived from netgauge's fitted LogGP parameters, "
                       "T = o_s + (s − 1)·G + L + o_r, not measured; netgauge's -o file holds "
                       "the measured round trips")
    for i, row in enumerate(rows):
        later = rows[i + 1] if i + 1 < len(rows) else None
        if later is not None and later.size == row.size and later.line - row.line <= 2:
            table.drop(row.line, _TWICE)
            continue
        _screen_row(table, row)
    if waiting and testing is not None:
        table.notes.append(f"the run stopped while testing {testing[1]:g} bytes (line "
                           f"{testing[0]}): no parameters printed for it")
    _said(table, removed, fork)
    for line in skipped:
        table.skip(line)
    return table.required("netgauge output: no row gives a LogGP time (every row has a nan or "
                          "negative parameter, or a warning)", _FIX, rows[0].line)


def _screen_row(table: Table, row: _Params) -> None:
    v, s = row.values, row.size
    needed = ("L", "o_s", "o_r") + (("G",) if s != 1 else ())
    if not all(math.isfinite(v[k]) for k in needed):
        table.drop(row.line, "a parameter the time needs (L, o_s, o_r or G) printed as nan "
                             "or inf")
        return
    if row.warned:
        table.drop(row.line, "netgauge warns d < g + size·G: the delay was shorter than the "
                             "gap, so its o_s is not an overhead")
        return
    if any(v[k] < 0 for k in needed):
        table.drop(row.line, "a negative fitted o_s, o_r or G (a noisy fit) gives no "
                             "LogGP time")
        return
    G = v["G"] if s != 1 else 0.0
    if s == 1 and not math.isfinite(v["G"]):
        table.notes.append(f"line {row.line}: G is not a number at s = 1 (netgauge fits G from "
                           "two sizes or more); (s − 1)·G is 0 there, so T = o_s + L + o_r")
    time = (v["o_s"] + (s - 1) * G + v["L"] + v["o_r"]) * _US
    table.add(row.line, s, time, row.reps, **{k: x * _US for k, x in v.items()})


def _said(table: Table, removed: list[int], fork: list[int]) -> None:
    if removed:
        table.notes.append(f"netgauge left {len(removed)} outlier(s) out of its g, G fit "
                           f"(line{'s' if len(removed) > 1 else ''} {spans(removed)}): its "
                           "messages, not rows; the rows after them kept as printed")
    if fork:
        table.notes.append(f"{len(fork)} lines of a modified netgauge ('n is …, the median "
                           f"latency in the test is …', lines {spans(fork)}) skipped: not "
                           "stock netgauge output, its o_s may be computed otherwise")


def _results(source: str, lines: list[tuple[int, str]], header: int) -> Measurements:
    meaning = "PRTT(1,0,s) µs halved: one message's round trip (median of the tests), one-way"
    table = Table(source, NAME, "loggp", "pingpong", "round_trip", meaning, statistic="median",
                  concurrency={"pairs": 1})
    rows: list[tuple[int, list[float]]] = []
    for line, ln in lines:
        if not ln or ln.startswith("#"):
            continue
        tokens = ln.split()
        values = [_value(t) for t in tokens]
        good = 0
        while good < len(values) and values[good] is not None:
            good += 1
        if good == len(tokens) and len(tokens) < len(_COLUMNS):
            raise truncated(source, line, len(tokens), len(_COLUMNS), "netgauge -o")
        if good < len(tokens) and good < len(_COLUMNS):
            raise InputError(f"netgauge -o row: {_COLUMNS[good]} is {tokens[good][:40]!r}, "
                             "not a number", file=source, line=line,
                             fix="the row is damaged; correct it from the original or delete it")
        if len(tokens) != len(_COLUMNS):
            raise InputError(f"netgauge -o row has {len(tokens)} values, not "
                             f"{len(_COLUMNS)}", file=source, line=line,
                             fix="the row is damaged; correct it from the original or delete it")
        if integer(tokens[0]) is None or integer(tokens[1]) is None:
            raise InputError(f"netgauge -o row: size {tokens[0][:40]!r} and n "
                             f"{tokens[1][:40]!r} must be whole numbers", file=source,
                             line=line, fix="the row is damaged; delete it")
        rows.append((line, [v if v is not None else math.nan for v in values]))
    if not rows:
        raise InputError("netgauge -o file with a header and no rows (the run stopped before "
                         "its first size?)", file=source, line=header,
                         fix="rerun netgauge and keep the whole file")
    negative: list[int] = []
    warned: list[int] = []
    counts = sorted({int(v[1]) for _, v in rows})
    table.attrs["n"] = ", ".join(map(str, counts))
    for i, (line, v) in enumerate(rows):
        later = rows[i + 1][1] if i + 1 < len(rows) else None
        if later is not None and later[:8] == v[:8] and later[0] == v[0]:
            table.drop(line, _TWICE)
            continue
        size, _, prtt = v[0], v[1], v[2]
        if not math.isfinite(prtt):
            table.drop(line, "PRTT(1,0,s) printed as nan or inf")
            continue
        extra = dict(zip(("L", "o_s", "o_r", "g", "G"), (x * _US for x in v[5:10]),
                         strict=True))
        if any(x < 0 for x in (v[6], v[7], v[9]) if math.isfinite(x)):
            negative.append(line)
        if all(math.isfinite(x) for x in v[8:10]) and prtt < v[8] + v[9] * size:
            warned.append(line)
        table.add(line, size, prtt / 2 * _US, None, **extra)
    if negative:
        table.notes.append(f"{len(negative)} row(s) with a negative fitted o_s, o_r or G (a "
                           f"noisy fit; lines {spans(negative)}): kept, their time is the "
                           "measured round trip")
    if warned:
        table.notes.append(f"{len(warned)} row(s) where d = PRTT(1,0,s) < g + s·G (lines "
                           f"{spans(warned)}): netgauge's own check says their o_s is not an "
                           "overhead; kept, their time is the measured round trip")
    return table.required("netgauge -o file: no row has a round-trip time", _FIX, header)
