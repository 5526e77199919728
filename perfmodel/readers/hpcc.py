"""HPC Challenge (HPCC 1.x) output, ``hpccoutf.txt``: its HPL runs, b_eff's ping-pong and
STREAM's Triad.

HPCC appends each run to the file it finds (``fopen(…, "a")``), so one file may hold several
runs, each opening with the banner ``This is the DARPA/DOE HPC Challenge Benchmark version``.
Every run's HPL results are read as :mod:`perfmodel.readers.hpl` reads them (a row a run,
against its P × Q processes).  In its ``LatencyBandwidth`` section b_eff times pairs of
processes in turn, the others idle, at one size for latency and one for bandwidth::

    Detailed benchmark results:
    Ping Pong:
    Latency   min / avg / max:   0.001431 /   0.001468 /   0.001505 msecs
    Bandwidth min / avg / max:   8196.002 /   8220.167 /   8244.332 MByte/s
    ...
     The latency   measurements were done with        8 bytes
     The bandwidth measurements were done with  2000000 bytes

The latency is one-way (half a round trip), in milliseconds; the bandwidth is the bandwidth
size over that one-way time, in 10^6 B/s (2,000,000 B in 0.2430 ms: 8,232 MB/s).  A run of
**two processes** measures one pair; its ping-pong becomes a table of two rows, the latency size
at the larger latency and the bandwidth size at the smaller bandwidth's time.  Two sizes fix a
two-parameter law and no more, and where the two processes ran (a node each, or one node) the
file does not say: both are said.  A run of more processes is not read as a ping-pong: the
slowest of its many pairs is an outlier, the fastest inside a node, and which pairs crossed the
network is not printed.  Without the detailed results (an older HPCC, a cut file) the summary's
``MaxPingPongLatency_usec`` and ``MinPingPongBandwidth_GBytes`` are the same two numbers; a
run of one process prints ``-1`` there (nothing measured).

STREAM runs twice: ``SingleSTREAM`` on one process chosen at random, the others idle, and
``StarSTREAM`` on every process at once.  The node's ``memory_bandwidth`` is what one process
streams alone, so each run's **SingleSTREAM Triad** is read (``Single STREAM Triad GB/s``, else
the summary's ``SingleSTREAM_Triad``; GB = 10^9 B) as a one-row Triad table of ``3 × 8 ×
STREAM_VectorSize`` bytes (the array size ``Array size =`` prints where the summary does not),
with its ``STREAM_Threads``.  StarSTREAM's Triad a process is said beside it where it is below
:data:`SHARED` of it (processes sharing a memory system).  A Triad of 0 (below the timer), one
whose SingleSTREAM section counts nodes with errors, or a run without its arrays' size is left
out, said; a rate outside :data:`STREAM_RATES`, a line and summary that disagree, or an array
size or thread count that is not a whole number is refused at its line.  HPCC sizes the arrays
from the memory a process has, so runs of many processes a node time small arrays in the
caches: :func:`perfmodel.node_rates.node_from` takes the largest arrays' run.  PTRANS,
RandomAccess, FFT, DGEMM and the rings are not read, said.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers import hpl
from perfmodel.readers._table import Table, lines_of, number, spans

NAME = "hpcc"
DESCRIPTION = "HPC Challenge (hpccoutf.txt): its HPL runs, b_eff's ping-pong and STREAM Triad"

BANNER = re.compile(r"HPC Challenge Benchmark version\s+(?P<ver>[0-9][0-9.]{0,15})")
_HPL_ROW = re.compile(r"^W[RC][0-9A-Z]{4,12}\s+[0-9]", re.M)
_MIN_AVG_MAX = r":\s+(?P<min>\S+)\s*/\s*(?P<avg>\S+)\s*/\s*(?P<max>\S+)\s+"
_LATENCY = re.compile(r"^Latency\s+min / avg / max" + _MIN_AVG_MAX + r"msecs$")
_BANDWIDTH = re.compile(r"^Bandwidth\s+min / avg / max" + _MIN_AVG_MAX + r"MByte/s$")
_SIZE = re.compile(r"^The (?P<what>latency|bandwidth)\s+measurements were done with\s+"
                   r"(?P<n>[0-9]{1,12}) bytes$")
_PROCESSES = re.compile(r"^Execution time \(wall clock\)\s*=.*\bon\s+(?P<n>[0-9]{1,9}) "
                        r"processes$")
_SUMMARY = re.compile(r"^(?P<key>MaxPingPongLatency_usec|MinPingPongBandwidth_GBytes|"
                      r"CommWorldProcs|SingleSTREAM_Triad|StarSTREAM_Triad|STREAM_VectorSize|"
                      r"STREAM_Threads)=(?P<value>\S+)$")
_SINGLE_TRIAD = re.compile(r"^Single STREAM Triad GB/s\s+(?P<v>\S+)$")
_ARRAY = re.compile(r"^Array size = (?P<n>[0-9]{1,15}), Offset")
_NODE_ERRORS = re.compile(r"^Node\(s\) with error (?P<n>\S+)$")
STREAM_RATES = (1e6, 1e14)
"""B/s a process may stream, for the plausibility of a printed rate (1 MB/s to 100 TB/s)."""
AGREE = 1e-3
"""How far the detailed Triad line and the summary's SingleSTREAM_Triad may differ (the
summary prints six figures)."""
LATENCY_SIZE, BANDWIDTH_SIZE = 8.0, 2_000_000.0
"""The sizes HPCC's b_eff measures at (``hpcc/src/bench_lat_bw_1.5.1.c``), where the run does
not print them."""
NOT_READ = ("HPC Challenge output: its HPL runs, b_eff's ping-pong of two processes and "
            "SingleSTREAM's Triad are read; its PTRANS, RandomAccess, FFT, DGEMM and ring "
            "results are not")
SHARED = 0.8
"""StarSTREAM's rate a process below this share of SingleSTREAM's is said (repeats of one
kernel differ by several per cent)."""
TRIAD_ARRAYS = 3
"""Arrays STREAM's Triad moves (a = b + s·c: two read, one written)."""
_FIX = "the file is damaged here; correct it from the original output or rerun HPCC"


def sniff(text: str) -> bool:
    return BANNER.search(text) is not None


@dataclass
class _Run:
    """One appended run's b_eff figures, each as (line, token) until it is used."""

    banner: int
    version: str
    latency: tuple[int, str] | None = None
    bandwidth: tuple[int, str] | None = None
    sizes: dict[str, float] = field(default_factory=dict)
    size_lines: dict[str, int] = field(default_factory=dict)
    processes: tuple[int, str] | None = None
    summary: dict[str, tuple[int, str]] = field(default_factory=dict)
    detail: bool = False
    triad: tuple[int, str] | None = None
    array: tuple[int, str] | None = None
    single: bool = False
    """Inside the SingleSTREAM section."""
    failed: tuple[int, str] | None = None
    """SingleSTREAM's ``Node(s) with error N`` line, where N is not 0."""


def read(source: str, text: str) -> tuple[Measurements, ...]:
    runs = _runs(text)
    version = runs[0].version if runs else ""
    hpl_tables = [replace(t, format=NAME, version=version) for t in hpl.read(source, text)] \
        if _HPL_ROW.search(text) else []
    pingpongs: list[Measurements] = []
    streams: list[Measurements] = []
    left: list[str] = []
    unread: dict[str, list[int]] = {}
    for run in runs:
        got = _pingpong(source, run)
        if isinstance(got, str):
            unread.setdefault(got, []).append(run.banner)
        else:
            pingpongs.append(got)
        triad = _stream(source, run)
        if isinstance(triad, str):
            left.append(f"SingleSTREAM's Triad of the run at line {run.banner} not read: "
                        f"{triad}")
        elif triad is not None:
            streams.append(triad)
    if not hpl_tables and not pingpongs and not streams:
        last = text.count("\n") + 1
        why = [*unread, *left]
        raise InputError("HPC Challenge output with no HPL result, ping-pong of two processes "
                         "or STREAM Triad" + (f" ({'; '.join(why)})" if why else
                                              " (cut before them?)"),
                         file=source, line=last,
                         fix="give the whole hpccoutf.txt of a finished run (b_eff's ping-pong "
                             "is read from a run of two processes, one a node)")
    said = [NOT_READ] + [f"b_eff's ping-pong of the run at line{'s' if len(at) > 1 else ''} "
                         f"{spans(at)} not read: {why}" for why, at in unread.items()] + left
    tables = [*hpl_tables, *pingpongs, *streams]
    first = len(hpl_tables) if pingpongs else 0   # the ping-pong says so where there is one
    tables[first] = replace(tables[first], notes=(*tables[first].notes, *said))
    return tuple(tables)


def _runs(text: str) -> list[_Run]:
    """Each run's b_eff lines, in one pass over the file."""
    runs: list[_Run] = []
    for lineno, ln in lines_of(text):
        if m := BANNER.search(ln):
            runs.append(_Run(lineno, m["ver"].rstrip(".")))
            continue
        if not runs:
            continue
        run = runs[-1]
        if ln == "Ping Pong:":
            run.detail = True
        elif run.detail and run.latency is None and (m := _LATENCY.match(ln)):
            run.latency = (lineno, m["max"])
        elif run.detail and run.bandwidth is None and (m := _BANDWIDTH.match(ln)):
            run.bandwidth = (lineno, m["min"])
        elif m := _SIZE.match(ln):
            run.sizes[m["what"]] = float(m["n"])
            run.size_lines[m["what"]] = lineno
        elif m := _PROCESSES.match(ln):
            run.processes = (lineno, m["n"])
        elif m := _SUMMARY.match(ln):
            run.summary[m["key"]] = (lineno, m["value"])
        elif ln == "Begin of SingleSTREAM section.":
            run.single = True
        elif ln == "End of SingleSTREAM section.":
            run.single = False
        elif run.single and (m := _NODE_ERRORS.match(ln)) and m["n"] != "0":
            run.failed = (lineno, m["n"])
        elif m := _SINGLE_TRIAD.match(ln):
            run.triad = (lineno, m["v"])
        elif run.array is None and (m := _ARRAY.match(ln)):
            run.array = (lineno, m["n"])
    return runs


def _pingpong(source: str, run: _Run) -> Measurements | str:
    """One run's b_eff ping-pong as a two-row table, or why it is not read."""
    procs = run.processes or run.summary.get("CommWorldProcs")
    if procs is None:
        return ("the run ends before b_eff's results (cut while running?)"
                if run.latency is None else "the run does not say how many processes it had")
    processes = _value(procs, source)
    if processes != 2:
        return (f"{processes:g} processes: " + (
            "b_eff measured no pair" if processes < 2 else
            "the slowest of many pairs is an outlier and the fastest sit inside a node; which "
            "crossed the network is not printed (give a run of two processes, one a node)"))
    latency = (run.latency[0], _value(run.latency, source) * 1e-3) if run.latency else None
    bandwidth = (run.bandwidth[0], _value(run.bandwidth, source) * 1e6) if run.bandwidth \
        else None
    if latency is None and "MaxPingPongLatency_usec" in run.summary:
        latency = (run.summary["MaxPingPongLatency_usec"][0],
                   _value(run.summary["MaxPingPongLatency_usec"], source, sentinel=True) * 1e-6)
    if bandwidth is None and "MinPingPongBandwidth_GBytes" in run.summary:
        bandwidth = (run.summary["MinPingPongBandwidth_GBytes"][0],
                     _value(run.summary["MinPingPongBandwidth_GBytes"], source,
                            sentinel=True) * 1e9)
    if latency is None or bandwidth is None or latency[1] < 0 or bandwidth[1] < 0:
        return "the run printed no ping-pong (cut before b_eff, or not run)"
    for line, v in (latency, bandwidth):
        if v == 0:
            raise InputError("b_eff's ping-pong: a latency or bandwidth of 0", file=source,
                             line=line, fix=_FIX)
    sizes = {"latency": LATENCY_SIZE, "bandwidth": BANDWIDTH_SIZE, **run.sizes}
    if sizes["latency"] >= sizes["bandwidth"]:
        raise InputError(f"b_eff's ping-pong: a latency size of {sizes['latency']:.0f} B at or "
                         f"above the bandwidth size, {sizes['bandwidth']:.0f} B", file=source,
                         line=run.size_lines.get("bandwidth", latency[0]), fix=_FIX)
    table = Table(source, NAME, "PingPong", "pingpong", "time",
                  "one-way time of b_eff's ping-pong between two processes (half a round "
                  "trip): the larger latency and the smaller bandwidth's time of its two "
                  "directions", run.version, statistic="max", concurrency={"processes": 2.0})
    table.add(latency[0], sizes["latency"], latency[1])
    table.add(bandwidth[0], sizes["bandwidth"], sizes["bandwidth"] / bandwidth[1])
    own = "" if run.sizes else ", the sizes HPCC measures at"
    table.notes.append(
        f"b_eff's ping-pong at two sizes ({sizes['latency']:.0f} B and "
        f"{sizes['bandwidth']:.0f} B{own}): two points fix a two-parameter law (latency and "
        "bandwidth), nothing about the sizes between; whether the two processes ran on two "
        "nodes the file does not say (its job's placement does)")
    return table.required("b_eff's ping-pong without a row", _FIX, run.banner)


def _stream(source: str, run: _Run) -> Measurements | str | None:
    """One run's SingleSTREAM Triad as a one-row memory table; why it is left out (a rate of
    0, no array size, a failed validation); or None where the run printed no STREAM."""
    detail, summary = run.triad, run.summary.get("SingleSTREAM_Triad")
    triad = detail or summary
    if triad is None:
        return None
    line, token = triad
    rate = number(token)
    if rate is None or not (math.isfinite(rate) and rate >= 0) or \
            (rate > 0 and not STREAM_RATES[0] <= rate * 1e9 <= STREAM_RATES[1]):
        raise InputError(f"STREAM: {token!r} GB/s is not a bandwidth one process streams "
                         f"(1 MB/s to 100 TB/s)", file=source, line=line, fix=_FIX)
    if detail is not None and summary is not None:
        other = number(summary[1])
        if other is None or abs(other - rate) > AGREE * max(rate, other):
            raise InputError(f"STREAM: the Triad line says {token} GB/s and the summary's "
                             f"SingleSTREAM_Triad (line {summary[0]}) {summary[1]}",
                             file=source, line=line, fix=_FIX)
    if rate == 0:   # HPCC prints 0 where the kernel was below its timer: nothing measured
        return f"its rate is 0 (line {line}: below the timer; larger arrays time it)"
    if run.failed is not None:
        return (f"{run.failed[1]} node(s) failed STREAM's validation (line {run.failed[0]})")
    size = run.summary.get("STREAM_VectorSize") or run.array
    if size is None:
        return f"the run does not print its arrays' size (line {line})"
    elements = _value(size, source, what="STREAM")
    if not (elements >= 1 and elements == int(elements) and elements <= 1e13):
        raise InputError(f"STREAM: an array size of {size[1]} is not a whole number of "
                         "elements from 1 to 10^13", file=source, line=size[0], fix=_FIX)
    attrs = {"element bytes": "8", "array size": f"{elements:.0f}"}
    if (threads := run.summary.get("STREAM_Threads")) is not None:
        n = _value(threads, source, what="STREAM")
        if not (1 <= n <= 1e5 and n == int(n)):
            raise InputError(f"STREAM: {threads[1]} threads is not a whole number from 1 to "
                             "100000", file=source, line=threads[0], fix=_FIX)
        attrs["threads"] = f"{n:.0f}"
    moved = TRIAD_ARRAYS * 8 * elements
    table = Table(source, NAME, "Triad", "memory", "time",
                  "one pass of SingleSTREAM's Triad on one process, the others idle: bytes = "
                  f"{TRIAD_ARRAYS} arrays × {elements:.0f} × 8 B, time = bytes over its rate "
                  "(GB = 10^9 B)", run.version, statistic="min", attrs=attrs)
    table.add(line, moved, moved / (rate * 1e9), rate=rate * 1e9)
    star = run.summary.get("StarSTREAM_Triad")
    if star is not None and (v := number(star[1])) is not None and 0 < v < SHARED * rate:
        table.notes.append(f"StarSTREAM's Triad, every process at once, is {v:.4g} GB/s a "
                           f"process (line {star[0]}) against {rate:.4g} GB/s alone: processes "
                           "of one node share its memory system, and a node's full rate is "
                           "not one process's times its processes")
    return table.required("SingleSTREAM's Triad without a row", _FIX, line)


def _value(at: tuple[int, str], source: str, sentinel: bool = False,
           what: str = "b_eff's ping-pong") -> float:
    """A printed number; ``sentinel``: HPCC's -1 for "not measured" passes through."""
    line, token = at
    v = number(token)
    if v is None or (v < 0 and not (sentinel and v == -1)):
        raise InputError(f"{what}: {token!r} is not a measurement", file=source,
                         line=line, fix=_FIX)
    return v
