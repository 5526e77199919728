"""Whether this process is one rank of an MPI job, and how to start one locally if not.

Under a site's launcher (``mpiexec -n N perfmodel measure …``, ``srun …``) every rank runs the
measurement itself.  Started alone, ``perfmodel measure`` starts ``mpiexec -n N`` on this
machine with the same arguments: the ``mpiexec`` beside this Python first (the one the
``mpi`` extra installs with MPICH from PyPI, which is the MPI mpi4py loads), else the first
on ``PATH``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from perfmodel.errors import SetupError

LAUNCHED = "PERFMODEL_MEASURE_LAUNCHED"
"""Set by perfmodel in the ranks it starts: the launch command, as the CSV records it."""
EXPECTED = "PERFMODEL_MEASURE_NP"
"""Set by perfmodel in the ranks it starts: how many it started."""

# environment variables that launchers set in each rank they start -> who sets them
_LAUNCHERS: tuple[tuple[str, str], ...] = (
    ("OMPI_COMM_WORLD_SIZE", "Open MPI mpirun"),
    ("PMIX_RANK", "a PMIx launcher (Open MPI 5 mpirun, srun --mpi=pmix)"),
    ("PMI_RANK", "a PMI launcher (MPICH or Intel MPI mpiexec, srun --mpi=pmi2)"),
    ("MV2_COMM_WORLD_SIZE", "MVAPICH2 mpirun_rsh"),
    ("PALS_RANKID", "Cray PALS mpiexec"),
    ("ALPS_APP_PE", "Cray ALPS aprun"),
)
_SLURM_TASKS = "SLURM_STEP_NUM_TASKS"
"""Set by srun in each task of a step: a step of several tasks is a job to run in."""


def detect(env: Mapping[str, str]) -> str | None:
    """Who started this process as one rank of a job, or None when nothing did.

    >>> detect({"PMI_RANK": "0", "PMI_SIZE": "2"})
    'a PMI launcher (MPICH or Intel MPI mpiexec, srun --mpi=pmi2)'
    >>> detect({"HOME": "/root"}) is None
    True
    """
    if LAUNCHED in env:
        return env[LAUNCHED]
    who = next((who for var, who in _LAUNCHERS if var in env), None)
    tasks = _first_number(env, (_SLURM_TASKS,))
    if who is None and tasks is not None and tasks > 1:
        who = f"Slurm srun ({tasks} tasks)"
    return who


def require_mpi4py() -> None:
    """Refuse, before anything starts, when mpi4py is not installed."""
    if importlib.util.find_spec("mpi4py") is None:
        raise SetupError("measure needs mpi4py, which is not installed",
                         fix="pip install 'perfmodel[mpi]' (mpi4py with MPICH from PyPI), or "
                             "install mpi4py against your site's MPI")


def find_mpiexec(python: str = sys.executable, path: str | None = None) -> Path:
    """The ``mpiexec`` beside ``python``, else the first on ``path`` (default ``$PATH``)."""
    beside = Path(python).parent / "mpiexec"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("mpiexec", path=path)
    if found is None:
        raise SetupError("no mpiexec to start the measurement with",
                         fix="pip install 'perfmodel[mpi]' (MPICH from PyPI brings one), or "
                             "run under your launcher: mpiexec -n 2 perfmodel measure …")
    return Path(found)


def local_command(mpiexec: Path, nprocs: int, args: Sequence[str],
                  python: str = sys.executable) -> list[str]:
    """``mpiexec -n N python -P -m perfmodel ARGS``: this command again, as ``nprocs`` ranks
    (``-P``: the ranks import the perfmodel this process runs, never one in the current
    folder)."""
    return [str(mpiexec), "-n", str(nprocs), python, "-P", "-m", "perfmodel", *args]


_SIZE_VARS = (EXPECTED, "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE",
              "SLURM_STEP_NUM_TASKS")


def launcher_size(env: Mapping[str, str]) -> int | None:
    """The ranks the launcher started, as the first launcher that says tells (perfmodel's own
    first, Slurm's last, as the outermost), or None.

    >>> launcher_size({"PMI_SIZE": "4", "SLURM_STEP_NUM_TASKS": "1"}), launcher_size({})
    (4, None)
    """
    return _first_number(env, _SIZE_VARS)


_RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
              "PALS_RANKID", "ALPS_APP_PE", "SLURM_PROCID")


def launcher_rank(env: Mapping[str, str]) -> int | None:
    """This process's rank as its launcher numbered it, or None when no launcher says: who
    speaks when MPI itself cannot be asked (its library is not the launcher's).

    >>> launcher_rank({"PMI_RANK": "3"}), launcher_rank({})
    (3, None)
    """
    return _first_number(env, _RANK_VARS)


def _first_number(env: Mapping[str, str], names: Sequence[str]) -> int | None:
    """The first of ``names`` that ``env`` sets to a whole number, as one."""
    for var in names:
        value = env.get(var, "").strip()
        if value.isdigit():
            return int(value)
    return None


def child_env(env: Mapping[str, str], mpiexec: Path, nprocs: int) -> dict[str, str]:
    """The environment of the ranks perfmodel starts: says who started them and how many."""
    return {**env, LAUNCHED: f"{mpiexec} -n {nprocs}, started by perfmodel on this host",
            EXPECTED: str(nprocs)}
