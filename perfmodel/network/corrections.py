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
    interpolated in log size; outside them, outside the streams a NIC measured (``nics``,
    lowest and highest), and where a limit was never seen, the law alone: a ratio seen at 8
    streams a NIC says nothing of 32.
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

    def two_way(self, size: ArrayLike, per_nic: ArrayLike | None = None) -> FloatArray:
        """Multiplier of each direction's rate both ways at ``size`` (1 without ``both``)."""
        x, q = _log_size(size, per_nic)
        if not self.both:
            return np.ones_like(x)
        return np.asarray(np.where(self._within(q, x.shape), self._at(self.both, x), 1.0),
                          dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        """As a profile's ``[fabric.corrections]`` holds it (NaN where a limit never
        governed; JSON writes it null)."""
        return {"sizes": list(self.sizes), "stream": list(self.stream),
                "port": list(self.port), **({"both": list(self.both)} if self.both else {}),
                "per_nic": list(self.nics), "source": self.source}


def _log_size(size: ArrayLike, per_nic: ArrayLike | None
              ) -> tuple[FloatArray, FloatArray | None]:
    """log(size), broadcast with ``per_nic`` when it is given."""
    m = np.asarray(size, dtype=np.float64)
    if per_nic is None:
        return np.log(np.maximum(m, 1e-300)), None
    m, q = np.broadcast_arrays(m, np.asarray(per_nic, dtype=np.float64))
    return np.log(np.maximum(m, 1e-300)), q
