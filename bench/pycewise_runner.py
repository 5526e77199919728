#!/usr/bin/env python3
"""Runs pycewise (PyPI ``pycewise``, BIC mode) on ping-pong series from JSON on stdin and
prints its predictions as JSON.  It runs in pycewise's own virtual environment
(``build/pycewise-venv``, made by ``bench/p2p_corpus.py``), never in perfmodel's.

stdin:  {"series": [{"name": ..., "x": [sizes], "y": [seconds], "predict": [sizes]}, ...]}
stdout: {"pycewise_version": ..., "results": [{"predictions": [...]} or {"error": ...}]}
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    import pycewise

    doc = json.load(sys.stdin)
    out = []
    for s in doc["series"]:
        try:
            reg = pycewise.compute_regression(list(map(float, s["x"])), list(map(float, s["y"])),
                                              mode="BIC")
            out.append({"predictions": [float(reg.predict(float(v))) for v in s["predict"]]})
        except Exception as exc:   # a series it cannot fit: said in the row
            out.append({"error": f"{type(exc).__name__}: {exc}"})
    json.dump({"pycewise_version": getattr(pycewise, "__version__", "?"), "results": out},
              sys.stdout)


if __name__ == "__main__":
    main()
