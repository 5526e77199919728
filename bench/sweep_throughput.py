#!/usr/bin/env python3
"""Sweep throughput: configurations per second of a what-if sweep of the ppm model.

The grid is 1024 node counts × 4 channel counts × 16 line rates × 16 latencies = 1,048,576
configurations on the beowulf-1995 profile (its shared Ethernet: every round of messages is a
finite-source queue), with ppm's constant fitted to the seed's rates.  Each figure is the
median of --runs runs (with the spread, min to max):

- one pass, one core: the model's time for every configuration, one pass of the formulas, the
  collectives and the queueing laws over the whole grid on one core;
- evaluation: the sweep's times and speedups (each configuration's one-node time), its chunks
  on the machine's cores at once;
- sweep: what ``perfmodel whatif`` computes, the same with the band from the fitted constant,
  on the machine's cores and on one;
- floor: the same model's closed form written out here in bare NumPy and SciPy (ppm's three
  terms, the host costs, the Exchange and the dissemination barrier as rounds on the shared
  medium, each round's finite-source queue solved in logs as perfmodel solves it) over the
  same grid by broadcasting its four axes, one core, no band, no speedups, no bookkeeping.
  Its times are checked against the sweep's (printed: the largest relative difference), and
  the sweep's time is printed as a multiple of it, on the machine's cores and on one (issue
  29: at most 10, and the sweep under 1 s).

    .venv/bin/python bench/sweep_throughput.py [--runs 5]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parent.parent
FloatArray = NDArray[np.float64]
MANY = 512
"""Tokens beyond which the queue is solved as this many with shorter think times (the
many-sources limit perfmodel's shared-medium law takes: perfmodel.network.contention.MANY)."""


def _log_exp_series(a: FloatArray, x: FloatArray) -> FloatArray:
    """ln Σ_{j < a} x^j / j! = x + ln Q(a, x); where Q underflows, the last terms' series."""
    from scipy.special import gammaincc, gammaln

    q = gammaincc(a, x)
    out = np.asarray(x + np.log(q))
    far = ~(q > 1e-250)
    if np.any(far):
        af, xf = np.broadcast_to(a, far.shape)[far], np.broadcast_to(x, far.shape)[far]
        term, total = np.ones_like(xf), np.ones_like(xf)
        for i in range(48):
            term = term * np.maximum(af - 1 - i, 0.0) / xf
            total += term
        out[far] = (af - 1) * np.log(xf) - gammaln(af) + np.log(total)
    return out


def queue(k: FloatArray, s: FloatArray, z: FloatArray, d: FloatArray) -> FloatArray:
    """Completions per second of k tokens between a delay of z s and s servers of d s each
    (the finite-source queue, in closed form: C(k, n) ρⁿ below s servers, a truncated
    exponential series above; z > 0 here)."""
    from scipy.special import gammaln

    z = np.where(k > MANY, z * MANY / np.maximum(k, 1.0), z)
    k = np.minimum(k, MANY)
    f = np.floor(s)
    log_rho, log_s = np.log(d / z), np.log(s)
    a = np.maximum(k - f, 1.0)
    log_t = f * log_s - gammaln(f + 1) + gammaln(k + 1) + k * (log_rho - log_s) \
        + _log_exp_series(a, np.exp(log_s - log_rho))
    log_t = np.where(k - f >= 1, log_t, -np.inf)
    heads = [np.zeros_like(k)]
    for n in range(1, int(np.max(f)) + 1):
        heads.append(np.where((n <= f) & (n <= k), heads[-1] + np.log(np.maximum(k - n + 1, 0.0))
                              - math.log(n) + log_rho, -np.inf))
    top = log_t
    for h in heads:
        top = np.maximum(top, h)
    w = np.exp(log_t - top)
    weight, busy = w.copy(), s * w
    for n, h in enumerate(heads):
        w = np.exp(h - top)
        weight += w
        busy += n * w
    return np.asarray(busy / weight / d)


def floor(axes: Mapping[str, FloatArray], fab: Mapping[str, float], node: Mapping[str, float],
          values: Mapping[str, float], size: float) -> FloatArray:
    """ppm's time per step on every configuration of ``axes`` (nodes, channels, link_speed,
    latency: a 4-D grid by broadcasting, flattened in the sweep's order)."""
    with np.errstate(all="ignore"):
        return _floor(axes, fab, node, values, size)


def _floor(axes: Mapping[str, FloatArray], fab: Mapping[str, float],
           node: Mapping[str, float], values: Mapping[str, float], size: float) -> FloatArray:
    p, c, rate, lat = (np.asarray(axes[k], dtype=np.float64).reshape(
        [-1 if j == i else 1 for j in range(4)])
        for i, k in enumerate(("nodes", "channels", "link_speed", "latency")))
    eta, copy, bond = fab["eta"], fab["copy"], fab["bond"]
    packet, header = fab["packet"], fab["header"]
    wire_rate = rate * eta

    def bonded(x: FloatArray) -> FloatArray:
        return 1.0 + (x - 1.0) * bond

    def one_round(m: FloatArray, k: FloatArray) -> FloatArray:
        """k messages of m bytes at once on the shared channels: the queue's throughput, at
        worst one message alone."""
        packets = np.maximum(np.ceil(m / packet), 1.0)
        hold = (m + packets * header) / wire_rate / bonded(np.minimum(packets, c))
        first = np.minimum(m, packet)
        t1 = lat + np.maximum(copy * m, hold) + np.minimum(copy * first,
                                                          (first + header) / wire_rate)
        servers = bonded(c) / bonded(np.minimum(packets, c))
        return np.maximum(k / queue(k, servers, np.maximum(t1 - hold, 0.0), hold), t1)

    tiles = np.ceil(size / p)
    flop_rate = node["flop_rate"]
    m = 4 * 30 * np.sqrt(tiles) * values["ghost_values"] * 8
    compute = values["flops_per_zone"] * values["zones"] * tiles / flop_rate
    communication = np.where(p > 1, 8 * (lat + copy * m), 0.0)
    exchange = np.where(p > 1, 4 * one_round(m, p), 0.0)
    levels = np.ceil(np.log2(p))
    barrier = levels * one_round(np.zeros_like(p), p)
    sync = np.maximum(0.0, exchange - values["flops_per_zone"] * 484 * tiles / flop_rate) \
        + values["end_wait"] * (p - 1) + barrier
    return np.asarray(compute + communication + sync).reshape(-1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    from perfmodel.apps.fit import fit_app, timing_inputs
    from perfmodel.apps.model_file import load as load_model
    from perfmodel.apps.timings import read_timings
    from perfmodel.machine import Machine
    from perfmodel.machine.profile import load
    from perfmodel.whatif.sweep import Grid, sweep

    prof = load(ROOT / "calibration" / "beowulf-1995.toml")
    model = load_model("ppm")
    rows = read_timings(ROOT / "data" / "seeds" / "beowulf-1995-apps.csv").select(
        code="ppm", use="fit")
    times, sizes = timing_inputs(model, rows, {})
    fit = fit_app(model, rows.processes, times, rows.parts, {}, machine=Machine(prof),
                  sizes=sizes)
    axes = {"nodes": np.arange(1.0, 1025.0), "channels": np.arange(1.0, 5.0),
            "link_speed": np.geomspace(1.25e6, 1.25e9, 16),
            "latency": np.geomspace(1e-6, 1e-3, 16)}
    grid = Grid(axes)
    n = grid.size
    cfg = grid.flat()
    on = Machine(prof, cfg["channels"], cfg["link_speed"], overhead=cfg["latency"])
    p = cfg["nodes"]
    n1 = model.size.value if model.size else 1.0
    size = np.full_like(p, n1)
    assert prof.fabric is not None and prof.node is not None and prof.fabric.box == 1
    fab, node = prof.fabric.values, prof.node.values
    model.evaluate(p[:8], fit.values, Machine(prof, cfg["channels"][:8],
                                              cfg["link_speed"][:8],
                                              overhead=cfg["latency"][:8]), size[:8])
    floor(axes, fab, node, fit.values, n1)
    passes, evals, sweeps, ones, floors = [], [], [], [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        model.evaluate(p, fit.values, on, size)
        passes.append(time.perf_counter() - start)
        start = time.perf_counter()
        sweep(fit, prof, grid, band=False)
        evals.append(time.perf_counter() - start)
        start = time.perf_counter()
        whole = sweep(fit, prof, grid)
        sweeps.append(time.perf_counter() - start)
        start = time.perf_counter()
        sweep(fit, prof, grid, workers=1)
        ones.append(time.perf_counter() - start)
        start = time.perf_counter()
        bare = floor(axes, fab, node, fit.values, n1)
        floors.append(time.perf_counter() - start)
    with np.errstate(all="ignore"):
        differs = float(np.nanmax(np.abs(bare / whole.time - 1.0)))
    print(f"cores: {os.cpu_count()}")
    for label, runs in (("one pass, one core", passes), ("evaluation (times, speedups)", evals),
                        ("sweep (times, speedups, band)", sweeps),
                        ("sweep, one core", ones),
                        ("floor (bare NumPy closed form, one core)", floors)):
        med = statistics.median(runs)
        print(f"{label}: {n:,} configurations in {med:.3f} s median "
              f"({min(runs):.3f}-{max(runs):.3f} s over {args.runs} runs): "
              f"{n / med:,.0f} configurations per second")
    floor_s = statistics.median(floors)
    print(f"sweep / floor: {statistics.median(sweeps) / floor_s:.1f}x on {os.cpu_count()} "
          f"cores, {statistics.median(ones) / floor_s:.1f}x on one (issue 29: at most 10x; "
          f"the floor's times differ from the sweep's by at most {differs:.1e}, relative)")


if __name__ == "__main__":
    main()
