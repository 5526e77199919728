"""``perfmodel measure``: the command's options, one call into the core, and its view."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from perfmodel.cli import options
from perfmodel.cli.common import (
    ALL_SIZES,
    err,
)
from perfmodel.errors import InputError, PerfModelError

EXAMPLES = [
    "perfmodel measure --np 2 --sizes 0B,1B..64KiB --out pingpong.csv",
    "perfmodel measure --pattern pairs --np 4 --sizes 8KiB --reps 100 --out pairs.csv",
    "mpiexec -n 4 perfmodel measure --pattern exchange --sizes 1KiB --out exchange.csv",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


def measure(
    pattern: Annotated[str, options.option(
        "--pattern", choices=("pingpong", "pairs", "fanin", "exchange"),
        help="pingpong (ranks 0 and 1) | pairs (k pairs at once, k = 1..P/2) | fanin (n senders "
             "into rank 0, n = 1..P-1) | exchange (the IMB Exchange ring over 2, 4, … P "
             "ranks).")] = "pingpong",
    sizes: options.Sizes = ALL_SIZES,
    reps: Annotated[int | None, options.option(
        "--reps", parse=options.whole(1, 10_000_000), metavar="N",
        help="Time exactly this many repetitions per point (default: until the median is "
             "stable, see --tolerance and --max-time).")] = None,
    out: Annotated[Path | None, options.out(
        "CSV to write (default: standard output).")] = None,
    nprocs: Annotated[int | None, options.option(
        "--np", parse=options.whole(2, 4096), metavar="N",
        help="Ranks of the local run perfmodel starts when no launcher started it, 2 to 4096 "
             "(default 2 for pingpong, else 4). Under mpiexec or srun, the job's.")] = None,
    counts: Annotated[options.Counts | None, options.option(
        "--counts", parse=options.counts(1), metavar="COUNTS",
        help="Only these pairs, senders or ring sizes: 1,2 or 2..8.")] = None,
    window: Annotated[int, options.option(
        "--window", parse=options.whole(1, 1024), metavar="N",
        help="fanin: messages each sender streams per repetition, 1 to 1024.")] = 64,
    warmup: Annotated[int, options.option(
        "--warmup", parse=options.whole(0, 1_000_000), metavar="N",
        help="Untimed repetitions before each point.")] = 16,
    tolerance: Annotated[float, options.option(
        "--tolerance", parse=options.number(0, 1, above=True, example="0.01"),
        metavar="FRACTION",
        help="Stop a point when its median's 95 % interval is within this fraction of it.")
    ] = 0.01,
    max_time: Annotated[float, options.option(
        "--max-time", parse=options.duration(0, 3600), metavar="TIME",
        help="Longest time spent on one point, up to 1 hour (its median may then be "
             "unsettled, and the CSV says so).")] = 1.0,
    quiet: Annotated[bool, options.quiet("No progress lines on standard error.")] = False,
    force: options.Force = False,
) -> None:
    """Run a calibration pattern over MPI and write perfmodel's CSV with its provenance.

    Under a site's launcher (mpiexec -n N perfmodel measure …, srun …) every rank measures;
    started alone, perfmodel starts mpiexec -n N itself (MPICH from PyPI with the mpi extra)."""
    import os
    import shlex

    from perfmodel.measure import launch
    from perfmodel.measure.plan import PATTERNS, make_plan
    from perfmodel.measure.plan import counts as measured_counts
    plan = make_plan(pattern, sizes.text, reps=reps, counts=None if counts is None else
                     counts.text, window=window, warmup=warmup, tolerance=tolerance,
                     budget=max_time)
    if out is not None:
        from perfmodel.io import check_writable

        check_writable(out, force=force)
    launch.require_mpi4py()
    launcher = launch.detect(os.environ)
    if launcher is None:
        n = nprocs or PATTERNS[pattern].default_np
        measured_counts(plan, n)   # said here, before any rank starts
        mpiexec = launch.find_mpiexec()
        cmd = launch.local_command(mpiexec, n, sys.argv[1:])
        if not quiet:
            err(f"measure: starting {n} ranks: {shlex.join(cmd)}")
        code = launch.run_local(cmd, launch.child_env(os.environ, mpiexec, n))
        if code < 0:
            import signal

            err(f"measure: {signal.Signals(-code).name} received: mpiexec and its ranks ended"
                 + ("" if out is None else f", {out} not written by this run"))
        raise typer.Exit(128 - code if code < 0 else code)   # killed by signal s: 128 + s
    launch.check_not_stray(os.environ)   # before MPI starts: a stray rank would say nothing
    _measure_in_job(plan, out, force, quiet, nprocs, launcher,
                    shlex.join(["perfmodel", *sys.argv[1:]]))


def _measure_in_job(plan: Any, out: Path | None, force: bool, quiet: bool,
                    nprocs: int | None, launcher: str, command: str) -> None:
    """One rank's part of measure: every rank measures, rank 0 reports and writes; an error
    is said once, by rank 0, and every rank exits with 2."""
    import os

    from perfmodel.errors import OutputError
    from perfmodel.measure import job, launch

    try:
        comm = job.world(os.environ)
    except PerfModelError:   # MPI cannot say who is rank 0: the launcher can
        if (launch.launcher_rank(os.environ) not in (0, None) and not launch.on_terminal()
                and launch.reachable(os.environ)):   # its rank 0 says it, once
            raise typer.Exit(2) from None
        raise
    rank = comm.rank
    speaks = rank == 0 if comm.size > 1 else launch.launcher_rank(os.environ) in (0, None)
    try:
        if nprocs is not None and nprocs != comm.size:
            raise InputError(f"--np {nprocs}, but the launcher started {comm.size} ranks",
                             fix="drop --np under a launcher, or give the job's size")
        problem: OutputError | None = None
        if rank == 0 and out is not None:
            from perfmodel.io import check_writable

            try:
                check_writable(out, force=force)
            except OutputError as exc:
                problem = exc
        problem = comm.bcast(problem, root=0)
        if problem is not None:
            raise problem

        def say(line: str) -> None:
            sys.stderr.write(f"measure: {line}\n")
            sys.stderr.flush()

        result = job.run(plan, comm, command=command, launcher=f"{launcher}; {comm.size} ranks",
                         progress=None if quiet else say)
    except PerfModelError:
        if not speaks:
            raise typer.Exit(2) from None
        raise
    except Exception:   # not a bad input: a bug, or the machine; end every rank, not just this
        if comm.size > 1:
            import traceback

            sys.stderr.write(f"measure: rank {rank} failed; ending the job\n")
            traceback.print_exc()
            sys.stderr.flush()
            comm.Abort(1)
            os._exit(1)   # MPICH's Abort can return to its caller
        raise
    if result is None:
        return
    from perfmodel.measure.table import to_csv

    text = to_csv(result)
    if out is None:
        sys.stdout.write(text)
        return
    from perfmodel.io import write_atomic

    write_atomic(out, text, force=force)
    if not quiet:
        err(f"measure: wrote {out}: {len(result.rows)} rows")
