"""Tie a fitted form's communication terms to a calibrated network, to re-predict the series on
another link speed or channel count.

A form's terms split into computation (``serial``, ``work``) and communication, each of which
stands for an operation of the machine's network (:mod:`perfmodel.apps.collectives`):

- ``halo2`` / ``halo3``: a halo exchange with 4 / 6 neighbours;
- ``log`` and, in weak scaling, ``sqrt``: an allreduce (recursive doubling, log2 p rounds);
- ``linear`` and ``contention``: an all-to-all (pairwise, p − 1 rounds).

The fitted coefficient says how much time the term takes on the measured machine; it is read as
a count of those operations on messages of ``size`` bytes.  On another network (``line_rate``,
``channels``) each term is scaled by the ratio of the operation's time there to its time here,
at every p.  The computation terms stay as they are.  The message size decides the ratio (a
latency-bound term barely moves with the line rate, a bandwidth-bound one moves in proportion),
so it must be given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from perfmodel.apps.machine import Machine
from perfmodel.empirical.fit import ScalingFit, ScalingPrediction
from perfmodel.empirical.forms import TERMS, FloatArray

COMPUTE = ("serial", "work")


def _exchange(neighbours: float) -> Callable[[Machine, FloatArray, FloatArray], FloatArray]:
    def op(machine: Machine, m: FloatArray, p: FloatArray) -> FloatArray:
        from perfmodel.apps.collectives import exchange

        return np.asarray(exchange(machine, m, neighbours, p), dtype=np.float64)
    return op


def _allreduce(machine: Machine, m: FloatArray, p: FloatArray) -> FloatArray:
    from perfmodel.apps.collectives import allreduce

    return np.asarray(allreduce(machine, m, p), dtype=np.float64)


def _alltoall(machine: Machine, m: FloatArray, p: FloatArray) -> FloatArray:
    from perfmodel.apps.collectives import alltoall

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
    if term in COMPUTE:
        return np.ones_like(p)
    op = OPERATIONS[term][1]
    mm = np.full_like(p, m)
    # p = 1 has no message: take the ratio at two processes, where the term is 0 anyway
    q = np.maximum(p, 2.0)
    before, after = op(base, mm, q), op(new, mm, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = after / before
    return np.asarray(np.where(np.isfinite(r), r, 1.0), dtype=np.float64)


def comm_share(fit: ScalingFit, processes: FloatArray) -> FloatArray:
    """The share of the predicted time in the communication terms."""
    f = fit.chosen.fit
    parts = f.form.basis(processes) * f.coefficients
    comm = [i for i, t in enumerate(f.form.terms) if t not in COMPUTE]
    total = parts.sum(axis=-1)
    return np.asarray(parts[:, comm].sum(axis=-1) / total, dtype=np.float64)


def retarget(fit: ScalingFit, pred: ScalingPrediction, base: Machine, new: Machine,
             size: float) -> Retarget:
    """``pred`` on ``new`` instead of ``base``, with the communication terms' operations on
    messages of ``size`` bytes.  The range keeps its relative width: the network's own ratio is
    taken as exact."""
    f = fit.chosen.fit
    q = pred.processes
    parts = f.form.basis(q) * f.coefficients
    ratios = {t: _ratio(t, base, new, size, q) for t in f.form.terms if t in TERMS}
    moved = parts * np.stack([ratios[t] for t in f.form.terms], axis=-1)
    time = moved.sum(axis=-1)
    scale = time / parts.sum(axis=-1)
    comm = [i for i, t in enumerate(f.form.terms) if t not in COMPUTE]
    return Retarget(q, time, pred.lo * scale, pred.hi * scale,
                    parts[:, comm].sum(axis=-1) / parts.sum(axis=-1),
                    moved[:, comm].sum(axis=-1) / time,
                    {t: r for t, r in ratios.items() if t not in COMPUTE})
