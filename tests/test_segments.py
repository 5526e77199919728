"""The piecewise search is exact: checked against brute force."""

import itertools

import numpy as np
import pytest
from scipy.optimize import nnls

from perfmodel.network.fit import MIN_SIZES_PER_SEGMENT, _segment, _segment_costs


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
    cost = _segment_costs(m, y, sizes)
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
    cost = _segment_costs(sizes, y, sizes)
    total, starts = _segment(cost, k)
    best = min(
        (sum(cost[a, b] for a, b in itertools.pairwise((0, *cut, len(sizes)))), list(cut))
        for cut in itertools.combinations(range(1, len(sizes)), k - 1))
    assert total == pytest.approx(best[0]) and starts == best[1]
