"""The repetitions behind one point: their median with its spread, and when there are enough.

The interval of the median is distribution-free (order statistics, normal approximation to
the binomial; Conover, *Practical Nonparametric Statistics*): with n sorted samples, the 95 %
interval runs from the j-th to the k-th, j = n/2 − 1.96·√n/2 and k = 1 + n/2 + 1.96·√n/2,
rounded.  Timings are skewed and heavy-tailed (interrupts, the scheduler), so the median and
quartiles say more than a mean and standard deviation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.measure.plan import Rule

Z95 = 1.959963984540054
PROBE = 8
"""Repetitions of a point's first batch, which tells how long one takes."""


@dataclass(frozen=True)
class Summary:
    """One point's samples: median, quartiles, extremes, count and the relative half-width of
    the median's 95 % interval (``inf`` when there are too few samples to bound it)."""

    median: float
    p25: float
    p75: float
    t_min: float
    t_max: float
    n: int
    halfwidth: float


def bound(summary: Summary) -> str:
    """The median's relative 95 % half-width for people: ``±0.8%``, or ``unbounded``."""
    return f"±{summary.halfwidth:.1%}" if math.isfinite(summary.halfwidth) else "unbounded"


def median_interval(samples: ArrayLike) -> tuple[float, float]:
    """The distribution-free 95 % interval of the median of ``samples``.

    >>> median_interval(range(1, 101))
    (40.0, 61.0)
    """
    x = np.sort(np.asarray(samples, dtype=np.float64))
    n = x.size
    if n == 0:
        return math.nan, math.nan
    spread = Z95 * math.sqrt(n) / 2
    j = max(round(n / 2 - spread), 1)
    k = min(round(1 + n / 2 + spread), n)
    return float(x[j - 1]), float(x[k - 1])


def summarise(samples: ArrayLike) -> Summary:
    """Median, quartiles, extremes and the median's relative 95 % half-width."""
    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        raise ValueError("no samples")
    p25, med, p75 = (float(v) for v in np.percentile(x, [25, 50, 75]))
    lo, hi = median_interval(x)
    half = (hi - lo) / (2 * med) if med > 0 and x.size >= 8 else math.inf
    return Summary(med, p25, p75, float(x.min()), float(x.max()), int(x.size), half)


def next_batch(summary: Summary | None, elapsed: float, rule: Rule,
               pace: float | None = None) -> int:
    """Repetitions to time next, 0 when the point is done.

    With ``rule.reps`` fixed, that many at once.  Otherwise a probe first: :data:`PROBE`
    repetitions, or as many of them as fit in the budget at ``pace`` (seconds per repetition,
    from the warm-up), or 1 when the pace is unknown; then up to ``min_reps`` at once; then
    doubling the count.  Each batch is trimmed to ``max_reps`` and to what the time left of
    ``budget`` allows at the pace so far.  (A repetition is never cut short: a point takes at
    least one.)
    """
    if rule.reps is not None:
        return rule.reps if summary is None else max(rule.reps - summary.n, 0)
    if summary is None:
        if pace is None or pace <= 0:
            return 1
        return max(1, min(PROBE, rule.max_reps, int(rule.budget / pace)))
    if settled(summary, rule):
        return 0
    left = rule.budget - elapsed
    if left <= 0 or summary.n >= rule.max_reps:
        return 0
    want = max(summary.n, rule.min_reps - summary.n)
    affordable = int(left * summary.n / elapsed) if elapsed > 0 else want
    return max(min(want, rule.max_reps - summary.n, affordable), 0)


def settled(summary: Summary, rule: Rule) -> bool:
    """The median's 95 % interval within the tolerance, on at least ``min_reps``."""
    return summary.halfwidth <= rule.tolerance and summary.n >= rule.min_reps


def stopped_by(summary: Summary, rule: Rule) -> str:
    """Why the point ended: ``fixed``, ``stable``, or what cut it short (``max reps``,
    ``time budget``), and with fewer than ``min_reps`` said so."""
    if rule.reps is not None:
        return "fixed"
    if settled(summary, rule):
        return "stable"
    if summary.n >= rule.max_reps:
        return "max reps"
    if summary.halfwidth <= rule.tolerance:
        return f"time budget, fewer than {rule.min_reps} reps"
    return "time budget"


def harmonic_mean(times: ArrayLike) -> NDArray[np.float64]:
    """Per column, the harmonic mean over rows: the pairs' one-way times (rows) as one pair's,
    so that pairs × size / result is the aggregate bandwidth Σ size / t_i.

    >>> harmonic_mean([[1.0, 2.0], [3.0, 2.0]]).tolist()
    [1.5, 2.0]
    """
    t = np.atleast_2d(np.asarray(times, dtype=np.float64))
    return np.asarray(t.shape[0] / np.sum(1.0 / t, axis=0), dtype=np.float64)


def slowest_rank(times: ArrayLike) -> NDArray[np.float64]:
    """The row (one rank's repetitions) with the largest median: the ring's slowest rank, as
    IMB's t_max takes the rank with the largest mean.

    >>> slowest_rank([[1.0, 9.0, 1.0], [2.0, 2.0, 2.0]]).tolist()
    [2.0, 2.0, 2.0]
    """
    t = np.atleast_2d(np.asarray(times, dtype=np.float64))
    return np.asarray(t[int(np.argmax(np.median(t, axis=1)))], dtype=np.float64)
