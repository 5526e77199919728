"""Point-to-point measurements in one canonical form: sizes in bytes, one-way times in seconds.

Whatever a file holds (one-way times, round trips or bandwidths, in any unit), a reader turns
it into :class:`Measurements`; the models never see anything else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Quantity = Literal["one_way", "round_trip", "bandwidth", "aggregate", "time", "message_rate"]
"""The column a table's times were derived from: a one-way time, a round trip (halved), one
stream's bandwidth (size / b), an aggregate bandwidth or message rate (shared by the streams in
flight), or a time taken as it is (its meaning is the table's pattern)."""

STATISTICS: tuple[str, ...] = ("min", "median", "mean", "max")

Pattern = Literal["pingpong", "stream", "fanin", "bidirectional", "sendrecv", "exchange",
                  "collective", "memory", "application", "other"]
PATTERNS: dict[str, str] = {
    "pingpong": "one message, one way (half a round trip)",
    "stream": "one message of a stream sent back to back in one direction (the inverse of the "
              "message rate)",
    "fanin": "one message of one of several senders' streams into one receiver (one stream's "
             "time per message)",
    "bidirectional": "one message in one direction while the other direction is as busy",
    "sendrecv": "one iteration: every rank sends one message and receives one (a ring)",
    "exchange": "one iteration: every rank sends to and receives from both neighbours",
    "collective": "one call of a collective operation",
    "memory": "one pass of a memory kernel over its arrays (size = bytes moved)",
    "application": "one whole run of an application (no message size)",
    "other": "as the benchmark defines it",
}
"""What one row's time means: the communication pattern that was timed."""

POINT_TO_POINT: tuple[str, ...] = ("pingpong",)
"""Patterns whose times are one-way message latencies, what point-to-point models describe."""

CONCURRENCY = ("pairs", "channels", "senders", "processes")
"""Optional integer columns that say how much else was in flight during the measurement."""


def _frozen(a: Sequence[float] | NDArray[np.float64]) -> NDArray[np.float64]:
    arr = np.array(a, dtype=np.float64)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class Measurements:
    """One table of point-to-point measurements.

    size : bytes, shape (n,)
    time : one-way seconds, shape (n,); a round trip is stored halved, a bandwidth b at size m
        as m / b
    line : the line of the source file each row came from, for error messages
    concurrency : column name -> values, shape (n,), for the columns the file has
        (``pairs``, ``channels``, ``senders``, ``processes``)
    placement : one text label per row, or None
    reps : repetitions behind each row, or None
    statistic : what each row is of its repetitions (``min``, ``median``, ``mean``, ``max``)
    quantity : which column the times were derived from
    pattern : what one time means (:data:`PATTERNS`)
    version : the benchmark tool's version as it printed it, or ""
    extra : further numeric columns, name -> shape (n,), in SI units (``t_min``, ``t_max``,
        ``stddev``, ``msg_rate`` …)
    attrs : facts about the whole table as the tool printed them (datatype, window, class …)
    meaning : one line saying how ``time`` was derived from the tool's columns and units
    """

    source: str
    size: NDArray[np.float64]
    time: NDArray[np.float64]
    line: tuple[int, ...]
    quantity: Quantity = "one_way"
    format: str = "csv"
    benchmark: str = "pingpong"
    concurrency: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    placement: tuple[str, ...] | None = None
    reps: NDArray[np.float64] | None = None
    statistic: tuple[str, ...] | None = None
    comments: tuple[str, ...] = ()
    sha256: str = ""
    notes: tuple[str, ...] = ()
    pattern: Pattern = "pingpong"
    version: str = ""
    extra: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)
    meaning: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", _frozen(self.size))
        object.__setattr__(self, "time", _frozen(self.time))
        n = len(self.size)
        if len(self.time) != n or len(self.line) != n:
            raise ValueError("size, time and line must have the same length")
        for name, col in (*self.concurrency.items(), *self.extra.items()):
            if len(col) != n:
                raise ValueError(f"column {name} has {len(col)} values, not {n}")

    def __len__(self) -> int:
        return len(self.size)

    @property
    def bandwidth(self) -> NDArray[np.float64]:
        """Achieved bandwidth of one stream, bytes per second (size / one-way time)."""
        return self.size / self.time

    @property
    def distinct_sizes(self) -> int:
        return int(np.unique(self.size).size)

    def take(self, rows: NDArray[np.bool_] | NDArray[np.intp]) -> Measurements:
        """The rows a boolean mask selects, or the rows at the given indices, in that order."""
        arr = np.asarray(rows)
        idx = np.flatnonzero(arr) if arr.dtype == bool else arr.astype(np.intp)
        return replace(
            self,
            size=self.size[idx],
            time=self.time[idx],
            line=tuple(self.line[i] for i in idx),
            concurrency={k: v[idx] for k, v in self.concurrency.items()},
            extra={k: v[idx] for k, v in self.extra.items()},
            placement=None if self.placement is None else tuple(self.placement[i] for i in idx),
            reps=None if self.reps is None else self.reps[idx],
            statistic=None if self.statistic is None else tuple(self.statistic[i] for i in idx),
        )

    def single_stream(self) -> Measurements:
        """Rows of a plain ping-pong: one pair, one sender, and the fewest channels measured.

        Columns that are absent count as 1.  ``processes`` is not filtered on: a ping-pong
        between two ranks of a larger job is still one stream.
        """
        mask = np.ones(len(self), dtype=bool)
        for key in ("pairs", "senders"):
            if key in self.concurrency:
                mask &= self.concurrency[key] == 1
        if "channels" in self.concurrency and len(self):
            mask &= self.concurrency["channels"] == self.concurrency["channels"].min()
        return self.take(mask)

    @property
    def is_fanin(self) -> bool:
        """A fan-in: a table that says so (pattern ``fanin``, as ``perfmodel measure`` writes
        it, one sender included), or a ping-pong or stream table with several senders in some
        row.  Its one-sender rows are streams, not ping-pongs."""
        if self.pattern == "fanin":
            return True
        senders = self.concurrency.get("senders")
        return (self.pattern in ("pingpong", "stream") and senders is not None
                and bool(np.any(senders > 1)))

    def sorted_by_size(self) -> Measurements:
        return self.take(np.argsort(self.size, kind="stable"))

    def counts(self, key: str) -> tuple[int, ...]:
        """The distinct values of a concurrency column (``processes``, ``pairs`` …), or ()."""
        col = self.concurrency.get(key)
        return () if col is None else tuple(int(v) for v in np.unique(col))

    @property
    def label(self) -> str:
        """``PingPong`` or ``PingPong (4 processes)``: the benchmark and its process count."""
        procs = self.counts("processes")
        if not procs:
            return self.benchmark
        said = ", ".join(str(p) for p in procs)
        unit = "thread" if self.attrs.get("counts") == "threads" else "process"
        plural = "" if procs == (1,) else "s" if unit == "thread" else "es"
        pairs = [p for p in self.counts("pairs") if p > 1]
        at_once = f", {', '.join(map(str, pairs))} pairs at once" if pairs else ""
        return f"{self.benchmark} ({said} {unit}{plural}{at_once})"


def concat(tables: Sequence[Measurements]) -> Measurements:
    """Rows of several tables as one (for calibrating on several files at once)."""
    if len(tables) == 1:
        return tables[0]
    keys = set.intersection(*(set(t.concurrency) for t in tables)) if tables else set()
    return Measurements(
        source=" + ".join(t.source for t in tables),
        size=np.concatenate([t.size for t in tables]),
        time=np.concatenate([t.time for t in tables]),
        line=tuple(ln for t in tables for ln in t.line),
        quantity=tables[0].quantity,
        format="+".join(dict.fromkeys(t.format for t in tables)),
        benchmark=tables[0].benchmark,
        concurrency={k: np.concatenate([t.concurrency[k] for t in tables]) for k in keys},
        notes=tuple(n for t in tables for n in t.notes),
        pattern=tables[0].pattern,
        extra={k: np.concatenate([t.extra[k] for t in tables])
               for k in set.intersection(*(set(t.extra) for t in tables)) if tables},
        meaning="; ".join(dict.fromkeys(t.meaning for t in tables if t.meaning)),
    )


MAX_LINK_BANDWIDTH = 10e12
"""B/s one stream reaches at most.  The fastest links sold in 2026 carry 800 Gbit/s (100 GB/s),
a node's bonded NICs a few times that, and a shared-memory copy between cores of one node
(HBM, ~3 TB/s) stays below it too: a size / time above 10 TB/s is a wrong unit (seconds
under a ``_us`` column) or a bandwidth read as a time.  The real data in ``data/`` and the
fixtures reach 114 GB/s (``osu_bw D D`` between two GPUs of one GH200 node, over NVLink:
``data/p2p-fourth``); between nodes, 30 GB/s."""

MIN_ONE_WAY = 10e-9
"""Seconds a one-way message takes at least.  A ping-pong through shared memory (a cache
line handed between cores) takes 100–300 ns, between hosts a microsecond or more, and light
crosses only 2 m of cable in 10 ns: a one-way time below 10 ns is a wrong unit (ns written
as µs read as s …), not a message."""

MAX_FALL = 10.0
"""How much faster the largest third of a table's sizes may be than its smallest third
(medians of each size's fastest repeat), or its largest size than its smallest.  A time
dips at a size or two (a protocol switch, a slow first message) and falls in a table of a
few small sizes whose first rows are a warm-up: in the real data by at most 4.5×
(``imb_np4.txt``, 3 µs down to 0.7 µs over 0–8 B).  A table falling more than 10× as the
size grows is not of times (a bandwidth column, which rises with size, read as one)."""

REPEAT_SPREAD = 100.0
"""How far repeats of one size may differ before they are said: noise (a preempted rank, a
retransmitted packet) can make one repeat slow, but 100× between repeats of one
measurement means rows of different things (units, runs) in one table."""

_MESSAGE_PATTERNS = ("pingpong", "stream", "bidirectional", "fanin")
"""Patterns whose size / time is one stream's bandwidth, rising with size."""


def check_physical(table: Measurements) -> tuple[str, ...]:
    """Refuse a table no network can have measured; the notes on what is only suspect.

    For the message patterns (:data:`_MESSAGE_PATTERNS`), rows of one concurrency and
    placement: a one-way ping-pong time below :data:`MIN_ONE_WAY`, a bandwidth size / time
    above :data:`MAX_LINK_BANDWIDTH`, or a time that falls more than :data:`MAX_FALL`× as
    the size grows is refused, naming the rows.  Repeats of one size that differ more than
    :data:`REPEAT_SPREAD`× are said in a note, naming their lines (any pattern but
    application runs).
    """
    from perfmodel.errors import InputError

    notes: list[str] = []
    for rows in _groups(table):
        size, time = table.size[rows], table.time[rows]
        lines = [table.line[i] for i in rows]
        notes += _repeats(size, time, lines)
        if table.pattern not in _MESSAGE_PATTERNS:
            continue
        if table.pattern == "pingpong" and (fast := np.flatnonzero(time < MIN_ONE_WAY)).size:
            i = int(fast[0])
            raise InputError(
                f"a one-way time of {time[i]:.3g} s at {size[i]:g} B"
                f"{_more(fast.size, 'row')}: no message is that fast (10 ns is 2 m of cable)",
                file=table.source, line=lines[i], fix="check the time column's unit (ns or "
                "µs written under a _s column?), or whether it holds a bandwidth")
        with np.errstate(divide="ignore"):
            bandwidth = size / time
        if (over := np.flatnonzero(bandwidth > MAX_LINK_BANDWIDTH)).size:
            i = int(over[np.argmax(bandwidth[over])])
            raise InputError(
                f"size / time is {bandwidth[i] / 1e12:.3g} TB/s at {size[i]:g} B"
                f"{_more(over.size, 'row')}, above the {MAX_LINK_BANDWIDTH / 1e12:g} TB/s no "
                "link reaches", file=table.source, line=lines[i],
                fix="check the time column's unit (seconds under a _us column?), or whether "
                    "a bandwidth column was read as a time")
        fall = _fall(size, time)
        if fall is not None and fall[0] > MAX_FALL:
            times, small, large = fall
            raise InputError(
                f"the time falls {times:.3g}× as the size grows: "
                f"{_said(size, time, lines, small)} down to {_said(size, time, lines, large)}",
                file=table.source, line=lines[int(large[0])],
                fix="a message's time grows with its size: is the column a bandwidth read as a "
                    "time (name it bandwidth_MBps), or are the rows in another unit?")
    return tuple(notes)


def _fall(size: NDArray[np.float64], time: NDArray[np.float64]
          ) -> tuple[float, NDArray[np.intp], NDArray[np.intp]] | None:
    """How many times the median time of the smallest third of the sizes exceeds that of the
    largest third, or that of the smallest size that of the largest (the larger), and those
    rows, taking each size's fastest repeat; None with fewer than three sizes.  Thirds and
    ends, not any two rows: a real table dips at a size or two (a protocol switch, a slow
    first message)."""
    by = _by_size(size)
    if len(by) < 3:
        return None
    least = np.array([time[at].min() for at in by])   # a slow repeat is not a fall
    third = len(by) // 3
    ends = [((0, third), (len(by) - third, len(by))), ((0, 1), (len(by) - 1, len(by)))]
    falls = [(float(np.median(least[a:b]) / np.median(least[c:d])),
              np.concatenate(by[a:b]), np.concatenate(by[c:d])) for (a, b), (c, d) in ends]
    return max(falls, key=lambda f: f[0])


def _said(size: NDArray[np.float64], time: NDArray[np.float64], lines: list[int],
          rows: NDArray[np.intp]) -> str:
    """``"1000 µs at 1–4 B (lines 3–5)"``: the median time of ``rows`` and where they are."""
    lo, hi = size[rows].min(), size[rows].max()
    sizes = f"{lo:g}–{hi:g}" if hi > lo else f"{lo:g}"
    at = sorted(lines[int(i)] for i in rows)
    where = f"lines {at[0]}–{at[-1]}" if len(at) > 1 else f"line {at[0]}"
    fastest = [float(time[at].min()) for at in _by_size(size[rows]) for at in [rows[at]]]
    return f"{float(np.median(fastest)) * 1e6:.4g} µs at {sizes} B ({where})"


def _groups(table: Measurements) -> list[NDArray[np.intp]]:
    """The rows of each concurrency and placement, as index arrays."""
    keys = [tuple(float(col[i]) for col in table.concurrency.values())
            + ((table.placement[i],) if table.placement is not None else ())
            for i in range(len(table))]
    out: dict[tuple[object, ...], list[int]] = {}
    for i, key in enumerate(keys):
        out.setdefault(key, []).append(i)
    return [np.array(v, dtype=np.intp) for v in out.values()]


def _by_size(size: NDArray[np.float64]) -> list[NDArray[np.intp]]:
    """The rows of each distinct size, smallest size first (in file order within one)."""
    order = np.argsort(size, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(size[order])) + 1) if size.size else []


def _repeats(size: NDArray[np.float64], time: NDArray[np.float64],
             lines: list[int]) -> list[str]:
    notes = []
    for at in _by_size(size):
        if at.size < 2:
            continue
        lo, hi = int(at[np.argmin(time[at])]), int(at[np.argmax(time[at])])
        if time[hi] > REPEAT_SPREAD * time[lo]:
            notes.append(f"repeats of {size[lo]:g} B differ {time[hi] / time[lo]:.3g}×: "
                         f"{time[lo]:.3g} s (line {lines[lo]}) and {time[hi]:.3g} s (line "
                         f"{lines[hi]}); both fitted as given — check them")
    return notes


def _more(n: int, what: str) -> str:
    return f" (and {n - 1} more {what}{'s' if n > 2 else ''})" if n > 1 else ""
