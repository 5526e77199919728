"""The measurement as every rank of the job runs it: for each count and size, warm up, then
time batches until rank 0's rule says the point is done; rank 0 keeps the rows.

Only rank 0 decides and reports; the others follow its decisions (broadcast between batches,
outside the timed loops).
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from perfmodel.errors import SetupError
from perfmodel.measure import kernels
from perfmodel.measure.launch import EXPECTED, launcher_size, size_variable
from perfmodel.measure.plan import Plan, counts
from perfmodel.measure.stats import Summary, bound, next_batch, stopped_by, summarise
from perfmodel.measure.table import (
    Result,
    Row,
    link_placement,
    oversubscribed,
    ring_placement,
)
from perfmodel.provenance import versions
from perfmodel.units import format_rate, format_size, format_time

Progress = Callable[[str], None]
WARMUP_SHARE = 0.1
"""The most of a point's time budget its warm-up may take."""


def world(env: Mapping[str, str]) -> kernels.Comm:
    """MPI's world communicator, checked against the rank count perfmodel started, or else the
    launcher says it started: a different count means the launcher and mpi4py's MPI are not
    one library (each rank then sees a job of its own)."""
    comm = kernels.MPI.COMM_WORLD
    expected = launcher_size(env)
    if expected is not None and expected != comm.size:
        var = size_variable(env)
        if var == EXPECTED:
            raise SetupError(f"the launcher started {expected} ranks, but each sees a job of "
                             f"{comm.size}: that launcher is not of the MPI library mpi4py "
                             "loads", fix="pip install 'perfmodel[mpi]' into this "
                                          "environment, or run under the mpiexec of mpi4py's MPI")
        raise SetupError(f"{var}={expected} says a launcher started {expected} ranks, but MPI "
                         f"sees a job of {comm.size}: that launcher is not of the MPI library "
                         f"mpi4py loads, or {var} is left over from another job",
                         fix="run under the mpiexec of mpi4py's MPI (pip install "
                             f"'perfmodel[mpi]' brings one), or unset {var} and its launcher's "
                             "other variables")
    return comm


def _now() -> str:
    """The wall clock, UTC (a measurement's date is never SOURCE_DATE_EPOCH's)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _usable_cpus() -> set[int]:
    """The CPUs this rank may run on (its affinity: taskset, cgroups, Slurm's cpusets)."""
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):   # not Linux
        return set(range(os.cpu_count() or 1))


def _ranges(ranks: Sequence[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``'0-2, 5'``."""
    out: list[str] = []
    start = prev = ranks[0]
    for r in [*ranks[1:], None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if r is not None:
            start = prev = r
    return ", ".join(out)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _mpi_said() -> str:
    import mpi4py

    MPI = kernels.MPI
    library = MPI.Get_library_version().strip().splitlines()[0].strip()
    library = " ".join(library.split())
    major, minor = MPI.Get_version()
    vendor, ver = MPI.get_vendor()
    return (f"{library} ({vendor} {'.'.join(map(str, ver))}, MPI standard {major}.{minor}); "
            f"mpi4py {mpi4py.__version__}")


def _label(pattern: str, count: int) -> str:
    return {"pingpong": "", "pairs": f"{count} pair{'s' * (count > 1)}, ",
            "fanin": f"{count} sender{'s' * (count > 1)}, ",
            "exchange": f"{count} processes, "}[pattern]


def _said(plan: Plan, row: Row) -> str:
    s = row.summary
    what = (f"{format_rate(row.size * row.count / s.median)} aggregate"
            if plan.pattern == "fanin" else f"{format_time(s.median)} median")
    tail = "" if row.stopped in ("fixed", "stable") else f", stopped by the {row.stopped}"
    return (f"{plan.pattern}: {_label(plan.pattern, row.count)}{format_size(row.size)}: {what} "
            f"of {s.n} reps ({bound(s)}){tail}")


def _buffers(comm: kernels.Comm, size: int, count: int) -> list[kernels.Bytes]:
    """The point's buffers on every rank, or the same error on every rank if one could not
    have them (so no rank waits for one that failed)."""
    try:
        bufs, failed = kernels.buffers(size, count), 0
    except MemoryError:
        bufs, failed = [], 1
    if comm.allreduce(failed) > 0:
        raise SetupError(f"a rank could not allocate {count} buffers of "
                         f"{format_size(size)}", fix="give smaller --sizes, or fewer ranks "
                         "per host")
    return bufs


def _point(plan: Plan, comm: kernels.Comm, group: kernels.Comm, count: int,
           size: int) -> Summary | None:
    """One point, timed by every rank; its summary on rank 0."""
    kernel = kernels.KERNELS[plan.pattern]
    buf = _buffers(comm, size, 3 if plan.pattern == "exchange" else 2)
    rule = plan.rule
    root = comm.rank == 0
    pace: float | None = None
    if rule.warmup:   # the first warm-up repetition says how many more fit in 10 % of budget
        t0 = kernels.MPI.Wtime()
        kernel(group, count, buf, 1, plan.window)
        pace = comm.bcast(kernels.MPI.Wtime() - t0 if root else None, root=0)
        more = min(rule.warmup - 1, int(WARMUP_SHARE * rule.budget / max(pace, 1e-9)))
        if more > 0:
            kernel(group, count, buf, more, plan.window)
    parts: list[np.ndarray] = []
    summary: Summary | None = None
    start = kernels.MPI.Wtime()
    while True:
        n = next_batch(summary, kernels.MPI.Wtime() - start, rule, pace) if root else 0
        n = comm.bcast(n, root=0)
        if n == 0:
            return summary
        got = kernel(group, count, buf, n, plan.window)
        if root:
            parts.append(np.asarray(got))
            summary = summarise(np.concatenate(parts))


def run(plan: Plan, comm: kernels.Comm, *, command: str, launcher: str,
        progress: Progress | None = None) -> Result | None:
    """Measure ``plan`` on every rank of ``comm``; the result on rank 0, None elsewhere."""
    which = counts(plan, comm.size)   # the same on every rank: all raise, or none does
    rank = comm.rank
    hosts: list[str] = comm.allgather(kernels.MPI.Get_processor_name())
    usable: dict[str, set[int]] = {}
    for host, cpus in comm.allgather((hosts[rank], _usable_cpus())):
        usable.setdefault(host, set()).update(cpus)
    cores = {host: len(cpus) for host, cpus in usable.items()}
    crowded = oversubscribed(hosts, cores)
    started = _now()
    rows: list[Row] = []
    notes: list[tuple[str, str]] = []
    for count in which:
        group = comm
        if plan.pattern == "exchange":
            sub = comm.Split(0 if rank < count else kernels.MPI.UNDEFINED, rank)
            group = None if sub == kernels.MPI.COMM_NULL else sub
            placement = ring_placement(hosts[:count])
            if placement is None:
                placement = "block"
                notes.append(("placement", f"the ring of {count} sits on hosts in no block, "
                              "cyclic or spread order; its rows say block"))
        else:
            half = comm.size // 2
            links = {"pingpong": [(0, 1)], "pairs": [(i, i + half) for i in range(count)],
                     "fanin": [(s, 0) for s in range(1, count + 1)]}[plan.pattern]
            placement = link_placement(hosts, links)
        procs = {"pingpong": 2, "pairs": 2 * count, "fanin": count + 1,
                 "exchange": count}[plan.pattern]
        for size in plan.sizes:
            summary = _point(plan, comm, group, count, size)
            if rank == 0 and summary is not None:
                row = Row(size, count, procs, summary, placement, bool(crowded),
                          stopped_by(summary, plan.rule))
                rows.append(row)
                if progress is not None:
                    progress(_said(plan, row))
        if group is not None and group is not comm:
            group.Free()
    if rank != 0:
        return None
    return Result(plan.pattern, tuple(rows),
                  _provenance(plan, comm.size, hosts, cores, crowded, command, launcher,
                              started) + tuple(notes))


def _provenance(plan: Plan, size: int, hosts: Sequence[str], cores: dict[str, int],
                crowded: dict[str, int], command: str, launcher: str,
                started: str) -> tuple[tuple[str, str], ...]:
    rule = plan.rule
    placed = "; ".join(
        f"{h}: rank{'s' * (hosts.count(h) > 1)} "
        f"{_ranges([r for r, x in enumerate(hosts) if x == h])} of {size}, {cores[h]} "
        f"core{'s' * (cores[h] > 1)} usable"
        for h in dict.fromkeys(hosts))
    v = versions()
    if rule.reps is not None:
        method = f"{rule.reps} repetitions per point"
    else:
        method = (f"batches until the median's 95 % interval is within ±{rule.tolerance:.1%}"
                  f" (at least {rule.min_reps}, at most {rule.max_reps} repetitions, at most "
                  f"{rule.budget:g} s per point)")
    warm = (f"up to {rule.warmup} untimed warm-up repetitions per point (as many as fit in "
            f"{WARMUP_SHARE:.0%} of its time)" if rule.warmup else "no warm-up")
    window = f"; a fan-in repetition is a window of {plan.window} messages per sender" \
        if plan.pattern == "fanin" else ""
    out = [
        ("measured", f"{started} to {_now()} (UTC)"),
        ("command", command),
        ("launcher", launcher),
        ("hosts", placed),
        ("machine", f"{platform.system()} {platform.release()} {platform.machine()}; "
                    f"{_cpu_model()} (rank 0's host)"),
        ("mpi", _mpi_said()),
        ("software", f"{v['tool']}; Python {v['python']}; NumPy {v['numpy']}"),
        ("method", f"{warm}, then {method}; each "
                   f"repetition timed alone with MPI.Wtime (tick {kernels.MPI.Wtick():.3g} s)"
                   f"{window}"),
    ]
    if crowded:
        out.append(("oversubscribed", "; ".join(f"{h} runs {n} ranks on {cores[h]} usable "
                                                f"core{'s' * (cores[h] > 1)}"
                                                for h, n in crowded.items())
                    + ": waiting ranks spin, so every row measures ranks sharing cores"))
    return tuple(out)
