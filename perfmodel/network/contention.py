"""Laws of a shared network: tokens contending for channels, senders into one port.

Plain NumPy functions, broadcast over their arguments, in SI units.

**One message alone** (:func:`message_time`): the host copies packets out while earlier ones
are on the wire, a two-stage pipeline; a message of several packets spreads over channels.

**Shared medium** (the 1995 Beowulf's Ethernet segments, :func:`shared_medium`).  ``k`` tokens
cycle between a delay (their hosts, in which tokens do not interfere) and a shared station of
``s`` servers (channels) that takes ``d`` seconds per message.  This is the finite-source
queue (the "machine repairman" with ``s`` repairmen); with exponential times it is a
birth–death chain solved exactly here (:func:`finite_source_throughput`), which is what mean
value analysis computes for one server and what it only approximates for several.

**Switched** (Hyglac's Fast Ethernet switch): pairs on full-duplex ports, several streams of
one node sharing its port's bandwidth and message rate, up to a fabric limit
(:func:`switched_pairs`); senders into one port are limited by the receiving
host's multiplexing and the port's losses (:func:`fan_in`).  The Universal Scalability Law
(:func:`usl`) is the usual empirical alternative for fan-in.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


MANY = 512
"""Tokens beyond which the finite-source queue is solved as :data:`MANY` tokens with
proportionally shorter think times (the same arrival rate when all are thinking): the
many-sources limit, which the finite-source queue approaches as tokens grow."""


def finite_source_throughput(tokens: ArrayLike, servers: ArrayLike, think: ArrayLike,
                             service: ArrayLike) -> FloatArray:
    """Completions per second of ``tokens`` customers cycling through a delay and a station.

    tokens : whole number ≥ 1 of customers (pairs with a token in flight)
    servers : servers at the station, > 0 (channels; may be fractional, see
        :func:`shared_medium`); the station serves ``min(n, servers)`` customers at once
    think : seconds in the delay per cycle, ≥ 0
    service : seconds of station service per cycle, > 0

    The chain's state is the number n at the station: up-rate (k − n)/think, down-rate
    min(n, s)/service, so p(n) ∝ w(n) = Π_{i ≤ n} (k − i + 1)·ρ / min(i, s) with
    ρ = service/think.  Throughput is E[min(n, s)] / service.

    In closed form, with f = ⌊s⌋: the head n ≤ f has w(n) = C(k, n)·ρⁿ (at most f + 1
    terms: f is the channel count), and the tail n > f sums to

        T = (s^f / f!) · k! · (ρ/s)^k · Σ_{j < k−f} x^j / j!,   x = s/ρ,

    a truncated exponential series, e^x·Q(k − f, x) with Q the regularised upper incomplete
    gamma function.  So every configuration costs the same few operations whatever its token
    count (a sweep of a million is one vectorised pass); all in logs.  Beyond :data:`MANY`
    tokens, see there.

    >>> float(finite_source_throughput(1, 1, 3.0, 1.0))   # one token: 1 / (z + d)
    0.25
    """
    from scipy.special import gammaln

    k, s, z, d = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64)
                                       for a in (tokens, servers, think, service)))
    z = np.where(k > MANY, z * MANY / np.maximum(k, 1.0), z)
    k = np.minimum(k, MANY)
    f = np.floor(s)
    z_safe = np.where(z > 0, z, 1.0)                          # z = 0 is answered below
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_rho = np.log(d / z_safe)
        log_s = np.log(s)
        log_k = gammaln(k + 1)
        # tail: n = f + 1 … k, when there is one
        a = k - f
        log_t = (f * log_s - gammaln(f + 1) + log_k + k * (log_rho - log_s)
                 + _log_exp_series(a, np.exp(log_s - log_rho)))
        log_t = np.where(a >= 1, log_t, -np.inf)
        # head: n = 0 … min(f, k), log C(k, n) + n ln ρ built up term by term
        heads = [np.zeros_like(k)]
        for n in range(1, int(np.max(f, initial=0.0)) + 1):
            step = np.log(np.maximum(k - n + 1, 0.0)) - math.log(n) + log_rho
            heads.append(np.where((n <= f) & (n <= k), heads[-1] + step, -np.inf))
        top = log_t
        for h in heads:
            top = np.maximum(top, h)
        w_tail = np.exp(log_t - top)
        weight, busy = w_tail.copy(), s * w_tail
        for n, h in enumerate(heads):
            w = np.exp(h - top)
            weight += w
            busy += n * w
        x_out = busy / weight / d
    # no delay at all: every token waits at the station, which is then always as busy as it can be
    return np.asarray(np.where(z > 0, x_out, np.minimum(k, s) / d), dtype=np.float64)


def _log_exp_series(a: FloatArray, x: FloatArray) -> FloatArray:
    """ln Σ_{j < a} x^j / j!  (a ≥ 1 whole, x > 0; NaN-free where a < 1, which callers mask).

    Where the sum is a share of e^x that floating point keeps (Q(a, x) > 1e-250), it is
    x + ln Q(a, x).  Beyond, x is far above a and the last terms dominate: the sum is
    x^(a−1)/(a−1)! · Σ_i Π_{l < i} (a − 1 − l)/x, whose ratios are below 0.4 there, so 48 terms
    reach machine precision."""
    from scipy.special import gammaincc, gammaln

    shape = np.broadcast(a, x).shape
    aa, xx = (np.broadcast_to(np.asarray(v, dtype=np.float64), shape).reshape(-1)
              for v in (a, x))
    aa = np.maximum(aa, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        q = gammaincc(aa, xx)
        out = np.array(xx + np.log(q), dtype=np.float64, ndmin=1)
        far = ~(q > 1e-250)
        if np.any(far):
            af, xf = aa[far], xx[far]
            term = np.ones_like(xf)
            total = np.ones_like(xf)
            for i in range(48):
                term = term * np.maximum(af - 1 - i, 0.0) / xf
                total = total + term
            out[far] = (af - 1) * np.log(xf) - gammaln(af) + np.log(total)
    return out.reshape(shape)


def bonded(count: ArrayLike, bond: float) -> FloatArray:
    """Channels' worth that ``count`` channels carry when each extra adds ``bond`` of one."""
    return np.asarray(1.0 + (np.asarray(count, dtype=np.float64) - 1.0) * bond,
                      dtype=np.float64)


def packets_of(size: ArrayLike, packet: float) -> FloatArray:
    """Packets a message of ``size`` bytes needs (at least one, for an empty message)."""
    return np.asarray(np.maximum(np.ceil(np.asarray(size, dtype=np.float64) / packet), 1.0),
                      dtype=np.float64)


def fabric_limit(size: ArrayLike, fabric: ArrayLike) -> FloatArray:
    """Messages per second a fabric of ``fabric`` bytes per second passes (∞ for empty ones)."""
    m = np.asarray(size, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.asarray(np.where(m > 0, np.asarray(fabric, dtype=np.float64)
                                   / np.maximum(m, 1e-300), np.inf), dtype=np.float64)


def message_time(size: ArrayLike, channels: ArrayLike, *, line_rate: ArrayLike, eta: float,
                 overhead: float, copy: float, bond: float, packet: float,
                 header: float) -> tuple[FloatArray, FloatArray]:
    """One message alone on the network: its one-way time and how long it holds the wire.

    The sender's host copies the message out packet by packet (``copy`` s/B, the bus and the
    protocol stack) while the packets already copied are on the wire: a two-stage pipeline.
    ``p = ⌈m/packet⌉`` packets of ``m/p + header`` bytes each go out at ``eta·line_rate``;
    packets are dealt to channels in turn, so a message uses ``j = min(p, c)`` channels, which
    together carry ``1 + (j − 1)·bond`` channels' worth (``bond`` ≤ 1 is what an extra channel
    adds in practice).  Returns ``(T1, D)``:

    - ``D = wire/(1 + (j−1)·bond)``: time the message occupies the channels it uses;
    - ``T1 = overhead + max(copy·m, D) + min(copy·b, w_b)``: the slower stage for the whole
      message plus the faster stage for the first packet (``b`` bytes, ``w_b`` on the wire),
      and the fixed per-message ``overhead`` (system calls, interrupts, the turnaround).
    """
    m = np.asarray(size, dtype=np.float64)
    c = np.asarray(channels, dtype=np.float64)
    rate = np.asarray(line_rate, dtype=np.float64) * eta
    packets = packets_of(m, packet)
    wire = (m + packets * header) / rate
    hold = wire / bonded(np.minimum(packets, c), bond)
    first = np.minimum(m, packet)
    t1 = overhead + np.maximum(copy * m, hold) + np.minimum(copy * first, (first + header) / rate)
    return np.asarray(t1, dtype=np.float64), np.asarray(hold, dtype=np.float64)


def shared_medium(size: ArrayLike, tokens: ArrayLike, channels: ArrayLike, *,
                  line_rate: ArrayLike, eta: float, overhead: float, copy: float, bond: float,
                  packet: float, header: float) -> FloatArray:
    """Messages per second, summed over ``tokens`` ping-pong pairs, on shared channels.

    Every node is on every one of ``channels`` segments (hub or bus Ethernet): ``k`` tokens
    cycle between their hosts (a delay ``T1 − D``, in which tokens do not interfere) and the
    segments (``D`` each, from :func:`message_time`).  The segments form one station of
    ``(1 + (c − 1)·bond)/(1 + (j − 1)·bond)`` servers: one-packet messages queue for any free
    channel, messages of several packets occupy several at once.  Solved exactly by
    :func:`finite_source_throughput`.  One token alone gets ``1/T1``; many saturate at
    ``(1 + (c − 1)·bond)/wire``.
    """
    m = np.asarray(size, dtype=np.float64)
    c = np.asarray(channels, dtype=np.float64)
    t1, hold = message_time(m, c, line_rate=line_rate, eta=eta, overhead=overhead, copy=copy,
                            bond=bond, packet=packet, header=header)
    servers = bonded(c, bond) / bonded(np.minimum(packets_of(m, packet), c), bond)
    return finite_source_throughput(tokens, servers, np.maximum(t1 - hold, 0.0), hold)


def switched_pairs(size: ArrayLike, pairs: ArrayLike, channels: ArrayLike, *,
                   line_rate: ArrayLike, eta: float, overhead: float, copy: float, bond: float,
                   packet: float, header: float, fabric: ArrayLike, per_nic: ArrayLike = 1.0,
                   gap: ArrayLike = 0.0, scale: tuple[ArrayLike, ArrayLike] = (1.0, 1.0),
                   both: ArrayLike = False, duplex: ArrayLike = 1.0,
                   receive: ArrayLike = 1.0) -> FloatArray:
    """Messages per second, summed over ``pairs`` streams or ping-pong pairs, through a switch.

    Every node has its own full-duplex port (``channels`` bonded NICs).  The ``pairs`` are
    dealt ``per_nic`` to a port (1: every pair on its own nodes; ``osu_mbw_mr`` and IMB
    ``Uniband`` across two nodes put every pair on one port), so ``pairs/per_nic`` ports carry
    traffic, and three limits meet, the lowest governing:

    - each stream alone: ``1/T1`` (:func:`message_time`);
    - each port: ``1/(gap + D)`` messages per second for all its streams together, ``D`` the
      time a message holds the port's wire and ``gap`` what the NIC needs per message beyond
      it (LogGP's g, per NIC): the port's bandwidth and message rate, shared by its streams;
    - the switch fabric, ``fabric`` bytes per second in all.

    ``scale`` multiplies the first two limits (a fabric's measured per-size corrections).
    Where ``both`` is true the pairs send both ways at once (``osu_bibw``, IMB ``Biband``),
    and the rate is each direction's: see :func:`switched_limits`.

    >>> x = switched_pairs(1e6, [1, 4], 1, line_rate=1e9, eta=1.0, overhead=1e-6, copy=0.0,
    ...                    bond=1.0, packet=float("inf"), header=0.0, fabric=float("inf"),
    ...                    per_nic=[1, 4])
    >>> [round(float(v), 1) for v in x]        # one stream: 1/(1 us + 1 ms); four: the port's
    [999.0, 1000.0]
    """
    m = np.asarray(size, dtype=np.float64)
    alone, port = switched_limits(m, pairs, channels, line_rate=line_rate, eta=eta,
                                  overhead=overhead, copy=copy, bond=bond, packet=packet,
                                  header=header, per_nic=per_nic, gap=gap, both=both,
                                  duplex=duplex, receive=receive)
    alone = alone * np.asarray(scale[0], dtype=np.float64)
    port = port * np.asarray(scale[1], dtype=np.float64)
    return np.asarray(np.minimum(np.minimum(alone, port), fabric_limit(m, fabric)),
                      dtype=np.float64)


def switched_limits(size: ArrayLike, pairs: ArrayLike, channels: ArrayLike, *,
                    line_rate: ArrayLike, eta: float, overhead: float, copy: float,
                    bond: float, packet: float, header: float, per_nic: ArrayLike = 1.0,
                    gap: ArrayLike = 0.0, both: ArrayLike = False, duplex: ArrayLike = 1.0,
                    receive: ArrayLike = 1.0) -> tuple[FloatArray, FloatArray]:
    """The first two limits of :func:`switched_pairs`, messages per second summed over the
    ``pairs``: every stream alone (``pairs/T1``), and the NICs the streams share
    (``pairs/per_nic`` NICs of ``1/(gap + D)`` each; ∞ for an empty message).

    Where ``both`` is true, traffic goes both ways at once and the rates are one direction's:
    each host receives a message for every one it sends and pays ``receive`` of a send's
    host costs for it (``T1 + receive·(overhead + copy·m)``: 1 is LogP's ``o_s + o_r`` paid
    in turn, 0 a receive that overlaps the sends), and each port keeps ``duplex`` of its
    one-way rate in each direction (1: full duplex; less where the host bus or the NIC cannot
    carry both directions at the wire's rate).

    >>> one, port = switched_limits(1e6, 1, 1, line_rate=1e9, eta=1.0, overhead=1e-6,
    ...                             copy=1e-10, bond=1.0, packet=float("inf"), header=0.0,
    ...                             per_nic=1, both=[False, True], duplex=0.8)
    >>> [round(float(v), 1) for v in one], [round(float(v), 1) for v in port]
    ([908.3, 831.9], [1000.0, 800.0])
    """
    m = np.asarray(size, dtype=np.float64)
    k = np.asarray(pairs, dtype=np.float64)
    t1, hold = message_time(m, channels, line_rate=line_rate, eta=eta, overhead=overhead,
                            copy=copy, bond=bond, packet=packet, header=header)
    two = np.asarray(both, dtype=bool)
    t1 = np.where(two, t1 + np.asarray(receive, dtype=np.float64) * (overhead + copy * m), t1)
    q = np.minimum(np.maximum(np.asarray(per_nic, dtype=np.float64), 1.0), np.maximum(k, 1.0))
    with np.errstate(divide="ignore"):   # an empty message holds no wire: no port limit
        port = (k / q) / (np.asarray(gap, dtype=np.float64) + hold)
    port = np.where(two, port * np.asarray(duplex, dtype=np.float64), port)
    return np.asarray(k / t1, dtype=np.float64), np.asarray(port, dtype=np.float64)


def fan_in(size: ArrayLike, senders: ArrayLike, channels: ArrayLike, *, line_rate: ArrayLike,
           eta: float, overhead: float, copy: float, bond: float, packet: float, header: float,
           mux: float, loss: float, onset: float) -> FloatArray:
    """Messages per second arriving at one node from ``senders`` streams at once (all-to-one).

    Two limits, the slower of which governs (seed 004 §2.2 explains both):

    - the receiving host: ``overhead + copy·m`` per message, plus ``mux·(1 − 1/n)`` for
      switching between streams (the chance that the next message is from another stream);
      larger messages spend a smaller fraction of the time multiplexing;
    - the receiving port: full packets at ``eta·line_rate`` over the bonded channels, plus
      ``loss`` seconds per byte once the port's buffer overflows and streams stall, growing
      as ``1 − exp(−(n − 1)/onset)``: the same for every message size.

    One sender streams at ``min`` of host and port; with many, the port's losses dominate and
    message size stops mattering.
    """
    m = np.asarray(size, dtype=np.float64)
    n = np.asarray(senders, dtype=np.float64)
    c = np.asarray(channels, dtype=np.float64)
    rate = np.asarray(line_rate, dtype=np.float64) * eta * bonded(c, bond)
    host = overhead + copy * m + mux * (1.0 - 1.0 / n)
    port = m * ((1.0 + header / packet) / rate + loss * (1.0 - np.exp(-(n - 1.0) / onset)))
    return np.asarray(1.0 / np.maximum(host, port), dtype=np.float64)


def usl(n: ArrayLike, x1: float, sigma: float, kappa: float) -> FloatArray:
    """Universal Scalability Law: throughput of ``n`` senders, each alone giving ``x1``.

    sigma : contention (serialised fraction), ≥ 0
    kappa : coherency (pairwise crosstalk), ≥ 0; throughput peaks at n* = √((1 − σ)/κ)

    >>> float(usl(1, 5.0, 0.3, 0.1)), float(usl(4, 1.0, 0.0, 0.0))
    (5.0, 4.0)
    """
    nn = np.asarray(n, dtype=np.float64)
    return nn * x1 / (1.0 + sigma * (nn - 1.0) + kappa * nn * (nn - 1.0))
