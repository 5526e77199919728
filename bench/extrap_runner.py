#!/usr/bin/env python3
"""Run Extra-P's Default single-parameter modeler on simple scaling series.

stdin  (JSON): {"series": [{"name": str, "p": [...], "t": [...], "predict": [...]}],
                "mode": "default" | "time_x_p"}
       t[i] may be a number or a list of repetitions measured at p[i].
stdout (JSON): {"extrap_version", "mode", "results": [{name, formula, formula_python,
                 formula_t, predictions, fitted, n_points, warnings, model_seconds, error?}]}

mode "time_x_p": every value is multiplied by its p before modeling (resource
consumption, as Extra-P's README recommends for strong scaling); predictions and
fitted values are divided by p again, so they are always times.
Run with the venv's interpreter: /tmp/extrap_work/venv/bin/python run_extrap.py < in.json
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # never needs a display
os.environ.setdefault("MPLBACKEND", "Agg")

import json
import math
import sys
import time
import warnings

import extrap
import scipy.optimize  # noqa: F401  Extra-P imports it lazily in the 1st fit (~0.3 s); keep it out of model_seconds
from extrap.entities.callpath import Callpath
from extrap.entities.coordinate import Coordinate
from extrap.entities.experiment import Experiment
from extrap.entities.measurement import Measurement
from extrap.entities.metric import Metric
from extrap.entities.parameter import Parameter
from extrap.fileio.io_helper import create_call_tree, validate_experiment
from extrap.modelers.model_generator import ModelGenerator
from extrap.util.string_formats import FunctionFormats


def _num(x):
    x = float(x)
    return x if math.isfinite(x) else None  # JSON has no NaN/inf


def build_experiment(p, t, mode):
    """Same structure the `extrap --text` reader builds: 1 parameter, 1 callpath, 1 metric."""
    if len(p) != len(t):
        raise ValueError(f"len(p)={len(p)} != len(t)={len(t)}")
    exp = Experiment()
    param = Parameter("p")
    exp.parameters.append(param)
    callpath, metric = Callpath("main"), Metric("time")
    exp.add_callpath(callpath)
    exp.add_metric(metric)
    for pi, ti in zip(p, t, strict=True):
        reps = [float(v) for v in (ti if isinstance(ti, (list, tuple)) else [ti])]
        if mode == "time_x_p":
            reps = [v * float(pi) for v in reps]
        coord = Coordinate(float(pi))
        exp.coordinates.append(coord)
        exp.add_measurement(Measurement(coord, callpath, metric, reps))
    exp.call_tree = create_call_tree(exp.callpaths)
    validate_experiment(exp)
    return exp, param, callpath, metric


def model_series(s, mode):
    name = s.get("name", "")
    out = {"name": name}
    p, t, predict = list(s["p"]), list(s["t"]), list(s.get("predict", []))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exp, param, callpath, metric = build_experiment(p, t, mode)
            t0 = time.perf_counter()
            gen = ModelGenerator(exp, modeler="Default")  # Default = Basic single-parameter modeler
            gen.model_all()
            out["model_seconds"] = time.perf_counter() - t0
            fn = gen.models[(callpath, metric)].hypothesis.function
            scale = (lambda x: float(x)) if mode == "time_x_p" else (lambda x: 1.0)
            out["formula"] = fn.to_string(param)  # model of t, or of t*p in time_x_p mode
            out["formula_python"] = fn.to_string(param, format=FunctionFormats.PYTHON)
            out["formula_t"] = (f"({out['formula_python']})/p" if mode == "time_x_p"
                                else out["formula_python"])
            # evaluate point by point with scalars (safe for every function type)
            out["predictions"] = [_num(fn.evaluate(float(x)) / scale(x)) for x in predict]
            out["fitted"] = [_num(fn.evaluate(float(x)) / scale(x)) for x in p]
        except Exception as e:  # keep going with the other series
            out["error"] = f"{type(e).__name__}: {e}"
    out["n_points"] = len(p)
    out["warnings"] = sorted({str(w.message) for w in caught})
    return out


def main():
    req = json.load(sys.stdin)
    mode = req.get("mode", "default")
    if mode not in ("default", "time_x_p"):
        raise SystemExit(f"unknown mode {mode!r}")
    results = [model_series(s, mode) for s in req["series"]]
    json.dump({"extrap_version": extrap.__version__, "mode": mode, "results": results},
              sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
