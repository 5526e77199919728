"""What a point-to-point law misses at each size it was calibrated on, kept beside it
(:class:`Measured`, the profile's ``[network.measured]``).

A law of a few parameters smooths over what real ping-pong tables do between protocol
switches (a cache, a copy path, an eager limit per size): on the project's real series the
law alone misses sizes between those it was fitted on by 2.6 % (median; ``bench/p2p_corpus.py``,
tune part), the law held to the measured medians 1.1 %.  So inside the sizes calibrated a
prediction is the law times the measured ratio at that size (the median of its rows over the
law), interpolated in ln(1 + size) between two sizes; past them it fades to the law alone
within a doubling or two, so that a message just past the table is not predicted faster than
the table's last (carrying the last ratio on for good did not help: 21.7 % against the law's
19.2 % on the held-out series, sizes from 4 times the largest fitted).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.network.corrections import group_median

FloatArray = NDArray[np.float64]

SOURCE = ("measured: the median time of each size's rows over the law's, kept so that inside "
          "the sizes calibrated the prediction follows the table (between two sizes, "
          "interpolated in ln(1 + size)); past them it fades to the law alone")

MOST = 256
"""The most sizes a table keeps: more distinct sizes than that (a synthetic sweep, a fine
NetPIPE run) are grouped into MOST runs of neighbouring sizes, each its median size and median
ratio, so that a profile's size and a prediction's cost stay bounded (real tables hold at most
117 distinct sizes)."""


@dataclass(frozen=True)
class Measured:
    """Sizes (bytes, rising), at each the log ratio ln(measured median / law), and how far
    that median may be off by the runs' scatter alone (``spread``, in ln: the scatter of the
    medians about their own course, :func:`scatter`; empty: none known).

    Inside the sizes the ratio is interpolated in ln(1 + size).  Past either end it fades to 0
    (the law alone) over :meth:`span` doublings, at least one, and at most half a doubling's
    worth of ln per doubling, so that no larger message comes out faster where the law itself
    grows by √2 or more a doubling (a bandwidth-bound size)."""

    sizes: tuple[float, ...]
    log_ratio: tuple[float, ...]
    spread: tuple[float, ...] = ()

    @property
    def ends(self) -> tuple[float, float]:
        """The smallest and largest size."""
        return self.sizes[0], self.sizes[-1]

    @functools.cached_property
    def _x(self) -> FloatArray:
        return np.log1p(np.asarray(self.sizes, dtype=np.float64))

    def span(self, ratio: float) -> float:
        """Doublings over which an end's ``ratio`` fades to 0."""
        return max(1.0, 2.0 * abs(ratio) / math.log(2.0))

    def _at(self, nbytes: ArrayLike, values: tuple[float, ...]) -> FloatArray:
        """``values`` (one per size) at ``nbytes``: interpolated inside, faded outside."""
        m = np.asarray(nbytes, dtype=np.float64)
        x = np.log1p(np.where(np.isfinite(m), np.maximum(m, 0.0), 0.0))
        v = np.interp(x, self._x, values)
        lo, hi = values[0], values[-1]
        past = (x - self._x[-1]) / math.log(2.0)   # doublings past the largest, roughly
        before = (self._x[0] - x) / math.log(2.0)
        fade = np.where(past > 0, np.clip(1.0 - past / self.span(hi), 0.0, 1.0),
                        np.where(before > 0, np.clip(1.0 - before / self.span(lo), 0.0, 1.0),
                                 1.0))
        return np.asarray(np.where(np.isfinite(m), v * fade, 0.0), dtype=np.float64)

    def factor(self, nbytes: ArrayLike) -> FloatArray:
        """exp of the ratio at ``nbytes`` (1: the law alone)."""
        return np.asarray(np.exp(self._at(nbytes, self.log_ratio)), dtype=np.float64)

    def uncertainty(self, nbytes: ArrayLike) -> FloatArray:
        """The ``spread`` at ``nbytes``, interpolated and faded as the ratio is (0 where none
        is known)."""
        if not self.spread:
            return np.zeros_like(np.asarray(nbytes, dtype=np.float64))
        return self._at(nbytes, self.spread)

    @property
    def largest(self) -> float:
        """The largest |ratio|, as a factor (1.0: the law meets every size's median)."""
        return math.exp(max(abs(v) for v in self.log_ratio))

    def to_dict(self) -> dict[str, Any]:
        return {"sizes": list(self.sizes), "log_ratio": list(self.log_ratio),
                "spread": list(self.spread), "source": SOURCE}


def scatter(sizes: FloatArray, ratio: FloatArray, noise: float) -> float:
    """How far one size's median ratio strays from its neighbours', in ln: each inner size's
    against the line through its neighbours' (in ln(1 + size)), whose variance is σ²(1 + w² +
    (1 − w)²) for independent medians; at most ``noise``, the law's own residual scatter (all
    of that when fewer than three sizes, or no noise is known: 0)."""
    cap = noise if math.isfinite(noise) else 0.0
    if len(sizes) < 3:
        return cap
    x = np.log1p(sizes)
    w = (x[1:-1] - x[:-2]) / (x[2:] - x[:-2])
    d = ratio[1:-1] - (ratio[:-2] * (1 - w) + ratio[2:] * w)
    return min(cap, math.sqrt(float(np.mean(d * d / (1 + w * w + (1 - w) ** 2)))))


def measured_of(size: FloatArray, time: FloatArray, law: FloatArray,
                noise: float) -> Measured | None:
    """The ratios of a table (``size``, ``time``, every row) to the law's times there
    (``law``), at most :data:`MOST` of them, and their spread (``noise``: the law's residual
    scatter, ln); None when the law meets every size's median within 10⁻¹², or a ratio is not
    finite (a law of 0 somewhere)."""
    if not size.size:
        return None
    sizes, group = np.unique(size, return_inverse=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = group_median(np.log(time / law), group.astype(np.intp), len(sizes))
    if not np.all(np.isfinite(r)) or np.all(np.abs(r) < 1e-12):
        return None
    if len(sizes) > MOST:   # runs of neighbouring sizes, equal in count
        runs = (np.arange(len(sizes)) * MOST) // len(sizes)
        first, last = sizes[0], sizes[-1]
        sizes = group_median(sizes, runs, MOST)
        sizes[0], sizes[-1] = first, last   # the table still spans the sizes calibrated
        r = group_median(r, runs, MOST)
    sd = np.full(len(sizes), scatter(sizes, r, noise))
    return Measured(tuple(sizes.tolist()), tuple(r.tolist()), tuple(sd.tolist()))
