"""perfmodel's own CSV: one row per message size, units in the column names.

    # source: mpiexec -n 2 python pingpong.py on node01, 2026-11-01
    size_bytes,one_way_us,reps,statistic
    1,1.43,10000,median
    8192,6.41,10000,median

Columns (names are case-insensitive; the unit after the prefix is read as written, by
:mod:`perfmodel.units`):

- ``size_<unit>``: message size (``size_bytes``, ``size_B``, ``size_KiB``; also plain
  ``bytes``, ``nbytes`` or ``size``, meaning bytes).  Required.
- ``one_way_<unit>``: one-way time (``one_way_us``, ``one_way_s``; also ``latency_<unit>``).
- ``round_trip_<unit>``: round-trip time, halved on reading (also ``rtt_<unit>``).
- ``bandwidth_<unit>``: bandwidth of one stream (``bandwidth_MBps``, ``bw_Gbps``, or a bare
  rate unit such as ``MBps``); the time is size / bandwidth.
- ``aggregate_bandwidth_<unit>``: bandwidth summed over every pair (or sender) in flight;
  one stream's time is size × pairs × senders / aggregate.
- ``time_<unit>``: a time taken as it is; what it times is the ``pattern`` column's
  (``time_us`` with ``pattern`` = ``exchange``: one iteration of the Exchange ring).
- ``pattern``: what one time means, one of :data:`~perfmodel.measurements.PATTERNS`, the same
  in every row; ``pingpong`` when absent.  Required with ``time_<unit>``.
- ``t_min_<unit>``, ``p25_<unit>``, ``p75_<unit>``, ``t_max_<unit>``: the spread of the
  repetitions behind the row (least, quartiles, most), in the terms of the row's time after
  conversion (one-way, or one stream's time per message); kept, not fitted.
- ``pairs``, ``channels``, ``senders``: pairs exchanging at once, network channels (NICs,
  rails) in use, senders into one receiver; whole numbers, 1 when absent.
- ``processes`` (``ranks``, ``np``): processes in the job.
- ``placement``: free text, e.g. ``intra-node`` or ``inter-node``.
- ``reps`` (``iters``, ``iterations``, ``samples``): repetitions behind the row.
- ``statistic``: ``min``, ``median``, ``mean`` or ``max`` of those repetitions.
- ``source`` (``note``): free-text provenance of the row; never read as a number.

One time or bandwidth column is required; when several are present the first of one-way,
round-trip, bandwidth, aggregate bandwidth is used and the reader says so.  Lines starting
with ``#`` are comments (provenance).  Sizes must be >= 0 (a zero-byte ping-pong is a real
measurement) and the time or bandwidth used > 0; a zero size cannot be read from a bandwidth.
Any other column name is an error.
"""

from __future__ import annotations

import csv as _csv
import itertools
import math
import re
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

from perfmodel.errors import InputError, PerfModelError, UnitError
from perfmodel.measurements import (
    CONCURRENCY,
    PATTERNS,
    STATISTICS,
    Measurements,
    Pattern,
    Quantity,
)
from perfmodel.readers._table import SIZE_MAX, TIME_RANGE
from perfmodel.units import Kind, unit_factor

NAME = "csv"
DESCRIPTION = "perfmodel canonical CSV (size_bytes, one_way_us | round_trip_us | bandwidth_MBps …)"

# role -> (column prefixes, unit kind)
_PREFIXED: dict[str, tuple[tuple[str, ...], Kind]] = {
    "size": (("message_size_", "msg_size_", "size_"), "size"),
    "one_way": (("one_way_", "oneway_", "latency_"), "time"),
    "round_trip": (("round_trip_", "roundtrip_", "rtt_"), "time"),
    "bandwidth": (("bandwidth_", "bw_", "throughput_"), "rate"),
    "aggregate": (("aggregate_bandwidth_", "aggregate_bw_", "agg_bw_"), "rate"),
    "time": (("time_",), "time"),
    "t_min": (("t_min_",), "time"),
    "p25": (("p25_",), "time"),
    "p75": (("p75_",), "time"),
    "t_max": (("t_max_",), "time"),
}
SPREAD: tuple[str, ...] = ("t_min", "p25", "p75", "t_max")
"""The spread columns, least to most: each row's value must lie in their order."""
_PLAIN: dict[str, str] = {
    "bytes": "size", "nbytes": "size", "size": "size",
    "pairs": "pairs", "channels": "channels", "senders": "senders",
    "processes": "processes", "ranks": "processes", "np": "processes",
    "placement": "placement",
    "reps": "reps", "iters": "reps", "iterations": "reps", "repetitions": "reps",
    "samples": "reps",
    "statistic": "statistic", "stat": "statistic",
    "pattern": "pattern",
    "source": "source", "note": "source", "notes": "source",
}
_R_NAMES: dict[str, tuple[str, float]] = {
    "x.bytes": ("size", 1.0), "x.repetitions": ("reps", 1.0),
    "t.usec.": ("one_way", 1e-6), "t_min.usec.": ("t_min", 1e-6),
    "t_max.usec.": ("t_max", 1e-6), "t_avg.usec.": ("time", 1e-6),
    "mbytes.sec": ("bandwidth", 1e6), "mbytes.sec.": ("bandwidth", 1e6),
}
"""IMB's columns as R's ``write.csv`` names them (``make.names``: ``#bytes`` → ``X.bytes``,
``t[usec]`` → ``t.usec.``, ``Mbytes/sec`` → ``Mbytes.sec``); R writes its row names first, in
a column with no name.  IMB's ``t[usec]`` (PingPong, PingPing) is one message one way."""
_TIME_ROLES: tuple[Quantity, ...] = ("one_way", "round_trip", "bandwidth", "aggregate", "time")
_KNOWN = ("size_bytes, one_way_us, round_trip_us, bandwidth_MBps, aggregate_bandwidth_MBps, "
          "time_us, pairs, channels, senders, processes, placement, reps, statistic, pattern, "
          "t_min_us, p25_us, p75_us, t_max_us, source")
_HEADER_FIELD = re.compile(r"^[A-Za-z_µμ][\w/µμ.\- ()]*$")


@dataclass(frozen=True)
class Column:
    index: int
    name: str
    role: str
    factor: float = 1.0


def classify(name: str) -> tuple[str, float]:
    """``(role, SI factor)`` of a column name; raises for names perfmodel does not know.

    >>> classify("one_way_us"), classify("MBps"), classify("size_KiB")
    (('one_way', 1e-06), ('bandwidth', 1000000.0), ('size', 1024.0))
    """
    low = name.lower()
    if low in _PLAIN:
        return _PLAIN[low], 1.0
    if low in _R_NAMES:
        return _R_NAMES[low]
    for role, (prefixes, kind) in _PREFIXED.items():
        for prefix in prefixes:
            if low.startswith(prefix):
                unit = name[len(prefix):]
                return role, unit_factor(unit, kind)
    try:
        return "bandwidth", unit_factor(name, "rate")
    except UnitError:
        pass
    raise InputError(f"unknown column {name!r}", fix=f"known columns: {_KNOWN}")


def _split(line: str) -> list[str]:
    """Cells of one CSV line, stripped; quoted cells may hold commas."""
    return [c.strip() for c in next(_csv.reader([line], skipinitialspace=True))]


_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[tuple[int, str]]:
    """Every line with its 1-based number, split at line ends only (LF, CRLF, CR): a form
    feed, NEL or U+2028 inside a comment does not end it, as ``str.splitlines`` would."""
    return list(enumerate(_LINE_END.split(text), start=1))


def _content_lines(text: str) -> list[tuple[int, str]]:
    """Non-blank, non-comment lines with their 1-based line numbers."""
    return [(i, ln.strip()) for i, ln in split_lines(text)
            if ln.strip() and not ln.lstrip().startswith("#")]


MAX_HEADER = 20000
"""Characters of the header line the sniffer looks at; the comments before it may be of any
length (``perfmodel measure`` lists every host in one)."""


def _header_line(text: str) -> str | None:
    """The first line that is neither blank nor a comment, however far down; None if none."""
    pos = 0
    while pos < len(text):
        found = _LINE_END.search(text, pos)
        end = len(text) if found is None else found.start()
        line = text[pos:min(end, pos + MAX_HEADER)].strip()
        if line and not line.startswith("#"):
            return line
        pos = len(text) if found is None else found.end()
    return None


def _clean(comment: str) -> str:
    """A comment with control characters and line or paragraph separators as spaces: it is
    kept as provenance, in a profile that must load again."""
    return "".join(" " if (c < " " and c != "\t") or c in "\x7f\x85\u2028\u2029" else c
                   for c in comment)


def sniff(text: str) -> bool:
    """A header line of names separated by commas (or, to report it, by ; or tabs), or one
    that starts with a column perfmodel knows."""
    header = _header_line(text)
    if header is None:
        return False
    fields = [f.strip().strip('"') for f in re.split(r"[,;\t]", header)]
    if not (all(_HEADER_FIELD.match(f) for f in fields if f) and any(fields)):
        return False
    if len(fields) > 1:
        return True
    try:
        classify(fields[0].split()[0])
    except PerfModelError:
        return False
    return True


def _columns(source: str, header: str, lineno: int) -> list[Column]:
    if "," not in header and re.search(r"[;\t ]", header):
        sep = ";" if ";" in header else "tab" if "\t" in header else "spaces"
        raise InputError(f"columns are separated by {sep}, not commas", file=source, line=lineno,
                         fix="perfmodel's CSV uses commas: size_bytes,one_way_us")
    cols: list[Column] = []
    seen: dict[str, str] = {}
    cells = _split(header)
    for i, raw in enumerate(cells):
        name = raw
        if not name and i == 0 and len(cells) > 1 and \
                any(c.lower() in _R_NAMES for c in cells[1:]):   # R's row names
            cols.append(Column(i, "(R row names)", "rownames"))
            continue
        if not name:
            raise InputError(f"column {i + 1} has no name", file=source, line=lineno,
                             fix=f"name every column; known columns: {_KNOWN}")
        try:
            role, factor = classify(name)
        except InputError as exc:
            raise exc.at(source, lineno) from None
        if name.lower() in (c.name.lower() for c in cols):
            first = next(c.index for c in cols if c.name.lower() == name.lower()) + 1
            raise InputError(f"column {name!r} appears twice (columns {first} and {i + 1})",
                             file=source, line=lineno,
                             fix="keep one of them: which copy holds the data is a guess")
        if role in seen:
            raise InputError(f"columns {seen[role]!r} and {name!r} both give the {role}",
                             file=source, line=lineno, fix="keep one of them")
        seen[role] = name
        cols.append(Column(i, name, role, factor))
    return cols




def _number(cell: str, col: Column, source: str, lineno: int) -> float:
    try:
        if "_" in cell:
            raise ValueError(cell)
        value = float(cell)
    except ValueError:
        raise InputError(f"{col.name} is {cell!r}, not a number", file=source, line=lineno,
                         fix="write a plain number; the unit is in the column name") from None
    if not math.isfinite(value):
        raise InputError(f"{col.name} is {cell}", file=source, line=lineno,
                         fix="remove the row or give the measured value")
    return value


def read(source: str, text: str) -> tuple[Measurements, ...]:
    """Parse the canonical CSV ``text`` (from ``source``) into one Measurements table."""
    lines = _content_lines(text)
    comments = tuple(_clean(ln.strip().lstrip("#").strip()) for _, ln in split_lines(text)
                     if ln.lstrip().startswith("#"))
    if not lines:
        raise InputError("has comments but no header", file=source,
                         fix=f"add a header line such as {_KNOWN.split(', ')[0]},one_way_us")
    header_no, header = lines[0]
    cols = _columns(source, header, header_no)
    by_role = {c.role: c for c in cols}
    if "size" not in by_role:
        raise InputError("no size column", file=source, line=header_no,
                         fix="add a column size_bytes (or size_KiB, bytes)")
    present = [r for r in _TIME_ROLES if r in by_role]
    if not present:
        raise InputError("no time or bandwidth column", file=source, line=header_no,
                         fix="add one_way_us, round_trip_us or bandwidth_MBps")
    quantity: Quantity = present[0]
    notes: list[str] = []
    if "rownames" in by_role:
        notes.append("IMB columns as R's write.csv names them (X.bytes, t.usec. …), its row "
                     "names left out; t[usec] is one message one way (IMB PingPong's half "
                     "round trip)")
    if len(present) > 1:
        ignored = ", ".join(by_role[r].name for r in present[1:])
        notes.append(f"{by_role[quantity].name} used; {ignored} ignored")
    rows = lines[1:]
    if not rows:
        raise InputError("has a header but no data rows", file=source, line=header_no,
                         fix="add one row per message size")

    values: dict[str, list[float]] = {c.role: [] for c in cols if c.role not in
                                      ("placement", "statistic", "source", "pattern",
                                       "rownames")}
    texts: dict[str, list[str]] = {"placement": [], "statistic": [], "pattern": []}
    line_nos: list[int] = []
    for lineno, row in rows:
        cells = _split(row)
        if len(cells) != len(cols):
            raise InputError(f"{len(cells)} cells, the header has {len(cols)}", file=source,
                             line=lineno, fix="give one value per column")
        for col in cols:
            cell = cells[col.index]
            if col.role in ("source", "rownames"):
                continue
            if col.role in texts:
                if col.role == "statistic" and cell.lower() not in STATISTICS:
                    raise InputError(f"statistic {cell!r} is not one of {', '.join(STATISTICS)}",
                                     file=source, line=lineno, fix="write min, median, mean or max")
                if col.role == "pattern":
                    _check_pattern(cell, texts["pattern"], source, lineno)
                texts[col.role].append(cell.lower() if col.role != "placement" else cell)
                continue
            if cell == "":
                raise InputError(f"{col.name} is empty", file=source, line=lineno,
                                 fix="fill the cell or remove the row")
            v = _number(cell, col, source, lineno)
            if col.role == "size" and v < 0:
                raise InputError(f"size is negative ({cell})", file=source, line=lineno,
                                 fix="sizes are message lengths, 0 or more")
            if (col.role == quantity and v <= 0) or (col.role in (*_TIME_ROLES, *SPREAD)
                                                     and v < 0):
                raise InputError(f"{col.name} is {cell}; it must be positive", file=source,
                                 line=lineno, fix="remove the row or give the measured value")
            if col.role in (*CONCURRENCY, "reps") and (v < 1 or not v.is_integer()):
                raise InputError(f"{col.name} is {cell}; it must be a whole number >= 1",
                                 file=source, line=lineno, fix="count pairs, channels, senders, "
                                 "processes and repetitions in whole numbers")
            si = v * col.factor
            if col.role == "size" and (si > SIZE_MAX or abs(si - round(si)) > 1e-6 * max(si, 1)):
                said = f"{col.name} is {cell}" + (f", {si:g} bytes" if col.factor != 1 else "")
                raise InputError(said,
                                 file=source, line=lineno,
                                 fix="sizes are whole bytes up to 1 PB; check the column's unit")
            values[col.role].append(si)
        line_nos.append(lineno)

    pattern = cast(Pattern, texts["pattern"][0] if texts["pattern"] else "pingpong")
    if quantity == "time" and "pattern" not in by_role:
        raise InputError(f"{by_role['time'].name} does not say what it times", file=source,
                         line=header_no, fix="add a pattern column (exchange, sendrecv …), or "
                         "name a one-way time one_way_us")
    size = np.array(values["size"])
    raw = np.array(values[quantity])
    if quantity in ("bandwidth", "aggregate"):
        zero = np.flatnonzero(size == 0)
        if zero.size:
            raise InputError("a zero-byte message has no bandwidth to read a time from",
                             file=source, line=line_nos[zero[0]],
                             fix="remove the row, or give its time in a one_way_us column")
        streams = np.ones_like(size)
        if quantity == "aggregate":
            for key in ("pairs", "senders"):
                if key in values:
                    streams = streams * np.array(values[key])
        time = size * streams / raw
    elif quantity == "round_trip":
        time = raw / 2.0
    else:
        time = raw
    outside = np.flatnonzero(~((time >= TIME_RANGE[0]) & (time <= TIME_RANGE[1])))
    if outside.size:
        i = int(outside[0])
        raise InputError(f"{by_role[quantity].name} gives a one-way time of {time[i]:g} s",
                         file=source, line=line_nos[i],
                         fix="times must lie between 1 ps and 11.6 days; check the column's unit")
    spread = {k: np.array(values[k]) for k in SPREAD if k in values}
    _check_spread(spread, time, line_nos, by_role, source)
    return (
        Measurements(
            source=source,
            size=size,
            time=time,
            line=tuple(line_nos),
            quantity=quantity,
            format=NAME,
            concurrency={k: np.array(values[k]) for k in CONCURRENCY if k in values},
            placement=tuple(texts["placement"]) if "placement" in by_role else None,
            reps=np.array(values["reps"]) if "reps" in values else None,
            statistic=tuple(texts["statistic"]) if "statistic" in by_role else None,
            comments=comments,
            notes=tuple(notes),
            pattern=pattern,
            benchmark=pattern,
            extra=spread,
            meaning=_MEANING[quantity].format(by_role[quantity].name, PATTERNS[pattern]),
        ),
    )


def _check_pattern(cell: str, seen: list[str], source: str, lineno: int) -> None:
    """A known pattern, the same as every row's before it."""
    said = cell.lower()
    if said not in PATTERNS:
        raise InputError(f"pattern {cell!r} is not one of {', '.join(PATTERNS)}", file=source,
                         line=lineno, fix="write what one time is, e.g. pingpong or exchange")
    if seen and said != seen[0]:
        raise InputError(f"pattern {cell!r} differs from the first row's {seen[0]!r}",
                         file=source, line=lineno, fix="put each pattern in its own file")


def _check_spread(spread: dict[str, NDArray[np.float64]], time: NDArray[np.float64],
                  lines: list[int], by_role: dict[str, Column], source: str) -> None:
    """Each row's spread in order (least, quartiles, most) and around its time (to the
    rounding of 6 significant digits)."""
    order = [(k, spread[k]) for k in SPREAD if k in spread]
    slack = 1e-5
    for (lo_name, lo), (hi_name, hi) in itertools.pairwise(order):
        bad = np.flatnonzero(lo > hi * (1 + slack))
        if bad.size:
            i = int(bad[0])
            raise InputError(f"{by_role[lo_name].name} exceeds {by_role[hi_name].name}",
                             file=source, line=lines[i],
                             fix="the spread columns rise: t_min <= p25 <= p75 <= t_max")
    for name, col, outside in (("t_min", spread.get("t_min"), lambda c: c > time * (1 + slack)),
                               ("t_max", spread.get("t_max"), lambda c: c < time * (1 - slack))):
        if col is None:
            continue
        bad = np.flatnonzero(outside(col))
        if bad.size:
            i = int(bad[0])
            raise InputError(f"{by_role[name].name} lies on the wrong side of the row's time "
                             f"({time[i]:.6g} s)", file=source, line=lines[i],
                             fix="the row's time lies between t_min and t_max")


_MEANING = {
    "one_way": "{} as written: one-way",
    "round_trip": "{} halved: one-way",
    "bandwidth": "size / {}: one stream's time per message",
    "aggregate": "size × pairs × senders / {}: one stream's share of the aggregate",
    "time": "{} as written: {}",
}
