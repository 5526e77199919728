"""Laws: the formulas, and the equivalences between them."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfmodel.network import laws
from perfmodel.network import models as registry

sizes = np.array([0, 1, 100, 1500, 1501, 65536, 2**22], dtype=float)


def test_hockney_definition_and_half_performance_length() -> None:
    alpha, beta = 5e-6, 1e9
    assert np.allclose(laws.hockney(sizes, alpha, beta), alpha + sizes / beta)
    n_half = alpha * beta  # reaches half the asymptotic bandwidth
    assert n_half / laws.hockney(n_half, alpha, beta) == pytest.approx(beta / 2)


@given(st.floats(1e-7, 1e-3), st.floats(1e6, 1e11))
def test_loggp_with_no_overhead_is_hockney(L: float, bw: float) -> None:
    # T = L + 2o + (m-1)G with o = 0, G = 1/β is Hockney with α = L − G (m ≥ 1)
    m = sizes[1:]
    G = 1 / bw
    assert np.allclose(laws.loggp(m, L, 0.0, G), laws.hockney(m, L - G, bw), rtol=1e-12)


def test_loggp_zero_bytes_costs_l_plus_2o() -> None:
    assert laws.loggp(0, 5e-6, 1e-6, 1e-9) == pytest.approx(7e-6)


def test_packet_counts_whole_packets_and_at_least_one() -> None:
    t = laws.packet(sizes, 1e-6, 2e-6, 1e9, 1500)
    packets = np.array([1, 1, 1, 1, 2, 44, 2797])
    assert np.allclose(t, 1e-6 + packets * 2e-6 + sizes / 1e9)


def test_packet_without_packet_cost_is_hockney() -> None:
    assert np.allclose(laws.packet(sizes, 3e-6, 0.0, 1e9, 1500), laws.hockney(sizes, 3e-6, 1e9))


def test_piecewise_segments_start_at_their_breakpoint() -> None:
    t = laws.piecewise([1023, 1024, 65535, 65536], [1024, 65536], [1e-6, 5e-6, 50e-6],
                       [1e9, 2e9, 5e9])
    assert np.allclose(t, [1e-6 + 1023 / 1e9, 5e-6 + 1024 / 2e9, 5e-6 + 65535 / 2e9,
                           50e-6 + 65536 / 5e9])


def test_one_segment_piecewise_is_hockney() -> None:
    assert np.allclose(laws.piecewise(sizes, [], [2e-6], [3e9]), laws.hockney(sizes, 2e-6, 3e9))


def test_registry_evaluate_calls_the_laws() -> None:
    v = {"alpha_1": 1e-6, "beta_1": 1e9, "alpha_2": 4e-6, "beta_2": 2e9, "breakpoint_1": 100.0}
    assert np.allclose(registry.evaluate("piecewise", sizes, v),
                       laws.piecewise(sizes, [100.0], [1e-6, 4e-6], [1e9, 2e9]))
    assert [p.name for p in registry.param_list("piecewise", v)] == [
        "alpha_1", "beta_1", "alpha_2", "beta_2", "breakpoint_1"]
