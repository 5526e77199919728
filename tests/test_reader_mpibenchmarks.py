"""MPIBenchmarks.jl's CSV files (JuliaParallel/MPIBenchmarks.jl, src/osu_p2p.jl, src/imb_p2p.jl,
src/imb_collective.jl): each header is the tool's banner, read with its units as the source
computes them.  The files here are written by the tests in the tool's exact layouts (headers
copied from the source, times made up), so each expected value is known."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfmodel.errors import InputError
from perfmodel.readers import canonical, mpibenchmarks, read, sniff
from tests.conftest import invoke_in

US = 1e-6


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_osu_latency_in_microseconds_and_in_seconds_read_alike(tmp_path: Path) -> None:
    new = _write(tmp_path, "julia_osu_latency.csv", "size (bytes),iterations,latency (us)\n"
                 "0,10000,1.52\n8,10000,1.60\n1048576,100,262.50\n")
    old = _write(tmp_path, "old.csv", "size (bytes),iterations,latency (seconds)\n"
                 "0,10000,1.52e-6\n8,10000,1.6e-6\n1048576,100,0.0002625\n")
    for path in (new, old):
        (t,) = read(path)
        assert (t.format, t.benchmark, t.pattern, t.quantity) == \
            ("mpibenchmarks-jl", "latency", "pingpong", "one_way")
        assert t.size.tolist() == [0, 8, 1048576]
        assert t.time.tolist() == pytest.approx([1.52 * US, 1.6 * US, 262.5 * US], rel=1e-12)
        assert t.reps is not None and t.reps.tolist() == [10000, 10000, 100]
        assert t.line == (2, 3, 4) and "one-way" in t.meaning


def test_osu_bw_is_mebibytes_a_second(tmp_path: Path) -> None:
    (t,) = read(_write(tmp_path, "julia_osu_bw.csv", "size (bytes),iterations,bandwidth (MB/s)\n"
                       "1024,1000,512.00\n1048576,100,8192.00\n"))
    assert (t.benchmark, t.pattern, t.quantity) == ("bw", "stream", "bandwidth")
    # 512 MiB/s: 1024 B take 1024 / (512 · 2^20) s
    assert t.time.tolist() == pytest.approx([1024 / (512 * 2**20), 1 / 8192], rel=1e-12)
    assert t.extra["rate"].tolist() == pytest.approx([512 * 2**20, 8192 * 2**20], rel=1e-12)
    assert any("b6b93a3" in n and "too short" in n for n in t.notes)


def test_a_table_is_chosen_by_the_name_osu_gives_it(tmp_path: Path) -> None:
    bw = _write(tmp_path, "julia_osu_bw.csv", "size (bytes),iterations,bandwidth (MB/s)\n"
                + "".join(f"{2**k},100,{100.0 * 2**k / (1 + 2**k):.2f}\n" for k in range(12)))
    for name in ("bw", "osu_bw"):
        res = invoke_in(tmp_path, ["calibrate", str(bw), "--benchmark", name, "--name", "x",
                                   "-o", str(tmp_path / f"{name}.toml"), "--force"])
        assert res.exit_code == 0, res.output
        assert (tmp_path / f"{name}.toml").exists()


def test_an_inflated_rate_of_the_2023_osu_bw_is_refused(tmp_path: Path) -> None:
    # 4a35ee7 … b6b93a3 wrote bytes / 1e6 · iters · window / (time of one iteration): a 5 GB/s
    # link's 1 MiB with 100 iterations and a window of 64 reads as 3.2e7 "MB/s"
    path = _write(tmp_path, "julia_osu_bw.csv", "size (bytes),iterations,bandwidth (MB/s)\n"
                  "1024,1000,3000.00\n1048576,100,32000000.00\n")
    with pytest.raises(InputError, match="b6b93a3") as got:
        read(path)
    assert got.value.line == 3


def test_imb_pingpong_and_pingping_are_told_apart_by_the_files_name(tmp_path: Path) -> None:
    body = ("size (bytes),iterations,time (seconds),throughput (MB/s),alloc (B)\n"
            "0,1000,1.5e-6,0.0,0\n1024,1000,2.5e-6,409.6,0\n")
    (pong,) = read(_write(tmp_path, "julia_imb_pingpong.csv", body))
    (ping,) = read(_write(tmp_path, "run3_julia_imb_pingping.csv", body))
    assert (pong.benchmark, pong.pattern) == ("PingPong", "pingpong")
    assert (ping.benchmark, ping.pattern) == ("PingPing", "bidirectional")
    assert pong.time.tolist() == pytest.approx([1.5 * US, 2.5 * US], rel=1e-12)
    assert ping.time.tolist() == pong.time.tolist()
    # the 2022 header has no alloc column
    (old,) = read(_write(tmp_path, "julia_imb_pingpong_2022.csv",
                         "size (bytes),iterations,time (seconds),throughput (MB/s)\n"
                         "1024,1000,2.5e-6,409.6\n"))
    assert old.time.tolist() == pytest.approx([2.5 * US], rel=1e-12)


def test_a_row_whose_throughput_disagrees_with_its_time_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "julia_imb_pingpong.csv",
                  "size (bytes),iterations,time (seconds),throughput (MB/s)\n"
                  "1024,1000,2.5e-6,409.6\n2048,1000,3.0e-6,682.7\n4096,1000,4.0e-6,10240.0\n")
    with pytest.raises(InputError, match="throughput") as got:
        read(path)
    assert got.value.line == 4


@pytest.mark.parametrize(("name", "header", "said"), [
    ("julia_imb_allreduce.csv",
     "size (bytes),iteratons,min_time (seconds),max_time (seconds),avg_time (seconds)\n"
     "4,10,1e-6,2e-6,1.5e-6\n", "how many ranks"),
    ("results.csv", "size (bytes),iterations,time (seconds),throughput (MB/s)\n"
     "1024,1000,2.5e-6,409.6\n", "says neither"),
    ("julia_osu_latency.csv", "size (bytes),iterations,latency (us)\n0,10000,1.52\n8,10000\n",
     "truncated"),
    ("julia_osu_latency.csv", "size (bytes),iterations,latency (us)\n0,10,1.5,7\n8,10,1.6,7\n",
     "the row has 4 values where the header names 3"),
])
def test_what_cannot_be_read_is_one_line_exit_2(tmp_path: Path, name: str, header: str,
                                                said: str) -> None:
    path = _write(tmp_path, name, header)
    res = invoke_in(tmp_path, ["calibrate", str(path), "--name", "x", "-o",
                               str(tmp_path / "x.toml")])
    assert res.exit_code == 2, res.output
    assert said in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x.toml").exists()


def test_the_banner_is_the_header_and_the_canonical_csv_is_not_claimed() -> None:
    assert mpibenchmarks.sniff("size (bytes), iterations, latency (us)\n0,1,1.0\n")
    assert not mpibenchmarks.sniff("size_bytes,one_way_us\n0,1.0\n")
    assert not mpibenchmarks.sniff("# size (bytes),iterations,latency (us)\n")
    assert sniff("size (bytes),iterations,latency (us)\n0,1,1.0\n") is mpibenchmarks
    assert sniff("size_bytes,one_way_us\n8,1.0\n") is canonical
