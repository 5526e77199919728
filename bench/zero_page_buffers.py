"""Why ``perfmodel measure`` writes its buffers before timing: a 1 MiB ping-pong from a send
buffer never written (as ``mpi4py.bench`` allocates it), from written separate buffers (as
OSU, IMB and perfmodel do), and from one buffer for both directions.

    .venv/bin/mpiexec -n 2 .venv/bin/python bench/zero_page_buffers.py

Each is the median of 300 round trips after 10 untimed ones, printed as bandwidth.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

SIZE = 1 << 20
comm = MPI.COMM_WORLD
rank = comm.rank


def one_way(send: np.ndarray, recv: np.ndarray, n: int = 300, skip: int = 10) -> float:
    times = []
    for i in range(n + skip):
        t0 = MPI.Wtime()
        if rank == 0:
            comm.Send(send, 1, 0)
            comm.Recv(recv, 1, 0)
        else:
            comm.Recv(recv, 0, 0)
            comm.Send(send, 0, 0)
        if i >= skip:
            times.append((MPI.Wtime() - t0) / 2)
    return float(np.median(times))


untouched = one_way(np.empty(SIZE, "B"), np.empty(SIZE, "B"))
written = np.empty(SIZE, "B")
written[:] = 1
separate = one_way(written, np.zeros(SIZE, "B") + 0)
same = np.zeros(SIZE, "B") + 0
shared = one_way(same, same)
if rank == 0:
    for what, t in (("send buffer never written", untouched),
                    ("separate buffers, written", separate),
                    ("one buffer both ways", shared)):
        print(f"{what:28s} {SIZE / t / 1e9:6.1f} GB/s")
