"""perfmodel.lazy.lmfit imports lmfit without matplotlib, scipy.stats and scipy.interpolate, and
lmfit still works, its distributions and splines included: checked in a fresh interpreter
(this one has them imported)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

_CHECK = textwrap.dedent("""
    import sys
    import numpy as np
    from perfmodel.lazy import lmfit
    lm = lmfit()
    print("after import:", "matplotlib" in sys.modules, "scipy.stats" in sys.modules,
          "scipy.interpolate" in sys.modules)
    x = np.linspace(0, 1, 50)
    y = 2.0 + 3.0 * x + np.random.default_rng(1).normal(0, 0.01, 50)
    p = lm.Parameters()
    p.add("a", value=1.0)
    p.add("b", value=1.0)
    res = lm.minimize(lambda q: q["a"].value + q["b"].value * x - y, p)
    print("fit:", round(res.params["a"].value, 2), round(res.params["b"].value, 2))
    ci = lm.conf_interval(lm.Minimizer(lambda q: q["a"].value + q["b"].value * x - y,
                                       res.params), res, sigmas=[1])   # uses scipy.stats.f
    print("ci:", ci["b"][0][1] < 3.0 < ci["b"][-1][1])
    import scipy.stats
    import lmfit.minimizer
    ppf = float(lmfit.minimizer.norm_dist.ppf(0.975))
    print("real:", type(scipy.stats).__name__, round(ppf, 3))
    import matplotlib
    print("matplotlib:", matplotlib.__name__)
    import lmfit.models
    spline = lmfit.models.SplineModel(xknots=np.linspace(0, 1, 6))   # scipy.interpolate
    knots = spline.make_params()
    for name in knots:
        knots[name].set(value=1.0)
    print("spline:", round(float(spline.eval(knots, x=np.array([0.5]))[0]), 6))  # splev
""")


def test_lmfit_without_matplotlib_and_scipy_stats_still_fits() -> None:
    done = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.splitlines() == ["after import: False False False", "fit: 2.0 3.0",
                                        "ci: True", "real: module 1.96",
                                        "matplotlib: matplotlib", "spline: 1.0"]
