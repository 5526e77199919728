"""Deterministic matplotlib (imported only when a figure is drawn): no dates, a fixed hash salt
for SVG ids, fixed fonts and sizes, text drawn as paths (no font needed to view it), so the
same inputs give the same bytes.  Shared by reports and by ``whatif --plot``."""

from __future__ import annotations

import io
from typing import Any

FORMATS = {".svg": "svg", ".png": "png"}
STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams.update({"svg.hashsalt": "perfmodel", "font.size": 9,
                                "font.family": "DejaVu Sans", "svg.fonttype": "path"})
    return plt


def to_bytes(figure: Any, fmt: str) -> bytes:
    """``figure`` saved as ``fmt`` (``svg`` or ``png``) without a date or software stamp, and
    closed."""
    buf = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    try:
        figure.savefig(buf, format=fmt, metadata=meta, dpi=150, bbox_inches="tight")
    finally:
        pyplot().close(figure)
    return buf.getvalue()


def style(k: int, colour: str | None = None, *, markers: tuple[str, ...] = MARKERS,
          width: float = 2.0) -> dict[str, Any]:
    """Line style number ``k``: colour, dash, marker and width all vary, so that lines lying
    on one another stay visible (``width`` is the widest, each next one 0.4 thinner)."""
    return {"ls": STYLES[k % len(STYLES)], "marker": markers[k % len(markers)],
            "ms": 3 + (k % 3), "lw": width - 0.4 * (k % 3), "mfc": "none",
            "color": colour or f"C{k % 10}"}


def plain(axis: Any, which: str, decimal: bool = True) -> None:
    """Plain numbers on a log axis, no minor labels: 1, 2, 5, 10, 20 … where ``decimal``,
    else the axis's own ticks (powers of two)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    target = axis.xaxis if which == "x" else axis.yaxis
    if decimal:
        lo, hi = axis.get_xlim() if which == "x" else axis.get_ylim()
        wide = lo > 0 and hi / lo > 1e4     # over four decades: powers of ten alone
        target.set_major_locator(LogLocator(base=10, subs=(1.0,) if wide else (1.0, 2.0, 5.0)))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.12g}"))
    target.set_minor_formatter(NullFormatter())


def size_axis(axis: Any, which: str = "x") -> None:
    """A log-2 axis of message sizes labelled 1 B, 1 KiB, 1 MiB … (every other power of two
    when the span is wide)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    from perfmodel.units import format_size

    target = axis.xaxis if which == "x" else axis.yaxis
    (axis.set_xscale if which == "x" else axis.set_yscale)("log", base=2)
    lo, hi = (axis.get_xlim() if which == "x" else axis.get_ylim())
    span = max(1.0, (hi / max(lo, 1e-300)))
    step = 4.0 if span > 2 ** 16 else 2.0
    target.set_major_locator(LogLocator(base=step))
    target.set_major_formatter(FuncFormatter(
        lambda v, _: format_size(v).replace(" ", "\u2009") if v >= 1 else f"{v:g}"))
    target.set_minor_formatter(NullFormatter())
