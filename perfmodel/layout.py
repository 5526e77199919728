"""Where a multi-pair benchmark's ranks ran: across nodes or inside one, and how many of its
streams shared each NIC.

``osu_mbw_mr``, ``osu_bw`` and IMB ``Uniband``/``Biband`` pair rank ``i`` with rank ``i + P/2``
of their ``P`` processes (perftest runs one pair of processes, its queue pairs streams of that
pair).  Placed in blocks of ``r`` ranks to a node (what Slurm
and ``mpirun`` do by default), a pair crosses the network when its two ranks land on different
nodes; the senders on one node share its NIC.  The outputs do not print ``r``: the user
says it once (``--ranks-per-node`` or ``--nodes-per-job``), and a table that cannot be placed
is said, not guessed (the one exception is a job of two processes, taken to span two nodes,
as every ping-pong is).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

Where = Literal["across", "inside", "mixed", "unknown"]


@dataclass(frozen=True)
class Layout:
    """How the jobs placed their ranks: ``ranks_per_node`` (the same for every job) or
    ``nodes`` (every job spread over that many nodes, in blocks); neither: not said."""

    ranks_per_node: int | None = None
    nodes: int | None = None
    names: bool = False
    """Each file's name says its job's node count (``…-256n-…``, ``size256``): what a
    collective of unknown node count takes (``--nodes-in-name``)."""

    def __post_init__(self) -> None:
        from perfmodel.errors import InputError

        if self.ranks_per_node is not None and self.nodes is not None:
            raise InputError("--ranks-per-node and --nodes-per-job both say how ranks were "
                             "placed", fix="give one of them")
        if self.names and self.nodes is not None:
            raise InputError("--nodes-in-name and --nodes-per-job both say each job's nodes",
                             fix="give one of them")

    def per_node(self, job: int) -> int | None:
        """Ranks on each node of a job of ``job`` processes, or None when not said."""
        if self.ranks_per_node is not None:
            return self.ranks_per_node
        if self.nodes is not None:
            return max(1, math.ceil(job / self.nodes))
        return None

    def as_dict(self) -> dict[str, int]:
        """The layout as a profile keeps it (empty when not said)."""
        if self.ranks_per_node is not None:
            return {"ranks_per_node": self.ranks_per_node}
        return {} if self.nodes is None else {"nodes_per_job": self.nodes}

    @classmethod
    def of(cls, kept: Mapping[str, int]) -> Layout:
        """The layout a profile kept (:meth:`as_dict`)."""
        return cls(kept.get("ranks_per_node"), kept.get("nodes_per_job"))

    def said(self) -> str:
        """The layout as the user gave it, for notes and the profile."""
        if self.ranks_per_node is not None:
            return f"{self.ranks_per_node} ranks per node, in blocks"
        if self.nodes is not None:
            return f"every job on {self.nodes} nodes, ranks in blocks"
        return "not given"


_IN_NAME = re.compile(r"(?<![0-9a-z])([0-9]{1,7})(?:n|[-_]?nodes?)(?![a-z0-9])", re.I)
"""A node count in a file's name: ``256n``, ``256nodes``, ``256-nodes``, ``16_node`` (not
``size256``, which is as often a message size, nor ``-n4``, a task count)."""


def nodes_in_name(name: str) -> int | None:
    """The one node count a file's name says (``osu-256n-1322.out``, ``run_16nodes.txt``), or
    None when it says none or several that differ.

    >>> nodes_in_name("combined-slurm-size256-osu-256n-1322-iter-5.out")
    256
    >>> nodes_in_name("osu_bcast_size1024.out") is None, nodes_in_name("allreduce-64-n4.out")
    (True, None)
    """
    found = {int(v) for v in _IN_NAME.findall(name)}
    return found.pop() if len(found) == 1 and min(found) >= 1 else None


@dataclass(frozen=True)
class Placement:
    """Where a table of ``pairs`` pairs ran: ``across`` nodes (every pair), ``inside`` one
    node (none), ``mixed``, or ``unknown``; ``per_nic`` senders shared each NIC across."""

    where: Where
    pairs: int
    per_nic: int = 1
    assumed: bool = False

    def describe(self) -> str:
        if self.where == "across":
            shared = "each pair on its own NIC" if self.per_nic == 1 else \
                f"{self.per_nic} streams sharing each NIC"
            return f"across nodes, {shared}" + (" (assumed: two processes, two nodes)"
                                                if self.assumed else "")
        if self.where == "inside":
            return "inside one node (no message crosses the network)"
        if self.where == "mixed":
            return "some pairs inside a node, some across"
        return "placement unknown"


def place(processes: int, job: int, layout: Layout) -> Placement:
    """Where the ``processes`` ranks of one table (the first of a job of ``job``) ran, pairs
    ``i`` and ``i + processes/2``.

    >>> place(16, 16, Layout(nodes=2)).describe()
    'across nodes, 8 streams sharing each NIC'
    >>> place(8, 64, Layout(nodes=2)).where, place(2, 2, Layout()).assumed
    ('inside', True)
    """
    pairs = max(processes // 2, 1)
    r = layout.per_node(job)
    if r is None:
        if job == 2 and processes == 2:
            return Placement("across", 1, 1, assumed=True)
        return Placement("unknown", pairs)
    senders = np.arange(pairs)
    cross = senders // r != (senders + pairs) // r
    if not cross.any():
        return Placement("inside", pairs)
    if not cross.all():
        return Placement("mixed", pairs)
    return Placement("across", pairs, int(np.bincount(senders // r).max()))
