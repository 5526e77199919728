"""What users read off a prediction: speedup, efficiency, where the overhead goes.

With T(p) the run time on p processes and T(1) on one:

- speedup S = T(1)/T(p), efficiency E = S/p;
- overhead = 1 − E: the share of the p·T(p) process-seconds not spent on the work one process
  would do.  Since T is the sum of the model's terms X, p·T(p) − T(1) = Σ (p·X(p) − X(1)),
  and each term's share (p·X(p) − X(1))/(p·T(p)) names a cause: *communication*,
  *synchronisation*, *serial* (the others idle, or repeat it, while it runs) and *imbalance*
  (compute that does not shrink as 1/p: work unevenly shared, or a memory the processes share;
  the table heads it "compute").  The shares add up to the overhead exactly;
- Karp–Flatt serial fraction e = (1/S − 1/p)/(1 − 1/p), the serial share that would explain
  the speedup under Amdahl's law (undefined at p = 1).

Every figure carries a ``level`` band (:attr:`Scaling.bands`): the uncertainty it inherits from
the fitted constants, by the delta method (:func:`~perfmodel.network.predict.linear_interval`).
The time's own range is wider: it is a prediction interval for a new run, run-to-run scatter
included.  Bands are NaN when nothing was fitted or the fit was exactly determined.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.apps.fit import AppFit, AppPrediction, predict_app
from perfmodel.apps.model import AppModel
from perfmodel.machine import Machine
from perfmodel.network.predict import linear_interval

FloatArray = NDArray[np.float64]
CAUSES = {"communication": "communication", "synchronisation": "synchronisation",
          "serial": "serial", "imbalance": "compute"}
# the figures with a band, and the range each lives in
BANDED = {"speedup": (0.0, math.inf), "efficiency": (0.0, math.inf),
          "overhead": (-math.inf, 1.0), "karp_flatt": (-math.inf, math.inf),
          "mflops": (0.0, math.inf),
          **{f"overhead_{k}": (-math.inf, 1.0) for k in CAUSES}}


@dataclass(frozen=True)
class Scaling:
    """``size`` is the problem size of each row (grows with p under weak scaling); ``mflops``
    the sustained rate where the model counts flops (else NaN)."""

    prediction: AppPrediction
    speedup: FloatArray
    efficiency: FloatArray
    overhead: FloatArray
    shares: Mapping[str, FloatArray]
    karp_flatt: FloatArray
    terms: Mapping[str, FloatArray]
    size: FloatArray
    mflops: FloatArray
    weak: bool = False
    bands: Mapping[str, tuple[FloatArray, FloatArray]] = field(default_factory=dict)

    @property
    def processes(self) -> FloatArray:
        return self.prediction.processes

    @property
    def time(self) -> FloatArray:
        return self.prediction.total

    def to_dict(self, fit: AppFit, on: Machine | None = None) -> dict[str, Any]:
        """One row per node count, SI units; NaN or non-positive times are null, never
        numbers; each row says whether (and why) it is extrapolated.  ``fit``: the constants
        predicted with; ``on``: the machine predicted on, whose hardware no measurement saw is
        said (``unmeasured_hardware``)."""
        why = self.prediction.outside
        rows = []
        for i, p in enumerate(self.processes):
            t = float(self.time[i])
            timed = math.isfinite(t) and t > 0
            ok = timed and math.isfinite(float(self.speedup[i]))   # T(1) usable too
            rows.append({
                "nodes": int(p), "time": t if timed or t == 0 else None,   # 0 s: nothing to do
                "time_lo": float(self.prediction.total_lo[i]) if timed else None,
                "time_hi": float(self.prediction.total_hi[i]) if timed else None,
                "speedup": float(self.speedup[i]) if ok else None,
                "efficiency": float(self.efficiency[i]) if ok else None,
                "overhead": float(self.overhead[i]) if ok else None,
                **{f"overhead_{k}": float(v[i]) if ok else None for k, v in self.shares.items()},
                "karp_flatt": float(self.karp_flatt[i]) if ok and p > 1 else None,
                **self._bands(i, ok),
                "size": float(self.size[i]),
                "mflops": float(self.mflops[i]) if timed and math.isfinite(float(self.mflops[i]))
                else None,
                "parts": {k: float(v[i]) if math.isfinite(float(v[i])) and v[i] >= 0 else None
                          for k, v in self.prediction.parts.items()},
                "extrapolated": bool(self.prediction.extrapolated[i]),
                "extrapolated_in": why.why(i)})
        return {"model": fit.model.name, "level": self.prediction.level,
                "scaling": "weak" if self.weak else "strong",
                "size_unit": fit.model.size.unit if fit.model.size else None,
                "machine": fit.machine.profile.name if fit.machine else None,
                "units": {"time": "s", "mflops": "Mflop/s"},
                "overhead": "share of nodes x time not spent on the one-node work: 1 - efficiency",
                "bands": "time_lo/time_hi: prediction interval for a new run; every other "
                         "_lo/_hi: the figure's confidence interval from the fitted constants "
                         "(delta method)",
                "parameters": [p.to_dict() for p in fit.params],
                "fit": dict(fit.fit), "notes": list(fit.notes),
                "extrapolation": why.notes(),
                "fitted_nodes": list(fit.processes), "fitted_sizes": list(fit.sizes),
                "calibrated_message_sizes": list(why.messages.calibrated)
                if why.messages is not None and why.messages.calibrated is not None else None,
                "message_sizes_outside_calibration": why.beyond(),
                "unmeasured_hardware": {k: v.tolist() for k, v in
                                        (on.unmeasured if on is not None else {}).items()},
                "rows": rows}

    def _bands(self, i: int, ok: bool) -> dict[str, float | None]:
        """``KEY_lo`` and ``KEY_hi`` of each banded figure at row ``i``; null where unknown."""
        out: dict[str, float | None] = {}
        for key, (lo, hi) in self.bands.items():
            a, b = float(lo[i]), float(hi[i])
            good = ok and math.isfinite(a) and math.isfinite(b)
            out[f"{key}_lo"], out[f"{key}_hi"] = (a, b) if good else (None, None)
        return out


def scaling(fit: AppFit, processes: ArrayLike, level: float = 0.95,
            machine: Machine | None = None, size: float | None = None,
            weak: bool = False) -> Scaling:
    """Predict ``fit`` at ``processes`` and derive speedup, efficiency and overhead shares.

    Strong scaling keeps the problem size ``size`` (default: the model's); weak scaling gives
    each process that much, n = size·p, and compares with p times the one-process run
    (scaled speedup)."""
    p = np.atleast_1d(np.asarray(processes, dtype=np.float64))
    model, values, on = fit.model, fit.values, machine or fit.machine
    n1 = model.problem_size(size)
    n = n1 * p if weak else np.full_like(p, n1)
    pred = predict_app(fit, p, level, machine, n)
    fig, terms = _figures(model, values, on, p, n, n1, weak)
    keys = list(BANDED)
    lo, hi = linear_interval(lambda v: np.stack([_figures(model, v, on, p, n, n1, weak)[0][k]
                                                 for k in keys]),
                             values, fit.fitted_names, fit.covariance, fit.dof, fit.noise, level)
    bands = {k: (np.clip(lo[i], *BANDED[k]), np.clip(hi[i], *BANDED[k]))
             for i, k in enumerate(keys)}
    return Scaling(pred, fig["speedup"], fig["efficiency"], fig["overhead"],
                   {k: fig[f"overhead_{k}"] for k in CAUSES}, fig["karp_flatt"], terms, n,
                   fig["mflops"], weak, bands)


def _figures(model: AppModel, values: Mapping[str, float], on: Machine | None, p: FloatArray,
             n: FloatArray, n1: float, weak: bool
             ) -> tuple[dict[str, FloatArray], dict[str, FloatArray]]:
    """Speedup, efficiency, overhead and its shares, Karp–Flatt and Mflop/s at constants
    ``values`` (NaN where the time or the one-process time is not a positive number), and the
    time by kind of term."""
    raw = model.evaluate(p, values, on, n)
    terms = by_term(raw)
    once = by_term(model.evaluate(np.ones(1), values, on, np.full(1, n1)))
    scale = p if weak else np.ones_like(p)
    base = {k: v[0] * scale for k, v in once.items()}
    t1 = sum(base.values(), np.zeros_like(p))
    t = sum(terms.values(), np.zeros_like(p))
    valid = np.isfinite(t) & (t > 0) & np.isfinite(t1) & (t1 > 0)
    nan = np.full_like(p, math.nan)
    with np.errstate(all="ignore"):
        speedup = np.where(valid, t1 / t, nan)
        efficiency = speedup / p
        work = p * t
        fig = {"speedup": speedup, "efficiency": efficiency, "overhead": 1.0 - efficiency,
               **{f"overhead_{name}": np.where(valid, (p * terms[term] - base[term]) / work, nan)
                  for name, term in CAUSES.items()},
               "karp_flatt": np.where(valid & (p > 1), (1.0 / speedup - 1.0 / p)
                                      / (1.0 - 1.0 / np.maximum(p, 1.0 + 1e-9)), nan)}
        flops = raw.get(("", "flops"))
        timed = np.isfinite(t) & (t > 0)
        fig["mflops"] = np.where(timed, flops / t / 1e6, nan) if flops is not None else nan
    return fig, terms


def by_term(values: Mapping[tuple[str, str], FloatArray]) -> dict[str, FloatArray]:
    """Sum each kind of term over the parts."""
    shape = next(iter(values.values())).shape
    out = {t: np.zeros(shape) for t in ("serial", "compute", "communication",
                                        "synchronisation")}
    for (part, term), v in values.items():
        if part:   # ("", "flops") counts arithmetic, not time
            out[term] = out[term] + v
    return out
