"""Rendering a what-if sweep: Rich tables, a JSON summary, or every configuration as CSV."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np
from rich.markup import escape
from rich.table import Table

from perfmodel.cli.render import console, jsonable
from perfmodel.units import format_time
from perfmodel.whatif import analysis
from perfmodel.whatif.sweep import Sweep

LABELS = {"nodes": "nodes", "channels": "channels", "link_speed": "link speed",
          "latency": "latency"}


def _value(axis: str, v: float) -> str:
    if axis == "link_speed":
        return f"{v * 8 / 1e6:g} Mb/s" if v * 8 < 1e9 else f"{v * 8 / 1e9:g} Gb/s"
    if axis == "latency":
        return format_time(v)
    return f"{v:g}"


def _ranges(nodes: Iterable[float]) -> str:
    """1,2,3,4,8,9 -> '1–4, 8–9' (runs of consecutive counts in the sweep's order)."""
    vals = sorted(set(float(v) for v in nodes))
    if not vals:
        return "none"
    out, start, prev = [], vals[0], vals[0]
    for v in vals[1:]:
        if v != prev + 1:
            out.append(f"{start:g}" if start == prev else f"{start:g}–{prev:g}")
            start = v
        prev = v
    out.append(f"{start:g}" if start == prev else f"{start:g}–{prev:g}")
    return ", ".join(out) if len(out) <= 6 else f"{', '.join(out[:5])} … ({len(vals)} counts)"


def _spread(idx: np.ndarray, nodes: np.ndarray, limit: int = 12) -> np.ndarray:
    """At most ``limit`` rows: powers of two, the ends, and nothing else."""
    if len(idx) <= limit:
        return idx
    q = nodes[idx]
    keep = (np.log2(q) % 1 == 0) | (q == q.max()) | (q == q.min())
    chosen = idx[keep]
    if len(chosen) > limit:
        chosen = chosen[np.linspace(0, len(chosen) - 1, limit).round().astype(int)]
    return chosen


def summary(sweep: Sweep, seconds: float, worth: float, share: float, top: int,
            rows: np.ndarray, wire: np.ndarray) -> dict[str, Any]:
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))

    def row(i: int) -> dict[str, Any]:
        return {**analysis.describe(sweep, i), "time": sweep.time[i],
                "time_lo": sweep.lo[i], "time_hi": sweep.hi[i], "speedup": sweep.speedup[i],
                "comm_share": sweep.comm_share[i],
                "sync_share": sweep.terms["synchronisation"][i] / sweep.time[i]}

    counts, rates = analysis.unbottlenecked(sweep, rows, wire, share)
    return jsonable({
        "configurations": len(sweep.time),
        "seconds": seconds,
        "axes": {k: list(v) for k, v in sweep.grid.axes.items()},
        "baseline_hardware": sweep.baseline,
        "baseline": [row(int(i)) for i in analysis.baseline(sweep)],
        "best": [row(int(i)) for i in analysis.best(sweep, top)],
        "steps": [{"axis": s.axis, "from": s.before, "to": s.after, "worth": worth,
                   "pays_at_nodes": s.pays.tolist(),
                   "gain": dict(zip(s.nodes.tolist(), s.gain.tolist(), strict=True))}
                  for s in analysis.steps(sweep, worth)],
        "held": {k: {"value": v, "profiles_own": own}
                 for k, (_, v, own) in analysis.held(sweep).items()},
        "weak": sweep.weak,
        "network_not_bottleneck": {"share": share,
                                   "link_speed_by_nodes": dict(zip(counts.tolist(),
                                                                   rates.tolist(),
                                                                   strict=True))},
        "front": [row(int(i)) for i in analysis.front(sweep)],
        "nodes_range": [float(nodes.min()), float(nodes.max())],
    })


def csv_rows(sweep: Sweep) -> None:
    names = list(sweep.grid.axes)
    out = sys.stdout
    out.write(",".join([*names, "time_s", "time_lo_s", "time_hi_s", "speedup", "comm_share",
                        "sync_share"]) + "\n")
    sync = sweep.terms["synchronisation"] / sweep.time
    cols = [sweep.config[n] for n in names] + [sweep.time, sweep.lo, sweep.hi, sweep.speedup,
                                               sweep.comm_share, sync]
    block = np.column_stack(cols)
    for r in block:
        out.write(",".join("" if not math.isfinite(x) else f"{x:.10g}" for x in r) + "\n")


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %" if math.isfinite(x) else "—"


def _table(sweep: Sweep, idx: np.ndarray, title: str) -> Table:
    t = Table(title=title, title_justify="left", box=None, header_style="bold", pad_edge=False)
    axes = [a for a in ("nodes", "channels", "link_speed", "latency")
            if a in sweep.grid.axes or a in sweep.baseline]
    for a in axes:
        t.add_column(LABELS[a], justify="right")
    for col in ("time", "range", "speedup", "comm", "sync"):
        t.add_column(col, justify="right")
    for i in idx:
        d = analysis.describe(sweep, int(i))
        lo, hi = sweep.lo[i], sweep.hi[i]
        rng = "" if not (math.isfinite(lo) and math.isfinite(hi)) or lo == hi else \
            f"{format_time(float(lo))} – {format_time(float(hi))}"
        sp = sweep.speedup[i]
        t.add_row(*[_value(a, d[a]) for a in axes],
                  format_time(float(sweep.time[i])) if math.isfinite(sweep.time[i]) else "—",
                  rng, f"{sp:.2f}" if math.isfinite(sp) else "—",
                  _pct(float(sweep.comm_share[i])),
                  _pct(float(sweep.terms["synchronisation"][i] / sweep.time[i])))
    return t


def render(sweep: Sweep, app: str, machine: str, seconds: float, worth: float, share: float,
           top: int, rows: np.ndarray, wire: np.ndarray, total: float) -> None:
    out = console()
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))
    n = len(sweep.time)
    out.print(f"[bold]{escape(app)}[/] on [bold]{escape(machine)}[/]: {n:,} configurations "
              f"({' × '.join(f'{len(v)} {LABELS[k]}' for k, v in sweep.grid.axes.items())}), "
              f"evaluated in {seconds:.2f} s ({n / max(seconds, 1e-9):,.0f} per second; "
              f"{total:.2f} s with the analysis)")
    base = ", ".join(f"{LABELS[k]} {_value(k, v)}" for k, v in sweep.baseline.items()
                     if k != "nodes")
    out.print(f"baseline hardware (the profile's): {base or 'as calibrated'}")
    for name, (_, value, own) in analysis.held(sweep).items():
        if not own:
            out.print(f"[yellow]note:[/] the profile's {LABELS[name]} is not swept: the baseline "
                      f"holds it at {_value(name, value)}, the least swept")
    if sweep.weak:
        out.print("weak scaling: best and front rank by time per process's share of the work "
                  "(time / nodes)")
    b = analysis.baseline(sweep)
    out.print(_table(sweep, _spread(b, nodes), "baseline"))
    out.print(_table(sweep, analysis.best(sweep, top), f"best {top}"))
    st = analysis.steps(sweep, worth)
    if st:
        t = Table(title=f"where each change pays (cuts the time by ≥ {100 * worth:g} %, the rest "
                        "of the hardware at baseline)", title_justify="left", box=None,
                  header_style="bold", pad_edge=False)
        for col in ("change", f"gain at {nodes.min():g} nodes", f"at {nodes.max():g}",
                    "best gain (nodes)", "pays at nodes"):
            t.add_column(col, justify="right" if col != "change" else "left")
        for s in st:
            if not np.any(np.isfinite(s.gain)):
                continue
            k = int(np.nanargmax(s.gain))
            t.add_row(f"{LABELS[s.axis]} {_value(s.axis, s.before)} → "
                      f"{_value(s.axis, s.after)}", f"{s.gain[0]:.3f}", f"{s.gain[-1]:.3f}",
                      f"{s.gain[k]:.3f} ({s.nodes[k]:g})", _ranges(s.pays))
        out.print(t)
    counts, rates = analysis.unbottlenecked(sweep, rows, wire, share)
    if counts.size:
        groups: dict[str, list[float]] = {}
        for q, r in zip(counts, rates, strict=True):
            key = _value("link_speed", r) if math.isfinite(r) else "none of the speeds swept"
            groups.setdefault(key, []).append(float(q))
        lines = [f"{k} at {_ranges(v)} nodes" for k, v in groups.items()]
        out.print(f"the link no longer the bottleneck (a free wire would save under "
                  f"{100 * share:g} % of the time), slowest line rate swept: " + "; ".join(lines))
    f = analysis.front(sweep)
    out.print(_table(sweep, _spread(f, nodes), "front of time against nodes (more nodes only "
                                               "where they buy time)"))
