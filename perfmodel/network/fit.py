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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import FitError, InputError
from perfmodel.measurements import Measurements
from perfmodel.network import models as registry
from perfmodel.network import segments as segments_of
from perfmodel.network.segments import MIN_SIZES_PER_SEGMENT

FloatArray = NDArray[np.float64]
Status = Literal["fitted", "fixed", "selected", "bound", "assumed"]

PACKET_MTUS: tuple[float, ...] = (256, 512, 576, 1024, 1460, 1472, 1500, 2048, 4096, 8192, 9000,
                                  16384, 32768, 65536)
"""Payload sizes tried by the packet model: Ethernet, TCP segment, jumbo and page sizes."""

DISCRETE_WEIGHT = 3
"""Parameters that one searched choice (a breakpoint, an MTU) costs in AIC and BIC.

A choice searched over every gap between sizes fits noise better than one continuous
parameter does, so it is charged more, as penalised change-point methods do.  Measured on
30 seeds of Hockney data, one row per size, 5 % noise (with the Occam margin below): weight 1
keeps Hockney in 25/30 at 24 sizes, weight 3 in 28/30, weight 4 in 29/30; weight 3 keeps the
power to detect a true packet law on sparse data (29/30, against 27/30 at weight 4)."""

MAX_SEGMENTS = 5
_lower = registry.lower_bound


@dataclass(frozen=True)
class Estimate:
    """A parameter value in SI units with its standard error (NaN when not estimable)."""

    name: str
    value: float
    stderr: float
    unit: str
    status: Status = "fitted"
    source: str = ""

    @property
    def rel_stderr(self) -> float:
        return abs(self.stderr / self.value) if self.value else math.inf


class ParamSet:
    """Look-ups over a ``params`` tuple of :class:`Estimate`, shared by the fitted models."""

    params: tuple[Estimate, ...]

    @property
    def values(self) -> dict[str, float]:
        return {p.name: p.value for p in self.params}

    @property
    def fitted_names(self) -> tuple[str, ...]:
        """Parameters with uncertainty: fitted and not held on a bound."""
        return tuple(p.name for p in self.params if p.status == "fitted")

    def estimate(self, name: str) -> Estimate:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True)
class NetworkModel(ParamSet):
    """A point-to-point model with values, covariance and noise: everything to predict from.

    covariance : over the *fitted* parameters, in the order of :attr:`fitted_names`
    noise : standard deviation of the log-ratio residuals, ≈ relative (NaN when no dof)
    size_range : smallest and largest size the model was calibrated on, bytes
    """

    kind: str
    params: tuple[Estimate, ...]
    covariance: FloatArray
    noise: float
    dof: int
    size_range: tuple[float, float]

    def time(self, nbytes: ArrayLike) -> FloatArray:
        """One-way time in seconds at ``nbytes``."""
        return registry.evaluate(self.kind, nbytes, self.values)


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


# --- derived quantities ------------------------------------------------------------------

def _combine(model: NetworkModel, grad: Mapping[str, float]) -> float:
    """Standard error of a function of the parameters from its gradient (delta method)."""
    names = model.fitted_names
    g = np.array([grad.get(n, 0.0) for n in names])
    if not names or not np.any(g):
        return math.nan
    var = float(g @ model.covariance @ g)
    return math.sqrt(var) if var >= 0 else math.nan


DERIVED_LABELS = {"r_inf": "r∞ (= β)", "n_half": "n½ (= αβ)", "L+2o": "L + 2o", "1/G": "1/G"}
"""How tables name the quantities :func:`derived_quantities` gives."""


def derived_quantities(model: NetworkModel) -> tuple[Estimate, ...]:
    v = model.values
    if model.kind == "hockney":
        a, b = v["alpha"], v["beta"]
        return (
            Estimate("r_inf", b, model.estimate("beta").stderr, "B/s", "fitted"),
            Estimate("n_half", a * b, _combine(model, {"alpha": b, "beta": a}), "B", "fitted"),
        )
    if model.kind == "loggp":
        L, o, G = v["L"], v["o"], v["G"]
        out = [Estimate("L+2o", L + 2 * o, _combine(model, {"L": 1.0, "o": 2.0}), "s")]
        if G > 0:
            out.append(Estimate("1/G", 1 / G, _combine(model, {"G": -1 / G**2}), "B/s"))
        return tuple(out)
    return ()


# --- linear first guesses ------------------------------------------------------------------

NNLS_ROWS = 4096
"""Rows above which :func:`_nnls_rel` first reduces its tall system to a square one.  SciPy's
solver (1.17) takes 0.3 ms on 10⁴ rows but 70 ms from 2·10⁴ on, and the packet fit calls it
17 times; real tables, of at most a few hundred rows, are solved directly as before."""


def _nnls_rel(design: FloatArray, y: FloatArray) -> tuple[FloatArray, float]:
    """Non-negative x minimising Σ((A x)/y − 1)²; returns x and the residual sum of squares.

    Above NNLS_ROWS rows, with A/y = QR (R square), the same x minimises ‖R x − Qᵀ1‖², since
    the two sums differ by a constant: the solver then sees as many rows as columns.
    """
    from perfmodel.leastsq import nnls

    a = design / y[:, None]
    ones = np.ones_like(y)
    if len(y) <= NNLS_ROWS:
        x, norm = nnls(a, ones)
        return x, float(norm) ** 2
    q, r = np.linalg.qr(a)
    x, _ = nnls(r, q.T @ ones)
    left = a @ x - ones
    return x, float(left @ left)


def _bandwidth_from_gap(gap: float, m: FloatArray, y: FloatArray) -> float:
    """1/gap, or when the data show no size dependence a bandwidth far above what they probe."""
    if gap > 0:
        return 1.0 / gap
    return float(max(m.max(), 1.0) / y.min() * 1e3)


def _packet_design(m: FloatArray, mtu: float) -> FloatArray:
    """Columns 1, packets, bytes: the packet law is linear in (α, t_pkt, 1/β) for a fixed MTU."""
    return np.column_stack([np.ones_like(m), np.maximum(np.ceil(m / mtu), 1.0), m])


def _guess(kind: str, m: FloatArray, y: FloatArray, fixed: Mapping[str, float],
           mtu: float | None = None) -> dict[str, float]:
    if kind == "packet":
        assert mtu is not None
        x, _ = _nnls_rel(_packet_design(m, mtu), y)
        return {"alpha": x[0], "t_pkt": x[1], "beta": _bandwidth_from_gap(x[2], m, y), "mtu": mtu}
    x, _ = _nnls_rel(np.column_stack([np.ones_like(m), m]), y)
    alpha, gap = float(x[0]), float(x[1])
    if kind == "hockney":
        return {"alpha": alpha, "beta": _bandwidth_from_gap(gap, m, y)}
    o = fixed.get("o", 0.0)
    return {"L": max(alpha + gap - 2 * o, 0.0), "o": o, "G": gap}


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
                         (float(m.min()), float(m.max())))
    k = len(free) + DISCRETE_WEIGHT * k_extra
    return FitResult(model, data, fitted, k, rss, tuple(out_notes))


def _units(params: Sequence[registry.Param]) -> dict[str, str]:
    return {p.name: p.unit for p in params}


# --- one model each ----------------------------------------------------------------------------

def _check_fixed(kind: str, names: Sequence[str], fixed: Mapping[str, float]) -> None:
    for name in fixed:
        if name not in names:
            raise InputError(f"model {kind} has no parameter {name!r}",
                             fix=f"its parameters are {', '.join(names)}")


def fit_model(data: Measurements, kind: str, fixed: Mapping[str, float] | None = None,
              sources: Mapping[str, str] | None = None,
              segments: int | None = None) -> FitResult:
    """Fit one model family to ``data``; ``fixed`` holds parameters not to fit (SI units)."""
    fixed = dict(fixed or {})
    sources = dict(sources or {})
    m, y = data.size, data.time
    if kind == "piecewise":
        return _fit_piecewise(data, fixed, sources, segments)
    params = registry.spec(kind).params
    names = [p.name for p in params]
    _check_fixed(kind, names, fixed)
    units = _units(params)
    notes: list[str] = []
    if kind == "loggp":
        if "o" not in fixed:
            fixed["o"] = 0.0
            sources.setdefault("o", "held at 0: a ping-pong identifies only L + 2o")
        notes.append("a ping-pong identifies only L + 2o; L and o apart need an overhead or "
                     "message-rate measurement (give o with --set o=...)")
    if kind == "packet":
        mtus = [fixed["mtu"]] if "mtu" in fixed else [u for u in PACKET_MTUS if u < m.max()]
        if not mtus:
            raise FitError("no message in the data is larger than one packet",
                           fix="measure sizes above the MTU, or use --model hockney")
        if len(mtus) > 3:  # rank by the linear first guess; refine the three best
            mtus = sorted(mtus, key=lambda u: _nnls_rel(_packet_design(m, u), y)[1])[:3]
        best: FitResult | None = None
        for mtu in mtus:
            init = _guess(kind, m, y, fixed, mtu)
            statuses: dict[str, Status] = {"mtu": "fixed" if "mtu" in fixed else "selected"}
            trial = _least_squares(kind, data, init, {**fixed, "mtu": mtu}, statuses, sources,
                                   units, k_extra=0 if "mtu" in fixed else 1, notes=notes)
            if best is None or trial.rss < best.rss:
                best = trial
        assert best is not None
        return best
    init = _guess(kind, m, y, fixed)
    return _least_squares(kind, data, {n: init[n] for n in names}, fixed, {}, sources, units,
                          notes=notes)


# --- piecewise: segments found by dynamic programming (perfmodel.network.segments) -------

def _fit_piecewise(data: Measurements, fixed: Mapping[str, float], sources: Mapping[str, str],
                   segments: int | None) -> FitResult:
    if fixed:
        raise InputError("the piecewise model takes no fixed parameters",
                         fix="drop --fix, or choose hockney, loggp or packet")
    data = data.sorted_by_size()
    m, y = data.size, data.time
    sizes = np.unique(m)
    most = min(MAX_SEGMENTS, len(sizes) // MIN_SIZES_PER_SEGMENT)
    if most < 2:
        raise FitError(f"{len(sizes)} distinct sizes cannot hold two segments of "
                       f"{MIN_SIZES_PER_SEGMENT}", fix="measure more sizes, or use hockney")
    split, notes = segments_of.searcher(m, y, sizes)
    tries = range(2, most + 1) if segments is None else [segments]
    if segments is not None and not 2 <= segments <= most:
        raise FitError(f"{segments} segments need at least {segments * MIN_SIZES_PER_SEGMENT} "
                       f"distinct sizes; the data have {len(sizes)}",
                       fix="ask for fewer segments or measure more sizes")
    results = []
    for k in tries:
        starts = split(k)
        breaks = [segments_of.between(float(sizes[s - 1]), float(sizes[s])) for s in starts]
        init: dict[str, float] = {}
        seg = np.searchsorted(np.array(breaks), m, side="right")
        for i in range(k):
            mm, yy = m[seg == i], y[seg == i]
            x, _ = _nnls_rel(np.column_stack([np.ones_like(mm), mm]), yy)
            init[f"alpha_{i + 1}"] = float(x[0])
            init[f"beta_{i + 1}"] = _bandwidth_from_gap(float(x[1]), mm, yy)
        bp = {f"breakpoint_{i + 1}": b for i, b in enumerate(breaks)}
        statuses: dict[str, Status] = dict.fromkeys(bp, "selected")
        units = _units(registry.piecewise_params(k))
        try:
            results.append(_least_squares("piecewise", data, {**init, **bp}, bp, statuses,
                                          sources, units, k_extra=k - 1, notes=notes))
        except FitError:
            if segments is not None:
                raise
    if not results:
        raise FitError(f"{len(sizes)} distinct sizes leave no degrees of freedom for two "
                       "segments", fix="measure more sizes, or use hockney")
    return min(results, key=lambda r: r.bic)


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


AUTO_CANDIDATES = ("hockney", "packet", "piecewise")
"""LogGP is left out of auto: on ping-pong data it is the same curve as Hockney."""
MIN_DOF_TO_COMPARE = 2
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
        return Selection(best, tuple(candidates),
                         f"{best.model.kind}: too few points to compare models (comparing "
                         f"needs {MIN_DOF_TO_COMPARE} degrees of freedom left)",
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
                         file=data.source, fix="add measurements at more message sizes, or hold "
                         "parameters held with --set / --spec")
