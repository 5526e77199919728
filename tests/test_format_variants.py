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
from perfmodel.inputs import choose
from perfmodel.readers import osu as osu_reader
from perfmodel.readers import parse, read

FIX = Path(__file__).parent / "fixtures" / "benchmarks"


def test_osu_5x_latency_starts_at_zero() -> None:
    """formats.md 1.1, 'osu_latency 5.x' (verbatim)."""
    text = ("# OSU MPI Latency Test v5.6.2\n# Size          Latency (us)\n"
            "0                      19.86\n1                      19.93\n"
            "2                      19.91\n")
    (t,) = parse("osu5.txt", text)
    assert (t.version, t.benchmark, list(t.size)) == ("5.6.2", "latency", [0, 1, 2])
    assert t.time[0] == pytest.approx(19.86e-6)


def test_osu_6x_looks_like_5x() -> None:
    """formats.md 1.1: '6.x looks like 5.x' with the quoted lines of a v6.1 run."""
    (t,) = parse("osu6.txt", "# OSU MPI Latency Test v6.1\n# Size          Latency (us)\n"
                             "0                      31.28\n")
    assert (t.version, t.size[0], t.time[0]) == ("6.1", 0, pytest.approx(31.28e-6))


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


def test_npb_multi_zone_hybrid_blocks_by_class() -> None:
    """NPB-MZ (MPI+OpenMP) names its benchmark ``SP-MZ`` and prints processes and threads:
    each block is a run (processes counted, threads kept), each class its own table. Laid out
    as NPB3.3-MZ-MPI prints it; the values are made up."""
    def block(cls: str, time: float, procs: int, per: int = 4) -> list[str]:
        return [" SP-MZ Benchmark Completed.",
                f" Class           =                        {cls}",
                f" Time in seconds =                   {time:.2f}",
                f" Total processes =                        {procs}",
                f" Total threads   =                        {per * procs}",
                " Mop/s total     =                  1500.00",
                " Verification    =               SUCCESSFUL",
                " Version         =                    3.3.1", ""]
    text = "\n".join([" NAS Parallel Benchmarks (NPB3.3-MZ-MPI) - SP-MZ MPI+OpenMP Benchmark",
                      "", *block("C", 800.0, 2), *block("C", 420.0, 4), *block("A", 50.0, 2),
                      *block("C", 1500.0, 2, per=2)])
    c, a, c2 = parse("sp-mz.o1", text)
    assert (c.benchmark, c.version, c.attrs["class"], a.attrs["class"]) == (
        "SP-MZ", "3.3.1", "C", "A")
    assert c.counts("processes") == (2, 4) and list(c.extra["threads"]) == [8.0, 16.0]
    assert list(c.time) == [800.0, 420.0] and a.time[0] == 50.0
    # 2 threads a process is another layout: its own table, not a repeat at 2 processes
    assert (c.attrs["threads per process"], c2.attrs["threads per process"]) == ("4", "2")
    assert list(c2.time) == [1500.0]


def test_stream_markdown_layout_reads_as_the_classic_table() -> None:
    """The Windows ports print STREAM's table as markdown (average, best and worst rates, then
    the three times): the same fixture in that layout reads to the same tables."""
    lines = (FIX / "stream.txt").read_text().splitlines()
    md = ["| Function | Avg (MB/s) | Best (MB/s) | Worst (MB/s) | Avg time | Min time | Max time |",
          "|----------|------------|-------------|--------------|----------|----------|----------|"]
    for ln in lines[26:30]:
        kernel, rate, avg, best, worst = ln.replace(":", "").split()
        md.append(f"| {kernel} | 1.0 | {rate} | 2.0 | {avg} | {best} | {worst} |")
    classic = parse("classic.txt", "\n".join(lines))
    got = parse("md.txt", "\n".join(lines[:25] + md + lines[30:]))
    assert [t.benchmark for t in got] == ["Copy", "Scale", "Add", "Triad"]
    for a, b in zip(got, classic, strict=True):
        assert list(a.size) == list(b.size) and list(a.time) == list(b.time)
        assert list(a.extra["t_max"]) == list(b.extra["t_max"])


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


# --- found in review: each of these was read wrong or raised something else -----------------

def _rr() -> str:
    return (FIX / "netperf_tcp_rr.txt").read_text()


def test_netperf_crr_and_udp_are_not_tcp_rr() -> None:
    """A TCP_CRR transaction includes a connect and a close: not a message latency."""
    (crr,) = parse("crr.txt", _rr().replace("TCP REQUEST/RESPONSE",
                                            "TCP CONNECT/REQUEST/RESPONSE"))
    assert (crr.benchmark, crr.pattern) == ("TCP_CRR", "other")
    assert crr.time[0] == pytest.approx(1 / 158777.14)
    (udp,) = parse("udp.txt", _rr().replace("TCP REQUEST/RESPONSE", "UDP REQUEST/RESPONSE"))
    assert udp.benchmark == "UDP_RR"


def test_netperf_udp_stream_columns() -> None:
    """UDP_STREAM's layout (netperf manual): socket, message size, time, okay, errors,
    throughput; then the receiver's socket, time, okay, throughput.  Values constructed."""
    text = ("MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () "
            "port 0 AF_INET\nSocket  Message  Elapsed      Messages\n"
            "Size    Size     Time         Okay Errors   Throughput\n"
            "bytes   bytes    secs            #      #   10^6bits/sec\n\n"
            "212992   65507   10.00      167773      3    8792.99\n"
            "212992           10.00      167770           8792.80\n")
    (t,) = parse("udp.txt", text)
    assert (t.benchmark, t.size[0]) == ("UDP_STREAM", 65507)
    assert t.time[0] == pytest.approx(65507 / (8792.80e6 / 8))


def test_osu_table_ends_where_another_tool_begins() -> None:
    osu = (FIX / "osu_latency.txt").read_text()
    imb = (FIX / "imb_mpi1.txt").read_text()
    (lat,) = osu_reader.read("both.txt", osu + imb)   # the reader stops at IMB's banner
    assert len(lat) == 21 and lat.size[-1] == 1048576
    with pytest.raises(InputError, match=r"both.txt:27: holds the output of 2 tools \(osu from "
                                         r"line 2, imb from line 27\) — split it"):
        parse("both.txt", osu + imb)                  # but a file of two tools is refused
    with pytest.raises(InputError, match=r"both.txt:184: .*\(imb from line 2, osu from line "
                                         "184"):
        parse("both.txt", imb + osu)
    (slurm,) = parse("job.txt", osu + "1234567 2 00:00:05 COMPLETED\n")
    assert len(slurm) == 21


def test_imb_uniband_at_four_processes_has_two_pairs() -> None:
    text = (FIX / "imb_uniband.txt").read_text().replace("#processes = 2", "#processes = 4")
    uni, bi = parse("uni4.txt", text)
    assert uni.counts("pairs") == (2,) and bi.counts("pairs") == (2,)
    assert uni.time[0] == pytest.approx(2 / 2076226)   # per pair: the rate is summed over 2
    assert "2 pairs at once" in uni.label


@pytest.mark.parametrize("text", [
    "131072  16384  16384    3.00     1e400\n",
    (FIX / "netperf_tcp_rr.txt").read_text().replace("158777.14", "1e400"),
    (FIX / "imb_multi0.txt").read_text().replace("#processes = 2", "#processes = " + "9" * 400),
    (FIX / "imb_multi0.txt").read_text().replace("2021.11", "2" * 5000),
    (FIX / "osu_mbw_mr.txt").read_text().replace("pairs: 1", "pairs: " + "9" * 5000),
    (FIX / "stream.txt").read_text().replace("20000000", "9" * 400),
    (FIX / "stream.txt").read_text().replace("uses 8 bytes", "uses " + "8" * 400 + " bytes"),
    (FIX / "osu_latency.txt").read_text() + "# OSU " + "a_" * 16000 + " x Test vX\n",
    "1 " + "|" * 8000 + "\n",
    "THROUGHPUT=1e400\nTHROUGHPUT_UNITS=Trans/s\n",
])
def test_huge_numbers_and_long_lines_give_our_error_or_a_table(text: str) -> None:
    try:
        tables = parse("odd.txt", text)
    except InputError:
        return
    assert all(np.all(np.isfinite(t.time)) for t in tables)


def test_allreduce_at_a_non_ascii_count() -> None:
    tables = read(FIX / "imb_np4.txt")
    with pytest.raises(InputError, match="has no benchmark 'allreduce@²'"):
        choose(tables, "f", "allreduce@²")


def test_netperf_omni_without_banner_and_with_a_units_column() -> None:
    (o,) = parse("o.csv", "Minimum Latency Microseconds,Mean Latency Microseconds,"
                          "Transaction Rate Tran/s\n4,66.14,15102.565\n")
    assert o.format == "netperf" and o.time[0] == pytest.approx(0.5 / 15102.565)
    # the netperf manual's -O example, a text column under "Throughput Units"
    (big_o,) = parse("O.txt", "OMNI Send/Recv TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to "
                              "localhost () port 0 AF_INET\nThroughput Throughput \n"
                              "           Units      \n\n60999.07   Trans/s    \n")
    assert big_o.time[0] == pytest.approx(0.5 / 60999.07)


def test_stream_results_without_array_size() -> None:
    lines = (FIX / "stream.txt").read_text().splitlines()
    tables = parse("s.txt", "\n".join(ln for ln in lines if "Array size" not in ln))
    copy = tables[0]
    assert copy.size[0] == round(29191.7e6 * 0.010962)
    assert "rounded" in copy.meaning


def test_zero_byte_request_is_not_one_byte() -> None:
    (t,) = parse("k.txt", "THROUGHPUT=100\nTHROUGHPUT_UNITS=Trans/s\nREQUEST_SIZE=0\n"
                          "RESPONSE_SIZE=0\n")
    assert t.size[0] == 0 and t.time[0] == pytest.approx(0.005)


def test_netpipe_5x_np_out() -> None:
    """Constructed rows in NetPIPE 5.x's layout (formats.md 1.3 quotes its fprintf: bytes,
    avg/min/max Gbps, avg µs): no real 5.x sample was available; the values are made up."""
    text = ("        1     0.003     0.002     0.004    2.50\n"
            "     1024     2.048     1.900     2.100    4.00\n"
            "  1048576    41.943    40.000    42.000  200.00\n")
    (t,) = parse("np5.out", text)
    assert (t.format, t.version, len(t)) == ("netpipe", "5.x", 3)
    np.testing.assert_allclose(t.time, [2.5e-6, 4e-6, 200e-6])
    assert t.extra["rate"][2] == pytest.approx(41.943e9 / 8)


def test_netperf_omni_k_stream() -> None:
    """Constructed -k output of a TCP_STREAM test with the selectors the reader needs (no real
    sample was found); the banner is the fixture's."""
    banner = (FIX / "netperf_tcp_stream.txt").read_text().splitlines()[0]
    (t,) = parse("k.txt", banner + "\nTHROUGHPUT=9000.00\nTHROUGHPUT_UNITS=10^6bits/s\n"
                                   "LOCAL_SEND_SIZE=16384\n")
    assert (t.benchmark, t.pattern) == ("TCP_STREAM", "stream")
    assert t.time[0] == pytest.approx(16384 / (9000e6 / 8))
    with pytest.raises(InputError, match="needs THROUGHPUT and LOCAL_SEND_SIZE"):
        parse("k.txt", banner + "\nTHROUGHPUT=9000.00\nTHROUGHPUT_UNITS=10^6bits/s\n")


def test_a_second_tool_far_down_a_file_is_found_on_its_line() -> None:
    osu = (FIX / "osu_latency.txt").read_text()
    netperf = (FIX / "netperf_tcp_stream.txt").read_text()
    text = osu + "# job log line\n" * 500 + netperf
    start = len((osu + "# job log line\n" * 500).splitlines()) + 1
    with pytest.raises(InputError, match=rf"log.txt:{start}: holds the output of 2 tools"):
        parse("log.txt", text)


def test_an_osu_suite_log_reads_whole() -> None:
    """A whole OSU 5.6.3 suite run by a job script (lines from ISI-apex/casper-utils,
    exp/osubench/discovery): osu_ibarrier prints its column header without a '#', the
    all-to-all titles say 'Personalized Exchange', and osu_hello and osu_init print a sentence,
    no table."""
    text = (
        "# OSU MPI All-to-All Personalized Exchange Latency Test v5.6.3\n"
        "# Size       Avg Latency(us)\n1                       3.39\n2                       3.37\n"
        "# OSU MPI Non-blocking Barrier Latency Test v5.6.3\n"
        "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n"
        "       Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)\n"
        "              4.17              3.07              2.57             57.25\n"
        "# OSU MPI Latency Test v5.6.3\n# Size          Latency (us)\n"
        "0                       2.05\n1                       2.07\n"
        "# OSU MPI Hello World Test v5.6.3\nThis is a test with 2 processes\n"
        "# OSU MPI Init Test v5.6.3\nnprocs: 2, min: 261 ms, max: 266 ms, avg: 263 ms\n")
    alltoall, ibarrier, latency = parse("suite.log", text)
    assert (alltoall.benchmark, alltoall.pattern) == ("alltoall", "collective")
    assert (ibarrier.benchmark, ibarrier.pattern) == ("ibarrier", "collective")
    assert ibarrier.time[0] == pytest.approx(2.57e-6)   # the pure communication
    assert latency.benchmark == "latency" and len(latency) == 2


def test_an_osu_title_without_a_table_is_still_a_cut_output() -> None:
    with pytest.raises(InputError, match="title but no column header"):
        parse("cut.txt", "# OSU MPI Latency Test v5.6.3\nsrun: error: node failure\n")


def test_imb_excerpt_without_its_banner_reads_as_the_whole_output() -> None:
    """A table pasted from IMB's output without its banner (documentation does this): the
    block and IMB's column legend say what it is; the times are those of the whole file, and
    the Mbytes/sec unit is read off the times, there being no version to expect one."""
    text = (FIX / "imb_mpi1.txt").read_text()
    start = text.rindex("\n", 0, text.index("# Benchmarking PingPong") - 1) + 1
    whole = next(t for t in parse("whole.txt", text) if t.benchmark == "PingPong")
    cut = next(t for t in parse("cut.txt", text[start:]) if t.benchmark == "PingPong")
    assert (cut.format, cut.version) == ("imb", "")
    np.testing.assert_array_equal(cut.time, whole.time)
    np.testing.assert_array_equal(cut.size, whole.size)
    assert "no banner" in cut.attrs["Mbytes"]
    assert any("MB = 10^6 B (no banner" in n for n in cut.notes), cut.notes


def _allreduce(processes: int) -> str:
    return (FIX / "imb_allreduce_npmin.txt").read_text().replace(
        "# #processes = 2 ", f"# #processes = {processes} ")


def test_imb_collective_on_one_process_is_not_a_network(tmp_path: Path) -> None:
    """One process: MPI copies the buffer and no message leaves it. calibrate refuses it,
    even when asked for by name, and does not suggest fitting it anyway."""
    from typer.testing import CliRunner

    from perfmodel.cli.app import app

    path = tmp_path / "allreduce-np1.txt"
    path.write_text(_allreduce(1))
    for extra in ([], ["--benchmark", "Allreduce"]):
        res = CliRunner().invoke(app, ["calibrate", str(path), "--no-write", *extra])
        assert res.exit_code == 2 and "Traceback" not in res.output
        assert "one process: no message leaves it" in res.output
        assert "fit it anyway" not in res.output


def test_imb_collective_fitted_by_name_leaves_its_zero_byte_rows_out(tmp_path: Path) -> None:
    """An Allreduce of 0 B returns without moving data (0.13 µs against 0.59 µs at 4 B): a
    fit asked for by name leaves those rows out, and says so."""
    from typer.testing import CliRunner

    from perfmodel.cli.app import app

    path = tmp_path / "allreduce-np2.txt"
    path.write_text(_allreduce(2))
    res = CliRunner().invoke(app, ["calibrate", str(path), "--no-write", "--benchmark",
                                   "Allreduce", "--json"])
    assert res.exit_code == 0, res.output
    assert "rows of 0 B left out" in res.output


def test_netperf_script_log_of_several_runs_is_a_row_each() -> None:
    """A script's log: a line of its own before each run, TCP_RR at two sizes and a
    TCP_STREAM between them. Each banner's block is one run; the runs of one test are one
    table, a row each, and a note says so; before, every run past the first was dropped."""
    rr1, rr1k, stream = ((FIX / f).read_text() for f in (
        "netperf_tcp_rr.txt", "netperf_tcp_rr_1k.txt", "netperf_tcp_stream.txt"))
    log = "\n".join(["Running TCP_RR, size 1", rr1, "-" * 40, "Running TCP_STREAM", stream,
                     "Running TCP_RR, size 1024", rr1k])
    rr, st = parse("log.txt", log)
    (one,), (kilo,), (alone,) = (parse(n, t) for n, t in (("a", rr1), ("b", rr1k),
                                                           ("c", stream)))
    assert (rr.benchmark, st.benchmark) == ("TCP_RR", "TCP_STREAM")
    assert list(rr.size) == [1.0, 1024.0]
    np.testing.assert_allclose(rr.time, [one.time[0], kilo.time[0]], rtol=1e-12)
    np.testing.assert_allclose(st.time, alone.time, rtol=1e-12)
    assert any("2 runs of TCP_RR, each after its own banner" in n for n in rr.notes)
    assert len(st) == 1 and not any("runs of" in n for n in st.notes)


def test_lines_after_a_tables_last_row_are_not_said_to_be_inside_it() -> None:
    """A launcher's line between two rows is inside the table; a script's line after the last
    row (before the next benchmark's title, say) is after it, and the note says which."""
    lines = (FIX / "osu_latency.txt").read_text().splitlines()
    text = "\n".join([*lines[:6], "srun: warning: a launcher line", *lines[6:],
                      "Running osu_bw from ./osu_bw ...", ""])
    (t,) = parse("log.txt", text)
    assert len(t) == len(lines) - 4
    said = [n for n in t.notes if "not data skipped" in n]
    assert any("1 line inside the table" in n and "line 7)" in n for n in said), said
    assert any("1 line after the table's last row" in n and f"line {len(lines) + 2})" in n
               for n in said), said


def test_netperf_omni_titles_wrapped_over_lines_are_refused_at_the_values() -> None:
    """Titles of -o wrapped over two lines (as a copy into a narrow page leaves them): the
    refusal names the values' line and says what is wrong, not 'no result row'."""
    banner, titles, values = (FIX / "netperf_tcp_rr_omni_o.txt").read_text().splitlines()
    cut = titles.index(",Maximum")
    text = "\n".join(["Netperf run", banner, titles[:cut + 1], titles[cut + 1:], values, "",
                      "Histogram of request/response times", "UNIT_USEC :    0:    0", ""])
    with pytest.raises(InputError, match="not under one line of titles") as got:
        parse("wrapped.txt", text)
    assert got.value.line == 5


@pytest.mark.parametrize(("text", "said", "line"), [
    ("JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
     "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
     "16261988     h3as5_opt+    compute        stf         40  COMPLETED      0:0 \n",
     "sacct's default table", 1),
    ("JobID          NNodes   NTasks ElapsedRaw \n------------ -------- -------- ---------- \n"
     "3047561.0          96    12288       2337 \n", "sacct's default table", 1),
    ("host: node01\n\nmpiexec options:\n  Exec list: ./xhpl_intel64_static (16 processes)\n"
     "Number of Heterogeneous data entries for HPL.dat=0\n", "without HPL's result table", 4),
])
def test_near_misses_say_what_is_missing(text: str, said: str, line: int) -> None:
    """Files no reader claims but whose kind is plain (sacct's default layout, an HPL log cut
    before its results) are refused with what is missing and the line, not 'not recognised'."""
    with pytest.raises(InputError, match=said) as got:
        parse("near.txt", text)
    assert got.value.line == line and "not recognised" not in str(got.value)


def test_osu_4x_one_sided_titles_name_the_benchmark_as_5x_does() -> None:
    """OSU 4.2 titles its one-sided tests 'One Sided MPI_Get latency' and 'MPI One Sided
    MPI_Get Bandwidth'; 5.x 'MPI_Get latency': one benchmark, one name for --benchmark."""
    rows = "# Size      Latency (us)\n1                       1.50\n2                       1.52\n"
    names = [parse(f"{i}.txt", f"{head}\n{rows}")[0].benchmark for i, head in enumerate((
        "# OSU One Sided MPI_Get latency Test v4.2", "# OSU MPI_Get latency Test v5.8"))]
    assert names == ["get_latency", "get_latency"]
    bw = "# Size      Bandwidth (MB/s)\n1           0.50\n2           1.00\n"
    (t,) = parse("bw.txt", f"# OSU MPI One Sided MPI_Get Bandwidth Test v4.2\n{bw}")
    assert t.benchmark == "get_bandwidth"


def test_a_zero_byte_message_far_faster_than_one_byte_is_left_out_of_the_law(
        tmp_path: Path) -> None:
    """MVAPICH2 with device buffers: 0 B in 0.95 µs, 1 B in 21 µs. The law cannot join the
    two (a piecewise fit put a 70 kB/s segment below 3 B): the 0-byte row is left out and
    said; a 0-byte row near the 1-byte one stays."""
    from perfmodel.inputs import gather

    sizes = [2 ** k for k in range(0, 21)]
    body = "\n".join(f"{m:<10d}{21.0 + m / 1e4:>12.2f}" for m in sizes)
    for zero, kept in ((0.95, 21), (20.5, 22)):
        path = tmp_path / f"lat{zero}.txt"
        path.write_text(f"# OSU MPI-CUDA Latency Test v5.6.3\n# Size          Latency (us)\n"
                        f"0         {zero:>12.2f}\n{body}\n")
        got = gather([path])
        assert len(got.data) == kept
        said = [n for n in got.notes if "0 B rows" in n]
        assert bool(said) == (kept == 21), said


def test_a_one_process_collective_beside_a_ping_pong_informs_nothing(tmp_path: Path) -> None:
    """IMB's -npmin 1 beside a PingPong: the one-process Allreduce is listed, not kept for the
    machine's collectives (with the jobs' nodes given, it would otherwise be)."""
    from perfmodel.inputs import gather
    from perfmodel.layout import Layout

    text = (FIX / "imb_mpi1.txt").read_text()
    path = tmp_path / "imb.txt"
    path.write_text(text.replace("# Benchmarking Allreduce \n# #processes = 2 ",
                                 "# Benchmarking Allreduce \n# #processes = 1 "))
    assert "# #processes = 1 " in path.read_text()
    got = gather([path], layout=Layout(nodes=1))
    (allreduce,) = [c for c in got.contributions if "Allreduce" in c.table]
    assert allreduce.role == "unused" and "one process" in allreduce.said
    assert not got.collectives


def test_a_stream_markdown_table_checks_its_best_rate_as_the_classic_one_does() -> None:
    lines = (FIX / "stream.txt").read_text().splitlines()
    md = ["| Function | Avg (MB/s) | Best (MB/s) | Worst (MB/s) | Avg time | Min time | Max time |"]
    for ln in lines[26:30]:
        kernel, rate, avg, best, worst = ln.replace(":", "").split()
        md.append(f"| {kernel} | 1.0 | {rate} | 2.0 | {avg} | {best} | {worst} |")
    for t in parse("md.txt", "\n".join(lines[:25] + md + lines[30:])):
        assert "best rate checked: MB = 10^6 B" in t.notes, t.notes   # Best, not Avg, read


def test_the_node_says_what_its_stream_and_hpcc_files_said(tmp_path: Path) -> None:
    """The notes of the tables a node rests on reach calibrate's notes: an HPCC file's (only
    its HPL is read) and a STREAM kernel left out."""
    from perfmodel.node_rates import node_from

    hpl = (FIX / "public" / "hpl_2.3_np64_nb_sweep.txt").read_text()
    hpcc = tmp_path / "hpccoutf.txt"
    hpcc.write_text("This is the DARPA/DOE HPC Challenge Benchmark version 1.5.0 October 2012\n"
                    + hpl)
    stream = (FIX / "stream.txt").read_text().replace(   # a modified STREAM's Triad rate
        "Triad:          23605.8", "Triad:          31474.4")
    tables = (*read(hpcc), *parse("stream.txt", stream))
    _, notes = node_from(tables)
    assert any(n.startswith(f"node: {hpcc}: HPC Challenge output") for n in notes), notes
    assert any(n.startswith("node: stream.txt: best rate differs") for n in notes), notes


def test_reframe_3_with_its_own_settings_puts_the_unit_after_the_reference() -> None:
    """ReFrame 3's shipped settings log ``NAME=VALUE|ref=…|UNIT``; alaska's sites put the
    unit first. Both are read, the same."""
    head = ("2021-12-02T18:19:05|reframe 3.10.0|Gromacs_16 on cluster:cpu using foss|"
            "jobid=223859|")
    unit_last = head + "wall_t=160.998|ref=0 (l=null, u=null)|s"
    unit_first = head + "wall_t=160.998|s|ref=0 (l=null, u=null)"
    (a,), (b,) = parse("a.log", unit_last + "\n"), parse("b.log", unit_first + "\n")
    assert a.format == b.format == "reframe"
    assert a.time[0] == b.time[0] == 160.998 and a.attrs["figure"] == "wall_t"


def test_extrap_region_of_zeros_is_left_out_not_the_metric() -> None:
    """A region never timed (every value 0) inside a METRIC of seconds: its DATA lines are
    left out and said; the other regions' times stay. A value no time takes (past 11.6
    days) still makes the metric not a time, refused at that line."""
    text = "\n".join(["PARAMETER p", "POINTS 2 4 8 16", "METRIC time",
                      "REGION main", "DATA 8 8.1", "DATA 4 4.2", "DATA 2.1 2", "DATA 1 1.1",
                      "REGION unused", "DATA 0 0", "DATA 0 0", "DATA 0 0", "DATA 0 0", ""])
    (t,) = parse("x.txt", text)
    assert t.attrs["code"] == "main" and len(t) == 8
    assert any("DATA lines of 0 only" in n and "lines 10, 11, 12" in n for n in t.notes), \
        t.notes
    with pytest.raises(InputError, match="no metric that can be a time") as got:
        parse("y.txt", text.replace("DATA 2.1 2", "DATA 2.1 2e9"))
    assert got.value.line == 7


def test_extrap_parameters_none_a_count_are_refused_at_their_line() -> None:
    with pytest.raises(InputError, match="no parameter is a process count") as got:
        parse("x.txt", "PARAMETER x\nPARAMETER y\nPOINTS ( 1 2 ) ( 2 2 )\nDATA 1\nDATA 2\n")
    assert got.value.line == 1
