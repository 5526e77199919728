"""Header variants the fixtures do not cover, built from the verbatim snippets that
../shared/formats.md quotes from public run logs and the tools' sources (section named in
each test).  The rows are quoted or taken from the project's fixtures, except in the two
tests that say they construct theirs (parser cases, not measurements).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfmodel.errors import InputError
from perfmodel.readers import parse

FIX = Path(__file__).parent / "fixtures" / "benchmarks"


def test_osu_5x_latency_starts_at_zero() -> None:
    """formats.md 1.1, 'osu_latency 5.x' (verbatim)."""
    text = ("# OSU MPI Latency Test v5.6.2\n# Size          Latency (us)\n"
            "0                      19.86\n1                      19.93\n"
            "2                      19.91\n")
    (t,) = parse("osu5.txt", text)
    assert (t.version, t.benchmark, list(t.size)) == ("5.6.2", "latency", [0, 1, 2])
    assert t.time[0] == pytest.approx(19.86e-6)


def test_osu_70_datatype_after_the_header() -> None:
    """formats.md 1.1, 'osu_latency 7.0–7.3' (verbatim)."""
    text = ("# OSU MPI Latency Test v7.1\n# Size          Latency (us)\n"
            "# Datatype: MPI_CHAR.\n1                       3.16\n2                       3.14\n")
    (t,) = parse("osu71.txt", text)
    assert t.attrs["datatype"] == "MPI_CHAR" and list(t.time) == pytest.approx([3.16e-6, 3.14e-6])


def test_osu_gpu_title_and_memory_line() -> None:
    """formats.md 1.1: GPU builds put -CUDA in the title and add a memory line."""
    body = (FIX / "osu_latency.txt").read_text().replace(
        "# OSU MPI Latency Test v7.4", "# OSU MPI-CUDA Latency Test v7.4\n"
        "# Rank 0 Memory on DEVICE (D) and Rank 1 Memory on HOST (H)")
    (t,) = parse("cuda.txt", body)
    assert t.attrs["build"] == "CUDA" and "DEVICE" in t.attrs["memory"]
    assert len(t) == 21


def test_osu_tail_latency_columns_and_failed_validation() -> None:
    """Constructed rows under the column titles OSU 7.x prints (P50/P90/P99 Tail Lat(us)):
    the values are made up for this parser case; a Fail row is left out."""
    text = ("# OSU MPI Latency Test v7.4\n# Datatype: MPI_CHAR.\n"
            "# Size       Avg Latency(us)   P50 Tail Lat(us)   P90 Tail Lat(us)   "
            "P99 Tail Lat(us)        Validation\n"
            "1                       0.70              0.68              0.75       "
            "       0.90              Pass\n"
            "2                       0.68              0.66              0.72       "
            "       0.85              Fail\n")
    (t,) = parse("tail.txt", text)
    assert len(t) == 1 and t.extra["p99"][0] == pytest.approx(0.90e-6)
    assert any("validation Fail" in n for n in t.notes)


def test_osu_launcher_warnings_inside_a_table_and_concatenated_runs() -> None:
    """formats.md general rules: warnings inside tables are skipped; job scripts concatenate."""
    lat = (FIX / "osu_latency.txt").read_text().splitlines()
    lat.insert(10, "[node01:12345] mca: base: close: component vader closed")
    lat.insert(12, "Lmod is automatically replacing \"gcc/12\" with \"gcc/13\".")
    text = "\n".join(lat) + "\n" + (FIX / "osu_bw.txt").read_text()
    latency, bw = parse("job.out", text)
    assert (latency.benchmark, len(latency), bw.benchmark, len(bw)) == ("latency", 21, "bw", 21)
    assert any("2 lines inside the table" in n for n in latency.notes)


def test_imb_legacy_banner_means_mebibytes() -> None:
    """formats.md 1.2: 'Legacy header (IMB 4.0, verbatim from a public log)'."""
    text = (FIX / "imb_multi0.txt").read_text().replace(
        "Intel(R) MPI Benchmarks 2021.11, MPI-1 part",
        "Intel (R) MPI Benchmark Suite V4.0.0, MPI-1 part")
    (t,) = parse("imb4.txt", text)
    assert t.version == "4.0.0" and t.attrs["Mbytes"].startswith("2^20")
    # the columns were printed by 2021.11 in 10^6 B: the check says they disagree
    assert any("not the 2^20 B expected" in n for n in t.notes), t.notes


def test_netperf_old_banner() -> None:
    """formats.md 1.4: older builds print the banner without MIGRATED, with an address."""
    text = (FIX / "netperf_tcp_stream.txt").read_text().replace(
        "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 "
        "AF_INET : histogram : interval",
        "TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to localhost (127.0.0.1) port 0 "
        "AF_INET : demo")
    (t,) = parse("old.txt", text)
    assert t.benchmark == "TCP_STREAM" and t.time[0] == pytest.approx(16384 / 17882.38e6 * 8)


def test_npb_32_mpi_block() -> None:
    """formats.md 1.6: NPB 3.2 MPI, CG class A (verbatim), with CG's earlier 'completed'."""
    text = "\n".join([
        " NAS Parallel Benchmarks 3.2 -- CG Benchmark", "", " Size:      14000",
        " Iterations:    15", " Number of active processes:     1",
        " Benchmark completed", " VERIFICATION SUCCESSFUL", "",
        " CG Benchmark Completed.",
        " Class           =                        A",
        " Size            =                    14000",
        " Iterations      =                       15",
        " Time in seconds =                     3.02",
        " Total processes =                        1",
        " Compiled procs  =                        1",
        " Mop/s total     =                   495.93",
        " Mop/s/process   =                   495.93",
        " Operation type  =           floating point",
        " Verification    =               SUCCESSFUL",
        " Version         =                      3.2",
        " Compile date    =              11 Jun 2007", ""])
    (t,) = parse("cg.txt", text)
    assert (t.benchmark, t.version, t.attrs["class"]) == ("CG", "3.2", "A")
    assert t.time[0] == 3.02 and t.counts("processes") == (1,)
    assert t.extra["mops"][0] == pytest.approx(495.93e6) and t.extra["verified"][0] == 1


def test_npb_34_active_processes_and_failed_verification() -> None:
    """formats.md 1.6: MPI 3.4 prints 'Active processes=' (no space); a failed run is said.
    The block is constructed from the format strings formats.md gives; its values are made up."""
    text = "\n".join([" MG Benchmark Completed.",
                      " Class           =                        C",
                      " Time in seconds =                    12.50",
                      " Total processes =                        8",
                      " Active processes=                        8",
                      " Verification    =             UNSUCCESSFUL", ""])
    (t,) = parse("mg.txt", text)
    assert t.counts("processes") == (8,) and t.extra["verified"][0] == 0
    assert any("unsuccessful" in n for n in t.notes)


def test_npb_block_without_time_is_truncated() -> None:
    with pytest.raises(InputError, match="no 'Time in seconds'"):
        parse("cut.txt", " EP Benchmark Completed.\n Class           =                        A\n")


def test_mpi4py_bench_without_header_and_without_stats() -> None:
    """mpi4py/bench.py: --no-header drops the two # lines; --no-stats prints size and MB/s."""
    rows = (FIX / "mpi4py_bench_pingpong_ompi.txt").read_text().splitlines()[2:]
    (no_header,) = parse("nh.txt", "\n".join(rows))
    assert len(no_header) == 23
    no_stats = "# MPI PingPong Test\n# Size [B]  Bandwidth [MB/s]\n" + "\n".join(
        f"{r.split()[0]:>10}{r.split()[1]:>18}" for r in rows)
    (t,) = parse("ns.txt", no_stats)
    assert t.quantity == "bandwidth" and len(t) == 23
    np.testing.assert_allclose(t.time, no_header.time, rtol=0.01)
