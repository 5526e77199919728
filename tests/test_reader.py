import numpy as np
import pytest

from perfmodel.errors import InputError
from perfmodel.readers import read
from perfmodel.readers.canonical import classify
from tests.conftest import DATA, MPICH, OMPI


def test_mpich_file_in_si() -> None:
    (t,) = read(MPICH)
    assert len(t) == 24 and t.format == "csv" and t.quantity == "one_way"
    assert t.size[0] == 0 and t.time[0] == pytest.approx(1.442e-6)
    assert t.size[-1] == 4194304 and t.time[-1] == pytest.approx(461.695e-6)
    assert t.reps is not None and t.reps[0] == 10000 and t.reps[-1] == 100
    assert t.line[0] == 9  # seven provenance comment lines, then the header on line 8
    assert any("mpi4py" in c for c in t.comments)
    assert t.notes == ("one_way_us used; MBps ignored",)
    assert len(t.sha256) == 64


def test_ompi_bandwidth_column_agrees_with_time() -> None:
    # the file's own MBps column is size / one-way time in 10^6 B/s
    (t,) = read(OMPI)
    rows = [ln.split(",") for ln in OMPI.read_text().splitlines() if not ln.startswith("#")]
    mbps = np.array([float(r[rows[0].index("MBps")]) for r in rows[1:]])
    assert np.allclose(t.bandwidth[1:] / 1e6, mbps[1:], rtol=0.01)


@pytest.mark.parametrize(("name", "role", "factor"), [
    ("size_bytes", "size", 1.0), ("size_KiB", "size", 1024.0), ("bytes", "size", 1.0),
    ("one_way_us", "one_way", 1e-6), ("latency_ns", "one_way", 1e-9),
    ("round_trip_ms", "round_trip", 1e-3), ("rtt_us", "round_trip", 1e-6),
    ("bandwidth_MBps", "bandwidth", 1e6), ("bw_Gbps", "bandwidth", 1.25e8),
    ("MB/s", "bandwidth", 1e6), ("aggregate_bandwidth_MBps", "aggregate", 1e6),
    ("iters", "reps", 1.0), ("ranks", "processes", 1.0), ("Pairs", "pairs", 1.0),
])
def test_column_names_carry_units(name: str, role: str, factor: float) -> None:
    got_role, got_factor = classify(name)
    assert got_role == role and got_factor == pytest.approx(factor)


def test_round_trip_is_halved_and_bandwidth_inverted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rt = tmp_path / "rt.csv"
    rt.write_text("size_KiB,round_trip_ms\n1,2\n8,4\n")
    (a,) = read(rt)
    assert a.size.tolist() == [1024, 8192] and a.time.tolist() == [1e-3, 2e-3]
    bw = tmp_path / "bw.csv"
    bw.write_text("size_bytes,bandwidth_Mbps\n1000,8\n")  # 8 Mbit/s = 1e6 B/s
    (b,) = read(bw)
    assert b.time.tolist() == [pytest.approx(1e-3)]


def test_aggregate_bandwidth_is_shared_by_the_streams() -> None:
    (t,) = read(DATA / "seeds" / "beowulf-1995-ethernet.csv")
    # 8 tokens of 1 KiB at 1.0 MB/s together: each token takes 8 x 1024 / 1e6 s
    row = int(np.flatnonzero((t.size == 1024) & (t.concurrency["pairs"] == 8))[0])
    assert t.time[row] == pytest.approx(8 * 1024 / 1e6)
    single = t.single_stream()
    assert len(single) == 1 and single.size[0] == 8192 and single.time[0] == pytest.approx(8.192e-3)


def test_quoted_source_cells_may_hold_commas(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "q.csv"
    p.write_text('size_bytes,one_way_us,source\n8,1.5,"paper, p. 3, line 2"\n16,2,x\n')
    (t,) = read(p)
    assert t.size.tolist() == [8, 16]


def test_line_numbers_count_comments_and_blank_lines(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "c.csv"
    p.write_text("# a\n\nsize_bytes,one_way_us\n\n# b\n8,x\n")
    with pytest.raises(InputError) as info:
        read(p)
    assert info.value.line == 6
