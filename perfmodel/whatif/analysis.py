"""What a sweep says: the baseline, the best configurations, where each change stops paying,
and the front of time against nodes.

- **Baseline**: the profile's own hardware (its channels, line rate, latency) at each node
  count of the sweep.
- **Best**: the fastest configurations.
- **Where a change stops paying**: for each step along an axis (one channel to two, 10 to
  100 Mb/s), the other hardware held at the baseline, the node counts at which the step cuts
  the time by at least ``worth`` (default 5 %).
- **Network no longer the bottleneck**: per node count, the slowest line rate at which a free
  wire (an ideal line rate) would save less than ``share`` of the time.
- **Front**: the configurations no other beats in both time and node count (more nodes only
  where they buy time).
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


@dataclass(frozen=True)
class Step:
    """One step along an axis: ``gain`` (time before / after) at each node count, and the
    node counts where it pays."""

    axis: str
    before: float
    after: float
    nodes: FloatArray
    gain: FloatArray
    pays: FloatArray


def _held(sweep: Sweep, axis: str | None = None) -> NDArray[np.bool_]:
    """Configurations whose axes other than ``axis`` and nodes sit at the baseline (or, when the
    baseline value is not on the axis, at its first value)."""
    mask = np.ones(len(sweep.time), dtype=bool)
    for name, values in sweep.grid.axes.items():
        if name in ("nodes", axis):
            continue
        want = sweep.baseline.get(name, float(values[0]))
        if not np.any(np.isclose(values, want, rtol=1e-9)):
            want = float(values[0])
        mask &= np.isclose(sweep.config[name], want, rtol=1e-9)
    return mask


def baseline(sweep: Sweep) -> IntArray:
    """The profile's own hardware at each node count (indices, by node count)."""
    idx = np.flatnonzero(_held(sweep))
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))
    return idx[np.argsort(nodes[idx], kind="stable")]


TIE = 1e-3
"""Times within this fraction of each other are a tie, broken by the lesser hardware."""


def _lesser(sweep: Sweep, idx: IntArray) -> IntArray:
    """``idx`` ordered by time, ties (within :data:`TIE`) going to the lesser hardware: fewer
    nodes, fewer channels, a slower link, a longer latency (what costs less)."""
    t = np.where(np.isfinite(sweep.time[idx]), sweep.time[idx], np.inf)
    band = np.floor(np.log(t) / np.log1p(TIE))
    keys = [sweep.config[a][idx] * sign for a, sign in (("latency", -1.0),
                                                        ("link_speed", 1.0),
                                                        ("channels", 1.0), ("nodes", 1.0))
            if a in sweep.config]
    order = np.lexsort((*keys, band)) if keys else np.argsort(band, kind="stable")
    return idx[order]


def best(sweep: Sweep, count: int = 5) -> IntArray:
    """The fastest configurations (ties to the lesser hardware)."""
    t = np.where(np.isfinite(sweep.time), sweep.time, np.inf)
    k = min(max(count * 50, count), len(t))
    near = np.argpartition(t, k - 1)[:k]
    return _lesser(sweep, near)[:count]


def steps(sweep: Sweep, worth: float = 0.05) -> list[Step]:
    """Every step between neighbouring values of each axis other than nodes."""
    out = []
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))
    for axis, values in sweep.grid.axes.items():
        if axis == "nodes" or len(values) < 2:
            continue
        held = _held(sweep, axis)
        ordered = np.sort(np.asarray(values, dtype=np.float64))
        for a, b in pairwise(ordered):
            ia = np.flatnonzero(held & np.isclose(sweep.config[axis], a, rtol=1e-9))
            ib = np.flatnonzero(held & np.isclose(sweep.config[axis], b, rtol=1e-9))
            ia, ib = ia[np.argsort(nodes[ia])], ib[np.argsort(nodes[ib])]
            gain = sweep.time[ia] / sweep.time[ib]
            out.append(Step(axis, float(a), float(b), nodes[ia], gain,
                            nodes[ia][gain >= 1.0 + worth]))
    return out


def link_rows(sweep: Sweep) -> IntArray:
    """The configurations the link-speed question looks at: every node count and line rate,
    the other hardware at baseline."""
    if "link_speed" not in sweep.grid.axes:
        return np.empty(0, dtype=np.intp)
    return np.flatnonzero(_held(sweep, "link_speed"))


def unbottlenecked(sweep: Sweep, rows: IntArray, wire: FloatArray, share: float = 0.10
                   ) -> tuple[FloatArray, FloatArray]:
    """Per node count, the slowest line rate at which a free wire would save less than
    ``share`` of the time (``wire``: that saving for configurations ``rows``, from
    :func:`~perfmodel.whatif.sweep.wire_share`); NaN where no rate swept gets there."""
    if rows.size == 0:
        return np.empty(0), np.empty(0)
    held = np.zeros(len(sweep.time), dtype=bool)
    held[rows] = True
    saving = np.full(len(sweep.time), np.inf)
    saving[rows] = wire
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))
    counts = np.unique(nodes[held])
    out = np.full(len(counts), np.nan)
    ok = held & (saving < share)
    for i, q in enumerate(counts):
        rates = sweep.config["link_speed"][ok & (nodes == q)]
        if rates.size:
            out[i] = rates.min()
    return counts, out


def front(sweep: Sweep) -> IntArray:
    """Configurations that no other beats in both time and node count: for each node count its
    fastest hardware, kept only where it is faster than every smaller node count's."""
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))
    t = np.where(np.isfinite(sweep.time), sweep.time, np.inf)
    keep: list[int] = []
    best_so_far = np.inf
    for q in np.unique(nodes):
        at = np.flatnonzero(nodes == q)
        i = int(_lesser(sweep, at)[0])
        if t[i] < best_so_far * (1 - TIE):
            keep.append(i)
            best_so_far = t[i]
    return np.asarray(keep, dtype=np.intp)


def describe(sweep: Sweep, i: int) -> Mapping[str, float]:
    """Configuration ``i`` as axis -> value, with the baseline filling absent axes."""
    return {**sweep.baseline, **{k: float(v[i]) for k, v in sweep.config.items()}}
