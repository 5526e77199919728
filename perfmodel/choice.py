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


_INSIDE = frozenset({"intra", "intranode", "shm", "sharedmem", "sharedmemory", "samenode",
                     "onenode", "1node", "singlenode", "onnode", "intrasocket", "intersocket",
                     "vader", "xpmem", "cma", "knem"})
_ACROSS = frozenset({"inter", "internode", "2node", "2nodes", "twonode", "twonodes",
                     "crossnode", "acrossnodes", "offnode", "2n"})


def placement(source: str) -> str | None:
    """Where a ping-pong ran, as its file's name or folder says: "inside" one node (``intra``,
    ``shm``, ``1node``, ``same-node``, Open MPI's shared-memory transports …), "across" nodes
    (``inter``, ``2nodes``, ``inter-node`` …), or None when neither (or both) is said.  The
    words are whole tokens of the name, so "interconnect" says nothing."""
    parts = re.split(r"[\\/]", source)[-2:]
    words = set()
    for part in parts:
        tokens = [t for t in re.split(r"[^a-z0-9]+", part.lower()) if t]
        words |= set(tokens)
        words |= {a + b for a, b in pairwise(tokens)}   # "intra-node"
    inside, across = bool(words & _INSIDE), bool(words & _ACROSS)
    return "inside" if inside and not across else "across" if across and not inside else None
