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
