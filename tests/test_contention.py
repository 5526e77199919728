"""Contention laws against independent computations: MVA (exact for one server), the
birth–death chain solved as a linear system, and the limits every closed network obeys."""

from __future__ import annotations

import numpy as np
import pytest

from perfmodel.network.contention import (
    fan_in,
    finite_source_throughput,
    message_time,
    shared_medium,
    switched_pairs,
    usl,
)


def _mva_one_server(k: int, z: float, d: float) -> float:
    """Mean value analysis of a delay z and one queueing server d (Reiser & Lavenberg)."""
    queue = 0.0
    x = 0.0
    for n in range(1, k + 1):
        r = d * (1 + queue)
        x = n / (z + r)
        queue = x * r
    return x


def _chain(k: int, s: float, z: float, d: float) -> float:
    """The same network as a continuous-time Markov chain, solved by linear algebra."""
    q = np.zeros((k + 1, k + 1))
    for n in range(k + 1):
        if n < k:
            q[n, n + 1] = (k - n) / z
        if n > 0:
            q[n, n - 1] = min(n, s) / d
        q[n, n] = -q[n].sum()
    a = np.vstack([q.T, np.ones(k + 1)])
    p = np.linalg.lstsq(a, np.r_[np.zeros(k + 1), 1.0], rcond=None)[0]
    return float(sum(p[n] * min(n, s) / d for n in range(k + 1)))


@pytest.mark.parametrize("seed", range(6))
def test_one_server_equals_mva(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k, z, d = int(rng.integers(1, 40)), float(rng.uniform(0, 5)), float(rng.uniform(0.1, 3))
    assert finite_source_throughput(k, 1, z, d) == pytest.approx(_mva_one_server(k, z, d),
                                                                 rel=1e-10)


@pytest.mark.parametrize("seed", range(6))
def test_several_servers_equal_the_chain(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    k, s = int(rng.integers(1, 30)), float(rng.choice([1, 2, 3, 1.5, 2.5]))
    z, d = float(rng.uniform(0.05, 5)), float(rng.uniform(0.1, 3))
    assert finite_source_throughput(k, s, z, d) == pytest.approx(_chain(k, s, z, d), rel=1e-9)


def test_limits() -> None:
    z, d = 2.0, 0.5
    assert finite_source_throughput(1, 3, z, d) == pytest.approx(1 / (z + d))
    # as many servers as tokens: nobody waits
    assert finite_source_throughput(4, 4, z, d) == pytest.approx(4 / (z + d))
    # many tokens: the station saturates at servers / service
    assert finite_source_throughput(2000, 2, z, d) == pytest.approx(2 / d, rel=1e-9)
    # no delay: always saturated
    assert finite_source_throughput(3, 2, 0.0, d) == pytest.approx(2 / d)
    # throughput never exceeds either bound, and grows with tokens
    k = np.arange(1, 30)
    x = finite_source_throughput(k, 2, z, d)
    assert np.all(x <= np.minimum(k / (z + d), 2 / d) * (1 + 1e-12))
    assert np.all(np.diff(x) > 0)


def test_broadcasting_over_grids() -> None:
    k = np.arange(1, 9)[:, None]
    c = np.array([1.0, 2.0])[None, :]
    x = finite_source_throughput(k, c, 1.0, 0.25)
    assert x.shape == (8, 2)
    assert x[3, 1] == pytest.approx(_chain(4, 2, 1.0, 0.25), rel=1e-9)


ETH = {"line_rate": 1.25e6, "eta": 0.8, "overhead": 1e-4, "copy": 0.0, "bond": 1.0,
       "packet": 1024.0, "header": 0.0}


def test_message_time_is_a_pipeline() -> None:
    # no host cost per byte: the wire alone, spread over the channels a message can use
    t1, hold = message_time(8192, [1, 2], **ETH)
    np.testing.assert_allclose(hold, [8192 / 1e6, 8192 / 2e6])
    np.testing.assert_allclose(t1, 1e-4 + hold + 0.0)
    # a slow host (copy 2 µs/B) is the slower stage once the wire is split in two
    slow = {**ETH, "copy": 2e-6}
    t1, hold = message_time(8192, [1, 2], **slow)
    first = min(1024 * 2e-6, 1024 / 1e6)
    np.testing.assert_allclose(t1, 1e-4 + np.maximum(8192 * 2e-6, hold) + first)
    # one packet: nothing to overlap, host then wire
    t1, hold = message_time(512, 2, **slow)
    assert float(t1) == pytest.approx(1e-4 + 512 * 2e-6 + 512 / 1e6)
    # bond < 1: a second channel adds only that fraction
    _, hold = message_time(8192, 2, **{**ETH, "bond": 0.5})
    assert float(hold) == pytest.approx(8192 / 1e6 / 1.5)


def test_shared_medium_spreads_large_messages_and_queues_small_ones() -> None:
    # one token, 8 KiB (8 packets): two channels halve its time on the wire
    one, two = shared_medium(8192, 1, [1, 2], **ETH)
    assert one == pytest.approx(1 / (1e-4 + 8192 / 1e6))
    assert two == pytest.approx(1 / (1e-4 + 8192 / 2e6))
    # one-packet tokens do not spread: a second channel serves a second token instead
    single = shared_medium(512, [1, 2], 2, **ETH)
    assert single[0] == pytest.approx(1 / (1e-4 + 512 / 1e6))
    assert single[1] == pytest.approx(2 / (1e-4 + 512 / 1e6))
    # many tokens saturate every channel, whatever the host costs
    many = shared_medium([512, 8192], 500, 2, **{**ETH, "overhead": 3e-3, "copy": 1e-7})
    np.testing.assert_allclose(many * [512, 8192], 2e6, rtol=1e-9)


def test_switched_pairs_are_independent_until_the_fabric_fills() -> None:
    t1, _ = message_time(4096, 1, **ETH)
    x = switched_pairs(4096, [1, 4, 16], 1, fabric=8e6, **ETH)
    np.testing.assert_allclose(x[:2], [1 / t1, 4 / t1])
    assert x[2] == pytest.approx(8e6 / 4096)


def test_fan_in_limits() -> None:
    kw = {**ETH, "mux": 1e-4, "loss": 2e-7, "onset": 2.0}
    # one sender: the slower of its host and the port
    x1 = fan_in(8192, 1, 1, **kw)
    assert float(x1) == pytest.approx(1 / max(1e-4, 8192 / 1e6))
    n = np.arange(1, 16)
    x = fan_in(8192, n, 1, **kw)
    assert np.all(np.diff(x) <= 0)                      # more senders never help
    # many senders: the port's losses govern, the same per byte for every size
    big = fan_in(np.array([1024, 65536]), 400, 1, **kw) * [1024, 65536]
    assert big[0] == pytest.approx(big[1], rel=1e-9)
    assert big[1] == pytest.approx(1 / (1 / 1e6 + 2e-7), rel=1e-9)
    # no mux and no loss: fan-in shares the port fairly
    fair = fan_in(8192, n, 1, **{**kw, "mux": 0.0, "loss": 0.0})
    np.testing.assert_allclose(fair, fair[0])


def test_usl() -> None:
    assert usl(1, 3.0, 0.4, 0.02) == pytest.approx(3.0)
    n = np.arange(1, 200)
    x = usl(n, 1.0, 0.1, 0.001)
    assert n[np.argmax(x)] == round(np.sqrt((1 - 0.1) / 0.001))
    np.testing.assert_allclose(usl(n, 2.0, 0.0, 0.0), 2.0 * n)


def _direct(tokens: int, s: float, z: float, d: float) -> float:
    """The chain summed term by term in logs (the O(k) way the closed form replaces)."""
    n = np.arange(tokens + 1, dtype=np.float64)
    busy = np.minimum(n, s)
    with np.errstate(divide="ignore"):
        step = np.log(np.maximum(tokens - n + 1, 0)) + np.log(d / z) - np.log(busy)
    step[0] = 0.0
    logw = np.cumsum(step)
    w = np.exp(logw - logw.max())
    return float(np.sum(w * busy) / np.sum(w) / d)


def test_closed_form_equals_the_chain_summed_term_by_term() -> None:
    """Over token counts to 512, fractional and whole servers, and loads from a trickle to
    saturation (ρ = d/z from 1e-6 to 1e6), where the incomplete gamma function underflows
    and where it does not."""
    rng = np.random.default_rng(11)
    k = np.r_[1, 2, 3, 4, 7, 64, 511, 512, rng.integers(1, 513, 200)]
    s = rng.choice([0.5, 1.0, 1.5, 2.0, 2.9, 3.0, 8.0], k.size)
    rho = 10 ** rng.uniform(-6, 6, k.size)
    d = rng.uniform(1e-6, 1.0, k.size)
    got = finite_source_throughput(k, s, d / rho, d)
    want = [_direct(int(a), b, c / r, c) for a, b, c, r in zip(k, s, d, rho, strict=True)]
    assert got == pytest.approx(want, rel=1e-9)
    # scalars take the same path as arrays, where the incomplete gamma underflows too
    for a, b, c, r in [(1, 0.5, 1.0, 1e-6), (64, 1.0, 1.0, 1e-3), (512, 3.0, 1e-3, 1e-5)]:
        one = finite_source_throughput(a, b, c / r, c)
        assert np.ndim(one) == 0
        assert float(one) == pytest.approx(_direct(a, b, c / r, c), rel=1e-9)
