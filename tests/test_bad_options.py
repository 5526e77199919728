"""Options that are wrong in a way the parser alone would take: a name given twice, a decimal
comma in a list, a launcher's variable left in the environment.  Each is refused with one line
``error: what — fix`` and exit 2, never a traceback, never a silent choice."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perfmodel.cli.app import app

ROOT = Path(__file__).parent.parent
BEOWULF = str(ROOT / "calibration" / "beowulf-1995.toml")
APPS = str(ROOT / "data" / "seeds" / "beowulf-1995-apps.csv")
HYGLAC = str(ROOT / "data" / "seeds" / "hyglac-mpi.csv")
BIN = Path(sys.executable).parent
HAVE_MPI = importlib.util.find_spec("mpi4py") is not None and (BIN / "mpiexec").is_file()


def refused(*args: str) -> str:
    """The one error line of perfmodel ARGS, which must exit 2 without a traceback."""
    done = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert done.exit_code == 2, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and " — " in lines[0], lines
    return lines[0]


# --- a name given twice ---------------------------------------------------------------------

def test_calibrate_set_twice() -> None:
    line = refused("calibrate", HYGLAC, "--no-write", "--set", "beta=1MB/s", "--set",
                   "beta=2MB/s")
    assert "--set gives beta twice" in line


@pytest.mark.parametrize("command", ["predict", "whatif"])
def test_app_set_twice(command: str) -> None:
    line = refused(command, "ppm", "--machine", BEOWULF, "--set", "end_wait=1us", "--set",
                   "end_wait=2us")
    assert "--set gives end_wait twice" in line


def test_vary_twice_under_either_spelling() -> None:
    base = ["whatif", "ppm", "--machine", BEOWULF, "--set", "end_wait=1us"]
    assert "--vary gives nodes twice" in refused(*base, "--vary", "nodes=1,2", "--vary",
                                                 "nodes=4")
    assert "twice" in refused(*base, "--vary", "link-speed=1Gbps", "--vary",
                              "link_speed=2Gbps")


@pytest.mark.parametrize("command", ["predict", "whatif"])
def test_where_one_label_twice_selects_nothing(command: str) -> None:
    """A row has one value per label: code=ppm AND code=nbody could select no row."""
    line = refused(command, "ppm", "--machine", BEOWULF, "--fit", APPS, "--where", "code=ppm",
                   "--where", "code=nbody")
    assert "--where gives code twice" in line


@pytest.mark.parametrize(("args", "said"), [
    (["network", BEOWULF, "--pairs", "1,1,2"], "--pairs '1,1,2' gives 1 twice"),
    (["network", BEOWULF, "--pairs", "1..4,3..8"], "--pairs '1..4,3..8' gives 3 twice"),
    (["network", BEOWULF, "--sizes", "1KiB,1024B"],
     "--sizes '1KiB,1024B' gives the same size twice ('1KiB' and '1024B')"),
    (["network", BEOWULF, "--sizes", "1B..8B,8B"], "('1B..8B' and '8B')"),
    (["network", BEOWULF, "--link-speed", "1Gbps,1000Mbps"], "gives the same rate twice"),
    (["whatif", "ppm", "--machine", BEOWULF, "--set", "end_wait=1us", "--vary",
      "nodes=4,4,8"], "--vary nodes '4,4,8' gives 4 twice"),
    (["whatif", "ppm", "--machine", BEOWULF, "--set", "end_wait=1us", "--vary",
      "latency=1us,1000ns"], "gives the same time twice ('1us' and '1000ns')"),
])
def test_a_value_given_twice_in_a_list(args: list[str], said: str) -> None:
    """Every value of a list is a row of the answer: one given twice is a slip, said."""
    line = refused(*args)
    assert said in line and "give each" in line


# --- a decimal comma in a list ----------------------------------------------------------------

def test_decimal_comma_in_sizes() -> None:
    line = refused("network", BEOWULF, "--sizes", "1,5KiB")
    assert "did you mean 1.5KiB?" in line and "1B,5KiB" in line
    assert "--sizes '1,5KiB'" in line


def test_decimal_comma_in_rates() -> None:
    line = refused("network", BEOWULF, "--link-speed", "1,5Gbps")
    assert "did you mean 1.5Gbps?" in line and "1Gbps,5Gbps" in line
    line = refused("whatif", "ppm", "--machine", BEOWULF, "--set", "end_wait=1us", "--vary",
                   "link-speed=1,5Gbps")
    assert "did you mean 1.5Gbps?" in line and "link-speed=1,5Gbps" in line


def test_lists_with_units_everywhere_still_read() -> None:
    from perfmodel.units import parse_list

    assert parse_list("1B,5KiB", "size") == [1.0, 5120.0]
    assert parse_list("1,5", "size") == [1.0, 5.0]   # no unit anywhere: plain bytes
    assert parse_list("1.5KiB,8", "size") == [1536.0, 8.0]
    assert parse_list("1..4,8KiB", "size") == [1.0, 2.0, 4.0, 8192.0]


# --- measure in an environment a launcher did not make ----------------------------------------

def measure(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """perfmodel measure under ``env`` on top of a clean one, bounded in time."""
    plain = {k: v for k, v in os.environ.items()
             if not k.startswith(("PMI_", "PMIX_", "OMPI_", "PERFMODEL_MEASURE", "SLURM_",
                                  "HYDRA_", "MV2_", "PALS_", "ALPS_"))}
    return subprocess.run([str(BIN / "perfmodel"), "measure", "--sizes", "8B", "--reps", "2",
                           "--warmup", "0", "--quiet"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, env={**plain, **env},
                          stdin=subprocess.DEVNULL)


def one_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and " — " in lines[0], lines
    assert done.stdout == ""
    return lines[0]


needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="mpi4py and MPICH's mpiexec not installed")


@needs_mpi
@pytest.mark.parametrize(("env", "said"), [
    ({"PMI_RANK": "1"}, "PMI_RANK=1 is set, but no launcher started this process (PMI_SIZE "
                        "unset)"),
    ({"PMIX_RANK": "1"}, "PMIX_RANK=1 is set"),
    ({"SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "1", "PMI_RANK": "2", "PMI_SIZE": "2"},
     "PMI_RANK=2 is set, but no launcher started this process (PMI_SIZE=2 has no rank 2)"),
    ({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "1"}, "OMPI_COMM_WORLD_RANK=1"),
])
def test_stray_rank_variable_is_named(env: dict[str, str], said: str, tmp_path: Path) -> None:
    line = one_error(measure(env, tmp_path))
    assert said in line and "unset " in line


@needs_mpi
def test_stray_rank_and_size_on_a_terminal(tmp_path: Path) -> None:
    """PMI_RANK=1 PMI_SIZE=2 looks like a real job whose rank 0 reports; typed at a terminal
    (no launcher gives its ranks one) this process is alone, so it says why it stops."""
    import pty

    main, side = pty.openpty()
    try:
        plain = {k: v for k, v in os.environ.items()
                 if not k.startswith(("PMI_", "PMIX_", "OMPI_", "PERFMODEL_MEASURE", "SLURM_"))}
        done = subprocess.run([str(BIN / "perfmodel"), "measure", "--sizes", "8B", "--quiet"],
                              capture_output=True, text=True, cwd=tmp_path, timeout=120,
                              env={**plain, "PMI_RANK": "1", "PMI_SIZE": "2"}, stdin=side)
    finally:
        os.close(main)
        os.close(side)
    line = one_error(done)
    assert "PMI_SIZE=2 says a launcher started 2 ranks, but MPI sees a job of 1" in line


@needs_mpi
@pytest.mark.parametrize(("env", "var"), [
    ({"PMI_RANK": "1", "PMI_SIZE": "2"}, "PMI_SIZE=2"),
    ({"SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2"}, "SLURM_STEP_NUM_TASKS=2"),
])
def test_stray_rank_and_size_without_a_terminal_or_launcher(env: dict[str, str], var: str,
                                                            tmp_path: Path) -> None:
    """The same without a terminal (a batch script, cron): a rank variable without its
    launcher's channel (PMI_FD, PMI_PORT; SLURM_STEP_ID) has no rank 0 to speak for it, so it
    speaks itself; in a real job of another MPI only rank 0 does (test_measure_mpi)."""
    line = one_error(measure(env, tmp_path))
    assert f"{var} says a launcher started 2 ranks, but MPI sees a job of 1" in line


@needs_mpi
def test_mpiexec_that_cannot_start_ranks(tmp_path: Path) -> None:
    line = one_error(measure({"HYDRA_LAUNCHER": "nonexistent"}, tmp_path))
    assert "could not start the ranks: unrecognized launcher: nonexistent" in line
    assert "HYDRA_LAUNCHER=nonexistent" in line
    line = one_error(measure({"HYDRA_HOST_FILE": str(tmp_path / "none")}, tmp_path))
    assert "unable to open host file" in line


# --- found by trying issue 28 as a user after the first pass ------------------------------------

def _cli(args: list[str], cwd: Path, env: dict[str, str] | None = None,
         stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    """The installed entry point (perfmodel.cli.app:main), as a shell runs it."""
    main = "import sys; from perfmodel.cli.app import main; sys.argv[0] = 'perfmodel'; main()"
    return subprocess.run([sys.executable, "-c", main, *args], cwd=cwd, env=env, text=True,
                          stdout=stdout, stderr=subprocess.PIPE, timeout=120, check=False)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_standard_output_on_a_full_disk_is_one_line(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        done = _cli(["network", str(ROOT / "calibration/hyglac.toml"), "--sizes", "1KiB"],
                    tmp_path, stdout=full)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith("error: standard output cannot be written")


def test_an_empty_source_date_epoch_is_unset(tmp_path: Path) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": ""}
    done = _cli(["calibrate", str(ROOT / "data/mpi4py/pingpong_mpich.csv"), "--no-write",
                 "--quiet"], tmp_path, env=env)
    assert done.returncode == 0, done.stderr


def test_a_report_named_with_markup_and_escapes_prints_as_text(tmp_path: Path) -> None:
    out = tmp_path / "a[/]b\x1b[2Jc.md"
    result = CliRunner().invoke(app, ["report", str(ROOT / "calibration/hyglac-mpi.toml"),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and "\x1b" not in result.stderr and "a[/]b" in result.stderr


def test_a_report_without_figures_names_no_folder(tmp_path: Path) -> None:
    spec = tmp_path / "words.toml"
    spec.write_text(f"""kind = "perfmodel report"
schema_version = 1
title = "A table, no figure"
[[section]]
kind = "whatif"
title = "PPM with one channel or two"
vary = {{ nodes = "8,16", channels = "1,2" }}
[[section.run]]
label = "PPM"
model = "ppm"
machine = "{BEOWULF}"
fit = "{APPS}"
where = {{ code = "ppm", use = "fit" }}
""")
    result = CliRunner().invoke(app, ["report", str(spec), "--out", str(tmp_path / "w3.md")])
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"wrote {tmp_path / 'w3.md'}"
    assert not (tmp_path / "w3").exists()


@pytest.mark.parametrize("vary", ["link-speed=1e-300bps", "link-speed=1e300bps",
                                  "latency=1e300s"])
def test_whatif_takes_no_absurd_hardware(vary: str) -> None:
    result = CliRunner().invoke(app, ["whatif", "ppm", "--machine",
                                      str(ROOT / "calibration/beowulf-1995.toml"), "--set",
                                      "end_wait=0.05", "--vary", vary, "--vary", "nodes=1,2"])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and f"--vary '{vary}'" in lines[0], lines


def test_a_fit_beyond_any_link_is_said(tmp_path: Path) -> None:
    """Every row possible (no row over 10 TB/s, the time falls only 5.6x), the fitted law not:
    30 TB/s at 16 times the largest size. calibrate says so beside the fit."""
    data = tmp_path / "fall.csv"
    data.write_text("size_bytes,one_way_us\n1,10\n64,9.5\n1024,9\n8192,7\n65536,5\n"
                    "262144,3\n1048576,2\n4194304,1.8\n")
    result = CliRunner().invoke(app, ["calibrate", str(data), "--no-write", "--json"])
    assert result.exit_code == 0, result.output
    import json

    notes = json.loads(result.stdout)["notes"]
    assert any("no link reaches" in n for n in notes), notes


def test_scaling_refuses_the_same_runs_twice(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_bytes((ROOT / "data/local/jacobi2d-scaling.csv").read_bytes())
    os.link(a, b)
    result = CliRunner().invoke(app, ["scaling", str(a), str(b)])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and "same runs as" in lines[0], lines
