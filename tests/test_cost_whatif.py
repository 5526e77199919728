"""Issue 29, the what-if sweep: cost that grows with the work.  The vectorised paths (a chunk
evaluated as a box of the grid, the band reading the network's costs kept by the first pass,
a free wire costed once per combination of the other axes, and the analysis without loops
over configurations or node counts) are checked against straightforward evaluations, one
configuration at a time, and against the loops they replaced, on small grids with ties.
Equivalence only: nothing here times anything."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from dataclasses import replace
from itertools import pairwise

import numpy as np
import pytest

from perfmodel.apps.fit import AppFit
from perfmodel.apps.metrics import by_term
from perfmodel.apps.trust import Extrapolation
from perfmodel.errors import InputError
from perfmodel.machine import Machine
from perfmodel.machine.profile import load
from perfmodel.units import format_counts
from perfmodel.whatif import analysis
from perfmodel.whatif.catalogue import Catalogue
from perfmodel.whatif.catalogue import load as load_catalogue
from perfmodel.whatif.plan import _per_hardware
from perfmodel.whatif.sweep import (
    IDEAL_RATE,
    TERMS,
    Grid,
    Sweep,
    baseline_values,
    boxes,
    prices,
    sweep,
    wire_share,
)
from tests.conftest import ROOT

BEOWULF = load(ROOT / "calibration" / "beowulf-1995.toml")
APPS = ROOT / "data" / "seeds" / "beowulf-1995-apps.csv"
CATALOGUE = load_catalogue(ROOT / "data" / "catalogues" / "beowulf-1995.toml")
GRID = Grid({"nodes": np.array([1.0, 2, 3, 8, 16, 33]), "channels": np.array([1.0, 2, 3]),
             "link_speed": np.array([1.25e6, 12.5e6, 1.25e8]),
             "latency": np.array([20e-6, 328e-6, 1e-3])})
MIXED = Grid({"latency": np.array([1e-3, 20e-6]), "nodes": np.array([16.0, 1, 4, 2]),
              "channels": np.array([2.0, 1.0, 3.0])})
"""Node counts in the middle, values out of order."""




def _catalogue_grid(counts: tuple[float, ...] = (1.0, 2.0, 5.0, 16.0)) -> Grid:
    nodes = [float(i) for i, n in enumerate(CATALOGUE.nodes) if n.price is not None]
    return Grid({"nodes": np.array(counts), "node": np.array(nodes),
                 "network": np.arange(float(len(CATALOGUE.networks))),
                 "channels": np.array([1.0, 2.0])}, CATALOGUE)


# --- the sweep, one configuration at a time --------------------------------------------------

def _alone(fit: AppFit, c: Mapping[str, float], cat: Catalogue | None, values: Mapping[str, float],
           nodes: float | None = None, line_rate: float | None = None) -> dict[str, float]:
    """One configuration's time by kind of term, on a machine of scalar overrides: the
    straightforward evaluation a sweep must equal."""
    fab = BEOWULF.fabric
    assert fab is not None
    rate, lat = c.get("link_speed"), c.get("latency")
    speed = memory = None
    if cat is not None and "network" in c:
        r, la = cat.network_values(int(c["network"]))
        rate, lat = float(r), float(la) if math.isfinite(la) else fab.values["overhead"]
    if cat is not None and "node" in c:
        sp, mem = cat.speed(int(c["node"]))
        speed, memory = float(sp), float(mem)
    on = Machine(BEOWULF, channels=c.get("channels"), line_rate=line_rate or rate,
                 overhead=lat, speed=speed, memory_speed=memory)
    p = np.array([c.get("nodes", 1.0) if nodes is None else nodes])
    size = fit.model.size.value if fit.model.size else 1.0
    terms = fit.model.evaluate(p, values, on, np.full(1, size))
    if speed is not None:
        terms = {k: v / speed if k in fit.model.work_terms else v for k, v in terms.items()}
    return {k: float(v[0]) for k, v in by_term(terms).items()}


@pytest.mark.parametrize("grid", [GRID, MIXED, _catalogue_grid()],
                         ids=["axes", "mixed", "catalogue"])
def test_a_box_sweep_equals_each_configuration_alone(ppm: AppFit, grid: Grid,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Times, the split by kind of term, speedups and bands (forward differences, every
    network cost solved again) of every configuration, whatever the boxes the grid is cut
    in (the whole grid, or boxes of 5 configurations)."""
    from scipy.special import stdtrit

    import perfmodel.whatif.sweep as sw

    cat = grid.catalogue
    scale = float(stdtrit(ppm.dof, 0.5 + 0.95 / 2))
    whole = sweep(ppm, BEOWULF, grid)
    monkeypatch.setattr(sw, "CHUNK", 5)
    small = sweep(ppm, BEOWULF, grid)
    for key in ("time", "lo", "hi", "speedup"):
        assert np.array_equal(getattr(whole, key), getattr(small, key), equal_nan=True)
    for i in range(grid.size):
        c = {k: float(v[i]) for k, v in whole.config.items()}
        split = _alone(ppm, c, cat, ppm.values)
        t = sum(split.values())
        one = sum(_alone(ppm, c, cat, ppm.values, nodes=1.0).values())
        assert whole.time[i] == pytest.approx(t, rel=1e-12)
        for k in TERMS:
            assert whole.terms[k][i] == pytest.approx(split[k], rel=1e-12, abs=1e-300)
        assert whole.speedup[i] == pytest.approx(one / t, rel=1e-12)
        g = []
        for name in ppm.fitted_names:
            v = ppm.values[name]
            h = abs(v) * 1e-6 if v else 1e-12
            g.append((sum(_alone(ppm, c, cat, {**ppm.values, name: v + h}).values()) - t)
                     / h / t)
        gv = np.array(g)
        half = scale * math.sqrt(float(gv @ ppm.covariance @ gv) + ppm.noise**2)
        assert whole.lo[i] == pytest.approx(t * math.exp(-half), rel=1e-9)
        assert whole.hi[i] == pytest.approx(t * math.exp(half), rel=1e-9)


def test_boxes_cover_the_grid_in_order() -> None:
    for shape in [(6, 3, 3, 3), (1000, 7), (5,), (2, 1, 4), (3, 64, 2)]:
        flat = np.arange(math.prod(shape)).reshape(shape)
        for most in (1, 2, 5, 7, 37, 128, 10_000):
            parts = boxes(shape, most)
            assert [a for a, _, _ in parts] == [0, *(b for _, b, _ in parts[:-1])]
            assert parts[-1][1] == flat.size
            for a, b, index in parts:
                assert 0 < b - a <= most
                assert flat[index].reshape(-1).tolist() == list(range(a, b))


def test_a_remembering_machine_reads_only_what_it_costed(ppm: AppFit) -> None:
    """The band's passes read the network's costs kept by the first: the same arguments on the
    same hardware; never on other hardware (another line rate, a probing machine)."""
    cfg = GRID.flat()
    base = Machine(BEOWULF, cfg["channels"], cfg["link_speed"], overhead=cfg["latency"])
    p, n = cfg["nodes"], np.full(GRID.size, 16.0)
    plain = ppm.model.evaluate(p, ppm.values, base, n)
    kept = base.remembering()
    first = ppm.model.evaluate(p, ppm.values, kept, n)
    assert kept.kept is not None
    calls = {k: len(v) for k, v in kept.kept.calls.items()}
    moved = {**ppm.values, "end_wait": ppm.values["end_wait"] * 2}
    again = ppm.model.evaluate(p, moved, replace(kept, log=None), n)
    assert {k: len(v) for k, v in kept.kept.calls.items()} == calls   # all read, none added
    for key, v in plain.items():
        assert np.array_equal(v, first[key], equal_nan=True)
    for key, v in ppm.model.evaluate(p, moved, base, n).items():
        assert np.array_equal(v, again[key], equal_nan=True)
    faster = replace(kept, line_rate=cfg["link_speed"] * 10)
    want = ppm.model.evaluate(p, ppm.values, replace(base, line_rate=cfg["link_speed"] * 10), n)
    for key, v in ppm.model.evaluate(p, ppm.values, faster, n).items():
        assert np.array_equal(v, want[key], equal_nan=True)
    probing = kept.probing()
    want = ppm.model.evaluate(p, ppm.values, base.probing(), n)
    for key, v in ppm.model.evaluate(p, ppm.values, probing, n).items():
        assert np.array_equal(v, want[key], equal_nan=True)


def test_a_free_wire_costed_once_per_node_count_equals_every_row(nbody: AppFit) -> None:
    s = sweep(nbody, BEOWULF, GRID)
    rows = analysis.link_rows(s)
    rows = np.concatenate([rows, rows[::7]])      # any rows, some twice
    got = wire_share(nbody, BEOWULF, s, rows)
    for k, i in enumerate(rows):
        c = {a: float(v[i]) for a, v in s.config.items()}
        ideal = sum(_alone(nbody, c, None, nbody.values, line_rate=IDEAL_RATE).values())
        assert got[k] == pytest.approx(1.0 - ideal / s.time[i], rel=1e-9, abs=1e-12)


def test_weak_scaling_and_a_grid_without_axes(ppm: AppFit) -> None:
    """Under weak scaling each box grows the problem with its node counts; a grid of no axis
    is the profile's own hardware at one node."""
    weak = sweep(ppm, BEOWULF, MIXED, size=16, weak=True)
    for i in range(MIXED.size):
        c = {k: float(v[i]) for k, v in weak.config.items()}
        on = Machine(BEOWULF, channels=c["channels"], overhead=c["latency"])
        p = np.array([c["nodes"]])
        t = sum(ppm.model.part_times(p, ppm.values, on, 16 * p).values())[0]
        one = sum(ppm.model.part_times(np.ones(1), ppm.values, on, np.full(1, 16.0)).values())
        assert weak.time[i] == pytest.approx(t, rel=1e-12)
        assert weak.speedup[i] == pytest.approx(one[0] * c["nodes"] / t, rel=1e-12)
    alone = sweep(ppm, BEOWULF, Grid({}))
    assert alone.time.shape == (1,)
    want = sum(ppm.model.part_times(np.ones(1), ppm.values, Machine(BEOWULF)).values())[0]
    assert alone.time[0] == pytest.approx(want, rel=1e-12) and alone.speedup[0] == 1.0


def test_the_cap_names_the_size_and_the_cap() -> None:
    with pytest.raises(InputError) as err:
        Grid({"nodes": np.arange(1.0, 3001.0), "link_speed": np.arange(1.0, 2001.0) * 1e6})
    said = str(err.value)
    assert "6,000,000 configurations (3000 nodes × 2000 link speed)" in said
    assert "more than the 5,000,000 a sweep may have" in said
    assert err.value.fix == "give fewer values, or coarser ranges"


def test_shares_are_computed_once(ppm: AppFit) -> None:
    s = sweep(ppm, BEOWULF, GRID)
    assert s.comm_share is s.comm_share and s.sync_share is s.sync_share
    assert s.extrapolated is s.extrapolated and s.extrapolation is s.extrapolation
    with np.errstate(all="ignore"):
        assert np.array_equal(s.comm_share, s.terms["communication"] / s.time, equal_nan=True)
        assert np.array_equal(s.sync_share, s.terms["synchronisation"] / s.time,
                              equal_nan=True)


# --- the analysis, against the loops it replaced -----------------------------------------------

def _old_held_mask(s: Sweep, free: str | None = None) -> np.ndarray:
    coords = s.grid.coords()
    mask = np.ones(len(s.time), dtype=bool)
    for name, (j, _, _) in analysis.held(s).items():
        if name != free:
            mask &= coords[name] == j
    return mask


def _old_lesser_first(s: Sweep, idx: np.ndarray, limit: int | None = None) -> np.ndarray:
    t = np.where(np.isfinite(s.rank_time[idx]), s.rank_time[idx], np.inf)
    order = np.argsort(t, kind="stable")
    ts, ids = t[order], idx[order]
    keys = [-s.config["latency"][ids]] if "latency" in s.config else []
    keys += [analysis.goodness(s, a, s.config[a][ids]) for a in ("network", "node")
             if a in s.config]
    keys += [s.config[a][ids] for a in ("link_speed", "channels", "nodes") if a in s.config]
    if s.cost is not None:
        keys.append(np.nan_to_num(s.cost[ids], nan=np.inf))
    out: list[int] = []
    i = 0
    while i < len(ids) and (limit is None or len(out) < limit):
        if not np.isfinite(ts[i]):
            out.extend(ids[i:].tolist())
            break
        j = i + int(np.searchsorted(ts[i:], ts[i] * (1 + analysis.TIE), side="right"))
        group = np.arange(i, j)
        if len(group) > 1 and keys:
            group = group[np.lexsort(tuple(k[group] for k in keys))]
        out.extend(ids[group].tolist())
        i = j
    return np.asarray(out if limit is None else out[:limit], dtype=np.intp)


def _old_front(s: Sweep) -> list[int]:
    nodes = s.config.get("nodes", np.ones(len(s.time)))
    t = s.rank_time
    have = analysis.offered(s)
    if have.size == 0:
        return []
    order = have[np.argsort(nodes[have], kind="stable")]
    keep, best = [], np.inf
    for at in np.split(order, np.flatnonzero(np.diff(nodes[order])) + 1):
        i = int(_old_lesser_first(s, at, 1)[0])
        if np.isfinite(t[i]) and t[i] < best * (1 - analysis.TIE):
            keep.append(i)
            best = t[i]
    return keep


def _old_cost_front(s: Sweep) -> list[int]:
    if s.cost is None:
        return []
    t = s.rank_time
    ok = np.flatnonzero(np.isfinite(s.cost) & np.isfinite(t))
    keep, best = [], np.inf
    for i in ok[np.lexsort((t[ok], s.cost[ok]))]:
        if t[i] < best * (1 - analysis.TIE):
            keep.append(int(i))
            best = t[i]
    return keep


def _old_steps(s: Sweep, worth: float) -> list[tuple[str, float, float, list[float],
                                                      list[float], list[float]]]:
    out = []
    coords = s.grid.coords()
    nodes = s.config.get("nodes", np.ones(len(s.time)))
    for axis, values in s.grid.axes.items():
        if axis == "nodes" or len(values) < 2:
            continue
        mask = _old_held_mask(s, axis)
        for ja, jb in pairwise(np.argsort(analysis.goodness(s, axis, values), kind="stable")):
            ia = np.flatnonzero(mask & (coords[axis] == ja))
            ib = np.flatnonzero(mask & (coords[axis] == jb))
            ia, ib = ia[np.argsort(nodes[ia])], ib[np.argsort(nodes[ib])]
            with np.errstate(all="ignore"):
                gain = s.time[ia] / s.time[ib]
            out.append((axis, float(values[ja]), float(values[jb]), nodes[ia].tolist(),
                        gain.tolist(), nodes[ia][gain >= 1.0 / (1.0 - worth)].tolist()))
    return out


def _old_unbottlenecked(s: Sweep, rows: np.ndarray, wire: np.ndarray, share: float
                        ) -> tuple[list[float], list[float]]:
    nodes = s.config.get("nodes", np.ones(len(s.time)))[rows]
    rates = s.config["link_speed"][rows]
    counts = np.unique(nodes)
    out = np.full(len(counts), np.nan)
    for i, q in enumerate(counts):
        ok = (nodes == q) & (wire < share)
        if np.any(ok):
            out[i] = rates[ok].min()
    return counts.tolist(), out.tolist()


def _old_per_hardware(s: Sweep, order: np.ndarray) -> list[int]:
    seen: set[tuple[float, ...]] = set()
    out = []
    for i in order:
        key = tuple(float(s.config[a][i]) if a in s.config else math.nan
                    for a in ("node", "network", "channels"))
        if key not in seen:
            seen.add(key)
            out.append(int(i))
    return out


def _tied(grid: Grid, seed: int, weak: bool = False) -> Sweep:
    """A sweep of made-up times on ``grid``: a few distinct values, many exact ties, many
    within a tie (TIE) of each other, some not finite; prices from the catalogue."""
    rng = np.random.default_rng(seed)
    n = grid.size
    cfg = grid.flat()
    levels = 10.0 * (1 + analysis.TIE / 3) ** rng.integers(0, 12, n)   # chains of near ties
    faster = cfg.get("nodes", np.ones(n)) ** -rng.choice([0.0, 0.3, 0.6], n)
    time = np.where(rng.random(n) < 0.05, np.nan,
                    np.round(levels * faster * rng.choice([1.0, 2.0, 3.0], n), 2))
    base = baseline_values(BEOWULF, grid.catalogue)
    terms = {k: time * w for k, w in zip(TERMS, (0.5, 0.1, 0.3, 0.1), strict=True)}
    return Sweep(grid, cfg, time, time * 0.9, time * 1.1, terms, np.ones(n), base, weak,
                 prices(grid, base, cfg))


SWEEPS = [(GRID, 1), (GRID, 2), (_catalogue_grid(tuple(range(1, 41))), 3),
          (_catalogue_grid(tuple(range(1, 41))), 4),
          (Grid({"nodes": np.array([4.0, 1.0, 2.0]), "link_speed": np.array([2e6, 1e6])}), 5),
          (Grid({"channels": np.array([1.0, 2.0, 3.0]), "latency": np.array([1e-4, 1e-5])}),
           6), (MIXED, 7), (MIXED, 8)]


@pytest.mark.parametrize(("grid", "seed"), SWEEPS)
@pytest.mark.parametrize("weak", [False, True])
def test_the_analysis_equals_the_loops_it_replaced(grid: Grid, seed: int, weak: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    s = _tied(grid, seed, weak)
    every = np.arange(grid.size)
    assert analysis.lesser_first(s, every).tolist() == _old_lesser_first(s, every).tolist()
    some = np.random.default_rng(seed).permutation(grid.size)[: grid.size // 2]
    for limit in (None, 1, 3, 5, 17, grid.size):
        assert analysis.lesser_first(s, some, limit).tolist() == \
            _old_lesser_first(s, some, limit).tolist()
    assert analysis.best(s, 5).tolist() == _old_lesser_first(s, analysis.offered(s), 5).tolist()
    assert analysis.front(s).tolist() == _old_front(s)
    whole = analysis.best_per_node_count(s).tolist()
    for block in (1, 3, 7):   # the sweep read in blocks, ties across blocks: the same picks
        with monkeypatch.context() as m:
            m.setattr(analysis, "BLOCK", block)
            assert analysis.best_per_node_count(s).tolist() == whole
            assert analysis.front(s).tolist() == _old_front(s)
    assert analysis.cost_front(s).tolist() == _old_cost_front(s)
    new = [(x.axis, x.before, x.after, x.nodes.tolist(), x.gain.tolist(), x.pays.tolist())
           for x in analysis.steps(s, 0.05)]
    assert str(new) == str(_old_steps(s, 0.05))     # NaN gains compare as text
    nodes = s.config.get("nodes", np.ones(grid.size))
    held = np.flatnonzero(_old_held_mask(s))
    assert analysis.baseline(s).tolist() == \
        held[np.argsort(nodes[held], kind="stable")].tolist()
    if "link_speed" in grid.axes:
        rows = analysis.link_rows(s)
        assert rows.tolist() == np.flatnonzero(_old_held_mask(s, "link_speed")).tolist()
        wire = np.random.default_rng(seed).random(len(rows)) * 0.2
        got = analysis.unbottlenecked(s, rows, wire, 0.1)
        assert str((got[0].tolist(), got[1].tolist())) == \
            str(_old_unbottlenecked(s, rows, wire, 0.1))
    order = analysis.lesser_first(s, every)
    assert _per_hardware(s, order).tolist() == _old_per_hardware(s, order)


def test_notes_read_each_node_count_once() -> None:
    """The extrapolation notes name the node counts from their distinct values: the same
    words as from every row."""
    rng = np.random.default_rng(29)
    nodes = rng.choice(np.array([1.0, 2, 3, 4, 8, 9, 17, 40, 41, 42, 64]), 5000)
    why = Extrapolation(nodes, (1.0, 8.0), np.full(nodes.shape, math.nan), (0.0, math.inf))
    (note,) = why.notes()
    assert note.startswith(f"node counts {format_counts(nodes[nodes > 8].tolist())} lie ")


def test_csv_rows_equal_the_row_by_row_format(ppm: AppFit,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from perfmodel.cli import whatif_view

    grid = _catalogue_grid()
    s = sweep(ppm, BEOWULF, grid)
    out = io.StringIO()
    monkeypatch.setattr(whatif_view.sys, "stdout", out)
    monkeypatch.setattr(whatif_view, "CSV_ROWS", 7)
    whatif_view.csv_rows(s)
    lines = out.getvalue().splitlines()
    names = list(grid.axes)
    assert s.cost is not None
    cols = [s.config[n] for n in names] + [s.cost, s.time, s.lo, s.hi, s.speedup,
                                           s.comm_share, s.sync_share,
                                           s.extrapolated.astype(np.float64)]
    assert len(lines) == 1 + grid.size
    for i, line in enumerate(lines[1:]):
        cells = ["" if not math.isfinite(float(c[i])) else f"{c[i]:.10g}" for c in cols]
        cells[names.index("node")] = CATALOGUE.nodes[int(s.config["node"][i])].name
        cells[names.index("network")] = CATALOGUE.networks[int(s.config["network"][i])].name
        assert line == ",".join(cells)
