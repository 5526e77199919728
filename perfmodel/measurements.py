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

Quantity = Literal["one_way", "round_trip", "bandwidth", "aggregate"]
STATISTICS: tuple[str, ...] = ("min", "median", "mean", "max")

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", _frozen(self.size))
        object.__setattr__(self, "time", _frozen(self.time))
        n = len(self.size)
        if len(self.time) != n or len(self.line) != n:
            raise ValueError("size, time and line must have the same length")

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

    def sorted_by_size(self) -> Measurements:
        return self.take(np.argsort(self.size, kind="stable"))



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
    )
