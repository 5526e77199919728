"""Linear first guesses of the point-to-point laws: for fixed discrete choices (a packet size,
a segment's span) each law is linear in its parameters (α, 1/β, t_pkt), so a non-negative least
squares on relative residuals starts every non-linear fit near its answer."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

NNLS_ROWS = 4096
"""Rows above which :func:`nnls_rel` first reduces its tall system to a square one.  SciPy's
solver (1.17) takes 0.3 ms on 10⁴ rows but 70 ms from 2·10⁴ on, and the packet fit calls it
17 times; real tables, of at most a few hundred rows, are solved directly as before."""


def nnls_rel(design: FloatArray, y: FloatArray) -> tuple[FloatArray, float]:
    """Non-negative x minimising Σ((A x)/y − 1)²; returns x and the residual sum of squares.

    Above NNLS_ROWS rows, with A/y = QR (R square), the same x minimises ‖R x − Qᵀ1‖², since
    the two sums differ by a constant: the solver then sees as many rows as columns.
    """
    from perfmodel.leastsq import nnls

    a = design / y[:, None]
    ones = np.ones_like(y)
    if len(y) <= NNLS_ROWS:
        x, norm = nnls(a, ones)
        return x, float(norm) ** 2
    q, r = np.linalg.qr(a)
    x, _ = nnls(r, q.T @ ones)
    left = a @ x - ones
    return x, float(left @ left)


def bandwidth_from_gap(gap: float, m: FloatArray, y: FloatArray) -> float:
    """1/gap, or when the data show no size dependence a bandwidth far above what they probe."""
    if gap > 0:
        return 1.0 / gap
    return float(max(m.max(), 1.0) / y.min() * 1e3)


def packet_design(m: FloatArray, mtu: float) -> FloatArray:
    """Columns 1, packets, bytes: the packet law is linear in (α, t_pkt, 1/β) for a fixed MTU."""
    return np.column_stack([np.ones_like(m), np.maximum(np.ceil(m / mtu), 1.0), m])
