"""Collectives timed at a node count (:mod:`perfmodel.machine.at_scale`): read from OSU outputs
whose job record or file name says the nodes, kept in the profile, and widening the range of
``predict --on`` where two machines' collectives at a count differ beyond their ping-pong."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from perfmodel.apps.transfer import move, runs
from perfmodel.calibrate import calibrate
from perfmodel.errors import InputError
from perfmodel.layout import Layout, nodes_in_name
from perfmodel.machine import Machine
from perfmodel.machine.at_scale import CollectiveRun, collected, common, ratios
from perfmodel.machine.profile import dumps, load
from perfmodel.readers import read

ROOT = Path(__file__).resolve().parent.parent
EDR = ROOT / "calibration" / "alaska-edr.toml"
SIZES = [4, 8, 16, 64, 1024, 65536]
PINGPONG = "# OSU MPI Latency Test v5.8\n# Size       Latency (us)\n" + "".join(
    f"{s:<10d}{2.0 + s / 1e4:12.2f}\n" for s in [0, 1, 2, 4, 8, 16, 64, 256, 1024, 4096, 65536])
JOBSPEC = ('START OF JOBSPEC\n{"resources": [{"type": "node", "count": %d, "with": [{"type": '
           '"slot", "count": %d, "with": [{"type": "core", "count": 1}], "label": "task"}]}], '
           '"tasks": [], "attributes": {}, "version": 1}\n')


def allreduce(scale: float, job: tuple[int, int] | None = None) -> str:
    """An osu_allreduce output whose times are ``scale`` × (10 µs + size / 1 GB/s)."""
    rows = "".join(f"{s:<10d}{scale * (10 + s / 1e3):12.2f}\n" for s in SIZES)
    return ("\n# OSU MPI Allreduce Latency Test v5.8\n# Size       Avg Latency(us)\n" + rows
            + (JOBSPEC % job if job else ""))


def test_a_flux_jobspec_after_a_collective_gives_its_nodes_and_ranks(tmp_path: Path) -> None:
    f = tmp_path / "allreduce.out"
    f.write_text(allreduce(1.0, (256, 96)))
    (t,) = read(f)
    assert list(t.counts("processes")) == [256 * 96]
    assert t.attrs["nodes"] == "256" and t.attrs["ranks per node"] == "96"
    assert len(t) == len(SIZES)


@pytest.mark.parametrize("line", [
    '{"resources": [{"type": "node", "count": 0, "with": [{"type": "slot", "count": 4}]}]}',
    '{"resources": [{"type": "node", "count": "8", "with": [{"type": "slot", "count": 4}]}]}',
    '{"resources": [{"type": "slot", "count": 8}]}',
    '{"resources": [}',
    '{"resources": ' + "[" * 5000 + "]" * 5000 + "}",
])
def test_a_jobspec_that_says_no_count_leaves_the_count_unknown(tmp_path: Path, line: str) -> None:
    f = tmp_path / "allreduce.out"
    f.write_text(allreduce(1.0) + "START OF JOBSPEC\n" + line + "\n")
    (t,) = read(f)
    assert not t.counts("processes")
    assert "nodes" not in t.attrs


def test_a_file_name_says_one_node_count_or_none() -> None:
    assert nodes_in_name("osu-256n-1322-iter-5.out") == 256
    assert nodes_in_name("run_size64.txt") == 64
    assert nodes_in_name("bw-2n-size32.out") is None   # two counts that differ
    assert nodes_in_name("rfm_Osu_allreduce_job.out") is None
    with pytest.raises(InputError, match="--nodes-in-name"):
        Layout(nodes=2, names=True)


def _folder(tmp_path: Path) -> Path:
    d = tmp_path / "osu"
    d.mkdir()
    (d / "latency-2n.out").write_text(PINGPONG)
    (d / "allreduce-8n-a.out").write_text(allreduce(1.0))
    (d / "allreduce-8n-b.out").write_text(allreduce(3.0))
    (d / "allreduce-8n-c.out").write_text(allreduce(2.0))
    (d / "allreduce-32n.out").write_text(allreduce(5.0, (32, 4)))
    return d


def test_calibrate_keeps_each_count_s_median_and_says_where_the_count_came_from(
        tmp_path: Path) -> None:
    got = calibrate([_folder(tmp_path)], layout=Layout(names=True)).profile.collectives
    assert [(c.op, c.nodes, c.processes, c.tables) for c in got] == [
        ("allreduce", 8, None, 3), ("allreduce", 32, 128, 1)]
    eight, many = got
    # the median of 1×, 3× and 2× the same table is 2× it, at every size
    want = np.round(2.0 * (10 + np.array(SIZES) / 1e3), 2) * 1e-6   # as printed
    assert np.asarray(eight.times) == pytest.approx(want, rel=1e-9)
    assert "file's name" in eight.source and "job's own record" in many.source


def test_without_the_count_a_collective_informs_nothing_and_says_why(tmp_path: Path) -> None:
    result = calibrate([_folder(tmp_path)])
    assert [c.nodes for c in result.profile.collectives] == [32]   # its jobspec says it
    unused = [c for c in result.contributions if c.path.endswith("-8n-a.out")]
    assert unused[0].role == "unused" and "--nodes-in-name" in unused[0].said


def test_a_profile_keeps_its_collectives_through_a_round_trip(tmp_path: Path) -> None:
    prof = calibrate([_folder(tmp_path)], layout=Layout(names=True)).profile
    f = tmp_path / "p.toml"
    f.write_text(dumps(prof))
    assert load(f).collectives == prof.collectives


@pytest.mark.parametrize("edit, key", [
    ('sizes = [4.0, 8.0', 'sizes = [8.0, 4.0'),        # not rising
    ('nodes = 8', 'nodes = 0'),
    ('nodes = 8', 'nodes = 8.5'),
    ('op = "allreduce"', 'op = "all reduce; rm"'),
    ('tables = 3', 'tables = 3\nextra = 1'),
    ('sizes = [4.0', 'sizes = [1' + '0' * 400),
])
def test_a_broken_collective_in_a_profile_is_one_clear_error(tmp_path: Path, edit: str,
                                                              key: str) -> None:
    prof = calibrate([_folder(tmp_path)], layout=Layout(names=True)).profile
    text = dumps(prof)
    assert edit in text
    f = tmp_path / "p.toml"
    f.write_text(text.replace(edit, key, 1))
    with pytest.raises(InputError, match=r"collectives\[0\]"):
        load(f)


def _with(m: Machine, scale: float, nodes: int = 8) -> Machine:
    """``m`` holding an allreduce on ``nodes`` nodes, ``scale`` × a fixed table."""
    s = np.array(SIZES, dtype=float)
    run = CollectiveRun("allreduce", nodes, None, tuple(s.tolist()),
                        tuple((scale * (10 + s / 1e3) * 1e-6).tolist()), 1, "test")
    return Machine(dataclasses.replace(m.profile, collectives=(run,)))


def test_collectives_that_differ_at_a_count_widen_the_range_there_only() -> None:
    base = Machine(load(EDR))
    a, b = _with(base, 1.0), _with(base, 3.0)
    n = np.array([1.0, 2, 4, 8])
    t = np.array([100.0, 60.0, 40.0, 30.0])
    plain, wide = move(runs(n, 32 * n, t), base, base), move(runs(n, 32 * n, t), a, b)
    assert wide.time == pytest.approx(plain.time, rel=1e-12)   # the point does not move
    assert wide.time_lo[:3] == pytest.approx(plain.time_lo[:3], rel=1e-12)
    assert wide.time_hi[:3] == pytest.approx(plain.time_hi[:3], rel=1e-12)
    # at 8 nodes the overhead (30 − 100/8 s) may take 3× as long: B's allreduce over A's
    widen = plain.time_hi[3] / plain.time[3]
    assert wide.time_hi[3] == pytest.approx((12.5 + 17.5 * 3.0) * widen, rel=1e-9)
    assert wide.overhead_span is not None and wide.overhead_span[3] == pytest.approx([1.0, 3.0])
    assert any("allreduce on 8 nodes takes ×3–3 A's" in s for s in wide.notes)
    assert any("how the overhead moves at scale" in s for s in wide.notes)


def test_collectives_at_other_counts_or_of_other_operations_are_not_compared() -> None:
    base = Machine(load(EDR))
    a = _with(base, 1.0, nodes=16)
    b = _with(base, 3.0, nodes=8)
    assert common(a.profile.collectives, b.profile.collectives) == {}
    other = dataclasses.replace(b.profile.collectives[0], op="alltoall", nodes=16)
    assert common(a.profile.collectives, (other,)) == {}
    same = common(a.profile.collectives, a.profile.collectives)
    assert list(same) == [16] and ratios(same[16], [1e9]) == []   # no size both measured


def test_collected_medians_sizes_the_tables_share_and_keeps_the_rest() -> None:
    s1, s2 = np.array([8.0, 16.0, 32.0]), np.array([8.0, 16.0])
    (run,) = collected([("allreduce", 4, 16, s1, np.array([1.0, 2.0, 3.0]), "x"),
                        ("allreduce", 4, 16, s2, np.array([3.0, 4.0]), "y")])
    assert run.sizes == (8.0, 16.0, 32.0)
    assert run.times == pytest.approx((2.0, 3.0, 3.0))
    assert run.processes == 16 and run.tables == 2
    assert np.isnan(run.time(np.array([4.0, 64.0]))).all()


def test_a_report_lists_the_collectives_a_profile_keeps(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from perfmodel.cli.app import app

    prof = calibrate([_folder(tmp_path)], layout=Layout(names=True)).profile
    f = tmp_path / "p.toml"
    f.write_text(dumps(prof))
    out = tmp_path / "r.md"
    res = CliRunner().invoke(app, ["report", str(f), "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "**Collectives timed at scale**" in text
    assert "| allreduce | 8 | — | 4 B: 20 µs |" in text
    assert "| allreduce | 32 | 128 |" in text
