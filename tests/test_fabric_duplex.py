"""Traffic both ways (issue 31): the switched law's two-way limits (a port keeps ``duplex`` of
its one-way rate in each direction, a host pays ``receive`` of a send's costs for each message
it receives), their recovery from seeded synthetic ``osu_bibw``/IMB ``Biband``-like tables
beside one-way ones, the refusal of two-way tables alone, the profile that keeps them, the
real alaska ``osu_bibw`` outputs, and ``network --both-ways``.

Synthetic tables: k pairs across two nodes (all k senders of a direction on one NIC), sizes
1 B … 4 MiB, 3 % multiplicative noise; the two parameters must come back within 10 % or 3
standard errors, and across ten seeds at least 80 % within 2.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from perfmodel.errors import FitError
from perfmodel.measurements import Measurements, concat
from perfmodel.network import contention
from perfmodel.network.fabric import message_rate, rates
from perfmodel.network.fabric_fit import fit_fabric
from tests.conftest import ROOT, invoke_in

NOISE = 0.03
TRUTH = {"line_rate": 12.0e9, "eta": 1.0, "overhead": 1.5e-7, "copy": 2e-12, "bond": 1.0,
         "packet": math.inf, "header": 0.0, "fabric": math.inf, "mux": 0.0, "loss": 0.0,
         "onset": 1.0, "gap": 1.2e-8, "duplex": 0.8, "receive": 0.5}
LAW = {k: v for k, v in TRUTH.items() if k not in ("mux", "loss", "onset", "duplex", "receive",
                                                   "gap")}


def _table(pairs: list[int], both: bool, seed: int) -> Measurements:
    m, k = np.meshgrid(2.0 ** np.arange(0, 23), np.array(pairs, dtype=float), indexing="ij")
    m, k = m.ravel(), k.ravel()
    x = message_rate("switched", TRUTH, m, k, 1.0, 1.0, per_nic=k, both=both)
    t = k / x * np.exp(np.random.default_rng(seed).normal(0, NOISE, m.size))
    return Measurements("synthetic", m, t, tuple(range(1, m.size + 1)), quantity="aggregate",
                        concurrency={"pairs": k}, extra={"per_nic": k.copy()},
                        pattern="bidirectional" if both else "stream",
                        benchmark="bibw" if both else "mbw_mr")


def _joined(seed: int) -> Measurements:
    from perfmodel.inputs import _with_counts

    return _with_counts([_table([1, 2, 4, 8, 16, 32], False, seed),
                         _table([1, 2, 4, 8], True, seed + 100)])


# --- the law ------------------------------------------------------------------------------

def test_one_way_is_unchanged_and_two_way_meets_both_limits() -> None:
    m = 2.0 ** np.arange(0, 23)
    one = contention.switched_pairs(m, 4, 1, per_nic=4, gap=1e-8, **LAW)
    flagged = contention.switched_pairs(m, 4, 1, per_nic=4, gap=1e-8, both=False, duplex=0.5,
                                        receive=3.0, **LAW)
    np.testing.assert_allclose(flagged, one, rtol=1e-12)   # the flags touch two-way rows only
    ideal = contention.switched_pairs(m, 4, 1, per_nic=4, gap=1e-8, both=True, duplex=1.0,
                                      receive=0.0, **LAW)
    np.testing.assert_allclose(ideal, one, rtol=1e-12)     # full duplex, free receives
    pipe = {k: v for k, v in LAW.items() if k != "fabric"}
    alone, port = contention.switched_limits(m, 4, 1, per_nic=4, gap=1e-8, **pipe)
    a2, p2 = contention.switched_limits(m, 4, 1, per_nic=4, gap=1e-8, both=True, duplex=0.8,
                                        receive=0.5, **pipe)
    np.testing.assert_allclose(p2, 0.8 * port, rtol=1e-12)
    host = LAW["overhead"] + LAW["copy"] * m
    np.testing.assert_allclose(4 / a2, 4 / alone + 0.5 * host, rtol=1e-12)


def test_a_fabric_without_two_way_parameters_assumes_full_duplex_and_logp_receives() -> None:
    values = {k: v for k, v in TRUTH.items() if k not in ("duplex", "receive")}
    got = message_rate("switched", values, [8.0, 4e6], 8, 1, 1, per_nic=8, both=True)
    want = message_rate("switched", {**values, "duplex": 1.0, "receive": 1.0}, [8.0, 4e6], 8,
                        1, 1, per_nic=8, both=True)
    np.testing.assert_allclose(got, want, rtol=1e-12)


# --- the fit ------------------------------------------------------------------------------

def test_recovers_duplex_and_receive_beside_the_one_way_law() -> None:
    inside = total = 0
    for seed in range(10):
        fab = fit_fabric(_joined(seed), "switched").fabric
        assert {"duplex", "receive", "line_rate", "gap"} <= set(fab.fitted_names)
        for name in ("duplex", "receive"):
            est, true = fab.estimate(name), TRUTH[name]
            assert abs(est.value / true - 1) <= max(0.10, 3 * est.stderr / true), (seed, est)
            inside += abs(est.value - true) < 2 * est.stderr
            total += 1
        assert fab.fit["median_rel_err_both_law"] < 0.05   # the law both ways, uncorrected
        assert len(fab.covariance) == len(fab.fitted_names)
    assert inside >= 0.8 * total, (inside, total)


def test_the_one_way_law_is_fitted_to_the_one_way_rows_alone() -> None:
    joined = _joined(0)
    one_way = joined.take(joined.extra["both"] == 0)
    both = fit_fabric(joined, "switched").fabric
    alone = fit_fabric(one_way, "switched").fabric
    for name in ("line_rate", "overhead", "gap"):
        assert both.estimate(name).value == pytest.approx(alone.estimate(name).value,
                                                          rel=1e-9)


def test_a_given_duplex_is_held_and_receive_still_fitted() -> None:
    fab = fit_fabric(_joined(1), "switched", fixed={"duplex": 0.6},
                     sources={"duplex": "vendor sheet"}).fabric
    assert fab.estimate("duplex").value == 0.6
    assert fab.estimate("duplex").status == "fixed"
    assert fab.estimate("receive").status == "fitted"


def test_two_way_rows_alone_cannot_tell_duplex_from_the_rate() -> None:
    from perfmodel.inputs import _with_counts

    with pytest.raises(FitError, match="one-way"):
        fit_fabric(_with_counts([_table([1, 2, 4], True, 0)]), "switched")


def test_calibrate_leaves_a_lone_bibw_unused_and_says_why(tmp_path) -> None:
    from perfmodel.calibrate import calibrate

    src = ROOT / "data" / "alaska" / "ib-gcc9-openmpi4-ucx" / "omb"
    cal = calibrate([src / "Osu_latency", src / "Osu_bibw"])
    said = [c for c in cal.contributions if "bibw" in c.table]
    assert said and said[0].role == "unused" and "one-way" in said[0].said
    assert cal.profile.fabric is None


# --- real data and the profile -----------------------------------------------------------

@pytest.mark.parametrize(("partition", "low", "high"), [
    # osu_bibw at 1-4 MiB against osu_bw: EDR 20.8-20.9 GB/s both ways against 12.2 one way
    # (0.85 a direction); RoCE 6.12 against 3.06 (1.00)
    ("ib-gcc9-openmpi4-ucx", 0.7, 0.95),
    ("roce-gcc9-openmpi4-ucx", 0.95, 1.0),
])
def test_alaska_bibw_gives_each_networks_duplex(partition: str, low: float,
                                                high: float) -> None:
    from perfmodel.calibrate import calibrate
    from perfmodel.layout import Layout

    cal = calibrate([ROOT / "data" / "alaska" / partition], layout=Layout(nodes=2))
    fab = cal.profile.fabric
    assert fab is not None and fab.duplex
    est = fab.estimate("duplex")
    assert est.status == "fitted" and low <= est.value <= high
    assert fab.fit["median_rel_err_both_law"] < 0.20   # the law both ways, before its ratios


def test_a_profile_keeps_duplex_and_receive(tmp_path) -> None:
    from perfmodel.machine.profile import dumps, load

    fab = fit_fabric(_joined(2), "switched").fabric
    from perfmodel.machine.profile import Profile

    base = load(ROOT / "calibration" / "alaska-roce.toml")
    prof: Profile = replace(base, fabric=fab, name="p")
    path = tmp_path / "p.toml"
    path.write_text(dumps(prof))
    back = load(path).fabric
    assert back is not None and back.corrections is not None and fab.corrections is not None
    assert back.corrections == fab.corrections or all(
        np.allclose(getattr(back.corrections.both, k), getattr(fab.corrections.both, k),
                    equal_nan=True) for k in ("stream", "port", "beyond_stream", "beyond_port"))
    assert back.corrections.both is not None
    assert len(back.corrections.both.stream) == len(back.corrections.sizes)
    for name in ("duplex", "receive"):
        assert back.estimate(name).value == pytest.approx(fab.estimate(name).value, rel=1e-12)
    m = np.array([8.0, 4 * 2.0 ** 20])
    np.testing.assert_allclose(rates(back, m, 1, both=True).message_rate,
                               rates(fab, m, 1, both=True).message_rate, rtol=1e-12)


def test_network_both_ways_prints_each_directions_rate(tmp_path) -> None:
    prof = str(ROOT / "calibration" / "alaska-edr.toml")
    one = invoke_in(ROOT, ["network", prof, "--pairs", "1", "--sizes", "4MiB", "--json"])
    two = invoke_in(ROOT, ["network", prof, "--pairs", "1", "--sizes", "4MiB", "--both-ways",
                           "--json"])
    assert one.exit_code == 0 and two.exit_code == 0, two.output
    import json

    a, b = json.loads(one.output), json.loads(two.output)
    assert b["both_ways"] is True and a["both_ways"] is False
    ratio = b["rows"][0]["aggregate_bandwidth"] / a["rows"][0]["aggregate_bandwidth"]
    fab_duplex = next(p["value"] for p in b["parameters"] if p["name"] == "duplex")
    assert ratio == pytest.approx(fab_duplex, rel=0.05)   # 4 MiB: the port governs
    bad = invoke_in(ROOT, ["network", prof, "--both-ways"])
    assert bad.exit_code == 2 and "--pairs" in bad.output


def test_concat_keeps_the_two_way_flag() -> None:
    joined = _joined(3)
    assert set(np.unique(joined.extra["both"])) == {0.0, 1.0}
    assert len(concat([joined])) == len(joined)


def test_a_profile_whose_two_way_ratios_do_not_match_its_sizes_is_refused(tmp_path) -> None:
    from perfmodel.errors import InputError
    from perfmodel.machine.profile import load

    text = (ROOT / "calibration" / "alaska-edr.toml").read_text()
    start = text.index("both_stream = [")
    end = text.index("]", start)
    bad = text[:start] + "both_stream = [0.1]" + text[end + 1:]
    path = tmp_path / "bad.toml"
    path.write_text(bad)
    with pytest.raises(InputError, match=r"corrections\.both_stream"):
        load(path)


def test_a_duplex_the_rows_cannot_tell_is_assumed_and_the_profile_loads(tmp_path) -> None:
    """osu_bibw of one pair beside osu_mbw_mr of 8: no row both ways reaches the NIC's limit
    there, so duplex is assumed (said), receive alone is fitted, and the profile written
    loads back and predicts both ways."""
    src = ROOT / "data" / "alaska" / "ib-gcc9-openmpi4-ucx" / "omb"
    got = invoke_in(tmp_path, ["calibrate", str(src / "Osu_latency"), str(src / "Osu_mbw_mr__8"),
                               str(src / "Osu_bibw"), "--nodes-per-job", "2", "--name", "b",
                               "--quiet"])
    assert got.exit_code == 0, got.output
    from perfmodel.machine.profile import load

    fab = load(tmp_path / "calibration" / "b.toml").fabric
    assert fab is not None
    assert fab.estimate("duplex").status in ("assumed", "fitted", "bound")
    if fab.estimate("duplex").status == "assumed":
        assert "no row both ways where the NIC governs" in fab.estimate("duplex").source
    run = invoke_in(tmp_path, ["network", str(tmp_path / "calibration" / "b.toml"),
                               "--pairs", "1", "--both-ways", "--sizes", "8B,1MiB"])
    assert run.exit_code == 0, run.output
    assert "every pair sends both ways at once" in run.output


def test_traffic_both_ways_with_every_pair_on_its_own_nics_fits_the_switched_law(
        tmp_path) -> None:
    """One rank a node: osu_mbw_mr's pairs share no NIC, so both topologies were tried, and
    the shared medium's refusal of traffic both ways aborted calibrate; traffic both ways
    needs ports with two directions, so only the switched law is fitted."""
    src = ROOT / "data" / "alaska" / "ib-gcc9-openmpi4-ucx" / "omb"
    got = invoke_in(tmp_path, ["calibrate", str(src / "Osu_latency"), str(src / "Osu_mbw_mr__4"),
                               str(src / "Osu_mbw_mr__8"), str(src / "Osu_bibw"),
                               "--ranks-per-node", "1", "--no-write", "--json"])
    assert got.exit_code == 0, got.output
    import json

    fabric = json.loads(got.output)["fabric"]
    assert fabric["topology"] == "switched"
    assert {p["name"] for p in fabric["parameters"]} >= {"duplex", "receive"}


def test_a_spec_giving_receive_alone_is_a_switched_fabric_with_traffic_both_ways(
        tmp_path) -> None:
    from perfmodel.network.spec import load_spec

    spec = tmp_path / "s.toml"
    spec.write_text('kind = "perfmodel network spec"\nschema_version = 1\n[fabric]\n'
                    'topology = "switched"\n[fabric.params.line_rate]\nvalue = "100Gbps"\n'
                    'source = "EDR"\n[fabric.params.receive]\nvalue = "0.5"\n'
                    'source = "a LogP fit"\n', encoding="utf-8")
    fab = load_spec(spec).fabric
    assert fab is not None and fab.fixed["receive"] == pytest.approx(0.5)


def test_streams_sharing_a_nic_are_refused_by_a_shared_fabric() -> None:
    from perfmodel.errors import InputError

    with pytest.raises(InputError, match="no NICs of its own to share"):
        fit_fabric(_table([1, 2, 4], False, 7), "shared")
    with pytest.raises(InputError, match="no duplex"):
        fit_fabric(_joined(7), "shared")
