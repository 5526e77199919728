"""Point-to-point laws: one-way time of an m-byte message, as plain NumPy functions.

These functions are the single truth that fitting, prediction, reports and tests call.
All take ``nbytes`` (bytes, scalar or array) and return seconds with the same shape.
A ping-pong round trip is twice the one-way time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def hockney(nbytes: ArrayLike, alpha: float, beta: float) -> FloatArray:
    """Hockney: T = α + m/β.

    alpha : float — start-up latency, seconds
    beta : float — asymptotic bandwidth r∞, bytes per second
    The half-performance length n½ = α·β is the size that reaches half of β.

    >>> float(hockney(1000, 1e-6, 1e9))
    2e-06
    """
    m = np.asarray(nbytes, dtype=np.float64)
    return alpha + m / beta


def loggp(nbytes: ArrayLike, L: float, o: float, G: float) -> FloatArray:
    """LogGP: T = L + 2o + (m−1)·G for m ≥ 1 (a zero-byte message costs L + 2o).

    L : float — network latency, seconds
    o : float — send and receive overhead, seconds each
    G : float — gap per byte of a long message, seconds per byte (1/G is the bandwidth)
    A ping-pong identifies only L + 2o, not L and o apart; the gap g between messages
    sets the message rate and does not enter the time of one message.

    >>> round(float(loggp(1, 5e-6, 1e-6, 1e-9)) * 1e6, 9)   # µs
    7.0
    """
    m = np.asarray(nbytes, dtype=np.float64)
    return L + 2.0 * o + np.maximum(m - 1.0, 0.0) * G


def packet(nbytes: ArrayLike, alpha: float, t_pkt: float, beta: float,
           mtu: float) -> FloatArray:
    """Packetised: T = α + ⌈m/MTU⌉·t_pkt + m/β, with at least one packet per message.

    alpha : float — start-up latency, seconds
    t_pkt : float — cost of each packet (headers, interrupts, per-frame gaps), seconds
    beta : float — bandwidth, bytes per second
    mtu : float — payload bytes per packet

    >>> float(packet(3000, 1e-6, 1e-6, 1e9, 1500))
    6e-06
    """
    m = np.asarray(nbytes, dtype=np.float64)
    packets = np.maximum(np.ceil(m / mtu), 1.0)
    return alpha + packets * t_pkt + m / beta


def piecewise(nbytes: ArrayLike, breakpoints: Sequence[float], alphas: Sequence[float],
              betas: Sequence[float]) -> FloatArray:
    """Piecewise Hockney: segment i covers b[i−1] ≤ m < b[i] with T = α_i + m/β_i.

    breakpoints : k−1 increasing sizes, bytes, for k segments
    alphas, betas : k latencies (s) and bandwidths (B/s)
    Segments need not join: protocol switches (eager to rendezvous) jump.

    >>> [round(float(t) * 1e6, 9) for t in piecewise([10, 100], [50], [1e-6, 5e-6], [1e9, 1e9])]
    [1.01, 5.1]
    """
    m = np.asarray(nbytes, dtype=np.float64)
    seg = np.searchsorted(np.asarray(breakpoints, dtype=np.float64), m, side="right")
    a = np.asarray(alphas, dtype=np.float64)[seg]
    b = np.asarray(betas, dtype=np.float64)[seg]
    return np.asarray(a + m / b, dtype=np.float64)
