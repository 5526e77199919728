"""Collectives a machine was measured running at a node count (the profile's
``[[collectives]]``): what a ping-pong between two nodes cannot show.

A ping-pong times two nodes alone.  A code's overhead at scale is also the collectives of every
node at once: the switches' contention, the placement of the job, the software between the
ranks and the wire (a container network, a virtual NIC).  Two machines with the same ping-pong
can differ there by several times (``bench/cloud_pairs.py``: the same instances and the same
8-byte latency, an allreduce of 256 nodes 5.8 times slower in one of the two environments).
So a profile keeps, beside its law, the collective tables it was given at a known node count,
each size's median over the tables of that operation and count, and a prediction on another
machine can say how far B's collectives at that count sit from A's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.files.doc import DocReader, as_float

FloatArray = NDArray[np.float64]

MOST_SIZES = 64
"""The most sizes one collective keeps (OSU prints 20 to 24)."""
OP = re.compile(r"[a-z][a-z0-9_]{0,39}")
"""An operation's name as the readers give it (``allreduce``, ``reduce_scatter``)."""
MOST_RUNS = 256
"""The most (operation, node count) entries a profile keeps."""


Found = tuple[str, int, int | None, FloatArray, FloatArray, str]
"""One collective table as calibrate finds it: operation, nodes, processes (None: unknown),
sizes, times, and where it came from."""


@dataclass(frozen=True)
class CollectiveRun:
    """One collective ``op`` measured on ``nodes`` nodes (``processes`` ranks when known): at
    each size (bytes, rising), the median time of a call (s) over ``tables`` tables, and where
    the tables and their node count came from."""

    op: str
    nodes: int
    processes: int | None
    sizes: tuple[float, ...]
    times: tuple[float, ...]
    tables: int
    source: str

    def time(self, nbytes: ArrayLike) -> FloatArray:
        """A call's time at ``nbytes``, interpolated in log size and log time between the sizes
        measured (NaN outside them)."""
        m = np.asarray(nbytes, dtype=np.float64)
        s = np.asarray(self.sizes, dtype=np.float64)
        t = np.log(np.asarray(self.times, dtype=np.float64))
        x = np.log1p(s)
        with np.errstate(invalid="ignore"):
            inside = (m >= s[0]) & (m <= s[-1])
            out = np.exp(np.interp(np.log1p(np.where(inside, m, s[0])), x, t))
        return np.asarray(np.where(inside, out, np.nan), dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "nodes": self.nodes,
                **({} if self.processes is None else {"processes": self.processes}),
                "sizes": list(self.sizes), "times": list(self.times), "tables": self.tables,
                "source": self.source}


def collected(found: Iterable[Found]) -> tuple[CollectiveRun, ...]:
    """The runs of each (operation, node count) among ``found`` (op, nodes, processes, sizes,
    times, where from): each size's median time over the tables that hold it; the processes
    kept where every table agrees on them."""
    groups: dict[tuple[str, int], list[tuple[int | None, FloatArray, FloatArray, str]]] = {}
    for op, nodes, count, size, time, where in found:
        groups.setdefault((op, nodes), []).append((count, size, time, where))
    out = []
    for (op, nodes), runs in sorted(groups.items())[:MOST_RUNS]:
        size = np.concatenate([r[1] for r in runs])
        time = np.concatenate([r[2] for r in runs])
        keep = (size > 0) & np.isfinite(time) & (time > 0)
        sizes = np.unique(size[keep])[:MOST_SIZES]
        if not sizes.size:
            continue
        med = [float(np.median(time[keep & (size == s)])) for s in sizes]
        ranks = {r[0] for r in runs}
        wheres = list(dict.fromkeys(r[3] for r in runs))
        shown = "; ".join(wheres[:3]) + (f"; and {len(wheres) - 3} more" if len(wheres) > 3
                                         else "")
        out.append(CollectiveRun(op, nodes, ranks.pop() if len(ranks) == 1 else None,
                                 tuple(sizes.tolist()), tuple(med), len(runs),
                                 f"measured: {shown}"))
    return tuple(out)


def common(a: Sequence[CollectiveRun], b: Sequence[CollectiveRun]
           ) -> dict[int, list[tuple[CollectiveRun, CollectiveRun]]]:
    """The collectives both machines timed, by node count: (A's run, B's run) of each
    operation both have at that count (one pass over each)."""
    theirs = {(r.op, r.nodes): r for r in b}
    out: dict[int, list[tuple[CollectiveRun, CollectiveRun]]] = {}
    for ra in a:
        rb = theirs.get((ra.op, ra.nodes))
        if rb is not None:
            out.setdefault(ra.nodes, []).append((ra, rb))
    return out


def ratios(both: Sequence[tuple[CollectiveRun, CollectiveRun]], sizes: ArrayLike
           ) -> list[tuple[CollectiveRun, CollectiveRun, FloatArray]]:
    """B's time over A's for each pair of runs (:func:`common`), at those of ``sizes`` both
    measured (a pair with none left out)."""
    out = []
    for ra, rb in both:
        with np.errstate(invalid="ignore"):
            r = rb.time(sizes) / ra.time(sizes)
        r = r[np.isfinite(r)]
        if r.size:
            out.append((ra, rb, r))
    return out


def read_collectives(r: DocReader, doc: Any) -> tuple[CollectiveRun, ...]:
    """The profile's ``[[collectives]]``, each checked: a known operation name, whole node and
    process counts, rising positive sizes with one positive finite time each."""
    fix = "regenerate the profile with perfmodel calibrate"
    if not isinstance(doc, list) or len(doc) > MOST_RUNS:
        raise r.fail("collectives", f"is not a list of at most {MOST_RUNS} tables", fix)
    out = []
    for k, item in enumerate(doc):
        rk = r.at(f"collectives[{k}].")
        if not isinstance(item, dict):
            raise rk.fail("", "is not a table", fix)
        rk.only(item, {"op", "nodes", "processes", "sizes", "times", "tables", "source"})
        op = rk.text(item, "op")
        nodes, tables, procs = (item.get(key) for key in ("nodes", "tables", "processes"))
        if not (type(nodes) is int and type(tables) is int and 1 <= nodes <= 10**7
                and 1 <= tables <= 10**7) or not (
                procs is None or (type(procs) is int and 1 <= procs <= 10**9)):
            raise rk.fail("nodes", "is not a whole node, table and process count", fix)
        if not OP.fullmatch(op):
            raise rk.fail("op", f"is {op[:40]!r}, not an operation's name", "e.g. allreduce")
        sizes, times = item.get("sizes"), item.get("times")
        if not (isinstance(sizes, list) and isinstance(times, list)
                and 1 <= len(sizes) == len(times) <= MOST_SIZES):
            raise rk.fail("sizes", "are not one time for each of 1 to 64 sizes", fix)
        values = [as_float(v) for v in (*sizes, *times)]
        if any(v is None for v in values):
            raise rk.fail("sizes", "are not all numbers", fix)
        s = np.asarray(values[:len(sizes)], dtype=np.float64)
        t = np.asarray(values[len(sizes):], dtype=np.float64)
        if not (np.all(np.isfinite(s)) and np.all(np.isfinite(t)) and np.all(s > 0)
                and np.all(t > 0) and np.all(np.diff(s) > 0) and s[-1] <= 1e15
                and t.max() <= 1e6):
            raise rk.fail("sizes", "are not rising sizes from 1 B to 1 PB, each with a time "
                                   "from 0 to 10⁶ s", fix)
        source = item.get("source", "")
        if not isinstance(source, str):
            raise rk.fail("source", "is not text", "give a quoted string")
        out.append(CollectiveRun(op, nodes, procs, tuple(s.tolist()), tuple(t.tolist()),
                                 tables, source))
    return tuple(out)


def describe(runs: Sequence[CollectiveRun]) -> str:
    """``allreduce and alltoall on 256 nodes (24576 ranks)``: runs of one node count."""
    ops = list(dict.fromkeys(r.op for r in runs))
    named = ops[0] if len(ops) == 1 else ", ".join(ops[:-1]) + " and " + ops[-1]
    procs = {r.processes for r in runs}
    p = procs.pop() if len(procs) == 1 else None
    n = runs[0].nodes
    return f"{named} on {n} node{'s' if n != 1 else ''}" + ("" if p is None else f" ({p} ranks)")


def spread(ratios: Sequence[FloatArray]) -> tuple[float, float]:
    """The least and largest of ratios over sizes and operations (1.0, 1.0 when none)."""
    every = np.concatenate([np.asarray(r, dtype=np.float64) for r in ratios]) if ratios \
        else np.ones(1)
    lo, hi = float(every.min()), float(every.max())
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else (1.0, 1.0)
