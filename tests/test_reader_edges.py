"""Edges of the readers that real files nobody here wrote showed (helpers' stress tests and
reviews, 2026-11-28): each test fails if the behaviour it names breaks. Inputs are laid out as
the tools print them; their values are made up or taken from the fixtures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfmodel.errors import InputError
from perfmodel.readers import parse

FIX = Path(__file__).parent / "fixtures" / "benchmarks"
HPL = FIX / "public" / "hpl_2.3_np64_nb_sweep.txt"
HEAD4 = "result|job_completion_time|name|environ|system|partition|num_tasks|t_value|t_unit"


def test_netperf_log_leaves_a_failed_run_out_and_says_so() -> None:
    rr = (FIX / "netperf_tcp_rr.txt").read_text()
    banner = rr.splitlines()[0]
    failed = banner + "\nestablish_control could not establish the control connection\n"
    (t,) = parse("log.txt", "\n".join(["run 1", rr, "run 2", failed, "run 3", rr]))
    assert len(t) == 2
    assert any(n.startswith("a run left out at line") for n in t.notes), t.notes


def test_stream_markdown_row_of_another_width_is_refused_at_its_line() -> None:
    lines = (FIX / "stream.txt").read_text().splitlines()
    md = ["| Function | Avg (MB/s) | Best (MB/s) | Worst (MB/s) | Avg time | Min time | Max time"]
    md += [f"| {k} | 1.0 | 2.0 | 3.0 | 0.1 | 0.09 | 0.11 |" for k in ("Copy", "Scale", "Add")]
    md.append("| Triad | 1.0 | 2.0 | 3.0 | 0.1 | 0.09 |")   # Max time missing
    with pytest.raises(InputError, match="5 values after its kernel, not 6") as got:
        parse("md.txt", "\n".join(lines[:25] + md))
    assert got.value.line == 30


def test_hpl_after_a_long_prologue_is_found_and_its_markers_too() -> None:
    text = HPL.read_text()
    prologue = "".join(f"job line {i}: loading modules\n" for i in range(2000))   # ~60 kB
    head = "HPL-NVIDIA 1.0.0  -- NVIDIA accelerated HPL benchmark -- NVIDIA\n"
    (t,) = parse("hpl.out", prologue + head + text)
    assert len(t) == 8 and t.attrs["accelerated"].startswith("HPL-NVIDIA")


def test_hpl_times_under_a_second_take_the_rates_finer_digits() -> None:
    """N = 2000 at 105.55 Gflops: 0.0506 s, printed 0.05 (1 % off): read from the rate."""
    from perfmodel.readers.hpl import flops

    row = "WR11R2C2       15000    64     8     8              21.32             1.0555e+02"
    text = HPL.read_text().replace(row, row.replace("15000", " 2000").replace("21.32", " 0.05"))
    (t,) = parse("hpl.out", text)
    assert t.time[0] == pytest.approx(flops(2000) / 105.55e9, rel=1e-12)
    assert t.time[0] != 0.05


@pytest.mark.parametrize(("name", "legend", "row"), [
    ("Uniband", "       #bytes #repetitions   Mbytes/sec      Msg/sec",
     "            0         1000         0.00      2631579"),
    ("Barrier", " #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]",
     "         1000         0.92         0.93         0.92"),
])
def test_imb_excerpts_of_rate_and_barrier_tables_are_recognised(name: str, legend: str,
                                                                 row: str) -> None:
    text = "\n".join(["#" + "-" * 64, f"# Benchmarking {name}", "# #processes = 2",
                      "#" + "-" * 64, legend, row, ""])
    (t,) = parse("excerpt.txt", text)
    assert (t.format, t.benchmark) == ("imb", name)


def test_imb_excerpt_without_processes_says_two_were_assumed() -> None:
    text = "\n".join(["# Benchmarking Allreduce", "#" + "-" * 64,
                      "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]",
                      "            8         1000         1.00         1.10         1.05", ""])
    (t,) = parse("excerpt.txt", text)
    assert t.counts("processes") == (2,)
    assert any("2 processes assumed" in n for n in t.notes)


def test_a_collective_named_skips_its_one_process_block() -> None:
    from perfmodel.choice import choose

    text = (FIX / "imb_allreduce_npmin.txt").read_text()
    one = text.replace("# #processes = 2 ", "# #processes = 1 ")
    tables = (*parse("one.txt", one), *parse("two.txt", text))
    assert choose(tables, "x", "Allreduce").counts("processes") == (2,)
    with pytest.raises(InputError) as got:
        choose(tables, "x")
    assert "Allreduce@1" not in got.value.fix and "Allreduce@2" in got.value.fix


def test_npb_mz_threads_a_process_is_a_label_scaling_asks_for(tmp_path: Path) -> None:
    from perfmodel.empirical.series import load_series

    def block(time: float, procs: int, per: int) -> str:
        return "\n".join([" SP-MZ Benchmark Completed.", " Class           =  C",
                          f" Time in seconds =  {time}", f" Total processes =  {procs}",
                          f" Total threads   =  {per * procs}",
                          " Verification    =  SUCCESSFUL", ""])
    path = tmp_path / "sp-mz.out"
    path.write_text("".join(block(t, p, r) for t, p, r in (
        (80, 1, 1), (40, 2, 1), (20, 4, 1), (10, 8, 1), (45, 1, 2), (23, 2, 2))))
    with pytest.raises(InputError, match="threads_per_process"):
        load_series([path])
    s = load_series([path], {"threads_per_process": "1"})
    np.testing.assert_array_equal(s.times, [80, 40, 20, 10])


def test_extrap_negative_values_are_not_times() -> None:
    text = "PARAMETER p\nPOINTS 2 4\nMETRIC time\nREGION main\nDATA 8\nDATA -4\n"
    with pytest.raises(InputError, match="no metric that can be a time") as got:
        parse("x.txt", text)
    assert got.value.line == 6


def test_reframe4_environments_are_tables_apart() -> None:
    rows = [f"pass|2024|App %num_nodes={n}|{env}|cl|cpu|{32 * n}|{t}|s"
            for n, env, t in ((1, "gnu", 100), (2, "gnu", 52), (1, "intel", 80),
                              (2, "intel", 41))]
    gnu, intel = parse("App.log", "\n".join([HEAD4, *rows, ""]))
    assert (gnu.attrs["environment"], intel.attrs["environment"]) == ("gnu", "intel")
    assert list(gnu.time) == [100, 52] and list(intel.time) == [80, 41]


@pytest.mark.parametrize(("rows", "said", "line"), [
    (["pass|2024|App|gnu|cl|cpu|32|100|s", "pass|2024|App|gnu|cl|cpu|null|50|s"],
     "does not say its processes", 3),
    (["pass|2024|App|gnu|cl|cpu|32|100|s|extra"], "10 fields where the header names 9", 2),
])
def test_reframe4_rows_that_would_leave_holes_or_shift_are_refused(rows: list[str], said: str,
                                                                   line: int) -> None:
    with pytest.raises(InputError, match=said) as got:
        parse("App.log", "\n".join([HEAD4, *rows, ""]))
    assert got.value.line == line


def test_reframe4_milliseconds_are_seconds_divided() -> None:
    (t,) = parse("App.log", f"{HEAD4}\npass|2024|App|gnu|cl|cpu|32|1500|ms\n")
    assert t.time[0] == pytest.approx(1.5)


EXTRAP_XY = ("PARAMETER x y\nPOINTS (2 100) (4 100) (8 100) (16 100) (32 100)\nREGION main\n"
             "METRIC time\nDATA 10.1 10.3\nDATA 5.2 5.1\nDATA 2.7 2.8\nDATA 1.5 1.45\n"
             "DATA 0.9 0.92\n")


def test_extrap_parameters_of_other_names_are_mapped_by_columns(tmp_path: Path) -> None:
    """Extra-P input whose parameters are x and y: refused, saying how to map them; with
    ``--columns processes=x`` x is the process count and y a setting, said."""
    from perfmodel.empirical.series import load_series

    path = tmp_path / "xy.txt"
    path.write_text(EXTRAP_XY)
    with pytest.raises(InputError, match="no parameter is a process count") as got:
        load_series([path], None)
    assert "--columns processes=x" in got.value.fix and got.value.line == 1
    s = load_series([path], None, columns={"processes": "x"})
    assert sorted(set(s.processes.tolist())) == [2, 4, 8, 16, 32] and len(s.times) == 10
    assert any("Extra-P parameter x read as the processes" in n for n in s.notes)
    with pytest.raises(InputError, match="no parameter 'z'") as missing:
        load_series([path], None, columns={"processes": "z"})
    assert missing.value.line == 1
    with pytest.raises(InputError, match="names only its parameters"):
        load_series([path], None, columns={"time": "y"})
