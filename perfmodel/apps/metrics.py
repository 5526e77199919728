"""What users read off a prediction: speedup, efficiency, where the overhead goes.

With T(p) the run time on p processes and T(1) on one:

- speedup S = T(1)/T(p), efficiency E = S/p;
- overhead = 1 − E: the share of the p·T(p) process-seconds not spent on the work one process
  would do, split into its causes by the model's terms: *communication* (p·comm(p) of the
  p·T(p)), *synchronisation* (p·(sync(p) − sync(1))), *serial* ((p − 1)·serial: the others
  idle, or repeat it, while it runs) and the rest (*imbalance*: compute that does not shrink
  as 1/p);
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
    with np.errstate(all="ignore"):
        speedup = t1 / t
        efficiency = speedup / p
        overhead = 1.0 - efficiency
        work = p * t
        shares = {
            "communication": p * (terms["communication"] - base["communication"][0]) / work,
            "synchronisation": p * (terms["synchronisation"] - base["synchronisation"][0])
            / work,
            "serial": (p - 1.0) * terms["serial"] / work,
        }
        shares["imbalance"] = overhead - sum(shares.values(), np.zeros_like(p))
        kf = np.where(p > 1, (1.0 / speedup - 1.0 / p) / (1.0 - 1.0 / np.maximum(p, 1.0 + 1e-9)),
                      math.nan)
    return Scaling(pred, speedup, efficiency, overhead, shares, kf, terms)


def _by_term(values: Mapping[tuple[str, str], FloatArray]) -> dict[str, FloatArray]:
    """Sum each kind of term over the parts."""
    shape = next(iter(values.values())).shape
    out = {t: np.zeros(shape) for t in ("serial", "compute", "communication",
                                        "synchronisation")}
    for (_, term), v in values.items():
        out[term] = out[term] + v
    return out
