"""Timings where users have them (issue 32): Slurm ``sacct --parsable2`` records, Extra-P's
text input, and any CSV through ``--columns``; each read to the same runs as perfmodel's own
CSV of them, and refused in one line where it cannot be read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfmodel.apps.timings import apply_columns, parse_columns, read_timings
from perfmodel.apps.transfer import read_runs
from perfmodel.cli.app import app
from perfmodel.empirical.series import Series, load_series
from perfmodel.errors import InputError
from perfmodel.readers import parse
from perfmodel.readers.sacct import elapsed

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "benchmarks"
SACCT = FIX / "sacct_parsable2_cp2k_alaska_ib.txt"
EXTRAP = FIX / "public" / "extrap_text_one_parameter_3.txt"
EDR = str(ROOT / "calibration" / "alaska-edr.toml")
ROCE = str(ROOT / "calibration" / "alaska-roce.toml")
CP2K = ROOT / "data" / "alaska-apps" / "ib-gcc9-openmpi4-ucx" / "cp2k"


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "120", "NO_COLOR": "1"})
    return result.exit_code, result.output


@pytest.mark.parametrize(("text", "seconds"), [
    ("00:11:06", 666.0), ("1-02:03:04", 93784.0), ("01:50.250", 110.25), ("7", 7.0),
    ("12:00:00", 43200.0)])
def test_slurm_durations(text: str, seconds: float) -> None:
    assert elapsed(text) == pytest.approx(seconds, rel=1e-12)


@pytest.mark.parametrize("text", ["", "11:06:", "a:b:c", "1-", "UNLIMITED", "-5"])
def test_bad_durations_are_none(text: str) -> None:
    assert elapsed(text) is None


def test_sacct_reads_the_srun_steps() -> None:
    """The numbered steps are the runs: .batch and .extern are not, and a cancelled job is left
    out, said; nodes from NNodes, processes from the step's NTasks."""
    (t,) = parse(str(SACCT), SACCT.read_text())
    np.testing.assert_array_equal(t.time, [666, 438, 271, 156, 123])
    np.testing.assert_array_equal(t.concurrency["processes"], [32, 64, 128, 256, 512])
    np.testing.assert_array_equal(t.extra["nodes"], [1, 2, 4, 8, 16])
    assert t.attrs["code"] == "cp2k-h2o-256" and t.attrs["step"] == "cp2k.psmp"
    assert any("state CANCELLED (line 17)" in n for n in t.notes), t.notes


def test_sacct_moves_like_the_perflog_it_was_made_from() -> None:
    """Equivalence: the fixture's times are the perflog's least times rounded to seconds, so
    predict --on from either gives the same answer within that rounding."""
    code, out = cli("predict", "--fit", str(SACCT), "--machine", EDR, "--on", ROCE, "--json")
    assert code == 0, out
    import json

    got = json.loads(out)
    from_log = read_runs(CP2K, {"figure": "cp2k_time"})
    from_sacct = read_runs(SACCT)
    np.testing.assert_array_equal(from_sacct.nodes, from_log.nodes)
    np.testing.assert_allclose(from_sacct.time, from_log.time, atol=0.51)
    code, out = cli("predict", "--fit", str(CP2K), "--where", "figure=cp2k_time",
                    "--machine", EDR, "--on", ROCE, "--json")
    want = json.loads(out)
    mine = [r["time"] for r in got["rows"]]
    theirs = [r["time"] for r in want["rows"]]
    np.testing.assert_allclose(mine, theirs, rtol=0.01)


def test_sacct_allocation_rows_count_without_steps() -> None:
    """mpirun inside the batch script: no numbered step, the job's own row is the run when it
    gives NTasks; without NTasks it is left out, said; with no run left, one clear error."""
    text = ("JobIDRaw|JobName|AllocNodes|NTasks|ElapsedRaw|State\n"
            "10|lmp|2|64|300|COMPLETED\n10.batch|batch|1|1|300|COMPLETED\n"
            "11|lmp|4|128|160|COMPLETED\n12|lmp|8||90|COMPLETED\n")
    (t,) = parse("acct.txt", text)
    np.testing.assert_array_equal(t.time, [300, 160])
    np.testing.assert_array_equal(t.extra["nodes"], [2, 4])
    assert any("no task count (NTasks)" in n for n in t.notes)
    with pytest.raises(InputError, match="no completed run") as err:
        parse("acct.txt", "JobID|NNodes|NTasks|Elapsed|State\n5|2|64|00:01:00|FAILED\n")
    assert "\n" not in err.value.one_line()


@pytest.mark.parametrize(("text", "what"), [
    ("JobID|NNodes|Elapsed\n5|2|00:01:00|x\n", "4 fields where the header has 3"),
    ("JobID|NNodes|NTasks|Elapsed\n5|two|64|00:01:00\n", "NNodes is 'two'"),
    ("JobID|NNodes|NTasks|Elapsed\n5|2|64|soon\n", "elapsed is 'soon'"),
])
def test_bad_sacct_records_are_one_line(tmp_path: Path, text: str, what: str) -> None:
    out = refused(tmp_path / "acct.txt", text, what)
    assert out.count("\n") <= 1


def test_extrap_text_repetitions_and_metrics() -> None:
    """Each DATA line's repetitions are runs at its point; each metric a series, picked with
    --where figure=; a lone parameter of another name is taken as the process count, said."""
    s = load_series([EXTRAP], {"figure": "time"})
    np.testing.assert_array_equal(np.unique(s.processes), [20, 30, 40, 50, 60])
    assert len(s) == 25
    assert s.times[0] == pytest.approx(82.00848518948744, rel=1e-15)
    # its other metric is named flops: a count, not a time, so left out and said
    assert len(load_series([EXTRAP])) == 25
    (t,) = parse(str(EXTRAP), EXTRAP.read_text())
    assert "parameter x taken as the process count" in t.notes
    assert any("metrics left out" in n and "flops" in n for n in t.notes)


def test_extrap_two_parameters(tmp_path: Path) -> None:
    """A process-count parameter and a problem size: one series per size, named."""
    f = tmp_path / "in.txt"
    f.write_text("PARAMETER p\nPARAMETER n\nPOINTS (16 1000) (32 1000) (16 2000) (32 2000)\n"
                 "REGION solve\nMETRIC time\nDATA 10 11\nDATA 5.5\nDATA 20\nDATA 11\n")
    s = load_series([f], {"setting": "n=2000"})
    np.testing.assert_array_equal(s.processes, [16, 32])
    np.testing.assert_array_equal(s.times, [20, 11])


@pytest.mark.parametrize(("text", "what"), [
    ("PARAMETER p\nPOINTS 1 2\nDATA 1\nDATA 2\nDATA 3\n", "DATA line 3"),
    ("PARAMETER p q\nPOINTS (1) (2)\nDATA 1\n", "not 2 number(s)"),
    ("PARAMETER a b\nPOINTS (1 2)\nDATA 1\n", "no parameter is a process count"),
    ("PARAMETER p\nPOINTS 1 2\nDATA x\n", "not numbers"),
    ("PARAMETER p\nPOINTS 1.5 2\nDATA 1\nDATA 2\n", "not a count"),
    ("PARAMETER p\nPOINTS 1 2\nCOLOUR red\nDATA 1\n", "not an Extra-P field"),
])
def test_bad_extrap_input_is_one_line(tmp_path: Path, text: str, what: str) -> None:
    refused(tmp_path / "in.txt", text, what)


def refused(path: Path, text: str, what: str) -> str:
    """``perfmodel scaling`` on a file of ``text``: refused (exit 2, no traceback) with
    ``what`` said; its output."""
    path.write_text(text)
    code, out = cli("scaling", str(path))
    assert code == 2 and what in out and "Traceback" not in out, out
    return out


TABLE = """# a user's own timing table
App,NNodes,NProc,MinTime,MaxTime,AvgTime
cp2k,1,32,600.1,627.0,610.2
cp2k,2,64,320.5,337.0,330.1
cp2k,4,128,170.2,179.0,175.5
cp2k,8,256,100.1,110.0,105.0
"""
CANONICAL = """nodes,processes,time_s,App
1,32,627.0,cp2k
2,64,337.0,cp2k
4,128,179.0,cp2k
8,256,110.0,cp2k
"""


def test_columns_give_the_same_runs_as_the_canonical_names(tmp_path: Path) -> None:
    mine, ours = tmp_path / "mine.csv", tmp_path / "ours.csv"
    mine.write_text(TABLE)
    ours.write_text(CANONICAL)
    mapping = parse_columns("nodes=NNodes,processes=NProc,time=MaxTime")
    a, b = load_series([mine], columns=mapping), load_series([ours])
    np.testing.assert_array_equal(a.processes, b.processes)
    np.testing.assert_array_equal(a.times, b.times)
    np.testing.assert_array_equal(a.nodes, b.nodes)   # type: ignore[arg-type]
    assert any("columns not used: MinTime, AvgTime" in n for n in a.notes), a.notes
    rows = read_timings(mine, mapping)
    np.testing.assert_array_equal(rows.times, [627.0, 337.0, 179.0, 110.0])
    code, out = cli("predict", "--fit", str(mine), "--columns",
                    "nodes=NNodes,processes=NProc,time=MaxTime", "--machine", EDR, "--on", ROCE)
    assert code == 0, out


def test_columns_keep_line_numbers_and_text_labels(tmp_path: Path) -> None:
    """A text column stays a label (two codes are two series, refused with the fix), and an
    error after the mapping still names the file's own line."""
    text = TABLE + "gromacs,8,256,90.0,95.0,92.0\n"
    new, said = apply_columns(text, {"processes": "NProc", "time": "MaxTime"}, "t.csv")
    assert new.splitlines()[1] == "App,processes,time_s"   # NNodes is not mapped: numbers
    assert said[0] == "--columns: NProc read as processes, MaxTime read as time_s"
    f = tmp_path / "t.csv"
    f.write_text(text)
    with pytest.raises(InputError, match="2 values of app"):
        load_series([f], columns={"processes": "NProc", "time": "MaxTime"})
    f.write_text(TABLE.replace("179.0", "-1"))
    with pytest.raises(InputError) as err:
        load_series([f], columns={"processes": "NProc", "time": "MaxTime"})
    assert err.value.line == 5


def test_a_mapping_displaces_the_column_of_the_same_meaning(tmp_path: Path) -> None:
    """A file with time_s and MaxTime, mapped time=MaxTime, reads MaxTime: two times would be
    a guess."""
    f = tmp_path / "t.csv"
    f.write_text("processes,time_s,MaxTime\n1,9.0,10.0\n2,5.0,6.0\n4,3.0,4.0\n8,2.0,3.0\n")
    s = load_series([f], columns={"time": "MaxTime"})
    np.testing.assert_array_equal(s.times, [10.0, 6.0, 4.0, 3.0])
    assert any("columns not used: time_s" in n for n in s.notes)


@pytest.mark.parametrize(("args", "what"), [
    (("--columns", "procs=NProc"), "not ROLE=COLUMN with a known role"),
    (("--columns", "processes=NPro,time=MaxTime"), "no column 'NPro'"),
    (("--columns", "processes=NProc,processes=MaxTime"), "gives processes twice"),
    ((), "no column is a process count or a time"),
])
def test_bad_columns_are_one_line(tmp_path: Path, args: tuple[str, ...], what: str) -> None:
    f = tmp_path / "t.csv"
    f.write_text(TABLE)
    code, out = cli("scaling", str(f), *args)
    assert code == 2 and what in out and "Traceback" not in out, out


def test_columns_refuse_a_benchmark_output() -> None:
    code, out = cli("scaling", str(SACCT), "--columns", "processes=NTasks")
    assert code == 2 and "--columns maps the columns of a CSV" in out, out


def test_sacct_parsable2_keeps_an_empty_last_field() -> None:
    """--parsable2 ends no record in |: an allocation row whose last field (NTasks) is empty
    ends in | and still has every field."""
    text = ("JobID|JobName|NNodes|Elapsed|State|NTasks\n10|app|1|00:10:00|COMPLETED|\n"
            "10.0|app|1|00:09:00|COMPLETED|32\n11|app|2|00:06:00|COMPLETED|\n"
            "11.0|app|2|00:05:00|COMPLETED|64\n")
    (t,) = parse("acct.txt", text)
    np.testing.assert_array_equal(t.time, [540, 300])


def test_sacct_heterogeneous_jobs_are_one_run_and_requeues_two() -> None:
    text = ("JobID|JobName|NNodes|NTasks|Elapsed|State\n"
            "20+0|het|2||00:10:00|COMPLETED\n20+0.0|app|2|64|00:09:00|COMPLETED\n"
            "20+1|het|2||00:10:00|COMPLETED\n20+1.0|app|2|64|00:09:10|COMPLETED\n"
            "50|het|1||00:10:00|REQUEUED\n50.0|app|1|32|00:01:00|CANCELLED\n"
            "50|het|1||00:10:00|COMPLETED\n50.0|app|1|32|00:09:00|COMPLETED\n")
    (t,) = parse("acct.txt", text)
    np.testing.assert_array_equal(t.extra["nodes"], [4, 1])
    np.testing.assert_array_equal(t.concurrency["processes"], [128, 32])
    np.testing.assert_array_equal(t.time, [550, 540])   # the longer component's time
    assert any("heterogeneous job of 2 components" in n for n in t.notes)
    assert any("state CANCELLED (line 7)" in n for n in t.notes)


def test_sacct_mpirun_daemons_are_not_ranks() -> None:
    text = ("JobID|JobName|NNodes|NTasks|Elapsed|State\n40|run|4||00:10:00|COMPLETED\n"
            "40.batch|batch|1|1|00:10:00|COMPLETED\n40.0|orted|3|3|00:09:00|COMPLETED\n")
    with pytest.raises(InputError, match="launcher's daemons") as err:
        parse("acct.txt", text)
    assert "sacct does not record the ranks mpirun starts" in err.value.one_line()


def test_what_a_reader_leaves_out_reaches_the_commands_notes() -> None:
    code, out = cli("scaling", str(SACCT))
    assert code == 0 and "state CANCELLED (line 17)" in out, out
    code, out = cli("predict", "--fit", str(SACCT), "--machine", EDR, "--on", ROCE)
    assert code == 0 and "state CANCELLED (line 17)" in out, out


def test_extrap_metrics_that_are_not_times_are_left_out_not_fatal(tmp_path: Path) -> None:
    f = tmp_path / "in.txt"
    f.write_text("PARAMETER p\nPOINTS 16 32 64 128\nREGION main\nMETRIC visits\n"
                 "DATA 2e7\nDATA 2e7\nDATA 2e7\nDATA 2e7\nMETRIC time\nDATA 4\nDATA 2.1\n"
                 "DATA 1.2\nDATA 0.8\nREGION other\nMETRIC time\nDATA 1\nDATA 2\n")
    s = load_series([f], {"code": "main"})
    np.testing.assert_array_equal(s.times, [4, 2.1, 1.2, 0.8])
    assert any("metrics left out" in n and "visits" in n for n in s.notes)
    assert any("other time (line 15) has DATA for 2 of 4 points" in n for n in s.notes)


def test_columns_refuse_a_short_row_and_one_column_for_two_roles(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("NProc,MinTime,MaxTime\n16,50,55\n32\n")
    with pytest.raises(InputError, match="1 cells where the header has 3") as err:
        load_series([f], columns={"processes": "NProc", "time": "MaxTime"})
    assert err.value.line == 3
    with pytest.raises(InputError, match="maps maxtime to both time and processes"):
        parse_columns("time=MaxTime,processes=maxtime")


def test_columns_take_empty_cells_as_missing_numbers(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("NProc,MinTime,MaxTime\n16,,55\n32,NA,30\n64,15,17\n128,9,10\n")
    s = load_series([f], columns={"processes": "NProc", "time": "MaxTime"})
    np.testing.assert_array_equal(s.times, [55, 30, 17, 10])
    assert any("columns not used: MinTime" in n for n in s.notes)


def test_columns_without_timings_and_their_notes_on_the_model_path(tmp_path: Path) -> None:
    code, out = cli("predict", "ppm", "--columns", "time=Secs")
    assert code == 2 and "no --fit was given" in out, out
    f = tmp_path / "t.csv"
    f.write_text("NNodes,Secs,MinSecs\n1,100,90\n2,55,50\n4,30,28\n8,18,16\n")
    rows = read_timings(f, {"nodes": "NNodes", "time": "Secs"})
    assert "columns not used: MinSecs" in " ".join(rows.notes)
    np.testing.assert_array_equal(rows.times, [100, 55, 30, 18])


def test_a_code_scaled_inside_one_node_is_one_series(tmp_path: Path) -> None:
    """Processes 1 … 16 on one node, or 2^k processes on nodes of 40 cores: the processes a
    node differ but every run is packed on the fewest nodes that hold it, so it is one series;
    the same node counts at one and at 32 processes a node are two."""
    def series(rows: str, head: str = "nodes,processes,time_s") -> Series:
        path = tmp_path / f"s{len(list(tmp_path.iterdir()))}.csv"
        path.write_text(f"{head}\n{rows}\n")
        return load_series([path])

    s = series("1,1,100\n1,2,51\n1,4,26\n1,8,14\n1,16,8")
    np.testing.assert_array_equal(s.processes, [1, 2, 4, 8, 16])
    assert s.nodes is not None and np.all(s.nodes == 1)
    per = series("2,1,60\n2,2,31\n2,4,17", "nodes,ranks_per_node,time_s")
    np.testing.assert_array_equal(per.processes, [2, 4, 8])
    np.testing.assert_array_equal(series("1,32,100\n2,64,52\n4,128,27\n7,256,15").nodes,
                                  [1, 2, 4, 7])
    # a serial run beside full nodes, the processes a node given
    serial = series("1,1,100\n1,24,9\n2,24,5\n4,24,3", "nodes,ranks_per_node,time_s")
    np.testing.assert_array_equal(serial.processes, [1, 24, 48, 96])
    for rows in ("1,32,100\n2,64,52\n7,256,15\n8,256,14",   # 8 nodes where 7 hold 256
                 "2,2,60\n4,4,31\n2,64,9\n4,128,5"):       # one and 32 a node
        with pytest.raises(InputError, match="values of ranks_per_node"):
            series(rows)
