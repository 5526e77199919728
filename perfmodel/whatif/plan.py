"""Choosing hardware: the cheapest configuration that meets a target, or the fastest a budget
buys, from a sweep over a catalogue's node types, networks, channel counts and node counts.

- **Target time** T: a configuration meets it where its predicted time is at most T; it meets
  it *surely* where the upper end of its band does too.  The plan is the cheapest sure one
  (ties to the faster), else the cheapest that meets it at the estimate, flagged.
- **Target speedup** S: speedup over one node of the catalogue's reference type (the machine
  profile's own node) on the profile's network, t_ref / t (scaled by p under weak scaling,
  where the problem grows with the nodes: the scaled speedup); sure where t_ref / (upper end
  of t's band) is at least S.  (A time target under weak scaling is met by the smallest
  machine, so the command line refuses it.)
- **Budget** B: the fastest configuration whose price is at most B (ties to the cheaper).

The margin is how far the plan clears the target (a fraction of it; for a budget, the money
left).  The runners-up are the best configuration of each other hardware (node type, network,
channel count), so the plan shows what each alternative would take.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from perfmodel.errors import InputError
from perfmodel.whatif.sweep import Sweep

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]
Kind = Literal["time", "speedup", "budget"]
HARDWARE = ("machine", "node", "network", "channels")


@dataclass(frozen=True)
class Target:
    """What the plan must meet: a time (s), a speedup, or a budget (the catalogue's
    currency)."""

    kind: Kind
    value: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.value) and self.value > 0):
            raise InputError(f"--target-{self.kind} {self.value:g} is not a positive number"
                             if self.kind != "budget" else
                             f"--budget {self.value:g} is not a positive amount",
                             fix="give a positive target")


@dataclass(frozen=True)
class Plan:
    """A sweep's answer to a target: ``chosen`` (an index into the sweep, or None when
    nothing meets the target), whether it meets it ``sure``-ly (across its band), the
    ``runners_up`` (indices), the configurations that meet the target at the estimate
    (``meets``) and across the band (``sure_mask``), ``closest`` (the configuration nearest
    the target when none meets it), ``reference`` (the one-node time of the reference node
    that speedups count from), and whether the sweep has bands (``banded``)."""

    sweep: Sweep
    target: Target
    chosen: int | None
    sure: bool
    runners_up: IntArray
    meets: BoolArray
    sure_mask: BoolArray
    closest: int | None
    reference: float
    banded: bool
    cheaper_unsure: int | None = None
    """A configuration cheaper than ``chosen`` that meets the target at the estimate but not
    across its band (the cheapest such), or None."""

    def speedup(self, i: int, time: float | None = None) -> float:
        """Speedup of configuration ``i`` over the reference node (at ``time`` if given)."""
        t = self.sweep.time[i] if time is None else time
        scale = self.sweep.config["nodes"][i] if self.sweep.weak else 1.0
        return float(self.reference * scale / t)

    def margin(self, i: int, pessimistic: bool = False) -> float:
        """How far configuration ``i`` clears the target, as a fraction of it (positive:
        clears; for a budget, the share of the budget left).  ``pessimistic``: at the end of
        the band that is worse for the target."""
        s = self.sweep
        v = self.target.value
        if self.target.kind == "budget":
            assert s.cost is not None
            return float((v - s.cost[i]) / v)
        t = float(s.hi[i]) if pessimistic and self.banded and math.isfinite(s.hi[i]) \
            else float(s.time[i])
        if self.target.kind == "time":
            return (v - t) / v
        return (self.speedup(i, t) - v) / v


def reference_time(sweep: Sweep) -> float:
    """One node of the reference type, as swept: on the profile's network and channels where
    the sweep has them (one node sends nothing, so the network matters little), else on the
    fastest one; NaN when the sweep has no one-node run of the reference type."""
    cfg = sweep.config
    mask = (cfg["nodes"] == 1.0) & np.isfinite(sweep.time)
    for axis in ("node", "machine"):
        if axis in cfg:   # the reference node type, or the fitted-on machine: that one
            mask &= np.isclose(cfg[axis], sweep.baseline.get(axis, math.nan))
    for axis in ("network", "channels"):
        if axis in cfg and axis in sweep.baseline:
            own = mask & np.isclose(cfg[axis], sweep.baseline[axis])
            mask = own if np.any(own) else mask
    idx = np.flatnonzero(mask)
    return float(np.min(sweep.time[idx])) if idx.size else math.nan


def plan(sweep: Sweep, target: Target, runners: int = 4) -> Plan:
    """The plan for ``target`` from ``sweep`` (which must carry prices)."""
    if sweep.cost is None:
        raise InputError("the sweep has no prices", fix="give a catalogue whose networks "
                                                        "price every configuration swept")
    s = sweep
    cost = sweep.cost
    ok = np.isfinite(cost) & np.isfinite(s.time)
    banded = bool(np.any(np.isfinite(s.hi[ok]) & (s.hi[ok] > s.time[ok])))
    hi = np.where(np.isfinite(s.hi), s.hi, s.time) if banded else s.time
    ref = reference_time(s)
    if target.kind == "speedup" and not math.isfinite(ref):
        if "machine" in s.config:
            raise InputError("the sweep has no one-node run of the machine the constants "
                             "were fitted on, which speedups count from",
                             fix="offer that machine in the catalogue and consider 1 node, or "
                                 "give --target-time or --budget")
        raise InputError("the sweep has no one-node run of the reference node type, which "
                         "speedups count from", fix="consider 1 node (--nodes 1..N)")
    scale = s.config["nodes"] if s.weak else np.ones(len(s.time))
    v = target.value
    with np.errstate(all="ignore"):
        if target.kind == "time":
            meets, sure = ok & (s.time <= v), ok & (hi <= v)
        elif target.kind == "speedup":
            meets, sure = ok & (ref * scale / s.time >= v), ok & (ref * scale / hi >= v)
        else:
            meets = sure = ok & (cost <= v)
    pool = sure if np.any(sure) else meets
    order = _order(s, np.flatnonzero(pool), target.kind)
    chosen = int(order[0]) if order.size else None
    runners_up = _per_hardware(s, order)[1:1 + runners] if order.size else \
        np.empty(0, dtype=np.intp)
    closest = None
    if chosen is None and np.any(ok):
        idx = np.flatnonzero(ok)
        if target.kind == "budget":
            closest = int(idx[np.argmin(cost[idx])])
        else:   # the best there is: the fastest, or under weak scaling the best speedup
            closest = int(_order(s, idx, "budget")[0])
    unsure = None
    if chosen is not None and target.kind != "budget":
        cheaper = np.flatnonzero(meets & ~sure & (cost < cost[chosen]))
        if cheaper.size:
            unsure = int(_order(s, cheaper, target.kind)[0])
    return Plan(s, target, chosen, bool(chosen is not None and sure[chosen]), runners_up,
                meets, sure, closest, ref, banded, unsure)


def _order(s: Sweep, idx: IntArray, kind: Kind) -> IntArray:
    """``idx`` best first: by price then time for a time or speedup target; for a budget by
    time, times within a tie (:data:`~perfmodel.whatif.analysis.TIE`) by price and then the
    lesser hardware."""
    assert s.cost is not None
    if kind == "budget":
        from perfmodel.whatif.analysis import lesser_first

        return lesser_first(s, idx)
    return idx[np.lexsort((s.rank_time[idx], s.cost[idx]))]  # the last key decides first


def _per_hardware(s: Sweep, order: IntArray) -> IntArray:
    """The first configuration of ``order`` for each hardware (node type, network, channel
    count), in ``order``'s order: one key per configuration from the grid's value indices,
    the first of each key by :func:`np.unique`, no loop over configurations."""
    order = np.asarray(order, dtype=np.intp)
    axes = [a for a in HARDWARE if a in s.grid.axes]
    if not axes or order.size == 0:
        return order[:1]
    names = list(s.grid.axes)
    coords = np.unravel_index(order, s.grid.shape)     # of these configurations only
    key = np.ravel_multi_index(tuple(coords[names.index(a)] for a in axes),
                               tuple(len(s.grid.axes[a]) for a in axes))
    _, first = np.unique(key, return_index=True)
    return order[np.sort(first)]
