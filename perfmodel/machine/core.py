"""The machine an application model runs on: what a round of messages and a kernel cost there.

Built from a machine profile: its fabric when it has one (contention on a shared medium, the
switch's limits, channels and link speed as what-if knobs), else its point-to-point model
(messages alone, no contention).  Everything an application's communication costs is made of
:meth:`Machine.round`: ``k`` messages of ``m`` bytes in flight at once, all delivered.  On a
machine of boxes (a fabric with ``box`` > 1: the ES80's two-processor boxes), a round whose
partners share a box takes the intra-box link, and one that crosses takes the fabric and
shares each box's port; :meth:`Machine.inside` says which, from the placement of the ranks.
Its computation is :meth:`Machine.kernel`, the roofline of the profile's ``[node]``
(:mod:`perfmodel.node`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import InputError
from perfmodel.machine.profile import Profile
from perfmodel.network.fabric import (
    exchange_seconds,
    message_rate,
    message_seconds,
    pipeline,
    wire_seconds,
)
from perfmodel.node import Node, kernel_seconds

FloatArray = NDArray[np.float64]


def require_node(profile: Profile, path: str | Path | None = None) -> Node:
    """The profile's node, or one line (naming ``path``) when it has none."""
    if profile.node is None:
        raise InputError(f"profile {profile.name!r} has no [node]: its arithmetic and memory "
                         "rates are not known", file=path,
                         fix="add [node.params.NAME] tables (flop_rate, memory_bandwidth) to "
                             "the machine's spec and calibrate it again")
    return profile.node


@dataclass(frozen=True)
class Machine:
    """A profile with what-if overrides: ``channels`` per node, ``line_rate`` (B/s), the
    node's ``flop_rate`` (flop/s per process) and the fabric's per-message ``overhead`` (s);
    ``placement`` puts ranks in the fabric's boxes
    (:data:`~perfmodel.network.hierarchy.PLACEMENTS`).  ``speed`` and ``memory_speed`` scale
    the node's arithmetic and memory rates (another node type, against the profile's).  Every
    override may be an array, one value per configuration of a sweep, broadcasting with the
    process counts."""

    profile: Profile
    channels: ArrayLike | None = None
    line_rate: ArrayLike | None = None
    flop_rate: ArrayLike | None = None
    placement: str = "block"
    overhead: ArrayLike | None = None
    speed: ArrayLike | None = None
    memory_speed: ArrayLike | None = None
    work_speed: float | None = None
    """How much faster this machine's node does work timed on another node (the other's
    flop rate over this one's, inverted): a model's compute and serial terms in fitted
    seconds are divided by it (None: the node the constants were fitted on)."""
    log: SizeLog | None = field(default=None, compare=False, repr=False)
    """Where the sizes of the messages costed are kept, per configuration (see
    :meth:`watched`); None keeps nothing."""
    kept: Recall | None = field(default=None, compare=False, repr=False)
    """What the formulas' calls on this machine cost, kept to be read again (see
    :meth:`remembering`); None keeps nothing."""

    def calibrated(self) -> tuple[float, float] | None:
        """The message sizes the costs were calibrated on: the fabric's fitted span, else the
        point-to-point model's; None for a specified fabric (no measurement to leave)."""
        fab = self.profile.fabric
        if fab is not None:
            return fab.ranges.get("size")
        return self.profile.network.size_range

    def watched(self) -> Machine:
        """This machine with a fresh :class:`SizeLog`: every message it costs from now on is
        kept, for :meth:`messages` to compare with :meth:`calibrated`."""
        return replace(self, log=SizeLog())

    def remembering(self) -> Machine:
        """This machine with a fresh :class:`Recall`: every call a model's formulas make on it
        (``exchange(...)``, ``kernel(...)``) is kept with its arguments, and a later call with
        the same arguments on this machine, or on one made from it with the same hardware,
        reads the kept cost instead of solving it again.  A sweep's band moves one fitted
        constant at a time, which rarely reaches a message size or a flop count: its passes
        cost the network once, not once per constant."""
        return replace(self, kept=Recall(self))

    def messages(self, shape: tuple[int, ...]) -> MessageSpan:
        """The messages costed so far (by a :meth:`watched` machine), one span per element of
        ``shape`` (the configurations or process counts they were costed for)."""
        lo, hi = self.log.spans(shape) if self.log is not None else \
            (np.full(shape, np.inf), np.full(shape, -np.inf))
        return MessageSpan(lo, hi, self.calibrated())

    def probing(self) -> Machine:
        """This machine costing every message outside :meth:`calibrated` twice over: what
        :func:`message_span` compares a prediction with, to find the rows whose time depends
        on such a message (a message switched off by a factor of 0, or hidden by a ``max``,
        leaves it unchanged)."""
        return replace(self, log=SizeLog(self.calibrated()))

    def probed(self, cost: FloatArray, size: ArrayLike) -> FloatArray:
        """``cost`` of messages of ``size`` bytes, doubled where a :meth:`probing` machine
        finds the size outside the calibrated ones."""
        span = self.log.probe if self.log is not None else None
        if span is None:
            return cost
        m = np.asarray(size, dtype=np.float64)
        out = np.isfinite(m) & (m > 0) & ((m < span[0]) | (m > span[1]))
        return np.asarray(cost * np.where(out, 2.0, 1.0), dtype=np.float64)

    def note(self, size: ArrayLike, live: ArrayLike = True) -> None:
        """Keep messages of ``size`` bytes, sent where ``live`` holds (a :meth:`watched`
        machine; any other keeps nothing)."""
        if self.log is not None:
            self.log.note(size, live)

    @property
    def values(self) -> dict[str, Any]:
        """The fabric's parameters with this machine's hardware in them: the ``line_rate``
        and the per-message host ``overhead`` replaced where given (a what-if link speed or
        latency; arrays broadcast against the sizes and counts they meet)."""
        fab = self.profile.fabric
        assert fab is not None
        out: dict[str, Any] = dict(fab.values)
        if self.overhead is not None:
            out["overhead"] = np.asarray(self.overhead, dtype=np.float64)
        if self.line_rate is not None:
            out["line_rate"] = self.line_rate
        return out

    @property
    def own(self) -> dict[str, float]:
        """The profile's own line rate (``link_speed``) and host latency (``latency``): what
        this machine's changes are compared with (empty without a fabric)."""
        from perfmodel.machine.hardware import own

        return own(self.profile)

    @property
    def unmeasured(self) -> dict[str, FloatArray]:
        """This machine's line rates and host latencies that are not the profile's own
        (distinct, sorted; empty when there are none): no measurement was made there, and the
        fabric's laws carry its costs to them."""
        from perfmodel.machine.hardware import unmeasured

        return unmeasured({"link_speed": self.line_rate, "latency": self.overhead}, self.own)

    @property
    def box(self) -> int:
        """Processes one box holds (1 without a fabric or without boxes)."""
        return self.profile.fabric.box if self.profile.fabric is not None else 1

    def inside(self, processes: ArrayLike, distance: ArrayLike | None = None) -> NDArray[np.bool_]:
        """Whether a round among ``processes`` ranks stays inside the boxes: the whole job in
        one box, or (``distance`` given, block placement, boxes of a power of two) every rank's
        partner ``rank XOR distance`` in its own box, which holds for distances below the box
        (the recursive-doubling and halving rounds; not for ``rank + d`` partners, which
        cross at the box's edge whenever the job spans boxes)."""
        p = np.asarray(processes, dtype=np.float64)
        b = self.box
        if b <= 1 or self.placement == "spread":
            return np.zeros(p.shape, dtype=bool)
        whole = p <= b
        if distance is None or self.placement != "block" or b & (b - 1):
            return np.asarray(whole, dtype=bool)
        return np.asarray(whole | (np.asarray(distance, dtype=np.float64) < b), dtype=bool)

    def kernel(self, flops: ArrayLike, nbytes: ArrayLike, processes: ArrayLike,
               accesses: ArrayLike = 0.0) -> FloatArray:
        """Seconds for ``flops`` operations over ``nbytes`` streamed bytes and ``accesses``
        random accesses on one of ``processes`` processes (the node's roofline, memory shared
        as the node says)."""
        values = self.node_values
        if "flop_rate" not in values:   # a node of STREAM alone: memory-only kernels run
            f = np.asarray(flops, dtype=np.float64)
            if np.any(f > 0):
                from perfmodel.node import require_flop_rate

                require_flop_rate(require_node(self.profile), self.profile.name)
            values = {**values, "flop_rate": math.inf}
        return kernel_seconds(values, flops, nbytes, processes, accesses)

    @property
    def node_values(self) -> dict[str, Any]:
        """The node's values with this machine's overrides in them: the ``flop_rate`` given,
        and the rates scaled by ``speed`` and ``memory_speed``; a node of STREAM alone has no
        ``flop_rate`` here (:meth:`kernel` refuses arithmetic on it)."""
        node = require_node(self.profile)
        values: dict[str, Any] = dict(node.values)
        if self.flop_rate is not None:
            values["flop_rate"] = np.asarray(self.flop_rate, dtype=np.float64)
        if self.speed is not None and "flop_rate" in values:
            values["flop_rate"] = values["flop_rate"] * np.asarray(self.speed, dtype=np.float64)
        if self.memory_speed is not None:
            k = np.asarray(self.memory_speed, dtype=np.float64)
            values["memory_bandwidth"] = values["memory_bandwidth"] * k
            values["domain_bandwidth"] = values["domain_bandwidth"] * k
        return values

    def host(self, size: ArrayLike, live: ArrayLike = True) -> FloatArray:
        """Host seconds to send or receive one message of ``size`` bytes, outside the wire:
        the fabric's per-message overhead and per-byte copy (without a fabric, which alone
        separates host from wire, the whole one-way message time: an upper bound).  ``live``:
        where the message is really sent (what a :meth:`watched` machine keeps)."""
        m = np.asarray(size, dtype=np.float64)
        self.note(m, live)
        fab = self.profile.fabric
        if fab is None:
            return self.probed(self.message(m), m)
        v = pipeline(self.values)
        return self.probed(np.asarray(v["overhead"] + v["copy"] * m, dtype=np.float64), m)

    @property
    def contention(self) -> bool:
        """Whether rounds of several messages share anything (the profile has a fabric)."""
        return self.profile.fabric is not None

    def message(self, size: ArrayLike) -> FloatArray:
        """One message alone, one way, in seconds.  A fabric fitted to streams times one
        message of a stream (the gap between back-to-back messages), not a one-way trip: then
        the point-to-point law gives the time, moved by what this machine's hardware changes
        in the fabric's (never below its time on the wire)."""
        m = np.asarray(size, dtype=np.float64)
        fab = self.profile.fabric
        if fab is None:
            return np.asarray(self.profile.network.time(m), dtype=np.float64)
        c = fab.channels if self.channels is None else self.channels
        t = message_seconds(self.values, m, c)
        if not fab.stream_fit:
            return t
        law = np.asarray(self.profile.network.time(m), dtype=np.float64)
        moved = law + t - message_seconds(fab.values, m, fab.channels)
        return np.asarray(np.maximum(moved, wire_seconds(self.values, m, c)), dtype=np.float64)

    def round(self, size: ArrayLike, messages: ArrayLike, inside: ArrayLike = False,
              leaving: ArrayLike = 1.0, live: ArrayLike = True) -> FloatArray:
        """Seconds until ``messages`` messages of ``size`` bytes, sent at once between
        distinct pairs of ranks, have all arrived: one message's time on a network that does
        not share, the medium's or the switch's throughput when it does.  ``inside`` (see
        :meth:`inside`): every pair shares a box and the intra-box link carries the round;
        otherwise the slowest message crosses between boxes, and the ``leaving`` messages
        that leave one box (1 for a shift or a ring, where only a box's edge rank sends
        out; the whole box for partners a box or more apart) queue for its port.  0 for no
        message.  ``live``: where the round is really run (its caller may cost it for every
        configuration and keep only some), which is what a :meth:`watched` machine keeps."""
        m, k, local, out = np.broadcast_arrays(np.asarray(size, dtype=np.float64),
                                               np.asarray(messages, dtype=np.float64),
                                               np.asarray(inside, dtype=bool),
                                               np.asarray(leaving, dtype=np.float64))
        self.note(m, np.asarray(live, dtype=bool) & (k > 0))
        fab = self.profile.fabric
        if fab is None:
            t = self.message(m)
        else:
            c = fab.channels if self.channels is None else self.channels
            kk = np.maximum(k, 1.0)
            rate = message_rate(fab.topology, self.values, m, kk, c, 1)
            t = np.maximum(kk / rate, self.message(m))
            if fab.box > 1:
                v = self.values
                port = np.clip(out, 1.0, fab.box) * wire_seconds(v, m, c)
                t = np.where(local, v["intra_latency"] + m / v["intra_rate"],
                             np.maximum(t, port))
        return np.asarray(np.where(k > 0, self.probed(t, m), 0.0), dtype=np.float64)

    def ring(self, size: ArrayLike, processes: ArrayLike) -> FloatArray:
        """One iteration of the Exchange ring (IMB/Pallas Exchange): every process sends
        ``size`` bytes to each of its two ring neighbours and receives as much, with ranks
        placed in the machine's boxes by its ``placement``
        (:func:`~perfmodel.network.hierarchy.exchange_time`).  Without a fabric: two
        messages, one after the other."""
        m, p = np.broadcast_arrays(np.asarray(size, dtype=np.float64),
                                   np.asarray(processes, dtype=np.float64))
        self.note(m, p > 1)
        fab = self.profile.fabric
        if fab is None:
            return np.asarray(np.where(p > 1, self.probed(2.0 * self.message(m), m), 0.0),
                              dtype=np.float64)
        c = fab.channels if self.channels is None else self.channels
        t = exchange_seconds(fab.topology, self.values, m, np.maximum(p, 2.0), box=fab.box,
                             placement=self.placement, channels=c)
        return np.asarray(np.where(p > 1, self.probed(t, m), 0.0), dtype=np.float64)


class Recall:
    """The calls a :meth:`Machine.remembering` machine has costed: per call name, the arguments
    and the cost.  A call is read back only on a machine of the same hardware (the same
    profile and override arrays, the same placement, the same probing span); arguments match
    when they are the same arrays, element by element (NaN never matches: it is costed again).
    Mutable, and only ever filled by the one evaluation that owns it (a sweep's chunk)."""

    def __init__(self, owner: Machine) -> None:
        self.hardware = _hardware(owner)
        self.calls: dict[str, list[tuple[tuple[Any, ...], FloatArray]]] = {}

    def find(self, machine: Machine, name: str, args: tuple[Any, ...]) -> FloatArray | None:
        """The kept cost of ``name(*args)`` on ``machine``, or None."""
        if not _same(_hardware(machine), self.hardware):
            return None
        for kept_args, cost in self.calls.get(name, ()):
            if len(kept_args) == len(args) and all(_same_arg(a, b) for a, b in
                                                   zip(args, kept_args, strict=True)):
                return cost
        return None

    def keep(self, machine: Machine, name: str, args: tuple[Any, ...], cost: FloatArray) -> None:
        if _same(_hardware(machine), self.hardware):
            self.calls.setdefault(name, []).append((args, cost))


def _hardware(machine: Machine) -> tuple[Any, ...]:
    """What a machine's costs depend on besides the arguments of a call."""
    probe = machine.log.probe if machine.log is not None else None
    return (machine.profile, machine.channels, machine.line_rate, machine.flop_rate,
            machine.placement, machine.overhead, machine.speed, machine.memory_speed, probe)


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """The same hardware: the same objects (arrays by identity), the same placement and
    probing span."""
    return all(x is y or (isinstance(x, str | tuple) and x == y) for x, y in
               zip(a, b, strict=True))


def _same_arg(a: Any, b: Any) -> bool:
    if a is b:
        return True
    x, y = np.asarray(a), np.asarray(b)
    return x.shape == y.shape and x.dtype == y.dtype and bool(np.array_equal(x, y))


class SizeLog:
    """The smallest and largest message size a :meth:`Machine.watched` machine has costed,
    element by element of the arrays it was given (one element per configuration of a sweep,
    or per process count of a prediction); zero-byte messages, and those costed where the
    caller keeps nothing (``live`` false), are left out.  Mutable, and only ever filled by
    the one evaluation that owns it (a sweep's chunk, one prediction)."""

    def __init__(self, probe: tuple[float, float] | None = None) -> None:
        self.lo: FloatArray = np.asarray(np.inf)
        self.hi: FloatArray = np.asarray(-np.inf)
        self.probe = probe
        """Set on a :meth:`Machine.probing` machine: the calibrated sizes outside which it
        costs messages twice over (it keeps no sizes)."""

    def note(self, size: ArrayLike, live: ArrayLike = True) -> None:
        if self.probe is not None:
            return
        m = np.asarray(size, dtype=np.float64)
        sent = np.asarray(live, dtype=bool) & np.isfinite(m) & (m > 0)
        self.lo = np.minimum(self.lo, np.where(sent, m, np.inf))
        self.hi = np.maximum(self.hi, np.where(sent, m, -np.inf))

    def spans(self, shape: tuple[int, ...]) -> tuple[FloatArray, FloatArray]:
        """Each element's smallest and largest size (inf and -inf where none was sent)."""
        return (np.broadcast_to(self.lo, shape).astype(np.float64),
                np.broadcast_to(self.hi, shape).astype(np.float64))


@dataclass(frozen=True)
class MessageSpan:
    """The messages an evaluation costed, per element: the smallest (``lo``; inf where none
    was sent) and the largest (``hi``; -inf), and the sizes the machine profile was calibrated
    on (None for a specified fabric, with no measurement to leave)."""

    lo: FloatArray
    hi: FloatArray
    calibrated: tuple[float, float] | None
    used: NDArray[np.bool_] | None = None
    """Elements whose time depends on the cost of a message outside the calibrated sizes
    (:func:`message_span`); None: not looked at, every element that sends one counts."""

    @functools.cached_property
    def sent_outside(self) -> NDArray[np.bool_]:
        """Elements that cost a message outside the calibrated sizes."""
        if self.calibrated is None:
            return np.zeros(self.lo.shape, dtype=bool)
        return np.asarray((self.lo < self.calibrated[0]) | (self.hi > self.calibrated[1]))

    @functools.cached_property
    def outside(self) -> NDArray[np.bool_]:
        """Elements whose time depends on a message outside the calibrated sizes: their
        network costs are extrapolated."""
        return self.sent_outside if self.used is None else self.sent_outside & self.used

    def span(self, where: ArrayLike | None = None) -> tuple[float, float] | None:
        """The smallest and largest message over the elements ``where`` says (all by default);
        None when none was sent there."""
        pick = np.ones(self.lo.shape, dtype=bool) if where is None else \
            np.asarray(where, dtype=bool)
        lo, hi = self.lo[pick], self.hi[pick]
        lo, hi = lo[np.isfinite(lo)], hi[np.isfinite(hi)]
        return (float(lo.min()), float(hi.max())) if lo.size else None

    def beyond(self, where: ArrayLike | None = None) -> tuple[float | None, float | None]:
        """Over the elements ``where`` says (default: :attr:`outside`), the smallest message
        below the calibrated sizes and the largest above them (None where there is none)."""
        if self.calibrated is None:
            return None, None
        pick = self.outside if where is None else np.asarray(where, dtype=bool)
        lo, hi = self.lo[pick], self.hi[pick]
        low, high = lo[lo < self.calibrated[0]], hi[hi > self.calibrated[1]]
        return (float(low.min()) if low.size else None,
                float(high.max()) if high.size else None)


def message_span(watched: Machine, shape: tuple[int, ...], time: FloatArray,
                 again: Callable[[NDArray[np.bool_]], FloatArray]) -> MessageSpan:
    """The messages a :meth:`Machine.watched` machine costed for ``time`` (one element per
    configuration or process count), with the elements whose time depends on one outside the
    calibrated sizes.  ``again(rows)`` evaluates the same prediction at the elements ``rows``
    picks (those that sent such a message) on a :meth:`Machine.probing` machine: a time that
    moves depends on one."""
    seen = watched.messages(shape)
    rows = seen.sent_outside
    if not np.any(rows):
        return seen
    with np.errstate(all="ignore"):
        moved = np.asarray(again(rows), dtype=np.float64)
    used = np.zeros(shape, dtype=bool)
    used[rows] = ~np.isclose(moved, np.asarray(time)[rows], rtol=1e-9, atol=0.0,
                             equal_nan=True)
    return replace(seen, used=used)
