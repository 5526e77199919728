"""What a point-to-point law misses at each size it was calibrated on, kept beside it
(:class:`Measured`, the profile's ``[network.measured]``).

A law of a few parameters smooths over what real ping-pong tables do between protocol
switches (a cache, a copy path, an eager limit per size): on the project's real series the
law alone misses sizes between those it was fitted on by 2.6 % (median; ``bench/p2p_corpus.py``,
tune part), the law held to the measured medians 1.1 %.  So inside the sizes calibrated a
prediction is the law times the measured ratio at that size (the median of its rows over the
law), interpolated in ln(1 + size) between two sizes; outside them, the law alone (carrying the
last ratio on did not help past the table: 21.7 % against 19.3 % on the held-out series).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.network.corrections import group_median

FloatArray = NDArray[np.float64]

SOURCE = ("measured: the median time of each size's rows over the law's, kept so that inside "
          "the sizes calibrated the prediction follows the table (between two sizes, "
          "interpolated in ln(1 + size)); outside them the law alone")


@dataclass(frozen=True)
class Measured:
    """Sizes (bytes, rising), at each the log ratio ln(measured median / law), and how far
    that median may be off by the runs' scatter alone (``spread``, in ln: the table's scatter
    about its own course, :func:`scatter`, over √rows at that size; empty: none known)."""

    sizes: tuple[float, ...]
    log_ratio: tuple[float, ...]
    spread: tuple[float, ...] = ()

    def factor(self, nbytes: ArrayLike) -> FloatArray:
        """exp of the ratio at ``nbytes``: interpolated inside the sizes, 1 outside them."""
        m = np.asarray(nbytes, dtype=np.float64)
        x = np.log1p(np.asarray(self.sizes))
        inside = (m >= self.sizes[0]) & (m <= self.sizes[-1])
        with np.errstate(invalid="ignore"):
            r = np.interp(np.log1p(np.where(inside, m, self.sizes[0])), x, self.log_ratio)
        return np.asarray(np.where(inside, np.exp(r), 1.0), dtype=np.float64)

    def uncertainty(self, nbytes: ArrayLike) -> FloatArray:
        """The ``spread`` at ``nbytes``, interpolated as the ratio is; 0 outside the sizes
        (the law alone there) or where none is known."""
        m = np.asarray(nbytes, dtype=np.float64)
        if not self.spread:
            return np.zeros_like(m)
        inside = (m >= self.sizes[0]) & (m <= self.sizes[-1])
        s = np.interp(np.log1p(np.where(inside, m, self.sizes[0])), np.log1p(self.sizes),
                      self.spread)
        return np.asarray(np.where(inside, s, 0.0), dtype=np.float64)

    @property
    def largest(self) -> float:
        """The largest |ratio|, as a factor (1.0: the law meets every size's median)."""
        return math.exp(max(abs(v) for v in self.log_ratio))

    def to_dict(self) -> dict[str, Any]:
        return {"sizes": list(self.sizes), "log_ratio": list(self.log_ratio),
                "spread": list(self.spread), "source": SOURCE}


def scatter(sizes: FloatArray, ratio: FloatArray, noise: float) -> float:
    """The scatter of one row about the table's own course, in ln: each inner size's ratio
    against the line through its neighbours' (in ln(1 + size)), whose variance is σ²(1 + w² +
    (1 − w)²) for independent rows; at most ``noise``, the law's own residual scatter (all of
    that when fewer than three sizes, or no noise is known: 0)."""
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
    (``law``) and their spread (``noise``: the law's residual scatter, ln); None when the law
    meets every size's median within 10⁻¹²."""
    if not size.size:
        return None
    sizes, group = np.unique(size, return_inverse=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = group_median(np.log(time / law), group.astype(np.intp), len(sizes))
    if not np.all(np.isfinite(r)) or np.all(np.abs(r) < 1e-12):
        return None
    rows = np.bincount(group, minlength=len(sizes))
    sd = scatter(sizes, r, noise) / np.sqrt(rows)
    return Measured(tuple(sizes.tolist()), tuple(r.tolist()), tuple(sd.tolist()))
