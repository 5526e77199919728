"""HPC Challenge outputs (``hpccoutf.txt``) as printed: real public files of
hpc-uk/archer-benchmarks (``data/pairs-hpcc``, provenance beside each), their HPL run, b_eff's
ping-pong and SingleSTREAM's Triad read back; crafted damage refused by its line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from perfmodel.errors import InputError
from perfmodel.readers import parse, read, sniff
from tests.conftest import ROOT, invoke_in

ARCHER = ROOT / "data" / "pairs-hpcc" / "archer" / "archer_nodes2ppn1_hpccoutf.txt"


def test_an_hpcc_output_is_its_hpl_run_its_ping_pong_and_its_triad() -> None:
    """The ARCHER run: HPL's one run (N = 3520 on 1 × 2 processes, 0.66 s as printed, its
    time from its 44.16 Gflops), b_eff's detailed results, line 344 on: the largest latency
    at 8 B (0.001505 ms) and the 2,000,000 B message at the smallest bandwidth (8196.002 MB/s),
    and SingleSTREAM's Triad, 12.764113 GB/s (line 228) over 3 × 2,065,066 doubles."""
    hpl, pingpong, triad = read(ARCHER)
    assert (hpl.format, hpl.version, hpl.benchmark, hpl.pattern) == (
        "hpcc", "1.5.0", "HPL", "application")
    assert len(hpl) == 1 and tuple(hpl.counts("processes")) == (2,)
    assert (pingpong.format, pingpong.version, pingpong.pattern) == ("hpcc", "1.5.0", "pingpong")
    assert list(pingpong.size) == [8.0, 2_000_000.0]
    assert pingpong.time[0] == pytest.approx(1.505e-6, rel=1e-9)
    assert pingpong.time[1] == pytest.approx(2e6 / 8196.002e6, rel=1e-6)
    assert list(pingpong.line) == [345, 346]
    assert tuple(pingpong.counts("processes")) == (2,)
    assert any("two points fix a two-parameter law" in n and "the file does not say" in n
               for n in pingpong.notes)
    assert any("its PTRANS, RandomAccess" in n for n in pingpong.notes)
    assert (triad.format, triad.benchmark, triad.pattern) == ("hpcc", "Triad", "memory")
    assert list(triad.size) == [3 * 8 * 2065066] and list(triad.line) == [228]
    assert triad.size[0] / triad.time[0] == pytest.approx(12.764113e9, rel=1e-9)
    assert triad.attrs["threads"] == "1"


def test_the_node_of_an_hpcc_output_has_hpls_flop_rate_and_streams_bandwidth(
        tmp_path: Path) -> None:
    """calibrate gives the node both rates from one HPCC output: HPL's 44.16 Gflop/s over 2
    processes, a process's 22.08; SingleSTREAM's Triad 12.76 GB/s, not StarSTREAM's 12.53 (the
    summary's SingleSTREAM_Triad where the detailed line is cut)."""
    got = invoke_in(tmp_path, ["calibrate", str(ARCHER), "--no-write", "--json"])
    assert got.exit_code == 0, got.output
    node = {p["name"]: p for p in json.loads(got.output)["node"]}
    assert node["flop_rate"]["value"] == pytest.approx(44.16e9 / 2, rel=1e-3)
    assert node["memory_bandwidth"]["value"] == pytest.approx(12.764113e9, rel=1e-9)
    assert node["memory_bandwidth"]["status"] == "derived"
    assert "line 228" in node["memory_bandwidth"]["source"]
    cut = ARCHER.read_text().replace("Single STREAM Triad GB/s 12.764113\n", "")
    (triad,) = [t for t in parse("cut.txt", cut) if t.pattern == "memory"]
    assert triad.size[0] / triad.time[0] == pytest.approx(12.7641e9, rel=1e-9)
    assert list(triad.line) == [537 - 1]   # the summary's line, one line up for the cut


def test_hpcc_is_its_own_reader_not_hpls() -> None:
    """HPL's banner and legend are inside every HPCC output: the file is HPCC's alone, not
    'the output of 2 tools'."""
    reader = sniff(ARCHER.read_text())
    assert reader is not None and reader.NAME == "hpcc"


def test_without_the_detailed_results_the_summary_gives_the_same_two_points() -> None:
    text = ARCHER.read_text()
    cut = text.replace("Ping Pong:\n", "Ping Pong (cut):\n")
    _, pingpong, _ = parse("cut.txt", cut)
    assert pingpong.time[0] == pytest.approx(1.50502e-6, rel=1e-9)   # MaxPingPongLatency_usec
    assert pingpong.time[1] == pytest.approx(2e6 / 8.196e9, rel=1e-9)
    assert list(pingpong.line) == [545, 547]


def test_a_damaged_latency_is_refused_at_its_line() -> None:
    lines = ARCHER.read_text().splitlines(keepends=True)
    assert lines[344].startswith("Latency   min / avg / max:")
    lines[344] = lines[344].replace("0.001505 msecs", "0.0x1505 msecs")
    with pytest.raises(InputError) as got:
        parse("damaged.txt", "".join(lines))
    assert got.value.line == 345 and "'0.0x1505' is not a measurement" in got.value.what


def test_an_output_cut_before_hpl_and_b_eff_is_refused() -> None:
    head = "".join(ARCHER.read_text().splitlines(keepends=True)[:15])
    with pytest.raises(InputError, match="no HPL result, ping-pong of two processes or STREAM"):
        parse("head.txt", head)


def test_two_points_calibrate_hockneys_law_and_nothing_more(tmp_path: Path) -> None:
    """Hockney through the two points: α = t(8) − 8/β, β = (2e6 − 8) / (t(2e6) − t(8)); the
    default choice fits it too, and says two sizes determine no other law (it had refused,
    asking for a third size)."""
    got = invoke_in(tmp_path, ["calibrate", str(ARCHER), "--model", "hockney", "--no-write",
                               "--json"])
    assert got.exit_code == 0, got.output
    params = {p["name"]: p["value"] for p in json.loads(got.output)["parameters"]}
    t8, t2m = 1.505e-6, 2e6 / 8196.002e6
    beta = (2e6 - 8) / (t2m - t8)
    assert params["beta"] == pytest.approx(beta, rel=1e-4)
    assert params["alpha"] == pytest.approx(t8 - 8 / beta, rel=1e-4)
    auto = invoke_in(tmp_path, ["calibrate", str(ARCHER), "--no-write", "--json"])
    assert auto.exit_code == 0, auto.output
    doc = json.loads(auto.output)
    assert doc["model"] == "hockney"
    assert {p["name"]: p["value"] for p in doc["parameters"]} == params
    assert "two message sizes determine no other law" in json.dumps(doc["selection"])
    piecewise = invoke_in(tmp_path, ["calibrate", str(ARCHER), "--model", "piecewise",
                                     "--no-write"])
    assert piecewise.exit_code == 2 and "distinct sizes" in piecewise.output


def test_every_copied_output_reads_as_its_own_summary_says() -> None:
    """Each copied run's two rows against b_eff's "Major Benchmark results" lines, which the
    reader does not read: ``Max Ping Pong Latency`` (ms) and ``Min Ping Pong Bandwidth``
    (MB/s, the 2,000,000 B message)."""
    import re

    for path in sorted((ROOT / "data" / "pairs-hpcc").glob("*/*_hpccoutf.txt")):
        text = path.read_text()
        lat = float(re.search(r"^Max Ping Pong Latency:\s+(\S+) msecs", text, re.M)[1])
        bw = float(re.search(r"^Min Ping Pong Bandwidth:\s+(\S+) MB/s", text, re.M)[1])
        (pp,) = [t for t in read(path) if t.pattern == "pingpong"]
        assert list(pp.size) == [8.0, 2_000_000.0], path
        assert pp.time[0] == pytest.approx(lat * 1e-3, rel=1e-6), path
        assert pp.time[1] == pytest.approx(2e6 / (bw * 1e6), rel=1e-5), path
        assert np.all(np.diff(pp.time) > 0), path


def _copy(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _run_of(processes: int, latency_us: float) -> str:
    """The ARCHER run with its process count and 8-byte latency changed: another run of HPCC,
    as HPCC appends it to the same file."""
    text = ARCHER.read_text()
    text = text.replace("on 2 processes", f"on {processes} processes")
    text = text.replace("CommWorldProcs=2\n", f"CommWorldProcs={processes}\n")
    return text.replace("Latency   min / avg / max:   0.001431 /   0.001468 /   0.001505 msecs",
                        f"Latency   min / avg / max:   0.001431 /   0.001468 /   "
                        f"{latency_us / 1000:.6f} msecs")


def test_appended_runs_are_each_their_own_and_only_two_process_runs_give_a_ping_pong(
        tmp_path: Path) -> None:
    """HPCC appends each run to hpccoutf.txt: a run of 2 processes, one of 24 and another of 2
    in one file give two ping-pong tables, each of its own run's lines, and the 24-process
    run's is said not read (its slowest pair is no network's law).  Before, the first run's
    ping-pong was taken with the last run's process count."""
    one = ARCHER.read_text()
    lines = one.count("\n")
    path = _copy(tmp_path, "hpccoutf.txt", one + _run_of(24, 9.9) + _run_of(2, 3.25))
    tables = read(path)
    pingpongs = [t for t in tables if t.pattern == "pingpong"]
    assert [round(t.time[0] * 1e6, 3) for t in pingpongs] == [1.505, 3.25]
    assert [t.line[0] for t in pingpongs] == [345, 345 + 2 * lines]
    assert len(next(t for t in tables if t.benchmark == "HPL")) == 3
    notes = " ".join(pingpongs[0].notes)
    assert f"run at line {lines + 2} not read: 24 processes" in notes


def test_a_one_process_run_gives_its_hpl_and_says_b_eff_measured_no_pair(
        tmp_path: Path) -> None:
    """A run of one process prints -1 for every ping-pong figure: its HPL run is read, and the
    note says why there is no ping-pong (it had been refused as damaged)."""
    text = ARCHER.read_text().replace("CommWorldProcs=2\n", "CommWorldProcs=1\n")
    text = text.replace("on 2 processes", "on 1 processes")
    text = text.replace("MaxPingPongLatency_usec=1.50502", "MaxPingPongLatency_usec=-1")
    hpl, triad = read(_copy(tmp_path, "one.txt", text))
    assert hpl.benchmark == "HPL" and hpl.format == "hpcc" and triad.benchmark == "Triad"
    assert any("1 processes: b_eff measured no pair" in n for n in hpl.notes)


def test_an_hpcc_output_after_a_long_prologue_is_still_hpccs(tmp_path: Path) -> None:
    text = "".join(f"module load thing/{i}\n" for i in range(2000)) + ARCHER.read_text()
    tables = read(_copy(tmp_path, "job.out", text))
    assert {t.format for t in tables} == {"hpcc"}
    assert [t.pattern for t in tables] == ["application", "pingpong", "memory"]


@pytest.mark.parametrize(("old", "new", "line"), [
    ("Bandwidth min / avg / max:   8196.002 /", "Bandwidth min / avg / max:   -8196.002 /", 346),
    ("Bandwidth min / avg / max:   8196.002 /", "Bandwidth min / avg / max:   0 /", 346),
])
def test_a_damaged_bandwidth_is_refused_at_its_own_line(old: str, new: str, line: int) -> None:
    lines = ARCHER.read_text().splitlines(keepends=True)
    assert lines[line - 1].startswith(old)
    lines[line - 1] = lines[line - 1].replace(old, new)
    with pytest.raises(InputError) as got:
        parse("damaged.txt", "".join(lines))
    assert got.value.line == line


def test_a_garbled_summary_figure_the_reader_does_not_need_is_passed_over() -> None:
    text = ARCHER.read_text().replace("CommWorldProcs=2\n", "CommWorldProcs=2x\n")
    _, pingpong, _ = parse("garbled.txt", text)
    assert pingpong.time[0] == pytest.approx(1.505e-6, rel=1e-9)


def test_an_output_cut_inside_b_eff_says_so_at_its_last_line() -> None:
    """Cut before STREAM: nothing to read, refused at the last line; cut inside b_eff, after
    STREAM: the Triad, and a note that the run ends before b_eff's results."""
    lines = ARCHER.read_text().splitlines(keepends=True)
    with pytest.raises(InputError) as got:   # after HPL's legend, before STREAM and b_eff
        parse("cut.txt", "".join(lines[:170]))
    assert got.value.line == 171 and "HPC Challenge output with no HPL" in got.value.what
    (triad,) = parse("cut.txt", "".join(lines[:300]))
    assert triad.benchmark == "Triad"
    assert any("ends before b_eff's results" in n for n in triad.notes)


@pytest.mark.parametrize(("old", "new", "line", "what"), [
    ("Single STREAM Triad GB/s 12.764113", "Single STREAM Triad GB/s 12.7x4113", 228,
     "is not a bandwidth one process streams"),
    ("Single STREAM Triad GB/s 12.764113", "Single STREAM Triad GB/s 1e300", 228,
     "is not a bandwidth one process streams"),
    ("Single STREAM Triad GB/s 12.764113", "Single STREAM Triad GB/s 1e6", 228,
     "is not a bandwidth one process streams"),
    ("Single STREAM Triad GB/s 12.764113", "Single STREAM Triad GB/s 99.0", 228,
     "the summary's SingleSTREAM_Triad (line 537) 12.7641"),
    ("STREAM_VectorSize=2065066", "STREAM_VectorSize=0", 528, "is not a whole number of"),
    ("STREAM_VectorSize=2065066", "STREAM_VectorSize=2.5", 528, "is not a whole number of"),
    ("STREAM_Threads=1\n", "STREAM_Threads=1e12\n", 529, "threads is not a whole number"),
])
def test_damaged_stream_figures_are_refused_at_their_line(old: str, new: str, line: int,
                                                          what: str) -> None:
    text = ARCHER.read_text()
    assert text.splitlines()[line - 1].startswith(old.strip().split("=")[0].split(" GB/s")[0])
    with pytest.raises(InputError) as got:
        parse("damaged.txt", text.replace(old, new))
    assert got.value.line == line and what in got.value.what


@pytest.mark.parametrize(("old", "new", "said"), [
    ("Single STREAM Triad GB/s 12.764113", "Single STREAM Triad GB/s 0.000000",
     "its rate is 0 (line 228"),
    ("Node(s) with error 0\nNode selected 1", "Node(s) with error 1\nNode selected 1",
     "1 node(s) failed STREAM's validation (line 223)"),
])
def test_a_stream_triad_not_measured_is_left_out_and_said(old: str, new: str,
                                                          said: str) -> None:
    text = ARCHER.read_text()
    assert old in text
    if "0.000000" in new:   # the summary agrees with the line, as HPCC prints it
        text = text.replace("SingleSTREAM_Triad=12.7641", "SingleSTREAM_Triad=0")
    tables = parse("left.txt", text.replace(old, new))
    assert [t.pattern for t in tables] == ["application", "pingpong"]
    assert any(f"SingleSTREAM's Triad of the run at line 2 not read: {said}" in n
               for n in tables[1].notes)


def test_a_run_without_its_arrays_size_is_left_out_and_said() -> None:
    text = ARCHER.read_text().replace("STREAM_VectorSize=2065066\n", "")
    text = text.replace("Array size = 2065066, Offset = 0", "Array of some size")
    tables = parse("nosize.txt", text)
    assert "memory" not in [t.pattern for t in tables]
    assert any("does not print its arrays' size (line 228)" in n for n in tables[1].notes)


def test_the_node_takes_the_triad_of_the_largest_arrays_not_the_fastest(
        tmp_path: Path) -> None:
    """Two outputs: ARCHER's 2,065,066 doubles an array at 12.76 GB/s, and the same run with
    arrays of 83,333 (2 MB a pass, the caches) at 30.39 GB/s: the node's memory bandwidth is
    the large arrays' rate, and the notes say the small run was left out and that 47 MiB a
    pass may still sit partly in the caches."""
    small = ARCHER.read_text().replace("STREAM_VectorSize=2065066", "STREAM_VectorSize=83333")
    small = small.replace("Single STREAM Triad GB/s 12.764113", "Single STREAM Triad GB/s 30.39")
    small = small.replace("SingleSTREAM_Triad=12.7641", "SingleSTREAM_Triad=30.39")
    path = _copy(tmp_path, "small_hpccoutf.txt", small)
    got = invoke_in(tmp_path, ["calibrate", str(ARCHER), str(path), "--no-write", "--json"])
    assert got.exit_code == 0, got.output
    doc = json.loads(got.output)
    node = {p["name"]: p for p in doc["node"]}
    assert node["memory_bandwidth"]["value"] == pytest.approx(12.764113e9, rel=1e-9)
    assert any("1 STREAM Triad run(s) of smaller arrays left out" in n for n in doc["notes"])
    assert any("moved 47.3 MiB a pass" in n for n in doc["notes"])
