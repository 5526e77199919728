"""The link inside a node (issue 31): one pair's streams run inside one node (IMB ``-npmin 1``
blocks of a job on two nodes) give the fabric's ``intra_latency`` and ``intra_rate`` beside
the law fitted across nodes; several pairs inside a node, or streams inside a node with no
fabric to keep them beside, are listed as unused with the reason.

Synthetic inside rows: ``T = 0.2 µs + m / 8 GB/s`` with 3 % noise, sizes 1 B … 4 MiB; the two
parameters must come back within 10 % or 3 standard errors, and over ten seeds at least 80 %
within 2.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfmodel.errors import FitError, InputError
from perfmodel.measurements import Measurements
from perfmodel.network.fabric_beside import with_inside
from perfmodel.network.fabric_fit import fit_fabric
from tests.conftest import ROOT, invoke_in
from tests.test_fabric_nic import TRUTH, _tables

LATENCY, RATE = 2e-7, 8e9


def _inside(seed: int) -> Measurements:
    m = 2.0 ** np.arange(0, 23)
    t = (LATENCY + m / RATE) * np.exp(np.random.default_rng(seed).normal(0, 0.03, m.size))
    return Measurements("inside", m, t, tuple(range(1, m.size + 1)), quantity="bandwidth",
                        concurrency={"pairs": np.ones(m.size), "processes": np.full(m.size, 2)},
                        pattern="stream", benchmark="Uniband")


def test_recovers_the_link_inside_a_node_beside_the_fabric() -> None:
    across = fit_fabric(_tables(TRUTH, [1, 2, 4, 8], 0), "switched").fabric
    inside = total = 0
    for seed in range(10):
        fab, said = with_inside(across, [_inside(seed)], 32)
        assert fab.box == 32 and "32 ranks a node" in said
        for name, true in (("intra_latency", LATENCY), ("intra_rate", RATE)):
            est = fab.estimate(name)   # the latency is a stream's gap, taken as latency
            assert est.status == ("derived" if name == "intra_latency" else "fitted")
            assert abs(est.value / true - 1) <= max(0.10, 3 * est.stderr / true), (seed, est)
            inside += abs(est.value - true) < 2 * est.stderr
            total += 1
        assert len(fab.covariance) == len(fab.fitted_names)
        for name in ("line_rate", "overhead", "gap"):   # the law across nodes is untouched
            assert fab.estimate(name) == across.estimate(name)
    assert inside >= 0.8 * total, (inside, total)


def test_the_link_inside_needs_a_box_and_sizes() -> None:
    across = fit_fabric(_tables(TRUTH, [1, 2, 4], 0), "switched").fabric
    with pytest.raises(InputError, match="ranks one node holds"):
        with_inside(across, [_inside(0)], 1)
    few = _inside(0).take(np.arange(2))
    with pytest.raises(FitError, match="fewer than 3 sizes"):
        with_inside(across, [few], 8)


def test_a_profile_with_the_link_inside_predicts_local_messages_with_it(tmp_path) -> None:
    from dataclasses import replace

    from perfmodel.machine import Machine
    from perfmodel.machine.profile import dumps, load

    across = fit_fabric(_tables(TRUTH, [1, 2, 4, 8], 0), "switched").fabric
    fab, _ = with_inside(across, [_inside(1)], 4)
    base = load(ROOT / "calibration" / "alaska-roce.toml")
    path = tmp_path / "p.toml"
    path.write_text(dumps(replace(base, fabric=fab, name="p")))
    back = load(path)
    assert back.fabric is not None and back.fabric.box == 4
    machine = Machine(back)
    m = np.array([8.0, 2.0 ** 20])
    local = machine.round(m, 1, inside=True)
    v = back.fabric.values
    np.testing.assert_allclose(local, v["intra_latency"] + m / v["intra_rate"], rtol=1e-9)


def test_calibrate_places_imb_blocks_inside_a_node() -> None:
    """IMB Uniband of a 16-rank job, 8 ranks on each of two nodes, run with -npmin 1 (alaska,
    RoCE): its 2-process block is one pair inside node 0 (the link inside), its 4- and
    8-process blocks several pairs inside (unused, said), its 16-process block 8 pairs across
    (the fabric)."""
    from perfmodel.calibrate import calibrate
    from perfmodel.layout import Layout

    lat = ROOT / "data" / "alaska" / "roce-gcc9-openmpi4-ucx" / "omb" / "Osu_latency"
    imb = ROOT / "tests" / "fixtures" / "benchmarks" / "imb_uniband_npmin_alaska_roce.txt"
    for layout in (Layout(nodes=2), Layout(ranks_per_node=8)):
        cal = calibrate([lat, imb], layout=layout)
        said = {c.table: c.said for c in cal.contributions if c.path == str(imb)}
        assert said["Uniband (2 processes)"] == "the link inside a node: 1 pair inside one node"
        assert said["Uniband (4 processes, 2 pairs at once)"].startswith(
            "unused: 2 pairs inside one node") or "2 pairs inside one node" in \
            said["Uniband (4 processes, 2 pairs at once)"]
        assert said["Uniband (16 processes, 8 pairs at once)"].startswith("the fabric: 8 pairs")
        fab = cal.profile.fabric
        assert fab is not None and fab.box == 8
        lat_est, rate_est = fab.estimate("intra_latency"), fab.estimate("intra_rate")
        assert (lat_est.status, rate_est.status) == ("derived", "fitted")
        # shared memory inside a RoCE node streams faster than its 25 GbE NIC (3.06 GB/s)
        assert rate_est.value > fab.estimate("line_rate").value
        assert any(n.startswith("the link inside a node") for n in cal.notes)


def test_streams_inside_a_node_without_a_fabric_are_said_unused() -> None:
    from perfmodel.calibrate import calibrate
    from perfmodel.layout import Layout

    lat = ROOT / "data" / "alaska" / "roce-gcc9-openmpi4-ucx" / "omb" / "Osu_latency"
    imb = ROOT / "tests" / "fixtures" / "benchmarks" / "imb_uniband_npmin_alaska_roce.txt"
    from perfmodel.inputs import gather

    got = gather([lat, imb], layout=Layout(ranks_per_node=16))   # all 16 ranks on one node
    assert not got.inside and not any(c.role == "fabric" for c in got.contributions)
    said = [c for c in got.contributions if c.table == "Uniband (2 processes)"]
    assert said[0].role == "unused" and "beside a fabric" in said[0].said
    assert calibrate([lat, imb], layout=Layout(ranks_per_node=16)).profile.fabric is None


def test_a_profile_with_the_link_inside_is_written_loaded_and_reported(tmp_path) -> None:
    """The covariance of a fabric grown by the link inside a node is whole (all numbers, or
    all NaN) so the profile loads back; a report reads the IMB file of blocks inside and
    across nodes once (it had aborted: the same file recorded twice)."""
    lat = ROOT / "data" / "alaska" / "roce-gcc9-openmpi4-ucx" / "omb" / "Osu_latency"
    imb = ROOT / "tests" / "fixtures" / "benchmarks" / "imb_uniband_npmin_alaska_roce.txt"
    got = invoke_in(tmp_path, ["calibrate", str(lat), str(imb), "--nodes-per-job", "2",
                               "--name", "inside", "--quiet"])
    assert got.exit_code == 0, got.output
    profile = str(tmp_path / "calibration" / "inside.toml")
    net = invoke_in(tmp_path, ["network", profile, "--pairs", "2", "--nodes-per-job", "2"])
    assert net.exit_code == 0, net.output
    rep = invoke_in(tmp_path, ["report", profile, "-o", str(tmp_path / "r.md")])
    assert rep.exit_code == 0, rep.output
    assert "intra_rate" in (tmp_path / "r.md").read_text()
