"""The piecewise search is exact: checked against brute force; above EXACT_SIZES distinct
sizes, the grid search zooming in recovers known breakpoints and finds the exact split."""

import itertools

import numpy as np
import pytest
from scipy.optimize import nnls

from perfmodel.measurements import Measurements
from perfmodel.network import models as registry
from perfmodel.network import segments as fitting
from perfmodel.network.fit import fit, fit_model
from perfmodel.network.segments import (
    EXACT_SIZES,
    GRID_EDGES,
    MIN_SIZES_PER_SEGMENT,
    cumulative,
    edges,
    grid_segment,
    segment,
    segment_costs,
)


def _brute_cost(m: np.ndarray, y: np.ndarray) -> float:
    a = np.column_stack([np.ones_like(m), m]) / y[:, None]
    return float(nnls(a, np.ones_like(y))[1] ** 2)


@pytest.mark.parametrize("seed", range(5))
def test_segment_costs_equal_nonnegative_least_squares(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = np.unique(np.round(np.geomspace(1, 2**22, 14)))
    m = np.repeat(sizes, 2)
    # times that sometimes fall with size, so the non-negativity constraint is active
    y = (1e-6 + m / 1e9) * np.exp(0.4 * rng.standard_normal(m.size))
    cost = segment_costs(m, y, sizes)
    for i in range(len(sizes)):
        for j in range(i + MIN_SIZES_PER_SEGMENT, len(sizes) + 1):
            sel = (m >= sizes[i]) & (m <= sizes[j - 1])
            assert cost[i, j] == pytest.approx(_brute_cost(m[sel], y[sel]), rel=1e-6, abs=1e-12)
        assert np.all(np.isinf(cost[i, i:i + MIN_SIZES_PER_SEGMENT]))


@pytest.mark.parametrize("k", [2, 3])
def test_dynamic_programme_finds_the_best_split(k: int) -> None:
    rng = np.random.default_rng(k)
    sizes = np.unique(np.round(np.geomspace(1, 2**22, 13)))
    y = (1e-6 + sizes / 1e9) * np.exp(0.2 * rng.standard_normal(sizes.size))
    cost = segment_costs(sizes, y, sizes)
    total, starts = segment(cost, k)
    best = min(
        (sum(cost[a, b] for a, b in itertools.pairwise((0, *cut, len(sizes)))), list(cut))
        for cut in itertools.combinations(range(1, len(sizes)), k - 1))
    assert total == pytest.approx(best[0]) and starts == best[1]


# --- many distinct sizes: the grid search, zooming in (issue 29) --------------------------------

TRUTH = {"alpha_1": 2e-6, "beta_1": 1e9, "alpha_2": 8e-6, "beta_2": 4e9, "alpha_3": 30e-6,
         "beta_3": 8e9, "breakpoint_1": 4096.0, "breakpoint_2": 65536.0}
"""Three Hockney segments with jumps at 4 KiB and 64 KiB (eager, rendezvous)."""
BREAKS = ("breakpoint_1", "breakpoint_2")


def _sizes(spacing: str, count: int) -> np.ndarray:
    """Distinct sizes evenly spaced from 40 B to 160 kB (40 B apart at 4000 sizes, as in a
    fine-grained NetPIPE run), or spaced geometrically from 16 B to 1 MiB."""
    if spacing == "linear":
        return np.round(np.linspace(40, 160_000, count))
    return np.unique(np.round(np.geomspace(16, 2**20, count)))


def _three_segments(sizes: np.ndarray, seed: int, noise: float = 0.02) -> Measurements:
    """One row per size from TRUTH, with log-normal noise of ``noise``, seeded."""
    rng = np.random.default_rng(seed)
    t = registry.evaluate("piecewise", sizes, TRUTH) * np.exp(noise * rng.standard_normal(
        sizes.size))
    return Measurements(f"three-segments-{seed}", sizes, t, tuple(range(2, sizes.size + 2)))


@pytest.mark.parametrize("spacing", ["linear", "geometric"])
@pytest.mark.parametrize("seed", range(3))
def test_grid_search_recovers_known_breakpoints_and_segments(spacing: str, seed: int) -> None:
    """Thousands of distinct sizes (above EXACT_SIZES): auto finds three segments, each
    breakpoint in the same gap between sizes as the truth or the next one (one size step),
    and every α and β within 2 % and 3.5 standard errors."""
    sizes = _sizes(spacing, 4000)
    assert sizes.size > EXACT_SIZES
    result = fit(_three_segments(sizes, seed)).best
    assert result.model.kind == "piecewise"
    assert any("grid" in note for note in result.notes)
    got = result.model.values
    assert sorted(n for n in got if n.startswith("breakpoint")) == list(BREAKS)
    for name in BREAKS:
        found, true = np.searchsorted(sizes, [got[name], TRUTH[name]])
        assert abs(int(found) - int(true)) <= 1, (name, got[name])
    for name in sorted(set(TRUTH) - set(BREAKS)):
        p = result.model.estimate(name)
        assert p.value == pytest.approx(TRUTH[name], rel=0.02), name
        assert abs(p.value - TRUTH[name]) < 3.5 * p.stderr, name


@pytest.mark.parametrize("spacing", ["linear", "geometric"])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("count", [64, GRID_EDGES])
def test_grid_search_equals_the_exact_search(spacing: str, seed: int, count: int) -> None:
    """On 400 distinct sizes both searches can run: zooming in from a grid of ``count``
    candidates finds the exact dynamic programme's split and RSS, for the three segments the
    data have."""
    sizes = _sizes(spacing, 400)
    data = _three_segments(sizes, seed)
    m, y = data.size, data.time
    exact = segment(segment_costs(m, y, sizes), 3)
    zoomed = grid_segment(cumulative(m, y), edges(m, sizes), sizes, 3, count)
    assert zoomed[1] == exact[1]
    assert zoomed[0] == pytest.approx(exact[0], rel=1e-9)


@pytest.mark.parametrize("seed", range(2))
def test_fit_is_the_same_on_either_search(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Just above EXACT_SIZES the piecewise fit on the grid search is the exact search's."""
    data = _three_segments(_sizes("geometric", 700), seed)
    assert len(np.unique(data.size)) > EXACT_SIZES
    zoomed = fit_model(data, "piecewise")
    monkeypatch.setattr(fitting, "EXACT_SIZES", 10_000)
    exact = fit_model(data, "piecewise")
    assert zoomed.model.values == pytest.approx(exact.model.values, rel=1e-9)
    assert zoomed.rss == pytest.approx(exact.rss, rel=1e-9)
    assert any("grid" in note for note in zoomed.notes)
    assert not any("grid" in note for note in exact.notes)


def test_vectorised_programme_equals_the_loop_over_ends() -> None:
    """The dynamic programme taken for every end at once gives the one-end-at-a-time loop's
    totals and starts (ties to the first, as before)."""
    rng = np.random.default_rng(7)
    sizes = np.unique(np.round(np.geomspace(1, 2**22, 60)))
    y = (1e-6 + sizes / 1e9) * np.exp(0.3 * rng.standard_normal(sizes.size))
    cost = segment_costs(sizes, y, sizes)
    for k in range(2, 6):
        u = cost.shape[0] - 1
        best = np.full((k + 1, u + 1), np.inf)
        arg = np.zeros((k + 1, u + 1), dtype=int)
        best[0, 0] = 0.0
        for s in range(1, k + 1):
            for j in range(1, u + 1):
                totals = best[s - 1, :j] + cost[:j, j]
                arg[s, j] = int(np.argmin(totals))
                best[s, j] = totals[arg[s, j]]
        starts, j = [], u
        for s in range(k, 0, -1):
            j = int(arg[s, j])
            starts.append(j)
        assert segment(cost, k) == (float(best[k, u]), sorted(starts)[1:])
