"""measure for real: perfmodel starts MPICH's mpiexec (the mpi extra), or runs under one,
and what it writes calibrates.  ``make test`` installs the mpi extra and ``.ci/run`` sets
PERFMODEL_REQUIRE_MPI, so in CI these run or the module fails; elsewhere they are skipped,
with the reason, when mpi4py or MPICH's mpiexec is missing."""

from __future__ import annotations

import importlib.util
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from perfmodel.machine.profile import load
from perfmodel.readers import read

BIN = Path(sys.executable).parent
PERFMODEL = BIN / "perfmodel"
HAVE_MPI = importlib.util.find_spec("mpi4py") is not None and (BIN / "mpiexec").is_file()

if not HAVE_MPI:
    if os.environ.get("CI") or os.environ.get("PERFMODEL_REQUIRE_MPI"):
        raise RuntimeError("CI must run the MPI tests: install the extra, pip install '.[mpi]'")
    pytestmark = pytest.mark.skip(reason="mpi4py and MPICH's mpiexec not installed (the mpi "
                                         "extra)")

QUICK = ["--reps", "30", "--warmup", "4"]


def run(*args: str, cwd: Path, launcher: list[str] | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """perfmodel ARGS, alone (it starts mpiexec) or under ``launcher``."""
    plain = {k: v for k, v in os.environ.items()
             if not k.startswith(("PMI_", "PMIX_", "OMPI_", "PERFMODEL_MEASURE", "SLURM_"))}
    cmd = [*(launcher or []), *([sys.executable, "-m", "perfmodel"] if launcher
                                else [str(PERFMODEL)]), *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=300,
                          env={**plain, **(env or {})})


def test_pingpong_then_calibrate(tmp_path: Path) -> None:
    done = run("measure", "--sizes", "1B,1KiB,64KiB,1MiB", *QUICK, "--out", "pp.csv",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "starting 2 ranks" in done.stderr and "pingpong: 64 KiB:" in done.stderr
    (table,) = read(tmp_path / "pp.csv")
    assert table.size.tolist() == [1, 1024, 65536, 1048576]
    assert table.reps is not None and set(table.reps.tolist()) == {30}
    assert np.all(table.extra["t_min"] <= table.time) and np.all(table.time <= table.extra["t_max"])
    assert np.all(np.diff(table.time[1:]) > 0)    # a larger message takes longer
    said = "\n".join(table.comments)
    for key in ("command: perfmodel measure", "hosts: ", "mpi: MPICH", "measured: ",
                "launcher: ", "started by perfmodel"):
        assert key in said
    cal = run("calibrate", "pp.csv", "--model", "hockney", "--name", "here", "--quiet",
              cwd=tmp_path)
    assert cal.returncode == 0, cal.stderr
    prof = load(tmp_path / "calibration" / "here.toml")
    beta = prof.network.values["beta"]
    assert 1e6 < beta < 1e12   # some bandwidth between 1 MB/s and 1 TB/s: it fitted


def test_under_an_mpiexec_and_to_stdout(tmp_path: Path) -> None:
    done = run("measure", "--sizes", "8B", *QUICK, launcher=[str(BIN / "mpiexec"), "-n", "2"],
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "starting" not in done.stderr               # it ran in the job it was given
    assert "launcher: a PMI launcher" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("8,")


def test_pairs_fanin_exchange(tmp_path: Path) -> None:
    for pattern, np_, extra in (("pairs", "4", []), ("fanin", "3", ["--window", "8"]),
                                ("exchange", "4", [])):
        done = run("measure", "--pattern", pattern, "--np", np_, "--sizes", "8B,4KiB,64KiB", *QUICK,
                   *extra, "--out", f"{pattern}.csv", "--quiet", cwd=tmp_path)
        assert done.returncode == 0, (pattern, done.stderr)
        assert done.stderr == ""
    pairs, = read(tmp_path / "pairs.csv")
    assert pairs.counts("pairs") == (1, 2) and pairs.counts("processes") == (2, 4)
    fanin, = read(tmp_path / "fanin.csv")
    assert fanin.counts("senders") == (1, 2) and fanin.quantity == "aggregate"
    ring, = read(tmp_path / "exchange.csv")
    assert ring.pattern == "exchange" and ring.counts("processes") == (2, 4)
    if (os.cpu_count() or 1) < 4:
        assert all("oversubscribed" in (p or "") for p in pairs.placement or ())
        assert any(c.startswith("OVERSUBSCRIBED") for c in ring.comments)
    cal = run("calibrate", "exchange.csv", "--benchmark", "exchange", "--name", "ring",
              "--quiet", cwd=tmp_path)
    assert cal.returncode == 0, cal.stderr
    assert load(tmp_path / "calibration" / "ring.toml").fabric is not None


def test_existing_output_refused_before_any_rank_starts(tmp_path: Path) -> None:
    (tmp_path / "pp.csv").write_text("keep me\n")
    done = run("measure", "--sizes", "8B", "--out", "pp.csv", cwd=tmp_path)
    assert done.returncode == 2 and "starting" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: pp.csv: exists already — use --force to replace it, or another name"]
    assert (tmp_path / "pp.csv").read_text() == "keep me\n"


def test_errors_inside_the_job_are_said_once(tmp_path: Path) -> None:
    mpiexec = [str(BIN / "mpiexec"), "-n", "2"]
    done = run("measure", "--np", "3", "--sizes", "8B", launcher=mpiexec, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --np 3, but the launcher started 2 ranks — drop --np under a launcher, or give "
        "the job's size"]
    done = run("measure", "--pattern", "pairs", "--counts", "2", "--sizes", "8B",
               "--out", "x.csv", launcher=mpiexec, cwd=tmp_path)
    assert done.returncode == 2 and not (tmp_path / "x.csv").exists()
    assert len(done.stderr.strip().splitlines()) == 1 and "1 to 1 pairs" in done.stderr
    done = run("measure", "--sizes", "8B", launcher=mpiexec, cwd=tmp_path,
               env={"PERFMODEL_MEASURE_NP": "3"})
    assert done.returncode == 2 and "not of the MPI library mpi4py loads" in done.stderr


def test_patterns_time_the_same_link_alike(tmp_path: Path) -> None:
    """The kernels' arithmetic, checked against each other on two ranks (not a speed test:
    wide bands that a wrong factor, the fan-in's window or a pair count, would leave).  At
    1 MiB every pattern is bound by the same copy: one pair's one-way time is the ping-pong's,
    one sender's time per message (size × senders / aggregate) is near it, and an Exchange
    iteration of two ranks moves two messages each way."""
    common = ["--np", "2", "--sizes", "1MiB", "--reps", "100", "--warmup", "4", "--quiet"]
    times: dict[str, float] = {}
    for turn in (1, 2):   # the faster of two turns: a busy machine slows one, rarely both
        for pattern in ("pingpong", "pairs", "fanin", "exchange"):
            done = run("measure", "--pattern", pattern, *common, "--out",
                       f"{pattern}-{turn}.csv", cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            (table,) = read(tmp_path / f"{pattern}-{turn}.csv")
            times[pattern] = min(times.get(pattern, math.inf), float(table.time[0]))
    ping = times["pingpong"]
    assert 1 / 3 <= times["pairs"] / ping <= 3
    assert 1 / 4 <= times["fanin"] / ping <= 4
    assert 1 / 2 <= times["exchange"] / ping <= 16


@pytest.mark.skipif(shutil.which("taskset") is None, reason="taskset (util-linux) not installed")
def test_ranks_pinned_to_one_core_are_oversubscribed(tmp_path: Path) -> None:
    done = run("measure", "--sizes", "8B", *QUICK, "--quiet", launcher=["taskset", "-c", "0"],
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 core usable" in done.stdout and "# OVERSUBSCRIBED" in done.stdout
    assert done.stdout.rstrip().endswith("intra-node oversubscribed")


def _processes_naming(text: str) -> list[int]:
    """The processes whose command line holds ``text``."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if text.encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", [15, 9])
def test_a_killed_measure_ends_its_job(signum: int, tmp_path: Path) -> None:
    """SIGTERM is passed on to mpiexec; SIGKILL reaches it through the kernel (the parent-death
    signal): no rank runs on, and none writes --out after the command ended."""
    import time

    out = f"killed{signum}.csv"
    plain = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "SLURM_"))}
    proc = subprocess.Popen([str(PERFMODEL), "measure", "--sizes", "1B..4MiB", "--max-time",
                             "20s", "--tolerance", "1e-9", "--out", out],
                            cwd=tmp_path, env=plain, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(_processes_naming(out)) < 4 and time.monotonic() < deadline:  # perfmodel,
        time.sleep(0.2)                                    # mpiexec and two ranks
    assert len(_processes_naming(out)) >= 4, "the job did not start"
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == (128 + signum if signum == 15 else -signum)
    if signum == 15:
        assert "SIGTERM received: mpiexec and its ranks ended" in err
        assert "Traceback" not in err
    deadline = time.monotonic() + 20
    while _processes_naming(out) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_naming(out) == []
    time.sleep(1)
    assert not (tmp_path / out).exists()
