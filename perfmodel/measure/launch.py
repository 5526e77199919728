"""Whether this process is one rank of an MPI job, and how to start one locally if not.

Under a site's launcher (``mpiexec -n N perfmodel measure …``, ``srun …``) every rank runs the
measurement itself.  Started alone, ``perfmodel measure`` starts ``mpiexec -n N`` on this
machine with the same arguments: the ``mpiexec`` beside this Python first (the one the
``mpi`` extra installs with MPICH from PyPI, which is the MPI mpi4py loads), else the first
on ``PATH``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
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


def size_variable(env: Mapping[str, str]) -> str | None:
    """The variable ``launcher_size`` read, or None."""
    return _first_var(env, _SIZE_VARS)


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
    found = _first_var(env, names)
    return None if found is None else int(env[found])


def _first_var(env: Mapping[str, str], names: Sequence[str]) -> str | None:
    """The first of ``names`` that ``env`` sets to a whole number."""
    return next((var for var in names if env.get(var, "").strip().isdigit()), None)


def check_not_stray(env: Mapping[str, str]) -> None:
    """Refuse a rank variable left in the environment by no launcher: a rank above 0 that no
    size variable makes room for (``PMI_RANK=1`` without ``PMI_SIZE``) names a job this process
    is alone in, whose rank 0 does not exist to report.

    >>> check_not_stray({"PMI_RANK": "1", "PMI_SIZE": "2"})   # rank 1 of 2: fine
    >>> try:
    ...     check_not_stray({"PMI_RANK": "1"})
    ... except SetupError as exc:
    ...     print(exc.what)
    PMI_RANK=1 is set, but no launcher started this process (PMI_SIZE unset): it would be \
rank 1 of a job with no rank 0
    """
    if LAUNCHED in env:
        return
    var = _first_var(env, _RANK_VARS)
    if var is None or int(env[var]) == 0:
        return
    rank = int(env[var])
    size_var = _first_var(env, _SIZE_VARS)
    if size_var is None:
        said = f"{_SIZE_OF[var]} unset" if var in _SIZE_OF else "no job size is set"
    elif int(env[size_var]) > rank:
        return
    else:
        said = f"{size_var}={int(env[size_var])} has no rank {rank}"
    raise SetupError(f"{var}={rank} is set, but no launcher started this process ({said}): "
                     f"it would be rank {rank} of a job with no rank 0",
                     fix=f"unset {var}, or start the job: mpiexec -n 2 perfmodel measure …")


# rank variable -> variables its launcher also sets to reach the ranks (its channel): a rank
# variable without any of them was left in the environment, not set by a launcher
_CHANNELS: dict[str, tuple[str, ...]] = {
    "PMI_RANK": ("PMI_FD", "PMI_PORT", "PMI_HOSTNAME", "HYDI_CONTROL_FD", "SLURM_STEP_ID"),
    "OMPI_COMM_WORLD_RANK": ("PMIX_SERVER_URI", "OMPI_MCA_orte_hnp_uri", "OMPI_MCA_ess_base_jobid",
                             "PMIX_NAMESPACE"),
    "PMIX_RANK": ("PMIX_SERVER_URI", "PMIX_NAMESPACE"),
    "MV2_COMM_WORLD_RANK": ("MPISPAWN_ID", "PMI_PORT", "MPISPAWN_MPIRUN_HOST"),
    "PALS_RANKID": ("PALS_APID", "PALS_NODEID"),
    "ALPS_APP_PE": ("ALPS_APP_ID",),
    "SLURM_PROCID": ("SLURM_STEP_ID", "SLURM_JOB_ID"),
}


def reachable(env: Mapping[str, str]) -> bool:
    """Whether the rank variable in ``env`` comes with its launcher's channel (``PMI_RANK``
    with ``PMI_FD`` or ``PMI_PORT``, ``SLURM_PROCID`` with ``SLURM_STEP_ID``, …): a rank
    without one has no launcher, and no rank 0, to speak for it.

    >>> reachable({"PMI_RANK": "1", "PMI_SIZE": "2", "PMI_FD": "9"})
    True
    >>> reachable({"PMI_RANK": "1", "PMI_SIZE": "2"})
    False
    """
    var = _first_var(env, _RANK_VARS)
    if var is None:
        return False
    return any(key.startswith(_CHANNELS.get(var, ())) for key in env)


def on_terminal() -> bool:
    """Whether standard input is a terminal: never in a rank a launcher started (mpiexec and
    srun give ranks a pipe or /dev/null), so a process whose rank is not 0 but reads a
    terminal was started by hand, and has no rank 0 to speak for it."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError, OSError):   # closed or replaced
        return False


_SIZE_OF = {"PMI_RANK": "PMI_SIZE", "OMPI_COMM_WORLD_RANK": "OMPI_COMM_WORLD_SIZE",
            "MV2_COMM_WORLD_RANK": "MV2_COMM_WORLD_SIZE", "SLURM_PROCID": "SLURM_STEP_NUM_TASKS"}
"""Each rank variable's own size variable, for the message."""


def child_env(env: Mapping[str, str], mpiexec: Path, nprocs: int) -> dict[str, str]:
    """The environment of the ranks perfmodel starts: says who started them and how many."""
    return {**env, LAUNCHED: f"{mpiexec} -n {nprocs}, started by perfmodel on this host",
            EXPECTED: str(nprocs)}


# an mpiexec (Hydra) trace line: "[mpiexec@host] FUNC (file.c:75): what went wrong"
_HYDRA_TRACE = re.compile(rb"^\[(?:mpiexec|proxy:[^\]@]*)@[^\]]*\] \S+ \([^)]*\): ?(.*?)\s*$")
_HYDRA_FAILED = 255
"""The exit code of an mpiexec (Hydra) that failed itself, rather than one of its ranks."""


def run_local(cmd: Sequence[str], env: Mapping[str, str]) -> int:
    """Run ``cmd`` (an ``mpiexec``) and return its exit code, its ranks' standard error passed
    through line by line; an ``mpiexec`` that fails to start its ranks (a bad
    ``HYDRA_LAUNCHER``, a missing host file) is refused with one line, its own first, in place
    of its trace."""
    held: list[bytes] = []
    out = sys.stderr.buffer if hasattr(sys.stderr, "buffer") else None
    with subprocess.Popen(list(cmd), env=dict(env), stderr=subprocess.PIPE,
                          preexec_fn=_end_with_parent) as proc, _forwarding(proc) as caught:
        assert proc.stderr is not None
        try:
            for line in proc.stderr:
                if _HYDRA_TRACE.match(line):
                    held.append(line)
                elif out is not None:
                    out.write(line)
                    out.flush()
                else:
                    sys.stderr.write(line.decode(errors="replace"))
            code = proc.wait()
        except BaseException:   # Ctrl-C reaches mpiexec too: let it end its ranks first
            try:
                proc.wait(timeout=5)
            except BaseException:
                proc.kill()
            raise
    if caught:   # the job ended because this process was told to end: end as told
        return -caught[0]
    if held and code == _HYDRA_FAILED:
        said = next((m.group(1) for m in map(_HYDRA_TRACE.match, held)
                     if m is not None and m.group(1)), b"(no reason given)")
        hydra = " ".join(f"{k}={v}" for k, v in sorted(env.items())
                         if k.startswith(("HYDRA_", "HYD_")))
        raise SetupError(f"{cmd[0]} could not start the ranks: "
                         f"{said.decode(errors='replace')}",
                         fix=(f"check {hydra} in the environment" if hydra else
                              "check mpiexec's setup (mpiexec -n 2 hostname)")
                         + ", or run under your site's launcher: mpiexec -n N perfmodel "
                           "measure …")
    for line in held:
        sys.stderr.write(line.decode(errors="replace"))
    return code


_FORWARDED = (signal.SIGTERM, signal.SIGHUP)
"""Signals passed on to the ``mpiexec`` perfmodel started, which then ends its ranks (Ctrl-C
reaches it through the terminal's process group by itself)."""
_PR_SET_PDEATHSIG = 1


def _end_with_parent() -> None:
    """In the ``mpiexec`` child, before it runs: on Linux, have the kernel send it SIGTERM when
    perfmodel dies, even by SIGKILL, so no job outlives the command that reported on it."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):   # no prctl: the signals below still reach it
        return


@contextlib.contextmanager
def _forwarding(proc: subprocess.Popen[bytes]) -> Iterator[list[int]]:
    """While ``proc`` runs, pass SIGTERM and SIGHUP on to it; yield the signals received."""
    caught: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        caught.append(signum)
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signum)

    before: dict[int, object] = {}
    try:
        for sig in _FORWARDED:
            before[sig] = signal.signal(sig, forward)
    except ValueError:   # not the main thread: nothing to forward from
        pass
    try:
        yield caught
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)  # type: ignore[arg-type]
