"""What a switched fabric's law misses at each measured size, kept beside it as piecewise is
kept beside Hockney (:class:`Corrections`, the profile's ``[fabric.corrections]``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Ratios:
    """The ratios of one kind of traffic (one way, or both ways), per size: the median log
    ratio, measured over law, of the rows where one stream's limit governs (``stream``) and of
    those where the NIC's does (``port``), over every count of streams a NIC measured
    (``nics``: the fewest and the most); and the same at the most streams a NIC measured
    alone (``beyond_stream``, ``beyond_port``), which carry on past it.  NaN where no row of
    that size had that limit; empty ``beyond_*``: the law alone past the counts measured."""

    stream: tuple[float, ...]
    port: tuple[float, ...]
    nics: tuple[float, float] = (1.0, math.inf)
    beyond_stream: tuple[float, ...] = ()
    beyond_port: tuple[float, ...] = ()

    def to_dict(self, prefix: str = "") -> dict[str, Any]:
        out: dict[str, Any] = {f"{prefix}stream": list(self.stream),
                               f"{prefix}port": list(self.port),
                               f"{prefix}per_nic": list(self.nics)}
        if self.beyond_stream:
            out[f"{prefix}beyond_stream"] = list(self.beyond_stream)
            out[f"{prefix}beyond_port"] = list(self.beyond_port)
        return out


@dataclass(frozen=True)
class Corrections:
    """What a switched fabric's law misses at each measured size (``sizes``), one way
    (``one``) and, where measured, both ways (``both``) (:class:`Ratios`).

    Between measured sizes a ratio is interpolated in log size; outside them, below the
    streams a NIC measured, and where a limit was never seen, the law alone.  Within the
    counts measured the ratios of every count apply; beyond the most, those measured there
    carry on and the law moves them: at a size whose NIC was full there the rate stays as
    measured, where the streams had not filled it, it grows as the law says, and a limit that
    did not govern there takes the law alone.
    """

    sizes: tuple[float, ...]
    one: Ratios
    source: str = ""
    both: Ratios | None = None

    @property
    def stream(self) -> tuple[float, ...]:
        return self.one.stream

    @property
    def port(self) -> tuple[float, ...]:
        return self.one.port

    @property
    def nics(self) -> tuple[float, float]:
        return self.one.nics

    def _at(self, ratios: Sequence[float], x: FloatArray) -> FloatArray:
        r = np.asarray(ratios, dtype=np.float64)
        if not r.size:
            return np.ones_like(x)
        known = np.isfinite(r)
        at = np.log(np.asarray(self.sizes, dtype=np.float64)[known])
        if not at.size:
            return np.ones_like(x)
        inside = (x >= at[0]) & (x <= at[-1])
        return np.asarray(np.where(inside, np.exp(np.interp(x, at, r[known])), 1.0),
                          dtype=np.float64)

    def _of(self, ratios: Ratios, x: FloatArray, q: FloatArray | None
            ) -> tuple[FloatArray, FloatArray]:
        stream, port = self._at(ratios.stream, x), self._at(ratios.port, x)
        if q is None:
            return stream, port
        lo, hi = ratios.nics
        within = (q >= lo) & (q <= hi)
        past = q > hi
        return (np.where(within, stream, np.where(past, self._at(ratios.beyond_stream, x), 1.0)),
                np.where(within, port, np.where(past, self._at(ratios.beyond_port, x), 1.0)))

    def factors(self, size: ArrayLike, per_nic: ArrayLike | None = None,
                both: ArrayLike = False) -> tuple[FloatArray, FloatArray]:
        """Multipliers of the stream and the port limits at ``size`` with ``per_nic`` streams
        a NIC (None: within the measured ones), one way, or both ways where ``both`` (the law
        alone there when no rows both ways were measured); broadcast together."""
        x, q = _log_size(size, per_nic)
        two = np.broadcast_to(np.asarray(both, dtype=bool), x.shape)
        stream, port = self._of(self.one, x, q)
        if self.both is None or not np.any(two):
            return (np.where(two, 1.0, stream), np.where(two, 1.0, port))
        s2, p2 = self._of(self.both, x, q)
        return np.where(two, s2, stream), np.where(two, p2, port)

    def to_dict(self) -> dict[str, Any]:
        """As a profile's ``[fabric.corrections]`` holds it (NaN where a limit never
        governed; JSON writes it null)."""
        return {"sizes": list(self.sizes), **self.one.to_dict(),
                **({} if self.both is None else self.both.to_dict("both_")),
                "source": self.source}


def _log_size(size: ArrayLike, per_nic: ArrayLike | None
              ) -> tuple[FloatArray, FloatArray | None]:
    """log(size), broadcast with ``per_nic`` when it is given."""
    m = np.asarray(size, dtype=np.float64)
    if per_nic is None:
        return np.log(np.maximum(m, 1e-300)), None
    m, q = np.broadcast_arrays(m, np.asarray(per_nic, dtype=np.float64))
    return np.log(np.maximum(m, 1e-300)), q


def ratios_of(ratio: FloatArray, at: NDArray[np.intp], count: int, alone: NDArray[np.bool_],
              per_nic: FloatArray) -> Ratios:
    """:class:`Ratios` from each row's log ratio (measured over law), its size's index ``at``
    among ``count`` sizes, whether one stream's limit governs it (``alone``, else the NIC's),
    and its streams a NIC."""
    top = per_nic == per_nic.max()

    def med(rows: NDArray[np.bool_]) -> tuple[float, ...]:
        return tuple(group_median(ratio[rows], at[rows], count).tolist())

    return Ratios(med(alone), med(~alone), (float(per_nic.min()), float(per_nic.max())),
                  med(alone & top), med(~alone & top))


def group_median(values: FloatArray, group: NDArray[np.intp], groups: int) -> FloatArray:
    """The median of ``values`` in each of ``groups`` groups (NaN for an empty one), in one
    sort: cost n log n, whatever the number of groups."""
    out = np.full(groups, math.nan)
    if not values.size:
        return out
    order = np.lexsort((values, group))
    g, v = group[order], values[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    ends = np.r_[starts[1:], len(g)]
    lo, hi = starts + (ends - starts - 1) // 2, starts + (ends - starts) // 2
    out[g[starts]] = 0.5 * (v[lo] + v[hi])
    return out
