"""ReFrame 4.x perflogs: a header line, then a line per run. The layouts follow ReFrame's own
documentation (its default filelog handler, and a site's format with commas); the values are
made up."""

from __future__ import annotations

import numpy as np
import pytest

from perfmodel.errors import InputError
from perfmodel.readers import parse
from perfmodel.readers.reframe4 import code, hosts

HEAD = ("result|job_completion_time|descr|env_vars|environ|exclusive_access|extra_resources|"
        "job_completion_time_unix|job_exitcode|job_nodelist|job_submit_time|jobid|modules|name|"
        "num_cpus_per_task|num_gpus_per_node|num_tasks|num_tasks_per_core|num_tasks_per_node|"
        "num_tasks_per_socket|partition|wall_t_value|wall_t_unit|wall_t_ref|wall_t_lower_thres|"
        "wall_t_upper_thres|perf_value|perf_unit|perf_ref|perf_lower_thres|perf_upper_thres|"
        "short_name|system|unique_name|use_multithreading")


def _run(result: str, nodelist: str, nodes: int, tasks: int, per: str, wall: str) -> str:
    return (f"{result}|2024-02-21T22:51:16||{{}}|gnu|false|{{}}|1708555876.7|0|{nodelist}|"
            f"1708555874.6|65||Gromacs %num_nodes={nodes} /a{nodes}b2c3d4|null|null|{tasks}|"
            f"null|{per}|null|compute|{wall}|s|0|None|None|{1000 / float(wall):.3f}|ns/day|0|"
            f"None|None|Gromacs_{nodes}|alaska|Gromacs_{nodes}|null")


def test_the_default_layout_is_one_table_per_code_and_figure() -> None:
    text = "\n".join([HEAD,
                      _run("pass", "['n1', 'n2']", 2, 64, "32", "300.5"),
                      _run("pass", "n[1-4]", 4, 128, "null", "160.2"),
                      _run("fail", "None", 8, 256, "32", "90.0"),
                      _run("pass", "n[1-8,10-17]", 16, 512, "null", "55.0"), ""])
    (t,) = parse("perflogs/alaska/compute/Gromacs.log", text)
    assert (t.format, t.benchmark, t.pattern) == ("reframe4", "Gromacs wall_t", "application")
    assert t.attrs["code"] == "Gromacs" and t.attrs["figure"] == "wall_t"
    assert t.attrs["system"] == "alaska:compute"
    assert list(t.time) == [300.5, 160.2, 90.0, 55.0]
    assert list(t.concurrency["processes"]) == [64, 128, 256, 512]
    # nodes: from the Python list, Slurm's ranges, tasks over tasks a node, ranges again
    assert list(t.extra["nodes"]) == [2, 4, 8, 16]
    assert any("1 run whose result is not 'pass' kept" in n and "line 4" in n for n in t.notes)
    assert any("perf (ns/day)" in n for n in t.notes)


def test_a_sites_own_format_with_commas_and_no_name_field() -> None:
    """ReFrame's tutorial's own format: the test's name is the file's."""
    text = ("result,job_completion_time,system:partition,environ,num_tasks,num_nodes,"
            "elapsed_value,elapsed_unit\n"
            "pass,2024-02-26T22:39:52,cluster:compute,gnu,32,1,120.0,s\n"
            "pass,2024-02-26T22:49:52,cluster:compute,gnu,64,2,65.0,s\n")
    (t,) = parse("perflogs/cluster/compute/stream_test.log", text)
    assert t.attrs["code"] == "stream_test" and list(t.extra["nodes"]) == [1, 2]
    assert list(t.time) == [120.0, 65.0]


def test_hpl_gflops_give_a_flop_rate() -> None:
    text = ("result|job_completion_time|name|num_tasks|num_tasks_per_node|gflops_value|"
            "gflops_unit\npass|2024-01-01T00:00:00|HPL_check %num_nodes=1|64|64|2100.5|Gflop/s\n")
    (t,) = parse("HPL_check.log", text)
    assert t.benchmark == "HPL"
    assert t.extra["flop_rate"][0] == pytest.approx(2100.5e9)
    assert t.time[0] == pytest.approx(1 / 2100.5)


@pytest.mark.parametrize(("text", "said", "line"), [
    ("pass|2024|x|1|1.0|s\n", "not recognised", 1),
    (HEAD + "\n" + "pass|2024-02-21T22:51:16|short\n", "3 fields where the header names", 2),
    ("result|job_completion_time|name|bw_value|bw_unit\npass|2024|osu_bw|9000|MB/s\n",
     "no run time and no HPL Gflops", 2),
    ("result|job_completion_time|name|num_tasks|t_value|t_unit\npass|2024|x|0|1.0|s\n",
     "num_tasks is '0', not a count", 2),
])
def test_bad_perflogs_are_one_line(text: str, said: str, line: int) -> None:
    with pytest.raises(InputError, match=said) as got:
        parse("bad.log", text)
    assert got.value.line == line


def test_a_file_appended_to_another_rereads_the_header() -> None:
    one = "\n".join([HEAD, _run("pass", "['n1']", 1, 32, "32", "500.0")])
    two = "\n".join([HEAD, _run("pass", "['n1', 'n2']", 2, 64, "32", "260.0")])
    (t,) = parse("both.log", one + "\n" + two + "\n")
    np.testing.assert_array_equal(t.time, [500.0, 260.0])


def test_the_code_drops_the_size_parameters_and_the_variant_hash() -> None:
    assert code("Gromacs %num_nodes=16 %input=1400k /3f0a9b1c") == "Gromacs %input=1400k"
    assert code("cp2k_check %num_tasks=512 @setup") == "cp2k_check"
    assert hosts("['nid001', 'nid002']") == 2 and hosts("nid[001-004,010],login1") == 6
    assert hosts("None") is None and hosts("n[9-1]") is None
