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
"""

from __future__ import annotations

from collections.abc import Mapping
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


def _coords(sweep: Sweep) -> dict[str, IntArray]:
    return sweep.grid.coords()


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


def _held_mask(sweep: Sweep, coords: Mapping[str, IntArray], free: str | None = None
               ) -> BoolArray:
    mask = np.ones(len(sweep.time), dtype=bool)
    for name, (j, _, _) in held(sweep).items():
        if name != free:
            mask &= coords[name] == j
    return mask


def _nodes(sweep: Sweep) -> FloatArray:
    return sweep.config.get("nodes", np.ones(len(sweep.time)))


def baseline(sweep: Sweep) -> IntArray:
    """The baseline hardware at each node count (indices, by node count)."""
    idx = np.flatnonzero(_held_mask(sweep, _coords(sweep)))
    return idx[np.argsort(_nodes(sweep)[idx], kind="stable")]


def lesser_first(sweep: Sweep, idx: IntArray, limit: int | None = None) -> IntArray:
    """``idx`` by rank time, each tie (within :data:`TIE` of the fastest left) ordered by
    the lesser hardware: fewer nodes, fewer channels, a slower link, a longer latency."""
    t = np.where(np.isfinite(sweep.rank_time[idx]), sweep.rank_time[idx], np.inf)
    order = np.argsort(t, kind="stable")
    ts, ids = t[order], idx[order]
    # np.lexsort: the last key decides first (nodes), then channels, link speed, latency
    keys = [-sweep.config["latency"][ids]] if "latency" in sweep.config else []
    keys += [goodness(sweep, a, sweep.config[a][ids]) for a in ("network", "node")
             if a in sweep.config]
    keys += [sweep.config[a][ids] for a in ("link_speed", "channels", "nodes")
             if a in sweep.config]
    if sweep.cost is not None:
        keys.append(np.nan_to_num(sweep.cost[ids], nan=np.inf))
    out: list[int] = []
    i = 0
    while i < len(ids) and (limit is None or len(out) < limit):
        if not np.isfinite(ts[i]):
            out.extend(ids[i:].tolist())
            break
        j = i + int(np.searchsorted(ts[i:], ts[i] * (1 + TIE), side="right"))
        group = np.arange(i, j)
        if len(group) > 1 and keys:
            group = group[np.lexsort(tuple(k[group] for k in keys))]
        out.extend(ids[group].tolist())
        i = j
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


def steps(sweep: Sweep, worth: float = 0.05) -> list[Step]:
    """Every step between neighbouring values of each axis other than nodes, towards better
    hardware; it pays where it cuts the time by at least ``worth`` (gain ≥ 1 / (1 − worth))."""
    out = []
    coords = _coords(sweep)
    nodes = _nodes(sweep)
    for axis, values in sweep.grid.axes.items():
        if axis == "nodes" or len(values) < 2:
            continue
        mask = _held_mask(sweep, coords, axis)
        order = np.argsort(goodness(sweep, axis, values), kind="stable")
        for ja, jb in pairwise(order):
            ia = np.flatnonzero(mask & (coords[axis] == ja))
            ib = np.flatnonzero(mask & (coords[axis] == jb))
            ia, ib = ia[np.argsort(nodes[ia])], ib[np.argsort(nodes[ib])]
            with np.errstate(all="ignore"):
                gain = sweep.time[ia] / sweep.time[ib]
            out.append(Step(axis, float(values[ja]), float(values[jb]), nodes[ia], gain,
                            nodes[ia][gain >= 1.0 / (1.0 - worth)]))
    return out


def link_rows(sweep: Sweep) -> IntArray:
    """The configurations the link-speed question looks at: every node count and line rate,
    the other hardware at baseline."""
    if "link_speed" not in sweep.grid.axes:
        return np.empty(0, dtype=np.intp)
    return np.flatnonzero(_held_mask(sweep, _coords(sweep), "link_speed"))


def unbottlenecked(sweep: Sweep, rows: IntArray, wire: FloatArray, share: float = 0.10
                   ) -> tuple[FloatArray, FloatArray]:
    """Per node count, the slowest line rate at which a free wire would save less than
    ``share`` of the time (``wire``: that saving for configurations ``rows``, from
    :func:`~perfmodel.whatif.sweep.wire_share`); NaN where no rate swept gets there."""
    if rows.size == 0:
        return np.empty(0), np.empty(0)
    nodes = _nodes(sweep)[rows]
    rates = sweep.config["link_speed"][rows]
    counts = np.unique(nodes)
    out = np.full(len(counts), np.nan)
    for i, q in enumerate(counts):
        ok = (nodes == q) & (wire < share)
        if np.any(ok):
            out[i] = rates[ok].min()
    return counts, out


def front(sweep: Sweep) -> IntArray:
    """For each node count its best (least) hardware of those offered, kept where it beats
    every smaller node count by more than a tie."""
    nodes = _nodes(sweep)
    t = sweep.rank_time
    have = offered(sweep)
    if have.size == 0:
        return have
    order = have[np.argsort(nodes[have], kind="stable")]
    bounds = np.flatnonzero(np.diff(nodes[order])) + 1  # one group per node count
    keep: list[int] = []
    best_so_far = np.inf
    for at in np.split(order, bounds):
        i = int(lesser_first(sweep, at, 1)[0])
        if np.isfinite(t[i]) and t[i] < best_so_far * (1 - TIE):
            keep.append(i)
            best_so_far = t[i]
    return np.asarray(keep, dtype=np.intp)


def cost_front(sweep: Sweep) -> IntArray:
    """The Pareto front of time against price: configurations by price, each kept where it
    beats every cheaper one by more than a tie (empty without prices)."""
    if sweep.cost is None:
        return np.empty(0, dtype=np.intp)
    t = sweep.rank_time
    ok = np.flatnonzero(np.isfinite(sweep.cost) & np.isfinite(t))
    order = ok[np.lexsort((t[ok], sweep.cost[ok]))]
    keep: list[int] = []
    best_so_far = np.inf
    for i in order:
        if t[i] < best_so_far * (1 - TIE):
            keep.append(int(i))
            best_so_far = t[i]
    return np.asarray(keep, dtype=np.intp)


def describe(sweep: Sweep, i: int) -> Mapping[str, float]:
    """Configuration ``i`` as axis -> value, with the profile's values filling absent axes."""
    return {**sweep.baseline, **{k: float(v[i]) for k, v in sweep.config.items()}}
