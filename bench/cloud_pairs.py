#!/usr/bin/env python3
"""Issue 32's public pair beyond alaska, kept apart from what the method was chosen on: the
same code at 32 … 256 nodes in clouds whose environments share an instance type but differ in
how the nodes talk (converged-computing/performance-study, MIT, snapshot 6f3df687;
``data/pairs/README.md``):

- AWS hpc6a.48xlarge, EFA: ParallelCluster (Slurm) and EKS (Kubernetes + Flux);
- Azure HB120-96rs_v3, InfiniBand: CycleCloud (Slurm, HPC-X) and AKS (Kubernetes);
- Google c2d-standard-112, TCP: Compute Engine and GKE (gVNIC, TIER_1).

Each environment's network profile is calibrated by perfmodel from the study's own OSU outputs
(``data/pairs/osu/<env>``; ``make calibration`` writes ``calibration/cloud-<env>.toml``).  The
codes are LAMMPS ReaxFF (HNS, 39.8 M atoms, ``Loop time``) and Kripke (``Solve``), the least
time of each count's repeats, as ``predict --fit`` reads ``data/pairs/<code>-<env>.csv``.  From
A's times and the two profiles, B's times at the counts both ran beyond the smallest (the
smallest run is the reference both methods take as work shared perfectly; there is no one-node
run), by:

- "B = A": the time on A unchanged;
- "A × (1 − f + f·r)": ``f`` the overhead share on A beyond the smallest run shared perfectly,
  1 − n0·T_A(n0) / (n·T_A(n)), clipped to [0, 1], ``r`` the ratio of B's to A's osu_latency at
  8 B (the median over that environment's latency files);

and perfmodel's answer (:func:`perfmodel.apps.transfer.move`) with its 95 % range.  Every
directed pair is scored in both directions, per code; the medians are over every point.

**Blind** when written and first run on 2026-11-27, after perfmodel's method was fixed on
alaska (``bench/other_machine.py``).  Later the same day, after seeing these pairs, the profiles
were given the study's ``osu_allreduce`` at 32 … 256 nodes (``calibrate --nodes-in-name``) and
the range of ``predict --on`` the collectives' ratio at each count both timed: the point is
unchanged, the range is chosen on these pairs (not blind).

A third set, ``data/pairs-blind``: the study's other codes in the same six environments
(MiniFE, Laghos, and MT-GEMM set apart: its runs share no work), gathered blind after the
collectives were added and scored once; its weak-scaling codes (AMG2023, Quicksilver) were
scored once later, after ``move`` learnt weak scaling (``predict --on --scaling weak``).

Across instance types (written 2026-11-28, scored once when first run, the method unchanged
but for ``--on-fit`` accepting B's runs of B's own placement): the same two codes timed in one
cloud's environments, predicted in another's, where the nodes, the network and the software
all differ; without B's run (the profiles have no node, so the nodes are taken to be the same)
and given B's run at 32 nodes.

A second set, gathered blind the same day and scored once with the method unchanged: LAMMPS
ReaxFF HNS at 4 … 32 nodes of AWS hpc7g.4xlarge (EFA) in five software environments of one
cluster — bare metal (Flux), bare metal beside Usernetes, a container, a container beside
Usernetes, and Usernetes (rootless Kubernetes) — with 20 osu_latency outputs in each
(converged-computing/flux-usernetes, MIT, snapshot 83103061;
``data/pairs-fresh/converged-computing-flux-usernetes``; profiles
``calibration/flux-<env>.toml``).  Every ordered pair of environments is scored.

    .venv/bin/python bench/cloud_pairs.py [--markdown]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT / "data" / "pairs"
PROFILE = ROOT / "calibration" / "cloud-{}.toml"
INSTANCES = {
    "AWS hpc6a, EFA": ("aws-parallel-cluster", "aws-eks"),
    "Azure HB120v3, InfiniBand": ("azure-cyclecloud", "azure-aks"),
    "Google c2d, TCP": ("google-compute-engine", "google-gke"),
}
CODES = ("lammps-reaxff", "kripke")
FLUX = ROOT / "data" / "pairs-fresh" / "converged-computing-flux-usernetes"
BLIND = ROOT / "data" / "pairs-blind"
DEGENERATE = ("mt-gemm",)
"""Set apart before the third set was scored, from its README: every MT-GEMM run has more
ranks than the matrix has rows, so rank 0 multiplies alone and the rest only broadcast and
gather; no work is shared, which the method assumes."""
FLUX_PROFILE = ROOT / "calibration" / "flux-{}.toml"
FLUX_ENVS = ("bare-metal", "bare-metal-with-usernetes", "container", "container-with-usernetes",
             "usernetes")
PERFMODEL = "perfmodel"
NAMES = ("B = A", "A × (1 − f + f·r)", PERFMODEL)
LATENCY_SIZE = 8.0

sys.path.insert(0, str(ROOT))


def latency(env: str, folder: Path = PAIRS / "osu") -> float:
    """One-way seconds of an 8-byte message: the median over every osu_latency table of the
    environment's outputs."""
    from perfmodel.readers import read

    seen = []
    for path in sorted((folder / env).glob("*.out")):
        for t in read(path):
            if t.quantity == "one_way" and "latency" in t.benchmark:
                seen.append(float(np.interp(LATENCY_SIZE, t.size, t.time)))
    return float(np.median(seen))


def rule(a: dict[int, float], n: int, r: float) -> dict[str, float]:
    n0 = min(a)
    f = float(np.clip(1.0 - n0 * a[n0] / (n * a[n]), 0.0, 1.0))
    return {"B = A": a[n], "A × (1 − f + f·r)": a[n] * (1.0 - f + f * r)}


Scores = tuple[int, dict[str, list[float]], list[bool], list[float]]
"""One directed pair's points, each method's errors, whether B's time lay in perfmodel's
range, and the range's widths."""


def least(r: object) -> dict[int, float]:
    """A code's least time at each node count (a :class:`perfmodel.apps.transfer.Runs`)."""
    return {int(n): float(t) for n, t in zip(r.nodes, r.time, strict=True)}   # type: ignore[attr-defined]


def _scored(moved: object, b: dict[int, float], guesses: dict[int, dict[str, float]]
            ) -> Scores:
    """perfmodel's ``moved`` and the baselines' ``guesses`` (by count) against B's times."""
    counts = sorted(guesses)
    errs: dict[str, list[float]] = {}
    for n, mine in zip(counts, moved.time, strict=True):   # type: ignore[attr-defined]
        for k, p in {**guesses[n], PERFMODEL: float(mine)}.items():
            errs.setdefault(k, []).append(abs(p / b[n] - 1))
    cover = [bool(lo <= b[int(n)] <= hi) for n, lo, hi in   # type: ignore[attr-defined]
             zip(moved.nodes, moved.time_lo, moved.time_hi, strict=True)]   # type: ignore[attr-defined]
    return len(counts), errs, cover, list(moved.time_hi / moved.time_lo)   # type: ignore[attr-defined]


def score(ra: object, rb: object, a_machine: object, b_machine: object, r: float,
          elsewhere: float | None = None, node_spread: float | None = None) -> Scores:
    """One directed pair: A's runs ``ra`` moved onto B and scored against B's ``rb`` at the
    counts both ran beyond A's smallest, beside the two baselines (:func:`rule`);
    ``elsewhere`` and ``node_spread`` as :func:`perfmodel.apps.transfer.move` takes them."""
    from perfmodel.apps.transfer import move

    a, b = least(ra), least(rb)
    counts = sorted(n for n in set(a) & set(b) if n > min(a))
    moved = move(ra, a_machine, b_machine, 0.95, counts,   # type: ignore[arg-type]
                 elsewhere=elsewhere, node_spread=node_spread)
    return _scored(moved, b, {n: rule(a, n, r) for n in counts})


WITH_B = ("B = A", "A × T_B(n*) / T_A(n*)", PERFMODEL)
"""The methods given B's own run at the smallest count both ran, n*: no change, A's times
scaled by B's over A's at n*, and perfmodel with ``--on-fit`` (B's run sets its nodes' work)."""


def score_with_b(ra: object, rb: object, a_machine: object, b_machine: object) -> Scores:
    """As :func:`score`, with B's run at n* given (``predict --on-fit``), scored at the
    counts beyond n*."""
    from perfmodel.apps.transfer import move, runs

    a, b = least(ra), least(rb)
    first = min(set(a) & set(b))
    counts = sorted(n for n in set(a) & set(b) if n > first)
    per = rb.per_node   # type: ignore[attr-defined]
    moved = move(ra, a_machine, b_machine, 0.95, counts,   # type: ignore[arg-type]
                 on_b=runs([first], [first * per], [b[first]]))
    return _scored(moved, b, {n: {"B = A": a[n], WITH_B[1]: a[n] * b[first] / a[first]}
                              for n in counts})


class Tally:
    """Every directed pair's scores, kept for the table's last row."""

    def __init__(self, names: tuple[str, ...] = NAMES) -> None:
        self.names = names
        self.errs: dict[str, list[float]] = {k: [] for k in names}
        self.inside: list[bool] = []
        self.widths: list[float] = []

    def row(self, got: Scores) -> str:
        """Keep one pair's scores (from :func:`score`); its cells, from the points on."""
        points, errs, cover, width = got
        for k in self.names:
            self.errs[k] += errs[k]
        self.inside += cover
        self.widths += width
        return (f"{points} | " + " | ".join(f"{np.median(errs[k]):.1%}" for k in self.names)
                + f" | {sum(cover)}/{len(cover)} | ×{np.median(width):.2f} |")

    def total(self) -> str:
        return (f"{len(self.errs[self.names[0]])} | "
                + " | ".join(f"{np.median(self.errs[k]):.1%}" for k in self.names)
                + f" | {np.mean(self.inside):.0%} | ×{np.median(self.widths):.2f} |")


Study = tuple[dict[str, Any], dict[str, float], dict[Any, Any]]
"""One study's environments: each one's machine, its 8-byte latency, and the codes' runs."""


def instance_study() -> Study | None:
    """The six cloud environments (:data:`INSTANCES`), runs keyed by (code, environment);
    None, said, where a profile is missing."""
    envs = [e for pair in INSTANCES.values() for e in pair]
    got = _machines(envs, PROFILE)
    if got is None:
        return None
    from perfmodel.apps.transfer import read_runs

    timed = {(c, e): read_runs(PAIRS / f"{c}-{e}.csv") for c in CODES for e in envs}
    return got, {e: latency(e) for e in envs}, timed


def flux_study() -> Study | None:
    """The five software environments of one EFA cluster (:data:`FLUX_ENVS`), LAMMPS's runs
    keyed by environment; None, said, where a profile is missing."""
    got = _machines(list(FLUX_ENVS), FLUX_PROFILE)
    if got is None:
        return None
    from perfmodel.apps.transfer import read_runs

    timed = {e: read_runs(FLUX / "apps" / e / "lammps-reaxff.csv") for e in FLUX_ENVS}
    return got, {e: latency(e, FLUX / "osu") for e in FLUX_ENVS}, timed


def _machines(envs: list[str], profile: Path) -> dict[str, Any] | None:
    """Each environment's machine from ``profile`` (a path with a ``{}``), or None when one is
    missing, said."""
    from perfmodel.machine import Machine
    from perfmodel.machine.profile import load

    paths = {e: Path(str(profile).format(e)) for e in envs}
    missing = [str(p) for p in paths.values() if not p.is_file()]
    if missing:
        print(f"skipped: no profile {', '.join(missing)} (run `make calibration`)")
        return None
    return {e: Machine(load(p)) for e, p in paths.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    study = instance_study()
    if study is None:
        return
    machines, lat, timed = study
    print("one-way latency at 8 B (median of the OSU files): "
          + ", ".join(f"{e} {v * 1e6:.2f} µs" for e, v in lat.items()))
    tally = Tally()
    print(f"\n{'### ' if args.markdown else ''}Same instance type, other environment\n")
    print("| instance | A → B | code | points | " + " | ".join(NAMES)
          + " | 95 % range covers | median width |")
    print("|---" * (len(NAMES) + 6) + "|")
    for instance, pair in INSTANCES.items():
        for src, dst in (pair, pair[::-1]):
            r = lat[dst] / lat[src]
            for code in CODES:
                cells = tally.row(score(timed[(code, src)], timed[(code, dst)],
                                        machines[src], machines[dst], r))
                print(f"| {instance} | {src} → {dst} (r {r:.2f}) | {code} | {cells}")
    print(f"| all | | | {tally.total()}")
    print(f"\n{'### ' if args.markdown else ''}Given B's own run at the smallest count both ran "
          "(`predict --on-fit`)\n")
    print("| A → B | runs | " + " | ".join(WITH_B) + " | 95 % range covers | median width |")
    print("|---" * (len(WITH_B) + 4) + "|")
    given = Tally(WITH_B)
    for pair in INSTANCES.values():
        for src, dst in (pair, pair[::-1]):
            for code in CODES:
                cells = given.row(score_with_b(timed[(code, src)], timed[(code, dst)],
                                               machines[src], machines[dst]))
                print(f"| {src} → {dst} | {code} | {cells}")
    print(f"| all | | {given.total()}")
    other_instances(machines, lat, timed, args.markdown)
    other_codes(machines, lat, args.markdown)
    environments(args.markdown)


def merged(got: list[Scores], names: tuple[str, ...]) -> Scores:
    """Several directed pairs' scores as one."""
    return (sum(g[0] for g in got), {k: [e for g in got for e in g[1][k]] for k in names},
            [c for g in got for c in g[2]], [w for g in got for w in g[3]])


def other_instances(machines: dict[str, object], lat: dict[str, float],
                    timed: dict[Any, Any], markdown: bool) -> None:
    """The code timed on one instance type, predicted on another (other nodes, other
    network, other software): every ordered pair of environments of two instance types, per
    code; without B's run (the profiles have no node, so the nodes are taken to be the same,
    said) and given B's run at 32 nodes (``predict --on-fit``; B's own placement).  Written
    and first run on 2026-11-28, after ``on_b_ratio`` accepted runs of another placement;
    nothing chosen on these pairs."""
    for title, names, scorer in (
            ("without B's run (the nodes taken to be the same)", NAMES,
             lambda s, d, c: score(timed[(c, s)], timed[(c, d)], machines[s], machines[d],
                                   lat[d] / lat[s])),
            ("given B's own run at 32 nodes (`predict --on-fit`)", WITH_B,
             lambda s, d, c: score_with_b(timed[(c, s)], timed[(c, d)], machines[s],
                                          machines[d]))):
        print(f"\n{'### ' if markdown else ''}Another instance type, {title}\n")
        print("| A's instance → B's | code | points | " + " | ".join(names)
              + " | 95 % range covers | median width |")
        print("|---" * (len(names) + 5) + "|")
        tally = Tally(names)
        for ia, pa in INSTANCES.items():
            for ib, pb in INSTANCES.items():
                if ia == ib:
                    continue
                for code in CODES:
                    got = merged([scorer(s, d, code) for s in pa for d in pb], names)
                    print(f"| {ia} → {ib} | {code} | {tally.row(got)}")
        print(f"| all | | {tally.total()}")


def strong_codes(env_names: list[str], kind: str = "strong") -> list[str]:
    """The codes of ``data/pairs-blind`` whose files say ``# scaling: <kind>`` and that ran in
    both environments of some instance type."""
    codes: dict[str, set[str]] = {}
    for f in sorted(BLIND.glob("*.csv")):
        head = [ln for ln in f.read_text().splitlines()[:40] if ln.startswith("#")]
        env = next((e for e in env_names if f.stem.endswith("-" + e)), None)
        if env is None or not any(ln.replace(" ", "") == f"#scaling:{kind}" for ln in head):
            continue
        codes.setdefault(f.stem[:-len(env) - 1], set()).add(env)
    return sorted(c for c, have in codes.items()
                  if any(set(pair) <= have for pair in INSTANCES.values()))


def other_codes(machines: dict[str, object], lat: dict[str, float], markdown: bool) -> None:
    """The third set: other codes of the same study, in the same environments and with the
    same profiles, gathered blind after the collectives were added to the range and scored
    once (``data/pairs-blind``)."""
    codes = strong_codes(list(machines))
    if not codes:
        print("\nskipped: no strong-scaling series in data/pairs-blind")
        return
    heading(f"Other codes of the study, same environments (blind: {', '.join(codes)})",
            markdown)
    tally, odd = Tally(), Tally()
    for src, dst, code, ra, rb in blind_pairs(codes, same_layout=False):
        into = odd if code in DEGENERATE else tally
        cells = into.row(score(ra, rb, machines[src], machines[dst], lat[dst] / lat[src]))
        print(f"| {src} → {dst} | {code} | {cells}")
    print(f"| all but {', '.join(DEGENERATE)} | | {tally.total()}")
    if odd.inside:
        print(f"| {', '.join(DEGENERATE)} (not a code that shares work) | | {odd.total()}")
    weak_codes(machines, lat, markdown)


def heading(title: str, markdown: bool) -> None:
    """A blind table's title and column heads (A → B, code, then :func:`score`'s cells)."""
    print(f"\n{'### ' if markdown else ''}{title}\n")
    print("| A → B | code | points | " + " | ".join(NAMES) + " | 95 % range covers | "
          "median width |")
    print("|---" * (len(NAMES) + 5) + "|")


def blind_pairs(codes: list[str], same_layout: bool) -> Iterator[tuple[str, str, str, Any, Any]]:
    """Every instance type's two environments, both directions, for each of ``codes`` both ran
    (``data/pairs-blind``) at a count beyond A's smallest: (A, B, code, A's runs, B's runs); a
    pair that cannot be read, or (``same_layout``) ran other ranks a node, is said skipped."""
    from perfmodel.apps.transfer import read_runs
    from perfmodel.errors import InputError

    for pair in INSTANCES.values():
        for src, dst in (pair, pair[::-1]):
            for code in codes:
                fa, fb = BLIND / f"{code}-{src}.csv", BLIND / f"{code}-{dst}.csv"
                if not (fa.is_file() and fb.is_file()):
                    continue
                try:
                    ra, rb = read_runs(fa), read_runs(fb)
                except InputError as exc:
                    print(f"| {src} → {dst} | {code} | skipped: {exc.what} |")
                    continue
                if same_layout and ra.per_node != rb.per_node:
                    print(f"| {src} → {dst} | {code} | skipped: {ra.per_node:g} and "
                          f"{rb.per_node:g} ranks a node |")
                    continue
                if set(least(ra)) & set(least(rb)) - {min(least(ra))}:
                    yield src, dst, code, ra, rb


def score_weak(ra: object, rb: object, a_machine: object, b_machine: object, r: float,
               elsewhere: float | None = None) -> Scores:
    """As :func:`score` for a weak-scaling code (``predict --on --scaling weak``): each node's
    work is A's smallest run's at every count, and the rule's f is the share of A's time beyond
    it, 1 − T_A(n0) / T_A(n)."""
    from perfmodel.apps.transfer import move

    a, b = least(ra), least(rb)
    counts = sorted(n for n in set(a) & set(b) if n > min(a))
    moved = move(ra, a_machine, b_machine, 0.95, counts, weak=True,   # type: ignore[arg-type]
                 elsewhere=elsewhere)
    n0 = min(a)
    guesses = {}
    for n in counts:
        f = float(np.clip(1.0 - a[n0] / a[n], 0.0, 1.0))
        guesses[n] = {"B = A": a[n], "A × (1 − f + f·r)": a[n] * (1.0 - f + f * r)}
    return _scored(moved, b, guesses)


def weak_codes(machines: dict[str, object], lat: dict[str, float], markdown: bool) -> None:
    """The third set's weak-scaling codes (``# scaling: weak``), moved with ``weak=True``:
    every instance type's two environments, both directions, where both ran the code with the
    same ranks a node; scored once."""
    codes = strong_codes(list(machines), "weak")
    if not codes:
        return
    heading("Weak-scaling codes of the study, same environments (`--scaling weak`; blind: "
            f"{', '.join(codes)})", markdown)
    tally = Tally()
    for src, dst, code, ra, rb in blind_pairs(codes, same_layout=True):
        cells = tally.row(score_weak(ra, rb, machines[src], machines[dst], lat[dst] / lat[src]))
        print(f"| {src} → {dst} | {code} | {cells}")
    if tally.inside:
        print(f"| all | | {tally.total()}")


def environments(markdown: bool) -> None:
    """The second set: one code, five software environments of one EFA cluster, every
    ordered pair."""
    study = flux_study()
    if study is None:
        return
    machines, lat, timed = study
    print(f"\n{'### ' if markdown else ''}One EFA cluster, five software environments "
          "(LAMMPS ReaxFF, 4–32 nodes)\n")
    print("one-way latency at 8 B (median of the OSU files): "
          + ", ".join(f"{e} {v * 1e6:.2f} µs" for e, v in lat.items()) + "\n")
    print("| A → B | points | " + " | ".join(NAMES) + " | 95 % range covers | median width |")
    print("|---" * (len(NAMES) + 4) + "|")
    tally = Tally()
    for src in FLUX_ENVS:
        for dst in FLUX_ENVS:
            if src == dst:
                continue
            r = lat[dst] / lat[src]
            cells = tally.row(score(timed[src], timed[dst], machines[src], machines[dst], r))
            print(f"| {src} → {dst} (r {r:.2f}) | {cells}")
    print(f"| all | {tally.total()}")
    given = Tally(WITH_B)
    for src in FLUX_ENVS:
        for dst in FLUX_ENVS:
            if src != dst:
                given.row(score_with_b(timed[src], timed[dst], machines[src], machines[dst]))
    print("\ngiven B's own run at 4 nodes (`predict --on-fit`), every ordered pair: | "
          + " | ".join(WITH_B) + " | range | width |\n| all | " + given.total())


if __name__ == "__main__":
    main()
