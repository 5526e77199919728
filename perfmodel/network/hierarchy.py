"""Hierarchy: processes in boxes, a fast link inside a box and a slower one between boxes.

A machine of boxes (SMP nodes, the ES80's two-processor boxes, the T3D's two-PE nodes) holds
``box`` processes in each.  Where a job's ranks sit is the *placement*:

- ``block``: fill each box before the next (ranks 0 … box−1 in the first box);
- ``cyclic``: deal the ranks to the boxes in turn (as few boxes as the ranks need);
- ``spread``: one rank per box (the SCI and Myrinet runs of seed 003).

Which of two ranks' messages cross a box boundary then follows from the placement alone, and
each crossing pays the inter-box law while the rest pay the intra-box link.  The pattern laid
out here is the ring of the Pallas/IMB **Exchange** benchmark (seed 003 §3.2): every rank sends
one message to each neighbour, receives one from each, and waits for all four.

Plain functions over NumPy arrays; the integer layout work is cached per (processes, box,
placement).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import InputError

FloatArray = NDArray[np.float64]

PLACEMENTS: dict[str, str] = {
    "block": "fill each box before the next",
    "cyclic": "deal ranks to the boxes in turn",
    "spread": "one rank per box",
}


def box_of(processes: int, box: int, placement: str) -> NDArray[np.int64]:
    """The box each of ``processes`` ranks sits in.

    >>> box_of(4, 2, "block").tolist(), box_of(4, 2, "cyclic").tolist()
    ([0, 0, 1, 1], [0, 1, 0, 1])
    """
    _check(processes, box, placement)
    ranks = np.arange(processes, dtype=np.int64)
    if placement == "block":
        return ranks // box
    if placement == "cyclic":
        return ranks % -(-processes // box)
    return ranks


def _check(processes: int, box: int, placement: str) -> None:
    if placement not in PLACEMENTS:
        raise InputError(f"unknown placement {placement!r}",
                         fix=f"use one of {', '.join(PLACEMENTS)}")
    if processes < 1 or box < 1:
        raise InputError(f"{processes} processes in boxes of {box}",
                         fix="processes and box are whole numbers of at least 1")


@lru_cache(maxsize=4096)
def ring_crossings(processes: int, box: int, placement: str) -> tuple[int, int, int, int]:
    """How the Exchange ring of ``processes`` ranks meets the box boundaries.

    Returns ``(fewest, most, port, total)``: the fewest and the most of a rank's two
    neighbour messages that leave its box, the most messages leaving any one box in an
    iteration, and the messages crossing boxes in all.  Two ranks are each other's left and
    right neighbour; one rank sends to itself and crosses nothing.  Closed forms, so a million
    ranks cost no more than four (``tests/test_hierarchy.py`` checks them rank by rank).

    >>> ring_crossings(2, 2, "block"), ring_crossings(4, 2, "block")
    ((0, 0, 0, 0), (1, 1, 2, 4))
    """
    _check(processes, box, placement)
    p = processes
    boxes = p if placement == "spread" else -(-p // box)
    if boxes == 1:
        return 0, 0, 0, 0
    if placement == "spread" or box == 1:
        return 2, 2, 2, 2 * p
    if placement == "block":
        # contiguous blocks: the ends of a block have one neighbour outside, its inside none;
        # a block of one rank has both outside.  Each box sends two messages out.
        outside: set[int] = set()
        for size in {box, p - (boxes - 1) * box}:
            outside |= {2} if size == 1 else {1} if size == 2 else {0, 1}
        return min(outside), max(outside), 2, 2 * boxes
    # cyclic: ring neighbours are always in different boxes, except ranks p−1 and 0, which
    # share box 0 when p ≡ 1 (mod boxes)
    wrap = 2 if p % boxes == 1 else 0
    first, second = -(-p // boxes), (p - 2) // boxes + 1
    return (1 if wrap else 2), 2, max(2 * first - wrap, 2 * second), 2 * p - wrap


def crossings(processes: ArrayLike, box: int, placement: str) -> tuple[FloatArray, ...]:
    """:func:`ring_crossings` over an array of process counts: four arrays of its shape."""
    p = np.asarray(processes, dtype=np.int64)
    values, where = np.unique(p, return_inverse=True)
    table = np.array([ring_crossings(int(v), box, placement) for v in values],
                     dtype=np.float64).reshape(-1, 4)
    got = table[where.reshape(p.shape)]
    return tuple(np.asarray(got[..., i], dtype=np.float64) for i in range(4))


def exchange_time(size: ArrayLike, processes: ArrayLike, *, box: int, placement: str,
                  intra: tuple[float, float] | None, inter: ArrayLike, wire: ArrayLike,
                  shared: bool = False, fabric: ArrayLike = np.inf) -> FloatArray:
    """Seconds per Exchange iteration of ``processes`` ranks with ``size``-byte messages.

    intra : ``(latency, rate)`` of the link inside a box (Hockney), or None when no two ranks
        share a box (then none of its messages is needed)
    inter : one-way time of one message between boxes, alone (the fabric's ``T1``)
    wire : seconds one message occupies the port (or, ``shared``, the medium) it crosses

    A rank posts both sends and both receives and waits for all four, and the ring moves at
    the pace of its slowest rank: a rank with ``n`` of its two messages leaving the box takes
    ``(2 − n)·t_intra + n·t_inter``, its sends and receives served by one host in turn.  The
    messages leaving one box share its port (``port·wire``), and on a shared medium every
    crossing message of every box shares the medium (``total·wire``); a switch passes all
    crossing bytes through its ``fabric`` (bytes per second).
    """
    m = np.asarray(size, dtype=np.float64)
    fewest, most, port, total = crossings(processes, box, placement)
    t_out = np.asarray(inter, dtype=np.float64)
    t_in = np.zeros_like(m) if intra is None else intra[0] + m / intra[1]
    rank = np.maximum((2 - fewest) * t_in + fewest * t_out, (2 - most) * t_in + most * t_out)
    queued = (total if shared else port) * np.asarray(wire, dtype=np.float64)
    through = total * m / np.asarray(fabric, dtype=np.float64)
    return np.asarray(np.maximum(np.maximum(rank, queued), through), dtype=np.float64)
