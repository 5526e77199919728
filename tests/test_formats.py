"""Every benchmark-output fixture is read with its meaning right.

The expected values are copied from the fixture files themselves (first and last rows, counts),
then converted by hand: µs -> s, MB/s -> 10^6 B/s, round trips halved, bytes counted twice
halved.  tests/fixtures/benchmarks/PROVENANCE.md says where each file came from.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from perfmodel.errors import InputError
from perfmodel.inputs import choose
from perfmodel.readers import FALLBACKS, REGISTRY, parse, read, sniff
from perfmodel.readers.netperf import unit_factor

FIX = Path(__file__).parent / "fixtures" / "benchmarks"
SHARED = Path(__file__).parents[2] / "shared" / "fixtures" / "benchmarks"


class T(NamedTuple):
    """One expected table: benchmark, pattern, processes, pairs, rows, first and last (size, s)."""

    benchmark: str
    pattern: str
    processes: int | tuple[int, ...] | None
    pairs: int | None
    rows: int
    first: tuple[float, float]
    last: tuple[float, float]


US = 1e-6
MB = 1e6
B_PER_S_MBIT = 1e6 / 8

EXPECTED: dict[str, tuple[str, str, list[T]]] = {
    # OSU 7.4
    "osu_latency.txt": ("osu", "7.4", [
        T("latency", "pingpong", 2, 1, 21, (1, 0.69 * US), (1048576, 89.48 * US))]),
    "osu_latency_validate.txt": ("osu", "7.4", [
        T("latency", "pingpong", 2, 1, 17, (1, 0.70 * US), (65536, 4.45 * US))]),
    "osu_bw.txt": ("osu", "7.4", [
        T("bw", "stream", 2, 1, 21, (1, 1 / (2.71 * MB)), (1048576, 1048576 / (19242.80 * MB)))]),
    "osu_bibw.txt": ("osu", "7.4", [   # both directions counted: one direction takes twice
        T("bibw", "bidirectional", 2, 1, 21, (1, 2 / (2.57 * MB)),
          (1048576, 2 * 1048576 / (23454.02 * MB)))]),
    "osu_mbw_mr.txt": ("osu", "7.4", [
        T("mbw_mr", "stream", 2, 1, 21, (1, 1 / (2.43 * MB)),
          (1048576, 1048576 / (10128.84 * MB)))]),
    "osu_multi_lat.txt": ("osu", "7.4", [
        T("multi_lat", "pingpong", None, None, 17, (1, 0.75 * US), (65536, 7.88 * US))]),
    "osu_allreduce.txt": ("osu", "7.4", [
        T("allreduce", "collective", None, None, 19, (4, 0.63 * US), (1048576, 1523.60 * US))]),
    "osu_allreduce_full.txt": ("osu", "7.4", [
        T("allreduce", "collective", None, None, 15, (4, 0.61 * US), (65536, 83.33 * US))]),
    "osu_barrier.txt": ("osu", "7.4", [
        T("barrier", "collective", None, None, 1, (0, 0.51 * US), (0, 0.51 * US))]),
    # IMB 2021.11
    "imb_mpi1.txt": ("imb", "2021.11", [
        T("PingPong", "pingpong", 2, 1, 22, (0, 0.73 * US), (1048576, 90.16 * US)),
        T("PingPing", "bidirectional", 2, 1, 22, (0, 0.76 * US), (1048576, 103.78 * US)),
        T("Sendrecv", "sendrecv", 2, None, 22, (0, 0.82 * US), (1048576, 90.97 * US)),
        T("Exchange", "exchange", 2, None, 22, (0, 1.22 * US), (1048576, 269.83 * US)),
        T("Allreduce", "collective", 2, None, 20, (0, 0.17 * US), (1048576, 1091.12 * US)),
        T("Barrier", "collective", 2, None, 1, (0, 0.58 * US), (0, 0.58 * US))]),
    "imb_allreduce_npmin.txt": ("imb", "2021.11", [
        T("Allreduce", "collective", 2, None, 16, (0, 0.13 * US), (65536, 46.29 * US))]),
    "imb_multi0.txt": ("imb", "2021.11", [
        T("PingPong", "pingpong", 2, 1, 18, (0, 0.83 * US), (65536, 5.20 * US))]),
    "imb_np4.txt": ("imb", "2021.11", [
        T("PingPong", "pingpong", 2, 1, 5, (0, 3.07 * US), (8, 0.68 * US)),
        T("Allreduce", "collective", 2, None, 3, (0, 0.14 * US), (8, 0.54 * US)),
        T("Allreduce", "collective", 4, None, 1, (0, 2.31 * US), (0, 2.31 * US))]),
    "imb_np4_multi0.txt": ("imb", "2021.11", [
        T("Multi-PingPong", "pingpong", 2, 2, 5, (0, 3.22 * US), (8, 1.38 * US))]),
    "imb_np4_multi1.txt": ("imb", "2021.11", [
        T("Multi-PingPong", "pingpong", 2, 2, 10, (0, 4.17 * US), (8, 2.43 * US))]),
    "imb_uniband.txt": ("imb", "2021.11", [
        T("Uniband", "stream", 2, 1, 6, (0, 1 / 2076226), (16, 1 / 2310551)),
        T("Biband", "bidirectional", 2, 1, 6, (0, 2 / 3153076), (16, 2 / 3171831))]),
    # NetPIPE 3.7.2
    "netpipe3_np.out": ("netpipe", "3.x", [
        T("NPtcp", "pingpong", None, 1, 106, (1, 3.10e-6), (1048579, 0.00026221))]),
    "netpipe3_stdout.txt": ("netpipe", "3.x", [
        T("NPtcp", "pingpong", None, 1, 106, (1, 3.10 * US), (1048579, 262.21 * US))]),
    # netperf 2.7.1: one point each; RR one-way = half of 1 / rate
    "netperf_tcp_rr.txt": ("netperf", "", [
        T("TCP_RR", "pingpong", 2, 1, 1, (1, 0.5 / 158777.14), (1, 0.5 / 158777.14))]),
    "netperf_tcp_rr_1k.txt": ("netperf", "", [
        T("TCP_RR", "pingpong", 2, 1, 1, (1024, 0.5 / 82058.19), (1024, 0.5 / 82058.19))]),
    "netperf_tcp_rr_v2.txt": ("netperf", "", [
        T("TCP_RR", "pingpong", 2, 1, 1, (1, 0.5 / 20335.77), (1, 0.5 / 20335.77))]),
    "netperf_tcp_rr_omni_O.txt": ("netperf", "", [   # RoundTrip Latency 16.606 usec/tran
        T("TCP_RR", "pingpong", 2, 1, 1, (1, 16.606 * US / 2), (1, 16.606 * US / 2))]),
    "netperf_tcp_rr_omni_o.txt": ("netperf", "", [
        T("TCP_RR", "pingpong", 2, 1, 1, (1, 0.5 / 15102.565), (1, 0.5 / 15102.565))]),
    "netperf_tcp_rr_omni_k.txt": ("netperf", "", [
        T("TCP_RR", "pingpong", 2, 1, 1, (1, 0.5 / 14521.91), (1, 0.5 / 14521.91))]),
    "netperf_tcp_stream.txt": ("netperf", "", [
        T("TCP_STREAM", "stream", 2, 1, 1, (16384, 16384 / (17882.38 * B_PER_S_MBIT)),
          (16384, 16384 / (17882.38 * B_PER_S_MBIT)))]),
    "netperf_tcp_stream_cpu.txt": ("netperf", "", [   # -f g: 10^9 bit/s
        T("TCP_STREAM", "stream", 2, 1, 1, (16384, 16384 / (12.95e9 / 8)),
          (16384, 16384 / (12.95e9 / 8)))]),
    "netperf_tcp_stream_P0.txt": ("netperf", "", [
        T("TCP_STREAM", "stream", 2, 1, 1, (16384, 16384 / (11455.68 * B_PER_S_MBIT)),
          (16384, 16384 / (11455.68 * B_PER_S_MBIT)))]),
    # STREAM 5.10, 2e7 doubles: Copy/Scale move 2 arrays, Add/Triad 3
    "stream.txt": ("stream", "5.10", [
        T("Copy", "memory", None, None, 1, (3.2e8, 0.010962), (3.2e8, 0.010962)),
        T("Scale", "memory", None, None, 1, (3.2e8, 0.015789), (3.2e8, 0.015789)),
        T("Add", "memory", None, None, 1, (4.8e8, 0.020312), (4.8e8, 0.020312)),
        T("Triad", "memory", None, None, 1, (4.8e8, 0.020334), (4.8e8, 0.020334))]),
    # mpi4py.bench: Time Mean is one-way seconds
    "mpi4py_bench_pingpong_mpich.txt": ("mpi4py-bench", "", [
        T("pingpong", "pingpong", 2, 1, 23, (1, 4.3745745e-06), (4194304, 6.9981485e-04))]),
    "mpi4py_bench_pingpong_ompi.txt": ("mpi4py-bench", "", [
        T("pingpong", "pingpong", 2, 1, 23, (1, 9.8569800e-07), (4194304, 3.2619650e-04))]),
    "mpi4py_pingpong_mpich.csv": ("csv", "", [
        T("pingpong", "pingpong", None, None, 24, (0, 1.442 * US), (4194304, 461.695 * US))]),
    # IMB 2019 Update 5 on alaska (RoCE): uniband -npmin 1, 16 ranks, 8 a node
    "imb_uniband_npmin_alaska_roce.txt": ("imb", "2019 Update 5", [
        T("Uniband", "stream", 2, 1, 24, (0, 1 / 9048256), (4194304, 1 / 2260)),
        T("Uniband", "stream", 4, 2, 24, (0, 2 / 15839334), (4194304, 2 / 4404)),
        T("Uniband", "stream", 8, 4, 24, (0, 4 / 33178797), (4194304, 4 / 8503)),
        T("Uniband", "stream", 16, 8, 24, (0, 8 / 30718025), (4194304, 8 / 730))]),
    # ReFrame 3.0-dev6 perflogs (alaska, EDR): HPL on one node, GROMACS 1400k on 16 nodes
    "reframe_hpl_single_alaska_ib.log": ("reframe", "3.0-dev6", [
        T("HPL", "application", 32, None, 3, (math.nan, 1 / 503.64),
          (math.nan, 1 / 832.95))]),
    "reframe_gromacs_1400k_16_alaska_ib.log": ("reframe", "3.0-dev6", [
        T("Gromacs_1400k_16 core_t", "application", 512, None, 4, (math.nan, 164862.289),
          (math.nan, 231626.793)),
        T("Gromacs_1400k_16 wall_t", "application", 512, None, 4, (math.nan, 160.998),
          (math.nan, 226.198)),
        T("Gromacs_1400k_16 runtime_real", "application", 512, None, 4, (math.nan, 172.836),
          (math.nan, 237.303))]),
    # Slurm sacct --parsable2, constructed around alaska's CP2K times (PROVENANCE.md)
    "sacct_parsable2_cp2k_alaska_ib.txt": ("sacct", "", [
        T("cp2k-h2o-256 cp2k.psmp", "application", (32, 64, 128, 256, 512), None, 5,
          (math.nan, 666.0),
          (math.nan, 123.0))]),
    # IMB 2019 PingPong (alaska, EDR) as R's write.csv writes it: row names, make.names
    "imb_pingpong_r_export.csv": ("csv", "", [
        T("pingpong", "pingpong", None, None, 24, (0, 1.03 * US), (4194304, 352.68 * US))]),
    "mpi4py_pingpong_ompi.csv": ("csv", "", [
        T("pingpong", "pingpong", None, None, 24, (0, 0.810 * US), (4194304, 391.036 * US))]),
    # netgauge 2.4.6 (LogGP) and mpptest 1.0.x-1.2.x (public/PROVENANCE.md)
    "public/mpptest_1.0.13_sp2_short_cit.txt": ("mpptest", "", [
        T("pair", "pingpong", None, 1, 47, (0, 94.405506 * US), (1000, 206.183251 * US)),
        T("pair", "pingpong", None, 1, 49, (0, 95.558995 * US), (1000, 206.396747 * US))]),
    "public/mpptest_1.0.5_short_data_gnuplot.txt": ("mpptest", "", [
        T("pair", "pingpong", None, 1, 37, (0, 1790.0 * US), (1024, 2805.555556 * US))]),
    "public/mpptest_1.2_fast_ethernet_gnuplot.txt": ("mpptest", "1.2.x", [
        T("pair", "pingpong", None, 1, 33, (0, 68.309307 * US), (1024, 769.619942 * US))]),
    "public/mpptest_givedy_bisect_np16_gnuplot.txt": ("mpptest", "", [
        T("bisect", "pingpong", 16, 8, 15, (0, 1.640895 * US), (32768, 22.264349 * US))]),
    "public/mpptest_givedy_pcm_np2_gnuplot.txt": ("mpptest", "", [
        T("pair", "pingpong", None, 1, 15, (0, 1.641635 * US), (32768, 17.65095 * US))]),
    "public/netgauge_2.4.6_loggp_ib_stdout.txt": ("netgauge", "2.4.6", [   # LogGP T, derived
        T("loggp", "pingpong", 2, 1, 128, (1, 1.429046 * US), (130049, 30.684067 * US))]),
    "public/netgauge_2.4.6_loggp_tcp_en2_stdout.txt": ("netgauge", "2.4.6", [
        T("loggp", "pingpong", 2, 1, 90, (1, 55.464322 * US), (130049, 1251.615614 * US))]),
    "public/netgauge_loggp_ng_out.txt": ("netgauge", "", [   # PRTT(1,0,s) / 2
        T("loggp", "pingpong", None, 1, 128, (1, 2.244175 / 2 * US),
          (130049, 19.009839 / 2 * US))]),
    "public/netgauge_loggp_ng_out_gdr_fork.txt": ("netgauge", "", [
        T("loggp", "pingpong", None, 1, 128, (1, 1329.453928 / 2 * US),
          (130049, 1338.261173 / 2 * US))]),
    # public outputs of older versions (public/PROVENANCE.md)
    "public/osu_latency_v5.3.2.txt": ("osu", "5.3.2", [
        T("latency", "pingpong", 2, 1, 24, (0, 1.07 * US), (4194304, 355.08 * US))]),
    "public/imb_v3.0_pingpong.txt": ("imb", "3.0", [
        T("PingPong", "pingpong", 2, 1, 26, (0, 5830.25 * US), (16777216, 164841.80 * US))]),
    "public/imb_v2.3_sendrecv_np16.txt": ("imb", "2.3", [
        T("Sendrecv", "sendrecv", 16, None, 26, (0, 30.99 * US), (16777216, 134618.62 * US))]),
    "public/pmb_v2.2_alltoall_np2_literal_caretM.txt": ("imb", "2.2", [
        T("Alltoall", "collective", 2, None, 24, (0, 0.03 * US), (4194304, 19034.41 * US))]),
    "public/npb_mg_B_mpi_np4_npb2.3.txt": ("npb", "2.3", [
        T("MG", "application", 4, None, 1, (math.nan, 47.19), (math.nan, 47.19))]),
    "public/npb_cg_S_omp_npb3.3.1.txt": ("npb", "3.3.1", [
        T("CG", "application", 1, None, 1, (math.nan, 1.86), (math.nan, 1.86))]),
    # HPCG: one summary, one run: total time against processes
    "public/hpcg_3.1_np64.txt": ("hpcg", "3.1", [
        T("HPCG", "application", 64, None, 1, (math.nan, 1871.23), (math.nan, 1871.23))]),
    # HPL: one row per run, processes = P x Q, no message size
    "public/hpl_2.1_np32_pq_nb_sweep.txt": ("hpl", "2.1", [
        T("HPL", "application", 32, None, 24, (math.nan, 935.67), (math.nan, 908.45))]),
    "public/hpl_2.3_np64_nb_sweep.txt": ("hpl", "2.3", [
        T("HPL", "application", 64, None, 8, (math.nan, 21.32), (math.nan, 44.90))]),
    # perftest: Gb/sec = 10^9 bit/s; N queue pairs share the average; latency t_typical
    "public/perftest_ib_write_bw_gbits.txt": ("perftest", "", [
        T("ib_write_bw", "stream", 2, 1, 23, (2, 2 * 8 / 0.056891e9),
          (8388608, 8388608 * 8 / 226.24e9))]),
    "public/perftest_ib_read_bw_server.txt": ("perftest", "", [
        T("ib_read_bw", "stream", 2, 1, 1, (8388608, 8388608 * 8 / 226.13e9),
          (8388608, 8388608 * 8 / 226.13e9))]),
    "public/perftest_ib_read_lat.txt": ("perftest", "", [
        T("ib_read_lat", "other", 2, 1, 23, (2, 5.45 * US), (8388608, 308.32 * US))]),
    # Extra-P's own text-input test file (BSD-3; public/PROVENANCE.md): two metrics, time
    # and flops (a count, left out); the last DATA line has no line end and is read whole
    "public/extrap_text_one_parameter_3.txt": ("extrap", "", [
        T("compute time", "application", (20, 30, 40, 50, 60), None, 25,
          (math.nan, 82.00848518948744), (math.nan, 721.0616186790007)),
        # its METRIC flops (a count: left out), whose last line has no line end
    ]),
    "public/perftest_ib_write_bw_8qp_cuda.txt": ("perftest", "", [
        T("ib_write_bw", "stream", 2, 8, 23, (2, 8 * 2 * 8 / 0.054809e9),
          (8388608, 8 * 8388608 * 8 / 105.03e9))]),
}


def _shared_names() -> list[str]:
    return sorted(p.name for p in SHARED.iterdir()) if SHARED.is_dir() else []


def test_every_shared_fixture_is_copied_and_expected() -> None:
    """The project's copies are the shared fixtures, and each has expectations here."""
    local = sorted(p.name for p in FIX.iterdir() if p.is_file() and p.suffix != ".md")
    for name in _shared_names():
        assert name in local, f"{name} not copied into tests/fixtures/benchmarks"
        assert (SHARED / name).read_bytes() == (FIX / name).read_bytes(), name
    assert sorted(n for n in EXPECTED if "/" not in n) == local
    public = sorted(f"public/{p.name}" for p in (FIX / "public").iterdir() if p.suffix != ".md")
    assert sorted(n for n in EXPECTED if n.startswith("public/")) == public


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_is_read_right(name: str) -> None:
    fmt, version, expected = EXPECTED[name]
    path = FIX / name
    tables = read(path)
    assert [t.format for t in tables] == [fmt] * len(expected)
    assert all(t.version == version for t in tables), [t.version for t in tables]
    assert len(tables) == len(expected), [t.label for t in tables]
    for t, e in zip(tables, expected, strict=True):
        assert (t.benchmark, t.pattern, len(t)) == (e.benchmark, e.pattern, e.rows), t.label
        assert t.counts("processes") == (() if e.processes is None else e.processes
                                         if isinstance(e.processes, tuple) else (e.processes,))
        assert t.counts("pairs") == (() if e.pairs is None else (e.pairs,))
        np.testing.assert_allclose([t.size[0], t.time[0]], e.first, rtol=1e-9)
        np.testing.assert_allclose([t.size[-1], t.time[-1]], e.last, rtol=1e-9)
        assert t.meaning, "every table says how its times were derived"
        assert len(t.sha256) == 64
        assert np.all(t.time > 0)


def test_pmb_carets_and_carriage_returns() -> None:
    """PMB 2.2 as the archive shows it (a literal ^M per line) and as the file was (CRLF)."""
    path = FIX / "public" / "pmb_v2.2_alltoall_np2_literal_caretM.txt"
    (shown,) = read(path)
    (crlf,) = parse("crlf.txt", path.read_text().replace("^M\n", "\r\n"))
    np.testing.assert_array_equal(shown.time, crlf.time)
    assert shown.attrs["waiting processes"] == "2"


def test_old_imb_megabytes_are_mebibytes() -> None:
    """IMB 3.0 and 2.3 print Mbytes/sec = 2^20 B/s; the reader measures it and says so."""
    for name in ("imb_v3.0_pingpong.txt", "imb_v2.3_sendrecv_np16.txt"):
        (t,) = read(FIX / "public" / name)
        assert any("MB = 2^20 B (as expected" in n for n in t.notes), t.notes
    (new,) = read(FIX / "imb_multi0.txt")
    assert any("MB = 10^6 B (as expected" in n for n in new.notes)


def test_launcher_lines_inside_a_table_are_skipped_and_said() -> None:
    (t,) = read(FIX / "public" / "imb_v2.3_sendrecv_np16.txt")
    assert 65536 in t.size and 131072 in t.size
    assert any("lines 46, 47" in n for n in t.notes), t.notes


def test_osu_extra_columns() -> None:
    (full,) = read(FIX / "osu_allreduce_full.txt")
    assert full.reps is not None and full.reps[0] == 1000 and full.reps[-1] == 100
    assert full.extra["t_min"][0] == pytest.approx(0.59e-6)
    assert full.extra["t_max"][-1] == pytest.approx(83.69e-6)
    (mr,) = read(FIX / "osu_mbw_mr.txt")
    assert mr.extra["msg_rate"][0] == pytest.approx(2426159.46)
    assert mr.attrs["window"] == "64"
    (val,) = read(FIX / "osu_latency_validate.txt")
    assert val.notes == ()   # every row passed


def test_imb_details() -> None:
    tables = read(FIX / "imb_mpi1.txt")
    sendrecv = tables[2]
    assert sendrecv.extra["t_max"][-1] == pytest.approx(90.98e-6)
    assert sendrecv.reps is not None and sendrecv.reps[-1] == 40
    np4 = read(FIX / "imb_np4.txt")
    assert np4[0].attrs["waiting processes"] == "2"
    assert any("time-out (line 59)" in n for n in np4[2].notes)
    (multi1,) = read(FIX / "imb_np4_multi1.txt")
    assert list(multi1.extra["group"][:2]) == [0, 1]


def test_netpipe_stdout_equals_np_out() -> None:
    """The transmitter's lines and np.out describe the same run."""
    (out,) = read(FIX / "netpipe3_np.out")
    (std,) = read(FIX / "netpipe3_stdout.txt")
    np.testing.assert_array_equal(out.size, std.size)
    np.testing.assert_allclose(out.time, std.time, rtol=2e-3)   # 8 vs 3 significant digits
    assert std.reps is not None and std.reps[0] == 28130 and std.reps[-1] == 334
    assert any("Mbps = 2^20 bit/s" in n for n in out.notes)


def test_netperf_units() -> None:
    assert unit_factor("10^6bits/s") == 125000.0
    assert unit_factor("10^9bits/sec") == 1.25e8
    assert unit_factor("MBytes/s") == 2**20
    (v2,) = read(FIX / "netperf_tcp_rr_v2.txt")
    assert v2.extra["rtt"][0] == pytest.approx(49.174e-6, rel=1e-4)  # its RoundTrip Latency
    (o,) = read(FIX / "netperf_tcp_rr_omni_o.txt")
    assert o.extra["rtt_p99"][0] == pytest.approx(154e-6)   # a round trip, as netperf says
    (big_o,) = read(FIX / "netperf_tcp_rr_omni_O.txt")
    assert any("1 byte, assumed" in n for n in big_o.notes)


def test_npb_runs_form_a_scaling_table(tmp_path: Path) -> None:
    """Runs of one benchmark and class, concatenated, become rows of one table."""
    mg = (FIX / "public" / "npb_mg_B_mpi_np4_npb2.3.txt").read_text()
    two = mg + "\n" + mg.replace("Total processes =                        4",
                                 "Total processes =                        8").replace(
        "47.19", "25.02")
    (t,) = parse("two.txt", two)
    assert t.counts("processes") == (4, 8)
    np.testing.assert_allclose(t.time, [47.19, 25.02])
    assert t.extra["mops"][0] == pytest.approx(412.43e6)
    assert math.isnan(t.size[0])


def test_choose() -> None:
    tables = read(FIX / "imb_np4.txt")
    assert choose(tables, "f").benchmark == "PingPong"
    assert choose(tables, "f", "allreduce@4").counts("processes") == (4,)
    assert choose(tables, "f", "Allreduce").counts("processes") == (2,)
    assert choose(tables, "f", "collective").benchmark == "Allreduce"
    with pytest.raises(InputError, match="Allreduce@2, Allreduce@4"):
        choose(tables, "f", "Exchange")
    osu = read(FIX / "osu_latency.txt")
    assert choose(osu, "f", "osu_latency") is osu[0]
    with pytest.raises(InputError, match="no ping-pong"):
        choose(read(FIX / "stream.txt"), "f")


def test_an_unnamed_first_column_is_r_row_names_only_beside_r_names() -> None:
    """R's export: its row names are left out and said; the same blank first cell beside
    perfmodel's own names is still a column with no name."""
    from perfmodel.readers import parse

    (t,) = read(FIX / "imb_pingpong_r_export.csv")
    assert any("R's write.csv" in n for n in t.notes)
    assert any("Mbytes.sec ignored" in n for n in t.notes)
    with pytest.raises(InputError, match="column 1 has no name"):
        parse("x.csv", '"",size_bytes,one_way_us\n"1",8,1.5\n')


@pytest.mark.parametrize("text", [
    "hello world\n", "12 34 56\n", "#---\n# nothing here\n", "1,2\n3,4\n", "\x7fELF",
])
def test_unknown_formats_list_what_was_tried(text: str) -> None:
    with pytest.raises(InputError) as err:
        parse("x.txt", text)
    assert "format not recognised (tried osu, imb" in err.value.one_line()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_one_reader_claims_each_fixture(name: str) -> None:
    """Exactly the expected reader recognises the file among the tools with a banner (the
    fallbacks, NetPIPE's np.out and the CSV, must not claim another tool's output)."""
    text = (FIX / name).read_text()
    fmt = EXPECTED[name][0]
    claimed = [n for n, r in REGISTRY.items() if r.sniff(text)]
    if fmt in FALLBACKS:
        assert claimed == [fmt], claimed
    else:
        assert [n for n in claimed if n not in FALLBACKS] == [fmt], claimed
    reader = sniff(text)
    assert reader is not None and fmt == reader.NAME


@pytest.mark.parametrize(("name", "cut_after", "line"), [
    ("osu_latency.txt", "1048576", 25),
    ("osu_allreduce_full.txt", "65536                  83.33", 19),
    ("imb_multi0.txt", "65536          640", 52),
    ("imb_mpi1.txt", "1048576           40       103.78", 89),
    ("mpi4py_bench_pingpong_ompi.txt", "4194304          12858.21", 25),
    ("netpipe3_stdout.txt", "105: 1048579 bytes    334 times -->", 110),
    ("stream.txt", "Triad:          23605.8     0.021896", 30),
])
def test_a_row_cut_short_names_its_line(name: str, cut_after: str, line: int) -> None:
    text = (FIX / name).read_text()
    cut = text[: text.index(cut_after) + len(cut_after)]
    with pytest.raises(InputError) as err:
        parse(name, cut)
    assert err.value.line == line and "truncated" in err.value.what, err.value.one_line()


def test_an_osu_title_printed_twice_is_one_table(tmp_path: Path) -> None:
    """OSU 7.x prints some titles twice (osu_mbw_mr 7.1): that is one table, not a cut-off
    one.  The real osu_mbw_mr fixture with its title line doubled reads as the fixture."""
    text = (FIX / "osu_mbw_mr.txt").read_text()
    first = next(ln for ln in text.splitlines() if ln.startswith("# OSU"))
    doubled = text.replace(first, first + "\n" + first, 1)
    path = tmp_path / "osu_mbw_mr_twice.txt"
    path.write_text(doubled)
    (once,) = read(FIX / "osu_mbw_mr.txt")
    (twice,) = read(path)
    assert (twice.benchmark, len(twice)) == (once.benchmark, len(once))
    np.testing.assert_array_equal(twice.time, once.time)
    assert "repeated title" in twice.attrs
