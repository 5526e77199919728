"""Collective operations as rounds of messages on a :class:`~perfmodel.machine.Machine`.

Each algorithm is the textbook schedule (Thakur, Rabenseifner and Gropp, "Optimization of
collective communication operations in MPICH", 2005): a sequence of rounds, each ``k``
messages of ``m`` bytes at once, costed by :meth:`Machine.round`.  On a network that does not
share, a round costs one message; on a shared medium the round's messages queue for the
channels, which is how a shared Ethernet serialises a collective's bytes.  On a machine of
boxes a round between partners in one box takes the intra-box link (block placement: the whole
job in one box, or the tree rounds whose partners are closer than a box holds).  Reductions'
arithmetic is not counted.  Every function is vectorised over ``p`` (whole numbers ≥ 1) and
``m`` (bytes each process contributes or receives, as MPI counts them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.machine.core import Machine

FloatArray = NDArray[np.float64]


def _levels(p: FloatArray) -> int:
    return int(np.ceil(np.log2(max(float(np.max(p)), 1.0)))) if p.size else 0


def _tree(machine: Machine, m: FloatArray, p: FloatArray,
          size: Callable[[int], FloatArray], count: Callable[[int], FloatArray],
          distance: Callable[[int], FloatArray] | None = None, xor: bool = True,
          procs: FloatArray | None = None) -> FloatArray:
    """Σ over levels i < ⌈log2 p⌉ of a round of ``count(i)`` messages of ``size(i)`` bytes.

    ``xor``: the partners are ``rank XOR distance(i)`` (default 2^i), inside a box where
    :meth:`Machine.inside` says so, and a round a box or more apart sends the whole box out;
    otherwise (``rank + d`` partners: dissemination, Bruck) a round stays inside only when
    the whole job does.  ``procs``: the job's real size, when the tree runs on fewer."""
    total = np.zeros(np.broadcast(m, p).shape)
    job = p if procs is None else procs
    last: tuple[Any, ...] | None = None
    cost = total
    for i in range(_levels(p)):
        live = 2.0 ** i < p
        d = 2.0 ** i if distance is None else distance(i)
        near = machine.inside(job, d) if xor else machine.inside(job)
        out = np.where(np.asarray(d) >= machine.box, machine.box, 1.0) if xor else 1.0
        args = (size(i), count(i), near, out)
        machine.note(args[0], live & (np.asarray(args[1]) > 0))   # every level, cached or not
        # a level like the one before it (a barrier's, or any tree on a flat network) costs
        # the same: a sweep of a million configurations solves its queue once, not per level
        if last is None or not all(np.array_equal(a, b) for a, b in zip(args, last,
                                                                          strict=True)):
            cost = machine.round(*args, live=False)
            last = args
        total = total + np.where(live, cost, 0.0)
    return total


def barrier(machine: Machine, p: ArrayLike) -> FloatArray:
    """Dissemination: ⌈log2 p⌉ rounds in which every process sends an empty message."""
    pp = np.asarray(p, dtype=np.float64)
    zero = np.zeros_like(pp)
    return _tree(machine, zero, pp, lambda i: zero, lambda i: pp, xor=False)


def bcast(machine: Machine, m: ArrayLike, p: ArrayLike, algorithm: str = "binomial"
          ) -> FloatArray:
    """``binomial``: round i sends m bytes from the 2^i processes that have them.
    ``scatter-allgather`` (van de Geijn): scatter m/p pieces down the tree, then a ring
    allgather."""
    mm, pp = np.broadcast_arrays(np.asarray(m, dtype=np.float64), np.asarray(p, dtype=np.float64))
    if algorithm == "binomial":
        return _tree(machine, mm, pp, lambda i: mm, lambda i: np.minimum(2.0 ** i, pp - 2.0 ** i))
    if algorithm == "scatter-allgather":
        return scatter(machine, mm / pp, pp) + allgather(machine, mm / pp, pp, "ring")
    raise _unknown("bcast", algorithm, ("binomial", "scatter-allgather"))


def reduce(machine: Machine, m: ArrayLike, p: ArrayLike, algorithm: str = "binomial"
           ) -> FloatArray:
    """``binomial``: the broadcast's rounds in reverse."""
    if algorithm != "binomial":
        raise _unknown("reduce", algorithm, ("binomial",))
    return bcast(machine, m, p, "binomial")


def scatter(machine: Machine, m: ArrayLike, p: ArrayLike) -> FloatArray:
    """Binomial scatter of m bytes to each process: round i halves what moves (for p not a
    power of two the sizes are those of the next power of two, slightly more than moves)."""
    mm, pp = np.broadcast_arrays(np.asarray(m, dtype=np.float64), np.asarray(p, dtype=np.float64))
    top = 2.0 ** np.ceil(np.log2(np.maximum(pp, 1.0)))
    return _tree(machine, mm, pp, lambda i: mm * top / 2.0 ** (i + 1),
                 lambda i: np.minimum(2.0 ** i, pp - 2.0 ** i), lambda i: top / 2.0 ** (i + 1))


def gather(machine: Machine, m: ArrayLike, p: ArrayLike) -> FloatArray:
    """Binomial gather: the scatter's rounds in reverse."""
    return scatter(machine, m, p)


def allgather(machine: Machine, m: ArrayLike, p: ArrayLike, algorithm: str = "ring"
              ) -> FloatArray:
    """``ring``: p − 1 rounds, every process passing m bytes on.  ``recursive-doubling``:
    round i exchanges 2^i·m bytes between partners.  ``bruck``: the same rounds for any p, the
    last sending what is left; recursive doubling for p not a power of two is costed so too."""
    mm, pp = np.broadcast_arrays(np.asarray(m, dtype=np.float64), np.asarray(p, dtype=np.float64))
    if algorithm == "ring":
        return np.where(pp > 1, (pp - 1) * machine.round(mm, pp, machine.inside(pp),
                                                         live=pp > 1), 0.0)
    if algorithm in ("recursive-doubling", "bruck"):
        return _tree(machine, mm, pp, lambda i: mm * np.minimum(2.0 ** i, pp - 2.0 ** i),
                     lambda i: pp, xor=algorithm == "recursive-doubling")
    raise _unknown("allgather", algorithm, ("ring", "recursive-doubling", "bruck"))


def allreduce(machine: Machine, m: ArrayLike, p: ArrayLike,
              algorithm: str = "recursive-doubling") -> FloatArray:
    """``recursive-doubling``: log2 p rounds, everyone exchanging all m bytes.
    ``ring``: a reduce-scatter and an allgather ring, 2(p − 1) rounds of m/p bytes.
    ``rabenseifner``: recursive halving (m/2, m/4 …) then recursive doubling back.
    For p not a power of two, the r = p − 2^⌊log2 p⌋ extra processes first hand their data
    to a partner and get the result back at the end: two more rounds of r messages."""
    mm, pp = np.broadcast_arrays(np.asarray(m, dtype=np.float64), np.asarray(p, dtype=np.float64))
    if algorithm == "ring":
        return np.where(pp > 1, 2 * (pp - 1) * machine.round(mm / pp, pp, machine.inside(pp),
                                                             live=pp > 1), 0.0)
    q = 2.0 ** np.floor(np.log2(np.maximum(pp, 1.0)))
    # for p not a power of two, ranks 2r and 2r + 1 (r < p − q) first pair up (XOR 1), then
    # the tree runs on renumbered ranks whose partners are not where XOR puts them: those
    # rounds stay inside only when the whole job does
    odd = pp > q
    extra = np.where(odd, 2 * machine.round(mm, pp - q, machine.inside(pp, 1.0), live=odd), 0.0)
    far = np.where(odd, np.inf, 1.0)
    if algorithm == "recursive-doubling":
        return _tree(machine, mm, q, lambda i: mm, lambda i: q, lambda i: 2.0 ** i * far,
                     procs=pp) + extra
    if algorithm == "rabenseifner":
        half = _tree(machine, mm, q, lambda i: mm / 2.0 ** (i + 1), lambda i: q,
                     lambda i: q / 2.0 ** (i + 1) * far, procs=pp)
        return np.asarray(2 * half + extra, dtype=np.float64)
    raise _unknown("allreduce", algorithm, ("recursive-doubling", "ring", "rabenseifner"))


def alltoall(machine: Machine, m: ArrayLike, p: ArrayLike, algorithm: str = "pairwise"
             ) -> FloatArray:
    """``pairwise``: p − 1 rounds, every process sending m bytes to one other.
    ``bruck``: ⌈log2 p⌉ rounds of about m·p/2 bytes each."""
    mm, pp = np.broadcast_arrays(np.asarray(m, dtype=np.float64), np.asarray(p, dtype=np.float64))
    if algorithm == "pairwise":
        return np.where(pp > 1, (pp - 1) * machine.round(mm, pp, machine.inside(pp),
                                                         live=pp > 1), 0.0)
    if algorithm == "bruck":
        return _tree(machine, mm, pp, lambda i: mm * pp / 2.0, lambda i: pp, xor=False)
    raise _unknown("alltoall", algorithm, ("pairwise", "bruck"))


def exchange(machine: Machine, m: ArrayLike, neighbours: ArrayLike, p: ArrayLike) -> FloatArray:
    """A halo exchange: every process sends m bytes to each of ``neighbours`` others (and
    receives as much), all processes at once, one neighbour per round."""
    mm, nn, pp = np.broadcast_arrays(np.asarray(m, dtype=np.float64),
                                     np.asarray(neighbours, dtype=np.float64),
                                     np.asarray(p, dtype=np.float64))
    return np.where(pp > 1, nn * machine.round(mm, pp, machine.inside(pp),
                                               live=(pp > 1) & (nn > 0)), 0.0)


def _unknown(op: str, algorithm: str, known: tuple[str, ...]) -> Exception:
    from perfmodel.errors import InputError

    return InputError(f"{op} has no algorithm {algorithm!r}", fix=f"use one of {', '.join(known)}")


ALGORITHMS: dict[str, tuple[str, ...]] = {
    "barrier": ("dissemination",),
    "bcast": ("binomial", "scatter-allgather"),
    "reduce": ("binomial",),
    "allreduce": ("recursive-doubling", "ring", "rabenseifner"),
    "gather": ("binomial",),
    "scatter": ("binomial",),
    "allgather": ("ring", "recursive-doubling", "bruck"),
    "alltoall": ("pairwise", "bruck"),
}


COMMUNICATION: dict[str, tuple[int, int]] = {
    "msg": (1, 2), "exchange": (2, 2), "ring": (1, 1), "barrier": (0, 0), "bcast": (1, 1),
    "reduce": (1, 1),
    "allreduce": (1, 1), "gather": (1, 1), "scatter": (1, 1), "allgather": (1, 1),
    "alltoall": (1, 1),
}
"""What a model's formulas may call to cost communication on the machine, with their
arguments (bytes; ``msg(bytes[, distance])`` is one message, to a partner ``distance`` ranks
away when given (inside a box when the placement puts the partner there; without it the
message crosses boxes whenever the job spans more than one); ``exchange(bytes, neighbours)``;
``ring(bytes)`` is the Exchange ring with the ranks placed in blocks on the machine's boxes);
``p`` is passed for them."""


def call(name: str, machine: Machine, args: tuple[ArrayLike, ...], p: ArrayLike,
         algorithms: dict[str, str]) -> FloatArray:
    """Cost one of :data:`COMMUNICATION` on ``machine`` for ``p`` processes."""
    if name == "msg":
        near = machine.inside(p, args[1] if len(args) > 1 else None)
        return np.where(np.asarray(p) > 1, machine.round(args[0], 1.0, near,
                                                         live=np.asarray(p) > 1), 0.0)
    if name == "exchange":
        return exchange(machine, args[0], args[1], p)
    if name == "ring":
        return machine.ring(args[0], p)
    if name == "barrier":
        return barrier(machine, p)
    if name in ("scatter", "gather"):
        return scatter(machine, args[0], p)
    op: Callable[..., FloatArray] = {"bcast": bcast, "reduce": reduce, "allreduce": allreduce,
                                     "allgather": allgather, "alltoall": alltoall}[name]
    return op(machine, args[0], p, algorithms.get(name, ALGORITHMS[name][0]))
