"""Fit point-to-point models to measurements.

Residuals are relative because times span orders of magnitude and their noise grows with
them: each fit minimises Σ ln(fitted/measured)², the log ratio being the symmetric form of the
relative error (≈ fitted/measured − 1 when small, without that form's bias of order σ²).
Every parameter is bounded to its physical range (no negative latency, no negative or zero
bandwidth).  Each fit returns a frozen :class:`FitResult` with standard errors from the
covariance, the median and maximum relative error, AIC and BIC; :func:`fit` with
``model="auto"`` chooses by BIC and says why.

Discrete choices learnt from the data (a packet size, piecewise breakpoints) are charged
DISCRETE_WEIGHT parameters each in AIC and BIC, and are reported as *selected*, without a
standard error.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import FitError, InputError
from perfmodel.measurements import MAX_LINK_BANDWIDTH, Measurements
from perfmodel.network import models as registry
from perfmodel.network.measured import Measured, measured_of
from perfmodel.params import Estimate, ParamSet, Status

FloatArray = NDArray[np.float64]

DISCRETE_WEIGHT = 3
"""Parameters that one searched choice (a breakpoint, an MTU) costs in AIC and BIC.

A choice searched over every gap between sizes fits noise better than one continuous
parameter does, so it is charged more, as penalised change-point methods do.  Measured on
30 seeds of Hockney data, one row per size, 5 % noise (with the Occam margin below): weight 1
keeps Hockney in 25/30 at 24 sizes, weight 3 in 28/30, weight 4 in 29/30; weight 3 keeps the
power to detect a true packet law on sparse data (29/30, against 27/30 at weight 4)."""

_lower = registry.lower_bound

JUMP = 0.02
"""How much more than its size a table's time must grow over its top doubling (in ln) to
have jumped there (:attr:`NetworkModel.top_span`): above a table's noise, which passes for a
jump too (2 % noise on 200 Hockney tables: 81 "jumps" with no margin, 42 with this one; every
jump of the real tables in ``bench/p2p_corpus.py`` passes it)."""
RESOLVED = 0.01
"""The least growth in ln of the time over the doubling below a jump whose rate is read: a
rise of less than 1 % gives no rate (a flat doubling would give a rate without bound)."""


@dataclass(frozen=True)
class NetworkModel(ParamSet):
    """A point-to-point model with values, covariance and noise: everything to predict from.

    covariance : over the *fitted* parameters, in the order of :attr:`fitted_names`
    noise : standard deviation of the log-ratio residuals, ≈ relative (NaN when no dof)
    size_range : smallest and largest size the model was calibrated on, bytes
    measured : what the law misses at each size calibrated (:mod:`~perfmodel.network.measured`;
        None for a specification, or a law that meets every size)
    """

    kind: str
    params: tuple[Estimate, ...]
    covariance: FloatArray
    noise: float
    dof: int
    size_range: tuple[float, float]
    measured: Measured | None = None

    def time(self, nbytes: ArrayLike) -> FloatArray:
        """One-way time in seconds at ``nbytes``: the law, held inside the sizes calibrated
        to their measured times (:attr:`measured`).  Past them it is never below the largest
        size's time, nor above it by more than the extra bytes at the table's top incremental
        rate (:attr:`top_rate`, read over its top doubling, or the one below where the top
        jumped): a byte past the table costs no more than those bytes did.  Below them it is
        never above the smallest size's time."""
        t = self.law(nbytes)
        if self.measured is None:
            return t
        held = t * self.measured.factor(nbytes)
        (lo, hi), (first, last) = self.measured.ends, self._end_times
        m = np.asarray(nbytes, dtype=np.float64)
        if self.top_rate is not None:
            held = np.where(m > hi, np.minimum(held, last + (m - hi) / self.top_rate), held)
        held = np.where(m > hi, np.maximum(held, last), held)
        return np.asarray(np.where(m < lo, np.minimum(held, first), held), dtype=np.float64)

    @functools.cached_property
    def _table_times(self) -> FloatArray:
        """The measured table's time at each of its sizes: the law times the measured ratio."""
        assert self.measured is not None
        return np.asarray(self.law(np.asarray(self.measured.sizes, dtype=np.float64))
                          * np.exp(np.asarray(self.measured.log_ratio)), dtype=np.float64)

    @property
    def _end_times(self) -> tuple[float, float]:
        """The measured table's times at its smallest and largest size."""
        return float(self._table_times[0]), float(self._table_times[-1])

    @functools.cached_property
    def top_rate(self) -> float | None:
        """Bytes per second the measured table adds at its top (:attr:`top_span` says over
        which sizes); None where the table does not reach a doubling or its time does not grow
        there."""
        got = self.top_span
        return None if got is None else got[0]

    @functools.cached_property
    def top_span(self) -> tuple[float, float, float, bool] | None:
        """The rate past the table, the sizes it was read between, and whether the top
        doubling jumped.  Read from the largest size at most half the largest up to the
        largest (sizes a doubling apart or more, so that a table of close sizes, NetPIPE's
        n − 3, n, n + 3, does not divide its noise by a few bytes).

        Where the time grew over that doubling by more than the size did, by more than
        :data:`JUMP` in ln, it jumped there, as at a switch to a rendezvous protocol or a new
        packet: a cost paid once, not by every byte.  Then the doubling below it gives the
        rate, when it added bytes faster and its own time grew by more than :data:`RESOLVED`
        (a rise a timer and repeated runs resolve)."""
        assert self.measured is not None
        sizes, times = np.asarray(self.measured.sizes, dtype=np.float64), self._table_times
        last = len(sizes) - 1
        mid = _half_below(sizes, times, last)
        if mid is None:
            return None
        rate = float(sizes[last] - sizes[mid]) / float(times[last] - times[mid])
        grew = math.log(times[last] / times[mid]) - math.log(sizes[last] / sizes[mid])
        first = _half_below(sizes, times, mid) if grew > JUMP else None
        if first is not None and math.log(times[mid] / times[first]) > RESOLVED:
            before = float(sizes[mid] - sizes[first]) / float(times[mid] - times[first])
            if before > rate:
                return before, float(sizes[first]), float(sizes[mid]), True
        return rate, float(sizes[mid]), float(sizes[last]), False

    def law(self, nbytes: ArrayLike) -> FloatArray:
        """The law alone at ``nbytes``, one way, seconds."""
        return registry.evaluate(self.kind, nbytes, self.values)


def _half_below(sizes: FloatArray, times: FloatArray, top: int) -> int | None:
    """The index of the largest size at most half ``sizes[top]``; None where there is no such
    size or the time does not grow from it to ``top``."""
    below = np.flatnonzero(sizes <= sizes[top] / 2)
    if not below.size or not times[top] > times[below[-1]]:
        return None
    return int(below[-1])


@dataclass(frozen=True)
class FitResult:
    """One model fitted to one set of measurements."""

    model: NetworkModel
    data: Measurements
    fitted: FloatArray
    k: float
    rss: float
    notes: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return len(self.data)

    @property
    def rel_err(self) -> FloatArray:
        """``fitted / measured − 1`` for every point."""
        return np.asarray(self.fitted / self.data.time - 1.0, dtype=np.float64)

    @property
    def median_rel_err(self) -> float:
        return float(np.median(np.abs(self.rel_err)))

    @property
    def max_rel_err(self) -> float:
        return float(np.max(np.abs(self.rel_err)))

    @property
    def aic(self) -> float:
        return _information(self.rss, self.n, self.k, 2.0)

    @property
    def bic(self) -> float:
        return _information(self.rss, self.n, self.k, math.log(self.n))

    def worst(self, count: int = 3) -> NDArray[np.intp]:
        """Indices of the points the model fits worst, worst first."""
        return np.argsort(-np.abs(self.rel_err), kind="stable")[:count]

    @property
    def derived(self) -> tuple[Estimate, ...]:
        """Quantities people quote: r∞ and n½ (Hockney), L + 2o and 1/G (LogGP)."""
        return derived_quantities(self.model)


@dataclass(frozen=True)
class Selection:
    """The chosen fit, every candidate tried, and why the choice was made."""

    best: FitResult
    candidates: tuple[FitResult, ...]
    reason: str
    notes: tuple[str, ...] = field(default=())


def fit_stats(fitted: FloatArray, measured: FloatArray, rss: float, k: int) -> dict[str, float]:
    """A fit's summary for profiles and reports: rows, varied parameters, RSS, and the median
    and largest |relative error| of the fitted values."""
    rel = np.abs(np.asarray(fitted) / np.asarray(measured) - 1.0)
    return {"n": int(rel.size), "k": k, "rss": rss, "median_rel_err": float(np.median(rel)),
            "max_rel_err": float(np.max(rel))}


def log_ratio(fitted: FloatArray, measured: FloatArray) -> FloatArray:
    """The residual every fit minimises: ln(fitted / measured), a symmetric relative error."""
    return np.asarray(np.log(np.maximum(fitted, 1e-300) / measured), dtype=np.float64)


def _information(rss: float, n: int, k: float, penalty: float) -> float:
    """Gaussian information criterion on log-ratio residuals: n·ln(RSS/n) + penalty·k."""
    return n * math.log(max(rss, 1e-300) / n) + penalty * k


def derived_quantities(model: NetworkModel) -> tuple[Estimate, ...]:
    """What people quote besides ``model``'s parameters, as its law derives them."""
    return registry.spec(model.kind).derived(model)


DERIVED_LABELS = {"r_inf": "r∞ (= β)", "n_half": "n½ (= αβ)", "L+2o": "L + 2o", "1/G": "1/G"}
"""How tables name the quantities :func:`derived_quantities` gives."""


# --- the least-squares core ------------------------------------------------------------------

def _minimize(kind: str, m: FloatArray, y: FloatArray, base: Mapping[str, float],
              free: Sequence[str], scale: Mapping[str, float]) -> tuple[dict[str, float],
                                                                        FloatArray | None]:
    """Levenberg–Marquardt, as lmfit runs it (:func:`perfmodel.leastsq.leastsq`), on
    parameters scaled to order one.

    Returns the values and the unscaled inverse curvature (JᵀJ)⁻¹ in SI units, or None when
    it is singular.  Non-finite residuals mean the input is outside any physical range.
    """
    from perfmodel.leastsq import leastsq

    def values_of(x: FloatArray) -> dict[str, float]:
        return {**base, **{n: float(v) * scale[n] for n, v in zip(free, x, strict=True)}}

    def residual(x: FloatArray) -> FloatArray:
        r = log_ratio(registry.evaluate(kind, m, values_of(x)), y)
        if not np.all(np.isfinite(r)):
            raise FitError(f"the {kind} fit met non-finite values",
                           fix="check that sizes and times are in a physical range and that "
                               "the column units are right")
        return r

    start = np.array([base[n] / scale[n] for n in free])
    lower = np.array([_lower(n) / scale[n] for n in free])
    x, covar = leastsq(residual, start, lower)
    if covar is None:
        return values_of(x), None
    d = np.array([scale[k] for k in free])
    return values_of(x), covar * np.outer(d, d)


def _least_squares(kind: str, data: Measurements, init: Mapping[str, float],
                   fixed: Mapping[str, float], statuses: Mapping[str, Status],
                   sources: Mapping[str, str], units: Mapping[str, str], k_extra: int = 0,
                   notes: Sequence[str] = ()) -> FitResult:
    """Refine ``init`` and estimate the covariance.

    A parameter that ends on its physical bound (a latency of 0, say) is held there and the
    rest refitted, so that it does not hide the others' uncertainty; it is reported with
    status ``bound``.  The covariance is (JᵀJ)⁻¹·RSS/dof with dof = n − free − discrete
    choices, the same dof that the noise and the intervals use.
    """
    m, y = data.size, data.time
    free = [n for n in init if n not in fixed and statuses.get(n, "fitted") == "fitted"]
    npts = len(m)
    dof = npts - len(free) - k_extra
    if dof < 0:
        raise FitError(f"{kind} has {len(free) + k_extra} parameters to learn from "
                       f"{npts} point(s)", fix="measure more sizes, or choose a simpler model")
    base = {**init, **fixed}
    scale = {n: abs(init[n]) if init[n] else 1.0 for n in free}
    final, inv = (_minimize(kind, m, y, base, free, scale) if free else (dict(base), None))
    bound = [n for n in free if final[n] <= _lower(n) + 1e-6 * scale[n]]
    varied = [n for n in free if n not in bound]
    if bound:
        held = {**final, **{n: _lower(n) for n in bound}}
        final, inv = (_minimize(kind, m, y, held, varied, scale) if varied else (held, None))
    fitted = registry.evaluate(kind, m, final)
    rss = float(np.sum(log_ratio(fitted, y) ** 2))
    noise = math.sqrt(rss / dof) if dof > 0 else math.nan
    cov = np.full((len(varied), len(varied)), math.nan)
    if inv is not None and dof > 0:
        cov = inv * (rss / dof)
    errs = np.sqrt(np.clip(np.diag(cov), 0, None))
    out_notes = list(notes)
    estimates: list[Estimate] = []
    for name, value in final.items():
        if name in varied:
            err = float(errs[varied.index(name)])
            est = Estimate(name, float(value), err, units[name], "fitted")
            if not math.isfinite(err) and dof > 0:
                out_notes.append(f"{name} is not determined by the data (no standard error)")
            elif value > 0 and err > abs(value):
                out_notes.append(f"{name} is poorly determined by the data (±{err / value:.0%})")
            if units[name] == "B/s" and value > MAX_LINK_BANDWIDTH:
                out_notes.append(f"{name} ran past {MAX_LINK_BANDWIDTH / 1e12:g} TB/s, which "
                                 "no link reaches: the data say that the time does not grow "
                                 "with size there (read it as flat, not as a bandwidth)")
        elif name in bound:
            est = Estimate(name, float(value), math.nan, units[name], "bound")
            out_notes.append(f"{name} ends on its physical bound ({value:g}): the data cannot "
                             "tell it from that bound, so it is held there")
        else:
            est = Estimate(name, float(value), math.nan, units[name],
                           statuses.get(name, "fixed"), sources.get(name, ""))
        estimates.append(est)
    if free and dof == 0:
        out_notes.append(f"{len(free)} free parameter(s) from {npts} point(s): exactly "
                         "determined, no uncertainty can be estimated")
    model = NetworkModel(kind, tuple(estimates), cov, noise, dof,
                         (float(m.min()), float(m.max())), measured_of(m, y, fitted, noise))
    k = len(free) + DISCRETE_WEIGHT * k_extra
    return FitResult(model, data, fitted, k, rss, tuple(out_notes))


# --- one law: its trials, each refined, the best kept ----------------------------------------

def fit_model(data: Measurements, kind: str, fixed: Mapping[str, float] | None = None,
              sources: Mapping[str, str] | None = None,
              segments: int | None = None) -> FitResult:
    """Fit one law to ``data``; ``fixed`` holds parameters not to fit (SI units).  The law
    (:data:`~perfmodel.network.models.MODELS`) says where its fit starts (one trial, or one per
    discrete choice it searches: a packet size, a number of segments) and which trial wins."""
    law = registry.spec(kind)
    fixed = dict(fixed or {})
    sources = dict(sources or {})
    notes = law.prepare(fixed, sources)
    if law.by_size:
        data = data.sorted_by_size()
    m, y = data.size, data.time
    results = []
    for trial in law.trials(m, y, fixed, segments):
        units = {p.name: p.unit for p in law.param_list(trial.init)}
        try:
            results.append(_least_squares(kind, data, trial.init, {**fixed, **trial.held},
                                          trial.statuses, sources, units, trial.choices,
                                          (*notes, *trial.notes)))
        except FitError:
            if not law.skip_failed or segments is not None:
                raise
    if not results:
        raise law.none_fitted(m)
    return min(results, key=lambda r: r.bic if law.best_by == "bic" else r.rss)


# --- selection ------------------------------------------------------------------------------------

def _evidence(delta: float) -> str:
    """Kass & Raftery's reading of a BIC difference."""
    if delta > 10:
        return "very strong"
    if delta > 6:
        return "strong"
    if delta > 2:
        return "positive"
    return "weak"


AUTO_CANDIDATES = tuple(name for name, law in registry.MODELS.items() if law.auto)
"""The laws ``auto`` compares (LogGP is left out: on ping-pong data it is Hockney's curve)."""
MIN_DOF_TO_COMPARE = 2
_WORDS = {2: "two", 3: "three"}
OCCAM_MARGIN = 2.0
"""A BIC lead smaller than this is 'weak evidence' (Kass & Raftery): keep the simpler model."""


def fit(data: Measurements, model: str = "auto", fixed: Mapping[str, float] | None = None,
        sources: Mapping[str, str] | None = None) -> Selection:
    """Fit ``model`` (or every candidate, for ``auto``) and return the selection."""
    if model != registry.AUTO:
        registry.spec(model)
        result = fit_model(data, model, fixed, sources)
        return Selection(result, (result,), f"{model} as asked")
    candidates: list[FitResult] = []
    skipped: list[str] = []
    for kind in AUTO_CANDIDATES:
        names = {p.name for p in registry.param_list(kind)}
        if fixed and not set(fixed) <= names:
            skipped.append(f"{kind} (has no {', '.join(sorted(set(fixed) - names))})")
            continue
        try:
            result = fit_model(data, kind, fixed, sources)
        except FitError as exc:
            skipped.append(f"{kind} ({exc.what})")
            continue
        candidates.append(result)
    if not candidates:
        raise FitError("no model could be fitted: " + "; ".join(skipped),
                       fix="give more points or choose --model")
    comparable = [c for c in candidates if c.model.dof >= MIN_DOF_TO_COMPARE]
    if not comparable:  # too few points to compare: the simplest model that fits
        best = min(candidates, key=lambda r: r.k)
        n = data.distinct_sizes
        alone = (f"; {_WORDS.get(n, str(n))} message sizes determine no other law"
                 if len(candidates) == 1 else "")
        return Selection(best, tuple(candidates),
                         f"{best.model.kind}: too few points to compare models (comparing "
                         f"needs {MIN_DOF_TO_COMPARE} degrees of freedom left{alone})",
                         tuple(f"not compared: {s}" for s in skipped))
    skipped += [f"{c.model.kind} (leaves {c.model.dof} degrees of freedom; comparing needs "
                f"{MIN_DOF_TO_COMPARE})" for c in candidates if c not in comparable]
    candidates = comparable
    ranked = sorted(candidates, key=lambda r: r.bic)  # stable: registry order breaks ties
    # Occam: a simpler model within OCCAM_MARGIN of the lowest BIC is preferred to it
    near = [r for r in ranked if r.bic - ranked[0].bic < OCCAM_MARGIN]
    best = min(near, key=lambda r: r.k)
    ranked = [best] + [r for r in ranked if r is not best]
    reason = f"lowest BIC: {best.model.kind} ({best.bic:.1f})"
    if len(ranked) > 1:
        nxt = ranked[1]
        delta = nxt.bic - best.bic
        if delta >= 0:
            reason += (f"; next {nxt.model.kind} is {delta:.1f} higher ({_evidence(delta)} "
                       "evidence)")
        else:
            reason = (f"simplest within {OCCAM_MARGIN:g} of the lowest BIC: {best.model.kind} "
                      f"({best.bic:.1f}); {nxt.model.kind} is {-delta:.1f} lower, too little "
                      "to prefer it")
    notes = ["loggp is not a separate candidate: on ping-pong data it is Hockney's curve "
             "(L + 2o − G = α, G = 1/β)"]
    if skipped:
        notes.append("not fitted: " + "; ".join(skipped))
    return Selection(best, tuple(candidates), reason, tuple(notes))


def check_enough(data: Measurements, minimum: int = 3) -> None:
    """Refuse data with fewer distinct sizes than a fit needs, naming the file."""
    if data.distinct_sizes < minimum:
        raise InputError(f"{len(data)} point(s) at {data.distinct_sizes} distinct size(s); "
                         f"this fit needs at least {minimum} distinct sizes",
                         file=data.source, line=data.line[0] if len(data) else None,
                         fix="add measurements at more message sizes, or hold parameters "
                         "with --set / --spec")
