"""Strong-scaling benchmark: 2-D Jacobi (5-point stencil) with mpi4py and NumPy.

A fixed global grid of ``n x n`` interior points (float64) is split into
contiguous blocks of rows over ``p`` ranks (1-D decomposition). Each iteration
exchanges one halo row with each neighbour (``Sendrecv``), applies the Jacobi
update, and every ``--every`` iterations sums the squared update over all
ranks (``Allreduce``). Boundary values are fixed: 1.0 on the top edge, 0.0
elsewhere.

After ``--warmup`` untimed iterations, the loop of ``--iters`` iterations is
timed with ``MPI.Wtime`` on every rank; rank 0 prints the maximum over ranks
as one CSV line ``processes,time_s,grid,iterations`` (preceded by a ``#``
comment line holding the final residual, to check that results do not depend
on ``p``).

Run with, e.g.: ``mpiexec -n 4 python jacobi2d.py --n 2048 --iters 400``
"""

from __future__ import annotations

import argparse

import numpy as np
from mpi4py import MPI


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2048, help="global grid size n (n x n)")
    parser.add_argument("--iters", type=int, default=400, help="timed iterations")
    parser.add_argument("--warmup", type=int, default=5, help="untimed warm-up iterations")
    parser.add_argument("--every", type=int, default=10, help="Allreduce period (iterations)")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    n = args.n

    # Rows owned by this rank (block distribution, remainder spread over the first ranks).
    nloc = n // size + (1 if rank < n % size else 0)
    up = rank - 1 if rank > 0 else MPI.PROC_NULL
    down = rank + 1 if rank < size - 1 else MPI.PROC_NULL

    # Local block with one halo/boundary row above and below and one boundary column each side.
    u = np.zeros((nloc + 2, n + 2))
    if rank == 0:
        u[0, :] = 1.0  # fixed top boundary; never overwritten (PROC_NULL receive)
    v = u.copy()
    residual = np.zeros(1)
    local = np.zeros(1)

    def step(u: np.ndarray, v: np.ndarray, reduce: bool) -> None:
        comm.Sendrecv(u[1], dest=up, recvbuf=u[-1], source=down)
        comm.Sendrecv(u[-2], dest=down, recvbuf=u[0], source=up)
        inner = v[1:-1, 1:-1]
        np.add(u[:-2, 1:-1], u[2:, 1:-1], out=inner)
        inner += u[1:-1, :-2]
        inner += u[1:-1, 2:]
        inner *= 0.25
        if reduce:
            diff = inner - u[1:-1, 1:-1]
            local[0] = np.vdot(diff, diff)
            comm.Allreduce(local, residual, op=MPI.SUM)

    for _ in range(args.warmup):
        step(u, v, reduce=True)
        u, v = v, u

    comm.Barrier()
    t0 = MPI.Wtime()
    for it in range(1, args.iters + 1):
        step(u, v, reduce=it % args.every == 0)
        u, v = v, u
    elapsed = MPI.Wtime() - t0

    tmax = comm.reduce(elapsed, op=MPI.MAX, root=0)
    if rank == 0:
        print(f"# residual={residual[0]:.12e}")
        print(f"{size},{tmax:.6f},{n}x{n},{args.iters}", flush=True)


if __name__ == "__main__":
    main()
