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

Errors are |predicted / measured − 1|; the median is given per series and over every point,
in both directions (IB → RoCE, RoCE → IB).  perfmodel's own prediction of this question is
not here yet: this is the mark it must beat.

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
FIGURES = {"cp2k": "cp2k_time", "gromacs": "wall_t", "openfoam": "ClockTime"}
LATENCY_SIZE = 8.0

sys.path.insert(0, str(ROOT))


def series(partition: str) -> dict[str, dict[int, float]]:
    """Each application's least time at each node count, from its perflogs."""
    from perfmodel.readers import read

    out: dict[str, dict[int, float]] = {}
    for app, figure in FIGURES.items():
        for path in sorted((DATA / "perflogs" / partition / app).glob("*/*.log")):
            for t in read(path):
                if t.attrs.get("figure") != figure:
                    continue
                name = re.sub(r"_\d+$", "", t.attrs["test"])
                for nodes, time in zip(t.extra["nodes"], t.time, strict=True):
                    got = out.setdefault(name, {})
                    got[int(nodes)] = min(got.get(int(nodes), np.inf), float(time))
    return out


def latency(partition: str) -> float:
    """One-way seconds of an 8-byte message, as osu_latency measured it there."""
    from perfmodel.readers import read

    (path,) = sorted((DATA / "output" / partition / "omb" / "Osu_latency").glob("*.out"))
    (t,) = read(path)
    return float(np.interp(LATENCY_SIZE, t.size, t.time))


def predict(a: dict[int, float], n: int, r: float) -> dict[str, float]:
    f = float(np.clip(1.0 - a[1] / (n * a[n]), 0.0, 1.0)) if 1 in a else 0.0
    return {"B = A": a[n], "A × (1 − f + f·r)": a[n] * (1.0 - f + f * r)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"skipped: no alaska data at {DATA} (the project's ../shared/datasets)")
        return
    times = {net: series(part) for net, part in NETWORKS.items()}
    lat = {net: latency(part) for net, part in NETWORKS.items()}
    print(f"one-way latency at {LATENCY_SIZE:g} B: "
          + ", ".join(f"{net} {v * 1e6:.2f} µs" for net, v in lat.items()))
    for src, dst in (("IB", "RoCE"), ("RoCE", "IB")):
        r = lat[dst] / lat[src]
        print(f"\n{'### ' if args.markdown else ''}{src} → {dst} (latency ratio r = {r:.2f})\n")
        names = ("B = A", "A × (1 − f + f·r)")
        print("| series | points | " + " | ".join(names) + " |")
        print("|---" * (len(names) + 2) + "|")
        every: dict[str, list[float]] = {k: [] for k in names}
        for app in sorted(set(times[src]) & set(times[dst])):
            a, b = times[src][app], times[dst][app]
            counts = sorted(n for n in set(a) & set(b) if n > 1)
            errs: dict[str, list[float]] = {k: [] for k in names}
            for n in counts:
                for k, p in predict(a, n, r).items():
                    errs[k].append(abs(p / b[n] - 1))
            for k in names:
                every[k] += errs[k]
            print(f"| {app} | {len(counts)} | "
                  + " | ".join(f"{np.median(errs[k]):.1%}" for k in names) + " |")
        print(f"| all | {len(every[names[0]])} | "
              + " | ".join(f"{np.median(every[k]):.1%}" for k in names) + " |")


if __name__ == "__main__":
    main()
