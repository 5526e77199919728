"""Intel MPI Benchmarks (IMB-MPI1, 2018 and later), legacy IMB 3.x/4.x and Pallas PMB 2.x.

One file holds many blocks::

    # Benchmarking PingPong
    # #processes = 2
    # ( 2 additional processes waiting in MPI_Barrier)
    #---------------------------------------------------
           #bytes #repetitions      t[usec]   Mbytes/sec
                0         1000         0.73         0.00

Each block becomes one table, keyed by benchmark and process count (``-npmin`` runs the
same benchmark at 2, 4, … processes).  ``-multi 0`` prints one row per size over all groups,
``-multi 1`` one row per group (kept in the ``group`` column); either way the groups ran at
once, so ``pairs`` says how many.  Time-out rows are left out and said.

Meaning, from ``IMB_output.c``: PingPong's ``t`` is **one-way** (scaled by 0.5); PingPing's
is one message while both ranks send; Sendrecv's and Exchange's one iteration; collectives
one call (``t_avg`` is used, ``t_min``/``t_max`` kept).  Times are taken from the time
columns, never from ``Mbytes/sec``, whose MB is 10^6 B from IMB 2018 on and 2^20 B before
(Pallas PMB, IMB 3.x/4.x); the reader checks the column against the times and says which
MB it found.  Uniband and Biband print only rates: the time per message of one pair is
pairs / Msg/sec (Biband counts both directions, so 2 · pairs / Msg/sec).
"""

from __future__ import annotations

import re

import numpy as np

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements, Pattern, Quantity
from perfmodel.readers._table import Table, integer, lines_of, number, precise, row_values

NAME = "imb"
DESCRIPTION = "Intel MPI Benchmarks IMB-MPI1 (2018+), legacy IMB 3.x/4.x and Pallas PMB"

BANNER = re.compile(r"#\s*(?:Intel\s?\(R\)\s+MPI\s+Benchmark(?:s|\s+Suite)|PALLAS\s+MPI\s+"
                    r"Benchmark\s+Suite(?:\s+\(PMB\))?)\s+V?(?P<ver>[0-9]{1,6}(?:\.[0-9]{1,6}){0,4}"
                    r"(?:\s+Update\s+[0-9]{1,3})?)", re.I)
_BLOCK = re.compile(r"^#\s*Benchmarking\s+(?P<multi>Multi-)?(?P<name>\w+)\s*$")
_PROCS = re.compile(r"^#\s*\(?\s*#processes\s*=\s*([0-9]{1,9})\b")
_GROUPS = re.compile(r"^#\s*\(\s*([0-9]{1,9})\s+groups?\s+of\s+([0-9]{1,9})\s+processes")
_WAITING = re.compile(r"^#\s*\(\s*([0-9]{1,9})\s+additional\s+process")

_PATTERNS: dict[str, Pattern] = {
    "pingpong": "pingpong", "pingpongspecificsource": "pingpong",
    "pingpongspecificsourceanytag": "pingpong", "pingpong_specific_source": "pingpong",
    "pingponganysource": "pingpong", "pingping": "bidirectional",
    "pingpingspecificsource": "bidirectional", "pingpinganysource": "bidirectional",
    "sendrecv": "sendrecv", "exchange": "exchange", "uniband": "stream",
    "biband": "bidirectional",
}
_SCALE_BW = {"pingpong": 1, "pingping": 1, "sendrecv": 2, "exchange": 4}
_MEANING: dict[str, str] = {
    "pingpong": "t[usec] as printed: one-way (IMB halves the round trip)",
    "bidirectional": "µs for one message while both ranks send at once, as printed",
    "sendrecv": "µs per iteration (each rank sends one message, receives one)",
    "exchange": "µs per iteration (each rank sends to and receives from both neighbours)",
    "collective": "µs per call, t_avg over ranks",
    "other": "µs as printed",
}


def _pattern(name: str) -> Pattern:
    low = name.lower()
    if low in _PATTERNS:
        return _PATTERNS[low]
    if low.startswith("pingpong"):
        return "pingpong"
    if low.startswith("pingping"):
        return "bidirectional"
    return "collective" if low in _COLLECTIVE else "other"


_COLLECTIVE = {"barrier", "bcast", "allreduce", "reduce", "reduce_scatter",
               "reduce_scatter_block", "allgather", "allgatherv", "gather", "gatherv",
               "scatter", "scatterv", "alltoall", "alltoallv", "scan", "exscan"}


def mega(version: str) -> float:
    """Bytes in IMB's "Mbytes": 10^6 from 2018 on, 2^20 in PMB 2.x and IMB 3.x/4.x/2017."""
    lead = re.match(r"[0-9]{1,6}", version)
    return 1e6 if lead is not None and int(lead[0]) >= 2018 else 1048576.0


_LEGEND = re.compile(r"^\s*(?:#bytes\s+)?#repetitions\s+(?:t|Mbytes|Msg)", re.M)
_BLOCK_ANYWHERE = re.compile(r"^#\s*Benchmarking\s+(?:Multi-)?\w+\s*$", re.M)


def sniff(text: str) -> bool:
    """IMB's banner; or, in an excerpt without it, a ``# Benchmarking NAME`` block and IMB's
    column legend (``#bytes #repetitions t…``)."""
    head = text[:20000]
    return BANNER.search(head) is not None or (
        _BLOCK_ANYWHERE.search(head) is not None and _LEGEND.search(head) is not None)


class _Block:
    def __init__(self, source: str, line: int, name: str, multi: bool) -> None:
        self.source, self.line, self.name, self.multi = source, line, name, multi
        self.procs: int | None = None
        self.groups: int | None = None
        self.waiting = 0
        self.columns: list[str] = []
        self.rows: list[tuple[int, list[str]]] = []
        self.skipped: list[int] = []
        self.timeouts: list[int] = []

    @property
    def benchmark(self) -> str:
        return f"Multi-{self.name}" if self.multi else self.name

    def table(self, version: str, attrs: dict[str, str]) -> Measurements | None:
        pattern = _pattern(self.name)
        cols = [c.lower() for c in self.columns]
        index = {c: i for i, c in enumerate(cols)}
        tcol = next((c for c in ("t[usec]", "t_avg[usec]", "t_pure[usec]") if c in index), None)
        procs = self.procs or 2
        counts: dict[str, float] = {"processes": procs}
        pairs = procs // 2 * (self.groups or 1)
        if self.name.lower() in ("uniband", "biband") or (
                pattern in ("pingpong", "bidirectional") and procs == 2):
            counts["pairs"] = pairs   # PingPong and PingPing use 2 ranks; the rest wait
        quantity: Quantity
        if tcol is not None:
            quantity = "one_way" if pattern == "pingpong" else "time"
            meaning = _MEANING.get(pattern, _MEANING["other"])
            if tcol != "t[usec]" and pattern != "collective":
                meaning = meaning.replace("t[usec]", tcol) + f" ({tcol.split('[')[0]} over ranks)"
        elif "msg/sec" in index:
            quantity = "message_rate"
            both = 2 if pattern == "bidirectional" else 1
            meaning = (f"{both * pairs} / Msg/sec: the rate is summed over {pairs} pair(s)"
                       + (" and both directions" if both == 2 else "")
                       + "; time per message of one pair")
        else:
            raise InputError(f"IMB {self.benchmark}: no time or message-rate column in "
                             f"{' '.join(self.columns) or 'its header'}", file=self.source,
                             line=self.line, fix="perfmodel reads IMB-MPI1 tables; give "
                             "PingPong, Sendrecv, Exchange, Uniband or collective output")
        table = Table(self.source, NAME, self.benchmark, pattern, quantity, meaning, version,
                      statistic="mean" if tcol == "t_avg[usec]" else None,
                      concurrency=counts, attrs=dict(attrs))
        if self.waiting:
            table.attrs["waiting processes"] = str(self.waiting)
        if self.procs is None:
            table.notes.append("no '# #processes' line (an excerpt?): 2 processes assumed")
        if self.multi and self.groups:
            table.attrs["groups"] = str(self.groups)
            table.notes.append(f"{self.groups} groups of {procs} processes ran at once")
        need = len(cols)
        mb_pairs: list[tuple[float, float]] = []
        for line, tokens in self.rows:
            values = row_values(table, line, tokens, need, f"IMB {self.benchmark}", need)
            if values is None:
                continue
            size = values[index["#bytes"]] if "#bytes" in index else 0.0
            if "#bytes" in index and integer(tokens[index["#bytes"]]) is None:
                table.skip(line)
                continue
            extra = {key: values[index[col]] * 1e-6 for col, key in
                     (("t_min[usec]", "t_min"), ("t_max[usec]", "t_max"),
                      ("t_avg[usec]", "t_avg"), ("t_ovrl[usec]", "t_overlap"),
                      ("t_cpu[usec]", "t_cpu")) if col in index}
            if "msg/sec" in index:
                extra["msg_rate"] = values[index["msg/sec"]]
            if "group" in index:
                extra["group"] = values[index["group"]]
            reps = values[index["#repetitions"]] if "#repetitions" in index else None
            if reps == 0:
                table.drop(line, "#repetitions is 0, so nothing was timed")
                continue
            if tcol is not None:
                time = values[index[tcol]] * 1e-6
            else:
                rate = values[index["msg/sec"]]
                if rate <= 0:
                    table.drop(line, "Msg/sec is 0")
                    continue
                time = (2 if pattern == "bidirectional" else 1) * pairs / rate
            if "mbytes/sec" in index:
                printed = values[index["mbytes/sec"]]
                bytes_per_s = self._throughput(size, time, extra, pattern)
                if printed >= 1 and bytes_per_s > 0:
                    mb_pairs.append((printed, bytes_per_s))
                if version and precise(tokens[index["mbytes/sec"]]):
                    table.agree(line, bytes_per_s, printed * mega(version), "Mbytes/sec")
            table.add(line, size, time, reps, **extra)
        for line in self.timeouts:
            table.drop(line, "IMB time-out")
        for line in self.skipped:
            table.skip(line)
        if mb_pairs:
            table.notes.append(_check_mega(mb_pairs, version))
        return table.build()

    def _throughput(self, size: float, time: float, extra: dict[str, float],
                    pattern: Pattern) -> float:
        """Bytes per second as IMB computes its Mbytes/sec column, for checking it."""
        if "msg_rate" in extra:
            return size * extra["msg_rate"]
        t = extra.get("t_max", time)
        scale = _SCALE_BW.get(self.name.lower(), 1 if pattern != "collective" else 0)
        return scale * size / t if t > 0 and scale else 0.0


def _check_mega(pairs: list[tuple[float, float]], version: str) -> str:
    """Which MB the Mbytes/sec column used, measured against the times."""
    ratio = float(np.median([b / p for p, b in pairs]))
    said = ("10^6 B" if mega(version) == 1e6 else "2^20 B") if version else ""
    for unit, value in (("10^6 B", 1e6), ("2^20 B", 1048576.0)):
        if abs(ratio / value - 1) < 0.02:
            agree = ("no banner, so no version to expect one" if not said else
                     "as expected for this version" if unit == said else
                     f"not the {said} expected for this version")
            rows = f"{len(pairs)} row{'s' if len(pairs) != 1 else ''}"
            return f"Mbytes/sec checked against the times: MB = {unit} ({agree}; {rows})"
    return (f"Mbytes/sec does not match the times (1 MB/s = {ratio:.4g} B/s by the columns); "
            "times are used as printed")


def read(source: str, text: str) -> tuple[Measurements, ...]:
    version = ""
    attrs: dict[str, str] = {}
    blocks: list[_Block] = []
    in_table = False
    for lineno, ln in lines_of(text):
        if not version and (banner := BANNER.search(ln)):
            version = banner["ver"]
            attrs["title"] = ln.split("#")[-1].strip() if "#" in ln else ln
            continue
        tokens = ln.split()
        if blocks and ("#bytes" in tokens or "#repetitions" in tokens):
            blocks[-1].columns, blocks[-1].line, in_table = tokens, lineno, True
            continue
        if ln.startswith("#"):
            if m := _BLOCK.match(ln):
                blocks.append(_Block(source, lineno, m["name"], bool(m["multi"])))
                in_table = False
            elif not blocks:
                key, sep, value = ln.lstrip("#").partition(":")
                key = key.strip()
                if sep and key in ("Date", "Machine", "MPI Version") and value.strip():
                    attrs[key.lower()] = value.strip()
            elif m := _PROCS.match(ln):
                blocks[-1].procs = int(m[1])
            elif m := _GROUPS.match(ln):
                blocks[-1].groups, blocks[-1].procs = int(m[1]), int(m[2])
            elif m := _WAITING.match(ln):
                blocks[-1].waiting = int(m[1])
            elif in_table:
                in_table = False
            continue
        if ln.startswith("Calling sequence") or not blocks or not ln:
            continue
        block = blocks[-1]
        if in_table and "time-out" in ln:
            block.timeouts.append(lineno)
        elif in_table and number(tokens[0]) is not None:
            block.rows.append((lineno, tokens))
        elif in_table:
            block.skipped.append(lineno)
    if not version and not blocks:
        raise InputError("no IMB banner line", file=source, line=1,
                         fix="give the whole IMB output, from its first line")
    if version:
        mb = "10^6" if mega(version) == 1e6 else "2^20"
        attrs["Mbytes"] = f"{mb} bytes (IMB {version})"
    else:   # an excerpt: its times are as printed, its Mbytes/sec unit is read off them
        attrs["Mbytes"] = "unknown: no banner, so no version (checked against the times)"
    tables = [t for t in (b.table(version, attrs) for b in blocks if b.columns) if t is not None]
    if not tables:
        line = blocks[0].line if blocks else None
        raise InputError(f"IMB {version or '(no banner)'} output with no benchmark rows (a "
                         "truncated file?)",
                         file=source, line=line, fix="rerun IMB and keep its whole output")
    return tuple(tables)
