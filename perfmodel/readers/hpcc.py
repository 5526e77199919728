"""HPC Challenge (HPCC 1.x) output, ``hpccoutf.txt``: its HPL runs and its ping-pong.

HPCC runs HPL, read here as :mod:`perfmodel.readers.hpl` reads it, and, in its
``LatencyBandwidth`` section, b_eff's ping-pong (``Latency-Bandwidth-Benchmark``, HLRS): pairs
of processes in turn, the others idle, at one size for latency and one for bandwidth, printed
as::

    Detailed benchmark results:
    Ping Pong:
    Latency   min / avg / max:   0.001431 /   0.001468 /   0.001505 msecs
    Bandwidth min / avg / max:   8196.002 /   8220.167 /   8244.332 MByte/s
    ...
     The latency   measurements were done with        8 bytes
     The bandwidth measurements were done with  2000000 bytes

The latency is one-way (half a round trip), in milliseconds; the bandwidth is the bandwidth
size over that one-way time, in 10^6 B/s (2,000,000 B in 0.2430 ms: 8,232 MB/s).  The
ping-pong becomes a table of two rows, the latency size at the largest latency and the
bandwidth size at the smallest bandwidth: the slowest pair's, which crosses the network where
any pair does (processes of one node side by side make the fastest pairs).  Two sizes fix a
two-parameter law and no more: the table says so.  Without the detailed results (an older
HPCC), the summary's ``MaxPingPongLatency_usec`` and ``MinPingPongBandwidth_GBytes`` are the
same two numbers.  STREAM, PTRANS, RandomAccess, FFT, DGEMM and the rings are not read, said.
"""

from __future__ import annotations

import re
from dataclasses import replace

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers import hpl
from perfmodel.readers._table import Table, lines_of, number

NAME = "hpcc"
DESCRIPTION = "HPC Challenge (hpccoutf.txt): its HPL runs and b_eff's ping-pong"

BANNER = re.compile(r"HPC Challenge Benchmark version\s+(?P<ver>[0-9][0-9.]{0,15})")
_MIN_AVG_MAX = r":\s+(?P<min>\S+)\s*/\s*(?P<avg>\S+)\s*/\s*(?P<max>\S+)\s+"
_LATENCY = re.compile(r"^Latency\s+min / avg / max" + _MIN_AVG_MAX + r"msecs$")
_BANDWIDTH = re.compile(r"^Bandwidth\s+min / avg / max" + _MIN_AVG_MAX + r"MByte/s$")
_SIZE = re.compile(r"^The (?P<what>latency|bandwidth)\s+measurements were done with\s+"
                   r"(?P<n>[0-9]{1,12}) bytes$")
_PROCESSES = re.compile(r"^Execution time \(wall clock\)\s*=.*\bon\s+(?P<n>[0-9]{1,9}) processes$")
_SUMMARY = re.compile(r"^(?P<key>MaxPingPongLatency_usec|MinPingPongBandwidth_GBytes|"
                      r"CommWorldProcs)=(?P<value>\S+)$")
LATENCY_SIZE, BANDWIDTH_SIZE = 8.0, 2_000_000.0
"""The sizes HPCC's b_eff measures at (``hpcc/src/bench_lat_bw_1.5.1.c``), where the file
does not print them."""
NOT_READ = ("HPC Challenge output: its HPL runs and b_eff's ping-pong are read; its STREAM, "
            "PTRANS, RandomAccess, FFT, DGEMM and ring results are not (give stream.c's own "
            "output for the node's memory bandwidth)")


def sniff(text: str) -> bool:
    return BANNER.search(text[:20000]) is not None


def read(source: str, text: str) -> tuple[Measurements, ...]:
    banner = BANNER.search(text)
    version = banner["ver"].rstrip(".") if banner else ""
    tables: list[Measurements] = []
    if re.search(r"^T/V\s", text, re.M):
        tables += hpl.read(source, text)
    pingpong = _pingpong(source, text, version)
    if pingpong is not None:
        tables.append(pingpong)
    if not tables:
        raise InputError("HPC Challenge output with neither HPL results nor b_eff's ping-pong "
                         "(cut before them?)", file=source,
                         fix="give the whole hpccoutf.txt of a finished run")
    return tuple(replace(t, notes=(*t.notes, NOT_READ)) for t in tables)


def _pingpong(source: str, text: str, version: str) -> Measurements | None:
    """b_eff's slowest pair as a two-row ping-pong table; None where the file has none."""
    sizes = {"latency": LATENCY_SIZE, "bandwidth": BANDWIDTH_SIZE}
    said_sizes = False
    detail = False
    latency: tuple[int, float] | None = None
    bandwidth: tuple[int, float] | None = None
    summary: dict[str, tuple[int, float]] = {}
    processes: float | None = None
    for lineno, ln in lines_of(text):
        if ln == "Ping Pong:":
            detail = True
            continue
        if detail and latency is None and (m := _LATENCY.match(ln)):
            latency = (lineno, _value(m["max"], source, lineno) * 1e-3)
            continue
        if detail and bandwidth is None and (m := _BANDWIDTH.match(ln)):
            bandwidth = (lineno, _value(m["min"], source, lineno) * 1e6)
            continue
        if m := _SIZE.match(ln):
            sizes[m["what"]] = float(m["n"])
            said_sizes = True
        elif m := _PROCESSES.match(ln):
            processes = float(m["n"])
        elif m := _SUMMARY.match(ln):
            summary[m["key"]] = (lineno, _value(m["value"], source, lineno))
    if latency is None and "MaxPingPongLatency_usec" in summary:
        line, us = summary["MaxPingPongLatency_usec"]
        latency = (line, us * 1e-6)
    if bandwidth is None and "MinPingPongBandwidth_GBytes" in summary:
        line, gbs = summary["MinPingPongBandwidth_GBytes"]
        bandwidth = (line, gbs * 1e9)
    if processes is None and "CommWorldProcs" in summary:
        processes = summary["CommWorldProcs"][1]
    if latency is None or bandwidth is None:
        return None
    table = Table(source, NAME, "PingPong", "pingpong", "time",
                  "one-way time of b_eff's slowest pair (half a round trip): its largest "
                  "latency and its smallest bandwidth's time", version, statistic="max",
                  concurrency={"processes": 2.0})
    if latency[1] <= 0 or bandwidth[1] <= 0:
        raise InputError("b_eff's ping-pong: a latency or bandwidth of 0", file=source,
                         line=min(latency[0], bandwidth[0]),
                         fix="the file is damaged here; rerun HPCC")
    table.add(latency[0], sizes["latency"], latency[1])
    table.add(bandwidth[0], sizes["bandwidth"], sizes["bandwidth"] / bandwidth[1])
    many = processes is not None and processes > 2
    own = "" if said_sizes else ", the sizes HPCC measures at"
    table.notes.append(
        f"b_eff's ping-pong at two sizes ({sizes['latency']:.0f} B and "
        f"{sizes['bandwidth']:.0f} B{own}): "
        "two points fix a two-parameter law (latency and bandwidth), nothing about the sizes "
        "between" + (f"; the slowest of the pairs among {processes:g} processes, taken to "
                     "cross the network (the fastest are inside a node)" if many else ""))
    if processes is not None:
        table.attrs["processes in the run"] = f"{processes:g}"
    return table.build()


def _value(token: str, source: str, line: int) -> float:
    v = number(token)
    if v is None:
        raise InputError(f"b_eff's ping-pong: {token!r} is not a number", file=source,
                         line=line, fix="the file is damaged here; rerun HPCC")
    return v
