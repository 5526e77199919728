"""The timed loops, run by every rank of the job (mpi4py; imported only inside a job).

Each kernel times ``n`` repetitions of one point and returns, on rank 0, one value per
repetition in seconds (None elsewhere): the one-way time of a ping-pong (half the round trip),
the pairs' harmonic-mean one-way time, one stream's time per message of a fan-in window, or
the slowest rank's time of one Exchange iteration.  Every repetition is timed on its own with
``MPI.Wtime``, so the median and quartiles come from the repetitions themselves.

Messages go from a send buffer to a separate receive buffer, both written before any timing,
as OSU's and IMB's ping-pongs do.  (A buffer never written is mapped to the kernel's shared
zero page: sending from it reads one cached page and overstates the bandwidth of large
messages, by about 1.9 times at 1 MiB on the development machine; one buffer for both
directions sends data the other core has just written, and understates it by about 1.7 times:
``bench/zero_page_buffers.py``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from mpi4py import MPI
from numpy.typing import NDArray

from perfmodel.measure.stats import harmonic_mean, slowest_rank

Samples = NDArray[np.float64] | None
Comm = Any   # mpi4py.MPI.Intracomm (the stubs are not typed everywhere)
Bytes = NDArray[np.uint8]


def buffers(size: int, count: int = 2) -> list[Bytes]:
    """``count`` buffers of ``size`` bytes, each written (so every page is the process's own)."""
    out = [np.empty(size, dtype=np.uint8) for _ in range(count)]
    for i, b in enumerate(out):
        b.fill(0xA5 if i == 0 else 0)
    return out

_TAG = 17


def _ping(comm: Comm, peer: int, first: bool, bufs: Sequence[Bytes],
          n: int) -> NDArray[np.float64]:
    """``n`` round trips with ``peer``; the first of the two times them."""
    out, inbox = bufs[0], bufs[1]
    times = np.empty(n)
    wtime = MPI.Wtime
    if first:
        for i in range(n):
            t0 = wtime()
            comm.Send(out, peer, _TAG)
            comm.Recv(inbox, peer, _TAG)
            times[i] = (wtime() - t0) / 2
    else:
        for _ in range(n):
            comm.Recv(inbox, peer, _TAG)
            comm.Send(out, peer, _TAG)
    return times


def pingpong(comm: Comm, count: int, bufs: Sequence[Bytes], n: int, window: int) -> Samples:
    """Ranks 0 and 1 ping-pong; the others wait."""
    if comm.rank > 1:
        return None
    times = _ping(comm, 1 - comm.rank, comm.rank == 0, bufs, n)
    return times if comm.rank == 0 else None


def pairs(comm: Comm, count: int, bufs: Sequence[Bytes], n: int, window: int) -> Samples:
    """Pairs (i, i + P/2), i < ``count``, ping-pong at once: they start together from a
    barrier and then cycle freely, as the Beowulf's tokens do; per repetition the pairs'
    harmonic-mean one-way time."""
    half = comm.size // 2
    r = comm.rank
    active = r < count or half <= r < half + count
    comm.Barrier()
    mine = _ping(comm, r + half if r < half else r - half, r < half, bufs, n) \
        if active else None
    gathered = comm.gather(mine if active and r < half else None, root=0)
    if r != 0:
        return None
    return harmonic_mean(np.vstack([g for g in gathered if g is not None]))


def fanin(comm: Comm, count: int, bufs: Sequence[Bytes], n: int, window: int) -> Samples:
    """Ranks 1..``count`` each send ``window`` messages into rank 0 when it says go (one
    zero-byte message to each, inside the timed span, as OSU's bandwidth test times its
    acknowledgement); rank 0 times from go to the last arrival.  The receives of a window
    share one buffer, as OSU's do."""
    r = comm.rank
    if r > count:
        return None
    wtime = MPI.Wtime
    go = np.zeros(0, dtype=np.uint8)
    if r == 0:
        times = np.empty(n)
        for i in range(n):
            reqs = [comm.Irecv(bufs[1], s, _TAG) for s in range(1, count + 1)
                    for _ in range(window)]
            t0 = wtime()
            for s in range(1, count + 1):
                comm.Send(go, s, _TAG + 1)
            MPI.Request.Waitall(reqs)
            times[i] = (wtime() - t0) / window
        return times
    for _ in range(n):
        comm.Recv(go, 0, _TAG + 1)
        MPI.Request.Waitall([comm.Isend(bufs[0], 0, _TAG) for _ in range(window)])
    return None


def exchange(ring: Comm, count: int, bufs: Sequence[Bytes], n: int, window: int) -> Samples:
    """IMB's Exchange on ``ring`` (the first ``count`` ranks): each iteration every rank
    receives from and sends to both neighbours; the iterations of the slowest rank (the one
    with the largest median in this batch)."""
    if ring is None:
        return None
    r, p = ring.rank, ring.size
    left, right = (r - 1) % p, (r + 1) % p
    out, inbox = bufs[0], bufs[1:3]
    times = np.empty(n)
    wtime = MPI.Wtime
    ring.Barrier()
    for i in range(n):
        t0 = wtime()
        reqs = [ring.Irecv(inbox[0], left, _TAG), ring.Irecv(inbox[1], right, _TAG),
                ring.Isend(out, left, _TAG), ring.Isend(out, right, _TAG)]
        MPI.Request.Waitall(reqs)
        times[i] = wtime() - t0
    everyone = np.empty((p, n)) if r == 0 else None
    ring.Gather(times, everyone, root=0)
    return None if everyone is None else slowest_rank(everyone)


KERNELS = {"pingpong": pingpong, "pairs": pairs, "fanin": fanin, "exchange": exchange}
