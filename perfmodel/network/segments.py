"""Where a piecewise law's segments meet: the split of the distinct message sizes into k
Hockney segments of least relative RSS, by dynamic programming over every split (exact, up to
EXACT_SIZES distinct sizes) or zooming in from a grid of candidates (above it: memory that
grows with the points, not their square)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from perfmodel.errors import FitError

FloatArray = NDArray[np.float64]

MIN_SIZES_PER_SEGMENT = 3
"""The fewest distinct sizes a segment holds."""

EXACT_SIZES = 512
"""Distinct sizes up to which the piecewise search tries every split exactly; its memory and
time grow with their square (a cost matrix over every pair of sizes).  Real tables hold at most
106 (NetPIPE; all of ``data/`` and the fixtures together 117), the test grids 291: all stay
exact.  Above it, :func:`grid_segment`, whose memory grows with the points plus GRID_EDGES²."""

GRID_EDGES = 256
"""Candidate segment starts of the coarse search: half spaced evenly in index (each cell
holds as many sizes), half evenly in log size (protocol switches sit at powers of two, and a
short segment of small sizes is few in index but wide in log size)."""

ZOOM = 64
"""Candidates :func:`grid_segment` adds between the neighbours of each start it chose."""
MAX_ZOOMS = 12
"""Searches at most: each zoom narrows the candidates around a start about ZOOM / 2 times, so
that from 10⁶ distinct sizes three reach single sizes (and a fourth finds nothing to add); a
start that walks from its first place takes more."""


def cumulative(m: FloatArray, y: FloatArray) -> tuple[FloatArray, ...]:
    """Cumulative sums, from 0, of u², uv, v², u, v and 1 with u = 1/y and v = m/y."""
    u, v = 1.0 / y, m / y
    return tuple(np.concatenate([[0.0], np.cumsum(x)]) for x in (u * u, u * v, v * v, u, v,
                                                                  np.ones_like(u)))


def costs(sums: Sequence[FloatArray], edges: NDArray[np.intp], lo: NDArray[np.intp],
           hi: NDArray[np.intp]) -> FloatArray:
    """Relative RSS of one Hockney segment over distinct sizes lo..hi−1, for index arrays
    ``lo`` and ``hi`` broadcast together; ``edges[i]`` is the first point of size i.

    With u = 1/y and v = m/y, the segment minimises Σ(a·u + b·v − 1)² over a, b ≥ 0, whose
    sums come from the cumulative ``sums``; the 2×2 non-negative least squares is solved in
    closed form.  Segments with fewer than MIN_SIZES_PER_SEGMENT sizes cost inf.
    """
    suu, suv, svv, su, sv, n = (c[edges[hi]] - c[edges[lo]] for c in sums)
    with np.errstate(divide="ignore", invalid="ignore"):
        det = suu * svv - suv**2
        a = (svv * su - suv * sv) / det
        b = (suu * sv - suv * su) / det
        rss_free = n - 2 * (a * su + b * sv) + a * a * suu + 2 * a * b * suv + b * b * svv
        a_only = su / suu  # b = 0
        rss_a = n - a_only * su
        b_only = sv / svv  # a = 0
        rss_b = n - b_only * sv
    rss = np.where((a >= 0) & (b >= 0), rss_free, np.minimum(rss_a, rss_b))
    too_few = hi - lo < MIN_SIZES_PER_SEGMENT
    return np.asarray(np.where(too_few | ~np.isfinite(rss), math.inf, np.maximum(rss, 0.0)),
                      dtype=np.float64)


def edges(m: FloatArray, sizes: FloatArray) -> NDArray[np.intp]:
    """The first point of each distinct size in ``m`` (sorted), then the number of points:
    the points of sizes i..j−1 are edges[i]:edges[j].

    >>> edges(np.array([1.0, 1.0, 2.0, 5.0]), np.array([1.0, 2.0, 5.0])).tolist()
    [0, 2, 3, 4]
    """
    return np.append(np.searchsorted(m, sizes, side="left"), len(m))


def segment_costs(m: FloatArray, y: FloatArray, sizes: FloatArray) -> FloatArray:
    """cost[i, j]: relative RSS of one Hockney segment over distinct sizes i..j−1, every
    segment at once (:func:`costs`)."""
    every = np.ogrid[:len(sizes) + 1, :len(sizes) + 1]
    return costs(cumulative(m, y), edges(m, sizes), *every)


def segment(cost: FloatArray, k: int) -> tuple[float, list[int]]:
    """Best split of all distinct sizes into k segments: total RSS and the start indices.

    best[s, j], the least RSS of sizes 0..j−1 in s segments, is min over i of
    best[s − 1, i] + cost[i, j], taken for every j at once.
    """
    u = cost.shape[0] - 1
    best = np.full((k + 1, u + 1), math.inf)
    arg = np.zeros((k + 1, u + 1), dtype=int)
    best[0, 0] = 0.0
    every = np.arange(u + 1)
    for s in range(1, k + 1):
        totals = best[s - 1][:, None] + cost
        arg[s] = np.argmin(totals, axis=0)
        best[s] = totals[arg[s], every]
    if not math.isfinite(best[k, u]):
        raise FitError(f"no split of the data into {k} segments can be fitted",
                       fix="check the data's range and units, or use hockney")
    starts, j = [], u
    for s in range(k, 0, -1):
        j = int(arg[s, j])
        starts.append(j)
    return float(best[k, u]), sorted(starts)[1:]


def grid(sizes: FloatArray, count: int) -> NDArray[np.intp]:
    """About ``count`` candidate segment starts among the distinct ``sizes`` (indices, 0 and
    len(sizes) included): half evenly spaced in index, half evenly in log size.

    >>> grid(np.arange(1.0, 11.0), 4).tolist()
    [0, 3, 5, 9, 10]
    """
    u = len(sizes)
    by_index = np.round(np.linspace(0, u, count // 2 + 1)).astype(np.intp)
    logs = np.log(np.maximum(sizes, 1.0))   # a 0-byte size counts as 1 byte
    by_log = np.searchsorted(logs, np.linspace(logs[0], logs[-1], count // 2 + 1))
    return np.unique(np.concatenate([by_index, by_log, [0, u]]))


def grid_segment(sums: Sequence[FloatArray], edges: NDArray[np.intp], sizes: FloatArray,
                  k: int, count: int = GRID_EDGES) -> tuple[float, list[int]]:
    """Split into k segments for many distinct sizes, zooming in: the exact search
    (:func:`segment`) over a coarse grid of candidate starts (:func:`grid`), then again over
    that grid plus ZOOM evenly spaced sizes between each chosen start's neighbouring
    candidates, until every size near each start is a candidate.  Each segment's cost comes
    from all its points; memory grows with the points plus (count + k·ZOOM)²."""
    coarse = grid(sizes, count)
    cand = coarse
    for _ in range(MAX_ZOOMS):
        total, at = segment(costs(sums, edges, cand[:, None], cand[None, :]), k)
        starts = [int(cand[a]) for a in at]
        near = [np.linspace(cand[a - 1], cand[a + 1], ZOOM + 1) for a in at]
        finer = np.unique(np.concatenate([coarse, np.round(np.concatenate(near)).astype(np.intp)]))
        if np.array_equal(finer, cand):
            break
        cand = finer
    return total, starts


def between(lo: float, hi: float) -> float:
    """Where a segment starts, between the last size of one and the first of the next: their
    geometric mean (the data say nothing finer; sizes are spaced geometrically)."""
    return math.sqrt(lo * hi) if lo > 0 else hi / 2




def searcher(m: FloatArray, y: FloatArray, sizes: FloatArray
             ) -> tuple[Callable[[int], list[int]], list[str]]:
    """The function that splits the points (sorted sizes ``m``, times ``y``; distinct
    ``sizes``) into k segments and returns their starts, and the notes that say how it
    searched: every split up to EXACT_SIZES distinct sizes (the cost matrix made once for
    every k), else :func:`grid_segment`."""
    sums, first = cumulative(m, y), edges(m, sizes)
    if len(sizes) <= EXACT_SIZES:
        cost = costs(sums, first, *np.ogrid[:len(sizes) + 1, :len(sizes) + 1])
        return (lambda k: segment(cost, k)[1]), []
    note = (f"breakpoints searched on a grid of {len(grid(sizes, GRID_EDGES))} sizes, then "
            f"among every size near those chosen ({len(sizes)} distinct sizes; every split is "
            f"tried up to {EXACT_SIZES})")
    return (lambda k: grid_segment(sums, first, sizes, k)[1]), [note]
