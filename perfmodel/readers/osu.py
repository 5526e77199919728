"""OSU Micro-Benchmarks (OMB) 5.x, 6.x and 7.x text output.

    # OSU MPI Latency Test v7.4
    # Datatype: MPI_CHAR.
    # Size       Avg Latency(us)
    1                       0.69

Every header variant: ``Latency (us)`` (≤ 7.3) or ``Avg Latency(us)`` (7.4), the
``# Datatype:`` line before or after the column header, GPU titles (``OSU MPI-CUDA``),
``Validation`` and ``P50/P90/P99 Tail Lat(us)`` columns, ``-f`` statistics of collectives,
the size-less barrier table, and several outputs concatenated by a job script.  Lines that
are not rows (a launcher's warnings in the middle of a table) are skipped and said.

OSU does not print how many processes ran a collective.  Where the job's Flux jobspec follows
the table (a wrapper's ``START OF JOBSPEC`` line and the jobspec's JSON, RFC 14: a ``node``
resource of ``count`` nodes, each with ``slot``s, and the tasks' count), the table takes its
nodes and processes from it, and says so.

Meaning, from the 7.4 sources: ``osu_latency`` prints ``t_total / (2 · iterations)``, a
**one-way** time; ``osu_bw`` ``size / 1e6 · iterations · window / t_total``, MB = 10^6 B;
``osu_bibw`` the same counting both directions; ``osu_mbw_mr`` the aggregate over its pairs;
collectives the time of one call averaged over ranks.
"""

from __future__ import annotations

import json
import re

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements, Pattern, Quantity
from perfmodel.readers._table import Table, integer, kept, lines_of, number, precise, row_values

NAME = "osu"
DESCRIPTION = "OSU Micro-Benchmarks 5.x–7.x (latency, bw, bibw, mbw_mr, multi_lat, collectives)"

TITLE = re.compile(r"^#\s*OSU\s+(?P<lib>\S+)\s+(?P<title>\S.*?)\s+Test\s+"
                   r"v(?P<ver>[0-9]{1,4}(?:\.[0-9]{1,4}){0,3})\s*$")
"""``# OSU MPI-CUDA Latency Test v7.4``: the library token (``MPI``, ``MPI-CUDA``, ``MPI_Put``)
is one word, so the match is linear in the line's length."""
MAX_TITLE = 200
_ONE_SIDED = re.compile(r"^(?:MPI\s+)?One[\s-]+Sided\s+MPI_(?P<op>\w+)\s+(?P<rest>\S.*)$", re.I)
"""OSU 4.x's one-sided titles (``One Sided MPI_Get latency``, ``MPI One Sided MPI_Get
Bandwidth``): the operation named as 5.x names it (``MPI_Get latency``), so one benchmark has
one name whatever the version."""
_COLUMN = re.compile(
    r"Size|Avg Latency\s*\(us\)|Min Latency\s*\(us\)|Max Latency\s*\(us\)|Latency\s*\(us\)"
    r"|Bandwidth\s*\(MB/s\)|MB/s|Messages/s|Iterations|Validation|P\d+ Tail Lat\s*\(us\)"
    r"|Overall\s*\(us\)|Compute\s*\(us\)|Pure Comm\.?\s*\(us\)|Overlap\s*\(%\)", re.I)
_JOBSPEC = '{"resources"'
"""How a Flux jobspec's JSON line starts (its canonical form, RFC 14)."""
MAX_JOBSPEC = 100_000
"""The longest jobspec line read (a real one is under 2,000 characters)."""
_PAIRS = re.compile(r"\[\s*pairs:\s*([0-9]{1,9})\s*\]\s*\[\s*window size:\s*([0-9]{1,9})\s*\]")

_STARTUP = ("hello_world", "init")
"""OSU's start-up tests (``osu_hello``, ``osu_init``): a title and a sentence, no table."""
_COLLECTIVES = ("allreduce", "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
                "bcast", "gather", "gatherv", "reduce", "reduce_scatter", "reduce_scatter_block",
                "scatter", "scatterv", "scan", "exscan", "barrier", "ibarrier")


def _benchmark(title: str, op: str | None) -> tuple[str, Pattern]:
    """The benchmark's short name (as its executable ``osu_NAME``) and its pattern."""
    t = title.lower().strip()
    fixed: dict[str, tuple[str, Pattern]] = {
        "latency": ("latency", "pingpong"),
        "multi latency": ("multi_lat", "pingpong"),
        "multi-threaded latency": ("latency_mt", "pingpong"),
        "multi-process latency": ("latency_mp", "pingpong"),
        "bandwidth": ("bw", "stream"),
        "bi-directional bandwidth": ("bibw", "bidirectional"),
        "multiple bandwidth / message rate": ("mbw_mr", "stream"),
    }
    if op:
        return f"{op.strip('_').lower()}_{t.replace(' ', '_')}", "other"
    if t in fixed:
        return fixed[t]
    if t.endswith(" latency"):
        name = t.removesuffix(" latency").removesuffix(" personalized exchange")
        name = re.sub(r"all-to-all(v|w)?", r"alltoall\1", name)
        name = name.replace("broadcast", "bcast").replace("-", "_")
        name = name.replace("non_blocking ", "i").replace(" ", "_")
        if name in _COLLECTIVES or name.lstrip("i") in _COLLECTIVES:
            return name, "collective"
    return t.replace(" / ", "_").replace(" ", "_"), "other"


def _header(text: str) -> list[str]:
    """Column names of a ``# Size …`` line, whether split by several spaces or by one."""
    body = text.lstrip("#").strip()
    names = [m.group(0) for m in _COLUMN.finditer(body)]
    rest = _COLUMN.sub("", body).strip()
    if names and not rest:
        return names
    return [c for c in re.split(r"\s{2,}", body) if c]


def title(line: str) -> re.Match[str] | None:
    """The OSU title a line holds, or None."""
    if not line.startswith("#") or len(line) > MAX_TITLE:
        return None
    return TITLE.match(line)


def sniff(text: str) -> bool:
    return any(title(ln) for _, ln in lines_of(text[:20000]))


class _Block:
    def __init__(self, source: str, line: int, match: re.Match[str]) -> None:
        self.source, self.line = source, line
        lib, _, accel = match["lib"].partition("-")
        op, name = lib.partition("_")[2], match["title"]
        if one := _ONE_SIDED.match(f"{match['lib']} {name}"):   # OSU 4.x: "One Sided MPI_Get"
            op, name = one["op"], one["rest"]
        self.benchmark, self.pattern = _benchmark(name, op or None)
        self.version = match["ver"]
        self.attrs: dict[str, str] = {"title": match.group(0).lstrip("#").strip()}
        if accel:
            self.attrs["build"] = accel.upper()
        self.closed = False
        self.columns: list[str] = []
        self.pairs: int | None = None
        self.rows: list[tuple[int, list[str]]] = []
        self.skipped: list[int] = []
        self.job: tuple[int, int, int | None] | None = None
        """Nodes, processes and ranks per node, from a Flux jobspec after the table."""

    def table(self) -> Measurements | None:
        cols = [re.sub(r"\s+", "", c).lower() for c in self.columns]
        if not cols and self.benchmark in _STARTUP:
            return None   # osu_hello, osu_init: a sentence, no table of sizes
        if not cols:
            raise InputError(f"OSU {self.benchmark} has a title but no column header",
                             file=self.source, line=self.line,
                             fix="the output is cut short; rerun the benchmark")
        has_size = cols[0] == "size"
        lat = next((c for c in ("avglatency(us)", "latency(us)", "purecomm.(us)", "purecomm(us)")
                    if c in cols), None)
        bw = next((c for c in ("bandwidth(mb/s)", "mb/s") if c in cols), None)
        if lat is None and bw is None:
            raise InputError(f"OSU {self.benchmark}: no latency or bandwidth column in "
                             f"{', '.join(self.columns)}", file=self.source, line=self.line,
                             fix="perfmodel reads OSU latency, bandwidth and collective tables")
        counts: dict[str, float] = {}
        if self.benchmark in ("latency", "bw", "bibw", "latency_mt"):
            counts = {"processes": 2, "pairs": 1}
        if self.pairs is not None:
            counts = {"pairs": self.pairs, "processes": 2 * self.pairs}
        quantity: Quantity
        streams = 1.0
        if lat is not None:
            quantity = "one_way" if self.pattern == "pingpong" else "time"
            meaning = {"pingpong": "one-way µs as printed (OSU: t_total / (2·iterations))",
                       "collective": "µs per call, averaged over ranks, as printed"}.get(
                           self.pattern, "µs as printed")
        elif self.benchmark == "bibw":
            quantity, streams = "aggregate", 2.0
            meaning = ("size·2 / bandwidth: MB/s = 10^6 B/s counting both directions, so one "
                       "direction's message takes twice size/bandwidth")
        elif self.pairs is not None:
            quantity, streams = "aggregate", float(self.pairs)
            meaning = (f"size·{self.pairs} / MB/s: the rate is the sum over {self.pairs} "
                       "pair(s), MB = 10^6 B; time per message of one pair in a window")
        else:
            quantity = "bandwidth"
            meaning = "size / bandwidth, MB/s = 10^6 B/s: time per message in a window"
        table = Table(self.source, NAME, self.benchmark, self.pattern, quantity, meaning,
                      self.version, statistic="mean", concurrency=counts, attrs=self.attrs)
        if self.pairs is None and self.benchmark == "multi_lat":
            table.notes.append("osu_multi_lat does not print how many pairs ran (ranks / 2)")
        if self.pattern == "collective" and self.job is not None:
            nodes, procs, per = self.job
            table = Table(self.source, NAME, self.benchmark, self.pattern, quantity, meaning,
                          self.version, statistic="mean", concurrency={"processes": procs},
                          attrs={**self.attrs, "nodes": str(nodes)}
                          | ({} if per is None else {"ranks per node": str(per)}))
            table.notes.append(f"{procs} processes on {nodes} nodes: the Flux jobspec after "
                               "the table")
        elif self.pattern == "collective":
            table.notes.append("OSU does not print the process count of a collective")
        index = {c: i for i, c in enumerate(cols)}
        need = sum(1 for c in cols if c != "validation")
        for line, tokens in self.rows:
            values = row_values(table, line, tokens, need, f"OSU {self.benchmark}", len(cols))
            if values is None:
                continue
            if "validation" in index:
                verdict = tokens[index["validation"]] if len(tokens) > index["validation"] else ""
                if verdict.lower() != "pass":
                    table.drop(line, f"validation {verdict or 'missing'}")
                    continue
            size = values[0] if has_size else 0.0
            if has_size and integer(tokens[0]) is None:
                table.skip(line)
                continue
            extra: dict[str, float] = {}
            for name, key in (("minlatency(us)", "t_min"), ("maxlatency(us)", "t_max"),
                              ("p50taillat(us)", "p50"), ("p90taillat(us)", "p90"),
                              ("p99taillat(us)", "p99"), ("overall(us)", "t_overall")):
                if name in index:
                    extra[key] = values[index[name]] * 1e-6
            if "messages/s" in index:
                extra["msg_rate"] = values[index["messages/s"]]
            reps = values[index["iterations"]] if "iterations" in index else None
            if lat is not None:
                time = values[index[lat]] * 1e-6
            else:
                assert bw is not None
                rate = values[index[bw]] * 1e6
                if size == 0 or rate <= 0:
                    table.drop(line, "no time can be read from a zero size or bandwidth")
                    continue
                time = size * streams / rate
                extra["rate"] = rate
                if "messages/s" in index and precise(tokens[index["messages/s"]]) and \
                        precise(tokens[index[bw]]):   # osu_mbw_mr: MB/s = size · Messages/s
                    table.agree(line, size * values[index["messages/s"]], rate, "MB/s",
                               "Messages/s")
            table.add(line, size, time, reps, **extra)
        for line in self.skipped:
            table.skip(line)
        return table.build()


def jobspec(line: str) -> tuple[int, int, int | None] | None:
    """Nodes, processes and ranks per node (None when the tasks are not spread evenly) of a
    Flux jobspec line: one ``node`` resource of ``count`` nodes holding ``slot``s, and a task
    count of one a slot, ``per_slot`` a slot, or a ``total``; None when the line is not one."""
    if len(line) > MAX_JOBSPEC:
        return None
    try:
        doc = json.loads(line)
        (node,) = doc["resources"]
        (slot,) = node["with"]
        nodes, slots = node["count"], slot["count"]
        ok = node["type"] == "node" and slot["type"] == "slot"
        tasks = doc.get("tasks") or [{}]
        count = tasks[0].get("count", {}) if len(tasks) == 1 else None
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):   # not a jobspec
        return None
    whole = [v for v in (nodes, slots) if type(v) is int and 1 <= v <= 1_000_000]
    if not ok or len(whole) != 2 or not isinstance(count, dict):
        return None
    per_slot, total = count.get("per_slot", 1), count.get("total")
    if total is not None:
        if type(total) is not int or not nodes <= total <= 10**9:
            return None
        return nodes, total, (total // nodes if total % nodes == 0 else None)
    if type(per_slot) is not int or not 1 <= per_slot <= 1_000_000 \
            or nodes * slots * per_slot > 10**9:
        return None
    return nodes, nodes * slots * per_slot, slots * per_slot


def read(source: str, text: str) -> tuple[Measurements, ...]:
    blocks: list[_Block] = []
    for lineno, ln in lines_of(text):
        match = title(ln)
        if match:
            last = blocks[-1] if blocks else None
            if last is not None and not last.columns and not last.rows and \
                    last.attrs["title"] == match.group(0).lstrip("#").strip():
                last.attrs["repeated title"] = f"line {last.line} and line {lineno}"
                continue   # OSU 7.x prints some titles twice: one table, not a cut-off one
            blocks.append(_Block(source, lineno, match))
            continue
        if not blocks or not ln:
            continue
        block = blocks[-1]
        if ln.startswith(_JOBSPEC) and block.pattern == "collective" and block.job is None:
            block.job = jobspec(ln)
            if block.job is not None:
                continue
        if block.closed:
            continue
        if ln.startswith("#"):
            body = ln.lstrip("#").strip()
            if pairs := _PAIRS.search(body):
                block.pairs = int(pairs[1])
                block.attrs["window"] = pairs[2]
            elif body.lower().startswith("datatype:"):
                block.attrs["datatype"] = body.split(":", 1)[1].strip().rstrip(".")
            elif re.match(r"size\b", body, re.I) or (not block.columns and _COLUMN.match(body)):
                block.columns = _header(body)
                block.line = lineno
            elif body.lower().startswith("rank 0 memory"):
                block.attrs["memory"] = body
            elif block.rows:
                block.closed = True   # another tool's comment: this table has ended
            continue
        tokens = ln.split()
        if not block.columns and not block.rows and _COLUMN.match(ln):
            block.columns = _header(ln)   # osu_ibarrier's header, printed without a '#'
            block.line = lineno
            continue
        if block.columns and number(tokens[0]) is not None:
            block.rows.append((lineno, tokens))
        elif block.columns:
            block.skipped.append(lineno)
    return kept((b.table() for b in blocks), source, "OSU",
                blocks[0].line if blocks else None)
