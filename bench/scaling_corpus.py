#!/usr/bin/env python3
"""Issue 33's scaling accuracy on the real corpus, split by source: choose and tune on one
part, report on the other.

Every real scaling series in ``data/`` with at least five distinct counts (``FIT_COUNTS`` + 1)
is fitted on its smallest four counts (every run there) and scored at each larger count
(against the median of that count's runs).  The series come from independent sources:

- **tune** (the method may be chosen and tuned looking at these): ``hpc-uk/archer-benchmarks``
  (``data/public``, ``data/pairs``, ``data/corpus/archer-benchmarks``), the alaska cluster's
  application perflogs (``data/alaska-apps``), the seed papers' physical-optics tables and this
  machine's Jacobi runs;
- **held-out** (scored once the method is fixed, never looked at while choosing):
  ``UoB-HPC/benchmarks``, ``E3SM-Project/perf-data`` and ``ARCHER2-HPC/performance_ofi-ucx``
  (``data/corpus/<source>``).

``converged-computing/performance-study`` series have four counts only and are not scored.

Methods on the same points: perfmodel (``fit_scaling`` + ``predict_scaling`` in this process,
the family detected as ``perfmodel scaling`` does: from a size column, else by
cross-validation), Amdahl (work + serial), the USL, and Extra-P (default, and on time × p) in
its own environment (``bench/extrap_runner.py``; ``--no-extrap`` leaves it out).  Per part:
the median and P90 of |predicted / measured − 1| over every scored point, the median of the
per-series medians, negative or missing predictions (a 100 % miss each), and the share of
points inside perfmodel's 95 % range.

- **fresh** (``data/corpus-fresh``: lanl/benchmarks, HECBioSim/benchmark-results,
  mikerenfro/md-scaling-study), gathered after the held-out part had been seen and scored once
  with the method as it stood; its source table is printed because one source holds most of
  its series.
- **third** (``data/corpus-third``: fmihpc/vlasiator, cp2k/cp2k, AMReX-Astro/Castro,
  Bears-R-Us/arkouda), gathered after the fresh part had been seen and scored once with the
  method as it stood;
- **fourth** (``data/corpus-fourth``: an NPB Raspberry Pi cluster, JohnnyPol/Pi_Cluster; the
  Einstein Toolkit on Frontier and Vista, lwJi/ETK-Scaling-Tests), gathered after the third
  had been seen and the range's K taken from the four parts before it; scored once;
- **fifth** (``data/corpus-fifth``: RAMSES on MeluXina, Discoverer and MareNostrum 5; Cholla on
  Frontier; CharLES on Stampede2; SPECFEM3D_GLOBE on Summit), gathered after the fourth had
  been seen, Amdahl's prior (``AMDAHL_WEIGHT``) chosen and K taken on the five parts before it;
  scored once.
- **sixth** (``data/corpus-sixth``: WarpX on Summit and Cori KNL, ECP-WarpX/perf_logs; CMAQ
  on AWS and Azure, CMASCenter/pcluster-cmaq; Charm++ lb_test and LeanMD on Santos Dumont,
  eclufsc/packdrop-data-analysis), gathered after the fifth had been seen, the method
  unchanged since; scored once.
- **seventh** (``data/corpus-seventh``: LULESH on HPX-5 at 1–14 nodes of Indiana University's
  cutter, uswick/scripts_misc; weak scaling, five series of one study), gathered after the
  sixth had been seen, the method unchanged; scored once.
- **eighth** (``data/corpus-eighth``: PencilFFTs and P3DFFT on Jean Zay, jipolanco/PencilFFTs.jl;
  Quantum ESPRESSO on one to four nodes, Ruberhauptmann/bachelorthesis; a hybrid kd-tree on one
  ORFEO node, Francesc0rtu/HPC-2021-2022-Assignment-2), gathered once the seventh had been
  seen and series packed on their nodes were read as one, the method unchanged; scored once.
- **ninth** (``data/corpus-ninth``: a student MPI heat stencil on Innsbruck's LCC3,
  leoposc/uibk-hpc; a student Monte Carlo pi on one Ulysses node,
  emaballarin/fhpc_assignments_2019-2020; Nalu-Wind on NREL's Eagle, NREL/ESIFHPC3), gathered
  once RANGE_K had been taken again on the nine parts before it; scored once.
- **tenth** (``data/corpus-tenth``: EPIC's parcel merging on ARCHER2,
  EPIC-model/parcel-clustering-data; AthenaK on Polaris, felker/athenak-scaling; LULESH 2.0 on
  RRZE's Ice Lake and Sapphire Rapids clusters, RRZE-HPC/LULESH-AD), gathered once the ninth had
  been seen, and committed before the off-node upper end (OFF_NODE, taken on the ten parts
  before it) was chosen; scored once.
- **eleventh** (``data/corpus-eleventh``: MEEP FDTD-Bath on one node then 2–10 nodes,
  TaoELi/fdtd_bath; Fox's matrix multiply on PDC Beskow, LindeBee/HPC; MARBL from Chapel on
  Perlmutter, brandon-neth/MarblChapel), gathered once the tenth had been seen, the method
  unchanged; scored once.  After it the off-node factor was taken again, on both ends, from
  every part through it.
- **twelfth** (``data/corpus-twelfth``: a 2-D Jacobi stencil in mpi4py and Charm4py on
  Stampede2, 6–48 ranks on one node then 2–16 nodes, UIUC-PPL/charm4py-mpi4py-compare; Fox and
  Allgather matrix multiply on Janus, AaronTHolt/MPI), gathered once the off-node factor had
  been taken on both ends; scored once, after which the off-node time became Amdahl's law's and
  the factor was taken again from every part through it.
- **thirteenth** (``data/corpus-thirteenth``: Game of Life on UCSC Hummingbird,
  OussamaNajar/hpc-parallel-systems; Jacobi on NYU Prince, EAirPeter/HPCAssignments; Jacobi on a
  TU Wien course cluster, BenediktStingl/NSSC-II), gathered once the off-node time was Amdahl's
  law's; scored once.
- **fourteenth** (``data/corpus-fourteenth``: three students' MPI (+OpenMP) Game of Life on
  ORFEO's EPYC and THIN partitions, Trieste's Foundations of HPC 2022-23,
  Gabriele-Codega/FHPC-assignment, IsacPasianotto/foundations_of_HPC-assignment,
  andrejcuber/units-fhpc2223-assignment; nodes inferred from the job scripts), gathered once the
  weak scaling's off-node time was held flat, the method unchanged since; committed before its
  first run, scored once.
- **fifteenth** (``data/corpus-fifteenth``: HOOMD-blue's WCA benchmark on NCI Gadi and NSCC
  ASPIRE 2A at 1–32 nodes, the APAC HPC-AI 2024 organisers' reference runs,
  hpcac/2024-APAC-HPC-AI; Remhos on one AWS Graviton2 node with three compilers,
  arm-hpc-user-group/Cloud-HPC-Hackathon-2021), gathered after the fourteenth had been scored,
  the method unchanged; committed before its first run, scored once.
- **sixteenth** (``data/corpus-sixteenth``: two MPI connected-components codes at 1–64 nodes,
  one rank a node, Stefano-Faccio/HPC-Project-Parallel-Connected-Components; an MPI closest
  pair of points, brute force and recursive, packed on one node or scattered over two,
  KevinDepedri/MPI-Parallel-Closest-Pair-of-Points, whose time is rank 0's processor time;
  both on the University of Trento's cluster), gathered after the fifteenth had been scored,
  the method unchanged; committed before its first run, scored once.
- **seventeenth** (``data/corpus-seventeenth``: the USI HPC Lab's mini-stencil, power method and
  PETSc Poisson solve on USI's ICS cluster, USI-Projects-Collection/HPC_projects and
  altassara/ProjectsHPC; Quantum ESPRESSO on Piz Daint's CPUs and GPUs, ye-luo/benchmarks),
  gathered after the sixteenth had been scored, the method unchanged; committed before its
  first run, scored once.

    .venv/bin/python bench/scaling_corpus.py [--part tune|...|seventeenth|all]
        [--no-extrap] [--series] [--markdown] [--calibrate]
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
FIT_COUNTS = 4
HELD_OUT = ("UoB-HPC-benchmarks", "E3SM-Project-perf-data", "ARCHER2-HPC-performance_ofi-ucx")
FRESH = ("lanl-benchmarks", "HECBioSim-benchmark-results", "mikerenfro-md-scaling-study")
"""The second held-out part (``data/corpus-fresh``, gathered once the first had been seen):
scored once, with the method as it stood, in aggregate only."""
THIRD = ("fmihpc-vlasiator", "cp2k-cp2k", "AMReX-Astro-Castro", "Bears-R-Us-arkouda")
"""The third held-out part (``data/corpus-third``, gathered once the second had been seen):
scored once, with the method as it stood, in aggregate only."""
FOURTH = ("JohnnyPol-Pi_Cluster-ECE_NTUA_2024-2025", "lwJi-ETK-Scaling-Tests")
"""The fourth held-out part (``data/corpus-fourth``, gathered once the third had been seen and
RANGE_K taken from the first four): scored once."""
FIFTH = ("tinecolman-ramses-benchmarks-prototype2", "bcaddy-scaling-tests",
         "yunjaeh-CharLES_scaling", "SPECFEM-scaling-benchmarks")
"""The fifth held-out part (``data/corpus-fifth``, gathered once the fourth had been seen and
Amdahl's prior chosen and K taken on the five parts before it): scored once."""
SIXTH = ("ECP-WarpX-perf_logs", "CMASCenter-pcluster-cmaq", "eclufsc-packdrop-data-analysis")
"""The sixth held-out part (``data/corpus-sixth``, gathered once the fifth had been seen, with
the method as it stood after it): scored once."""
SEVENTH = ("uswick-scripts_misc",)
"""The seventh held-out part (``data/corpus-seventh``, gathered once the sixth had been seen,
the method unchanged): scored once."""
EIGHTH = ("jipolanco-PencilFFTs.jl", "Ruberhauptmann-bachelorthesis",
          "Francesc0rtu-HPC-2021-2022-Assignment-2")
"""The eighth held-out part (``data/corpus-eighth``, gathered once the seventh had been seen and
series packed on their nodes were read as one, the method unchanged): scored once."""
NINTH = ("leoposc-uibk-hpc", "emaballarin-fhpc_assignments_2019-2020", "NREL-ESIFHPC3")
"""The ninth held-out part (``data/corpus-ninth``, gathered once RANGE_K had been taken again on
the nine parts before it): scored once."""
TENTH = ("EPIC-model-parcel-clustering-data", "felker-athenak-scaling", "RRZE-HPC-LULESH-AD")
"""The tenth held-out part (``data/corpus-tenth``, gathered once the ninth had been seen; the
off-node upper end was chosen on the ten parts before it): scored once."""
ELEVENTH = ("TaoELi-fdtd_bath", "LindeBee-HPC", "brandon-neth-MarblChapel")
"""The eleventh held-out part (``data/corpus-eleventh``, gathered once the tenth had been seen,
the method unchanged): scored once."""
TWELFTH = ("UIUC-PPL-charm4py-mpi4py-compare", "AaronTHolt-MPI")
"""The twelfth held-out part (``data/corpus-twelfth``, gathered once the off-node factor had
been taken on both ends from every part before it): scored once."""
SEVENTEENTH = ("USI-Projects-Collection-HPC_projects", "altassara-ProjectsHPC",
               "ye-luo-benchmarks")
"""data/corpus-seventeenth: gathered after the sixteenth had been scored, the method
unchanged."""
SIXTEENTH = ("Stefano-Faccio-HPC-Project-Parallel-Connected-Components",
             "KevinDepedri-MPI-Parallel-Closest-Pair-of-Points")
"""data/corpus-sixteenth: gathered after the fifteenth had been scored, the method unchanged."""
FIFTEENTH = ("hpcac-2024-APAC-HPC-AI", "arm-hpc-user-group-Cloud-HPC-Hackathon-2021")
"""data/corpus-fifteenth: gathered after the fourteenth had been scored, the method unchanged."""
FOURTEENTH = ("Gabriele-Codega-FHPC-assignment", "IsacPasianotto-foundations_of_HPC-assignment",
              "andrejcuber-units-fhpc2223-assignment")
"""data/corpus-fourteenth: gathered after the weak scaling's off-node time was held flat."""
THIRTEENTH = ("OussamaNajar-hpc-parallel-systems", "EAirPeter-HPCAssignments",
              "BenediktStingl-NSSC-II")
"""The thirteenth held-out part (``data/corpus-thirteenth``, gathered once the off-node time was
Amdahl's law's): scored once."""
PARTS = ("tune", "held-out", "fresh", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
         "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
         "sixteenth", "seventeenth")
UNSEEN: tuple[str, ...] = ("fourteenth", "fifteenth", "sixteenth", "seventeenth")
"""The parts gathered after the method last changed: blind to the method as it stands.  The
weak scaling's off-node time was chosen after the thirteenth had been scored (it left the
thirteenth's figures as they were); the fourteenth to seventeenth came after.
Before that, the fifth to eighth were, then the ninth, then the tenth and eleventh, then the
twelfth, then the thirteenth; a part gathered from now on joins it."""
LATER = {"fresh": FRESH, "third": THIRD, "fourth": FOURTH, "fifth": FIFTH, "sixth": SIXTH,
         "seventh": SEVENTH, "eighth": EIGHTH, "ninth": NINTH, "tenth": TENTH,
         "eleventh": ELEVENTH, "twelfth": TWELFTH, "thirteenth": THIRTEENTH,
         "fourteenth": FOURTEENTH, "fifteenth": FIFTEENTH, "sixteenth": SIXTEENTH,
         "seventeenth": SEVENTEENTH}
"""The parts gathered after held-out, by their sources."""
TUNE = ("hpc-uk/archer-benchmarks", "excalibur-alaska perflogs", "seed papers",
        "this machine")
LEVEL = 0.95


@dataclass(frozen=True)
class Spec:
    name: str
    source: str
    paths: tuple[Path, ...]
    where: tuple[tuple[str, str], ...] = ()

    @property
    def part(self) -> str:
        for name, sources in LATER.items():
            if self.source in sources:
                return name
        return "held-out" if self.source in HELD_OUT else "tune"


def specs() -> list[Spec]:
    out = []
    for machine in ("beowulf", "t3d"):
        for table in ("1", "2"):
            for part in ("I", "II", "III"):
                out.append(Spec(f"PO {machine} T{table} part {part}", "seed papers",
                                (ROOT / "data/seeds/physical-optics.csv",),
                                (("machine", machine), ("table", table), ("part", part))))
    for f in sorted((ROOT / "data" / "local").glob("*scaling*.csv")):
        out.append(Spec(f"own: {f.stem}", "this machine", (f,)))
    for f in sorted((ROOT / "data" / "public").glob("*/*.csv")):
        out.append(Spec(f.stem, "hpc-uk/archer-benchmarks", (f,)))
    for f in sorted((ROOT / "data" / "pairs").glob("*.csv")):
        if not f.name.startswith(("kripke-", "lammps-")):
            out.append(Spec(f"pairs/{f.stem}", "hpc-uk/archer-benchmarks", (f,)))
    for d in sorted((ROOT / "data" / "corpus").iterdir()):
        if d.is_dir() and d.name != "performance-study":
            source = "hpc-uk/archer-benchmarks" if d.name == "archer-benchmarks" else d.name
            out += [Spec(f"{d.name}/{f.stem}", source, (f,)) for f in sorted(d.glob("*.csv"))]
    for later in ("corpus-fresh", "corpus-third", "corpus-fourth", "corpus-fifth",
                  "corpus-sixth", "corpus-seventh", "corpus-eighth", "corpus-ninth",
                  "corpus-tenth", "corpus-eleventh", "corpus-twelfth",
                  "corpus-thirteenth", "corpus-fourteenth",
                  "corpus-fifteenth", "corpus-sixteenth", "corpus-seventeenth"):
        folder = ROOT / "data" / later
        for d in sorted(folder.iterdir()) if folder.is_dir() else []:
            if d.is_dir():
                out += [Spec(f"{d.name}/{f.stem}", d.name, (f,))
                        for f in sorted(d.glob("*.csv"))]
    apps = ROOT / "data" / "alaska-apps"
    figures = {"cp2k": "cp2k_time", "gromacs": "wall_t", "openfoam": "ClockTime"}
    for part in sorted(p for p in apps.iterdir() if p.is_dir()) if apps.is_dir() else []:
        for app, figure in figures.items():
            folder = part / app
            codes = sorted({re.sub(r"_\d+$", "", d.name) for d in folder.iterdir()})
            files = tuple(sorted(f for f in folder.rglob("*") if f.is_file()))
            out += [Spec(f"alaska {part.name} {code}", "excalibur-alaska perflogs", files,
                         (("code", code), ("figure", figure))) for code in codes]
    return out


@dataclass(frozen=True)
class Split:
    """A series cut for scoring: the runs at its four smallest counts (``p``, ``t``, ``sizes``)
    and its larger counts ``q`` with the median time ``measured`` at each."""

    p: np.ndarray
    t: np.ndarray
    sizes: np.ndarray | None
    q: np.ndarray
    measured: np.ndarray
    off: np.ndarray
    """Which of ``q`` the method marks off-node: the fitted runs all on one node and ``q``
    past them (:func:`perfmodel.empirical.series.crossing`, as ``perfmodel scaling`` does)."""


def load(spec: Spec) -> Split | None:
    """The series cut for scoring, or None with fewer than FIT_COUNTS + 1 distinct counts."""
    from perfmodel.empirical.series import crossing, load_series

    s = load_series(list(spec.paths), dict(spec.where))
    p, t = s.processes, s.times
    counts = np.unique(p)
    if len(counts) < FIT_COUNTS + 1:
        return None
    fit = p <= counts[FIT_COUNTS - 1]
    q = counts[FIT_COUNTS:]
    nodes = s.nodes[fit] if s.nodes is not None and s.count == "processes" else None
    return Split(p[fit], t[fit], s.sizes[fit] if s.sizes is not None else None, q,
                 np.array([np.median(t[p == c]) for c in q]), crossing(p[fit], nodes, q))


def perfmodel(p: np.ndarray, t: np.ndarray, sizes: np.ndarray | None, q: np.ndarray,
              off: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    from perfmodel.empirical.fit import fit_scaling, predict_scaling

    try:
        fit = fit_scaling(p, t, "auto", sizes)
        pred = predict_scaling(fit, q, LEVEL, force=True, off_node=off)
    except Exception as exc:   # a series the method refuses: a miss, said
        nan = np.full(len(q), math.nan)
        return nan, nan, nan, f"error: {str(exc).splitlines()[0]}"
    return pred.time, pred.lo, pred.hi, f"{fit.family} {fit.chosen.fit.form.name}"


LEVELS = (0.5, 0.68, 0.8, 0.9, 0.95, 0.99)


SEEN = ("tune", "held-out", "fresh", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
"""The parts RANGE_K is taken from: every part already scored when it was taken (a part gathered
later is not)."""
SEEN_OFF = (*SEEN, "ninth", "tenth", "eleventh", "twelfth")
"""The parts OFF_NODE is taken from: every part scored when it was last taken."""


def calibrate() -> None:
    """RANGE_K's source: over every scored point of the parts already seen (:data:`SEEN`),
    u = |ln(predicted / measured)| / s (s: :func:`perfmodel.empirical.fit.scale`), and its
    quantile at each level, each source weighing the same (one source of 1,285 points must not
    set it; the 95th percentile of u per source runs from 0.41 to 2.08)."""
    from perfmodel.empirical.fit import fit_scaling, scale

    u: list[np.ndarray] = []
    w: list[np.ndarray] = []
    by_source: dict[str, list[np.ndarray]] = {}
    for spec in specs():
        got = load(spec) if spec.part in SEEN else None
        if got is None:
            continue
        f = fit_scaling(got.p, got.t, "auto", got.sizes)
        by_source.setdefault(spec.source, []).append(
            np.abs(np.log(f.time(got.q) / got.measured)) / scale(f, got.q))
    for parts in by_source.values():
        v = np.concatenate(parts)
        u.append(v)
        w.append(np.full(len(v), 1.0 / len(v)))
    every, weight = np.concatenate(u), np.concatenate(w)
    order = np.argsort(every)
    cum = np.cumsum(weight[order]) / weight.sum()
    print(f"{len(every)} points of {len(by_source)} sources, each source weighing the same: "
          + ", ".join(f"{lv}: {every[order][np.searchsorted(cum, lv)]:.2f}" for lv in LEVELS))


def calibrate_off_node() -> None:
    """OFF_NODE's source: over every point of the parts seen (:data:`SEEN_OFF`) that the method
    marks off-node, the factor either end of the range at each level must reach, from the
    predicted time, for the point to lie in it (none where it already does), and the least
    factor that puts that level's share of them in range, each source weighing the same.  Also
    how many were slower than predicted."""
    from perfmodel.empirical.fit import fit_scaling, off_node_time, predict_scaling

    need: dict[float, dict[str, list[np.ndarray]]] = {lv: {} for lv in LEVELS}
    slower = 0
    for spec in specs():
        got = load(spec) if spec.part in SEEN_OFF else None
        if got is None or not got.off.any():
            continue
        fit = fit_scaling(got.p, got.t, "auto", got.sizes)
        m = got.measured[got.off]
        y = off_node_time(fit, got.q)[got.off]
        for lv in LEVELS:   # the off-node time, with the range the forms give it, unwidened
            plain = predict_scaling(fit, got.q, lv, force=True)
            lo, hi = (y * (end / plain.time)[got.off] for end in (plain.lo, plain.hi))
            inside = (lo <= m) & (m <= hi)
            need[lv].setdefault(spec.source, []).append(
                np.where(inside, 0.0, np.maximum(m / y, y / m)))
        slower += int(np.sum(m > y))
    least = {}
    for lv, by_source in need.items():
        every = [np.concatenate(v) for v in by_source.values()]
        v = np.concatenate(every)
        w = np.concatenate([np.full(len(x), 1.0 / len(x)) for x in every])
        order = np.argsort(v)
        cum = np.cumsum(w[order]) / w.sum()
        least[lv] = max(1.0, float(v[order][np.searchsorted(cum, lv)]))
    sources = need[LEVELS[0]]
    print(f"{sum(len(np.concatenate(x)) for x in sources.values())} off-node points of "
          f"{len(sources)} sources ("
          + ", ".join(f"{k}: {len(np.concatenate(x))}" for k, x in sources.items())
          + f"), {slower} slower than predicted; each source weighing the same, the least "
          "factor either end of each level's range must reach (1: no widening): "
          + ", ".join(f"{lv}: {f:.2f}" for lv, f in least.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=(*PARTS, "all"), default="tune")
    ap.add_argument("--no-extrap", action="store_true")
    ap.add_argument("--series", action="store_true", help="a row per series")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--calibrate", action="store_true",
                    help="print the quantiles of |ln error| / s on the parts seen (the table "
                         "perfmodel.empirical.fit.RANGE_K holds) and stop")
    args = ap.parse_args()
    if args.calibrate:
        calibrate()
        calibrate_off_node()
        return
    from scaling_accuracy import EXTRAP_MODES, amdahl, extrap_modes, usl

    rows = []
    xp_in = []
    for spec in specs():
        if args.part != "all" and spec.part != args.part:
            continue
        got = load(spec)
        if got is None:
            continue
        p, t, q, measured = got.p, got.t, got.q, got.measured
        mine, lo, hi, form = perfmodel(p, t, got.sizes, q, got.off)
        rows.append({"spec": spec, "q": q, "measured": measured, "form": form,
                     "perfmodel": mine, "inside": (lo <= measured) & (measured <= hi),
                     "width": hi / lo, "amdahl": amdahl(p, t, q), "usl": usl(p, t, q)})
        xp_in.append({"name": spec.name, "p": np.unique(p).tolist(),
                      "t": [t[p == c].tolist() for c in np.unique(p)],
                      "predict": [float(c) for c in q]})
    tools = ["perfmodel", "amdahl", "usl"]
    if not args.no_extrap:
        for (_, key), doc in zip(EXTRAP_MODES, extrap_modes(xp_in), strict=True):
            for row, res in zip(rows, doc["results"], strict=True):
                got = res.get("predictions") or [None] * len(row["q"])
                row[key] = np.array([math.nan if v is None else v for v in got], dtype=float)
        tools += ["extrap", "extrap_tp"]
    head = {"perfmodel": "perfmodel", "amdahl": "Amdahl", "usl": "USL", "extrap": "Extra-P",
            "extrap_tp": "Extra-P t×p"}
    for row in rows:
        for k in tools:
            y = row[k]
            bad = ~np.isfinite(y) | (y <= 0)
            row[k + "_err"] = np.where(bad, 1.0, np.abs(y / row["measured"] - 1))
            row[k + "_bad"] = int(bad.sum())
    parts = list(PARTS) if args.part == "all" else [args.part]
    md = args.markdown
    if args.series:
        print("| series | source | counts fitted → scored | perfmodel form | "
              + " | ".join(head[k] for k in tools) + " | in range |")
        print("|---" * (len(tools) + 5) + "|")
        for r in rows:
            print(f"| {r['spec'].name} | {r['spec'].source} | "
                  f"{len(r['q'])} | {r['form']} | "
                  + " | ".join(f"{100 * np.median(r[k + '_err']):.1f}" for k in tools)
                  + f" | {int(r['inside'].sum())}/{len(r['q'])} |")
    for part in parts:
        got = [r for r in rows if r["spec"].part == part]
        if got:
            table(got, part, tools, head, md)
    if args.part == "all":
        pooled = {"every part not tuned on, pooled":
                  [r for r in rows if r["spec"].part != "tune"],
                  "every part gathered after the method last changed, pooled ("
                  + ", ".join(UNSEEN) + ")": [r for r in rows if r["spec"].part in UNSEEN]}
        for title, got in pooled.items():
            if got:
                table(got, title, tools, head, md, by_source=True)


def table(got: list[dict], title: str, tools: list[str], head: dict[str, str], md: bool,
          by_source: bool = False) -> None:
    """One part's table: each method's median and P90 over its points, the median of its
    series' medians, its misses and the series it loses to Amdahl by 5 points; perfmodel's
    range; and a row per source.  ``by_source`` (pooled parts): instead of the rows, the
    median of the sources' medians and the range's least, largest and median coverage by
    source, each source weighing the same, since one source may hold most of the points."""
    sources = sorted({r["spec"].source for r in got})
    points = sum(len(r["q"]) for r in got)
    print(f"\n{'### ' if md else ''}{title}: {len(got)} series, {points} scored points, "
          + (f"{len(sources)} sources" if by_source else f"sources: {', '.join(sources)}")
          + "\n")
    print("| method | median | P90 | median of series medians | negative or missing "
          "| series worse than Amdahl by 5 points |" + (" median of source medians |"
                                                        if by_source else ""))
    print("|---|---:|---:|---:|---:|---:|" + ("---:|" if by_source else ""))
    for k in tools:
        e = np.concatenate([r[k + "_err"] for r in got])
        per = [float(np.median(r[k + "_err"])) for r in got]
        amd = [float(np.median(r["amdahl_err"])) for r in got]
        worse = sum(1 for a, b in zip(per, amd, strict=True) if a > b + 0.05)
        each = [float(np.median(np.concatenate([r[k + "_err"] for r in got
                                                if r["spec"].source == src])))
                for src in sources]
        print(f"| {head[k]} | {100 * np.median(e):.1f} % | {100 * np.percentile(e, 90):.1f} % "
              f"| {100 * np.median(per):.1f} % | {sum(r[k + '_bad'] for r in got)} | "
              f"{worse if k != 'amdahl' else '—'} |"
              + (f" {100 * np.median(each):.1f} % |" if by_source else ""))
    inside = np.concatenate([r["inside"] for r in got])
    width = np.concatenate([r["width"] for r in got])
    held = [float(np.concatenate([r["inside"] for r in got if r["spec"].source == src]).mean())
            for src in sources]
    print(f"\nperfmodel's {LEVEL:.0%} range holds {inside.mean():.0%} of the points "
          f"({int(inside.sum())} of {len(inside)}); median width ×{np.nanmedian(width):.2f}"
          + (f"; per source from {min(held):.0%} to {max(held):.0%}, {np.median(held):.0%} "
             "the median" if by_source else ""))
    if len(sources) > 1 and not by_source:
        print("\n| source | series | points | " + " | ".join(
            f"{head[k]} median / P90" for k in tools) + " | range holds |")
        print("|---" * (len(tools) + 4) + "|")
        for src in sources:
            mine = [r for r in got if r["spec"].source == src]
            cells = []
            for k in tools:
                e = np.concatenate([r[k + "_err"] for r in mine])
                cells.append(f"{100 * np.median(e):.1f} / {100 * np.percentile(e, 90):.1f}")
            held_src = np.concatenate([r["inside"] for r in mine])
            print(f"| {src} | {len(mine)} | {len(held_src)} | " + " | ".join(cells)
                  + f" | {held_src.mean():.0%} |")


if __name__ == "__main__":
    main()
