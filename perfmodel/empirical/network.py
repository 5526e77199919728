"""Tie a fitted form's communication terms to a calibrated network, to re-predict the series on
another link speed or channel count.

A form's terms split into computation (``serial``, ``work``) and communication, each of which
stands for an operation of the machine's network (:mod:`perfmodel.machine.collectives`):

- ``halo2`` / ``halo3``: a halo exchange with 4 / 6 neighbours;
- ``log`` and, in weak scaling, ``sqrt``: an allreduce (recursive doubling, log2 p rounds);
- ``linear`` and ``contention``: an all-to-all (pairwise, p − 1 rounds).

The fitted coefficient says how much time the term takes on the measured machine; it is read as
a count of those operations on messages of ``size`` bytes.  On another network (``line_rate``,
``channels``) each term is scaled by the ratio of the operation's time there to its time here,
at every p.  The computation terms stay as they are.  The message size decides the ratio (a
latency-bound term barely moves with the line rate, a bandwidth-bound one moves in proportion),
so it must be given; it is one size at every p (a strong-scaling halo shrinks as p grows, which
this does not follow).  p is the process count: collectives are costed per process, so a
series counted in nodes is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from perfmodel.empirical.fit import Candidate, FormFit, ScalingFit, ScalingPrediction
from perfmodel.empirical.forms import FloatArray
from perfmodel.machine import Machine

COMPUTE = ("serial", "work")


def _exchange(neighbours: float) -> Callable[[Machine, FloatArray, FloatArray], FloatArray]:
    def op(machine: Machine, m: FloatArray, p: FloatArray) -> FloatArray:
        from perfmodel.machine.collectives import exchange

        return np.asarray(exchange(machine, m, neighbours, p), dtype=np.float64)
    return op


def _allreduce(machine: Machine, m: FloatArray, p: FloatArray) -> FloatArray:
    from perfmodel.machine.collectives import allreduce

    return np.asarray(allreduce(machine, m, p), dtype=np.float64)


def _alltoall(machine: Machine, m: FloatArray, p: FloatArray) -> FloatArray:
    from perfmodel.machine.collectives import alltoall

    return np.asarray(alltoall(machine, m, p), dtype=np.float64)


OPERATIONS: dict[str, tuple[str, Callable[[Machine, FloatArray, FloatArray], FloatArray]]] = {
    "halo2": ("halo exchange, 4 neighbours", _exchange(4.0)),
    "halo3": ("halo exchange, 6 neighbours", _exchange(6.0)),
    "log": ("allreduce", _allreduce),
    "sqrt": ("allreduce", _allreduce),
    "linear": ("all-to-all", _alltoall),
    "contention": ("all-to-all", _alltoall),
}
"""Communication term -> (the network operation it stands for, its time on a machine)."""


@dataclass(frozen=True)
class Retarget:
    """A prediction moved to another network: the times and ranges there, and the share of the
    time the communication terms take before and after."""

    processes: FloatArray
    time: FloatArray
    lo: FloatArray
    hi: FloatArray
    share_before: FloatArray
    share_after: FloatArray
    ratios: dict[str, FloatArray]


def _ratio(term: str, base: Machine, new: Machine, m: float, p: FloatArray) -> FloatArray:
    """The term's operation on ``new`` over its time on ``base``; 1 for computation and for
    one process, which sends nothing (a halo term's value at p = 1 is part of its shape, not
    a message)."""
    if term in COMPUTE:
        return np.ones_like(p)
    op = OPERATIONS[term][1]
    mm = np.full_like(p, m)
    q = np.maximum(p, 2.0)
    before, after = op(base, mm, q), op(new, mm, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = after / before
    return np.asarray(np.where(np.isfinite(r) & (p > 1), r, 1.0), dtype=np.float64)


def _split(fit: FormFit, q: FloatArray) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Per-term times at ``q``, and the mask of communication terms per count (none at one
    process)."""
    parts = fit.form.basis(q) * fit.coefficients
    comm = np.array([t not in COMPUTE for t in fit.form.terms])
    mask = comm[None, :] & (q[:, None] > 1)
    return parts, mask


def comm_share(fit: ScalingFit, processes: FloatArray) -> FloatArray:
    """The share of the predicted time in the communication terms (0 on one process): each
    form's share, averaged with the forms' weights in the prediction."""
    share = np.zeros_like(processes, dtype=np.float64)
    for c, w in _weighted(fit):
        parts, mask = _split(c.fit, processes)
        with np.errstate(divide="ignore", invalid="ignore"):
            one = (parts * mask).sum(axis=-1) / parts.sum(axis=-1)
        share += w * np.where(np.isfinite(one), one, 0.0)
    return share


def _weighted(fit: ScalingFit, least: float = 1e-4) -> list[tuple[Candidate, float]]:
    """The forms that carry weight in the prediction (above ``least``), renormalised."""
    got = [(c, float(w)) for c, w in zip(fit.members, fit.weights, strict=True) if w > least]
    total = sum(w for _, w in got)
    return [(c, w / total) for c, w in got]


def _moved(fit: FormFit, base: Machine, new: Machine, size: float, q: FloatArray
           ) -> tuple[FloatArray, FloatArray, dict[str, FloatArray]]:
    """A form's terms at ``q`` before and after the move, and each term's ratio."""
    parts, _, moved, ratios = _moving(fit, base, new, size, q)
    return parts, moved, ratios


def _moving(fit: FormFit, base: Machine, new: Machine, size: float, q: FloatArray
            ) -> tuple[FloatArray, NDArray[np.bool_], FloatArray, dict[str, FloatArray]]:
    """:func:`_moved`, with which terms are communication (one split of the form)."""
    parts, mask = _split(fit, q)
    ratios = {t: _ratio(t, base, new, size, q) for t in fit.form.terms}
    return parts, mask, parts * np.stack([ratios[t] for t in fit.form.terms], axis=-1), ratios


def retarget(fit: ScalingFit, pred: ScalingPrediction, base: Machine, new: Machine,
             size: float) -> Retarget:
    """``pred`` on ``new`` instead of ``base``, with the communication terms' operations on
    messages of ``size`` bytes.

    Each form the prediction averages is moved (its communication terms times their
    operation's ratio) and the moved forms are averaged with the same weights, in ln t.  The
    range is the prediction's, moved with its time, widened by how far the forms' moves differ:
    forms that fit the measured machine alike may put different shares of the time in
    communication.  Counts off-node (``pred.off_node``) do not move: their time is not the
    forms' (:func:`perfmodel.empirical.fit.off_node_time`)."""
    q = pred.processes
    logs, before, after = [], np.zeros_like(q), np.zeros_like(q)
    ratios: dict[str, FloatArray] = {}
    weights = []
    for c, w in _weighted(fit):
        parts, mask, moved, r = _moving(c.fit, base, new, size, q)
        with np.errstate(divide="ignore", invalid="ignore"):
            logs.append(np.log(moved.sum(axis=-1) / parts.sum(axis=-1)))
            one = (parts * mask).sum(axis=-1) / parts.sum(axis=-1)   # as comm_share has it
            before += w * np.where(np.isfinite(one), one, 0.0)
            after += w * (moved * mask).sum(axis=-1) / moved.sum(axis=-1)
        weights.append(w)
        ratios.update({t: v for t, v in r.items() if t not in COMPUTE})
    steps = np.stack(logs)
    wt = np.array(weights)
    step = wt @ steps
    spread = np.sqrt(wt @ (steps - step) ** 2)
    if pred.off_node is not None:   # off-node the time is not the forms': nothing of it is
        off = pred.off_node          # a cost the runs measured on the network, so none moves
        step, spread = np.where(off, 0.0, step), np.where(off, 0.0, spread)
        before, after = np.where(off, 0.0, before), np.where(off, 0.0, after)
    time = pred.time * np.exp(step)
    down = np.sqrt(np.log(pred.time / pred.lo) ** 2 + spread**2)   # each end its own width:
    up = np.sqrt(np.log(pred.hi / pred.time) ** 2 + spread**2)     # off-node they may differ
    return Retarget(q, time, time * np.exp(-down), time * np.exp(up), before, after, ratios)
