"""What a site's benchmark outputs hold for a machine profile: the files under the paths given,
what each table informs (the point-to-point law, the fabric, the node) or why it informs
nothing (:func:`gather`, :func:`choose`), and the node's rates from HPL and STREAM.

A directory is walked (a ReFrame ``output/`` tree is the common case); a file in it that is no
benchmark output perfmodel reads is listed as skipped with the reason, where a file named on
the command line is an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from perfmodel.choice import NODE_RUNS, alone, choose, named, not_messages
from perfmodel.errors import InputError
from perfmodel.layout import Layout, nodes_in_name, place
from perfmodel.machine.at_scale import (
    MOST_NODES,
    MOST_PROCESSES,
    MOST_SIZE,
    MOST_TIME,
    OP,
    CollectiveRun,
    Found,
    collected,
)
from perfmodel.machine.profile import InputRecord
from perfmodel.measurements import Measurements, check_physical, concat
from perfmodel.node import Node
from perfmodel.node_rates import node_from
from perfmodel.units import format_size, format_time

MAX_FILES = 100_000
"""The most files a directory walk takes: more is refused before any is read."""


@dataclass(frozen=True)
class Contribution:
    """One table of one input (or a whole file skipped): what it informs and how.

    role : ``law`` (the point-to-point law), ``fabric``, ``node``, ``unused`` or ``skipped``
    """

    path: str
    table: str
    role: str
    rows: int
    said: str
    kind: str = ""
    """What a fabric table feeds, for :func:`gather` to find it again: ``both-ways`` (a
    table both ways), ``inside`` (one pair inside one node), or ""."""

    def to_dict(self) -> dict[str, object]:
        return {"path": self.path, "table": self.table, "role": self.role, "rows": self.rows,
                "said": self.said}


def expand(paths: Sequence[str | Path]) -> Iterator[tuple[Path, bool]]:
    """Every file under ``paths``: a file as given, a directory's files in sorted order,
    hidden ones left out; each with whether it came from a walk."""
    for path in paths:
        p = Path(path)
        try:
            folder = p.is_dir()
        except OSError:   # a name too long, a folder without search permission: said on read
            folder = False
        if not folder:
            yield p, False
            continue
        found: list[Path] = []
        hidden = 0
        for root, dirs, files in os.walk(p):
            hidden += sum(d.startswith(".") for d in dirs) + sum(f.startswith(".") for f in files)
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if not name.startswith("."):
                    found.append(Path(root) / name)
                    if len(found) > MAX_FILES:
                        raise InputError(f"holds more than {MAX_FILES:,} files", file=p,
                                         fix="give the folders of one machine's benchmarks")
        if not found:
            raise InputError("is a folder with no files" if not hidden else
                             f"is a folder whose only files are hidden ({hidden} named '.…', "
                             "which a walk leaves out)", file=p,
                             fix="give the folder the benchmark outputs are in, or name a "
                                 "hidden file itself")
        yield from ((f, True) for f in found)


def _points_key(tables: Sequence[Measurements]) -> str:
    """What a file measured, as one digest of every table's sizes, times and counts: a copy
    whose comments, spacing or line ends differ has the same key."""
    import hashlib

    h = hashlib.sha256()
    for t in tables:
        h.update(t.label.encode())
        for column in (t.size, t.time, *(t.concurrency[k] for k in sorted(t.concurrency))):
            h.update(np.ascontiguousarray(column, dtype=float).tobytes())
    return h.hexdigest()


class Gathered(NamedTuple):
    """What the inputs hold: the point-to-point rows, the records and notes, every fabric
    row with its sharing columns, each table's contribution, and the node they give."""

    data: Measurements
    records: tuple[InputRecord, ...]
    notes: list[str]
    shared: Measurements
    contributions: tuple[Contribution, ...] = ()
    node: Node | None = None
    law_tables: tuple[Measurements, ...] = ()
    fabric_tables: tuple[Measurements, ...] = ()
    inside: tuple[Measurements, ...] = ()
    """One pair's streams inside one node: the link inside a node."""
    box: int | None = None
    """The most ranks a placed job put on one node (None: no layout, or nothing placed)."""
    collectives: tuple[CollectiveRun, ...] = ()
    """Collectives timed at a known node count (:mod:`perfmodel.machine.at_scale`)."""


_BOTH_WAYS = ", both ways (the ports' duplex)"
"""How a table both ways across nodes is said (and found again when it is left unused)."""

_BOTH_ALONE = ("traffic both ways alone cannot tell a port's duplex from its one-way rate: "
               "give a one-way stream table too (osu_bw, osu_mbw_mr, IMB Uniband)")

_INSIDE = "the link inside a node: 1 pair inside one node"
"""How one pair's stream inside one node is said (and found again when it is left unused)."""

_INSIDE_ALONE = ("the link inside a node is kept beside a fabric: give stream tables across "
                 "nodes too")

_STREAMS = ("stream", "bidirectional")
"""Patterns whose multi-pair tables inform the fabric's NIC sharing (placed by a layout)."""


@dataclass
class FileUse:
    """What one input file adds (kept apart until the file is read whole, so that a file a
    folder walk skips adds nothing)."""

    used: list[Measurements] = field(default_factory=list)
    whole: list[Measurements] = field(default_factory=list)
    streams: list[Measurements] = field(default_factory=list)
    node: list[Measurements] = field(default_factory=list)
    records: list[InputRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    said: list[Contribution] = field(default_factory=list)
    inside: list[Measurements] = field(default_factory=list)
    collectives: list[Found] = field(default_factory=list)
    box: int = 0
    fanin: bool = False


def _record(t: Measurements, rows_used: int = 0, path: str | Path | None = None) -> InputRecord:
    """The profile's record of one input table."""
    return InputRecord(str(path if path is not None else t.source), t.sha256,
                       f"{t.format} {t.version}".strip(), t.label, t.quantity, len(t),
                       rows_used, t.comments, t.pattern)


def gather(paths: Sequence[str | Path], benchmark: str | None = None,
           layout: Layout | None = None) -> Gathered:
    """Read every input (a directory: every file under it) and sort its tables: the first
    ping-pong of each file for the point-to-point law (or the ``benchmark`` named), stream
    tables placed across nodes by ``layout`` for the fabric, HPL and STREAM for the node; every
    other table listed with the reason it informs nothing.  A file named on the command line
    that cannot be used is an error; one a folder walk finds is listed as skipped, why said."""
    from perfmodel.readers import read

    layout = layout or Layout()
    got = FileUse()
    fanin: list[str | Path] = []
    seen: dict[str, str | Path] = {}
    lone: tuple[Path, tuple[Measurements, ...]] | None = None
    for path, walked in expand(paths):
        try:
            tables = read(path)
            key = _points_key(tables)
            if tables and key in seen:
                first = seen[key]
                same = ("the same file as" if Path(path).resolve() == Path(first).resolve()
                        else "the same content as" if tables[0].sha256 == read(first)[0].sha256
                        else f"the same {sum(len(t) for t in tables)} points as")
                if same.endswith("points as") and _node_only(tables):
                    key = f"{key} {path}"   # another run that printed the same rate: kept
                else:
                    raise InputError(f"is {same} {first}: every point would count "
                                     "twice", file=path, fix="give each measurement once (a "
                                     "copy with other comments or spacing is the same "
                                     "measurement)")
            one = _one_file(path, tables, benchmark, layout)
        except InputError as e:
            if not walked:
                raise
            where = f" (line {e.line})" if e.line and e.line > 1 else ""
            got.said.append(Contribution(str(path), "", "skipped", 0,
                                         e.what.split(" (tried ")[0] + where))
            continue
        seen[key] = path
        if one.used and got.used and one.used[0].pattern != got.used[0].pattern:
            t = one.used[0]
            raise InputError(f"{t.label} is a {t.pattern} benchmark, but {got.used[0].source} "
                             f"holds a {got.used[0].pattern} one", file=path,
                             fix="calibrate one kind of measurement at a time")
        if not one.whole:
            lone = (path, tables)
        if one.fanin:
            fanin.append(path)
        for name in ("used", "whole", "streams", "node", "records", "notes", "said", "inside",
                     "collectives"):
            getattr(got, name).extend(getattr(one, name))
        got.box = max(got.box, one.box)
    if not got.used:
        if fanin:
            raise InputError("no ping-pong rows: a fan-in's one-sender rows are streams",
                             file=fanin[0], fix="give a ping-pong file beside it (perfmodel "
                             "measure --pattern pingpong, osu_latency …)")
        if lone is not None and len(seen) == 1:   # one file: why it cannot be fitted alone
            if benchmark is None and _node_only(lone[1]):
                names = ", ".join(dict.fromkeys(t.benchmark for t in lone[1]))
                raise InputError(f"holds a node's rates ({names}) and no network: a profile "
                                 "needs the point-to-point law too", file=lone[0],
                                 fix=f"give it beside a ping-pong output: perfmodel calibrate "
                                     f"osu_latency.out {lone[0]}")
            choose(lone[1], str(lone[0]), benchmark)
        what = f"no {benchmark!r} table" if benchmark else "no ping-pong table"
        raise InputError(f"{what} among the inputs ({_held(got.said)}): the point-to-point law "
                         "needs one", fix="add an osu_latency, IMB PingPong or NetPIPE output"
                         + (", or name a table they hold with --benchmark" if benchmark
                            else ""))
    whole, notes = got.whole, got.notes
    if got.streams and all(t.pattern == "bidirectional" for t in got.streams):
        got.said = [replace(c, role="unused", rows=0, said=_BOTH_ALONE)
                    if c.kind == "both-ways"
                    else c for c in got.said]
        got.streams = []
    if got.streams:
        if any(t.is_fanin or np.any(t.concurrency.get("pairs", np.ones(1)) > 1) for t in whole):
            notes.append("fabric: the stream tables are fitted; the ping-pong and fan-in "
                         "tables' sharing rows are left to the point-to-point law")
        whole = got.streams
    node, node_notes = node_from(got.node)
    records = [*got.records, *(_record(t) for t in (*got.streams, *got.inside, *got.node))]
    if got.inside and not got.streams:
        got.said = [replace(c, role="unused", rows=0, said=_INSIDE_ALONE)
                    if c.kind == "inside" else c for c in got.said]
        got.inside = []
    runs, capped = collected(got.collectives)
    return Gathered(concat(got.used), tuple(records), notes + node_notes + capped,
                    _with_counts(whole),
                    tuple(got.said), node, tuple(got.used), tuple(whole), tuple(got.inside),
                    got.box or None, runs)


def _held(said: list[Contribution]) -> str:
    """What the inputs hold, in a few words: ``3 files read: of their tables 2 give the node,
    4 unused; 2 skipped as no benchmark output``."""
    roles = {"node": "give the node", "fabric": "the fabric", "collectives": "collectives kept",
             "unused": "unused"}
    files = len({c.path for c in said if c.role != "skipped"})
    parts = [f"{n} {roles.get(role, role)}" for role in roles
             if (n := sum(c.role == role for c in said))]
    skipped = sum(c.role == "skipped" for c in said)
    tables = f": of their tables {', '.join(parts)}" if parts else ""
    return (f"{files} file{'s' if files != 1 else ''} read{tables}"
            + (f"; {skipped} skipped as no benchmark output" if skipped else ""))


def _node_only(tables: tuple[Measurements, ...]) -> bool:
    """Tables that only give a node's rates (HPL, HPCG, STREAM): the best is taken, so a run
    elsewhere that printed the same line counts once anyway."""
    return all(t.pattern == "memory" or t.benchmark in NODE_RUNS for t in tables)


def _one_file(path: Path, tables: tuple[Measurements, ...], benchmark: str | None,
              layout: Layout) -> FileUse:
    """What one file's tables add."""
    one = FileUse()
    if (not any(t.pattern == "pingpong" or t.is_fanin for t in tables) if benchmark is None
            else not named(tables, benchmark) and not any(t.is_fanin for t in tables)):
        one.said += [sort_table(t, path, layout, one) for t in tables]   # the node, a fabric …
        return one
    table = choose(tables, str(path), benchmark)
    if benchmark is None:
        one.said += [sort_table(t, path, layout, one) for t in tables if t is not table]
    if table.pattern in ("application", "memory"):
        what = "whole runs" if table.pattern == "application" else "a memory kernel"
        raise InputError(f"{table.label} times {what}, not messages", file=path,
                         fix=not_messages(table) + " (--benchmark NAME picks a table of "
                         "messages)")
    notes = one.notes
    if table.pattern == "collective":
        if alone(table):
            raise InputError(f"{table.label} ran on one process: no message leaves it",
                             file=path, fix="give a run on two processes or more")
        if np.any(table.size == 0) and np.any(table.size > 0):
            notes.append(f"{path}: {table.benchmark}'s rows of 0 B left out: the call returns "
                         "without moving data")
            table = table.take(table.size > 0)
    checked = check_physical(table)
    notes.append(f"{path}: used {_described(table)}"
                 + (f" (of {len(tables)} tables)" if len(tables) > 1 else ""))
    single = table.single_stream()
    if table.is_fanin:   # a fan-in's one-sender rows are one stream, not a ping-pong
        notes.append(f"{path}: a fan-in: its {len(single)} one-sender rows are streams, "
                     "not ping-pongs, so they inform only the fabric")
        single = single.take(np.zeros(len(single), dtype=bool))
        one.fanin = True
    elif len(single) == 0:
        busy = ", ".join(f"{k} = {','.join(map(str, table.counts(k)))}"
                         for k in ("pairs", "senders") if table.counts(k))
        raise InputError(f"{table.benchmark} has no single-stream rows ({busy})", file=path,
                         fix="calibrate point-to-point models on a plain ping-pong "
                         "(pairs = 1, senders = 1)")
    if 0 < len(single) < len(table):
        notes.append(f"{path}: {len(single)} of {len(table)} rows used (one pair, one "
                     "sender, fewest channels)")
    single = _without_empty_path(single, path, notes)
    channels = single.concurrency.get("channels")
    if channels is not None and channels.min() > 1:
        notes.append(f"{path}: every row uses {int(channels.min())} channels, so the model "
                     "describes the bonded link, not one channel")
    notes += [f"{path}: {n}" for n in (*table.notes, *checked)]
    if len(single):
        one.used.append(single)
    one.whole.append(table)
    one.said.append(Contribution(str(path), table.label, "law" if len(single) else "fabric",
                                 len(single) or len(table), _law_use(bool(len(single)))))
    one.records.append(_record(table, len(single), path))
    return one


EMPTY_PATH = 0.5
"""A 0-byte message faster than this share of the smallest sized one took another path (no
data to move: MVAPICH's device buffers, say); the law T = α + m/β cannot join the two."""


def _without_empty_path(single: Measurements, path: str | Path, notes: list[str]
                        ) -> Measurements:
    """``single`` without its 0-byte rows when they are far faster than its smallest sized
    rows (:data:`EMPTY_PATH`), said; as it was otherwise."""
    empty, sized = single.size == 0, single.size > 0
    if not (np.any(empty) and np.any(sized)):
        return single
    first = float(single.size[sized].min())
    t0 = float(np.median(single.time[empty]))
    t1 = float(np.median(single.time[single.size == first]))
    if not t0 < EMPTY_PATH * t1:
        return single
    notes.append(f"{path}: its 0 B rows ({format_time(t0)}, against {format_time(t1)} at "
                 f"{format_size(first)}) left out of the law: with no data to move, MPI took "
                 "another path")
    return single.take(sized)


def _collective(table: Measurements, path: str | Path, layout: Layout,
                into: FileUse) -> Contribution:
    """A collective timed at a node count the file or the layout says: kept (to
    ``into.collectives``) for what the machine does at that count; else unused, why said."""
    def unused(why: str) -> Contribution:
        return Contribution(str(path), table.label, "unused", 0, why)

    rows = table.take((table.size > 0) & (table.time > 0) & (table.size <= MOST_SIZE)
                      & (table.time <= MOST_TIME))
    if not len(rows):
        return unused("a collective with no sized rows (a barrier?): nothing to compare")
    procs = table.counts("processes")
    p = int(procs[0]) if len(procs) == 1 else None
    if p == 1:
        return unused("a collective of one process: no message leaves it")
    if "nodes" in table.attrs:
        nodes, how = int(table.attrs["nodes"]), "its nodes from the job's own record"
    elif layout.nodes is not None:
        nodes, how = layout.nodes, "--nodes-per-job"
    elif layout.ranks_per_node is not None and p is not None and p % layout.ranks_per_node == 0:
        nodes, how = p // layout.ranks_per_node, f"{p} processes, --ranks-per-node"
    elif layout.names and (n := nodes_in_name(Path(path).name)) is not None:
        nodes, how = n, "its nodes from the file's name (--nodes-in-name)"
    else:
        return unused("a collective on an unknown number of nodes (" + (
            "its file's name does not say it, as …-16n-… or size16 would: give "
            "--nodes-per-job" if layout.names else
            "give --nodes-per-job, or --nodes-in-name where the file names say it") + ")")
    if p is not None and p < nodes:
        return unused(f"a collective of {p} processes cannot span {nodes} nodes")
    if (p is not None and p > MOST_PROCESSES) or nodes > MOST_NODES:
        return unused("more nodes or processes than a profile keeps")
    op = table.benchmark.lower()
    if not OP.fullmatch(op):
        return unused(f"{table.benchmark[:40]!r} is not an operation's name")
    into.collectives.append(Found(op, nodes, p, np.asarray(rows.size), np.asarray(rows.time),
                                  f"{Path(path).name}, {how}"))
    into.records.append(_record(table, len(rows), path))
    return Contribution(str(path), table.label, "collectives", len(rows),
                        f"the machine's {op} on {nodes} nodes, kept for what runs at that "
                        f"count ({how})")


def sort_table(table: Measurements, path: str | Path, layout: Layout,
               into: FileUse) -> Contribution:
    """What a table other than a file's ping-pong informs: a stream placed across nodes the
    fabric (appended to ``into.streams`` with its streams per NIC), one pair's stream inside
    one node the link inside a node (to ``into.inside``, with the most ranks a job put on a
    node in ``into.box``), HPL, STREAM and HPCG the node (to ``into.node``); anything else
    nothing, with the reason."""
    def out(role: str, why: str, rows: int = 0, kind: str = "") -> Contribution:
        return Contribution(str(path), table.label, role, rows, why, kind)

    if table.benchmark == "HPL" and "flop_rate" in table.extra:   # HPL's output, a perflog
        into.node.append(table)
        return out("node", "the node's flop rate (HPL)", len(table))
    if table.format == "hpcg":
        if "memory_rate" not in table.extra:
            return out("unused", "HPCG without its GB/s Summary: no memory rate to take")
        into.node.append(table)
        return out("node", "the node's memory bandwidth where STREAM gives none (HPCG's "
                           "memory traffic)", len(table))
    if table.pattern == "memory":
        if table.benchmark.lower() != "triad":
            return out("unused", "STREAM: the node's memory rates come from Triad")
        into.node.append(table)
        return out("node", "the node's memory bandwidth (STREAM Triad)", len(table))
    if table.pattern == "pingpong":
        return out("unused", "another ping-pong of this file: the first is fitted")
    if table.pattern == "application" and table.format == "reframe":
        return out("unused", "an application's run times (ReFrame): predict --fit reads them "
                             "as a timings CSV (nodes, processes, time_s)")
    if table.pattern == "collective":
        return _collective(table, path, layout, into)
    if table.pattern not in _STREAMS:
        why = {"application": "times a whole run: give it to predict --fit",
               "exchange": "an Exchange ring: fit it with --benchmark Exchange",
               "sendrecv": "a Sendrecv ring: fit it with --benchmark Sendrecv"}
        return out("unused", why.get(table.pattern, "timed as the benchmark defines it: not "
                                                    "fitted"))
    procs = table.counts("processes")
    if not procs:
        return out("unused", "the table does not say its process count: cannot be placed "
                             "(give a processes column)")
    if len(procs) != 1:
        return out("unused", "rows of several process counts: cannot be placed")
    if procs[0] < 2:
        return out("unused", "one process: no message crosses a network")
    pairs = table.counts("pairs") or [1]
    if len(pairs) != 1:
        return out("unused", "rows of several pair counts in one job: cannot be placed")
    job = procs[0] + int(table.attrs.get("waiting processes", "0") or 0)
    where = place(procs[0], job, layout)
    if where.where in ("across", "inside"):
        into.box = max(into.box, layout.per_node(job) or 0)
    if where.where == "inside" and table.pattern == "stream":
        if where.pairs > 1:
            return out("unused", f"{where.pairs} pairs inside one node: how they share the "
                                 "node's memory is not modelled")
        rows = table.take(table.size > 0)
        into.inside.append(rows)
        return out("fabric", _INSIDE, len(rows), "inside")
    if where.where != "across":
        fix = " (give --ranks-per-node N or --nodes-per-job N)" if where.where == "unknown" else ""
        return out("unused", f"{where.describe()}{fix}")
    each = max(pairs[0] // where.pairs, 1)   # streams per pair of ranks (perftest's queue pairs)
    where = replace(where, per_nic=where.per_nic * each)
    rows = table.take(table.size > 0)   # an empty message has no bandwidth to share
    into.streams.append(replace(rows, extra={**rows.extra, "per_nic": np.full(
        len(rows), float(where.per_nic))}))
    also = f" ({each} streams a pair)" if each > 1 else ""
    ways = _BOTH_WAYS if table.pattern == "bidirectional" else ""
    return out("fabric", f"the fabric: {where.pairs} pair{'s' if where.pairs > 1 else ''}"
                         f"{also} {where.describe()}{ways}", len(rows),
               "both-ways" if ways else "")


def _with_counts(tables: Sequence[Measurements]) -> Measurements:
    """Tables joined with all four sharing columns, 1 where a table has none, ``fanin`` (1 for
    the rows of a table with several senders, whose one-sender rows are streams) and
    ``exchange`` (1 for the rows of an Exchange ring)."""
    counts = {k: np.concatenate([t.concurrency.get(k, np.ones(len(t))) for t in tables])
              for k in ("pairs", "channels", "senders", "processes")}
    fanin = np.concatenate([np.full(len(t), float(t.is_fanin)) for t in tables])
    ring = np.concatenate([np.full(len(t), float(t.pattern == "exchange")) for t in tables])
    per_nic = np.concatenate([t.extra.get("per_nic", np.ones(len(t))) for t in tables])
    both = np.concatenate([np.full(len(t), float(t.pattern == "bidirectional")) for t in tables])
    index = np.concatenate([np.full(len(t), float(i)) for i, t in enumerate(tables)])
    placement = tuple(x for t in tables for x in (t.placement or ("block",) * len(t)))
    return replace(concat(tables), concurrency=counts, placement=placement,
                   extra={"fanin": fanin, "exchange": ring, "per_nic": per_nic,
                          "both": both, "table": index})


def _described(table: Measurements) -> str:
    """``imb 2021.11 PingPong (2 processes), 22 rows, lines 40–61``."""
    tool = f"{table.format} {table.version}".strip()
    lines = f"line {table.line[0]}" if len(table) == 1 else \
        f"lines {table.line[0]}–{table.line[-1]}"
    return f"{tool} {table.label}, {len(table)} row{'s' if len(table) != 1 else ''}, {lines}"


def _law_use(pingpong: bool) -> str:
    """What a file's chosen table informs: its ping-pong rows the law, a fan-in's streams
    the fabric."""
    return "the point-to-point law" if pingpong else "the fabric (fan-in streams)"


def informs(tables: Sequence[Measurements], path: str | Path) -> list[str]:
    """What ``calibrate`` (without --benchmark) takes each table of one file for, or why it
    takes nothing from it, in the words of its listing (with no rank layout given)."""
    layout = Layout()
    law: Measurements | None = None
    if any(t.pattern == "pingpong" or t.is_fanin for t in tables):
        try:
            law = choose(tuple(tables), str(path))
        except InputError:
            law = None
    out = []
    for t in tables:
        if t is law:
            out.append(_law_use(bool(len(t.single_stream())) and not t.is_fanin))
            continue
        said = sort_table(t, path, layout, FileUse())
        out.append(said.said if said.role in ("fabric", "node", "collectives") else
                   f"nothing: {said.said}")
    return out
