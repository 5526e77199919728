"""perftest outputs (linux-rdma/perftest) as printed: real public files (see
tests/fixtures/benchmarks/public/PROVENANCE.md), their numbers read back exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfmodel.readers import read, sniff

PUBLIC = Path(__file__).parent / "fixtures" / "benchmarks" / "public"


def _one(name: str):  # type: ignore[no-untyped-def]
    tables = read(PUBLIC / name)
    assert len(tables) == 1
    return tables[0]


def test_every_perftest_file_is_sniffed_as_perftest() -> None:
    for path in sorted(PUBLIC.glob("perftest_*.txt")):
        reader = sniff(path.read_text())
        assert reader is not None and reader.NAME == "perftest", path


def test_write_bandwidth_in_gbits_is_a_stream_of_one_queue_pair() -> None:
    t = _one("perftest_ib_write_bw_gbits.txt")
    assert (t.benchmark, t.pattern, t.quantity, t.format) == \
        ("ib_write_bw", "stream", "bandwidth", "perftest")
    assert len(t) == 23 and t.size[0] == 2 and t.size[-1] == 8388608
    row = list(t.size).index(4096.0)
    # 117.24 Gb/s average: one 4096-byte message every 4096·8 / 117.24e9 s
    assert t.time[row] == pytest.approx(4096 * 8 / 117.24e9, rel=1e-12)
    assert t.extra["msg_rate"][row] == pytest.approx(3.577766e6, rel=1e-12)
    assert t.extra["rate_peak"][row] == pytest.approx(119.49e9 / 8, rel=1e-12)
    assert t.attrs["qps"] == "1" and t.attrs["tx depth"] == "128" and t.attrs["link"] == "Ethernet"
    assert t.line[row] == 35
    assert np.all(np.diff(t.size) > 0)


def test_read_latency_is_a_round_trip_as_printed() -> None:
    t = _one("perftest_ib_read_lat.txt")
    assert (t.benchmark, t.pattern, t.quantity) == ("ib_read_lat", "other", "time")
    assert t.statistic is not None and set(t.statistic) == {"median"}
    assert t.time[0] == pytest.approx(5.45e-6, rel=1e-12)   # t_typical of the 2-byte row
    assert t.extra["t_min"][0] == pytest.approx(5.40e-6, rel=1e-12)
    assert t.extra["t_avg"][0] == pytest.approx(5.49e-6, rel=1e-12)
    assert t.extra["p999"][0] == pytest.approx(15.65e-6, rel=1e-12)
    assert t.reps is not None and t.reps[0] == 1000


def test_eight_queue_pairs_are_eight_streams_sharing_the_nic() -> None:
    t = _one("perftest_ib_write_bw_8qp_cuda.txt")
    assert t.quantity == "aggregate" and tuple(t.counts("pairs")) == (8,)
    last = len(t) - 1
    # 105.03 Gb/s summed over 8 queue pairs: one queue pair's 8 MiB message every 8·size/rate
    assert t.time[last] == pytest.approx(8 * 8388608 * 8 / 105.03e9, rel=1e-12)
    assert not any("not data" in n for n in t.notes)   # the CUDA lines after the table


def test_server_side_prints_only_the_last_size() -> None:
    t = _one("perftest_ib_read_bw_server.txt")
    assert len(t) == 1 and t.size[0] == 8388608
    assert t.time[0] == pytest.approx(8388608 * 8 / 226.13e9, rel=1e-12)


def test_a_constructed_write_latency_is_a_one_way_ping_pong(tmp_path: Path) -> None:
    """ib_write_lat prints half a ping-pong's round trip: a one-way time, fitted as one.
    (Constructed from the real read latency file by renaming its title: no public
    ib_write_lat output with a licence was found.)"""
    text = (PUBLIC / "perftest_ib_read_lat.txt").read_text().replace(
        "RDMA_Read Latency Test", "RDMA_Write Latency Test")
    path = tmp_path / "write_lat.txt"
    path.write_text(text)
    t = read(path)[0]
    assert (t.benchmark, t.pattern, t.quantity) == ("ib_write_lat", "pingpong", "one_way")
    from perfmodel.calibrate import calibrate

    result = calibrate([path], name="write-lat")   # a ping-pong: no --benchmark needed
    best = result.selection.best
    assert len(best.data) == 23 and best.median_rel_err < 0.05
