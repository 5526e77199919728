"""What users read off a prediction: speedup, efficiency, where the overhead goes.

With T(p) the run time on p processes and T(1) on one:

- speedup S = T(1)/T(p), efficiency E = S/p;
- overhead = 1 − E: the share of the p·T(p) process-seconds not spent on the work one process
  would do.  Since T is the sum of the model's terms X, p·T(p) − T(1) = Σ (p·X(p) − X(1)),
  and each term's share (p·X(p) − X(1))/(p·T(p)) names a cause: *communication*,
  *synchronisation*, *serial* (the others idle, or repeat it, while it runs) and *imbalance*
  (compute that does not shrink as 1/p).  The shares add up to the overhead exactly;
- Karp–Flatt serial fraction e = (1/S − 1/p)/(1 − 1/p), the serial share that would explain
  the speedup under Amdahl's law (undefined at p = 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.apps.fit import AppFit, AppPrediction, predict_app
from perfmodel.apps.machine import Machine

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Scaling:
    prediction: AppPrediction
    speedup: FloatArray
    efficiency: FloatArray
    overhead: FloatArray
    shares: Mapping[str, FloatArray]
    karp_flatt: FloatArray
    terms: Mapping[str, FloatArray]

    @property
    def processes(self) -> FloatArray:
        return self.prediction.processes

    @property
    def time(self) -> FloatArray:
        return self.prediction.total


def scaling(fit: AppFit, processes: ArrayLike, level: float = 0.95,
            machine: Machine | None = None) -> Scaling:
    """Predict ``fit`` at ``processes`` and derive speedup, efficiency and overhead shares."""
    p = np.atleast_1d(np.asarray(processes, dtype=np.float64))
    pred = predict_app(fit, p, level, machine)
    model, values, on = fit.model, fit.values, machine or fit.machine
    one = np.ones(1)
    terms = _by_term(model.evaluate(p, values, on))
    base = _by_term(model.evaluate(one, values, on))
    t1 = float(sum(v[0] for v in base.values()))
    t = pred.total
    valid = np.isfinite(t) & (t > 0) & math.isfinite(t1) & (t1 > 0)
    nan = np.full_like(p, math.nan)
    with np.errstate(all="ignore"):
        speedup = np.where(valid, t1 / t, nan)
        efficiency = speedup / p
        overhead = 1.0 - efficiency
        work = p * t
        causes = {"communication": "communication", "synchronisation": "synchronisation",
                  "serial": "serial", "imbalance": "compute"}
        shares = {name: np.where(valid, (p * terms[term] - base[term][0]) / work, nan)
                  for name, term in causes.items()}
        kf = np.where(valid & (p > 1),
                      (1.0 / speedup - 1.0 / p) / (1.0 - 1.0 / np.maximum(p, 1.0 + 1e-9)), nan)
    return Scaling(pred, speedup, efficiency, overhead, shares, kf, terms)


def _by_term(values: Mapping[tuple[str, str], FloatArray]) -> dict[str, FloatArray]:
    """Sum each kind of term over the parts."""
    shape = next(iter(values.values())).shape
    out = {t: np.zeros(shape) for t in ("serial", "compute", "communication",
                                        "synchronisation")}
    for (_, term), v in values.items():
        out[term] = out[term] + v
    return out
