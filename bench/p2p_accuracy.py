#!/usr/bin/env python3
"""Point-to-point accuracy: fit on some message sizes of every ping-pong dataset in data/,
predict the others.

Each dataset is read as ``perfmodel calibrate`` reads it (its single-stream rows) and split two
ways by message size:

- even/odd: fitted on the sizes of even index (smallest first), scored on the odd ones;
- small to large: fitted on the sizes up to 64 KiB, scored on those from 256 KiB up.

The fit is perfmodel's own (``perfmodel.network.fit.fit``): ``auto`` (every model, the choice
the calibrate command makes, named in the table) and plain Hockney as the classic baseline.  The
error at a scored size is |predicted − measured| / measured, the measured time being the median
of that size's rows; per dataset and split the median and the maximum, in %.  A split a dataset
cannot make (fewer than two sizes to fit on, or nothing to score) is listed with the reason.

    .venv/bin/python bench/p2p_accuracy.py [--markdown]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
KIB = 1024.0
DATASETS = (   # (label, path relative to the project); every ping-pong file in data/
    ("Beowulf 1995, token ping-pong (seed prose)", "data/seeds/beowulf-1995-ethernet.csv"),
    ("Hyglac MPI (seed prose)", "data/seeds/hyglac-mpi.csv"),
    ("Hyglac sockets (seed prose)", "data/seeds/hyglac-sockets.csv"),
    ("mpi4py.bench, MPICH", "data/mpi4py/pingpong_mpich.csv"),
    ("mpi4py.bench, Open MPI", "data/mpi4py/pingpong_ompi.csv"),
    ("this machine, perfmodel measure", "data/local/pingpong-np2.csv"),
    ("this machine, mpi4py.bench", "data/local/mpi4py-bench-pingpong-np2.txt"),
    ("this machine, 1 of the pairs (single stream)", "data/local/pairs-np4.csv"),
)
MODELS = ("auto", "hockney")


def splits(sizes: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each split's sizes to fit on and sizes to score, from the distinct sizes."""
    return {"even/odd": (sizes[0::2], sizes[1::2]),
            "≤ 64 KiB → ≥ 256 KiB": (sizes[sizes <= 64 * KIB], sizes[sizes >= 256 * KIB])}


def run(path: Path) -> list[dict[str, Any]]:
    from perfmodel.inputs import gather
    from perfmodel.network.fit import fit

    data = gather([path])[0]
    sizes = np.unique(data.size)
    out = []
    for split, (fit_on, scored) in splits(sizes).items():
        row: dict[str, Any] = {"split": split, "fitted_sizes": len(fit_on),
                                  "scored_sizes": len(scored), "points": len(data.size)}
        if len(fit_on) < 2 or len(scored) == 0:
            row["skipped"] = (f"{len(fit_on)} size(s) to fit on, {len(scored)} to score: "
                              "too few")
            out.append(row)
            continue
        part = data.take(np.isin(data.size, fit_on))
        measured = np.array([np.median(data.time[data.size == s]) for s in scored])
        row["scored_range"] = [float(scored.min()), float(scored.max())]
        for model in MODELS:
            start = time.perf_counter()
            try:
                chosen = fit(part, model).best.model
            except Exception as exc:   # a model the subset cannot determine: say so
                row[model] = {"error": str(exc).splitlines()[0]}
                continue
            took = time.perf_counter() - start
            err = 100 * np.abs(chosen.time(scored) / measured - 1.0)
            err = np.where(np.isfinite(err), err, 100.0)
            row[model] = {"model": chosen.kind, "median": float(np.median(err)),
                          "max": float(np.max(err)), "seconds": took}
        out.append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = ap.parse_args()
    from perfmodel.units import format_size

    run(ROOT / DATASETS[-1][1])   # warm-up: the first fit pays for lmfit's and SciPy's imports
    results: list[dict[str, Any]] = []
    for label, rel in DATASETS:
        for row in run(ROOT / rel):
            results.append({"dataset": label, "path": rel, **row})
    if not args.markdown:
        print(json.dumps(results, indent=1))
        return
    print("| dataset | split | sizes fitted → scored | perfmodel (auto): model | median % | "
          "max % | Hockney median % | Hockney max % | fit time (auto) |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|")
    done: dict[str, list[float]] = {m: [] for m in MODELS}
    for r in results:
        head = f"| {r['dataset']} | {r['split']} | "
        if "skipped" in r:
            print(head + f"{r['fitted_sizes']} → {r['scored_sizes']} | not scored: "
                  f"{r['skipped']} | | | | | |")
            continue
        lo, hi = r["scored_range"]
        cells = []
        for m in MODELS:
            got = r[m]
            if "error" in got:
                cells += [f"not fitted ({got['error']})", "", ""]
                continue
            done[m].append(got["median"])
            cells += ([got["model"]] if m == "auto" else []) + [
                f"{got['median']:.1f}", f"{got['max']:.1f}"]
        auto = r["auto"]
        took = f"{1000 * auto['seconds']:.0f} ms" if "seconds" in auto else ""
        scored = f"{format_size(lo)}–{format_size(hi)}"
        print(head + f"{r['fitted_sizes']} → {r['scored_sizes']} ({scored}) | "
              + " | ".join(cells) + f" | {took} |")
    print("| **median over the scored splits** | | | | "
          f"**{np.median(done['auto']):.1f}** | | **{np.median(done['hockney']):.1f}** | | |"
          if done["auto"] and done["hockney"] else "")
    print(f"\n{len(done['auto'])} splits scored; errors are |predicted − measured| / measured "
          "at each scored size (the median of its rows), per split the median and the largest; "
          "fit time: perfmodel's auto fit in this process, after one warm-up fit.")


if __name__ == "__main__":
    main()
