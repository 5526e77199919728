"""Figures (matplotlib, imported only when a figure is asked for), byte-identical for the same
inputs: no dates, a fixed hash salt for SVG ids, fixed fonts and sizes."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from perfmodel.errors import OutputError
from perfmodel.report.plot import FORMATS, plain, pyplot, to_bytes
from perfmodel.report.plot import style as line_style
from perfmodel.whatif import analysis
from perfmodel.whatif.sweep import Sweep

MAX_LINES = 8
MARKERS = ("o", "s", "^", "D", "v")


def check_path(path: Path, *, force: bool = False, inputs: Iterable[str | Path | None] = ()
               ) -> str:
    """The format of a figure to be written at ``path`` (by its suffix); refused before any
    work when it is neither SVG nor PNG, when :func:`~perfmodel.io.write_atomic` would
    refuse the place, or when it is one of the command's ``inputs``."""
    from perfmodel.io import check_writable

    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise OutputError(f"cannot draw a {path.suffix or 'suffix-less'} file", file=path,
                          fix="name the figure .svg or .png")
    check_writable(path, force=force, inputs=inputs)
    return fmt


def write(path: Path, figure: Any, *, force: bool = False) -> Path:
    """Save ``figure`` to ``path`` (SVG or PNG, by suffix), atomically."""
    try:
        fmt = check_path(path, force=force)
    except OutputError:
        pyplot().close(figure)
        raise
    from perfmodel.io import write_atomic

    return write_atomic(path, to_bytes(figure, fmt), force=force)


def _lines(sweep: Sweep) -> list[tuple[str, np.ndarray]]:
    """The hardware drawn against nodes: the baseline, and each value of each other axis with
    the rest at the baseline (at most :data:`MAX_LINES`)."""
    from perfmodel.whatif.axes import LABELS, namer

    coords = sweep.grid.coords()
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))
    held = analysis.held(sweep)
    text = namer(sweep.grid)
    base_label = ", ".join(f"{LABELS[k]} {text(k, v)}" for k, (_, v, _) in held.items())
    out = [("baseline" + (f": {base_label}" if base_label else ""), analysis.baseline(sweep))]
    for axis, (j0, _, _) in held.items():
        for j, value in enumerate(sweep.grid.axes[axis]):
            if j == j0 or len(out) >= MAX_LINES:
                continue
            mask = np.ones(len(sweep.time), dtype=bool)
            for other, (jo, _, _) in held.items():
                mask &= coords[other] == (j if other == axis else jo)
            idx = np.flatnonzero(mask)
            out.append((f"{LABELS[axis]} {text(axis, float(value))}",
                        idx[np.argsort(nodes[idx], kind="stable")]))
    return out


def sweep_figure(sweep: Sweep, app: str, machine: str) -> Any:
    """Time against nodes for the baseline and each change of hardware (with the band from
    the fitted constants, where there is one) and the communication share beside it; with
    prices, a third panel: time against price over every configuration offered, and its
    front."""
    t = sweep.rank_time
    if not np.any(np.isfinite(t)):
        raise OutputError("nothing to draw: no configuration has a time",
                          fix="check the sweep's axes")
    plt = pyplot()
    panels = 3 if sweep.cost is not None else 2
    fig, axes = plt.subplots(1, panels, figsize=(5 * panels, 4))
    left, share = axes[0], axes[1]
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))
    what = "time per process's work (s)" if sweep.weak else "time (s)"
    banded = False
    for k, (label, idx) in enumerate(_lines(sweep)):
        colour = f"C{k}"
        style = line_style(k, colour, markers=MARKERS, width=2.2)
        left.plot(nodes[idx], t[idx], label=label, **style)
        scale = nodes[idx] if sweep.weak else 1.0
        lo, hi = sweep.lo[idx] / scale, sweep.hi[idx] / scale
        if np.any(np.isfinite(lo) & (hi > lo)):
            banded = True
            left.fill_between(nodes[idx], lo, hi, color=colour, alpha=0.15, lw=0)
        share.plot(nodes[idx], 100 * sweep.comm_share[idx], label=label, **style)
    for ax in (left, share):
        ax.set_xscale("log", base=2)
        plain(ax, "x", decimal=False)
        ax.set_xlabel("nodes")
        ax.grid(True, which="both", alpha=0.3)
    left.set_yscale("log")
    plain(left, "y")
    left.set_ylabel(what)
    if sweep.moved:
        left.set_title(f"{app} from {machine}: its timings moved, shaded: 95 % range")
        share.set_ylabel("overhead share of the time (%)")
        share.set_title("overhead: communication and synchronisation")
    else:
        left.set_title(f"{app} on {machine}: the model" + (", shaded: 95 % band of the fit"
                                                          if banded else
                                                          " (constants exact: no band)"))
        share.set_ylabel("communication share of the time (%)")
        share.set_title("communication share (model)")
    left.legend(fontsize=7)
    if sweep.cost is not None:
        right = axes[2]
        cat = sweep.grid.catalogue
        ok = np.isfinite(sweep.cost) & np.isfinite(t)
        right.scatter(sweep.cost[ok], t[ok], s=4, color="0.7",
                      label="every configuration offered")
        front = analysis.cost_front(sweep)
        right.plot(sweep.cost[front], t[front], "-o", ms=3, color="C3",
                   label="front: each buys time over every cheaper one")
        right.set_xscale("log")
        right.set_yscale("log")
        plain(right, "x")
        plain(right, "y")
        right.set_xlabel(f"price ({cat.currency if cat else ''})")
        right.set_ylabel(what)
        right.set_title(f"time against price (catalogue {cat.name if cat else ''})")
        right.legend(fontsize=7)
        right.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    return fig
