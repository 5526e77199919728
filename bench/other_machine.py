#!/usr/bin/env python3
"""The baselines a "same code, other machine" prediction must beat (issue 32), measured on
real timings nobody on the team wrote: the alaska cluster of
``../shared/datasets/excalibur-alaska``, whose applications (CP2K H2O-256, GROMACS 61k,
1400k and 3000k atoms, OpenFOAM motorbike) ran at 1 … 16 nodes, 32 ranks a node, on the same
nodes over EDR InfiniBand and over 25 GbE RoCE (Open MPI + UCX), their ReFrame perflogs read
by perfmodel's own reader.

Each series is the application's own time of a run (CP2K ``cp2k_time``, GROMACS ``wall_t``,
OpenFOAM ``ClockTime``), the least of the repeats at each node count (the usual reading of a
fixed-size benchmark).  From the times on network A, the times on B at the multi-node counts
both have (one node never crosses the network), by:

- "B = A": the time on A unchanged;
- "A × (1 − f + f·r)": ``f`` the parallel-overhead share on A at that count,
  1 − T_A(1) / (n·T_A(n)), clipped to [0, 1], and ``r`` the ratio of the networks' one-way
  latency of a small message (``osu_latency`` at 8 B on each).

and perfmodel's own answer, ``predict --fit … --machine A --on B`` without a model
(:func:`perfmodel.apps.transfer.move`, the profiles ``calibration/alaska-edr.toml`` and
``alaska-roce.toml`` calibrated from the OSU outputs of the same partitions), with its 95 %
range: coverage (the share of measured times inside it) and median width (high / low).

Errors are |predicted / measured − 1|; the median is given per series and over every point,
in both directions (IB → RoCE, RoCE → IB).  A second table leaves each code's 16-node run out
of A's runs: perfmodel extrapolates A's time there (its empirical scaling form) before moving
it, beside "A at 8 nodes, shared perfectly" and Amdahl's law fitted on A and moved by the rule
of thumb.  Not blind: perfmodel's method was chosen on
IB → RoCE looking at these points (2026-11-27: the message size behind the overhead among
8 B, 64 B, 1 KiB, 8 KiB, 64 KiB and an allreduce or a halo of them, the work from the one-node
run or from a fitted Amdahl, log or linear form; the range's parts); RoCE → IB mirrors the
same points.

    .venv/bin/python bench/other_machine.py [--markdown]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "datasets" / "excalibur-alaska"
NETWORKS = {"IB": "ib-gcc9-openmpi4-ucx", "RoCE": "roce-gcc9-openmpi4-ucx"}
PROFILES = {"IB": ROOT / "calibration" / "alaska-edr.toml",
            "RoCE": ROOT / "calibration" / "alaska-roce.toml"}
PERFMODEL = "perfmodel"
FIGURES = {"cp2k": "cp2k_time", "gromacs": "wall_t", "openfoam": "ClockTime"}
LATENCY_SIZE = 8.0

sys.path.insert(0, str(ROOT))


def runs(partition: str) -> dict[str, object]:
    """Each application's runs (:class:`perfmodel.apps.transfer.Runs`), as ``predict --fit``
    reads them from its perflogs."""
    from perfmodel.apps.transfer import read_runs

    out: dict[str, object] = {}
    for app, figure in FIGURES.items():
        for code in sorted({re.sub(r"_\d+$", "", d.name)
                            for d in (DATA / "perflogs" / partition / app).iterdir()}):
            out[code] = read_runs(DATA / "perflogs" / partition / app,
                                  {"figure": figure, "code": code})
    return out


def latency(partition: str) -> float:
    """One-way seconds of an 8-byte message, as osu_latency measured it there."""
    from perfmodel.readers import read

    (path,) = sorted((DATA / "output" / partition / "omb" / "Osu_latency").glob("*.out"))
    (t,) = read(path)
    return float(np.interp(LATENCY_SIZE, t.size, t.time))


def study() -> tuple[dict[str, dict[str, object]], dict[str, object], dict[str, float]] | None:
    """Each network's codes' runs, machine and 8-byte latency; None, said, without the data."""
    if not DATA.is_dir():
        print(f"skipped: no alaska data at {DATA} (the project's ../shared/datasets)")
        return None
    from perfmodel.machine import Machine
    from perfmodel.machine.profile import load

    return ({net: runs(part) for net, part in NETWORKS.items()},
            {net: Machine(load(path)) for net, path in PROFILES.items()},
            {net: latency(part) for net, part in NETWORKS.items()})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    got = study()
    if got is None:
        return
    every_run, machines, lat = got
    print(f"one-way latency at {LATENCY_SIZE:g} B: "
          + ", ".join(f"{net} {v * 1e6:.2f} µs" for net, v in lat.items()))
    from cloud_pairs import NAMES, WITH_B, Tally, score, score_with_b

    for src, dst in (("IB", "RoCE"), ("RoCE", "IB")):
        r = lat[dst] / lat[src]
        print(f"\n{'### ' if args.markdown else ''}{src} → {dst} (latency ratio r = {r:.2f})\n")
        print("| series | points | " + " | ".join(NAMES) + " | 95 % range covers | "
              "median width |")
        print("|---" * (len(NAMES) + 4) + "|")
        tally = Tally()
        for app in sorted(set(every_run[src]) & set(every_run[dst])):
            cells = tally.row(score(every_run[src][app], every_run[dst][app], machines[src],
                                    machines[dst], r))
            print(f"| {app} | {cells}")
        print(f"| all | {tally.total()}")
    for src, dst in (("IB", "RoCE"), ("RoCE", "IB")):
        best_ratio(every_run[src], every_run[dst], lat[dst] / lat[src], f"{src} → {dst}")
    for src, dst in (("IB", "RoCE"), ("RoCE", "IB")):
        untimed(every_run[src], every_run[dst], machines[src], machines[dst],
                lat[dst] / lat[src], f"{src} → {dst}", args.markdown)
    print(f"\n{'### ' if args.markdown else ''}Given B's own one-node run (`predict "
          "--on-fit`)\n")
    print("| A → B | points | " + " | ".join(WITH_B) + " | 95 % range covers | median width |")
    print("|---" * (len(WITH_B) + 4) + "|")
    for src, dst in (("IB", "RoCE"), ("RoCE", "IB")):
        given = Tally(WITH_B)
        for app in sorted(set(every_run[src]) & set(every_run[dst])):
            given.row(score_with_b(every_run[src][app], every_run[dst][app], machines[src],
                                   machines[dst]))
        print(f"| {src} → {dst} | {given.total()}")


def best_ratio(a_runs: dict[str, object], b_runs: dict[str, object], r: float,
               title: str) -> None:
    """How far any one ratio could go: the median error over the same points of
    work + overhead · x, for x on a grid (what the rule does with x = r), and the x that
    does best.  An upper bound on what choosing the ratio better could win here."""
    grid = np.round(np.arange(0.5, 2.5001, 0.01), 2)
    errs = np.zeros((len(grid), 0))
    for code in sorted(set(a_runs) & set(b_runs)):
        ra, rb = a_runs[code], b_runs[code]
        t1 = float(ra.time[0])   # type: ignore[attr-defined]
        for n, ta in zip(ra.nodes[1:], ra.time[1:], strict=True):   # type: ignore[attr-defined]
            tb = float(rb.time[rb.nodes == n][0])   # type: ignore[attr-defined]
            work = t1 / n
            guess = work + max(ta - work, 0.0) * grid
            errs = np.c_[errs, np.abs(guess / tb - 1)]
    med = np.median(errs, axis=1)
    i = int(np.argmin(med))
    at_r = float(np.median(np.abs(errs[np.argmin(np.abs(grid - r))])))
    print(f"\n{title}: the overhead moved by any one ratio x (0.50 to 2.50): the best median "
          f"is {med[i]:.1%} at x = {grid[i]:.2f}; the 8-byte latency ratio {r:.2f} gives "
          f"{at_r:.1%}; x within 0.05 of the best gives {med[max(i - 5, 0)]:.1%} to "
          f"{med[min(i + 5, len(grid) - 1)]:.1%}")


def untimed(a_runs: dict[str, object], b_runs: dict[str, object], a: object, b: object,
            r: float, title: str, markdown: bool) -> None:
    """A count A never ran: each code's 16-node run on A left out, its time on B predicted
    from A's runs at 1 … 8 nodes, beside "B = A at 8 nodes, shared perfectly" (T_A(8)·8/16)
    and Amdahl's law fitted on A's runs at 1 … 8 nodes moved by the rule of thumb."""
    from perfmodel.apps.transfer import move, runs

    print(f"\n{'### ' if markdown else ''}{title}, 16 nodes left out of A's runs\n")
    names = ("A(8) · 8/16", "Amdahl on A × (1 − f + f·r)", PERFMODEL)
    print("| series | measured on B | " + " | ".join(names) + " | 95 % range |")
    print("|---" * (len(names) + 3) + "|")
    errs: dict[str, list[float]] = {k: [] for k in names}
    inside, widths = [], []
    for code in sorted(set(a_runs) & set(b_runs)):
        ra, rb = a_runs[code], b_runs[code]
        keep = ra.nodes < 16   # type: ignore[attr-defined]
        sub = runs(ra.nodes[keep], ra.processes[keep], ra.time[keep])   # type: ignore[attr-defined]
        truth = float(rb.time[rb.nodes == 16][0])   # type: ignore[attr-defined]
        got = move(sub, a, b, 0.95, [16.0])   # type: ignore[arg-type]
        t = dict(zip(sub.nodes.tolist(), sub.time.tolist(), strict=True))
        x = np.c_[np.ones(len(sub.nodes)), 1 / sub.nodes]
        (serial, work), *_ = np.linalg.lstsq(x, sub.time, rcond=None)
        t16 = serial + work / 16
        f = float(np.clip(1 - t[1.0] / (16 * t16), 0, 1))
        guesses = {names[0]: t[8.0] * 8 / 16, names[1]: t16 * (1 - f + f * r),
                   PERFMODEL: float(got.time[0])}
        for k, v in guesses.items():
            errs[k].append(abs(v / truth - 1))
        inside.append(bool(got.time_lo[0] <= truth <= got.time_hi[0]))
        widths.append(float(got.time_hi[0] / got.time_lo[0]))
        print(f"| {code} | {truth:.4g} s | " + " | ".join(f"{v:.4g} s" for v in guesses.values())
              + f" | {got.time_lo[0]:.4g}–{got.time_hi[0]:.4g} s |")
    print("| median error | | " + " | ".join(f"{np.median(errs[k]):.1%}" for k in names)
          + f" | covers {sum(inside)}/{len(inside)}, median width ×{np.median(widths):.2f} |")


if __name__ == "__main__":
    main()
