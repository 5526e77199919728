"""Which table of a file a point-to-point calibration takes (:func:`choose`), and the words
for the tables it cannot take: whole runs and memory kernels (a node's rates, or an
application's timings), and a collective that ran on one process."""

from __future__ import annotations

import re
from itertools import pairwise

from perfmodel.errors import InputError
from perfmodel.measurements import PATTERNS, POINT_TO_POINT, Measurements

NODE_RUNS = ("HPL", "HPCG")
"""Whole runs that give a node's rates (with STREAM's memory kernels), not a network's."""


def not_messages(table: Measurements) -> str:
    """What to do with a table of whole runs or memory kernels given to ``calibrate``."""
    if table.pattern == "memory" or table.benchmark in NODE_RUNS:
        return "a node's rates join a network's profile: give the file beside a ping-pong output"
    return ("an application's timings are read by perfmodel scaling or predict --fit; "
            "calibrate a network on ping-pong data")


def alone(table: Measurements) -> bool:
    """A collective that ran on one process: no message leaves it."""
    return table.pattern == "collective" and set(table.counts("processes")) == {1}


def choose(tables: tuple[Measurements, ...], source: str,
           benchmark: str | None = None) -> Measurements:
    """The table a point-to-point calibration uses.

    With ``benchmark``, the table of that name (case-insensitive; ``osu_`` prefix allowed),
    or failing that of that pattern; ``NAME@P`` picks the block at P processes.  Without it,
    the first ping-pong table, else the first fan-in (for the fabric; ``calibrate`` keeps its
    streams out of the point-to-point fit): any other kind of table is fitted only when asked
    for by name.
    """
    def listing() -> str:
        return ", ".join(dict.fromkeys(f"{t.benchmark}@{p}" if len(
            [u for u in tables if u.benchmark == t.benchmark]) > 1 and (p := procs_of(t))
            else t.benchmark for t in tables if not alone(t)))

    if benchmark is None:
        ping = [t for t in tables if t.pattern in POINT_TO_POINT] or \
            [t for t in tables if t.is_fanin]
        if ping:
            return ping[0]
        if len(tables) == 1:
            only = tables[0]
            if only.pattern in ("application", "memory"):
                raise InputError(f"holds {only.label}: {PATTERNS[only.pattern]}, not messages",
                                 file=source, fix=not_messages(only))
            if alone(only):
                raise InputError(f"holds {only.label}, which ran on one process: no message "
                                 "leaves it", file=source, fix="give a run on two processes "
                                 "or more")
            raise InputError(f"holds {only.label}: {PATTERNS[only.pattern]}, not a ping-pong",
                             file=source, fix=f"fit it anyway with --benchmark {only.benchmark}")
        raise InputError(f"holds {len(tables)} benchmarks and no ping-pong", file=source,
                         fix=f"choose one with --benchmark: {listing()}")
    _, _, at = benchmark.partition("@")
    found = named(tables, benchmark)
    if not at:   # a collective's one-process block (IMB's -npmin 1) moves no message
        found = [t for t in found if not alone(t)] or found
    if at:
        procs = int(at) if re.fullmatch(r"[0-9]{1,9}", at.strip()) else -1
        found = [t for t in found if procs_of(t) == procs]
    found = found or [t for t in tables if t.is_fanin]   # a fan-in serves any fabric fit
    if not found:
        raise InputError(f"has no benchmark {benchmark!r}", file=source,
                         fix=f"it holds: {listing()}")
    return found[0]


def procs_of(table: Measurements) -> int | None:
    counts = table.counts("processes")
    return counts[0] if len(counts) == 1 else None


def named(tables: tuple[Measurements, ...], benchmark: str) -> list[Measurements]:
    """The tables ``benchmark`` names (``NAME`` or ``NAME@P``, case-insensitive, ``osu_``
    prefix allowed): of that name, or failing that of that pattern; any process count."""
    want = benchmark.partition("@")[0].strip().lower().removeprefix("osu_")
    return [t for t in tables if t.benchmark.lower() == want] or \
        [t for t in tables if t.pattern == want]


_INSIDE = frozenset({"intranode", "samenode", "onenode", "singlenode", "onnode", "shm",
                     "sharedmem", "sharedmemory", "vader", "xpmem", "cma", "knem"})
_ACROSS = frozenset({"internode", "crossnode", "acrossnodes", "offnode", "twonode", "twonodes",
                     "2n", "node2node"})
_IN_NODE = frozenset({"numa", "core", "cores", "socket", "sockets", "ccd", "ccx", "die", "gpu",
                      "gpus", "process", "processes", "l3", "cache", "chip", "package", "rank"})
"""After ``inter`` or ``intra``: a part of one node (inter-socket is inside a node too)."""
_OF_NODES = frozenset({"group", "rack", "switch", "chassis", "blade", "cabinet", "cluster",
                       "island", "cell", "system", "dragonfly"})
"""After ``inter`` or ``intra``: a unit of many nodes (intra-group is across nodes)."""
_NOT = frozenset({"no", "noshm", "off", "disabled", "disable", "without", "not", "nonshm"})
_COUNT = re.compile(r"^(?:(?P<a>[0-9]{1,6})nodes?|nodes?(?P<b>[0-9]{1,6}))"
                    r"(?:ppn(?P<ppn>[0-9]{1,6}))?$")


def _said(tokens: list[str], i: int) -> str | None:
    """What token ``i`` of a name says of where a ping-pong ran, read with its neighbours."""
    t = tokens[i]
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    near = {tokens[i - 1] if i else "", after}
    if t in ("inter", "intra"):
        if after == "node" or after == "nodes":
            return "inside" if t == "intra" else "across"
        if after in _IN_NODE:
            return "inside"
        if after in _OF_NODES:
            return "across"
        return "inside" if t == "intra" else "across"
    if t == "shm" and near & _NOT:
        return None
    if t in _INSIDE:
        return "inside"
    if t in _ACROSS:
        return "across"
    if m := _COUNT.match(t):
        nodes = int(m["a"] or m["b"])
        ppn = int(m["ppn"]) if m["ppn"] else None
        if nodes == 1:
            return "inside"
        return "across" if nodes > 1 and ppn in (None, 1) else None
    return None


def placement(source: str) -> str | None:
    """Where a ping-pong ran, as its file's name or the two folders above it say: "inside"
    one node (``intra``, ``intra-numa``, ``shm``, ``1node``, ``nodes1ppn32``, Open MPI's
    shared-memory transports …), "across" nodes (``inter``, ``inter-node``, ``intra-group``,
    ``2nodes``, ``nodes2ppn1`` …), or None when neither is said, or both.  The words are whole
    tokens of the name, read with their neighbours (``inter`` and ``intra`` by what follows:
    ``inter-socket`` is inside a node, ``intra-rack`` across; ``no-shm`` says nothing), so
    "interconnect" says nothing either.  A job of several nodes and several ranks a node
    (``nodes8ppn24``) says nothing of where one pair ran."""
    parts = re.split(r"[\\/]", source)[-3:]
    verdicts = set()
    for part in parts:
        tokens = [t for t in re.split(r"[^a-z0-9]+", part.lower()) if t]
        joined = [a + b for a, b in pairwise(tokens)]   # "intra-node", "2-nodes"
        for words in (tokens, joined):
            for i in range(len(words)):
                if (said := _said(words, i)) is not None:
                    verdicts.add(said)
    return verdicts.pop() if len(verdicts) == 1 else None
