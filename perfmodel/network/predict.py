"""Predictions with intervals from a fitted (or saved) point-to-point model.

Fits minimise log-ratio residuals, so the interval is built for ln T: the parameter
uncertainty (delta method, g·Σ·gᵀ with g = ∂ln T/∂θ over the fitted parameters) plus the
scatter of the calibration data (s², the residual variance), scaled by Student's t at the
fit's degrees of freedom: T·exp(±t·sqrt(g Σ gᵀ + s²)).  It is multiplicative and never
reaches zero or below.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.network import models as registry
from perfmodel.network.fit import NetworkModel
from perfmodel.units import format_line_rate, format_rate, format_size

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Prediction:
    """One-way time and bandwidth at each size, with a two-sided interval at ``level``.

    All arrays have the shape of ``size``.  Interval bounds are NaN when the model carries no
    uncertainty (exactly determined or specified, not fitted); ``extrapolated`` marks sizes
    outside the calibrated range.
    """

    size: FloatArray
    time: FloatArray
    time_lo: FloatArray
    time_hi: FloatArray
    extrapolated: NDArray[np.bool_]
    level: float
    notes: tuple[str, ...] = ()
    """How the interval was made where the fit's own would not do (past the calibrated sizes,
    under a line rate)."""

    @property
    def bandwidth(self) -> FloatArray:
        return _rate(self.size, self.time)

    def to_dict(self) -> dict[str, Any]:
        """One row per size (SI units), with the level of its intervals."""
        from perfmodel.plain import rows

        return {"level": self.level, "notes": list(self.notes),
                "units": {"size": "B", "time": "s", "bandwidth": "B/s"},
                "rows": rows({"size": self.size, "time": self.time, "time_lo": self.time_lo,
                              "time_hi": self.time_hi, "bandwidth": self.bandwidth,
                              "bandwidth_lo": self.bandwidth_lo,
                              "bandwidth_hi": self.bandwidth_hi,
                              "extrapolated": self.extrapolated.astype(bool)})}

    @property
    def bandwidth_lo(self) -> FloatArray:
        return _rate(self.size, self.time_hi)

    @property
    def bandwidth_hi(self) -> FloatArray:
        return _rate(self.size, self.time_lo)


def _rate(size: FloatArray, time: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(size > 0, size / time, np.nan), dtype=np.float64)


def _gradients(at: Callable[[Mapping[str, float]], FloatArray], base: Mapping[str, float],
               names: Sequence[str]) -> FloatArray:
    """∂at/∂θ for each name, by central differences (one-sided where θ − h would go below 0),
    stacked on the last axis."""
    grads = []
    for name in names:
        v = base[name]
        h = abs(v) * 1e-6 if v else 1e-12
        up, down = at({**base, name: v + h}), at({**base, name: max(v - h, 0.0)})
        with np.errstate(invalid="ignore"):
            grads.append((up - down) / (v + h - max(v - h, 0.0)))
    return np.stack(grads, axis=-1)


def why_no_interval(dof: int, noise: float, cov: FloatArray) -> str:
    """Why a model gives no interval, in a user's words (empty when it can give one): nothing
    left to estimate the scatter from is not the same as a covariance the data cannot bound.

    >>> why_no_interval(0, math.nan, np.zeros((0, 0)))
    'its parameters are specified or exactly determined: no scatter left to estimate'
    >>> why_no_interval(3, 0.1, np.array([[1.0, 2.0], [2.0, -1.0]]))  # doctest: +ELLIPSIS
    'its covariance is not positive semi-definite ...: the uncertainty is unknown, not zero'
    >>> why_no_interval(3, 0.1, np.eye(2))
    ''
    """
    if dof <= 0 or not math.isfinite(noise):
        return "its parameters are specified or exactly determined: no scatter left to estimate"
    if cov.size and not np.all(np.isfinite(cov)):
        return ("its covariance is not finite (a parameter the data do not bound): the "
                "uncertainty is unknown, not zero")
    if cov.size and (np.any(np.diag(cov) < 0) or np.min(np.linalg.eigvalsh(
            (cov + cov.T) / 2)) < -1e-12 * max(float(np.max(np.abs(cov))), 1e-300)):
        return ("its covariance is not positive semi-definite (a parameter the data do not "
                "bound): the uncertainty is unknown, not zero")
    return ""


def _usable(dof: int, noise: float, cov: FloatArray) -> bool:
    return dof > 0 and math.isfinite(noise) and (cov.size == 0 or bool(np.all(np.isfinite(cov))))


def log_interval(at: Callable[[Mapping[str, float]], FloatArray], base: Mapping[str, float],
                 names: Sequence[str], cov: FloatArray, dof: int, noise: float,
                 level: float) -> tuple[FloatArray, FloatArray]:
    """A multiplicative ``level`` interval around ``at(base)`` (any positive prediction).

    ``at`` evaluates the prediction at parameter values; ``names`` are the fitted parameters
    that ``cov`` is over.  Delta method on the log: g = ∂ln y/∂θ by central differences (held
    at 0 below), var = g·Σ·gᵀ + noise², half-width t(dof)·√var.  NaN bounds when the fit left
    no degrees of freedom or no finite covariance.
    """
    y = at(base)
    if not _usable(dof, noise, cov):
        return np.full_like(y, math.nan), np.full_like(y, math.nan)
    half = _half_width(at, base, y, names, cov, dof, level, noise=noise, relative=True)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        lo, hi = y * np.exp(-half), y * np.exp(half)
    # a band beyond floating point (a parameter the data do not bound) is no band: NaN
    wild = ~(np.isfinite(hi) & (lo > 0)) & (y > 0)
    return np.where(wild, math.nan, lo), np.where(wild, math.nan, hi)


def linear_interval(at: Callable[[Mapping[str, float]], FloatArray],
                    base: Mapping[str, float], names: Sequence[str], cov: FloatArray, dof: int,
                    noise: float, level: float) -> tuple[FloatArray, FloatArray]:
    """A ``level`` confidence interval y ± t(dof)·√(g·Σ·gᵀ) around ``y = at(base)``, with
    g = ∂y/∂θ: the uncertainty a quantity derived from the model (a speedup, a share, which
    may be 0 or negative) inherits from the fitted constants.  No noise term: it bounds the
    model's value, not a new measurement.  NaN where :func:`log_interval` gives NaN, or where
    ``y`` is not finite."""
    y = at(base)
    nan = np.full_like(y, math.nan)
    if not _usable(dof, noise, cov):
        return nan, nan
    half = _half_width(at, base, y, names, cov, dof, level, noise=0.0, relative=False)
    ok = np.isfinite(y) & np.isfinite(half)
    return np.where(ok, y - half, nan), np.where(ok, y + half, nan)


def _half_width(at: Callable[[Mapping[str, float]], FloatArray], base: Mapping[str, float],
                y: FloatArray, names: Sequence[str], cov: FloatArray, dof: int, level: float,
                *, noise: float, relative: bool) -> FloatArray:
    """t(dof)·√(g·Σ·gᵀ + noise²) around ``y = at(base)``, with g = ∂y/∂θ (``relative``:
    ∂ln y/∂θ, held at 0 where y = 0) by central differences."""
    from scipy.special import stdtrit  # Student's t quantile; scipy.stats is slow to import

    var = np.zeros_like(y)
    if names:
        g = _gradients(at, base, names)
        if relative:
            with np.errstate(divide="ignore", invalid="ignore"):   # a term that is 0 here
                g = np.where((y != 0)[..., None], g / y[..., None], 0.0)
        var = np.einsum("...i,ij,...j->...", g, cov, g)
    return np.asarray(stdtrit(dof, 0.5 + level / 2) * np.sqrt(var + noise**2),
                      dtype=np.float64)


EXTRAPOLATION_K = {0.5: 0.189, 0.68: 0.362, 0.8: 0.508, 0.9: 0.630, 0.95: 0.681, 0.99: 1.044}
"""Past the largest size a law was fitted on, its error grows with the distance: quantiles, by
level, of |ln(measured / predicted)| / √(doublings past that size), over real ping-pong series
each fitted up to 16 KiB, 64 KiB, 256 KiB or 1 MiB and scored from twice the cut up (the tune
part of ``bench/p2p_corpus.py``: 99 cuts, 847 points; ``--calibrate`` prints this table and
says why the square root).  The fit's own interval covered 24 % (cut at 16 KiB) to 74 % (1 MiB)
of those points at 95 %: its parameters' uncertainty says nothing of a protocol or a bandwidth
the data never reached.  Taken again (2026-11-27) once predictions past the table were held
to the table's top incremental rate (:meth:`NetworkModel.time`), and again once a jump inside
the top doubling was paid once (:attr:`NetworkModel.top_rate`)."""


def extrapolation_half(size: FloatArray, largest: float, level: float) -> FloatArray:
    """The half-width in ln T that reaching past ``largest`` (the largest size fitted) adds
    at ``level``: K(level) × √log2(size / largest) above it, 0 at or below it.  K between the
    levels of :data:`EXTRAPOLATION_K` is interpolated on the normal quantile; past 0.99 it grows
    with the normal quantile from there."""
    from statistics import NormalDist

    normal = NormalDist()
    levels = sorted(EXTRAPOLATION_K)
    zs = [normal.inv_cdf(0.5 + q / 2) for q in levels]
    z = normal.inv_cdf(0.5 + level / 2)
    k = float(np.interp(z, zs, [EXTRAPOLATION_K[q] for q in levels]))
    if z > zs[-1]:
        k = EXTRAPOLATION_K[levels[-1]] * z / zs[-1]
    elif z < zs[0]:
        k = EXTRAPOLATION_K[levels[0]] * z / zs[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        past = np.log2(np.asarray(size, dtype=np.float64) / largest)
    return np.asarray(k * np.sqrt(np.where(past > 0, past, 0.0)), dtype=np.float64)


def predict(model: NetworkModel, sizes: ArrayLike, level: float = 0.95,
            ceiling: float | None = None) -> Prediction:
    """Predict the one-way time at ``sizes`` (bytes) with a ``level`` prediction interval.
    Inside the sizes calibrated the time follows the measured table (``model.measured``), the
    law's interval moved with it and joined by the table's own scatter; past the largest size
    calibrated, widened by :func:`extrapolation_half` (below the smallest,
    flagged but not widened: a message's time does not fall below the start-up cost).
    ``ceiling``: a bandwidth no message exceeds (the line rate a profile's fabric was given or
    fitted), which bounds the interval's lower end at size / ceiling."""
    if not 0 < level < 1:
        raise ValueError("level must lie between 0 and 1")
    m = np.atleast_1d(np.asarray(sizes, dtype=np.float64))
    t = model.time(m)
    lo, hi = log_interval(lambda v: registry.evaluate(model.kind, m, v), model.values,
                          model.fitted_names, model.covariance, model.dof, model.noise, level)
    lo_size, hi_size = model.size_range
    extrapolated = (m < lo_size) | (m > hi_size)
    notes: list[str] = []
    if model.measured is not None:  # the law's interval, moved with it to the table and
        from statistics import NormalDist  # widened by what the table's own rows may be off

        law = registry.evaluate(model.kind, m, model.values)
        with np.errstate(divide="ignore", invalid="ignore"):
            held = np.where(law > 0, t / law, 1.0)   # the table's ratio, ends held
        z = NormalDist().inv_cdf(0.5 + level / 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            half = np.sqrt(np.log(hi / lo) ** 2 / 4 + (z * model.measured.uncertainty(m)) ** 2)
            mid = np.sqrt(lo * hi) * held
            lo, hi = mid * np.exp(-half), mid * np.exp(half)
        if np.any(~extrapolated):
            notes.append(f"inside the sizes calibrated ({format_size(lo_size)} … "
                         f"{format_size(hi_size)}) the times follow the measured table: the "
                         f"{model.kind} law times each size's measured ratio, interpolated "
                         f"between sizes (the law alone is off by up to "
                         f"×{model.measured.largest:.2f} there)")
    past = m > hi_size
    span = model.top_span if model.measured is not None and np.any(past) else None
    if span is not None:
        assert model.measured is not None
        rate, first, last, jumped = span
        free = model.law(m[past]) * model.measured.factor(m[past])
        if np.any(free > t[past] * (1 + 1e-9)):
            notes.append(f"past the largest size calibrated ({format_size(hi_size)}) no byte "
                         f"costs more than the table's did from {format_size(first)} to "
                         f"{format_size(last)} ({format_rate(rate)})"
                         + ("; its top doubling jumped, a cost paid once, so the doubling "
                            "below it sets the rate" if jumped else "")
                         + f"; the {model.kind} law alone is slower there (the bound was "
                         "chosen on real series: bench/p2p_corpus.py)")
    wider = extrapolation_half(m, hi_size, level)
    if np.any(wider > 0) and np.any(np.isfinite(hi)):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            half = np.sqrt(np.log(hi / t) ** 2 + wider**2)
            lo, hi = np.where(wider > 0, t * np.exp(-half), lo), \
                np.where(wider > 0, t * np.exp(half), hi)
        one, four = (float(extrapolation_half(np.array([r]), 1.0, level)[0]) for r in (2, 16))
        notes.append(f"past the largest size calibrated ({format_size(hi_size)}) the range widens, "
                     f"×{math.exp(one):.2f} each way at twice it, ×{math.exp(four):.2f} at 16 "
                     "times: how far real ping-pong series strayed from a law fitted below "
                     "them (bench/p2p_corpus.py)")
    if ceiling is not None and ceiling > 0:
        wire = m / ceiling
        if np.any(t < wire):
            notes.append(f"a time below {format_line_rate(ceiling)}'s, the line rate's, is "
                         "raised to it: no message goes faster than the wire")
            t = np.maximum(t, wire)
        capped = np.isfinite(lo) & (lo < wire)
        lo = np.where(capped, wire, lo)
        if np.any(capped):
            notes.append(f"the range's lower end is held at the line rate, "
                         f"{format_line_rate(ceiling)}: no message goes faster")
    return Prediction(m, t, lo, hi, extrapolated, level, tuple(notes))


def predict_on(profile: Any, sizes: ArrayLike, level: float = 0.95) -> Prediction:
    """:func:`predict` on a machine profile's point-to-point law, its interval held under the
    profile's line rate (:func:`line_ceiling`)."""
    return predict(profile.network, sizes, level, line_ceiling(profile))


def line_ceiling(profile: Any) -> float | None:
    """The bandwidth a profile's fabric allows one message at most: its line rate times its
    channels, where the rate was given or fitted (None: no fabric, or an assumed rate)."""
    fab = getattr(profile, "fabric", None)
    if fab is None:
        return None
    rate = next((p for p in fab.params if p.name == "line_rate"), None)
    if rate is None or rate.status == "assumed":
        return None
    return float(rate.value) * float(fab.channels)
