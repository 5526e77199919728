"""The same code on another machine: a code's times measured on machine A, moved to machine B
by what differs between them, with no model of the code.

At each node count n the code ran on A (the least time of its repeats), the time splits in two:

- **work**: the time of the smallest run, ``T_A(n0)``, shared perfectly over the nodes,
  ``T_A(n0) · n0 / n``.  Within a node nothing crosses the network: a run on one node moves
  only by the nodes' ratio;
- **overhead**: the rest, ``T_A(n) − work`` (never below 0): communication and
  synchronisation, which the timings alone cannot tell apart.

On B the work moves by the nodes' ratio (the profiles' flop rates when both have one; the
same nodes otherwise, said).  The overhead moves by the ratio of B's to A's time for one
message alone (each profile's point-to-point law), at a small message: what a strong-scaling
code's overhead beyond perfect sharing is made of, once the volume a process sends has shrunk
with its work, is latency and waiting, not bandwidth.  That is the point prediction,

    T_B(n) = work · node ratio + overhead · r(small),

the parallel-overhead share of A moved by B's latency (the rule of thumb
"T_A × (1 − f + f·r)", with r from the calibrated laws, not read off one file by hand).

The range says what the timings cannot: how much of the overhead is the network (none of it,
up to all of it) and how large its messages are (from the small message up to ``size_hi``,
assumed 64 KiB), and the run-to-run scatter of the least of a count's repeats, measured as the
typical gap between the least two repeats (assumed where no count was run twice).  The bounds
are the extremes of the first two, widened by ``z · scatter`` on either side, z the normal
quantile of the level: the level is the scatter's; the rest is a bracket, not a probability.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import NDArray

from perfmodel.errors import InputError
from perfmodel.machine import Machine
from perfmodel.machine.hardware import node_speed, speed_basis
from perfmodel.params import DECISIVE_SHARE
from perfmodel.units import format_counts, format_size

FloatArray = NDArray[np.float64]

SMALL = 8.0
"""Bytes of the small message whose time on each machine moves the overhead."""
SIZE_HI = 65536.0
"""The largest message size the range allows the overhead to be made of (assumed)."""
SIZES = 16
"""Message sizes the range's ratio is searched over, spaced evenly in log size."""
ELSEWHERE = 0.26
"""What else differs between two machines — their software stack, placement, the day of the
runs — as a relative standard deviation of the time.  No ping-pong measures it; it is taken
from real pairs (:data:`ELSEWHERE_SOURCE`, ``bench/elsewhere.py``) and said beside every range
it widens."""
ELSEWHERE_SOURCE = ("derived from 272 points of real pairs, the least value at which the 95 % "
                    "range held 95 % of them: alaska's IB and RoCE, a cloud study's "
                    "environments, five software stacks of one cluster, five UK machines; "
                    "each source left out, the others' value held 87 to 100 % of it")
NODE_SPREAD = 0.0
"""How far a code's speed on one node type over another departs from the ratio of their flop
rates beyond what :data:`ELSEWHERE` already allows, as a relative standard deviation of the
work's time (no flop rate says how bound by its arithmetic a code is).  Taken from pairs of
codes the UK pairs of :data:`ELSEWHERE` do not hold (:data:`NODE_SPREAD_SOURCE`,
``bench/node_spread.py``): with ELSEWHERE at its value they need none.  Where it is not 0 (or
is given), only the work widens by it, and only where the flop rates move the work."""
MEMORY_SPREAD = 0.0
"""As :data:`NODE_SPREAD`, where the nodes' memory bandwidths (STREAM, no flop rate on one
side) move the work (:data:`MEMORY_SPREAD_SOURCE`, ``bench/node_spread.py``)."""
NODE_SPREAD_SOURCE = ("derived from 104 points of three codes moved between five UK machines "
                      "by their HPL rates (GROMACS large, OpenSBLI's TGV at 512³ and 1024³): "
                      "with what else differs at its value the 95 % range held 99 % of them, "
                      "so nothing is added")
MEMORY_SPREAD_SOURCE = ("derived from the same 104 points with each node's flop rate taken "
                        "away, so that STREAM's Triad moves the work: with what else differs "
                        "at its value the 95 % range held 97 % of them, so nothing is added")
SCATTER = 0.05
"""Run-to-run scatter assumed where no count was run twice (a few per cent is what repeated
runs of one code on one machine typically show; said beside the answer)."""


@dataclass(frozen=True)
class Runs:
    """A code's runs reduced to one time a configuration: ``nodes``, ``processes``, the least
    time of the repeats (s), how many repeats, and the scatter of the least (a relative
    standard deviation) with where it came from."""

    nodes: FloatArray
    processes: FloatArray
    time: FloatArray
    repeats: NDArray[np.int64]
    scatter: float
    scatter_source: str
    notes: tuple[str, ...] = ()
    """What reading the runs left out or assumed (the readers' notes)."""

    @property
    def per_node(self) -> float:
        return float(self.processes[0] / self.nodes[0])


def runs(nodes: Any, processes: Any, times: Any, source: str = "") -> Runs:
    """The least time of each (nodes, processes) among ``times``, one ranks-per-node value
    required (runs at several would be several series)."""
    n = np.asarray(nodes, dtype=np.float64)
    p = np.asarray(processes, dtype=np.float64)
    t = np.asarray(times, dtype=np.float64)
    per = p / n
    if not np.allclose(per, per[0], rtol=1e-9):
        shown = ", ".join(f"{v:g}" for v in sorted(set(per.tolist()))[:5])
        raise InputError(f"the runs place {shown} processes a node: several series",
                         file=source or None,
                         fix="keep one placement with --where, or give one file per placement")
    keys, inverse = np.unique(n, return_inverse=True)
    order = np.lexsort((t, inverse))   # each count's runs together, fastest first
    ts, group = t[order], inverse[order]
    first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    count = np.diff(np.r_[first, len(ts)]).astype(np.int64)
    twice = first[count > 1]
    gaps = np.log(ts[twice + 1] / ts[twice])   # the least two repeats of each count
    if gaps.size:
        scatter = float(np.median(gaps))
        said = (f"measured: the median gap between the least two repeats, over {len(gaps)} "
                f"node count{'s' if len(gaps) > 1 else ''} run more than once")
        if scatter <= 0:
            scatter, said = 1e-3, said + " (no gap: held at 0.1 %)"
    else:
        scatter, said = SCATTER, (f"assumed {SCATTER:.0%}: no node count was run twice, so "
                                  "the timings give no scatter")
    return Runs(keys, keys * per[0], ts[first], count, scatter, said)


@dataclass(frozen=True)
class Moved:
    """Times on B of a code timed on A, one per node count: the measured ``time_a`` and its
    split (``work_a``, ``overhead_a``); on B the point ``time`` and its range, split into
    ``work_b`` and ``overhead_b``; the ratios that moved them; and notes on what was assumed."""

    nodes: FloatArray
    processes: FloatArray
    time_a: FloatArray
    work_a: FloatArray
    overhead_a: FloatArray
    time: FloatArray
    time_lo: FloatArray
    time_hi: FloatArray
    work_b: FloatArray
    overhead_b: FloatArray
    ratio: float
    ratio_span: tuple[float, float]
    node_ratio: float
    level: float
    scatter: float
    notes: tuple[str, ...]
    measured: NDArray[np.bool_]
    """Whether A was timed at each count (else its time there is extrapolated)."""
    overhead_span: FloatArray | None = None
    """At each count, the least and largest factor the range lets the overhead move by (one
    message's, widened where both machines timed a collective on as many nodes), shape (n, 2)."""
    elsewhere: float = 0.0
    """What else differs between the machines, as a relative standard deviation of the time,
    that widened the range (:data:`ELSEWHERE`, given, or 0 where B is A changed)."""
    elsewhere_source: str = ""
    node_spread: float = 0.0
    """How far the code's speed on B's nodes may depart from the ratio of the rates that moved
    the work, as a relative standard deviation of the work (:data:`NODE_SPREAD` for flop
    rates, :data:`MEMORY_SPREAD` for memory bandwidths, given, or 0 where no rate moved it)."""
    node_basis: str | None = None
    """Which rates moved the work: ``"flops"``, ``"memory"``, or None (not moved, or by B's
    own runs)."""
    node_spread_source: str = ""
    processes_b: FloatArray | None = None
    """B's processes at each count where B's own runs place another number a node (else
    B runs A's placement)."""

    def to_dict(self) -> dict[str, Any]:
        rows = [{"nodes": int(self.nodes[i]), "processes": int(self.processes[i]),
                 "measured_on_a": bool(self.measured[i]),
                 "time": float(self.time[i]), "time_lo": float(self.time_lo[i]),
                 "time_hi": float(self.time_hi[i]),
                 "on_a": {"time": float(self.time_a[i]), "work": float(self.work_a[i]),
                          "overhead": float(self.overhead_a[i])},
                 "on_b": {"work": float(self.work_b[i]), "overhead": float(self.overhead_b[i]),
                          "processes": int((self.processes if self.processes_b is None
                                            else self.processes_b)[i])},
                 **({} if self.overhead_span is None else
                    {"overhead_ratio_span": [float(v) for v in self.overhead_span[i]]})}
                for i in range(len(self.nodes))]
        return {"rows": rows, "level": self.level, "latency_ratio": self.ratio,
                "ratio_span": list(self.ratio_span), "node_ratio": self.node_ratio,
                "scatter": self.scatter,
                "elsewhere": {"value": self.elsewhere, "source": self.elsewhere_source},
                "node_spread": {"value": self.node_spread, "basis": self.node_basis,
                                "source": self.node_spread_source},
                "notes": list(self.notes)}


def message_ratio(a: Machine, b: Machine, sizes: Any) -> FloatArray:
    """B's time over A's for one message alone of each of ``sizes`` bytes."""
    m = np.asarray(sizes, dtype=np.float64)
    return np.asarray(b.message(m) / a.message(m), dtype=np.float64)


def node_ratio(a: Machine, b: Machine) -> tuple[float, str, str | None]:
    """How much longer B's node takes for the same work (A's flop rate over B's, or the
    memory bandwidths' ratio where a node has no flop rate,
    :func:`~perfmodel.machine.hardware.node_speed`), what it rests on, and which rates moved
    it (:func:`~perfmodel.machine.hardware.speed_basis`; None where it did not move); 1
    where the nodes are taken to be the same (said)."""
    speed, said = node_speed(a.profile, b.profile)
    basis = speed_basis(a.profile, b.profile)
    rates = "memory bandwidths" if basis == "memory" else "flop rates"
    if speed is None:
        return 1.0, said or f"the nodes' {rates} are the same: the work is not moved", None
    return 1.0 / speed, said, basis


def on_b_ratio(timed: Runs, on_b: Runs, r: float, weak: bool = False) -> tuple[float, str]:
    """How B's nodes do the work, from the code's own runs on B: at the smallest count both ran,
    n*, B's time is the work moved by k plus A's overhead there moved by ``r``, so
    k = (T_B(n*) − r · overhead_A(n*)) / work_A(n*) (at A's smallest count, the whole time's
    ratio); and the sentence that says so."""
    common = np.intersect1d(timed.nodes, on_b.nodes)
    if common.size == 0:
        raise InputError(f"B's runs ({format_counts(on_b.nodes)} nodes) share no node count "
                         f"with A's ({format_counts(timed.nodes)})",
                         fix="run the code on B at a count A ran, the smallest one best")
    ns = float(common[0])
    n0, t0 = float(timed.nodes.min()), float(timed.time[np.argmin(timed.nodes)])
    work = t0 if weak else t0 * n0 / ns
    t_a = float(timed.time[timed.nodes == ns][0])
    t_b = float(on_b.time[on_b.nodes == ns][0])
    k = (t_b - r * max(t_a - work, 0.0)) / work
    if not k > 0:
        raise InputError(f"B's run at {ns:g} nodes ({t_b:.3g} s) is faster than A's overhead "
                         f"there moved to B alone", fix="check that B's runs are the same "
                                                        "code and input as A's")
    placed = ("" if on_b.per_node == timed.per_node else
              f"; B's runs place {on_b.per_node:g} processes a node, A's {timed.per_node:g}: "
              "a node's share of the work is compared, and the overhead is taken as A's at "
              "the same node count (assumed)")
    return k, (f"B's own run at {ns:g} node{'s' if ns != 1 else ''} ({t_b:.3g} s, A: "
               f"{t_a:.3g} s) sets how B's nodes do the work: ×{k:.3g} (its time less "
               f"A's overhead there moved to B, over A's work there){placed}")


def move(timed: Runs, a: Machine, b: Machine, level: float = 0.95,
         nodes: Sequence[float] | None = None, size_hi: float = SIZE_HI,
         on_b: Runs | None = None, weak: bool = False,
         elsewhere: float | None = None, node_spread: float | None = None) -> Moved:
    """The times of ``timed`` (measured on ``a``) on ``b``, at the node counts ``nodes`` (every
    count measured when None).  A count not timed on A is extrapolated there first
    (:func:`extrapolated`), its interval carried into the range, and said.  ``on_b``: runs of
    the same code on B, which set how B's nodes do the work (:func:`on_b_ratio`) in place of
    the profiles' flop rates.  ``weak``: the problem grows with the nodes, so each node's work
    is the smallest run's at every count (not that run's shared over more nodes).
    ``elsewhere``: what else differs between the machines, as :data:`ELSEWHERE` (by default:
    that between two profiles, nothing when B is A with its hardware changed)."""
    if not 0.5 <= level < 1:
        raise InputError(f"level {level:g} is not a coverage", fix="e.g. 0.95")
    order = np.argsort(timed.nodes)
    n, p, t = timed.nodes[order], timed.processes[order], timed.time[order]
    n0, t0 = n[0], t[0]   # the reference: before any count is left out
    t_lo, t_hi, measured = t, t, np.ones(len(n), dtype=bool)
    said_fit: list[str] = []
    if nodes is not None:
        want = np.asarray(nodes, dtype=np.float64)
        missing = np.unique(want[~np.isin(want, n)])
        keep = np.isin(n, want)
        n, p, t, t_lo, t_hi, measured = (v[keep] for v in (n, p, t, t_lo, t_hi, measured))
        if missing.size:
            got = extrapolated(timed, missing, level, weak)
            said_fit.append(got[-1])
            n, p, t, t_lo, t_hi = (np.r_[v, w] for v, w in zip((n, p, t, t_lo, t_hi), got[:5],
                                                                strict=True))
            measured = np.r_[measured, np.zeros(len(missing), dtype=bool)]
            by = np.argsort(n)
            n, p, t, t_lo, t_hi, measured = (v[by] for v in (n, p, t, t_lo, t_hi, measured))
    work = np.full(len(n), t0) if weak else t0 * n0 / n
    overhead = np.maximum(t - work, 0.0)
    over_lo, over_hi = np.maximum(t_lo - work, 0.0), np.maximum(t_hi - work, 0.0)
    r = float(message_ratio(a, b, SMALL)[()])
    sizes = np.geomspace(SMALL, size_hi, SIZES)
    span = message_ratio(a, b, sizes)
    lo_r, hi_r = min(1.0, float(span.min())), max(1.0, float(span.max()))
    lo_n, hi_n, said_scale = scale_span(a, b, n, np.maximum(t_hi - work, 0.0), timed.per_node,
                                        size_hi, lo_r, hi_r)
    k, said_node, basis = node_ratio(a, b) if on_b is None else \
        (*on_b_ratio(timed, on_b, r, weak), None)
    work_b = work * k
    z = NormalDist().inv_cdf(0.5 + level / 2)
    scatter = timed.scatter if on_b is None else math.hypot(timed.scatter, on_b.scatter)
    other = elsewhere if elsewhere is not None else (
        0.0 if a.profile.name == b.profile.name else ELSEWHERE)
    said_other = ("given" if elsewhere is not None else
                  "none: B is A with its hardware changed" if other == 0 else ELSEWHERE_SOURCE)
    spread = node_spread if node_spread is not None else (
        NODE_SPREAD if basis == "flops" else MEMORY_SPREAD if basis == "memory" else 0.0)
    rates = "memory bandwidths'" if basis == "memory" else "flop rates'"
    source = ("given" if node_spread is not None else
              MEMORY_SPREAD_SOURCE if basis == "memory" else
              NODE_SPREAD_SOURCE if basis == "flops" else "")
    widen = math.exp(z * math.hypot(scatter, other))   # the overhead's, and the work's with
    widen_work = math.exp(z * math.hypot(scatter, other, spread))   # how B's nodes do it
    notes = [*timed.notes, said_node,
             ("weak scaling (the problem grows with the nodes): the overhead beyond the "
              "smallest run's time" if weak else
              "the overhead beyond the smallest run's work shared perfectly")
             + f" moves by B's time for a message of {format_size(SMALL)} over A's: {r:.3g}",
             f"the range: none to all of the overhead is the network, its messages of "
             f"{format_size(SMALL)} to {format_size(size_hi)} (assumed; B/A from "
             f"{lo_r:.3g} to {hi_r:.3g}), "
             f"widened by {z:.2f} × the run-to-run scatter {scatter:.1%} "
             f"({timed.scatter_source}"
             + ("" if on_b is None else f"; with B's runs' {on_b.scatter:.1%}") + ")"
             + (f" and what else differs between the two machines, {100 * other:.3g} % (their "
                f"software, placement and day, which no ping-pong measures: {said_other})"
                if other else "")]
    if elsewhere == 0:
        notes.append("what else differs between the two machines: nothing (given)")
    if basis is not None:
        why = ("a code is seldom as bound by its memory as STREAM's Triad" if basis == "memory"
               else "a code is seldom as bound by its arithmetic as HPL's dense solve")
        notes.append(f"how far this code's speed on B's nodes departs from the {rates} "
                     f"ratio ({1 / k:.3g}×; {why}): "
                     + (f"the range widens the work by {z:.2f} × {spread:.1%} ({source})"
                        if spread else
                        f"held in what else differs ({100 * other:.3g} %; {source})"
                        if other and source else "not in the range")
                     + "; give B's own run (--on-fit) to set it")
    if n0 > 1:
        notes.append(f"the smallest run is on {n0:g} nodes: its own communication is taken "
                     "as work, which does not move (a lower bound on what moves)")
    notes += said_fit + said_scale
    time, none, every = work_b + overhead * r, work_b + overhead * lo_n, work_b + overhead * hi_n
    low, high = work_b + over_lo * lo_n, work_b + over_hi * hi_n   # A's own range (extrapolated)
    moves = (every - none) / time > DECISIVE_SHARE   # as an assumption is named beside one
    if np.any(moves):
        i = int(np.flatnonzero(moves)[-1])   # at the most nodes where it matters
        scale = hi_n[i] > hi_r or lo_n[i] < lo_r
        notes.append("what decides it: " + (
            "how the overhead moves at scale" if scale else
            "how much of the overhead is the network, and the size of its messages")
            + f" (at {n[i]:g} nodes, {none[i]:.3g} to {every[i]:.3g} s on B as the overhead "
            f"moves by ×{lo_n[i]:.3g} to ×{hi_n[i]:.3g}: none of it the network, or all of it "
            f"as one message of {format_size(SMALL)} to {format_size(size_hi)}"
            + (" or the collectives timed on as many nodes" if scale else "") + ")")
    placed = None if on_b is None or on_b.per_node == timed.per_node else n * on_b.per_node
    low = work_b / widen_work + (low - work_b) / widen
    high = work_b * widen_work + (high - work_b) * widen
    return Moved(n, p, t, work, overhead, time, low, high, work_b,
                 overhead * r, r, (lo_r, hi_r), k, level, scatter, tuple(notes),
                 measured, np.c_[lo_n, hi_n], other, said_other, spread, basis, source,
                 placed)


def scale_span(a: Machine, b: Machine, nodes: FloatArray, overhead: FloatArray,
               per_node: float, size_hi: float, lo_r: float, hi_r: float
               ) -> tuple[FloatArray, FloatArray, list[str]]:
    """How far the overhead may move at each of ``nodes``: one message's ratio (``lo_r`` to
    ``hi_r``), widened at a count where both profiles hold a collective timed on as many nodes
    (with the code's ``per_node`` ranks a node, where a run says its processes) to B's over
    A's time for it at the sizes either measured from :data:`SMALL` to ``size_hi``
    (:mod:`perfmodel.machine.at_scale`); and the sentence that says so, naming the counts
    where it widens and A has an overhead to move."""
    from perfmodel.machine.at_scale import common, describe, ratios

    lo, hi = np.full(len(nodes), lo_r), np.full(len(nodes), hi_r)
    said, within = [], []
    both = common(a.profile.collectives, b.profile.collectives,
                  lambda count: round(count * per_node))
    for i, count in enumerate(nodes.tolist()):
        pairs = both.get(int(count), []) if count == int(count) and count > 1 else []
        got = ratios(pairs, SMALL, size_hi)
        if not got or overhead[i] <= 0:
            continue
        every = np.concatenate([r for _, _, r, _ in got])
        c_lo, c_hi = float(every.min()), float(every.max())
        used = np.concatenate([m for _, _, _, m in got])
        ranks = [ra.processes or rb.processes for ra, rb, _, _ in got]
        unsaid = [w for w, v in (("A's", got[0][0].processes), ("B's", got[0][1].processes))
                  if v is None]
        shown = (f"B's {describe([rb for _, rb, _, _ in got])}"
                 + (f" ({ranks[0]} ranks" + (f"; {unsaid[0]} does not say)" if unsaid else ")")
                    if ranks[0] else "")
                 + f" takes ×{c_lo:.3g}–{c_hi:.3g} A's ({format_size(used.min())} to "
                 f"{format_size(used.max())})")
        if c_lo >= lo_r and c_hi <= hi_r:
            within.append(shown)
            continue
        lo[i], hi[i] = min(lo_r, c_lo), max(hi_r, c_hi)
        said.append(shown)
    out = []
    if said:
        out.append("at scale, both profiles time collectives on as many nodes: "
                   + "; ".join(said) + f". Beyond one message's ×{lo_r:.3g}–{hi_r:.3g}, what "
                   "runs at scale differs by that much: the range lets the overhead move by it "
                   "too")
    if within:
        out.append("collectives both profiles time on as many nodes stay within one message's "
                   f"×{lo_r:.3g}–{hi_r:.3g}: " + "; ".join(within))
    return lo, hi, out


def extrapolated(timed: Runs, counts: FloatArray, level: float, weak: bool = False
                 ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, str]:
    """A's time at node ``counts`` it was not timed at: the forms of T(p) fitted on its runs
    and averaged as ``perfmodel scaling`` does (:func:`perfmodel.empirical.fit.fit_scaling`,
    strong scaling, the same problem at every count, unless ``weak``), with that prediction's
    ``level`` range;
    nodes, processes, time, low, high and a sentence saying so."""
    from perfmodel.empirical.fit import LIMIT, fit_scaling, predict_scaling
    from perfmodel.errors import FitError

    per = timed.per_node
    try:
        fit = fit_scaling(timed.processes, timed.time, "weak" if weak else "strong")
    except FitError as exc:
        raise InputError(f"no run on A at {format_counts(counts)} node(s), and A's times cannot "
                         f"be extrapolated there: {exc.what}", fix="choose among the counts "
                         f"timed on A ({format_counts(timed.nodes)})") from None
    try:
        pred = predict_scaling(fit, counts * per, level)
    except InputError as exc:   # past LIMIT times the largest count timed
        raise InputError(f"no run on A at {format_counts(counts)} node(s): {exc.what}",
                         fix=f"choose counts up to {fit.measured[1] * LIMIT / per:g} "
                             "nodes") from None
    form = fit.chosen.fit
    said = (f"not timed on A at {format_counts(counts)} node(s): A's time there is extrapolated "
            f"from its runs ("
            + ("weak scaling: the problem grows with the nodes" if weak else
               "strong scaling assumed: the same problem at every count")
            + ") by every "
            f"form of T(p) weighted by its cross-validation, Amdahl's law carrying a quarter, "
            f"as perfmodel scaling does (the "
            f"runs' form: {form.form.name}, T(p) = {form.formula}), its {level:.0%} range "
            f"carried into the range")
    return counts, counts * per, pred.time, pred.lo, pred.hi, said


def read_runs(path: str | Path, where: dict[str, str] | None = None,
              columns: dict[str, str] | None = None) -> Runs:
    """The runs of a code from ``path``: a timing CSV (``nodes`` with ``processes`` or
    ``ranks_per_node``, ``time_s``; ``columns`` maps them to the file's own names), a ReFrame
    perflog, Slurm ``sacct`` records, Extra-P text input, or a directory of them (walked: a
    ReFrame ``perflogs/`` tree holds one file a test), kept by ``where``'s labels."""
    from perfmodel.empirical.series import load_series

    root = Path(path)
    files = sorted(f for f in root.rglob("*") if f.is_file() and not f.name.startswith(".")) \
        if root.is_dir() else [root]
    if not files:
        raise InputError("is an empty directory", file=str(root),
                         fix="give the timing CSV or the perflogs' directory")
    s = load_series(files, where, columns=columns)
    if s.nodes is None:
        raise InputError("the runs give process counts but not the nodes they used: which "
                         "messages crossed the network is unknown", file=str(root),
                         fix="add a nodes column beside processes (or ranks_per_node)")
    return replace(runs(s.nodes, s.processes, s.times, str(root)), notes=s.notes)
