"""lmfit's Levenberg–Marquardt (``lmfit.minimize(method="leastsq")``) for parameters bounded
below, called the way lmfit calls MINPACK, without lmfit's parameter objects around each
evaluation: the same start, the same transform of the bounds, the same options and the same
covariance, so the same answer bit for bit (tests/test_leastsq.py checks it against lmfit).

A point-to-point fit evaluates its law a few hundred times; lmfit's bookkeeping around each
evaluation, and importing lmfit, cost more than the law itself on one OSU file.  lmfit fits
the fabric (:mod:`perfmodel.network.fabric_fit`); this fits the laws.

lmfit maps a parameter bounded below by ``lo`` to an unbounded internal one:
``x = lo − 1 + √(u² + 1)``, started at ``u = √((x − lo + 1)² − 1)``, and scales MINPACK's
covariance of u by (dx/du)² = (u / √(u² + 1))² to that of x.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

TINY = 1.0e-15
"""lmfit's ``tiny``: a start whose internal value is below it starts at 0."""


def to_internal(x: FloatArray, lower: FloatArray) -> FloatArray:
    """lmfit's internal start of x bounded below by ``lower`` (x clipped to its bound first).

    >>> to_internal(np.array([0.0, 3.0]), np.array([0.0, 0.0])).tolist()
    [0.0, 3.872983346207417]
    """
    u = np.array([float(np.sqrt((max(v, lo) - lo + 1.0) ** 2 - 1))
                  for v, lo in zip(x.tolist(), lower.tolist(), strict=True)])
    return np.where(np.abs(u) < TINY, 0.0, u)


def to_external(u: FloatArray, lower: FloatArray) -> FloatArray:
    """x from lmfit's internal u, clipped to its bound as lmfit's parameter clips it."""
    return np.maximum(lower - 1.0 + np.sqrt(u * u + 1), lower)


def leastsq(residual: Callable[[FloatArray], FloatArray], x0: FloatArray, lower: FloatArray
            ) -> tuple[FloatArray, FloatArray | None]:
    """Minimise Σ residual(x)² over x ≥ ``lower`` from ``x0`` as lmfit's ``leastsq`` does
    (``scale_covar=False``): x, and (JᵀJ)⁻¹ in x (None when MINPACK gives none, or the
    2000 (k + 1) evaluations lmfit allows ran out).

    >>> x, cov = leastsq(lambda x: np.array([x[0] - 1, x[0] - 3]), np.array([0.5]),
    ...                  np.array([0.0]))
    >>> bool(abs(x[0] - 2.0) < 1e-6), bool(abs(cov[0, 0] - 0.5) < 1e-5)   # (JᵀJ)⁻¹ = 1/2
    (True, True)
    """
    from scipy.optimize import leastsq as minpack

    limit = 2000 * (len(x0) + 1)
    calls, last = -2, to_internal(x0, lower)   # lmfit counts two checks before the fit

    def internal(u: FloatArray) -> FloatArray:
        nonlocal calls, last
        u = u.reshape((1,)) if u.shape == () else u
        calls += 1
        last = u
        if calls > limit:
            raise _Exhausted
        return np.asarray(residual(to_external(u, lower)), dtype=np.float64).ravel()

    try:
        best, cov, *_ = minpack(internal, last, Dfun=None, full_output=1, col_deriv=0,
                                ftol=1.5e-8, xtol=1.5e-8, gtol=0.0, maxfev=2 * limit,
                                epsfcn=1e-10, factor=100, diag=None)
    except _Exhausted:
        return to_external(last, lower), None
    best = np.atleast_1d(best)
    x = to_external(best, lower)
    if cov is None:
        return x, None
    grad = best / np.sqrt(best * best + 1)
    return x, np.asarray(cov) * np.outer(grad, grad)


class _Exhausted(Exception):
    """The evaluations lmfit allows ran out."""
