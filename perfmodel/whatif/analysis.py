"""What a sweep says: the baseline, the best configurations, where each change stops paying,
and the front of time against nodes.

- **Baseline**: the profile's own hardware (its channels, line rate, latency) at each node
  count; where an axis swept does not hold the profile's value, the axis's least hardware
  (fewest channels, slowest link, longest latency) stands in, and :func:`held` says so.
- **Best**: the fastest configurations; times within :data:`TIE` of each other are a tie,
  which goes to the lesser hardware.  Under weak scaling (the problem grows with p) they are
  ranked by time per process's share of the work, time / p.
- **Where a change stops paying**: for each step along an axis towards better hardware (one
  channel to two, 10 to 100 Mb/s, 1 ms to 100 µs), the rest held at the baseline, the node
  counts at which the step cuts the time by at least ``worth``.
- **The link no longer the bottleneck**: per node count, the slowest line rate at which a free
  wire (an ideal line rate) would save less than ``share`` of the time.
- **Front**: for each node count its best (least) hardware, kept where it beats every smaller
  node count.
- **Cost front** (with a catalogue's prices): the configurations no cheaper one matches, by
  price; each buys time over every cheaper one (the Pareto front of time against cost).

Every question costs a few vectorised passes over the sweep (sorts at most): none loops in
Python over configurations, nor over node counts with a pass over the whole sweep each.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from numpy.typing import NDArray

from perfmodel.whatif.sweep import Sweep

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]

TIE = 1e-3
"""Times within this fraction of the fastest of a group are a tie."""
BETTER = {"channels": 1.0, "link_speed": 1.0, "latency": -1.0}
"""Which way each axis gets better (more channels, a faster link, a shorter latency)."""


@dataclass(frozen=True)
class Step:
    """One step along an axis towards better hardware: ``gain`` (time before / after) at each
    node count, and the node counts where it pays."""

    axis: str
    before: float
    after: float
    nodes: FloatArray
    gain: FloatArray
    pays: FloatArray


def goodness(sweep: Sweep, axis: str, values: FloatArray) -> FloatArray:
    """How good each value of ``axis`` is (higher is better hardware): more channels, a
    faster link, a shorter latency, a faster node type, a faster network option (by line
    rate, then by latency)."""
    v = np.asarray(values, dtype=np.float64)
    cat = sweep.grid.catalogue
    if axis == "node" and cat is not None:
        return cat.speed(v.astype(np.intp))[0]
    if axis == "network" and cat is not None:
        rate, lat = cat.network_values(v.astype(np.intp))
        own = sweep.baseline.get("latency", 0.0)     # NaN: the option keeps the profile's
        order = np.lexsort((-np.where(np.isfinite(lat), lat, own), rate))
        rank = np.empty(len(v))
        rank[order] = np.arange(len(v))
        return rank
    return v * BETTER.get(axis, 1.0)


def held(sweep: Sweep) -> dict[str, tuple[int, float, bool]]:
    """For each axis other than nodes: the value index the baseline holds it at, the value,
    and whether that is the profile's own value (else the least hardware swept)."""
    out = {}
    for name, values in sweep.grid.axes.items():
        if name == "nodes":
            continue
        want = sweep.baseline.get(name)
        hit: IntArray = (np.flatnonzero(np.isclose(values, want, rtol=1e-9))
                         if want is not None else np.empty(0, dtype=np.intp))
        if len(hit):
            out[name] = (int(hit[0]), float(values[hit[0]]), True)
        else:
            j = int(np.argmin(goodness(sweep, name, values)))
            out[name] = (j, float(values[j]), False)
    return out


def _held_rows(sweep: Sweep, free: str | None = None) -> IntArray:
    """The configurations (ascending) at every node count and every value of ``free``, the
    other axes at the baseline (:func:`held`): their indices from the grid's shape, one per
    row, without a pass over the whole sweep."""
    grid = sweep.grid
    if not grid.axes:
        return np.arange(grid.size, dtype=np.intp)
    hold = held(sweep)
    moving = [n for n in grid.axes if n in ("nodes", free)]
    mesh = dict(zip(moving, np.ix_(*(np.arange(len(grid.axes[n])) for n in moving)),
                    strict=True))
    index = [mesh[n] if n in mesh else np.intp(hold[n][0]) for n in grid.axes]
    return np.asarray(np.ravel_multi_index(tuple(np.broadcast_arrays(*index)), grid.shape),
                      dtype=np.intp).reshape(-1)


def _nodes(sweep: Sweep) -> FloatArray:
    return sweep.nodes


def _node_counts(sweep: Sweep, idx: IntArray) -> tuple[FloatArray, IntArray]:
    """The node counts swept (ascending), and for configurations ``idx`` the position of
    theirs among them (by a search in the few node counts, not a sort of the sweep)."""
    counts = _swept_counts(sweep)
    return counts, np.asarray(np.searchsorted(counts, _nodes(sweep)[idx]), dtype=np.intp)


def _swept_counts(sweep: Sweep) -> FloatArray:
    """The node counts swept, ascending (one, 1, without a node axis)."""
    return np.unique(sweep.grid.axes["nodes"]) if "nodes" in sweep.grid.axes else np.ones(1)


def baseline(sweep: Sweep) -> IntArray:
    """The baseline hardware at each node count (indices, by node count)."""
    idx = _held_rows(sweep)
    return idx[np.argsort(_nodes(sweep)[idx], kind="stable")]


def _lesser_keys(sweep: Sweep, ids: IntArray) -> list[FloatArray]:
    """The keys that order a tie by the lesser hardware, for :func:`np.lexsort` (the last key
    decides first): the price, then nodes, channels, link speed, node type, network and
    latency."""
    keys = [-sweep.config["latency"][ids]] if "latency" in sweep.config else []
    keys += [goodness(sweep, a, sweep.config[a][ids]) for a in ("network", "node")
             if a in sweep.config]
    keys += [sweep.config[a][ids] for a in ("link_speed", "channels", "nodes")
             if a in sweep.config]
    if sweep.cost is not None:
        keys.append(np.nan_to_num(sweep.cost[ids], nan=np.inf))
    return keys


def lesser_first(sweep: Sweep, idx: IntArray, limit: int | None = None) -> IntArray:
    """``idx`` by rank time, each tie (within :data:`TIE` of the fastest left) ordered by
    the lesser hardware: fewer nodes, fewer channels, a slower link, a longer latency.

    The ties are found in order, each starting at the fastest time not yet placed; with a
    ``limit`` only the configurations within a tie of the ``limit``-th fastest are sorted."""
    idx = np.asarray(idx, dtype=np.intp)
    rank = sweep.rank_time[idx]
    t = np.where(np.isfinite(rank), rank, np.inf)
    if limit is not None and 0 < limit < len(t):
        kth = float(np.partition(t, limit - 1)[limit - 1])
        if math.isfinite(kth):   # the first `limit` lie in ties that start at most there
            near = t <= kth * (1 + TIE)
            idx, t = idx[near], t[near]
    order = np.argsort(t, kind="stable")
    ts, ids = t[order], idx[order]
    finite = int(np.searchsorted(ts, np.inf, side="left"))
    ends = np.searchsorted(ts[:finite], ts[:finite] * (1 + TIE), side="right").tolist()
    group = np.zeros(finite, dtype=np.intp)
    i = 0
    while i < finite and (limit is None or i < limit):   # one step per tie, not per row
        group[i] = 1
        i = ends[i]
    placed = i          # the ties found cover positions 0 … placed − 1
    group = np.cumsum(group[:placed])
    head = ids[:placed].copy()
    tied = np.flatnonzero(np.bincount(group)[group] > 1)   # in a tie of two or more
    keys = _lesser_keys(sweep, head[tied])
    if keys and tied.size:
        head[tied] = head[tied][np.lexsort((*keys, group[tied]))]
    out = np.concatenate([head, ids[placed:] if placed == finite else ids[:0]])
    return np.asarray(out if limit is None else out[:limit], dtype=np.intp)


def offered(sweep: Sweep) -> IntArray:
    """The configurations one can buy: all of them without prices, else those the
    catalogue offers (a price)."""
    if sweep.cost is None:
        return np.arange(len(sweep.time))
    return np.flatnonzero(np.isfinite(sweep.cost))


def best(sweep: Sweep, count: int = 5) -> IntArray:
    """The fastest configurations (of those offered), ties to the lesser hardware."""
    return lesser_first(sweep, offered(sweep), count)


def _slab(sweep: Sweep, axis: str) -> IntArray:
    """The configurations at every node count (rows, fewest nodes first) and every value of
    ``axis`` (columns, in the axis's order), the other axes held at the baseline
    (:func:`held`): their indices from the grid's shape, not from a pass per value."""
    grid = sweep.grid
    hold = held(sweep)
    q = np.argsort(grid.axes["nodes"], kind="stable") if "nodes" in grid.axes else \
        np.zeros(1, dtype=np.intp)
    j = np.arange(len(grid.axes[axis]))
    index = [q[:, None] if name == "nodes" else j[None, :] if name == axis else
             np.intp(hold[name][0]) for name in grid.axes]
    return np.asarray(np.ravel_multi_index(tuple(np.broadcast_arrays(*index)), grid.shape),
                      dtype=np.intp)


WORTH = 0.05
"""The share of the time a change must cut to pay, unless the user says (``whatif --worth``)."""


def steps(sweep: Sweep, worth: float = WORTH) -> list[Step]:
    """Every step between neighbouring values of each axis other than nodes, towards better
    hardware; it pays where it cuts the time by at least ``worth`` (gain ≥ 1 / (1 − worth))."""
    out = []
    nodes = _nodes(sweep)
    for axis, values in sweep.grid.axes.items():
        if axis == "nodes" or len(values) < 2:
            continue
        order = np.argsort(goodness(sweep, axis, values), kind="stable")
        cols = _slab(sweep, axis).T[order]          # one row per value, worst first
        q = nodes[cols[0]]
        with np.errstate(all="ignore"):
            gains = sweep.time[cols[:-1]] / sweep.time[cols[1:]]   # one row per step
        pays = gains >= 1.0 / (1.0 - worth)
        for k, (ja, jb) in enumerate(pairwise(order)):
            out.append(Step(axis, float(values[ja]), float(values[jb]), q, gains[k],
                            q[pays[k]]))
    return out


def link_rows(sweep: Sweep) -> IntArray:
    """The configurations the link-speed question looks at: every node count and line rate,
    the other hardware at baseline."""
    if "link_speed" not in sweep.grid.axes:
        return np.empty(0, dtype=np.intp)
    return _held_rows(sweep, "link_speed")


def unbottlenecked(sweep: Sweep, rows: IntArray, wire: FloatArray, share: float = 0.10
                   ) -> tuple[FloatArray, FloatArray]:
    """Per node count, the slowest line rate at which a free wire would save less than
    ``share`` of the time (``wire``: that saving for configurations ``rows``, from
    :func:`~perfmodel.whatif.sweep.wire_share`); NaN where no rate swept gets there."""
    if rows.size == 0:
        return np.empty(0), np.empty(0)
    counts, at = _node_counts(sweep, rows)
    rates = sweep.config["link_speed"][rows]
    out = np.full(len(counts), np.inf)
    ok = wire < share
    np.minimum.at(out, at[ok], rates[ok])     # one pass, not one per node count
    present = np.bincount(at, minlength=len(counts)) > 0
    return counts[present], np.where(np.isinf(out), np.nan, out)[present]


def best_per_node_count(sweep: Sweep) -> IntArray:
    """For each node count (fewest first) its best configuration of those offered, as
    ``lesser_first(sweep, those at that count, 1)`` picks it (the fastest, a tie to the lesser
    hardware), for every node count at once; node counts without a finite time are left
    out.  The sweep is read a block at a time (:data:`BLOCK`): twice, for each count's
    fastest time and then for the configurations that tie with it, so the memory this takes
    is a block's and the ties', not a few arrays the length of the sweep."""
    counts = _swept_counts(sweep)
    fastest = np.full(len(counts), np.inf)
    for _ids, group, t in _ranked_blocks(sweep):
        np.minimum.at(fastest, group, t)
    # each block's first of each tie, then the first of those: the lexicographic least is
    # the least of the blocks' least
    won = [_first_of_ties(sweep, ids[near], group[near], t[near], len(counts))
           for ids, group, t in _ranked_blocks(sweep)
           for near in [np.isfinite(t) & (t <= fastest[group] * (1 + TIE))]]
    ids, g, tn = (np.concatenate([w[k] for w in won]) for k in range(3))
    return _first_of_ties(sweep, ids, g, tn, len(counts))[0]


def _first_of_ties(sweep: Sweep, ids: IntArray, g: IntArray, t: FloatArray, groups: int
                   ) -> tuple[IntArray, IntArray, FloatArray]:
    """Of configurations ``ids`` (in ascending order, in groups ``g``, rank times ``t``), each
    group's first by the lesser hardware's keys (the last decides first), then the time, then
    the index: np.lexsort's order, found by keeping each group's least value key by key (a
    few passes, no sort).  The winners' indices, groups and times, by group."""
    alive = np.arange(len(ids))
    for key in [*reversed(_lesser_keys(sweep, ids)), t]:
        k = np.nan_to_num(key[alive], nan=np.inf)
        least = np.full(groups, np.inf)
        np.minimum.at(least, g[alive], k)
        alive = alive[k == least[g[alive]]]
    first = np.full(groups, len(ids))
    np.minimum.at(first, g[alive], alive)
    pick = first[first < len(ids)]
    return np.asarray(ids[pick], dtype=np.intp), g[pick], t[pick]


BLOCK = 1 << 20
"""Configurations :func:`best_per_node_count` reads at once (8 MiB an array)."""


def _ranked_blocks(sweep: Sweep) -> Iterator[tuple[IntArray, IntArray, FloatArray]]:
    """The configurations offered, a block at a time: their indices, the position of their
    node count among the counts swept (:func:`_node_counts`), and their rank time (infinite
    where not finite)."""
    n = len(sweep.time)
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        ids = np.arange(start, stop) if sweep.cost is None else \
            start + np.flatnonzero(np.isfinite(sweep.cost[start:stop]))
        rank = sweep.rank_time[ids]
        yield ids, _node_counts(sweep, ids)[1], np.where(np.isfinite(rank), rank, np.inf)


def _improving(t: FloatArray, order: IntArray) -> IntArray:
    """Of ``order``, those whose time beats the last one kept by more than a tie.  Only a
    strict new running minimum can be kept (anything else ties or loses to an earlier one),
    so the scan walks those, not every configuration."""
    ts = t[order]
    if ts.size == 0:
        return np.empty(0, dtype=np.intp)
    before = np.minimum.accumulate(ts)
    record = np.ones(len(ts), dtype=bool)
    record[1:] = ts[1:] < before[:-1]
    keep: list[int] = []
    best_so_far = math.inf
    for i, ti in zip(order[record].tolist(), ts[record].tolist(), strict=True):
        if ti < best_so_far * (1 - TIE):
            keep.append(i)
            best_so_far = ti
    return np.asarray(keep, dtype=np.intp)


def front(sweep: Sweep) -> IntArray:
    """For each node count its best (least) hardware of those offered, kept where it beats
    every smaller node count by more than a tie."""
    best_each = best_per_node_count(sweep)
    t = sweep.rank_time
    return _improving(t, best_each[np.isfinite(t[best_each])])


def cost_front(sweep: Sweep) -> IntArray:
    """The Pareto front of time against price: configurations by price, each kept where it
    beats every cheaper one by more than a tie (empty without prices)."""
    if sweep.cost is None:
        return np.empty(0, dtype=np.intp)
    t = sweep.rank_time
    ok = np.flatnonzero(np.isfinite(sweep.cost) & np.isfinite(t))
    order = ok[np.lexsort((t[ok], sweep.cost[ok]))]
    return _improving(t, order)


def describe(sweep: Sweep, i: int) -> Mapping[str, float]:
    """Configuration ``i`` as axis -> value, with the profile's values filling absent axes."""
    return {**sweep.baseline, **{k: float(v[i]) for k, v in sweep.config.items()}}
