#!/usr/bin/env python3
"""Issue 33's point-to-point extrapolation and interpolation on real ping-pong series, split by
source: the method may be chosen on the **tune** part and is reported on the **held-out** part.

Each series is one file's ping-pong table as ``perfmodel calibrate`` reads it (its first
point-to-point table, single stream), fitted two ways:

- extrapolation: on the sizes up to 64 KiB, scored on the sizes from 256 KiB up;
- interpolation: on the sizes of even index, scored on those of odd index.

The error at a scored size is |predicted / measured − 1| (the measured time: the median of that
size's rows).  Methods on the same points: perfmodel (``perfmodel.network.fit.fit``, ``auto``:
calibrate's own choice, held inside the sizes fitted to their measured times as a profile is;
the same law alone; and its ``piecewise`` law with the table), Hockney (the law alone),
pycewise (PyPI, BIC mode,
in its own environment ``build/pycewise-venv`` made on first use; ``--no-pycewise`` leaves it
out), and a segmented
fit: straight segments t = a + b·s, breakpoints at measured sizes, 1 to 4 segments chosen by
BIC on relative residuals, extrapolated along its last segment.

- **tune**: the project's own fixtures (``tests/fixtures/benchmarks``, the public ones
  included), the alaska outputs (``data/alaska``), this machine's (``data/local``,
  ``data/mpi4py``) and the cloud study's OSU outputs (``data/pairs/osu``, one latency file per
  environment);
- **held-out**: ``data/p2p-corpus`` (gathered 2026-11-27, scored once a method was fixed);
- **third**: ``data/p2p-third`` (gathered after the held-out part had been seen; three
  ``osu_latency`` outputs of one Google Cloud TCP network, scored once).

- **fourth**: ``data/p2p-fourth`` (gathered after the third had been seen, the method
  unchanged since: Slingshot 11 at CSCS, 100G InfiniBand at SJTU, SDSC Comet's InfiniBand;
  five files, three networks), scored once;
- **fifth**: ``data/p2p-fifth`` (gathered after the fourth had been seen and predictions past
  a table held to its top rate: eight OSU suite logs of USC Discovery, InfiniBand and TCP
  transports), scored once;
- **sixth**: ``data/p2p-sixth`` (gathered after the fifth had been seen, the method unchanged
  since: Azure HDR InfiniBand, Slingshot 11 between Grace-Hopper GPUs, ABCI's two InfiniBand
  node types, a university cluster's Omni-Path, InfiniBand and shared memory; seven files,
  four sources), scored once;
- **seventh**: ``data/p2p-seventh`` (gathered after a jump inside a table's top doubling was
  paid once, a rule chosen looking at every part before: three inter-node ``osu_latency``
  tables, a College of Charleston InfiniBand cluster and Innsbruck's LCC2), scored once;
- **eighth**: ``data/p2p-eighth`` (gathered after the jump rule's guards were added: Azure
  HC44rs InfiniBand ``ib_send_lat``, and a NetPIPE ``np.out`` of an unstated network), scored
  once;
- **ninth**: ``data/p2p-ninth`` (gathered after the eighth had been seen, the method unchanged
  since: two IMB PingPong tables of unstated networks, openflighthpc's documentation and
  NREL/ESIFHPC2), scored once;
- **tenth**: ``data/p2p-tenth`` (gathered once perfmodel read MPIBenchmarks.jl's CSV files, the
  method unchanged since the seventh: ``osu_latency`` and IMB ``PingPong`` in Julia on Fugaku,
  UCL Kathleen, PC2's Noctua clusters and a PBS cluster; seven files, four sources), scored once;
- **eleventh**: ``data/p2p-eleventh`` (gathered once the tenth had been seen, the method
  unchanged since the seventh: IMB PingPong of STFC's SCARF over InfiniBand DDR, QDR and FDR
  and over 1 and 10 GbE TCP, JASMIN LOTUS over 10 GbE, two STFC cloud VMs; Summit's
  ``osu_latency``; an ``osu_latency`` example of unknown origin; ten files, three sources; the
  gatherer read the STFC write-up's outline of its peak rates, said in its README), committed
  before its first run, scored once;
- **twelfth**: ``data/p2p-twelfth`` (gathered once the eleventh had been seen, the method
  unchanged: one IMB PingPong between two Azure InfiniBand VMs, xpillons/azure-hpc), committed
  before its first run, scored once.

    .venv/bin/python bench/p2p_corpus.py [--part tune|...|twelfth|all]
        [--series]
        [--no-pycewise]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
VENV = ROOT / "build" / "pycewise-venv"
KIB = 1024.0
SPLITS = ("extrapolation", "interpolation")


def series_paths() -> list[tuple[str, str, Path]]:
    """(part, name, file) of every candidate ping-pong file."""
    out: list[tuple[str, str, Path]] = []
    fix = ROOT / "tests" / "fixtures" / "benchmarks"
    for f in sorted([*fix.glob("*.*"), *(fix / "public").glob("*.*")]):
        if f.suffix != ".md":
            out.append(("tune", f"fixture {f.relative_to(fix)}", f))
    for f in sorted((ROOT / "data" / "alaska").glob("*/omb/Osu_latency/*.out")):
        out.append(("tune", f"alaska {f.parts[-4]}", f))
    for f in [*sorted((ROOT / "data" / "local").glob("pingpong*.csv")),
              ROOT / "data" / "local" / "mpi4py-bench-pingpong-np2.txt",
              *sorted((ROOT / "data" / "mpi4py").glob("pingpong*.csv"))]:
        out.append(("tune", f"local {f.name}", f))
    for env in sorted(d for d in (ROOT / "data" / "pairs" / "osu").iterdir() if d.is_dir()):
        first = sorted([*env.glob("osu_latency*"), *env.glob("combined*")])
        if first:
            out.append(("tune", f"cloud {env.name}", first[0]))
    for f in sorted((ROOT / "data" / "p2p-corpus").rglob("*.txt")):
        out.append(("held-out", f"{f.parent.name}/{f.name}", f))
    for f in sorted((ROOT / "data" / "p2p-third").rglob("*.txt")):
        out.append(("third", f"{f.parent.name}/{f.name}", f))
    for f in sorted((ROOT / "data" / "p2p-fourth").rglob("*.txt")):
        out.append(("fourth", f"{f.parent.name}/{f.name}", f))
    for part in ("fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth"):
        for f in sorted((ROOT / "data" / f"p2p-{part}").rglob("*.txt")):
            out.append((part, f"{f.parent.name}/{f.name}", f))
    return out


def load(path: Path) -> Any:
    """The table perfmodel's law would be fitted to (``perfmodel.inputs.gather``), or None
    when the file has no ping-pong (a bandwidth-only fixture, a collective …)."""
    from perfmodel.inputs import gather

    try:
        data = gather([path])[0]
    except Exception:   # not a ping-pong file: skipped
        return None
    return data if data is not None and len(data.size) else None


def split(sizes: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    u = np.unique(sizes)
    if kind == "extrapolation":
        return u[u <= 64 * KIB], u[u >= 256 * KIB]
    return u[0::2], u[1::2]


def segmented(x: np.ndarray, y: np.ndarray, q: np.ndarray, most: int = 4) -> np.ndarray:
    """Straight segments by least squares on relative residuals, breakpoints at measured
    sizes (each segment two distinct sizes at least), the count chosen by BIC; extrapolated
    along the end segments."""
    order = np.argsort(x)
    x, y = x[order], y[order]
    u = np.unique(x)
    n = len(x)

    def line(lo: int, hi: int) -> tuple[np.ndarray, float]:
        sel = (x >= u[lo]) & (x <= u[hi])
        a = np.c_[np.ones(sel.sum()), x[sel]] / y[sel, None]
        coef, *_ = np.linalg.lstsq(a, np.ones(sel.sum()), rcond=None)
        r = a @ coef - 1
        return coef, float(r @ r)

    best: tuple[float, list[tuple[int, int, np.ndarray]]] | None = None
    m = len(u)
    cache: dict[tuple[int, int], tuple[np.ndarray, float]] = {}

    def seg(lo: int, hi: int) -> tuple[np.ndarray, float]:
        if (lo, hi) not in cache:
            cache[(lo, hi)] = line(lo, hi)
        return cache[(lo, hi)]

    for k in range(1, most + 1):
        # dynamic programming over segment ends: the least RSS of k segments ending at j
        inf = (math.inf, [])
        table: list[list[tuple[float, list[tuple[int, int]]]]] = [[inf] * m for _ in range(k + 1)]
        for j in range(1, m):
            table[1][j] = (seg(0, j)[1], [(0, j)])
        for s in range(2, k + 1):
            for j in range(1, m):
                for i in range(1, j):   # the last segment covers u[i] … u[j]
                    prev = table[s - 1][i - 1]
                    if not prev[1]:   # the segments before need two sizes each
                        continue
                    rss = prev[0] + seg(i, j)[1]
                    if rss < table[s][j][0]:
                        table[s][j] = (rss, [*prev[1], (i, j)])
        rss, segs = table[k][m - 1]
        if not segs:
            continue
        bic = n * math.log(max(rss, 1e-300) / n) + (3 * k - 1) * math.log(n)
        if best is None or bic < best[0]:
            best = (bic, [(lo, hi, seg(lo, hi)[0]) for lo, hi in segs])
    assert best is not None
    segs = best[1]
    out = np.empty(len(q))
    for i, v in enumerate(q):
        pick = next((c for lo, hi, c in segs if u[lo] <= v <= u[hi]), None)
        if pick is None:
            pick = segs[-1][2] if v > u[-1] else segs[0][2] if v < u[0] else \
                min(segs, key=lambda s: min(abs(v - u[s[0]]), abs(v - u[s[1]])))[2]
        out[i] = pick[0] + pick[1] * v
    return out


SPLIT_AT = (16 * KIB, 64 * KIB, 256 * KIB, 1024 * KIB)
"""Where :func:`calibrate` cuts each series: fitted up to the cut, scored from twice it."""
LEVELS = (0.5, 0.68, 0.8, 0.9, 0.95, 0.99)


def calibrate() -> None:
    """The tune part's quantiles of z = |ln(measured / predicted)| / √(doublings past the
    largest size fitted), √log2(m / largest): what
    :data:`perfmodel.network.predict.EXTRAPOLATION_K` holds.  Each series is cut at every size
    of :data:`SPLIT_AT` it reaches with 8 sizes fitted, and scored from twice the cut up.  (The
    95th percentile of |ln e| grows far slower than the doublings, 1.1 at one, 1.4–1.5 at five
    to eight: divided by their square root it stays within 0.5–1.0, by the doublings
    themselves it falls from 0.85 to 0.19.)"""
    from perfmodel.network.fit import fit

    z: list[np.ndarray] = []
    for part, _name, path in series_paths():
        table = load(path) if part == "tune" else None
        if table is None:
            continue
        sizes, times = np.asarray(table.size, dtype=float), np.asarray(table.time, dtype=float)
        u = np.unique(sizes)
        for cut in SPLIT_AT:
            on, scored = u[u <= cut], u[u >= 2 * cut]
            if len(on) < 8 or len(scored) == 0:
                continue
            try:
                model = fit(table.take(np.isin(sizes, on)), "auto").best.model
            except Exception:   # a subset no law fits: nothing to learn from
                continue
            measured = np.array([np.median(times[sizes == s]) for s in scored])
            z.append(np.abs(np.log(measured / model.time(scored)))
                     / np.sqrt(np.log2(scored / on[-1])))
    every = np.concatenate(z)
    print(f"tune: {len(z)} cuts, {len(every)} points; quantiles of |ln e| / √(doublings past "
          "the largest size fitted)")
    print("EXTRAPOLATION_K = {" + ", ".join(f"{q:g}: {np.quantile(every, q):.3f}"
                                             for q in LEVELS) + "}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("tune", "held-out", "third", "fourth", "fifth", "sixth",
                                       "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth",
                                       "all"),
                    default="tune")
    ap.add_argument("--series", action="store_true")
    ap.add_argument("--no-pycewise", action="store_true")
    ap.add_argument("--calibrate", action="store_true",
                    help="print the extrapolation range's table from the tune part, and stop")
    args = ap.parse_args()
    if args.calibrate:
        calibrate()
        return
    from perfmodel.network.fit import fit
    from perfmodel.network.predict import predict

    rows = []
    py_in = []
    for part, name, path in series_paths():
        if args.part != "all" and part != args.part:
            continue
        table = load(path)
        if table is None:
            continue
        sizes, times = np.asarray(table.size, dtype=float), np.asarray(table.time, dtype=float)
        for kind in SPLITS:
            on, scored = split(sizes, kind)
            if len(on) < 4 or len(scored) == 0 or (kind == "extrapolation" and
                                                   len(np.unique(sizes)) < 12):
                continue
            keep = np.isin(sizes, on)
            measured = np.array([np.median(times[sizes == s]) for s in scored])
            part_table = table.take(keep)
            row = {"part": part, "name": name, "split": kind, "q": scored,
                   "measured": measured}
            for method in ("auto", "hockney", "piecewise"):
                try:
                    model = fit(part_table, method).best.model
                    # Hockney is the textbook law alone; perfmodel's own answers keep the
                    # measured table beside the law (perfmodel.network.measured)
                    row[method] = np.asarray(model.law(scored) if method == "hockney"
                                             else model.time(scored), dtype=float)
                    if method == "auto":
                        row["law"] = np.asarray(model.law(scored), dtype=float)
                        row["model"] = model.kind
                        pred = predict(model, scored, 0.95)
                        row["inside"] = (pred.time_lo <= measured) & (measured <= pred.time_hi)
                        row["width"] = pred.time_hi / pred.time_lo
                except Exception:   # a subset a law cannot fit: a miss, counted
                    row[method] = np.full(len(scored), math.nan)
                    if method == "auto":
                        row["law"] = row[method]
                        row["inside"] = np.zeros(len(scored), dtype=bool)
                        row["width"] = np.full(len(scored), math.nan)
            row["segmented"] = segmented(sizes[keep], times[keep], scored)
            rows.append(row)
            py_in.append({"name": name, "x": sizes[keep].tolist(), "y": times[keep].tolist(),
                          "predict": scored.tolist()})
    methods = ["auto", "law", "hockney", "piecewise", "segmented"]
    if not args.no_pycewise:
        from scaling_accuracy import ensure_venv

        python = ensure_venv(VENV, "pycewise")
        run = subprocess.run([str(python), str(ROOT / "bench" / "pycewise_runner.py")],
                             input=json.dumps({"series": py_in}), capture_output=True,
                             text=True, check=True)
        doc = json.loads(run.stdout)
        for row, res in zip(rows, doc["results"], strict=True):
            row["pycewise"] = np.array(res.get("predictions") or [math.nan] * len(row["q"]),
                                       dtype=float)
        methods.append("pycewise")
    head = {"auto": "perfmodel", "law": "perfmodel's law alone", "hockney": "Hockney",
            "piecewise": "perfmodel piecewise",
            "segmented": "segmented BIC", "pycewise": "pycewise (BIC)"}
    for row in rows:
        for m in methods:
            y = row[m]
            row[m + "_err"] = np.where(np.isfinite(y) & (y > 0), np.abs(y / row["measured"] - 1),
                                       1.0)
    if args.series:
        print("| series | part | split | perfmodel law | " + " | ".join(head[m] for m in methods)
              + " |")
        print("|---" * (len(methods) + 4) + "|")
        for r in rows:
            print(f"| {r['name']} | {r['part']} | {r['split']} | {r.get('model', '?')} | "
                  + " | ".join(f"{100 * np.median(r[m + '_err']):.1f}" for m in methods) + " |")
    parts = ["tune", "held-out", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
             "ninth", "tenth", "eleventh", "twelfth"] if args.part == "all" else [args.part]
    groups = {p: (p,) for p in parts}
    if args.part == "all":   # every part not chosen on, together
        groups["held-out, third and fourth"] = ("held-out", "third", "fourth")
        groups["held-out to fifth"] = ("held-out", "third", "fourth", "fifth")
        groups["held-out to twelfth"] = ("held-out", "third", "fourth", "fifth", "sixth",
                                         "seventh", "eighth", "ninth", "tenth", "eleventh",
                                         "twelfth")
        # the parts gathered after the method last changed (the jump rule, chosen on the
        # parts through the sixth): blind to it as it stands
        groups["seventh to twelfth, blind to the method as it stands"] = (
            "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth")
    for label, members in groups.items():
        for kind in SPLITS:
            got = [r for r in rows if r["part"] in members and r["split"] == kind]
            part = label
            if not got:
                continue
            print(f"\n{part}, {kind}: {len(got)} series, "
                  f"{sum(len(r['q']) for r in got)} points\n")
            print("| method | median over points | median of series medians | P90 |")
            print("|---|---:|---:|---:|")
            for m in methods:
                e = np.concatenate([r[m + "_err"] for r in got])
                per = [float(np.median(r[m + "_err"])) for r in got]
                print(f"| {head[m]} | {100 * np.median(e):.1f} % | {100 * np.median(per):.1f} % "
                      f"| {100 * np.percentile(e, 90):.1f} % |")
            inside = np.concatenate([r["inside"] for r in got])
            width = np.concatenate([r["width"] for r in got])
            print(f"\nperfmodel's 95 % range holds {np.mean(inside):.0%} of the points "
                  f"(median width ×{np.nanmedian(width):.2f})")


if __name__ == "__main__":
    main()
