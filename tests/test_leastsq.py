"""perfmodel.leastsq is lmfit's leastsq without lmfit around each evaluation, and MINPACK and NNLS
without importing all of scipy.optimize: every point-to-point fit of every real ping-pong file in
the repository gives the same values and RSS, bit for bit, as the same fit through lmfit (the
code it replaced, kept here as the reference), and the same standard errors to 1e-12."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from perfmodel.errors import PerfModelError
from perfmodel.inputs import choose
from perfmodel.leastsq import leastsq
from perfmodel.network import fit as fitting
from perfmodel.network import models as registry
from perfmodel.readers import read

ROOT = Path(__file__).resolve().parent.parent
FloatArray = np.ndarray


def _through_lmfit(kind: str, m: FloatArray, y: FloatArray, base: Mapping[str, float],
                   free: Sequence[str], scale: Mapping[str, float]
                   ) -> tuple[dict[str, float], FloatArray | None]:
    """network.fit._minimize as it was, through lmfit.minimize(method="leastsq")."""
    import lmfit

    params = lmfit.Parameters()
    for n in free:
        params.add(n, value=base[n] / scale[n], min=fitting._lower(n) / scale[n])

    def values_of(p: lmfit.Parameters) -> dict[str, float]:
        return {**base, **{n: p[n].value * scale[n] for n in free}}

    def residual(p: lmfit.Parameters) -> FloatArray:
        return fitting.log_ratio(registry.evaluate(kind, m, values_of(p)), y)

    res = lmfit.minimize(residual, params, method="leastsq", scale_covar=False)
    if res.covar is None:
        return values_of(res.params), None
    d = np.array([scale[k] for k in free])
    return values_of(res.params), np.asarray(res.covar) * np.outer(d, d)


def _pingpongs() -> list[Path]:
    out = []
    for folder in (ROOT / "tests" / "fixtures" / "benchmarks", ROOT / "data" / "mpi4py",
                   ROOT / "data" / "local", ROOT / "data" / "public"):
        out += sorted(p for p in folder.rglob("*") if p.is_file())
    return out


def _table(path: Path):  # type: ignore[no-untyped-def]
    try:
        table = choose(read(path), str(path), None).single_stream()
    except PerfModelError:
        return None
    if table.pattern != "pingpong" or len(np.unique(table.size)) < 6:
        return None
    return table


FILES = [p for p in _pingpongs() if _table(p) is not None]


def test_there_are_real_files_to_compare() -> None:
    assert len(FILES) >= 15


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_law_fits_as_through_lmfit(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _table(path)
    got = {}
    for how in ("direct", "lmfit"):
        if how == "lmfit":
            monkeypatch.setattr(fitting, "_minimize", _through_lmfit)
        try:
            sel = fitting.fit(data, "auto")
        except PerfModelError as exc:
            got[how] = str(exc)
            continue
        got[how] = [(r.model.kind, [(e.name, e.value) for e in r.model.params], r.rss,
                     np.array([e.stderr for e in r.model.params])) for r in sel.candidates]
    if isinstance(got["direct"], str) or isinstance(got["lmfit"], str):
        assert got["direct"] == got["lmfit"]
        return
    assert [c[:3] for c in got["direct"]] == [c[:3] for c in got["lmfit"]]   # bit for bit
    for mine, theirs in zip(got["direct"], got["lmfit"], strict=True):
        # (RᵀR)⁻¹ by NumPy's inverse, not LAPACK's trtri: the last bits may differ
        np.testing.assert_allclose(mine[3], theirs[3], rtol=1e-12, equal_nan=True)


def _lmfit_x(fun, x0: list[float], lower: list[float]) -> tuple[list[float], object]:  # type: ignore[no-untyped-def]
    import lmfit

    p = lmfit.Parameters()
    for k, (v, lo) in enumerate(zip(x0, lower, strict=True)):
        p.add(f"x{k}", value=v, min=lo)
    res = lmfit.minimize(lambda q: fun(np.array([q[f"x{k}"].value for k in range(len(x0))])),
                         p, method="leastsq", scale_covar=False)
    return [res.params[f"x{k}"].value for k in range(len(x0))], res.covar


def test_a_bound_and_the_evaluation_limit_as_lmfit() -> None:
    """A parameter driven onto its bound ends where lmfit's ends (next to it: the transform
    reaches the bound only in the limit); a residual that never settles stops after lmfit's
    2000 (k + 1) evaluations, with no covariance, where lmfit stops."""
    def onto_bound(x: FloatArray) -> FloatArray:
        return np.array([x[0] + 1.0, x[0] + 2.0, x[1] - 4.0])

    x, cov = leastsq(onto_bound, np.array([3.0, 1.0]), np.array([0.0, 0.5]))
    ref, ref_cov = _lmfit_x(onto_bound, [3.0, 1.0], [0.0, 0.5])
    assert x.tolist() == ref and x[0] < 1e-9 and abs(x[1] - 4.0) < 1e-9
    assert (cov is None) == (ref_cov is None)   # at the bound J is singular: none, in both
    assert cov is None or np.array_equal(cov, ref_cov)

    def restless(x: FloatArray) -> FloatArray:
        return np.array([np.sin(1e4 * x[0]) + 2.0, np.cos(3e4 * x[0]) + 2.0])

    x, cov = leastsq(restless, np.array([1.0]), np.array([0.0]))
    ref, ref_cov = _lmfit_x(restless, [1.0], [0.0])
    assert x.tolist() == ref and (cov is None) == (ref_cov is None)


def test_the_compiled_paths_equal_scipys_public_functions() -> None:
    """The compiled MINPACK and NNLS, loaded alone, answer as scipy.optimize.leastsq and nnls
    (a SciPy release that changed them would fail here, not in a user's fit)."""
    from scipy.optimize import leastsq as public_leastsq
    from scipy.optimize import nnls as public_nnls

    from perfmodel.leastsq import minpack_lmdif, nnls

    rng = np.random.default_rng(7)
    a, b = rng.random((40, 3)), rng.random(40)
    x, norm = nnls(a, b)
    ref, ref_norm = public_nnls(a, b)
    assert np.array_equal(x, ref) and norm == ref_norm
    m = np.geomspace(1, 1e6, 30)
    y = (2e-6 + m / 1e9) * np.exp(rng.normal(0, 0.02, 30))

    def fun(p: FloatArray) -> FloatArray:
        return np.log((abs(p[0]) * 1e-6 + m / (abs(p[1]) * 1e9)) / y)

    x, cov = minpack_lmdif(fun, np.array([1.0, 0.5]), ftol=1.5e-8, xtol=1.5e-8, gtol=0.0,
                           maxfev=6000, epsfcn=1e-10, factor=100)
    ref, ref_cov, *_ = public_leastsq(fun, np.array([1.0, 0.5]), full_output=1, ftol=1.5e-8,
                                      xtol=1.5e-8, gtol=0.0, maxfev=6000, epsfcn=1e-10,
                                      factor=100)
    assert np.array_equal(x, ref) and cov is not None
    np.testing.assert_allclose(cov, ref_cov, rtol=1e-12)
