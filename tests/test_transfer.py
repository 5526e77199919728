"""The same code on another machine (``predict --fit T --machine A --on B`` without a model,
:mod:`perfmodel.apps.transfer`): known answers on synthetic timings costed by the alaska
profiles, and the command on alaska's real perflogs (data/alaska-apps, Apache-2.0)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfmodel.apps.transfer import ELSEWHERE, NODE_SPREAD, SCATTER, move, read_runs, runs
from perfmodel.cli.app import app
from perfmodel.errors import InputError
from perfmodel.machine import Machine
from perfmodel.machine.profile import load

ROOT = Path(__file__).resolve().parent.parent
EDR = ROOT / "calibration" / "alaska-edr.toml"
ROCE = ROOT / "calibration" / "alaska-roce.toml"
APPS = ROOT / "data" / "alaska-apps"


@pytest.fixture(scope="module")
def machines() -> tuple[Machine, Machine]:
    return Machine(load(EDR)), Machine(load(ROCE))


def _synthetic(m: Machine, nodes: np.ndarray, work: float, calls: float) -> np.ndarray:
    """A code whose overhead is ``calls`` small messages a log2 of the nodes on ``m``."""
    return work / nodes + calls * float(m.message(8.0)) * np.log2(nodes)


def test_a_latency_bound_overhead_moves_to_its_known_time(machines) -> None:
    a, b = machines
    n = np.array([1.0, 2, 4, 8, 16])
    on_a, on_b = _synthetic(a, n, 100.0, 2e6), _synthetic(b, n, 100.0, 2e6)
    got = move(runs(n, 32 * n, on_a), a, b)
    assert got.time == pytest.approx(on_b, rel=1e-9)
    assert got.ratio == pytest.approx(float(b.message(8.0) / a.message(8.0)), rel=1e-12)
    assert np.all((got.time_lo <= on_b) & (on_b <= got.time_hi))
    assert got.overhead_a[0] == 0 and got.time[0] == pytest.approx(on_a[0], rel=1e-12)


def test_the_same_machine_leaves_every_time_as_measured(machines) -> None:
    a, _ = machines
    n = np.array([1.0, 2, 4])
    t = np.array([10.0, 6.0, 4.0])
    got = move(runs(n, 16 * n, t), a, a)
    assert got.time == pytest.approx(t, rel=1e-12)
    assert np.all(got.time_lo < t) and np.all(t < got.time_hi)
    # the same machine (its link speed changed, say): only the scatter widens the range
    assert got.time_lo == pytest.approx(t / math.exp(1.959964 * SCATTER), rel=1e-5)
    assert not any("what else differs" in s for s in got.notes)


def test_the_range_brackets_the_network_share_and_is_never_far_below_the_point(machines) -> None:
    a, b = machines
    n = np.array([1.0, 2, 4, 8])
    t = np.array([100.0, 60.0, 40.0, 35.0])
    got = move(runs(n, 32 * n, t), a, b)
    # two machines: the scatter (assumed, no count run twice) and what else differs between
    # them (taken from real pairs, and said so), in quadrature
    widen = math.exp(1.959964 * math.hypot(SCATTER, ELSEWHERE))
    # none of the overhead is the network: A's own time, less the scatter
    assert got.time_lo == pytest.approx(t / widen, rel=1e-5)
    assert any("what else differs between the two machines" in s and "real pairs" in s
               for s in got.notes)
    assert np.all(got.time_hi > got.time) and np.all(got.time_lo >= got.time / 10)
    assert got.ratio_span[0] == 1.0 and got.ratio_span[1] > got.ratio


def test_what_else_differs_can_be_given_and_zero_leaves_only_the_scatter(machines) -> None:
    a, b = machines
    n = np.array([1.0, 2, 4, 8])
    t = np.array([100.0, 60.0, 40.0, 35.0])
    given = move(runs(n, 32 * n, t), a, b, elsewhere=0.3)
    assert given.time_lo == pytest.approx(t / math.exp(1.959964 * math.hypot(SCATTER, 0.3)),
                                          rel=1e-5)
    assert any("what else differs" in s and "given" in s for s in given.notes)
    none = move(runs(n, 32 * n, t), a, b, elsewhere=0.0)
    assert none.time_lo == pytest.approx(t / math.exp(1.959964 * SCATTER), rel=1e-5)
    assert [s for s in none.notes if "what else differs" in s] == [
        "what else differs between the two machines: nothing (given)"]
    small = move(runs(n, 32 * n, t), a, b, elsewhere=0.004)
    assert any("0.4 %" in s for s in small.notes) and small.elsewhere == 0.004
    # the point never moves with it
    assert given.time == pytest.approx(none.time, rel=1e-12)


def test_scatter_comes_from_repeats_and_is_said_assumed_without(machines) -> None:
    n = np.array([1.0, 1, 2, 2, 4])
    t = np.array([10.0, 11.0, 6.0, 6.6, 4.0])
    got = runs(n, 8 * n, t)
    assert got.time == pytest.approx([10.0, 6.0, 4.0])
    assert got.repeats.tolist() == [2, 2, 1]
    assert got.scatter == pytest.approx(math.log(1.1), rel=1e-9)
    assert "measured" in got.scatter_source
    alone = runs([1.0, 2.0], [8.0, 16.0], [10.0, 6.0])
    assert alone.scatter == SCATTER and "assumed" in alone.scatter_source


def test_runs_at_two_placements_are_refused() -> None:
    with pytest.raises(InputError, match="processes a node"):
        runs([1.0, 2.0], [32.0, 32.0], [10.0, 6.0])


def test_an_untimed_count_is_refused_when_a_cannot_be_extrapolated(machines) -> None:
    a, b = machines
    with pytest.raises(InputError, match=r"no run on A at 32 .* cannot be extrapolated"):
        move(runs([1.0, 2.0], [32.0, 64.0], [10.0, 6.0]), a, b, nodes=[2, 32])


def test_a_count_not_timed_on_a_is_extrapolated_first(machines) -> None:
    """Known answer: A's runs follow T = 100 s / n + 2 s exactly; at 32 nodes, never timed,
    A's time is that law's (the form work+serial recovers it), and on A itself it stays so;
    the row says it was not measured, a note says how, and the range holds the point."""
    a, b = machines
    n = np.array([1.0, 2, 4, 8, 16])
    timed = runs(n, 32 * n, 100.0 / n + 2.0)
    same = move(timed, a, a, nodes=[16, 32])
    assert same.measured.tolist() == [True, False]
    # the forms are averaged by their cross-validation (perfmodel scaling's prediction): on
    # exact Amdahl runs the others nearly agree with it, to 1 %
    assert same.time == pytest.approx([100 / 16 + 2, 100 / 32 + 2], rel=0.01)
    assert any("not timed on A at 32" in note and "work+serial" in note for note in same.notes)
    other = move(timed, a, b, nodes=[32])
    work = 102.0 / 32   # the one-node run shared perfectly; the rest is overhead
    on_a = float(same.time_a[1])
    assert other.time[0] == pytest.approx(work + (on_a - work) * other.ratio, rel=1e-9)
    assert other.time_lo[0] <= other.time[0] <= other.time_hi[0]
    assert json.loads(json.dumps(other.to_dict()))["rows"][0]["measured_on_a"] is False


def test_perflogs_of_one_code_are_one_series_across_node_counts() -> None:
    got = read_runs(APPS / "ib-gcc9-openmpi4-ucx" / "gromacs",
                    {"code": "Gromacs_61k", "figure": "wall_t"})
    assert got.nodes.tolist() == [1, 2, 4, 8, 16]
    assert got.per_node == 32
    # the least of each count's repeats, as the perflog holds them
    assert got.time[-1] == pytest.approx(167.137, rel=1e-9)


def test_command_on_alaska_cp2k_moves_ib_timings_to_roce() -> None:
    res = CliRunner().invoke(app, [
        "predict", "--fit", str(APPS / "ib-gcc9-openmpi4-ucx" / "cp2k"),
        "--where", "figure=cp2k_time", "--machine", str(EDR), "--on", str(ROCE), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    rows = {r["nodes"]: r for r in doc["rows"]}
    assert rows[1]["time"] == pytest.approx(rows[1]["on_a"]["time"], rel=1e-12)
    for r in doc["rows"]:
        assert r["time_lo"] <= r["time"] <= r["time_hi"]
        assert r["time"] >= r["on_a"]["time"]   # RoCE's small messages are slower
    assert 1.2 < doc["latency_ratio"] < 1.5
    assert any("decides" in n for n in doc["notes"])


@pytest.mark.parametrize(("args", "said"), [
    (["predict"], "no APP"),
    (["predict", "--fit", str(APPS / "ib-gcc9-openmpi4-ucx" / "cp2k"), "--machine",
      str(EDR)], "nothing differs"),
    (["predict", "--fit", str(APPS / "ib-gcc9-openmpi4-ucx" / "cp2k"), "--where",
      "figure=cp2k_time", "--machine", str(EDR), "--on", str(ROCE), "--nodes", "5000"],
     "no run on A at 5000"),
    (["predict", "ppm", "--on", str(ROCE)], "--on predicts"),
    (["predict", "ppm", "--unexplained", "0.05"], "without APP"),
    (["predict", "--unexplained", "5%"], "--unexplained '5%' is not a number from 0 to 1"),
    (["predict", "--fit", str(APPS / "ib-gcc9-openmpi4-ucx" / "cp2k"), "--where",
      "figure=cp2k_time", "--machine", str(EDR), "--link-speed", "10Gbps", "--unexplained",
      "0.05"], "give --on B too"),
    (["predict", "--fit", str(APPS / "ib-gcc9-openmpi4-ucx" / "cp2k"), "--where",
      "figure=cp2k_time", "--machine", str(EDR), "--latency", "2hours"], "unknown time unit"),
    (["predict", "--fit", str(ROOT / "data" / "pairs" / "gromacs-1400k-archer.csv"),
      "--machine", str(ROOT / "calibration" / "hpcc-archer.toml"), "--latency", "2us"],
     "has no fabric"),
    (["predict", "ppm", "--latency", "2us"], "--latency change a machine"),
])
def test_bad_requests_are_one_line_and_exit_2(args, said) -> None:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert said in res.output and "Traceback" not in res.output


def test_b_own_runs_set_how_its_nodes_do_the_work(machines) -> None:
    """A code whose work takes 1.5 times as long on B's nodes, its overhead latency-bound:
    from A's runs and B's at the smallest count alone (1 node, or 2 where A's overhead there
    is moved by the network first), B's times at every count come back exactly."""
    a, b = machines
    n = np.array([1.0, 2, 4, 8, 16])
    on_a = _synthetic(a, n, 100.0, 2e6)
    on_b = 1.5 * 100.0 / n + 2e6 * float(b.message(8.0)) * np.log2(n)
    timed = runs(n, 32 * n, on_a)
    for first in (0, 1):
        got = move(timed, a, b, on_b=runs(n[first:first + 1], 32 * n[first:first + 1],
                                           on_b[first:first + 1]))
        assert got.time == pytest.approx(on_b, rel=1e-9)
        assert got.node_ratio == pytest.approx(1.5, rel=1e-9)
        assert any("B's own run at" in s for s in got.notes)
    plain = move(timed, a, b)
    assert plain.node_ratio == 1.0 and plain.time[0] == pytest.approx(on_a[0], rel=1e-12)


def test_b_runs_that_share_no_count_are_refused(machines) -> None:
    a, b = machines
    n = np.array([1.0, 2, 4])
    with pytest.raises(InputError, match="share no node count"):
        move(runs(n, 32 * n, 100.0 / n), a, b, on_b=runs([32.0], [32 * 32.0], [1.0]))


def test_b_runs_of_another_placement_set_a_nodes_work_and_say_so(machines) -> None:
    """B's nodes hold 16 processes where A's held 32 (B has fewer cores): a node's share of
    the work is compared, so the same time on B's nodes at the smallest count moves every
    count by the same k as a run of A's placement would; the note names both placements."""
    a, b = machines
    n = np.array([1.0, 2, 4, 8, 16])
    on_a = _synthetic(a, n, 100.0, 2e6)
    on_b = 1.5 * 100.0 / n + 2e6 * float(b.message(8.0)) * np.log2(n)
    timed = runs(n, 32 * n, on_a)
    same = move(timed, a, b, on_b=runs(n[1:2], 32 * n[1:2], on_b[1:2]))
    other = move(timed, a, b, on_b=runs(n[1:2], 16 * n[1:2], on_b[1:2]))
    assert other.time == pytest.approx(same.time, rel=1e-12)
    assert other.node_ratio == pytest.approx(1.5, rel=1e-9)
    assert any("place 16 processes a node, A's 32" in s for s in other.notes)
    assert not any("processes a node, A's" in s for s in same.notes)
    assert same.processes_b is None and list(other.processes_b) == list(16 * n)
    assert [r["on_b"]["processes"] for r in other.to_dict()["rows"]] == [int(16 * v) for v in n]


def test_unexplained_from_the_command_line_narrows_the_range_and_not_the_point() -> None:
    base = ["predict", "--fit", str(APPS / "ib-gcc9-openmpi4-ucx" / "cp2k"), "--where",
            "figure=cp2k_time", "--machine", str(EDR), "--on", str(ROCE), "--json"]
    wide, narrow = (json.loads(CliRunner().invoke(app, base + extra).stdout)
                    for extra in ([], ["--unexplained", "0.02"]))
    for w, n in zip(wide["rows"], narrow["rows"], strict=True):
        assert n["time"] == pytest.approx(w["time"], rel=1e-12)
        assert w["time_lo"] < n["time_lo"] and n["time_hi"] < w["time_hi"]
    assert any("2 %" in s and "given" in s for s in narrow["notes"])
    assert narrow["elsewhere"] == {"value": 0.02, "source": "given"}
    assert wide["elsewhere"]["value"] == pytest.approx(ELSEWHERE)
    assert "real pairs" in wide["elsewhere"]["source"]


def test_on_fit_from_the_command_line(tmp_path: Path) -> None:
    b_runs = tmp_path / "b.csv"
    b_runs.write_text("nodes,processes,time_s,figure\n1,32,700,cp2k_time\n")
    r = CliRunner().invoke(app, ["predict", "--fit", str(APPS / "ib-gcc9-openmpi4-ucx" / "cp2k"),
                                 "--where", "figure=cp2k_time", "--machine", str(EDR), "--on",
                                 str(ROCE), "--on-fit", str(b_runs), "--nodes", "1,16",
                                 "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["rows"][0]["time"] == pytest.approx(700.0, rel=1e-9)   # B's own run, back
    assert any("B's own run at 1 node" in s for s in doc["notes"])
    r = CliRunner().invoke(app, ["predict", "ppm", "--fit", str(b_runs), "--machine", str(EDR),
                                 "--on", str(ROCE), "--on-fit", str(b_runs)])
    assert r.exit_code == 2 and "without APP" in r.output


def test_weak_scaling_keeps_each_node_s_work_and_moves_the_rest(machines) -> None:
    """A weak-scaling code (the same work a node at every count, 100 s) whose overhead is
    latency-bound messages: on B its time is the work plus the overhead moved by the ratio, at
    every count; read as strong scaling, the work would shrink and the ratio move too much."""
    a, b = machines
    n = np.array([1.0, 2, 4, 8, 16])
    calls = 2e6 * np.log2(n)
    on_a = 100.0 + calls * float(a.message(8.0))
    on_b = 100.0 + calls * float(b.message(8.0))
    got = move(runs(n, 32 * n, on_a), a, b, weak=True)
    assert got.time == pytest.approx(on_b, rel=1e-9)
    assert got.work_a == pytest.approx(np.full(5, 100.0), rel=1e-12)
    assert any("weak scaling" in s for s in got.notes)
    strong = move(runs(n, 32 * n, on_a), a, b)
    assert np.all(strong.time[1:] > got.time[1:])


def test_b_runs_of_its_own_placement_show_b_processes_in_the_table() -> None:
    """LAMMPS at 96 ranks a node on AWS, run at 56 a node on Google's c2d: the table's rows
    say both counts, and the JSON gives B's."""
    pairs = ROOT / "data" / "pairs"
    base = ["predict", "--fit", str(pairs / "lammps-reaxff-aws-parallel-cluster.csv"),
            "--machine", str(ROOT / "calibration" / "cloud-aws-parallel-cluster.toml"),
            "--on", str(ROOT / "calibration" / "cloud-google-gke.toml"),
            "--on-fit", str(pairs / "lammps-reaxff-google-gke.csv")]
    text = CliRunner().invoke(app, base)
    assert text.exit_code == 0, text.output
    assert "3072 (1792 on B)" in text.output
    doc = json.loads(CliRunner().invoke(app, [*base, "--json"]).stdout)
    assert [r["on_b"]["processes"] for r in doc["rows"]][:1] == [1792]


def test_nodes_of_other_flop_rates_move_the_work_and_a_node_spread_widens_only_it() -> None:
    """GROMACS 1400k timed on ARCHER, put on Peta4-Skylake, each node from its HPC Challenge
    output's HPL run (22.1 and 52.4 Gflop/s a process): one node's time is A's over the rates'
    ratio; by default the range widens by the scatter and what else differs (NODE_SPREAD is 0:
    the development pairs need no more) and the note says where the departure from the rates'
    ratio is held; a node spread given (10 %) widens the work alone, in quadrature with them;
    B's own run, or the same node, moves nothing and says nothing of it."""
    archer = Machine(load(ROOT / "calibration" / "hpcc-archer.toml"))
    skylake = Machine(load(ROOT / "calibration" / "hpcc-csd3skylake.toml"))
    timed = read_runs(ROOT / "data" / "pairs" / "gromacs-1400k-archer.csv")
    bare = move(timed, archer, skylake, 0.95, [1.0, 16.0])
    fa = float(archer.profile.node.values["flop_rate"])
    fb = float(skylake.profile.node.values["flop_rate"])
    assert bare.node_ratio == pytest.approx(fa / fb, rel=1e-12)
    assert bare.time[0] == pytest.approx(bare.time_a[0] * fa / fb, rel=1e-12)
    assert bare.node_spread == NODE_SPREAD == 0 and bare.node_basis == "flops"
    z = 1.959964
    other = math.exp(z * math.hypot(bare.scatter, ELSEWHERE))
    assert bare.time_hi[0] == pytest.approx(bare.time[0] * other, rel=1e-5)
    (said,) = [n for n in bare.notes if n.startswith("how far this code's speed on B's nodes")]
    assert f"({fb / fa:.3g}×;" in said
    assert f"held in what else differs ({100 * ELSEWHERE:.3g} %" in said
    got = move(timed, archer, skylake, 0.95, [1.0, 16.0], node_spread=0.1)
    work = math.exp(z * math.hypot(got.scatter, ELSEWHERE, 0.1))
    assert got.time_hi[0] == pytest.approx(got.time[0] * work, rel=1e-5)
    assert got.time_lo[0] == pytest.approx(got.time[0] / work, rel=1e-5)
    assert np.all(bare.time_hi < got.time_hi) and np.all(bare.time_lo > got.time_lo)
    # the overhead's share is widened as before: the spread adds only the work's
    overhead = (got.time_hi - got.work_b * work) - (bare.time_hi - bare.work_b * other)
    assert overhead == pytest.approx(np.zeros(2), abs=1e-9 * float(got.time_hi.max()))
    (said,) = [n for n in got.notes if n.startswith("how far this code's speed")]
    assert "widens the work by 1.96 × 10.0% (given)" in said
    same = move(timed, archer, archer, 0.95, [1.0])
    assert same.node_spread == 0 and not any(n.startswith("how far") for n in same.notes)
    mine = read_runs(ROOT / "data" / "pairs" / "gromacs-1400k-csd3skylake.csv")
    given = move(timed, archer, skylake, 0.95, [16.0],
                 on_b=runs([1.0], [32.0], [float(mine.time[0])]))
    assert given.node_spread == 0 and given.node_basis is None
    assert not any(n.startswith("how far") for n in given.notes)


def test_a_with_its_latency_changed_moves_the_overhead_by_its_small_message() -> None:
    """EDR with a host latency of 5 µs in place of its fabric's: the overhead moves by the
    8-byte ratio (several times slower), one node stays as it was, and the table and JSON
    name B as A with that latency."""
    res = CliRunner().invoke(app, [
        "predict", "--fit", str(APPS / "ib-gcc9-openmpi4-ucx" / "cp2k"),
        "--where", "figure=cp2k_time", "--machine", str(EDR), "--latency", "5us", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["on"] == f"{EDR} with a latency of 5 µs"
    assert doc["latency_ratio"] > 2
    rows = {r["nodes"]: r for r in doc["rows"]}
    assert rows[1]["time"] == pytest.approx(rows[1]["on_a"]["time"], rel=1e-12)
    assert rows[16]["time"] > rows[16]["on_a"]["time"]


def _stream_alone(m: Machine) -> Machine:
    """``m`` with its node's flop rate taken away: a node of STREAM alone."""
    from dataclasses import replace

    node = m.profile.node
    kept = tuple(p for p in node.params if p.name != "flop_rate")
    return Machine(replace(m.profile, node=replace(node, params=kept)))


def test_nodes_of_stream_alone_move_the_work_by_their_memory_bandwidths() -> None:
    """The same move with each node known by its SingleSTREAM Triad alone (12.76 and 16.98
    GB/s a process): one node's time is A's over the bandwidths' ratio, the work's range is
    MEMORY_SPREAD's (0: what else differs holds it), the notes say which rates moved it; with
    one side's flop rate left, the bandwidths still move it (a ratio needs the same rate on
    both sides)."""
    from perfmodel.apps.transfer import MEMORY_SPREAD, MEMORY_SPREAD_SOURCE

    archer = Machine(load(ROOT / "calibration" / "hpcc-archer.toml"))
    skylake = Machine(load(ROOT / "calibration" / "hpcc-csd3skylake.toml"))
    ba = float(archer.profile.node.values["memory_bandwidth"])
    bb = float(skylake.profile.node.values["memory_bandwidth"])
    assert (ba, bb) == (pytest.approx(12.764113e9), pytest.approx(16.98475e9))
    timed = read_runs(ROOT / "data" / "pairs" / "gromacs-1400k-archer.csv")
    for a, b in ((_stream_alone(archer), _stream_alone(skylake)),
                 (archer, _stream_alone(skylake))):
        got = move(timed, a, b, 0.95, [1.0, 16.0])
        assert got.node_ratio == pytest.approx(ba / bb, rel=1e-12)
        assert got.time[0] == pytest.approx(got.time_a[0] * ba / bb, rel=1e-12)
        assert (got.node_spread, got.node_basis) == (MEMORY_SPREAD, "memory")
        assert got.node_spread_source == MEMORY_SPREAD_SOURCE
        work = math.exp(1.959964 * math.hypot(got.scatter, ELSEWHERE, MEMORY_SPREAD))
        assert got.time_hi[0] == pytest.approx(got.time[0] * work, rel=1e-5)
        (said,) = [n for n in got.notes if n.startswith("how far this code's speed")]
        assert "memory bandwidths' ratio" in said and "STREAM's Triad" in said
        assert any("the memory bandwidth a process streams" in n for n in got.notes)


def test_the_json_says_the_node_spread_its_basis_and_its_source() -> None:
    """predict --json: ``node_spread`` is its value, which rates moved the work and where the
    value comes from; B as A with its latency changed (alaska's EDR) moves no work and spreads
    none."""
    from perfmodel.apps.transfer import NODE_SPREAD_SOURCE

    fit = ["predict", "--fit", str(ROOT / "data" / "pairs" / "gromacs-1400k-archer.csv"),
           "--machine", str(ROOT / "calibration" / "hpcc-archer.toml"), "--json"]
    moved = CliRunner().invoke(app, [*fit, "--on",
                                     str(ROOT / "calibration" / "hpcc-csd3skylake.toml")])
    assert moved.exit_code == 0, moved.output
    assert json.loads(moved.stdout)["node_spread"] == {
        "value": NODE_SPREAD, "basis": "flops", "source": NODE_SPREAD_SOURCE}
    same = CliRunner().invoke(app, [
        "predict", "--fit", str(APPS / "ib-gcc9-openmpi4-ucx" / "cp2k"), "--where",
        "figure=cp2k_time", "--machine", str(EDR), "--latency", "5us", "--json"])
    assert same.exit_code == 0, same.output
    assert json.loads(same.stdout)["node_spread"] == {"value": 0.0, "basis": None,
                                                      "source": ""}


def test_memory_rates_of_unlike_runs_are_said_and_unmeasured_ones_move_nothing(
        tmp_path) -> None:
    """One process alone (HPCC's SingleSTREAM) against a threaded STREAM's share: the ratio is
    taken and the note says the runs are unlike; a node whose memory rate is a default moves
    no work (the nodes are taken to be the same, said); two nodes of STREAM alone with the same
    rate say the memory bandwidths, not flop rates, are the same."""
    from dataclasses import replace

    from perfmodel.machine.hardware import node_speed
    from perfmodel.node import specified

    archer = load(ROOT / "calibration" / "hpcc-archer.toml")
    alone = replace(archer, name="alone", node=specified(
        {"memory_bandwidth": 12e9}, {"memory_bandwidth": "x"}, memory_only=True))
    threaded = replace(archer, name="threaded", node=specified(
        {"domain_bandwidth": 40e9, "memory_domain": 4.0, "memory_bandwidth": 10e9},
        {}, ("memory_bandwidth", "memory_domain"), memory_only=True))
    speed, said = node_speed(alone, threaded)
    assert speed == pytest.approx(10e9 / 12e9, rel=1e-12)
    assert "unlike runs" in said and "a share of 4 threads streaming at once" in said
    unmeasured = replace(archer, name="unmeasured", node=specified(
        {"flop_rate": 2e10}, {"flop_rate": "x"}))
    speed, said = node_speed(alone, unmeasured)
    assert speed is None and "alone has no flop rate" in said and "not both measured" in said
    got = move(runs([1.0, 2.0], [24.0, 48.0], [10.0, 6.0]), Machine(alone),
               Machine(replace(alone, name="alone-too")), 0.95)
    assert got.node_ratio == 1.0 and got.node_spread == 0.0
    assert any("the nodes' memory bandwidths are the same" in n for n in got.notes)
    speed, said = node_speed(replace(alone, node=None), alone)
    assert speed is None and "have" not in said
    both = replace(threaded, name="other")
    _, said = node_speed(alone, replace(both, node=alone.node, name="b"))
    assert said == ""
    two, said = node_speed(alone, replace(threaded, node=replace(
        alone.node, params=tuple(p if p.name != "memory_bandwidth" else replace(p, value=24e9)
                                 for p in alone.node.params)), name="b"))
    assert two == pytest.approx(2.0) and "alone and b have no flop rate" in said
