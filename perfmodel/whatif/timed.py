"""A what-if sweep across machines with no model of the code: its measured times on the machine
it ran on, moved to each machine (:func:`perfmodel.apps.transfer.move`), at every node count
swept.

Each configuration is a machine and a node count.  Its time is the code's time on A moved to
that machine: the smallest run's work shared perfectly (moved by the nodes' flop rates where
both profiles have a node), and the rest, the overhead (communication and synchronisation,
which timings cannot tell apart), moved by the machine's time for a small message over A's;
its range brackets how much of the overhead is the network and how large its messages are.  A
count A never ran is extrapolated on A first, as ``perfmodel scaling`` would, and marked.  The
result is a :class:`~perfmodel.whatif.sweep.Sweep`, so ``whatif`` and ``plan`` read it as any
other: its terms are ``compute`` (the work) and ``communication`` (the overhead, said so).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from perfmodel.apps.transfer import Runs, move
from perfmodel.apps.trust import Extrapolation
from perfmodel.errors import InputError
from perfmodel.machine import Machine
from perfmodel.machine.profile import Profile
from perfmodel.whatif.machines import home, offered_price
from perfmodel.whatif.sweep import TERMS, Grid, Sweep

FloatArray = NDArray[np.float64]

OVERHEAD_NOTE = ("without a model the time splits into work (the smallest run's, shared "
                 "perfectly) and overhead (the rest: communication and synchronisation "
                 "together, shown as communication)")


def across_timings(timed: Runs, profile: Profile, grid: Grid, level: float = 0.95) -> Sweep:
    """The code timed on ``profile`` (``timed``), moved to every machine of ``grid`` (axes
    ``machine`` and ``nodes`` only) at every node count."""
    extra = set(grid.axes) - {"machine", "nodes"}
    if "machine" not in grid.axes or extra:
        raise InputError("without a model, a sweep varies machines and node counts only"
                         if extra else "without a model, a sweep moves timings to machines",
                         fix="give APP to vary channels, link speed or latency" if extra else
                             "add --vary machine=A.toml,B.toml (or give APP)")
    counts = np.asarray(grid.axes.get("nodes", np.ones(1)), dtype=np.float64)
    a = Machine(profile)
    n = len(counts)
    time, lo, hi = (np.empty(grid.size) for _ in range(3))
    work, over, speed = (np.empty(grid.size) for _ in range(3))
    said: list[tuple[str, tuple[str, ...]]] = []   # each machine's notes, by its label
    for k, j in enumerate(grid.axes["machine"].astype(int).tolist()):
        label, own = grid.machines[j]   # its own node or none: move says which
        moved = move(timed, a, Machine(own if own is not None else profile), level,
                     counts.tolist())
        at = np.searchsorted(moved.nodes, counts)   # the grid's order from moved's sorted one
        part = slice(k * n, (k + 1) * n)
        time[part], lo[part], hi[part] = moved.time[at], moved.time_lo[at], moved.time_hi[at]
        work[part], over[part] = moved.work_b[at], moved.overhead_b[at]
        one = np.flatnonzero(moved.nodes == 1.0)
        t1 = float(moved.time[one[0]]) if one.size else math.nan
        speed[part] = t1 / moved.time[at]
        said.append((label, moved.notes))
    # what every machine says, once; the rest named by its machine
    shared = set.intersection(*(set(n) for _, n in said))
    notes = [OVERHEAD_NOTE, *(n for n in said[0][1] if n in shared),
             *dict.fromkeys(f"{label}: {n}" for label, m in said for n in m if n not in shared)]
    cfg = grid.flat()
    zero = np.zeros(grid.size)
    terms = {k: zero for k in TERMS} | {"compute": work, "communication": over}
    base = {"nodes": 1.0}
    if (at_home := home(grid)) is not None:
        base["machine"] = float(grid.axes["machine"][at_home])
    span = (float(timed.nodes.min()), float(timed.nodes.max()))
    outside = Extrapolation(cfg["nodes"], span, np.full(grid.size, math.nan), (0.0, math.inf),
                            profile=profile.name)
    return Sweep(grid, cfg, time, lo, hi, terms, speed, base, False, offered_price(grid, cfg),
                 outside, tuple(notes), moved=True)

