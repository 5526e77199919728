"""Hierarchy: placement of ranks in boxes, the Exchange ring's law, and fitting it."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from perfmodel.calibrate import calibrate
from perfmodel.errors import FitError, InputError
from perfmodel.machine.profile import dumps, load
from perfmodel.measurements import Measurements
from perfmodel.network.fabric import PARAMS, Fabric, exchange, exchange_seconds
from perfmodel.network.fabric_fit import fit_fabric
from perfmodel.network.hierarchy import box_of, exchange_time, ring_crossings
from perfmodel.network.spec import load_spec
from perfmodel.params import Estimate

# A Marvel-like machine: 2 ranks per box, a fast link inside, a costly one between boxes.
TRUTH = {"line_rate": 1.5e9, "eta": 1.0, "overhead": 20e-6, "copy": 0.0, "bond": 1.0,
         "packet": math.inf, "header": 0.0, "fabric": math.inf, "mux": 0.0, "loss": 0.0,
         "onset": 1.0, "intra_latency": 2.5e-6, "intra_rate": 2e9}
SIZES = 2.0 ** np.arange(0, 23)


def _fabric(values: dict[str, float], box: int = 1, topology: str = "switched") -> Fabric:
    return Fabric(topology, 1, tuple(Estimate(k, v, math.nan, PARAMS[k].unit, "fixed")
                                     for k, v in values.items()), box=box)


def _rings(values: dict[str, float], procs: list[int], box: int, noise: float,
           seed: int) -> Measurements:
    m = np.tile(SIZES, len(procs))
    p = np.repeat(procs, len(SIZES)).astype(float)
    t = exchange_seconds("switched", values, m, p, box=box, placement="block",
                         channels=np.ones_like(m))
    t = t * np.exp(np.random.default_rng(seed).normal(0.0, noise, t.size))
    return Measurements("synthetic", m, t, tuple(range(1, m.size + 1)), pattern="exchange",
                        concurrency={"processes": p})


@pytest.mark.parametrize(("p", "box", "placement", "where"), [
    (4, 2, "block", [0, 0, 1, 1]), (4, 2, "cyclic", [0, 1, 0, 1]),
    (6, 4, "block", [0, 0, 0, 0, 1, 1]), (6, 4, "cyclic", [0, 1, 0, 1, 0, 1]),
    (3, 2, "spread", [0, 1, 2])])
def test_placement_puts_ranks_in_boxes(p: int, box: int, placement: str,
                                       where: list[int]) -> None:
    assert box_of(p, box, placement).tolist() == where


@pytest.mark.parametrize(("p", "box", "placement", "expected"), [
    (2, 2, "block", (0, 0, 0, 0)),   # both ranks in one box
    (2, 1, "block", (2, 2, 2, 4)),   # one neighbour, two messages, both leave
    (4, 2, "block", (1, 1, 2, 4)),   # one neighbour inside, one outside
    (4, 2, "cyclic", (2, 2, 4, 8)),  # every neighbour in the other box
    (8, 4, "block", (0, 1, 2, 4)),   # ends of each block cross
    (4, 4, "block", (0, 0, 0, 0)),
    (5, 1, "spread", (2, 2, 2, 10)),
])
def test_ring_crossings(p: int, box: int, placement: str,
                        expected: tuple[int, int, int, int]) -> None:
    assert ring_crossings(p, box, placement) == expected


def _by_rank(p: int, box: int, placement: str) -> tuple[int, int, int, int]:
    """ring_crossings the long way: every rank's two neighbours looked at."""
    where = box_of(p, box, placement)
    out = (np.roll(where, 1) != where).astype(int) + (np.roll(where, -1) != where).astype(int)
    return int(out.min()), int(out.max()), int(np.bincount(where, weights=out).max()), \
        int(out.sum())


def test_closed_forms_match_rank_by_rank() -> None:
    for placement in ("block", "cyclic", "spread"):
        for box in range(1, 10):
            for p in range(1, 60):
                assert ring_crossings(p, box, placement) == _by_rank(p, box, placement), \
                    (p, box, placement)
    # closed forms: a huge ring costs nothing to lay out
    assert ring_crossings(300_000_001, 2, "cyclic") == (2, 2, 4, 600_000_002)
    assert ring_crossings(300_000_001, 2, "block") == (1, 2, 2, 300_000_002)
    with pytest.raises(InputError, match="placement"):
        ring_crossings(4, 2, "random")
    with pytest.raises(InputError, match="at least 1"):
        ring_crossings(0, 2, "block")


def test_exchange_time_by_hand() -> None:
    m = np.array([0.0, 1000.0, 1e6])
    t_in = 1e-6 + m / 1e9
    t_out = 10e-6 + m / 5e8
    wire = m / 5e8
    # 4 ranks in 2 boxes of 2, block: one message inside, one outside, per rank
    got = exchange_time(m, 4, box=2, placement="block", intra=(1e-6, 1e9), inter=t_out,
                        wire=wire)
    np.testing.assert_allclose(got, np.maximum(t_in + t_out, 2 * wire))
    # cyclic: both outside, and four messages leave each box through its port
    got = exchange_time(m, 4, box=2, placement="cyclic", intra=(1e-6, 1e9), inter=t_out,
                        wire=wire)
    np.testing.assert_allclose(got, np.maximum(2 * t_out, 4 * wire))
    # on a shared medium every crossing message of every box queues: 8 of them
    got = exchange_time(m, 4, box=2, placement="cyclic", intra=(1e-6, 1e9), inter=t_out,
                        wire=wire, shared=True)
    np.testing.assert_allclose(got, np.maximum(2 * t_out, 8 * wire))
    # a switch fabric passes all crossing bytes
    got = exchange_time(m, 4, box=2, placement="cyclic", intra=(1e-6, 1e9), inter=t_out,
                        wire=wire, fabric=1e8)
    np.testing.assert_allclose(got, np.maximum(2 * t_out, 8 * m / 1e8))


def test_one_process_per_node_rings_of_2_and_4_cost_the_same() -> None:
    """Per-port links: a rank's two messages go out of its own port whether they go to one
    neighbour or two, so a box-less machine's Exchange does not depend on the ring size."""
    fab = _fabric({k: v for k, v in TRUTH.items() if not k.startswith("intra")})
    two, four, sixteen = (exchange(fab, SIZES, p).time for p in (2, 4, 16))
    np.testing.assert_allclose(two, four)
    np.testing.assert_allclose(two, sixteen)


def test_placement_decides_what_a_box_machine_pays() -> None:
    fab = _fabric(TRUTH, box=2)
    two = exchange(fab, SIZES, 2).time
    block = exchange(fab, SIZES, 4, "block").time
    cyclic = exchange(fab, SIZES, 4, "cyclic").time
    spread = exchange(fab, SIZES, 2, "spread").time
    assert np.all(block > two) and np.all(cyclic >= block)
    # two ranks spread over two boxes pay the inter-box link both ways
    np.testing.assert_allclose(spread, exchange(_fabric(TRUTH), SIZES, 2).time)
    with pytest.raises(InputError, match="placement"):
        exchange(fab, SIZES, 4, "random")
    with pytest.raises(InputError, match="at least 2"):
        exchange(fab, SIZES, 1)


@pytest.mark.parametrize("seed", range(10))
def test_fit_recovers_intra_and_inter_links(seed: int) -> None:
    """Rings of 2, 4 and 8 ranks in boxes of 2 (3 % noise): all four link parameters come
    back within 3 standard errors (and the error bars are not vacuous: under 5 %)."""
    fit = fit_fabric(_rings(TRUTH, [2, 4, 8], 2, 0.03, seed), "switched", box=2)
    fitted = {p.name: p for p in fit.fabric.params if p.status == "fitted"}
    assert set(fitted) == {"line_rate", "overhead", "intra_latency", "intra_rate"}
    for name, est in fitted.items():
        assert abs(est.value - TRUTH[name]) < 3 * est.stderr, name
        assert est.stderr < 0.05 * TRUTH[name], name
    assert fit.fabric.box == 2 and fit.fabric.ranges["processes"] == (2.0, 8.0)


def test_recovery_coverage_over_seeds() -> None:
    """Over 10 seeds x 4 parameters, about 95 % should fall within 2 standard errors."""
    inside = total = 0
    for seed in range(10):
        fit = fit_fabric(_rings(TRUTH, [2, 4, 8], 2, 0.03, seed), "switched", box=2)
        for est in fit.fabric.params:
            if est.status == "fitted":
                total += 1
                inside += abs(est.value - TRUTH[est.name]) < 2 * est.stderr
    assert total == 40 and inside >= 34


def test_rings_inside_one_box_cannot_inform_the_link_between_boxes() -> None:
    data = _rings(TRUTH, [2], 2, 0.0, 0)
    with pytest.raises(FitError, match="line_rate"):
        fit_fabric(data, "switched", box=2)
    held = {k: TRUTH[k] for k in ("line_rate", "eta", "overhead")}
    fit = fit_fabric(data, "switched", box=2, fixed=held)
    got = fit.fabric.values
    assert got["intra_latency"] == pytest.approx(2.5e-6, rel=1e-4)
    assert got["intra_rate"] == pytest.approx(2e9, rel=1e-4)


def test_rings_that_all_cross_alike_cannot_split_the_two_links() -> None:
    """Rings of 4 and 8 in boxes of 2 (block): every slowest rank has one message inside and
    one outside, so only the sum of the two latencies shows."""
    with pytest.raises(FitError, match="intra_latency"):
        fit_fabric(_rings(TRUTH, [4, 8], 2, 0.01, 0), "switched", box=2)


def test_one_process_rings_and_unknown_placements_are_refused() -> None:
    data = _rings(TRUTH, [1, 2, 4], 2, 0.0, 0)
    with pytest.raises(InputError, match="one process"):
        fit_fabric(data, "switched", box=2)
    data = _rings(TRUTH, [2, 4], 2, 0.0, 0)
    odd = Measurements(data.source, data.size, data.time, data.line, pattern="exchange",
                       concurrency=data.concurrency, placement=("inter-node",) * len(data))
    with pytest.raises(InputError, match="inter-node"):
        fit_fabric(odd, "switched", box=2)


def test_rings_that_never_share_a_box_cannot_inform_the_link_inside() -> None:
    data = _rings(TRUTH, [4], 2, 0.0, 0)
    data = Measurements(data.source, data.size, data.time, data.line, pattern="exchange",
                        concurrency=data.concurrency, placement=("cyclic",) * len(data))
    with pytest.raises(FitError, match="intra_latency"):
        fit_fabric(data, "switched", box=2)


def _imb(path: Path, procs: int, values: dict[str, float], box: int) -> Path:
    sizes = [0, *[2 ** i for i in range(0, 21)]]
    t = exchange_seconds("switched", values, np.array(sizes, dtype=float),
                         np.full(len(sizes), float(procs)), box=box, placement="block",
                         channels=np.ones(len(sizes)))
    rows = "\n".join(f"{m:13d} {1000:12d} {x * 1e6:12.2f} {x * 1e6:12.2f} {x * 1e6:12.2f} "
                     f"{4 * m / x / 1e6:12.2f}" for m, x in zip(sizes, t, strict=True))
    path.write_text(
        "#----------------------------------------------------------------\n"
        "#    Intel(R) MPI Benchmarks 2021.11, MPI-1 part\n"
        "#----------------------------------------------------------------\n"
        "#-----------------------------------------------------------------------------\n"
        "# Benchmarking Exchange \n"
        f"# #processes = {procs} \n"
        "#-----------------------------------------------------------------------------\n"
        "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec\n"
        f"{rows}\n\n\n# All processes entering MPI_Finalize\n")
    return path


def test_calibrate_fits_the_hierarchy_from_imb_exchange_files(tmp_path: Path) -> None:
    files = [_imb(tmp_path / f"exchange{p}.txt", p, TRUTH, 2) for p in (2, 4)]
    lone = _imb(tmp_path / "exchange1.txt", 1, TRUTH, 2)
    # default topology: both laws compared by BIC, with IMB's 0-byte rows (no warnings)
    result = calibrate([lone, *files], benchmark="Exchange", box=2)
    assert any("1 process left out" in n for n in result.notes)
    assert result.fabric is not None
    fab = result.fabric.fabric
    assert fab.box == 2
    got = fab.values
    for name in ("line_rate", "overhead", "intra_latency", "intra_rate"):
        assert got[name] == pytest.approx(TRUTH[name], rel=0.03), name
    # the point-to-point model describes the 2-process ring, and says so
    assert set(result.data.counts("processes")) == {2}
    assert any("2-process rows" in n for n in result.notes)
    (tmp_path / "p.toml").write_text(dumps(result.profile))
    back = load(tmp_path / "p.toml")
    assert back.fabric is not None and back.fabric.box == 2
    assert back.fabric.ranges["processes"] == (2.0, 4.0)
    with pytest.raises(InputError, match=r"--box"):
        calibrate(files[:1], benchmark="Exchange", box=2)
    es80 = load_spec(Path(__file__).resolve().parent.parent / "data/seeds/es80.spec.toml")
    with pytest.raises(InputError, match="box = 2, not 4"):
        calibrate([], spec=es80, box=4)
    with pytest.raises(InputError, match=r"--box"):
        calibrate([], spec=es80, box=2)


def test_spec_box_needs_the_intra_link(tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text('kind = "perfmodel network spec"\nschema_version = 1\nmodel = "hockney"\n'
                    '[params.alpha]\nvalue = "2us"\nsource = "x"\n'
                    '[params.beta]\nvalue = "1GB/s"\nsource = "x"\n'
                    '[fabric]\ntopology = "switched"\nbox = 2\n'
                    '[fabric.params.line_rate]\nvalue = "1GB/s"\nsource = "x"\n'
                    '[fabric.params.eta]\nvalue = "1"\nsource = "x"\n')
    with pytest.raises(InputError, match="intra_latency must be given"):
        calibrate([], spec=load_spec(spec))
    spec.write_text(spec.read_text().replace("box = 2", "box = 0"))
    with pytest.raises(InputError, match=r"fabric\.box"):
        load_spec(spec)
