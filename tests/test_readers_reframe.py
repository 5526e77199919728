"""ReFrame 3.x performance logs (issue 31: a site's ReFrame tree holds its HPL results only as
perflog lines): HPL's Gflops give the node's flop rate, application times are read as runs,
other figures are left out and said, and a broken or figure-only perflog is refused in one
line.  Real samples: alaska's perflogs (tests/fixtures/benchmarks/PROVENANCE.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfmodel.errors import InputError
from perfmodel.readers import parse, read, sniff
from tests.conftest import ROOT, invoke_in

FIX = ROOT / "tests" / "fixtures" / "benchmarks"
HPL = FIX / "reframe_hpl_single_alaska_ib.log"
GROMACS = FIX / "reframe_gromacs_1400k_16_alaska_ib.log"
LINE = ("2020-09-08T17:53:41+01:00|reframe 3.0-dev6 (rev: 3f0c45d4)|Osu_bw on "
        "alaska:ib-gcc9-openmpi4-ucx using openmpi|jobid=5219|{name}={value}|{unit}|"
        "ref=0 (l=None, u=None)|{tags}\n")


def _line(name: str = "max_bandwidth", value: str = "12171.87", unit: str = "MB/s",
          tags: str = "num_procs=2,num_nodes=2") -> str:
    return LINE.format(name=name, value=value, unit=unit, tags=tags)


def test_hpl_gflops_are_the_node_flop_rate(tmp_path: Path) -> None:
    (t,) = read(HPL)
    assert t.benchmark == "HPL" and t.counts("processes") == (32,)
    assert list(t.extra["flop_rate"]) == pytest.approx([503.64e9, 835.24e9, 832.95e9])
    lat = ROOT / "data" / "alaska" / "ib-gcc9-openmpi4-ucx" / "omb" / "Osu_latency"
    got = invoke_in(tmp_path, ["calibrate", str(lat), str(HPL), "--no-write", "--json"])
    assert got.exit_code == 0, got.output
    node = {p["name"]: p for p in json.loads(got.output)["node"]}
    assert node["flop_rate"]["value"] == pytest.approx(835.24e9 / 32, rel=1e-9)
    assert node["flop_rate"]["status"] == "derived"
    assert "reframe_hpl_single_alaska_ib.log, line 2" in node["flop_rate"]["source"]


def test_application_times_are_runs_and_rates_are_said() -> None:
    tables = read(GROMACS)
    assert [t.benchmark for t in tables] == ["Gromacs_1400k_16 core_t",
                                             "Gromacs_1400k_16 wall_t",
                                             "Gromacs_1400k_16 runtime_real"]
    wall = tables[1]
    assert list(wall.time) == pytest.approx([160.998, 228.385, 242.227, 226.198], rel=1e-9)
    assert list(wall.extra["nodes"]) == [16.0] * 4
    assert any("ns_per_day (ns/day)" in n for n in wall.notes)


def test_a_time_in_minutes_is_seconds() -> None:
    (t,) = parse("x.log", _line("runtime", "2.5", "min"))
    assert t.time[0] == pytest.approx(150.0)


@pytest.mark.parametrize(("text", "line", "fragment"), [
    (_line(), 1, "a ReFrame perflog of max_bandwidth (MB/s): no run time and no HPL Gflops"),
    (_line("wall_t", "12", "s") + "2020-09-08T17:53:41+01:00|reframe 3.0|cut here\n", 2,
     "is not a ReFrame perflog line"),
    (_line("wall_t", "12", "s", "num_procs=two"), 1, "num_procs is 'two', not a count"),
    (_line("wall_t", "-3", "s"), 1, "wall_t = -3 s is not a measurement"),
])
def test_bad_perflogs_are_refused_in_one_line(tmp_path: Path, text: str, line: int,
                                               fragment: str) -> None:
    with pytest.raises(InputError) as err:
        parse("bad.log", text)
    assert err.value.line == line and fragment in err.value.what
    path = tmp_path / "bad.log"
    path.write_text(text)
    got = invoke_in(tmp_path, ["inspect", str(path)])
    assert got.exit_code == 2
    assert len(got.output.strip().splitlines()) == 1 and fragment in got.output


def test_a_figure_reframe_could_not_extract_is_left_out_and_said() -> None:
    (t,) = parse("x.log", _line("wall_t", "12", "s") + _line("wall_t", "None", "s"))
    assert len(t) == 1 and any("could not extract" in n for n in t.notes)


def test_only_perflogs_are_claimed() -> None:
    assert sniff(HPL.read_text()).NAME == "reframe"
    for path in sorted(FIX.glob("*.txt")) + sorted((FIX / "public").glob("*.txt")):
        found = sniff(path.read_text(errors="replace"))
        assert found is None or found.NAME != "reframe", path
