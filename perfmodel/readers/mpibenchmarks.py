"""MPIBenchmarks.jl's CSV files (JuliaParallel/MPIBenchmarks.jl): OSU and IMB re-written in Julia.

Each benchmark writes one CSV whose header is its banner (``src/osu_p2p.jl``,
``src/imb_p2p.jl``, ``src/imb_collective.jl``):

    size (bytes),iterations,latency (us)                        osu_latency (to 2024-05: s)
    size (bytes),iterations,bandwidth (MB/s)                    osu_bw
    size (bytes),iterations,time (seconds),throughput (MB/s)[,alloc (B)]   IMB PingPong, PingPing
    size (bytes),iteratons,min_time (seconds),max_time (seconds),avg_time (seconds)  collectives

Meaning, from the source:

- ``osu_latency``: half the mean round trip, **one-way**; in seconds until b6b93a3 (2024-05-12),
  in microseconds since (the header says which).
- ``osu_bw``: since b6b93a3, ``size × iterations × window / 2^20 / time``: MiB/s (the header's
  "MB/s" is 2^20 bytes); one message of a window streamed one way takes size / bandwidth.  From
  4a35ee7 (2023-01-03) to b6b93a3 the tool wrote the same header over a rate inflated by the
  iteration count (10^6 B, divided by the time of one iteration): the file cannot say which it
  is, so every such table says so in a note, and a rate above :data:`RATE_MAX` is refused.
- IMB ``PingPong``: the larger of the two ranks' mean round trip, halved: **one-way**; IMB
  ``PingPing`` (both ranks send at once) is not halved: one message while the other direction is
  as busy.  Both write the same header, so the file's name says which (the tool names them
  ``julia_imb_pingpong.csv`` and ``julia_imb_pingping.csv``); a name with neither is refused.
  ``throughput`` is size / time in 10^6 B/s, checked against the time.
- The collectives' files do not say how many ranks ran them, so they are refused.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements, Pattern, Quantity
from perfmodel.readers._table import Table, lines_of, row_values

NAME = "mpibenchmarks-jl"
DESCRIPTION = ("MPIBenchmarks.jl CSV (julia_osu_latency.csv, julia_osu_bw.csv, "
               "julia_imb_pingpong.csv …)")

_SIZE = r"size \(bytes\),(?:iterations|iteratons)"
_LATENCY = re.compile(_SIZE + r",latency \((us|seconds)\)$", re.I)
_BANDWIDTH = re.compile(_SIZE + r",bandwidth \(MB/s\)$", re.I)
_IMB = re.compile(_SIZE + r",time \(seconds\),throughput \(MB/s\)(,alloc \(B\))?$", re.I)
_COLLECTIVE = re.compile(_SIZE + r",min_time \(seconds\),max_time \(seconds\),"
                         r"avg_time \(seconds\)$", re.I)
_HEADERS = (_LATENCY, _BANDWIDTH, _IMB, _COLLECTIVE)
RATE_MAX = 1e12
"""B/s: no point-to-point stream of an MPI benchmark comes near a terabyte a second; above it an
osu_bw file is one of the inflated ones (the iteration count times the true rate)."""


def _header(text: str) -> tuple[int, str] | None:
    """The first line that is not blank, with its number, spaces after commas taken out."""
    for lineno, ln in lines_of(text[:20000]):
        if ln:
            return lineno, re.sub(r"\s*,\s*", ",", ln.strip())
    return None


def sniff(text: str) -> bool:
    head = _header(text)
    return head is not None and any(h.match(head[1]) for h in _HEADERS)


def _imb_pattern(source: str, line: int) -> tuple[str, Pattern, str]:
    name = PurePath(source).name.lower()
    if "pingping" in name:
        return ("PingPing", "bidirectional",
                "time (seconds) as written: one message while the other direction is as busy "
                "(PingPing, not halved)")
    if "pingpong" in name:
        return ("PingPong", "pingpong",
                "time (seconds) as written: one-way (the larger rank's mean round trip, halved)")
    raise InputError("an MPIBenchmarks.jl IMB point-to-point table: PingPong and PingPing write "
                     "the same header, and the file's name says neither", file=source, line=line,
                     fix="name the file as the tool does: julia_imb_pingpong.csv (one-way "
                         "times) or julia_imb_pingping.csv")


def read(source: str, text: str) -> tuple[Measurements, ...]:
    head = _header(text)
    if head is None:   # sniff said yes, so there is a header; kept for the type checker
        raise InputError("an empty MPIBenchmarks.jl file", file=source,
                         fix="rerun the benchmark and keep its CSV")
    start, header = head
    if _COLLECTIVE.match(header):
        raise InputError("an MPIBenchmarks.jl collective table: its file does not say how many "
                         "ranks ran it", file=source, line=start,
                         fix="give perfmodel the point-to-point files (julia_osu_latency.csv, "
                             "julia_imb_pingpong.csv), or the collective in OSU's or IMB's own "
                             "output, which prints the ranks")
    quantity: Quantity = "one_way"
    pattern: Pattern
    rate = 0.0
    if match := _LATENCY.match(header):
        unit = 1e-6 if match.group(1).lower() == "us" else 1.0
        benchmark, pattern = "latency", "pingpong"
        meaning = (f"latency ({match.group(1)}) as written: one-way (half the mean round "
                   "trip)")
    elif _BANDWIDTH.match(header):
        benchmark, pattern, quantity, rate = "bw", "stream", "bandwidth", 2.0 ** 20
        meaning = ("size / bandwidth: the header's MB/s is 2^20 B/s (size × iterations × "
                   "window / 2^20 / time); one message of a window streamed one way")
        unit = 1.0
    else:
        benchmark, pattern, meaning = _imb_pattern(source, start)
        unit = 1.0
    table = Table(source, NAME, benchmark, pattern, quantity, meaning, statistic="mean",
                  concurrency={"pairs": 1, "processes": 2})
    if quantity == "bandwidth":
        table.notes.append("MPIBenchmarks.jl wrote this header from 4a35ee7 (2023-01-03) to "
                           "b6b93a3 (2024-05-12) over a rate inflated by the iteration count; "
                           "read as the tool writes it since (2^20 B/s): a file from those "
                           "versions gives times too short")
    width = header.count(",") + 1   # the header's columns (the headers hold no commas else)
    first_odd: tuple[int, int] | None = None   # the first row of another width: line, values
    for lineno, ln in lines_of(text):
        if lineno <= start or not ln.strip():
            continue
        tokens = [t.strip() for t in ln.split(",")]
        values = row_values(table, lineno, tokens, width, f"MPIBenchmarks.jl {benchmark}",
                            width)
        if values is None:
            if first_odd is None and len(tokens) != width:
                first_odd = (lineno, len(tokens))
            continue
        size, reps, value = values[0], values[1], values[2]
        if quantity == "bandwidth":
            bw = value * rate
            if bw > RATE_MAX:
                raise InputError(f"osu_bw: a rate of {bw:.3g} B/s, beyond any MPI stream",
                                 file=source, line=lineno,
                                 fix="the file was written by MPIBenchmarks.jl between 4a35ee7 "
                                     "and b6b93a3 (2023-01 to 2024-05), whose rate is inflated "
                                     "by the iteration count; rerun it with a later version")
            if size > 0 and bw > 0:
                table.add(lineno, size, size / bw, reps, rate=bw)
            else:
                table.drop(lineno, "no time can be read from a zero size or bandwidth")
            continue
        time = value * unit
        if width >= 4 and size > 0 and time > 0:
            table.agree(lineno, size / time, values[3] * 1e6, "throughput (MB/s)")
        table.add(lineno, size, time, reps)
    if not len(table) and first_odd is not None:
        raise InputError(f"MPIBenchmarks.jl {benchmark}: the row has {first_odd[1]} values where "
                         f"the header names {width}", file=source, line=first_odd[0],
                         fix="keep the file as the tool wrote it, its header with its rows")
    return (table.required(f"MPIBenchmarks.jl {benchmark} file with no rows (a truncated "
                           "file?)", "rerun the benchmark and keep the whole CSV", start),)
