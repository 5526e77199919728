"""Fit an application model's unknown constants to measured run times, and predict.

Timings are rows of (processes, part, seconds); a row whose part is empty is a whole run (the
sum of the parts).  The residuals are log ratios, as for the network fits, so a 1-second part
and a 300-second part weigh alike; constants stay at or above their lower bound (0 unless the
model says).  The fit is started from several scalings, since terms such as ``work / p`` and
``tree * log2(p)`` differ by orders of magnitude; each start is SciPy's trust-region least
squares as lmfit calls it (:func:`least_squares`).  When the times are linear in the fitted
constants (every built-in model whose constants stand outside its machine calls), the formulas
are evaluated once per fit, as a matrix over the timing rows with an exact Jacobian
(:class:`LinearRows`), instead of at every step of every start.  With degrees of freedom to
spare, the fit carries a covariance and predictions carry intervals; with none, it says so and
claims none.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.apps.model import AppModel, free_params
from perfmodel.apps.timings import Timings
from perfmodel.apps.trust import Extrapolation, problem_sizes
from perfmodel.errors import FitError, InputError, PerfModelError
from perfmodel.machine import Machine, message_span
from perfmodel.network.fit import fit_stats, log_ratio
from perfmodel.network.predict import log_interval
from perfmodel.params import Estimate, ParamSet

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class AppFit(ParamSet):
    """A model with its constants: fitted ones with standard errors, given ones as given."""

    model: AppModel
    params: tuple[Estimate, ...]
    covariance: FloatArray = field(default_factory=lambda: np.zeros((0, 0)))
    dof: int = 0
    noise: float = math.nan
    processes: tuple[float, float] = (1.0, math.inf)
    fit: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    machine: Machine | None = None
    sizes: tuple[float, float] = (0.0, math.inf)
    """The problem sizes n the constants were fitted on (all, when nothing was fitted or the
    model's time does not depend on n)."""


@dataclass(frozen=True)
class AppPrediction:
    """Times over process counts: per part, and the run's total, with ``level`` intervals
    (NaN when the fit has no uncertainty to give)."""

    processes: FloatArray
    parts: Mapping[str, FloatArray]
    total: FloatArray
    total_lo: FloatArray
    total_hi: FloatArray
    parts_lo: Mapping[str, FloatArray]
    parts_hi: Mapping[str, FloatArray]
    outside: Extrapolation
    """Which rows leave the node counts or problem sizes fitted on, or the message sizes the
    machine profile was calibrated on."""
    level: float

    @property
    def extrapolated(self) -> NDArray[np.bool_]:
        return self.outside.any


def _rows(model: AppModel, processes: ArrayLike, times: ArrayLike,
          parts: Sequence[str] | None) -> tuple[FloatArray, FloatArray, list[str]]:
    p = np.asarray(processes, dtype=np.float64)
    t = np.asarray(times, dtype=np.float64)
    labels = list(parts) if parts is not None else [""] * len(p)
    if not (len(p) == len(t) == len(labels)):
        raise ValueError("processes, times and parts must have the same length")
    known = {part.name for part in model.parts}
    odd = sorted({x for x in labels if x and x not in known})
    if odd:
        raise InputError(f"model {model.name} has no part {odd[0]!r}",
                         fix=f"its parts are {', '.join(sorted(known))} (empty: whole run)")
    if np.any(~np.isfinite(t) | (t <= 0)) or np.any(~np.isfinite(p) | (p < 1)):
        raise InputError("timings need positive times and process counts of at least 1",
                         fix="check the timing rows")
    return p, t, labels


def _predicted(model: AppModel, values: Mapping[str, float], p: FloatArray,
               labels: Sequence[str], machine: Machine | None,
               n: FloatArray | None = None) -> FloatArray:
    per = model.part_times(p, values, machine, n)
    total = sum(per.values(), np.zeros(p.shape))
    return np.array([total[i] if not lab else per[lab][i] for i, lab in enumerate(labels)])


def timing_inputs(model: AppModel, rows: Timings, given: Mapping[str, float]
                  ) -> tuple[FloatArray, list[float] | None]:
    """The seconds and problem sizes (a ``size`` column, else None: the model's) a fit takes
    from timing rows; measured Mflop/s become seconds through the model's flop count at each
    row's size, each checked as a measured time would be."""
    sizes = None
    if "size" in rows.labels:
        try:
            sizes = [float(x) for x in rows.labels["size"]]
        except ValueError:
            raise InputError("the size column is not numeric", file=rows.source,
                             fix="give problem sizes as plain numbers") from None
    if rows.measure != "mflops":
        return rows.times, sizes
    if any(rows.parts):
        line = rows.lines[next(i for i, part in enumerate(rows.parts) if part)]
        raise InputError("a rate (Mflop/s) is for a whole run, not a part", file=rows.source,
                         line=line, fix="give parts as times (time_s), or drop the part column")
    flops = model.flop_count(rows.processes, sizes, given)
    with np.errstate(all="ignore"):
        times = flops / (rows.times * 1e6)
    for i, t in enumerate(times):
        if not (np.isfinite(t) and 0 < t < 1e9):
            raise InputError(f"{rows.times[i]:g} Mflop/s is {t:g} s of model {model.name}'s "
                             f"{flops[i]:g} flops", file=rows.source, line=rows.lines[i],
                             fix="a run takes more than 0 and less than 1e9 s: check the rate, "
                                 "the size and the model's flop count")
    return np.asarray(times, dtype=np.float64), sizes


def _informative(model: AppModel, values: Mapping[str, float], varied: Sequence[str],
                 p: FloatArray, labels: Sequence[str], machine: Machine | None,
                 sizes: FloatArray | None) -> int:
    """Timing rows whose prediction moves with some varied constant: a row no constant reaches
    (one process, where waiting and redundant work vanish) fits exactly whatever the
    constants, so it is no degree of freedom."""
    base = _predicted(model, values, p, labels, machine, sizes)
    moved = np.zeros(base.shape, dtype=bool)
    for name in varied:
        bumped = {**values, name: values[name] * 1.5 if values[name] else 1.0}
        with np.errstate(all="ignore"):
            other = _predicted(model, bumped, p, labels, machine, sizes)
        moved |= ~np.isclose(other, base, rtol=1e-9, atol=0.0)
    return int(np.count_nonzero(moved))


COLLINEAR = 1e-6
"""Relative singular value of the fit's Jacobian (in logs) below which a combination of the
constants is taken as undetermined by the timings."""


def _unidentified(model: AppModel, values: Mapping[str, float], varied: Sequence[str],
                  p: FloatArray, labels: Sequence[str], machine: Machine | None,
                  sizes: FloatArray | None) -> list[str]:
    """The constants of a combination the timings do not determine (``w / p`` and ``s`` from
    runs at one p; ``a / p`` and ``b / p`` anywhere), or [] when each is determined: from the
    singular values of d ln T / d ln c over the rows, at the fitted values."""
    if len(varied) < 2:
        return []
    base = _predicted(model, values, p, labels, machine, sizes)
    cols = []
    for name in varied:
        up = {**values, name: values[name] * (1 + 1e-4)}
        down = {**values, name: values[name] * (1 - 1e-4)}
        with np.errstate(all="ignore"):
            d = (_predicted(model, up, p, labels, machine, sizes)
                 - _predicted(model, down, p, labels, machine, sizes)) / (2e-4 * base)
        cols.append(np.where(np.isfinite(d), d, 0.0))
    jac = np.column_stack(cols)
    norms = np.linalg.norm(jac, axis=0)
    if np.any(norms == 0):   # a constant no row moves with
        return [n for n, z in zip(varied, norms == 0, strict=True) if z]
    # unit columns: a constant of small effect is still determined, unless others mimic it
    _, sv, vt = np.linalg.svd(jac / norms, full_matrices=False)
    if sv[-1] > COLLINEAR * sv[0]:
        return []
    null = np.abs(vt[-1])
    return [n for n, w in zip(varied, null, strict=True) if w > 0.1 * null.max()]


class _Exhausted(Exception):
    """The evaluations of one least-squares fit ran out."""


def least_squares(residual: Callable[[FloatArray], FloatArray], x0: FloatArray,
                  lower: FloatArray, jacobian: Callable[[FloatArray], FloatArray] | None = None
                  ) -> tuple[FloatArray, FloatArray | None]:
    """Minimise Σ residual(x)² over x ≥ ``lower`` from ``x0``: SciPy's trust-region-reflective
    method, as lmfit's ``least_squares`` method calls it (the same options, the same limit of
    2000 (k + 1) evaluations, x clipped to its bounds: the same x, bit for bit), without
    lmfit's parameter objects around each evaluation.  The Jacobian is ``jacobian(x)`` when
    given, else finite differences (lmfit's).  Returns x and (JᵀJ)⁻¹ there, None when JᵀJ is
    singular or the evaluations ran out.

    >>> x, cov = least_squares(lambda x: np.array([x[0] - 1, x[0] - 3]), np.array([0.5]),
    ...                        np.array([0.0]))
    >>> bool(abs(x[0] - 2.0) < 1e-6), bool(abs(cov[0, 0] - 0.5) < 1e-5)   # (JᵀJ)⁻¹ = 1/2
    (True, True)
    """
    from scipy.optimize import least_squares as trf

    limit = 2000 * (len(x0) + 1)
    calls, last = 0, x0

    def counted(x: FloatArray) -> FloatArray:
        nonlocal calls, last
        calls += 1
        last = x
        if calls > limit:
            raise _Exhausted
        return residual(np.maximum(x, lower))

    try:
        done = trf(counted, x0, bounds=(lower, np.full(len(x0), np.inf)),
                   jac="2-point" if jacobian is None else jacobian,
                   method="trf", ftol=1e-08, xtol=1e-08, gtol=1e-08, x_scale=1.0,
                   loss="linear", f_scale=1.0, diff_step=None, tr_solver=None, tr_options={},
                   jac_sparsity=None, max_nfev=2 * limit, verbose=0)
    except _Exhausted:
        return np.maximum(last, lower), None
    try:
        covar = np.linalg.inv(done.jac.T @ done.jac)
    except np.linalg.LinAlgError:
        covar = None
    return np.maximum(done.x, lower), covar


@dataclass(frozen=True)
class LinearRows:
    """A model's time at fixed timing rows when it is linear in the fitted constants c:
    ``offset + basis @ c`` (seconds), the formulas evaluated once instead of at every step of
    a fit."""

    offset: FloatArray
    basis: FloatArray
    """Shape (rows, constants)."""

    def times(self, c: FloatArray) -> FloatArray:
        return np.asarray(self.offset + self.basis @ c, dtype=np.float64)

    def log_jacobian(self, c: FloatArray) -> FloatArray:
        """d ln T / d c at every row: the basis over the time (0 where the time is held at
        the floor of :func:`~perfmodel.network.fit.log_ratio`)."""
        y = self.times(c)[:, None]
        with np.errstate(all="ignore"):
            return np.asarray(np.where(y > 1e-300, self.basis / y, 0.0), dtype=np.float64)


def linear_in(model: AppModel, names: Sequence[str]) -> bool:
    """Whether every term of the model's time is linear in the constants ``names``: no
    term's derivative in one of them holds any of them (SymPy, on the formulas as written; a
    constant inside a machine call, a power, a min or a max is not linear).

    >>> from perfmodel.apps.model_file import load
    >>> linear_in(load("physical-optics"), ["work_I", "serial_II", "parallel_III"])
    True
    """
    key = (id(model), frozenset(names))
    if key not in _LINEAR or _LINEAR[key][0] is not model:   # a report fits one model often
        _LINEAR[key] = (model, _linear_in(model, names))
    return _LINEAR[key][1]


_LINEAR: dict[tuple[int, frozenset[str]], tuple[AppModel, bool]] = {}
"""linear_in's answers by model object (kept with it, so its id stays its own)."""


def _linear_in(model: AppModel, names: Sequence[str]) -> bool:
    import sympy

    wanted = set(names)
    for (part, _), expr in model.symbolic.items():
        if not part:   # the flop count, not a time
            continue
        mine = {s for s in expr.free_symbols if s.name in wanted}
        for sym in mine:
            d = sympy.diff(expr, sym)
            if d.free_symbols & mine or d.has(sympy.Derivative, sympy.Subs):
                return False
    return True


def linear_rows(model: AppModel, free: Sequence[str], base: Mapping[str, float],
                lower: FloatArray, p: FloatArray, labels: Sequence[str],
                machine: Machine | None, sizes: FloatArray | None,
                check: FloatArray) -> LinearRows | None:
    """The rows' times as :class:`LinearRows` in the ``free`` constants (the others at
    ``base``), or None when they are not that: a term not linear in them (:func:`linear_in`),
    or one that could turn negative for constants at or above ``lower`` (the formulas clip a
    term below zero, which no matrix does).  Checked against the formulas at ``check``."""
    if np.any(lower < 0) or not linear_in(model, free):
        return None
    zero = {**base, **{n: 0.0 for n in free}}
    units = [{**zero, n: 1.0} for n in free]
    try:
        with np.errstate(all="ignore"):
            at0 = model.evaluate(p, zero, machine, sizes)
            for values in units:   # each term: ≥ 0 at zero, and no constant takes from it
                at1 = model.evaluate(p, values, machine, sizes)
                for key, v in at0.items():
                    if key[0] and not (np.all(np.isfinite(v) & (v >= 0))
                                       and np.all(np.isfinite(at1[key]) & (at1[key] >= v))):
                        return None
            offset = _predicted(model, zero, p, labels, machine, sizes)
            basis = np.column_stack([_predicted(model, v, p, labels, machine, sizes) - offset
                                     for v in units])
            rows = LinearRows(offset, basis)
            exact = _predicted(model, {**base, **dict(zip(free, check.tolist(), strict=True))},
                               p, labels, machine, sizes)
    except PerfModelError:   # not at these constants: the fit through the formulas says why
        return None
    if not np.allclose(rows.times(check), exact, rtol=1e-12, atol=0.0):
        return None
    return rows


def given_fit(model: AppModel, given: Mapping[str, float] | None = None,
              machine: Machine | None = None) -> AppFit:
    """The model with its constants as its file and ``given`` say, nothing fitted; one line
    naming what is missing when some constant has no value."""
    given = dict(given or {})
    missing = free_params(model, list(given))
    if missing:
        raise InputError(f"model {model.name} needs {', '.join(missing)}",
                         fix="fit them with --fit TIMINGS, or give them with --set NAME=VALUE")
    params = []
    for q in model.params:
        value = given.get(q.name, q.value)
        params.append(Estimate(q.name, float(value if value is not None else math.nan),
                               math.nan, q.unit, "fixed",
                               "given" if q.name in given else (q.source or "given")))
    return AppFit(model, tuple(params), machine=machine)


def _linear_start(fast: LinearRows, t: FloatArray, lower: FloatArray, other: FloatArray
                  ) -> FloatArray:
    """Where the fit of a model linear in its constants starts: the non-negative least squares
    of the relative residuals (offset + basis·c − t) / t, convex, so one solve; its answer is
    next to the log-ratio fit's.  ``other`` stands in for a constant the solve leaves at 0."""
    from scipy.optimize import nnls

    a = fast.basis / t[:, None]
    c, _ = nnls(a, 1.0 - fast.offset / t - a @ lower)
    x = c + lower
    return np.where(x > lower, x, other)


def fit_app(model: AppModel, processes: ArrayLike, times: ArrayLike,
            parts: Sequence[str] | None = None, fixed: Mapping[str, float] | None = None,
            sources: Mapping[str, str] | None = None, machine: Machine | None = None,
            sizes: ArrayLike | None = None) -> AppFit:
    """Fit the model's free constants to the timing rows; ``fixed`` holds some (SI units).
    ``machine`` costs the model's communication (the machine the timings were taken on);
    ``sizes`` are the rows' problem sizes (default: the model's)."""
    fixed = dict(fixed or {})
    unknown = sorted(set(fixed) - set(model.param_names))
    if unknown:
        raise InputError(f"model {model.name} has no parameter {unknown[0]!r}",
                         fix=f"its parameters are {', '.join(model.param_names)}")
    p, t, labels = _rows(model, processes, times, parts)
    sz = None if sizes is None else np.broadcast_to(np.asarray(sizes, dtype=np.float64), p.shape)
    free = free_params(model, list(fixed))
    if free and len(np.unique(p)) < 2:
        raise FitError("every timing is at one node count, which cannot tell what scales "
                       "from what does not", fix="give timings at two or more node counts")
    base = {q.name: q.value for q in model.params if q.value is not None}
    base.update(fixed)
    dof = len(t) - len(free)
    if dof < 0:
        raise FitError(f"{len(free)} constants to fit from {len(t)} timings "
                       f"({', '.join(free)})", fix="give more timings, or fix some constants")
    lower = {q.name: q.lower for q in model.params}
    scale = float(np.median(t))
    floor = np.array([lower[n] for n in free], dtype=np.float64)
    starts = [np.array([max(scale * (factors[i] if i < len(factors) else 1.0),
                            lower[n] + scale * 1e-3) for i, n in enumerate(free)])
              for factors in itertools.product((1.0, 1e-2), repeat=min(len(free), 6))]
    # the formulas once, as a matrix, when the times are linear in the constants
    fast = linear_rows(model, free, base, floor, p, labels, machine, sz, starts[0]) \
        if free else None

    def residual(x: FloatArray, formulas: bool = False) -> FloatArray:
        with np.errstate(all="ignore"):
            if fast is not None and not formulas:
                r = log_ratio(fast.times(x), t)
            else:
                v = {**base, **dict(zip(free, x.tolist(), strict=True))}
                r = log_ratio(_predicted(model, v, p, labels, machine, sz), t)
        return np.asarray(np.where(np.isfinite(r), r, 50.0), dtype=np.float64)

    jacobian = None if fast is None else fast.log_jacobian
    if fast is not None and len(starts) > 2:   # nearly convex: a linear start and two scalings
        starts = [_linear_start(fast, t, floor, starts[0]), starts[0], starts[-1]]
    best: tuple[float, FloatArray, FloatArray | None] | None = None
    for x0 in starts:
        x, covar = least_squares(residual, x0, floor, jacobian) if free else (x0, None)
        rss = float(np.sum(residual(x) ** 2))
        if best is None or rss < best[0]:
            best = (rss, x, covar)
    values = dict(base)
    rss = 0.0
    rows = len(t)   # the timings some varied constant reaches
    cov = np.zeros((0, 0))
    varied: list[str] = []
    notes: list[str] = []
    if best is not None:
        _, x, covar = best
        rss = float(np.sum(residual(x, formulas=True) ** 2))   # the statistics: the formulas'
        found = dict(zip(free, x.tolist(), strict=True))
        values.update(found)
        size = max(abs(values[n]) for n in free) if free else 1.0
        on_bound = [n for n in free if found[n] <= lower[n] + 1e-9 * max(size, scale)]
        values.update({n: lower[n] for n in on_bound})
        varied = [n for n in free if n not in on_bound]
        notes += [f"{n} ends on its lower bound {lower[n]:g}: held there" for n in on_bound]
        rows = _informative(model, values, varied, p, labels, machine, sz) if varied else len(t)
        tied = _unidentified(model, values, varied, p, labels, machine, sz)
        if tied:
            counts = len(np.unique(p))
            what = (f"the timings cannot tell {', '.join(tied)} apart: only a combination "
                    "of them is determined" if len(tied) > 1 else
                    f"the timings do not determine {tied[0]}")
            why = f" (runs at {counts} node counts)" if counts < len(tied) else ""
            raise FitError(what + why,
                           fix="give timings that tell them apart (more node counts, a one-node "
                               "run, other sizes), or hold one with --set NAME=VALUE")
        spare = rows - len(varied)
        if spare > 0 and varied:
            # the others' errors from the full fit's covariance: a constant held on its bound
            # by noise may belong elsewhere, and conditioning on it would understate them
            cov = np.full((len(varied), len(varied)), math.nan)
            if covar is not None and np.shape(covar) == (len(free), len(free)):
                idx = [free.index(n) for n in varied]
                cov = np.asarray(covar)[np.ix_(idx, idx)] * (rss / spare)
    if free and rows == len(varied):
        notes.append(f"{len(varied)} constants from {rows} timings that depend on them: "
                     "exactly determined, no uncertainty can be estimated")
    with np.errstate(invalid="ignore"):   # a negative variance is no estimate: NaN, not 0
        errs = np.sqrt(np.where(np.diag(cov) >= 0, np.diag(cov), math.nan)) if cov.size \
            else np.zeros(0)
    for n, e in zip(varied, errs, strict=False):
        if not math.isfinite(e) and cov.size:
            notes.append(f"{n} is not determined by the timings (no standard error)")
        elif math.isfinite(e) and e > abs(values[n]):
            notes.append(f"{n} is poorly determined by the timings (±{e / abs(values[n]):.0%})")
    params = []
    for q in model.params:
        if q.name in varied:
            params.append(Estimate(q.name, values[q.name], float(errs[varied.index(q.name)])
                                   if errs.size else math.nan, q.unit, "fitted"))
        elif q.name in free:
            params.append(Estimate(q.name, values[q.name], math.nan, q.unit, "bound"))
        else:
            source = (sources or {}).get(q.name, q.source or "given")
            params.append(Estimate(q.name, values[q.name], math.nan, q.unit, "fixed", source))
    fitted = _predicted(model, values, p, labels, machine, sz)
    k = len(varied)
    noise = math.sqrt(rss / (rows - k)) if rows > k else math.nan
    span = (float(p.min()), float(p.max())) if free else (1.0, math.inf)   # nothing fitted
    at = sz if sz is not None else np.full(1, model.problem_size(missing=math.nan))
    sizes = (float(at.min()), float(at.max())) if free and model.uses_size and \
        np.all(np.isfinite(at)) else (0.0, math.inf)
    return AppFit(model, tuple(params), cov, rows - k, noise, span,
                  fit_stats(fitted, t, rss, k), tuple(notes), machine, sizes)


def predict_app(fit: AppFit, processes: ArrayLike, level: float = 0.95,
                machine: Machine | None = None, n: ArrayLike | None = None) -> AppPrediction:
    """Each part's time and the run's total over ``processes`` (problem sizes ``n``), with
    intervals, on ``machine`` (default: the one the fit was made on)."""
    p = np.atleast_1d(np.asarray(processes, dtype=np.float64))
    if np.any(~np.isfinite(p) | (p < 1)):
        raise InputError("process counts must be at least 1", fix="give e.g. --nodes 1..64")
    base = fit.values
    model = fit.model
    on = machine or fit.machine

    def total(v: Mapping[str, float], machine: Machine | None = on) -> FloatArray:
        return np.asarray(sum(model.part_times(p, v, machine, n).values(), np.zeros(p.shape)))

    watched = on.watched() if on is not None and model.uses_machine else None
    parts = model.part_times(p, base, watched or on, n)
    time = np.asarray(sum(parts.values(), np.zeros(p.shape)))
    lo, hi = log_interval(total, base, fit.fitted_names, fit.covariance, fit.dof, fit.noise,
                          level)
    parts_lo, parts_hi = {}, {}
    for name in parts:

        def one(v: Mapping[str, float], name: str = name) -> FloatArray:
            return model.part_times(p, v, on, n)[name]

        parts_lo[name], parts_hi[name] = log_interval(one, base, fit.fitted_names,
                                                      fit.covariance, fit.dof, fit.noise, level)
    outside = Extrapolation(
        p, fit.processes,
        problem_sizes(n if n is not None else model.problem_size(missing=math.nan),
                      model.uses_size, p.shape), fit.sizes,
        model.size.unit if model.size else "",
        message_span(watched, p.shape, time, lambda rows: total(base, watched.probing())[rows])
        if watched is not None else None,
        on.profile.name if on is not None else "", model.valid)
    return AppPrediction(p, parts, time, lo, hi, parts_lo, parts_hi, outside, level)
