"""Laws of a shared network: tokens contending for channels, senders into one port.

Plain NumPy functions, broadcast over their arguments, in SI units; the first pieces of the
contention models (issue 4).

**Shared medium** (the 1995 Beowulf's Ethernet segments).  ``k`` tokens cycle between a delay
``z`` (each message's software overhead and latency, in which tokens do not interfere) and a
shared station of ``s`` servers (channels) that takes ``d`` seconds per message.  This is the
finite-source queue (the "machine repairman" with ``s`` repairmen); with exponential times it
is a birth–death chain solved exactly here, which is what mean value analysis computes for one
server and what it only approximates for several.

**Fan-in** (Hyglac's senders into one switch port): the Universal Scalability Law,
``X(n) = n·x1 / (1 + σ(n−1) + κ·n(n−1))``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def finite_source_throughput(tokens: ArrayLike, servers: ArrayLike, think: ArrayLike,
                             service: ArrayLike) -> FloatArray:
    """Completions per second of ``tokens`` customers cycling through a delay and a station.

    tokens : whole number ≥ 1 of customers (pairs with a token in flight)
    servers : servers at the station, > 0 (channels; may be fractional, see
        :func:`shared_medium`); the station serves ``min(n, servers)`` customers at once
    think : seconds in the delay per cycle, ≥ 0
    service : seconds of station service per cycle, > 0

    The chain's state is the number n at the station: up-rate (k − n)/think, down-rate
    min(n, s)/service, so p(n) ∝ Π_{i ≤ n} (k − i + 1)·(service/think) / min(i, s).
    Throughput is E[min(n, s)] / service.  Computed in logs, so large ``tokens`` are fine.

    >>> float(finite_source_throughput(1, 1, 3.0, 1.0))   # one token: 1 / (z + d)
    0.25
    """
    k, s, z, d = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64)
                                       for a in (tokens, servers, think, service)))
    top = int(np.max(k)) if k.size else 0
    n = np.arange(top + 1, dtype=np.float64).reshape((-1,) + (1,) * k.ndim)
    busy = np.minimum(n, s)                                   # servers busy with n present
    z_safe = np.where(z > 0, z, 1.0)                          # z = 0 is answered below
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.log(np.maximum(k - n + 1, 0)) + np.log(d) - np.log(z_safe) - np.log(busy)
    step[0] = 0.0
    logw = np.cumsum(step, axis=0)
    logw = np.where(n <= k, logw, -np.inf)
    logw = np.where(np.isnan(logw), -np.inf, logw)
    peak = np.max(logw, axis=0)
    w = np.exp(logw - peak)
    x = np.sum(w * busy, axis=0) / np.sum(w, axis=0) / d
    # no delay at all: every token waits at the station, which is then always as busy as it can be
    return np.where(z > 0, x, np.minimum(k, s) / d)


def shared_medium(size: ArrayLike, tokens: ArrayLike, channels: ArrayLike, *, overhead: float,
                  bandwidth: float, efficiency: float = 1.0, packet: float = np.inf,
                  header: float = 0.0) -> FloatArray:
    """Messages per second, summed over ``tokens``, on ``channels`` shared channels.

    size : message bytes, ≥ 0
    tokens : messages in flight at once (ping-pong pairs), whole ≥ 1
    channels : channels (Ethernet segments, NICs) used in turn, whole ≥ 1
    overhead : seconds per message outside the medium (software, latency), ≥ 0
    bandwidth : bytes per second of one channel (line rate), > 0
    efficiency : fraction of the line rate a channel delivers, in (0, 1]
    packet : payload bytes per packet (the MTU's), > 0; a message of ``p`` packets spreads
        over ``j = min(p, channels)`` channels (packets are dealt to channels in turn)
    header : bytes each packet adds on the wire

    A message occupies the medium for (size + p·header) / (bandwidth·efficiency·j) seconds,
    and the station has channels / j such servers: one-packet messages queue for any free
    channel, large messages use every channel at once.
    """
    m = np.asarray(size, dtype=np.float64)
    c = np.asarray(channels, dtype=np.float64)
    packets = np.maximum(np.ceil(m / packet), 1.0)
    spread = np.minimum(packets, c)
    wire = (m + packets * header) / (bandwidth * efficiency)
    return finite_source_throughput(tokens, c / spread, overhead, wire / spread)


def usl(n: ArrayLike, x1: float, sigma: float, kappa: float) -> FloatArray:
    """Universal Scalability Law: throughput of ``n`` senders, each alone giving ``x1``.

    sigma : contention (serialised fraction), ≥ 0
    kappa : coherency (pairwise crosstalk), ≥ 0; throughput peaks at n* = √((1 − σ)/κ)

    >>> float(usl(1, 5.0, 0.3, 0.1)), float(usl(4, 1.0, 0.0, 0.0))
    (5.0, 4.0)
    """
    nn = np.asarray(n, dtype=np.float64)
    return nn * x1 / (1.0 + sigma * (nn - 1.0) + kappa * nn * (nn - 1.0))
