"""HPC Challenge outputs (``hpccoutf.txt``) as printed: real public files of
hpc-uk/archer-benchmarks (``data/pairs-hpcc``, provenance beside each), their HPL run and b_eff's
ping-pong read back; crafted damage refused by its line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from perfmodel.errors import InputError
from perfmodel.readers import parse, read, sniff
from tests.conftest import ROOT, invoke_in

ARCHER = ROOT / "data" / "pairs-hpcc" / "archer" / "archer_nodes2ppn1_hpccoutf.txt"


def test_an_hpcc_output_is_its_hpl_run_and_its_ping_pong() -> None:
    """The ARCHER run: HPL's one run (N = 3520 on 1 × 2 processes, 0.66 s as printed, its
    time from its 44.16 Gflops), and b_eff's detailed results, line 344 on: the largest latency
    at 8 B (0.001505 ms) and the 2,000,000 B message at the smallest bandwidth (8196.002 MB/s)."""
    hpl, pingpong = read(ARCHER)
    assert (hpl.format, hpl.benchmark, hpl.pattern) == ("hpl", "HPL", "application")
    assert len(hpl) == 1 and tuple(hpl.counts("processes")) == (2,)
    assert (pingpong.format, pingpong.version, pingpong.pattern) == ("hpcc", "1.5.0", "pingpong")
    assert list(pingpong.size) == [8.0, 2_000_000.0]
    assert pingpong.time[0] == pytest.approx(1.505e-6, rel=1e-9)
    assert pingpong.time[1] == pytest.approx(2e6 / 8196.002e6, rel=1e-6)
    assert list(pingpong.line) == [345, 346]
    assert tuple(pingpong.counts("processes")) == (2,)
    assert any("two points fix a two-parameter law" in n for n in pingpong.notes)
    assert any("STREAM, PTRANS, RandomAccess" in n for n in pingpong.notes)


def test_hpcc_is_its_own_reader_not_hpls() -> None:
    """HPL's banner and legend are inside every HPCC output: the file is HPCC's alone, not
    'the output of 2 tools'."""
    reader = sniff(ARCHER.read_text())
    assert reader is not None and reader.NAME == "hpcc"


def test_without_the_detailed_results_the_summary_gives_the_same_two_points() -> None:
    text = ARCHER.read_text()
    cut = text.replace("Ping Pong:\n", "Ping Pong (cut):\n")
    _, pingpong = parse("cut.txt", cut)
    assert pingpong.time[0] == pytest.approx(1.50502e-6, rel=1e-9)   # MaxPingPongLatency_usec
    assert pingpong.time[1] == pytest.approx(2e6 / 8.196e9, rel=1e-9)
    assert list(pingpong.line) == [545, 547]


def test_a_damaged_latency_is_refused_at_its_line() -> None:
    lines = ARCHER.read_text().splitlines(keepends=True)
    assert lines[344].startswith("Latency   min / avg / max:")
    lines[344] = lines[344].replace("0.001505 msecs", "0.0x1505 msecs")
    with pytest.raises(InputError) as got:
        parse("damaged.txt", "".join(lines))
    assert got.value.line == 345 and "not a number" in got.value.what


def test_an_output_cut_before_hpl_and_b_eff_is_refused() -> None:
    head = "".join(ARCHER.read_text().splitlines(keepends=True)[:15])
    with pytest.raises(InputError, match="neither HPL results nor b_eff"):
        parse("head.txt", head)


def test_two_points_calibrate_hockneys_law_and_nothing_more(tmp_path: Path) -> None:
    """Hockney through the two points: α = t(8) − 8/β, β = (2e6 − 8) / (t(2e6) − t(8)); the
    default choice among laws needs three sizes and says how to go on."""
    got = invoke_in(tmp_path, ["calibrate", str(ARCHER), "--model", "hockney", "--no-write",
                               "--json"])
    assert got.exit_code == 0, got.output
    params = {p["name"]: p["value"] for p in json.loads(got.output)["parameters"]}
    t8, t2m = 1.505e-6, 2e6 / 8196.002e6
    beta = (2e6 - 8) / (t2m - t8)
    assert params["beta"] == pytest.approx(beta, rel=1e-4)
    assert params["alpha"] == pytest.approx(t8 - 8 / beta, rel=1e-4)
    auto = invoke_in(tmp_path, ["calibrate", str(ARCHER), "--no-write"])
    assert auto.exit_code == 2 and "at least 3 distinct sizes" in auto.output
    assert "Traceback" not in auto.output


def test_every_copied_output_reads() -> None:
    for path in sorted((ROOT / "data" / "pairs-hpcc").glob("*/*_hpccoutf.txt")):
        tables = {t.pattern: t for t in read(path)}
        pp = tables["pingpong"]
        assert len(pp) == 2 and np.all(np.diff(pp.time) > 0), path
