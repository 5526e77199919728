"""Extra-P's text input: measurements of regions and metrics at points of one to four
parameters (Extra-P's ``--text`` format)::

    PARAMETER p
    POINTS 16 32 64 128
    REGION main
    METRIC time
    DATA 41.2 40.8 41.5
    DATA 22.0 21.7 22.3
    DATA 12.1 12.4 12.0
    DATA 7.3 7.1 7.2

Each ``DATA`` line holds the repetitions at the next point (in ``POINTS`` order, counted
afresh after each ``REGION`` or ``METRIC``); several parameters are written ``PARAMETER p n``
(or one line each) and ``POINTS (16 1000) (32 1000) …``.

A parameter named like a process count (``p``, ``procs``, ``processes``, ``ranks``, ``np`` …)
gives the processes; one named like nodes (``nodes``, ``num_nodes`` …) the nodes.  With one
parameter of another name, it is taken as the process count, said.  The other parameters
(a problem size …) tell series apart: each value is its own table, named in the benchmark.
Every metric is read as seconds, said (Extra-P keeps no unit): one table a region, metric and
setting of the other parameters, one row a repetition (label ``code``: the region,
``figure``: the metric), so that a file of several metrics (time, visits) is several series,
chosen with ``--where figure=time``.
"""

from __future__ import annotations

import math
import re

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import TIME_RANGE, Table, built, lines_of, number, spans

WRITTEN_BY_HAND = True
"""Extra-P's input is written by people and their scripts, not by a tool that ends every
line: a last line without a line end is whole, not cut."""
NAME = "extrap"
DESCRIPTION = "Extra-P text input (regions and metrics at points of its parameters)"

PROCESSES = ("p", "procs", "processes", "ranks", "np", "nprocs", "nproc", "num_procs",
             "mpi_ranks", "ntasks")
NODES = ("nodes", "n_nodes", "nnodes", "num_nodes")
_FIELD = re.compile(r"^(PARAMETER|POINTS|REGION|METRIC|DATA)(?:\s+(.*))?$")
_FIX = "give the file as Extra-P reads it (PARAMETER, POINTS, then REGION/METRIC and one DATA " \
       "line a point)"


def sniff(text: str) -> bool:
    head = text[:20000]
    return all(re.search(rf"^\s*{w}\s", head, re.M) for w in ("PARAMETER", "POINTS", "DATA"))


def _points(value: str, width: int, source: str, line: int) -> list[tuple[float, ...]]:
    groups = re.findall(r"\(([^()]*)\)", value) if "(" in value else value.split()
    out = []
    for g in groups:
        cells = g.split() if "(" in value else [g]
        vals = [number(c) for c in cells]
        if len(vals) != width or any(v is None for v in vals):
            raise InputError(f"POINTS holds {g.strip()!r}, not {width} number(s)", file=source,
                             line=line, fix="one number a parameter at each point: POINTS (16 "
                                            "1000) (32 1000) with two parameters")
        out.append(tuple(float(v) for v in vals if v is not None))
    return out


_COUNTS = {"bytes", "byte", "visits", "visit", "count", "counts", "flops", "flop", "calls",
           "messages", "msgs", "instructions", "cycles", "size", "mem", "memory"}
"""Words of a metric's name that say it counts something, not a time (Extra-P's inputs hold
any metric: bytes sent, visits, PAPI counters)."""


def _counted(metric: str) -> bool:
    """Whether ``metric``'s name says it counts something other than seconds.

    >>> _counted("bytes_sent"), _counted("PAPI_TOT_INS"), _counted("time"), _counted("")
    (True, True, False, False)
    """
    words = set(re.split(r"[^a-z]+", metric.lower()))
    return bool(words & _COUNTS) or metric.lower().startswith("papi")


def read(source: str, text: str) -> tuple[Measurements, ...]:
    params: list[str] = []
    points: list[tuple[float, ...]] = []
    point_lines: list[int] = []
    region, metric, at, opened, param_line = "", "", 0, 0, 0
    data: list[tuple[int, str, str, int, list[float]]] = []

    short: list[str] = []

    def closed() -> None:   # a REGION/METRIC block ends: the points left without DATA, said
        if 0 < at < len(points):
            short.append(f"{f'{region} {metric}'.strip() or 'the data'} (line {opened}) has "
                         f"DATA for {at} of {len(points)} points: the last "
                         f"{len(points) - at} are missing")

    for lineno, ln in lines_of(text):
        if not ln or ln.startswith("#"):
            continue
        m = _FIELD.match(ln)
        if m is None:
            raise InputError(f"{ln.split()[0]!r} is not an Extra-P field", file=source,
                             line=lineno, fix=_FIX)
        field, value = m[1], (m[2] or "").strip()
        if field == "PARAMETER":
            if points:
                raise InputError("PARAMETER after POINTS", file=source, line=lineno, fix=_FIX)
            params += value.split()
            param_line = param_line or lineno
        elif field == "POINTS":
            if not params:
                raise InputError("POINTS before any PARAMETER", file=source, line=lineno,
                                 fix=_FIX)
            got = _points(value, len(params), source, lineno)
            points += got
            point_lines += [lineno] * len(got)
        elif field in ("REGION", "METRIC"):
            closed()
            region, metric = (value, metric) if field == "REGION" else (region, value)
            at, opened = 0, lineno
        else:
            if at >= len(points):
                raise InputError(f"DATA line {at + 1} of {region or 'the region'}, for "
                                 f"{len(points)} points", file=source, line=lineno,
                                 fix="give one DATA line a point, in POINTS order")
            reps = [number(v) for v in value.split()]
            if not reps or any(v is None for v in reps):
                raise InputError(f"DATA holds {value!r}, not numbers", file=source,
                                 line=lineno, fix="write the repetitions as plain numbers")
            opened = opened or lineno
            data.append((lineno, region, metric, at, [v for v in reps if v is not None]))
            at += 1
    closed()
    if not data:
        raise InputError("Extra-P input without DATA", file=source, fix=_FIX)
    lower = [p.lower() for p in params]
    if len(set(lower)) != len(lower):
        raise InputError(f"a parameter is named twice ({', '.join(params)})", file=source,
                         line=param_line, fix="name each parameter once")
    procs = next((i for i, p in enumerate(lower) if p in PROCESSES), None)
    nodes = next((i for i, p in enumerate(lower) if p in NODES), None)
    notes = ["Extra-P keeps no unit: the values are taken as seconds", *short]
    if procs is None and nodes is None:
        if len(params) > 1:
            raise InputError(f"no parameter is a process count ({', '.join(params)})",
                             file=source, line=param_line,
                             fix=f"name it one of {', '.join(PROCESSES[:6])} (or nodes), "
                                 f"or map it: --columns processes={params[0]}")
        procs = 0
        notes.append(f"parameter {params[0]} taken as the process count")
    if procs is None:   # nodes alone: how many processes a node ran is not known
        notes.append("no process-count parameter: the nodes are counted as processes")
    counted = {i for i in (procs, nodes) if i is not None}
    for j, point in enumerate(points):
        for i in counted:
            if not (math.isfinite(point[i]) and point[i] >= 1 and point[i] == int(point[i])):
                raise InputError(f"{params[i]} is {point[i]:g} at a point, not a count",
                                 file=source, line=point_lines[j],
                                 fix="counts are whole numbers from 1")
    lo, hi = TIME_RANGE
    beyond: dict[str, int] = {}   # a value no time takes (< 1 ps, > 11.6 days): not a time
    for lineno, _, met, _, values in data:
        if _counted(met):
            beyond.setdefault(met, lineno)
        elif any(v != 0 for v in values) and any(not lo <= v <= hi for v in values):
            beyond.setdefault(met, lineno)   # (a line of zeros only: a region not timed)
    not_times = set(beyond)
    unmeasured: list[int] = []
    tables: dict[tuple[str, str, tuple[float, ...]], Table] = {}
    for lineno, reg, met, j, values in data:
        if met in not_times:
            continue
        if all(v == 0 for v in values):   # a region not timed at that point
            unmeasured.append(lineno)
            continue
        point = points[j]
        setting = tuple(v for i, v in enumerate(point) if i not in counted)
        key = (reg, met, setting)
        if key not in tables:
            shown = ", ".join(f"{params[i]}={v:g}" for i, v in enumerate(point)
                              if i not in counted)
            attrs = {"code": reg, "figure": met or "(none)",
                     "counts": f"processes ({params[procs]})" if procs is not None
                     else f"nodes ({params[nodes or 0]})"}
            if shown:
                attrs["setting"] = shown
            tables[key] = Table(source, NAME, " ".join(x for x in (reg, met, shown) if x),
                                "application", "time",
                                f"{met or 'the metric'} as Extra-P's input gives it, taken "
                                "as seconds", attrs=attrs)
        counts = {"processes": point[procs if procs is not None else nodes or 0]}
        extra = {"nodes": point[nodes]} if nodes is not None else {}
        for t in values:
            tables[key].add(lineno, math.nan, t, None, counts, **extra)
    if not_times:
        notes.append(f"metrics left out, their values not times of 1 ps to 11.6 days: "
                     f"{', '.join(sorted(not_times))}")
    if unmeasured:
        notes.append(f"DATA lines of 0 only (a region not timed at that point) left out: "
                     f"{len(unmeasured)} DATA line{'s' if len(unmeasured) > 1 else ''} "
                     f"(lines {spans(unmeasured)})")
    out = built(tables.values(), notes)
    if not out:
        first = min(beyond.values(), default=None)
        raise InputError("Extra-P input with no metric that can be a time"
                         + (f" ({', '.join(sorted(m or 'no METRIC' for m in not_times))}: "
                            "a value that no time takes)"
                            if not_times else " (every value is 0)"),
                         file=source, line=first if first is not None else unmeasured[0]
                         if unmeasured else None,
                         fix="perfmodel reads run times: give a METRIC of seconds")
    return out


_ROLE_NAMES = {"processes": "p", "nodes": "nodes"}
"""The roles ``--columns`` may give an Extra-P parameter, and the name each is read under."""


def rename(text: str, columns: dict[str, str], source: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with the parameters ``columns`` maps (``processes=x``, ``nodes=n``) renamed
    on their ``PARAMETER`` lines to the names this reader counts by, every line kept where it
    was; and what was done, said."""
    other = sorted(set(columns) - set(_ROLE_NAMES))
    if other:
        raise InputError(f"--columns {other[0]}=…: Extra-P input names only its parameters "
                         "(the values are its metrics, chosen with --where figure=METRIC)",
                         file=source, fix="give --columns processes=NAME or nodes=NAME")
    lines = text.splitlines(keepends=True)
    found: dict[str, int] = {}
    first = 0
    for i, raw in enumerate(lines):
        m = _FIELD.match(raw.strip())
        if m is None or m[1] != "PARAMETER":
            continue
        first = first or i + 1
        names = (m[2] or "").split()
        for role, column in columns.items():
            if column in names:
                names[names.index(column)] = _ROLE_NAMES[role]
                found[role] = i + 1
        end = raw[len(raw.rstrip("\r\n")):]
        lines[i] = raw[: len(raw) - len(raw.lstrip())] + "PARAMETER " + " ".join(names) + end
    for role, column in columns.items():
        if role not in found:
            raise InputError(f"--columns {role}={column}: no parameter {column!r}",
                             file=source, line=first or None,
                             fix="name one of the file's PARAMETER names")
    said = tuple(f"Extra-P parameter {columns[role]} read as the {role} (--columns "
                 f"{role}={columns[role]})" for role in columns)
    return "".join(lines), said
