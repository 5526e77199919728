#!/usr/bin/env python3
"""Sweep throughput: configurations per second of a what-if sweep of the ppm model.

The grid is 1024 node counts × 4 channel counts × 16 line rates × 16 latencies = 1,048,576
configurations on the beowulf-1995 profile (its shared Ethernet: every round of messages is a
finite-source queue), with ppm's constant fitted to the seed's rates.  Two figures, each the
median of --runs runs (with the spread, min to max):

- one pass: the model's time for every configuration, one pass of the formulas, the
  collectives and the queueing laws over the whole grid on one core;
- evaluation: the sweep's times and speedups (each configuration's one-node time), its chunks
  on the machine's cores at once;
- sweep: what ``perfmodel whatif`` computes, the same with the band from the fitted constant
  (one more pass).

    .venv/bin/python bench/sweep_throughput.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    from perfmodel.apps.fit import fit_app, timing_inputs
    from perfmodel.apps.machine import Machine
    from perfmodel.apps.model import load as load_model
    from perfmodel.apps.timings import read_timings
    from perfmodel.profile import load
    from perfmodel.whatif.sweep import Grid, sweep

    prof = load(ROOT / "calibration" / "beowulf-1995.toml")
    model = load_model("ppm")
    rows = read_timings(ROOT / "data" / "seeds" / "beowulf-1995-apps.csv").select(
        code="ppm", use="fit")
    times, sizes = timing_inputs(model, rows, {})
    fit = fit_app(model, rows.processes, times, rows.parts, {}, machine=Machine(prof),
                  sizes=sizes)
    grid = Grid({"nodes": np.arange(1.0, 1025.0), "channels": np.arange(1.0, 5.0),
                 "link_speed": np.geomspace(1.25e6, 1.25e9, 16),
                 "latency": np.geomspace(1e-6, 1e-3, 16)})
    n = grid.size
    cfg = grid.flat()
    on = Machine(prof, cfg["channels"], cfg["link_speed"], overhead=cfg["latency"])
    p = cfg["nodes"]
    size = np.full_like(p, model.size.value if model.size else 1.0)
    model.evaluate(p[:8], fit.values, Machine(prof, cfg["channels"][:8],
                                              cfg["link_speed"][:8],
                                              overhead=cfg["latency"][:8]), size[:8])
    passes, evals, sweeps = [], [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        model.evaluate(p, fit.values, on, size)
        passes.append(time.perf_counter() - start)
        start = time.perf_counter()
        sweep(fit, prof, grid, band=False)
        evals.append(time.perf_counter() - start)
        start = time.perf_counter()
        sweep(fit, prof, grid)
        sweeps.append(time.perf_counter() - start)
    import os

    print(f"cores: {os.cpu_count()}")
    for label, runs in (("one pass, one core", passes), ("evaluation (times, speedups)", evals),
                        ("sweep (times, speedups, band)", sweeps)):
        med = statistics.median(runs)
        print(f"{label}: {n:,} configurations in {med:.3f} s median "
              f"({min(runs):.3f}-{max(runs):.3f} s over {args.runs} runs): "
              f"{n / med:,.0f} configurations per second")


if __name__ == "__main__":
    main()
