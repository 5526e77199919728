"""The fabric: how a machine's network behaves when it is shared, and what it predicts.

A :class:`Fabric` is a topology (``shared`` medium or ``switched``) with the parameters of its
law in :mod:`perfmodel.network.contention`, each with its uncertainty and where it came from
(fitted, cited, or assumed and why).  :func:`rates` evaluates it over whole grids of message
size × pairs × channels × senders × link speed at once, with intervals.

Terms: *pairs* are independent groups exchanging at once (ping-pong pairs, the Beowulf's
"tokens in flight"); *senders* stream into one receiver per group (Hyglac's fan-in);
*channels* are the segments each node is on (shared) or its bonded NICs (switched).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import InputError
from perfmodel.layout import Layout
from perfmodel.network import contention, hierarchy
from perfmodel.network.corrections import Corrections
from perfmodel.network.predict import log_interval
from perfmodel.params import Estimate, Param, ParamSet, parse_named

FloatArray = NDArray[np.float64]
FabricParam = Param
"""A parameter of a fabric law (:class:`~perfmodel.params.Param`)."""


_P = FabricParam
PARAMS: dict[str, FabricParam] = {p.name: p for p in (
    _P("line_rate", "B/s", "rate", "signalling rate of one channel or port", 1.0),
    _P("eta", "", "number", "fraction of the line rate a channel delivers (framing, collisions)",
       1e-3, 1.0),
    _P("overhead", "s", "time", "host time per message outside the wire (calls, interrupts)",
       0.0, default=0.0, why="default: no per-message host time given or measured"),
    _P("copy", "s/B", "time", "host time per byte, pipelined with the wire (bus, stack copies)",
       0.0, default=0.0, why="default: no per-byte host time given or measured",
       span=(0.5, 2.0), span_why="a host's per-byte time is not known to better than a "
                                  "factor of two either way (none at all: a quarter of, then "
                                  "as much as, the wire's)"),
    _P("bond", "", "number", "what each extra channel adds, as a fraction of one", 0.0, 1.0,
       default=1.0, why="default: only one channel count measured, extra channels assumed "
                        "ideal", span=(0.75, 0.5),
       span_why="a bonded channel adds from half of one to a whole"),
    _P("packet", "B", "size", "payload bytes per packet", 1.0, default=math.inf,
       why="default: no packet size given, messages are not split",
       span=(65536.0, 4096.0, 1024.0),
       span_why="NICs and stacks split messages into packets of 1 KiB (an Ethernet frame) to "
                "64 KiB (TCP segmentation offload); RDMA fabrics send 4 KiB MTUs"),
    _P("header", "B", "size", "bytes each packet adds on the wire", 0.0, default=0.0,
       why="default: no framing given", span=(64.0,),
       span_why="a packet's headers take up to about 64 bytes"),
    _P("fabric", "B/s", "rate", "capacity of the switch fabric, all ports together", 1.0,
       default=math.inf, why="default: no fabric limit given or seen, assumed non-blocking"),
    _P("mux", "s", "time", "receiving host's time to switch between streams, per message",
       0.0, default=0.0, why="default: no fan-in measured, streams assumed to interleave freely"),
    _P("loss", "s/B", "time", "port time lost per byte once many streams overflow it", 0.0,
       default=0.0, why="default: no fan-in measured, the port assumed loss-free"),
    _P("onset", "", "number", "senders over which port losses set in (e-folding)", 1e-3,
       default=1.0, why="default: no fan-in measured (irrelevant while loss is 0)"),
    _P("gap", "s", "time", "time one NIC needs per message beyond its wire time, whatever "
       "stream it carries (LogGP's g per NIC): the NIC's message rate", 0.0),
    _P("duplex", "", "number", "share of a port's one-way rate it keeps in each direction "
       "while the other direction is as busy (1: full duplex)", 1e-3, 1.0, default=1.0,
       why="default: no bidirectional table measured, ports assumed full duplex"),
    _P("receive", "", "number", "share of a stream's host costs a host pays again for each "
       "message it receives while it sends (LogP's o_r beside o_s; 0: receiving overlaps "
       "sending)", 0.0, 4.0, default=1.0, unlimited=False,
       why="default: no bidirectional table measured: a received message costs its host as "
           "a sent one does (LogP)"),
    _P("intra_latency", "s", "time", "one-way time of a small message inside a box", 0.0),
    _P("intra_rate", "B/s", "rate", "bandwidth of the link inside a box", 1.0),
)}

_COMMON = ("line_rate", "eta", "overhead", "copy", "bond", "packet", "header")
TOPOLOGIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "shared": ("every node on every channel (hub or bus Ethernet): tokens queue for the "
               "channels", _COMMON),
    "switched": ("a switch: each node's own full-duplex port, a fabric limit, fan-in into one "
                 "port", (*_COMMON, "fabric", "mux", "loss", "onset")),
}


HIERARCHY = ("intra_latency", "intra_rate")
"""The intra-box link, a parameter of every fabric whose boxes hold several processes."""


NIC = ("gap",)
"""The NIC's message rate, a parameter of a switched fabric fitted to (or specified for)
streams that share one NIC."""


DUPLEX = ("duplex", "receive")
"""Traffic both ways: what a port keeps of its one-way rate in each direction, and what a host
pays for the messages it receives while sending; parameters of a switched fabric fitted to
(or specified for) bidirectional streams."""


def topology_params(topology: str, box: int = 1, nic: bool = False, duplex: bool = False,
                    given: Iterable[str] = ()) -> tuple[str, ...]:
    """The parameters of a ``topology`` fabric, with the intra-box link when ``box`` > 1, the
    NIC's message rate when ``nic`` (a switched fabric whose streams share NICs) and the
    ports' ``duplex`` and the hosts' ``receive`` when ``duplex`` (a switched fabric with
    traffic both ways); each optional group also when ``given`` names any of its parameters
    (a spec's, a profile's or a fit's held values)."""
    named = set(given)
    nic, duplex = nic or bool(named & set(NIC)), duplex or bool(named & set(DUPLEX))
    try:
        names = TOPOLOGIES[topology][1]
    except KeyError:
        raise InputError(f"unknown topology {topology!r}",
                         fix=f"use one of {', '.join(TOPOLOGIES)}") from None
    if nic and topology != "switched":
        raise InputError(f"a {topology} fabric has no NICs of its own (every node is on every "
                         "channel)", fix="give the NIC's gap to a switched fabric")
    if duplex:
        two_ways(topology, "give duplex to a switched fabric")
    return (*names, *(NIC if nic else ()), *(DUPLEX if duplex else ()),
            *(HIERARCHY if box > 1 else ()))


def two_ways(topology: str, fix: str) -> None:
    """Refuse traffic both ways on a fabric that is not switched (its channels carry one
    message at a time, whichever way it goes)."""
    if topology != "switched":
        raise InputError(f"a {topology} fabric's channels carry one message at a time "
                         "whichever way it goes: it has no duplex", fix=fix)


def could_be(est: Estimate, values: Mapping[str, Any]) -> tuple[float, ...]:
    """Values an assumed fabric parameter could as well have been (its ``span``, nearest the
    assumption first): ``copy``'s are factors of its value, or from 0 a quarter of and all of
    the wire's time per byte."""
    span = PARAMS[est.name].span
    if est.name != "copy":
        return span
    if est.value > 0:
        return tuple(est.value * f for f in span)
    per_byte = 1.0 / (float(values["line_rate"]) * float(values["eta"]))
    return (0.25 * per_byte, per_byte)


def check_param(name: str, value: float) -> str | None:
    """Why ``value`` cannot be fabric parameter ``name``, or None when it can."""
    return PARAMS[name].check(value)


def parse_param(name: str, text: str) -> float:
    """A typed value for fabric parameter ``name`` ("1.25MB/s", "1KiB", "0.7"), checked."""
    return parse_named(PARAMS, "fabric", name, text)


@dataclass(frozen=True)
class Fabric(ParamSet):
    """A calibrated (or specified) fabric: everything ``rates`` needs to predict.

    channels : how many channels the machine has (the default for predictions)
    box : processes one box holds (1: every process on its own node); with more, the fabric
        has an intra-box link (:data:`HIERARCHY`) and placement decides which messages use it
    covariance : over :attr:`fitted_names`, SI units
    noise : standard deviation of the log residuals of the fit (NaN: no dof)
    ranges : calibrated span of each variable (``size``, ``pairs``, ``senders``, ``channels``)
    corrections : the measured per-size ratios beside a NIC-sharing law (:class:`Corrections`)
    stream_fit : fitted to streams (``osu_bw``, ``osu_mbw_mr``, IMB ``Uniband``): its one
        stream's time per message is the gap between back-to-back messages, not a one-way
        trip, which a machine takes from the point-to-point law instead
    """

    topology: str
    channels: int
    params: tuple[Estimate, ...]
    covariance: FloatArray = field(default_factory=lambda: np.zeros((0, 0)))
    noise: float = math.nan
    dof: int = 0
    ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    fit: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    box: int = 1
    corrections: Corrections | None = None
    stream_fit: bool = False

    @property
    def values(self) -> dict[str, Any]:
        """The parameters' values, and the per-size ``corrections`` when the fabric has them
        (read by :func:`message_rate`)."""
        out: dict[str, Any] = {p.name: p.value for p in self.params}
        if self.corrections is not None:
            out["corrections"] = self.corrections
        return out

    @property
    def duplex(self) -> bool:
        """Whether the fabric knows what its ports carry both ways (:data:`DUPLEX`)."""
        return any(p.name in DUPLEX for p in self.params)

    @property
    def nic(self) -> bool:
        """Whether the fabric knows its NICs' message rate (:data:`NIC`)."""
        return any(p.name in NIC for p in self.params)

    def to_dict(self) -> dict[str, Any]:
        """The fabric as plain data: topology, channels, parameters with their sources, and
        the fit's summary."""
        values = self.values
        return {"topology": self.topology, "channels": self.channels,
                "parameters": [{**p.to_dict(), **({"could_be": list(could_be(p, values)),
                                                   "could_be_why": PARAMS[p.name].span_why}
                                                  if p.status == "assumed" and
                                                  PARAMS[p.name].span else {})}
                               for p in self.params], "fit": dict(self.fit),
                "dof": self.dof, "notes": list(self.notes),
                "corrections": None if self.corrections is None else
                self.corrections.to_dict()}


def own_rate(values: Mapping[str, Any], line_rate: ArrayLike | None) -> ArrayLike:
    """``line_rate`` where one is asked for (a what-if link speed), else the fabric's own (for
    :func:`rates` and :func:`exchange`; a :class:`~perfmodel.machine.core.Machine` puts its own
    in its values); the laws below read ``values["line_rate"]`` alone."""
    return values["line_rate"] if line_rate is None else line_rate


def pipeline(values: Mapping[str, Any]) -> dict[str, Any]:
    """The one-message pipeline's parameters besides the line rate (the keyword arguments
    the laws of :mod:`perfmodel.network.contention` share)."""
    return {k: values[k] for k in _COMMON if k != "line_rate"}


def message_seconds(values: Mapping[str, Any], size: ArrayLike, channels: ArrayLike
                    ) -> FloatArray:
    """One message alone, one way (:func:`~perfmodel.network.contention.message_time`'s T1).
    ``values``: the fabric's parameters, any of them an array (a what-if line rate)."""
    t1, _ = contention.message_time(size, channels, line_rate=values["line_rate"],
                                    **pipeline(values))
    return t1


def wire_seconds(values: Mapping[str, Any], size: ArrayLike, channels: ArrayLike
                 ) -> FloatArray:
    """Seconds one message of ``size`` bytes occupies a node's port of ``channels`` bonded
    channels (its packets' headers included)."""
    m = np.asarray(size, dtype=np.float64)
    rate = np.asarray(values["line_rate"], dtype=np.float64)
    wire = (m + contention.packets_of(m, values["packet"]) * values["header"]) \
        / (rate * values["eta"] * contention.bonded(np.asarray(channels, dtype=np.float64),
                                                    values["bond"]))
    return np.asarray(wire, dtype=np.float64)


def message_rate(topology: str, values: Mapping[str, Any], size: ArrayLike, pairs: ArrayLike,
                 channels: ArrayLike, senders: ArrayLike, fanin: ArrayLike = False,
                 per_nic: ArrayLike = 1.0, both: ArrayLike = False) -> FloatArray:
    """Messages per second summed over every stream: ``pairs`` groups of ``senders`` each.
    Where ``both`` is true (a switched fabric's pairs sending both ways at once), each
    direction's: the ports keep ``duplex`` of their one-way rate and the hosts pay ``receive``
    of a send's costs per message received (1 each when the fabric has none).

    A group is a ping-pong pair, or, where ``fanin`` is true (always when ``senders`` > 1),
    ``senders`` streams into one receiver (one stream when ``senders`` is 1).  On a switched
    fabric ``per_nic`` pairs share each node's NIC (1: every pair on nodes of its own).
    ``values["line_rate"]`` may be an array, for link-speed sweeps; a fabric without a NIC
    message rate (:data:`NIC`) has ``gap`` 0: its NICs are limited by their wire alone.
    """
    v = dict(values)
    common = pipeline(v)
    m = np.asarray(size, dtype=np.float64)
    k = np.asarray(pairs, dtype=np.float64)
    n = np.asarray(senders, dtype=np.float64)
    c = np.asarray(channels, dtype=np.float64)
    rate = np.asarray(v["line_rate"], dtype=np.float64)
    stream = np.asarray(fanin, dtype=bool) | (n > 1)
    if topology == "shared":
        medium = contention.shared_medium(m, k * n, c, line_rate=rate, **common)
        # several senders into one node: that node's host takes every message in turn
        host = k / (v["overhead"] + v["copy"] * m)
        return np.asarray(np.where(stream, np.minimum(medium, host), medium), dtype=np.float64)
    fix = v.get("corrections")   # measured per-size ratios of each limit (Corrections)
    pair = contention.switched_pairs(m, k, c, line_rate=rate, fabric=v["fabric"],
                                     per_nic=per_nic, gap=v.get("gap", 0.0),
                                     scale=(1.0, 1.0) if fix is None else
                                     fix.factors(m, per_nic, both),
                                     both=both, duplex=v.get("duplex", 1.0),
                                     receive=v.get("receive", 1.0), **common)
    fan = k * contention.fan_in(m, n, c, line_rate=rate, mux=v["mux"], loss=v["loss"],
                                onset=v["onset"], **common)
    cap = contention.fabric_limit(m, v["fabric"])
    return np.asarray(np.where(stream, np.minimum(fan, cap), pair), dtype=np.float64)


def exchange_seconds(topology: str, values: Mapping[str, Any], size: ArrayLike,
                     processes: ArrayLike, *, box: int, placement: str, channels: ArrayLike
                     ) -> FloatArray:
    """Seconds per iteration of the Exchange ring (:func:`~perfmodel.network.hierarchy.
    exchange_time`): messages between boxes take the topology's one-message time and share
    each box's ``channels``; messages inside a box take the intra-box link."""
    v = dict(values)
    m = np.asarray(size, dtype=np.float64)
    c = np.asarray(channels, dtype=np.float64)
    t1 = message_seconds(v, m, c)
    wire = wire_seconds(v, m, c)
    intra = (v["intra_latency"], v["intra_rate"]) if box > 1 else None
    return hierarchy.exchange_time(m, processes, box=box, placement=placement, intra=intra,
                                   inter=t1, wire=wire, shared=topology == "shared",
                                   fabric=v.get("fabric", math.inf))


@dataclass(frozen=True)
class Exchange:
    """Predicted Exchange iterations over a grid; arrays have the grid's broadcast shape.

    ``time`` is one iteration (what IMB's Exchange reports); in it every process sends two
    messages and receives two, so it moves ``4·size`` bytes (IMB's Mbytes/sec counts these).
    """

    size: FloatArray
    processes: FloatArray
    channels: FloatArray
    line_rate: FloatArray
    placement: str
    time: FloatArray
    time_lo: FloatArray
    time_hi: FloatArray
    extrapolated: NDArray[np.bool_]
    level: float

    @property
    def bandwidth(self) -> FloatArray:
        """Bytes sent and received per process per second (IMB Exchange's throughput)."""
        return np.asarray(4.0 * self.size / self.time, dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        """One row per combination (SI units): the iteration and what it moves."""
        from perfmodel.plain import rows

        t, m, p = self.time, self.size, self.processes
        return {
            "pattern": "exchange", "level": self.level,
            "units": {"size": "B", "link_speed": "B/s", "time": "s",
                      "per_process_bandwidth": "B/s", "aggregate_bandwidth": "B/s",
                      "aggregate_message_rate": "1/s"},
            "time": "one iteration: every process sends one message to each neighbour and "
                    "receives one from each (IMB Exchange's t)",
            "per_process_bandwidth": "4 x size / time, bytes sent and received per process "
                                     "(IMB Exchange's Mbytes/sec)",
            "aggregate_bandwidth": "bytes sent by all processes per second",
            "rows": rows({
                "size": m, "processes": p.astype(int),
                "placement": np.full(m.shape, self.placement),
                "channels": self.channels.astype(int), "link_speed": self.line_rate,
                "time": t, "time_lo": self.time_lo, "time_hi": self.time_hi,
                "per_process_bandwidth": self.bandwidth,
                "aggregate_bandwidth": 2.0 * p * m / t, "aggregate_message_rate": 2.0 * p / t,
                "extrapolated": self.extrapolated.astype(bool)})}


def _outside(fabric: Fabric, **grid: FloatArray) -> NDArray[np.bool_]:
    """Where any variable of the grid lies outside the span the fabric was calibrated on."""
    out = np.zeros(np.broadcast_shapes(*(a.shape for a in grid.values())), dtype=bool)
    for key, arr in grid.items():
        span = fabric.ranges.get(key)
        if span is not None:
            out |= (arr < span[0]) | (arr > span[1])
    return out


def exchange(fabric: Fabric, size: ArrayLike, processes: ArrayLike, placement: str = "block",
             channels: ArrayLike | None = None, line_rate: ArrayLike | None = None,
             level: float = 0.95) -> Exchange:
    """Predict the Exchange ring of ``processes`` ranks placed by ``placement`` on ``fabric``
    (``channels`` and ``line_rate`` default to the fabric's own)."""
    base = fabric.values
    m, p, c, lr = np.broadcast_arrays(
        np.asarray(size, dtype=np.float64), np.asarray(processes, dtype=np.float64),
        np.asarray(fabric.channels if channels is None else channels, dtype=np.float64),
        np.asarray(own_rate(base, line_rate), dtype=np.float64))
    if np.any(p < 2) or np.any(p != np.round(p)):
        raise InputError("an Exchange ring needs whole process counts of at least 2",
                         fix="give --processes 2 or more")

    def at(values: Mapping[str, float]) -> FloatArray:
        return 1.0 / exchange_seconds(fabric.topology, {**values, "line_rate": lr}, m, p,
                                      box=fabric.box, placement=placement, channels=c)

    x = at(base)
    lo, hi = log_interval(at, base, fabric.fitted_names, fabric.covariance, fabric.dof,
                          fabric.noise, level)
    out = _outside(fabric, size=m, processes=p, channels=c)
    return Exchange(m, p, c, lr, placement, 1.0 / x, 1.0 / hi, 1.0 / lo, out, level)


MAX_ROWS = 10_000
"""The most rows a grid of predictions may have (the product of its axes): computed in a
tenth of a second, written as JSON in about 3 s and printed as a table in about 40 s."""


def check_rows(**axes: int) -> None:
    """Refuse a grid whose axes (name -> number of values) make more than :data:`MAX_ROWS`
    rows, before anything of that size is built."""
    rows = math.prod(axes.values())
    if rows > MAX_ROWS:
        said = " × ".join(f"{n} {k.replace('_', ' ')}" for k, n in axes.items() if n > 1)
        raise InputError(f"the grid has {rows:,} rows ({said}), more than the {MAX_ROWS:,} "
                         "a prediction table may have",
                         fix="give fewer values or coarser ranges, or run it in parts")


def exchange_grid(fabric: Fabric, sizes: Sequence[float], processes: Sequence[int],
                  channels: Sequence[int], line_rates: Sequence[float] | None = None,
                  placement: str = "block", level: float = 0.95) -> Exchange:
    """:func:`exchange` over every combination, one row each (ordered by processes, channels,
    link speed, size); at most :data:`MAX_ROWS` of them."""
    lr = [fabric.values["line_rate"]] if line_rates is None else list(line_rates)
    check_rows(processes=len(processes), channels=len(channels), link_speeds=len(lr),
               sizes=len(sizes))
    p, c, r, m = (a.ravel() for a in np.meshgrid(processes, channels, lr, sizes, indexing="ij"))
    return exchange(fabric, m, p, placement, c, r, level)


@dataclass(frozen=True)
class Rates:
    """Predicted throughput over a grid; every array has the grid's broadcast shape.

    ``message_rate`` is summed over all streams (messages per second); the ``per_stream``
    values are one stream's share (a pair's, or one sender's).  Intervals (``_lo``, ``_hi``) at
    ``level`` are NaN when the fabric carries no uncertainty.
    """

    size: FloatArray
    pairs: FloatArray
    channels: FloatArray
    senders: FloatArray
    line_rate: FloatArray
    message_rate: FloatArray
    message_rate_lo: FloatArray
    message_rate_hi: FloatArray
    extrapolated: NDArray[np.bool_]
    level: float
    both: bool = False
    """Every pair sending both ways at once: the rates are each direction's."""

    @property
    def streams(self) -> FloatArray:
        return np.asarray(self.pairs * self.senders, dtype=np.float64)

    @property
    def bandwidth(self) -> FloatArray:
        return np.asarray(self.size * self.message_rate, dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        """One row per combination (SI units); per-pair values are one stream's share."""
        from perfmodel.plain import rows

        m, x, lo, hi, streams = self.size, self.message_rate, self.message_rate_lo, \
            self.message_rate_hi, self.streams   # whole arrays, each computed once
        return {
            "level": self.level,
            "units": {"size": "B", "link_speed": "B/s", "aggregate_bandwidth": "B/s",
                      "per_pair_bandwidth": "B/s", "aggregate_message_rate": "1/s",
                      "per_pair_message_rate": "1/s"},
            "per_pair": "one stream's share: a ping-pong pair's, or one sender's with senders > 1",
            "both_ways": self.both,
            "rows": rows({
                "size": m, "pairs": self.pairs.astype(int), "channels": self.channels.astype(int),
                "senders": self.senders.astype(int), "link_speed": self.line_rate,
                "aggregate_bandwidth": m * x, "aggregate_bandwidth_lo": m * lo,
                "aggregate_bandwidth_hi": m * hi, "per_pair_bandwidth": m * x / streams,
                "aggregate_message_rate": x, "aggregate_message_rate_lo": lo,
                "aggregate_message_rate_hi": hi, "per_pair_message_rate": x / streams,
                "extrapolated": self.extrapolated.astype(bool)})}


def rates(fabric: Fabric, size: ArrayLike, pairs: ArrayLike = 1, channels: ArrayLike | None = None,
          senders: ArrayLike = 1, line_rate: ArrayLike | None = None,
          level: float = 0.95, fanin: bool = False, layout: Layout | None = None,
          both: bool = False) -> Rates:
    """Predict ``fabric`` over the broadcast grid of its arguments (SI units).

    ``channels`` defaults to the machine's own, ``line_rate`` to the calibrated one;
    ``fanin`` makes every group stream into its receiver, even with one sender; ``layout``
    places the ranks of each pair count as calibrate places a table's (pairs ``i`` and
    ``i + pairs``, in blocks: :func:`~perfmodel.layout.place`), so the senders on one node
    share its NIC (None: every pair on nodes of its own); ``both`` has every pair send both
    ways at once (``osu_bibw``), and the rates are then each direction's.  The interval is
    :func:`~perfmodel.network.predict.log_interval`'s: never negative.
    """
    m = np.asarray(size, dtype=np.float64)
    c = np.asarray(fabric.channels if channels is None else channels, dtype=np.float64)
    base = fabric.values
    lr = np.asarray(own_rate(base, line_rate), dtype=np.float64)
    k = np.asarray(pairs, dtype=np.float64)
    n = np.asarray(senders, dtype=np.float64)
    m, k, c, n, lr = np.broadcast_arrays(m, k, c, n, lr)
    share = np.ones_like(k) if layout is None else per_nic(fabric, k, layout)
    if both:
        two_ways(fabric.topology, "drop --both-ways, or give a switched fabric")

    def at(values: Mapping[str, float]) -> FloatArray:
        return message_rate(fabric.topology, {**values, "line_rate": lr}, m, k, c, n, fanin,
                            share, both)

    x = at(base)
    lo, hi = log_interval(at, base, fabric.fitted_names, fabric.covariance, fabric.dof,
                          fabric.noise, level)
    return Rates(m, k, c, n, lr, x, lo, hi,
                 _outside(fabric, size=m, pairs=k, senders=n, channels=c), level, both)


def grid(fabric: Fabric, sizes: Sequence[float], pairs: Sequence[int], channels: Sequence[int],
         senders: Sequence[int], line_rates: Sequence[float] | None = None,
         level: float = 0.95, fanin: bool = False, layout: Layout | None = None,
         both: bool = False) -> Rates:
    """:func:`rates` over every combination, flattened to one row each (size varies fastest
    after link speed: rows are ordered by pairs, senders, channels, link speed, size); at most
    :data:`MAX_ROWS` of them."""
    lr = [fabric.values["line_rate"]] if line_rates is None else list(line_rates)
    check_rows(pairs=len(pairs), senders=len(senders), channels=len(channels),
               link_speeds=len(lr), sizes=len(sizes))
    k, n, c, r, m = (a.ravel() for a in np.meshgrid(pairs, senders, channels, lr, sizes,
                                                    indexing="ij"))
    return rates(fabric, m, k, c, n, r, level, fanin, layout, both)


def per_nic(fabric: Fabric, pairs: FloatArray, layout: Layout) -> FloatArray:
    """The streams sharing each NIC for every pair count placed by ``layout``; a count whose
    ranks do not all cross between nodes is refused, as is a fabric with no NICs."""
    from perfmodel.layout import place

    if fabric.topology != "switched":
        raise InputError(f"a {fabric.topology} fabric has no NICs of its own to share (every "
                         "node is on every channel)", fix="drop the rank layout")
    out = np.empty(pairs.shape)
    for k in np.unique(pairs):
        where = place(2 * int(k), 2 * int(k), layout)
        if where.where != "across":
            raise InputError(f"{layout.said()} puts the {2 * int(k)} ranks of {int(k)} pairs "
                             f"{where.describe()}", fix="give fewer ranks per node (the "
                             "senders of N pairs on one node: N), or more nodes per job")
        out[pairs == k] = where.per_nic
    return out
