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
from perfmodel.machine.at_scale import CollectiveRun, Found, collected, common, ratios
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


@pytest.mark.parametrize("name, nodes", [
    ("osu-256n-1322-iter-5.out", 256), ("run_16nodes.txt", 16), ("mbw_mr_8n.out", 8),
    ("a_16-nodes.txt", 16), ("run-2n-64p.out", 2),
    ("run-2n-4n.out", None),                 # two counts that differ
    ("osu_bcast_size1024.out", None),        # a message size
    ("allreduce-64-n4.out", None),           # a task count
    ("osu_allreduce_np64.out", None), ("2021-10-12.out", None),
    ("rfm_Osu_allreduce_job.out", None),
])
def test_a_file_name_says_one_node_count_or_none(name: str, nodes: int | None) -> None:
    assert nodes_in_name(name) == nodes


def test_nodes_in_name_and_nodes_per_job_are_not_both_given() -> None:
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


@pytest.mark.parametrize("edit, into, key", [
    ('sizes = [4.0, 8.0', 'sizes = [8.0, 4.0', "sizes"),        # not rising
    ('nodes = 8', 'nodes = 0', "nodes"),
    ('nodes = 8', 'nodes = 8.5', "nodes"),
    ('op = "allreduce"', 'op = "all reduce; rm"', "op"),
    ('op = "allreduce"', 'op = "Allreduce"', "op"),
    ('tables = 3', 'tables = 3\nextra = 1', "extra"),
    ('tables = 3', 'tables = 0', "tables"),
    ('tables = 3\n', '', "tables"),
    ('sizes = [4.0', 'sizes = [1' + '0' * 400, "sizes"),
    ('times = [', 'times = [inf, ', "times"),
    ('tables = 3', 'tables = 3\nprocesses = 4', "processes"),   # fewer than its 8 nodes
])
def test_a_broken_collective_in_a_profile_is_one_clear_error(tmp_path: Path, edit: str,
                                                              into: str, key: str) -> None:
    prof = calibrate([_folder(tmp_path)], layout=Layout(names=True)).profile
    text = dumps(prof)
    assert edit in text
    f = tmp_path / "p.toml"
    f.write_text(text.replace(edit, into, 1))
    with pytest.raises(InputError, match=rf"collectives\[0\]\.{key}"):
        load(f)


def test_a_collective_twice_in_a_profile_is_refused(tmp_path: Path) -> None:
    prof = calibrate([_folder(tmp_path)], layout=Layout(names=True)).profile
    twice = dataclasses.replace(prof, collectives=(prof.collectives[0],) * 2)
    f = tmp_path / "p.toml"
    f.write_text(dumps(twice))
    with pytest.raises(InputError, match=r"collectives\[1\]: is a second allreduce on 8 nodes"):
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
    assert any("what decides it: how the overhead moves at scale" in s for s in wide.notes)


def test_collectives_at_other_counts_or_of_other_operations_are_not_compared() -> None:
    base = Machine(load(EDR))
    a = _with(base, 1.0, nodes=16)
    b = _with(base, 3.0, nodes=8)
    assert common(a.profile.collectives, b.profile.collectives) == {}
    other = dataclasses.replace(b.profile.collectives[0], op="alltoall", nodes=16)
    assert common(a.profile.collectives, (other,)) == {}
    same = common(a.profile.collectives, a.profile.collectives)
    assert list(same) == [16] and ratios(same[16], 1e9, 1e10) == []   # no size both measured


def test_runs_of_other_ranks_a_node_than_the_code_are_not_compared() -> None:
    base = Machine(load(EDR))
    run = _with(base, 1.0).profile.collectives[0]
    a = (dataclasses.replace(run, processes=8), dataclasses.replace(run, processes=256))
    b = (dataclasses.replace(run, processes=256, times=tuple(3 * t for t in run.times)),)
    # the code ran 32 ranks a node: only the 256-process runs (8 × 32) are its to compare
    (pair,) = common(a, b, lambda nodes: 32 * nodes)[8]
    assert pair[0].processes == pair[1].processes == 256
    assert common(a[:1], b) == {}   # 8 ranks against 256: never paired


def test_ratios_are_read_at_every_size_either_measured_inside_the_window() -> None:
    run = _with(Machine(load(EDR)), 1.0).profile.collectives[0]
    spiky = dataclasses.replace(run, times=tuple(t * (5.0 if s == 1024 else 1.0)
                                                 for s, t in zip(run.sizes, run.times,
                                                                 strict=True)))
    ((_, _, r, sizes),) = ratios([(run, spiky)], 8, 65536)
    assert list(sizes) == [8, 16, 64, 1024, 65536]
    assert r.max() == pytest.approx(5.0) and r.min() == pytest.approx(1.0)


def test_collected_medians_sizes_the_tables_share_and_keeps_the_rest() -> None:
    s1, s2 = np.array([8.0, 16.0, 32.0]), np.array([8.0, 16.0])
    (run,), notes = collected([Found("allreduce", 4, 16, s1, np.array([1.0, 2.0, 3.0]), "x"),
                               Found("allreduce", 4, 16, s2, np.array([3.0, 4.0]), "y")])
    assert run.sizes == (8.0, 16.0, 32.0)
    assert run.times == pytest.approx((2.0, 3.0, 3.0))
    assert run.processes == 16 and run.tables == 2 and notes == []
    assert np.isnan(run.time(np.array([4.0, 64.0]))).all()


def test_runs_of_other_processes_stay_apart_and_caps_are_said() -> None:
    s = np.array([8.0, 16.0])
    runs, _ = collected([Found("allreduce", 8, 8, s, s, "x"),
                         Found("allreduce", 8, 512, s, s, "y")])
    assert [r.processes for r in runs] == [8, 512]
    many = [Found("allreduce", n, None, s, s, "x") for n in range(1, 300)]
    runs, notes = collected(many)
    assert len(runs) == 256 and "299 runs" in notes[0] and "first 256" in notes[0]


def test_imb_collectives_are_kept_under_their_lower_case_name(tmp_path: Path) -> None:
    imb = (ROOT / "tests" / "fixtures" / "benchmarks" / "imb_mpi1.txt").read_text()
    assert "Benchmarking Allreduce" in imb
    f = tmp_path / "imb_mpi1.txt"
    f.write_text(imb)
    prof = calibrate([f], layout=Layout(ranks_per_node=1)).profile
    assert prof.collectives and all(c.op == c.op.lower() for c in prof.collectives)
    out = tmp_path / "p.toml"
    out.write_text(dumps(prof))
    assert load(out).collectives == prof.collectives   # what calibrate writes loads


def test_a_collective_of_fewer_processes_than_nodes_is_not_kept(tmp_path: Path) -> None:
    imb = (ROOT / "tests" / "fixtures" / "benchmarks" / "imb_mpi1.txt").read_text()
    f = tmp_path / "imb_mpi1.txt"
    f.write_text(imb)
    result = calibrate([f], layout=Layout(nodes=64))
    assert not result.profile.collectives
    said = [c.said for c in result.contributions if "Allreduce" in c.table]
    assert said and all("cannot span 64 nodes" in s for s in said)


@pytest.mark.parametrize("tasks, want", [
    ('[{"count": {"per_slot": 2}}]', (4, 64, 16)),
    ('[{"count": {"total": 5}}]', (4, 5, None)),
    ('[{"count": {"total": 2}}]', None),
    ('[{"count": 3}]', None),
])
def test_a_jobspec_s_task_count_sets_the_processes(tasks: str, want: object) -> None:
    from perfmodel.readers.osu import jobspec

    line = ('{"resources": [{"type": "node", "count": 4, "with": [{"type": "slot", "count": 8}]}],'
            f' "tasks": {tasks}}}')
    assert jobspec(line) == want
