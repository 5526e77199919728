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

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.files.doc import DocReader, number_list
from perfmodel.network.corrections import group_median

FloatArray = NDArray[np.float64]

MOST_SIZES = 64
"""The most sizes one collective keeps (OSU prints 20 to 24)."""
OP = re.compile(r"[a-z][a-z0-9_]{0,39}")
"""An operation's name, lower case (``allreduce``, ``reduce_scatter``; IMB's ``Allreduce``
is kept as ``allreduce``, so that the two tools' runs pair)."""
MOST_RUNS = 256
"""The most (operation, node count, processes) entries a profile keeps."""
MOST_NODES = 10**7
MOST_PROCESSES = 10**9
MOST_TIME = 1e6
MOST_SIZE = 1e15


class Found(NamedTuple):
    """One collective table as calibrate finds it."""

    op: str
    nodes: int
    processes: int | None
    """None: not known."""
    size: FloatArray
    time: FloatArray
    where: str


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


def collected(found: Iterable[Found]) -> tuple[tuple[CollectiveRun, ...], list[str]]:
    """The runs of each (operation, node count, processes) among ``found``: each size's median
    time over the tables that hold it; and notes on what the caps left out (at most
    :data:`MOST_RUNS` runs of :data:`MOST_SIZES` sizes)."""
    groups: dict[tuple[str, int, int], list[Found]] = {}
    for f in found:
        groups.setdefault((f.op, f.nodes, -1 if f.processes is None else f.processes),
                          []).append(f)
    out, notes = [], []
    if len(groups) > MOST_RUNS:
        notes.append(f"collectives: {len(groups)} runs (operation, nodes, processes); the "
                     f"first {MOST_RUNS} by operation and node count are kept")
    for (op, nodes, procs), runs in sorted(groups.items())[:MOST_RUNS]:
        every, group = np.unique(np.concatenate([r.size for r in runs]), return_inverse=True)
        med = group_median(np.concatenate([r.time for r in runs]), group.astype(np.intp),
                           len(every))[:MOST_SIZES]
        if len(every) > MOST_SIZES:
            notes.append(f"collectives: {op} on {nodes} nodes keeps its {MOST_SIZES} smallest "
                         f"of {len(every)} sizes")
        wheres = list(dict.fromkeys(r.where for r in runs))
        shown = "; ".join(wheres[:3]) + (f"; and {len(wheres) - 3} more" if len(wheres) > 3
                                         else "")
        out.append(CollectiveRun(op, nodes, None if procs < 0 else procs,
                                 tuple(every[:MOST_SIZES].tolist()), tuple(med.tolist()),
                                 len(runs),
                                 f"measured: {shown}"))
    return tuple(out), notes


def common(a: Sequence[CollectiveRun], b: Sequence[CollectiveRun],
           processes: Callable[[int], int] | None = None
           ) -> dict[int, list[tuple[CollectiveRun, CollectiveRun]]]:
    """The collectives both machines timed, by node count: (A's run, B's run) of each
    operation both have on as many nodes, with the same processes where both say them.
    ``processes(nodes)``, when given, is the code's own at a count: a run of another known
    number of ranks there is not its to compare."""
    theirs: dict[tuple[str, int], list[CollectiveRun]] = {}
    for rb in b:
        theirs.setdefault((rb.op, rb.nodes), []).append(rb)
    out: dict[int, list[tuple[CollectiveRun, CollectiveRun]]] = {}
    for ra in a:
        want = None if processes is None else processes(ra.nodes)
        if want is not None and ra.processes not in (None, want):
            continue
        for rb in theirs.get((ra.op, ra.nodes), []):
            if (want is not None and rb.processes not in (None, want)) or (
                    None not in (ra.processes, rb.processes) and ra.processes != rb.processes):
                continue
            out.setdefault(ra.nodes, []).append((ra, rb))
    return out


def ratios(both: Sequence[tuple[CollectiveRun, CollectiveRun]], lo: float, hi: float
           ) -> list[tuple[CollectiveRun, CollectiveRun, FloatArray, FloatArray]]:
    """B's time over A's for each pair of runs (:func:`common`) at every size either measured
    from ``lo`` to ``hi`` bytes that both span (the other's time interpolated there), with
    those sizes; a pair with none left out."""
    out = []
    for ra, rb in both:
        sizes = np.unique(np.r_[ra.sizes, rb.sizes])
        sizes = sizes[(sizes >= lo) & (sizes <= hi)]
        with np.errstate(invalid="ignore"):
            r = rb.time(sizes) / ra.time(sizes)
        ok = np.isfinite(r)
        if np.any(ok):
            out.append((ra, rb, r[ok], sizes[ok]))
    return out


def _whole(rk: DocReader, item: Any, key: str, most: int, least: int = 1) -> int:
    """``item[key]``, a whole number from ``least`` to ``most`` (one clear error if not)."""
    v = item.get(key)
    if type(v) is not int or not least <= v <= most:
        raise rk.fail(key, f"is {str(v)[:40]}, not a whole number from {least} to {most:g}",
                      "regenerate the profile with perfmodel calibrate")
    return v


def _numbers(rk: DocReader, item: Any, key: str, most: float, count: int | None
             ) -> FloatArray:
    """``item[key]``, a list of 1 to :data:`MOST_SIZES` finite numbers in (0, ``most``]
    (``count`` of them when given)."""
    fix = "regenerate the profile with perfmodel calibrate"
    got = number_list(rk, item, key, "", finite=True)
    if got is None or not 1 <= len(got) <= MOST_SIZES or (count is not None
                                                         and len(got) != count):
        raise rk.fail(key, f"is not a list of {count or f'1 to {MOST_SIZES}'} numbers", fix)
    if not (np.all(got > 0) and got.max() <= most):
        raise rk.fail(key, f"holds a value that is not a number from 0 to {most:g}", fix)
    return got


def read_collectives(r: DocReader, doc: Any) -> tuple[CollectiveRun, ...]:
    """The profile's ``[[collectives]]``, each checked: an operation's name, whole node, process
    and table counts (at least as many processes as nodes), rising sizes with one time each, and
    no two of one operation, node count and processes."""
    fix = "regenerate the profile with perfmodel calibrate"
    if not isinstance(doc, list) or len(doc) > MOST_RUNS:
        raise r.fail("collectives", f"is not a list of at most {MOST_RUNS} tables", fix)
    out: list[CollectiveRun] = []
    seen: set[tuple[str, int, int | None]] = set()
    for k, item in enumerate(doc):
        rk = r.at(f"collectives[{k}].")
        if not isinstance(item, dict):
            raise rk.fail("", "is not a table", fix)
        rk.only(item, {"op", "nodes", "processes", "sizes", "times", "tables", "source"})
        op = rk.text(item, "op")
        if not OP.fullmatch(op):
            raise rk.fail("op", f"is {op[:40]!r}, not an operation's name in lower case",
                          "e.g. allreduce")
        nodes = _whole(rk, item, "nodes", MOST_NODES)
        tables = _whole(rk, item, "tables", MOST_NODES)
        procs = None if "processes" not in item else \
            _whole(rk, item, "processes", MOST_PROCESSES, least=nodes)
        sizes = _numbers(rk, item, "sizes", MOST_SIZE, None)
        if not np.all(np.diff(sizes) > 0):
            raise rk.fail("sizes", "do not rise", fix)
        times = _numbers(rk, item, "times", MOST_TIME, len(sizes))
        source = item.get("source", "")
        if not isinstance(source, str):
            raise rk.fail("source", "is not text", "give a quoted string")
        if (op, nodes, procs) in seen:
            raise rk.fail("", f"is a second {op} on {nodes} nodes"
                          + ("" if procs is None else f" of {procs} processes"),
                          "keep one: calibrate writes each once")
        seen.add((op, nodes, procs))
        out.append(CollectiveRun(op, nodes, procs, tuple(sizes.tolist()),
                                 tuple(times.tolist()), tables, source))
    return tuple(out)


def describe(runs: Sequence[CollectiveRun]) -> str:
    """``allreduce and alltoall on 256 nodes``: the operations of runs of one node count."""
    ops = list(dict.fromkeys(r.op for r in runs))
    named = ops[0] if len(ops) == 1 else ", ".join(ops[:-1]) + " and " + ops[-1]
    n = runs[0].nodes
    return f"{named} on {n} node{'s' if n != 1 else ''}"
