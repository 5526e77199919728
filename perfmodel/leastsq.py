"""lmfit's Levenberg–Marquardt (``lmfit.minimize(method="leastsq")``) for parameters bounded
below, called the way lmfit calls MINPACK, without lmfit's parameter objects around each
evaluation: the same start, the same transform of the bounds, the same options and the same
covariance, so the same answer bit for bit (tests/test_leastsq.py checks it against lmfit).

A point-to-point fit evaluates its law a few hundred times; lmfit's bookkeeping around each
evaluation, and importing lmfit, cost more than the law itself on one OSU file.  lmfit fits
the fabric (:mod:`perfmodel.network.fabric_fit`); this fits the laws.

Importing ``scipy.optimize`` imports all of it (linear programming, global optimisers, FFTs,
spatial trees): about 0.6 s, most of ``perfmodel calibrate`` on one file.  MINPACK and NNLS
are two compiled modules inside it; :func:`_compiled` loads just those, and :func:`leastsq`
and :func:`nnls` call them as ``scipy.optimize.leastsq`` and ``scipy.optimize.nnls`` do
(tests/test_leastsq.py checks both against SciPy's own).  Should a SciPy release move them,
the public functions are used instead.

lmfit maps a parameter bounded below by ``lo`` to an unbounded internal one:
``x = lo − 1 + √(u² + 1)``, started at ``u = √((x − lo + 1)² − 1)``, and scales MINPACK's
covariance of u by (dx/du)² = (u / √(u² + 1))² to that of x.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

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


def _compiled(name: str) -> ModuleType | None:
    """``scipy.optimize.<name>`` (a compiled module) loaded alone, without ``scipy.optimize``
    itself; None when SciPy does not hold it (then the caller imports SciPy's function)."""
    import importlib.machinery
    import importlib.util

    full = f"scipy.optimize.{name}"
    if full in sys.modules:
        return sys.modules[full]
    try:
        found = importlib.util.find_spec("scipy.optimize")
        places = [] if found is None else list(found.submodule_search_locations or [])
        finder = importlib.machinery.FileFinder(places[0], (
            importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES))
        spec = finder.find_spec(full)
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (ImportError, IndexError, OSError):
        return None
    sys.modules[full] = module   # scipy.optimize, when imported, takes this one
    return module


def minpack_lmdif(fun: Callable[[FloatArray], FloatArray], x0: FloatArray, *, ftol: float,
                  xtol: float, gtol: float, maxfev: int, epsfcn: float, factor: float
                  ) -> tuple[FloatArray, FloatArray | None]:
    """``scipy.optimize.leastsq(fun, x0, full_output=1, …)``'s x and cov_x: MINPACK's lmdif
    after one check call of ``fun`` at x0, and (RᵀR)⁻¹ from its QR factor when it converged
    (1–4; None otherwise, or when R is singular)."""
    lm = _compiled("_minpack")
    if lm is None or not hasattr(lm, "_lmdif"):
        from scipy.optimize import leastsq as public

        x, cov, *_ = public(fun, x0, full_output=1, ftol=ftol, xtol=xtol, gtol=gtol,
                            maxfev=maxfev, epsfcn=epsfcn, factor=factor, diag=None)
        return np.atleast_1d(x), cov
    x0 = np.asarray(x0).flatten()
    n = len(x0)
    m = len(np.atleast_1d(fun(x0[:n])))
    if n > m:
        raise TypeError(f"Improper input: func input vector length N={n} must not exceed "
                        f"func output vector length M={m}")
    x, found, info = lm._lmdif(fun, x0, (), 1, ftol, xtol, gtol, maxfev, epsfcn, factor, None)
    if info not in (1, 2, 3, 4):
        return np.atleast_1d(x), None
    perm = np.asarray(found["ipvt"])
    r = np.triu(np.transpose(found["fjac"])[:len(perm), :])
    if np.any(np.diag(r) == 0):   # LAPACK's trtri refuses an exactly singular factor
        return np.atleast_1d(x), None
    inv_r = np.linalg.inv(r)
    inv_r[perm] = inv_r.copy()
    return np.atleast_1d(x), inv_r @ inv_r.T


def nnls(a: FloatArray, b: FloatArray) -> tuple[FloatArray, float]:
    """``scipy.optimize.nnls(a, b)``: x ≥ 0 minimising ‖a x − b‖, and that norm.

    >>> x, norm = nnls(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([2.0, 1, 1]))
    >>> np.round(x, 12).tolist(), round(norm, 12)
    ([1.5, 1.0], 0.707106781187)
    """
    lib = _compiled("_slsqplib")
    if lib is None or not hasattr(lib, "nnls"):
        from scipy.optimize import nnls as public

        x, norm = public(a, b)
        return np.asarray(x, dtype=np.float64), float(norm)
    a = np.asarray_chkfinite(a, dtype=np.float64, order="C")
    b = np.asarray_chkfinite(b, dtype=np.float64)
    x, norm, info = lib.nnls(a, b, 3 * a.shape[1])
    if info == 3:
        raise RuntimeError("Maximum number of iterations reached.")
    return np.asarray(x, dtype=np.float64), float(norm)


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
        best, cov = minpack_lmdif(internal, last, ftol=1.5e-8, xtol=1.5e-8, gtol=0.0,
                                  maxfev=2 * limit, epsfcn=1e-10, factor=100)
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
