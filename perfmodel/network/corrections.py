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
class Corrections:
    """What a switched fabric's law misses at each measured size, kept beside it as piecewise
    is kept beside Hockney: the median log ratio, measured over law, of the rows where one
    stream's rate governs (``stream``) and of those where the NIC's does (``port``); NaN
    where no row of that size had that limit.  Between measured sizes the ratio is
    interpolated in log size; outside them, below the streams a NIC measured (``nics``, lowest
    and highest), and where a limit was never seen, the law alone.  Beyond the most streams a
    NIC measured, the ratio measured there (``beyond``: per size, of every row at that count,
    over the law alone) carries on, and the law moves it: at a size whose NIC was full there,
    the rate stays as measured; where the streams had not filled it, it grows as the law says.
    """

    sizes: tuple[float, ...]
    stream: tuple[float, ...]
    port: tuple[float, ...]
    source: str = ""
    both: tuple[float, ...] = ()
    """Per size, the median log ratio (measured over law) of the rows both ways, after their
    ``duplex`` and ``receive``; empty when none were fitted."""
    nics: tuple[float, float] = (1.0, math.inf)
    """The fewest and the most streams a NIC among the rows the ratios were taken from."""
    beyond: tuple[float, ...] = ()
    """Per size, the median log ratio (measured over the law alone) at the most streams a NIC
    measured; empty: the law alone beyond them (profiles before it)."""
    both_beyond: tuple[float, ...] = ()
    """The same for the rows both ways, at the most streams a NIC they were measured at."""
    both_nics: tuple[float, float] = (1.0, math.inf)
    """The fewest and the most streams a NIC among the rows both ways."""

    def _within(self, per_nic: ArrayLike | None, shape: tuple[int, ...]) -> NDArray[np.bool_]:
        if per_nic is None:
            return np.ones(shape, dtype=bool)
        q = np.broadcast_to(np.asarray(per_nic, dtype=np.float64), shape)
        return np.asarray((q >= self.nics[0]) & (q <= self.nics[1]), dtype=bool)

    def _at(self, ratios: Sequence[float], x: FloatArray) -> FloatArray:
        r = np.asarray(ratios, dtype=np.float64)
        known = np.isfinite(r)
        at = np.log(np.asarray(self.sizes, dtype=np.float64)[known])
        if not at.size:
            return np.ones_like(x)
        inside = (x >= at[0]) & (x <= at[-1])
        return np.asarray(np.where(inside, np.exp(np.interp(x, at, r[known])), 1.0),
                          dtype=np.float64)

    def factors(self, size: ArrayLike, per_nic: ArrayLike | None = None
                ) -> tuple[FloatArray, FloatArray]:
        """Multipliers of the stream and the port limits at ``size`` with ``per_nic`` streams
        a NIC (None: within the measured ones), broadcast together."""
        x, q = _log_size(size, per_nic)
        keep = self._within(q, x.shape)
        return (np.where(keep, self._at(self.stream, x), 1.0),
                np.where(keep, self._at(self.port, x), 1.0))

    def past(self, size: ArrayLike, per_nic: ArrayLike | None = None) -> FloatArray:
        """Multiplier of the law's rate beyond the most streams a NIC measured (1 within)."""
        x, q = _log_size(size, per_nic)
        if not self.beyond or q is None:
            return np.ones_like(x)
        return np.asarray(np.where(q > self.nics[1], self._at(self.beyond, x), 1.0),
                          dtype=np.float64)

    def two_way(self, size: ArrayLike, per_nic: ArrayLike | None = None) -> FloatArray:
        """Multiplier of each direction's rate both ways at ``size`` (1 without ``both``):
        within the streams a NIC measured both ways, their ratio; beyond, the one measured at
        the most of them."""
        x, q = _log_size(size, per_nic)
        if not self.both:
            return np.ones_like(x)
        if q is None:
            return self._at(self.both, x)
        lo, hi = self.both_nics
        out = np.where((q >= lo) & (q <= hi), self._at(self.both, x), 1.0)
        if self.both_beyond:
            out = np.where(q > hi, self._at(self.both_beyond, x), out)
        return np.asarray(out, dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        """As a profile's ``[fabric.corrections]`` holds it (NaN where a limit never
        governed; JSON writes it null)."""
        return {"sizes": list(self.sizes), "stream": list(self.stream),
                "port": list(self.port), "per_nic": list(self.nics),
                **({"beyond": list(self.beyond)} if self.beyond else {}),
                **({"both": list(self.both), "both_per_nic": list(self.both_nics)}
                   if self.both else {}),
                **({"both_beyond": list(self.both_beyond)} if self.both_beyond else {}),
                "source": self.source}


def _log_size(size: ArrayLike, per_nic: ArrayLike | None
              ) -> tuple[FloatArray, FloatArray | None]:
    """log(size), broadcast with ``per_nic`` when it is given."""
    m = np.asarray(size, dtype=np.float64)
    if per_nic is None:
        return np.log(np.maximum(m, 1e-300)), None
    m, q = np.broadcast_arrays(m, np.asarray(per_nic, dtype=np.float64))
    return np.log(np.maximum(m, 1e-300)), q
