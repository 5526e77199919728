"""Rendering a what-if sweep: Rich tables, a JSON summary, or every configuration as CSV."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from perfmodel.cli.tables import Tabular, console, safe
from perfmodel.cli.tables import decisive as assumption_lines
from perfmodel.plain import jsonable
from perfmodel.units import (
    format_counts,
    format_number,
    format_share,
    format_time,
)
from perfmodel.whatif import analysis
from perfmodel.whatif.axes import LABELS, named, namer
from perfmodel.whatif.catalogue import Catalogue
from perfmodel.whatif.decisive import Decisive
from perfmodel.whatif.sweep import CATEGORICAL, Sweep

AXIS_ORDER = ("machine", "nodes", "node", "network", "channels", "link_speed", "latency")


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


def _spread_front(idx: np.ndarray, limit: int = 16) -> np.ndarray:
    """At most ``limit`` rows of a front, evenly through it, both ends kept."""
    if len(idx) <= limit:
        return idx
    return idx[np.unique(np.linspace(0, len(idx) - 1, limit).round().astype(int))]


def summary(sweep: Sweep, seconds: float, worth: float, share: float, top: int,
            rows: np.ndarray, wire: np.ndarray, decisive: Sequence[Decisive] = ()
            ) -> dict[str, Any]:
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))

    grid = sweep.grid
    cat = grid.catalogue
    why = sweep.extrapolation

    def row(i: int) -> dict[str, Any]:
        d: dict[str, Any] = {k: named(grid, k, v) for k, v in
                             analysis.describe(sweep, i).items()}
        if sweep.cost is not None:
            d["price"] = sweep.cost[i] if math.isfinite(sweep.cost[i]) else None
        return {**d, "time": sweep.time[i],
                "time_lo": sweep.lo[i], "time_hi": sweep.hi[i], "speedup": sweep.speedup[i],
                "comm_share": sweep.comm_share[i],
                "sync_share": sweep.sync_share[i],
                "extrapolated": bool(sweep.extrapolated[i]),
                "extrapolated_in": why.why(i)}

    counts, rates = analysis.unbottlenecked(sweep, rows, wire, share)
    return jsonable({
        "configurations": len(sweep.time),
        "seconds": seconds,
        "axes": {k: [named(grid, k, x) for x in v] for k, v in grid.axes.items()},
        "baseline_hardware": {k: named(grid, k, v) for k, v in sweep.baseline.items()},
        "baseline": [row(int(i)) for i in analysis.baseline(sweep)],
        "best": [row(int(i)) for i in analysis.best(sweep, top)],
        "steps": [{"axis": s.axis, "from": named(grid, s.axis, s.before),
                   "to": named(grid, s.axis, s.after), "worth": worth,
                   "pays_at_nodes": s.pays.tolist(),
                   "gain": dict(zip(s.nodes.tolist(), s.gain.tolist(), strict=True))}
                  for s in analysis.steps(sweep, worth)],
        "held": {k: {"value": named(grid, k, v), "profiles_own": own}
                 for k, (_, v, own) in analysis.held(sweep).items()},
        "weak": sweep.weak,
        "network_not_bottleneck": {"share": share,
                                   "link_speed_by_nodes": dict(zip(counts.tolist(),
                                                                   rates.tolist(),
                                                                   strict=True))},
        "front": [row(int(i)) for i in analysis.front(sweep)],
        "price_front": [row(int(i)) for i in analysis.cost_front(sweep)],
        "currency": cat.currency if cat is not None else None,
        "nodes_range": [float(nodes.min()), float(nodes.max())],
        "fitted_nodes": list(sweep.fitted),
        "fitted_sizes": list(why.fitted_sizes),
        "calibrated_message_sizes": list(why.messages.calibrated)
        if why.messages is not None and why.messages.calibrated is not None else None,
        "message_sizes_outside_calibration": why.beyond(),
        "extrapolation": why.notes(),
        "unmeasured_hardware": {k: v.tolist() for k, v in sweep.unmeasured.items()},
        "decisive_assumptions": [d.to_dict() for d in decisive],
        "notes": list(sweep.notes),
    })


CSV_ROWS = 65_536
"""Rows of CSV formatted at once (the strings of one block are held in memory)."""


def csv_rows(sweep: Sweep) -> None:
    """Every configuration, one row each: the axes (catalogue entries by name), the price
    when there is one, then the time and its split.  Formatted a column at a time, a block of
    rows at once."""
    names = list(sweep.grid.axes)
    text = namer(sweep.grid)
    out = sys.stdout
    price = ["price"] if sweep.cost is not None else []
    out.write(",".join([*names, *price, "time_s", "time_lo_s", "time_hi_s", "speedup",
                        "comm_share", "sync_share", "extrapolated"]) + "\n")
    cols = [sweep.config[n] for n in names] + ([sweep.cost] if sweep.cost is not None else []) \
        + [sweep.time, sweep.lo, sweep.hi, sweep.speedup, sweep.comm_share, sweep.sync_share,
           sweep.extrapolated.astype(np.float64)]
    labels = {names.index(k): [text(k, float(j)) for j in range(int(sweep.config[k].max()) + 1)]
              for k in names if k in CATEGORICAL}
    for start in range(0, len(sweep.time), CSV_ROWS):
        cells = [_cells(c[start:start + CSV_ROWS], labels.get(j)) for j, c in enumerate(cols)]
        out.write("".join(",".join(row) + "\n" for row in zip(*cells, strict=True)))


def _cells(values: np.ndarray, labels: list[str] | None) -> list[str]:
    """One column of CSV: a catalogue entry's name, else the number to 10 digits (empty
    where it is not finite)."""
    if labels is not None:
        return [labels[int(j)] for j in values.tolist()]
    isfinite = math.isfinite
    return [f"{x:.10g}" if isfinite(x) else "" for x in values.tolist()]


def money(value: float, cat: Catalogue | None) -> str:
    """A price in the catalogue's currency, to the unit, as console markup (the currency is
    the catalogue's text: printed as itself)."""
    if not math.isfinite(value):
        return "not offered"
    return safe(f"{cat.currency if cat else ''} {value:,.0f}".strip())


def axes_shown(sweep: Sweep) -> list[str]:
    """The hardware columns of a table: the axes swept, and the profile's own values; with a
    catalogue's network, its line rate and latency are its name's."""
    have = set(sweep.grid.axes) | set(sweep.baseline)
    if "network" in sweep.grid.axes:
        have -= {"link_speed", "latency"}
    return [a for a in AXIS_ORDER if a in have]


def _table(sweep: Sweep, idx: np.ndarray, title: str) -> Tabular:
    """The configurations ``idx``: their hardware, price, time and shares; on a narrow
    terminal the band, the shares and the speedup go first, the hardware never."""
    t = Tabular(title=title, title_justify="left", box=None, header_style="bold")
    axes = axes_shown(sweep)
    cat = sweep.grid.catalogue
    text = namer(sweep.grid)
    for a in axes:
        t.column(LABELS[a])
    cols = ("price",) if sweep.cost is not None else ()
    marked = bool(np.any(sweep.extrapolated[np.asarray(idx, dtype=int)]))
    goes = {"sync": 1, "range": 2, "comm": 3, "speedup": 4, "": 5}
    for col in (*cols, "time", "range", "speedup", "comm", "sync", *([""] if marked else [])):
        t.column(col, drop=goes.get(col), name="the extrapolated mark" if not col else None)
    for i in idx:
        d = analysis.describe(sweep, int(i))
        lo, hi = sweep.lo[i], sweep.hi[i]
        rng = "" if not (math.isfinite(lo) and math.isfinite(hi)) or lo == hi else \
            f"{format_time(float(lo))} – {format_time(float(hi))}"
        sp = sweep.speedup[i]
        price = (money(float(sweep.cost[i]), cat),) if sweep.cost is not None else ()
        t.add_row(*[text(a, d[a]) for a in axes], *price,
                  format_time(float(sweep.time[i])) if math.isfinite(sweep.time[i]) else "—",
                  rng, f"{sp:.2f}" if math.isfinite(sp) else "—",
                  format_share(float(sweep.comm_share[i])),
                  format_share(float(sweep.sync_share[i])),
                  *(["extrapolated" if sweep.extrapolated[i] else ""] if marked else []))
    return t


def extrapolation_warnings(sweep: Sweep) -> list[str]:
    """The lines that say which configurations leave what was fitted or calibrated, and why;
    a note when the profile's network was specified (nothing calibrated to leave), and one
    for line rates and latencies nothing measured."""
    from perfmodel.apps.trust import unmeasured_note

    why = sweep.extrapolation
    out = [f"[yellow]warning:[/] {safe(note)}" for note in why.notes()]
    if out:
        out.append("[dim]extrapolated rows are marked in the tables; a change's gain there is "
                   "extrapolated too[/]")
    if sweep.parts:   # across machines: each machine's line rates against its own
        text = namer(sweep.grid)
        unmeasured = [f"{text('machine', j)}: {n}" for j, part in
                      zip(sweep.grid.axes["machine"].tolist(), sweep.parts, strict=True)
                      if (n := unmeasured_note(part.unmeasured, part.baseline,
                                               part.extrapolation.specified))]
    else:
        unmeasured = [n for n in [unmeasured_note(sweep.unmeasured, sweep.baseline,
                                                  why.specified)] if n]
    for note in (*why.specified_notes(), *unmeasured):
        out.append(f"[dim]note:[/dim] {safe(note)}")
    return out


def _least(axis: str) -> str:
    """What the baseline holds an axis at when the profile's own value is not swept."""
    return "first listed" if axis == "machine" else "least swept"


def render(sweep: Sweep, app: str, machine: str, seconds: float, worth: float, share: float,
           top: int, rows: np.ndarray, wire: np.ndarray, total: float,
           decisive: Sequence[Decisive] = ()) -> None:
    out = console()
    nodes = sweep.config.get("nodes", np.ones(len(sweep.time)))
    n = len(sweep.time)
    out.print(f"[bold]{safe(app)}[/] on [bold]{safe(machine)}[/]: {n:,} configurations "
              f"({' × '.join(f'{len(v)} {LABELS[k]}' for k, v in sweep.grid.axes.items())}), "
              f"evaluated in {seconds:.2f} s ({n / max(seconds, 1e-9):,.0f} per second; "
              f"{total:.2f} s with the analysis)")
    cat = sweep.grid.catalogue
    text = namer(sweep.grid)
    base = ", ".join(f"{LABELS[k]} {text(k, v)}" for k, v in sweep.baseline.items()
                     if k != "nodes")
    whose = "the first machine's" if "machine" in sweep.grid.axes and \
        "machine" not in sweep.baseline else "the profile's"
    out.print(f"baseline hardware ({whose}): {safe(base) or 'as calibrated'}")
    for name, (_, value, own) in analysis.held(sweep).items():
        if not own:
            out.print(f"[yellow]note:[/] the profile's {LABELS[name]} is not swept: the baseline "
                      f"holds it at {text(name, value)}, the {_least(name)}")
    if sweep.cost is not None:
        gone = int(np.sum(~np.isfinite(sweep.cost)))
        if gone:
            why_not = "a machine beyond its max_nodes" if cat is not None and cat.machines \
                else ("a node type not for sale, a channel count a network does not offer, more "
                      "nodes than its ports")
            out.print(f"{gone:,} configurations the catalogue does not offer ({why_not}) are "
                      "left out of best and the fronts")
        if cat is not None and cat.nodes and "node" not in sweep.grid.axes and \
                cat.reference_node.price is None:
            out.print(f"[yellow]note:[/] the profile's node ({safe(cat.reference)}, the "
                      "catalogue's reference) is not for sale: vary node=NAME,... to price "
                      "configurations")
    if sweep.weak:
        out.print("weak scaling: best and front rank by time per process's share of the work "
                  "(time / nodes)")
    b = analysis.baseline(sweep)
    out.print(_table(sweep, _spread(b, nodes), "baseline"))
    out.print(_table(sweep, analysis.best(sweep, top), f"best {top}"))
    st = analysis.steps(sweep, worth)
    if st:
        t = Tabular(title=f"where each change pays (cuts the time by ≥ {100 * worth:g} %, the "
                          "rest of the hardware at baseline)", title_justify="left", box=None,
                    header_style="bold")
        t.column("change", justify="left", prose=True)
        least = nodes.min()
        t.column(f"gain at {format_number(least)} node{'' if least == 1 else 's'}")
        t.column(f"at {format_number(nodes.max())}", drop=1)
        t.column("best gain (nodes)", drop=2)
        t.column("pays at nodes", prose=True)
        # every step has one gain per node count: the best of each found at once, as
        # np.nanargmax would (NaN left out), not by a NumPy call per step
        gains = np.array([s.gain for s in st])
        shown = np.any(np.isfinite(gains), axis=1).tolist()
        peaks = np.argmax(np.where(np.isnan(gains), -np.inf, gains), axis=1).tolist()
        for s, ok, k in zip(st, shown, peaks, strict=True):
            if not ok:
                continue
            t.add_row(f"{LABELS[s.axis]} {text(s.axis, s.before)} → "
                      f"{text(s.axis, s.after)}", f"{s.gain[0]:.3f}",
                      f"{s.gain[-1]:.3f}",
                      f"{s.gain[k]:.3f} ({format_number(s.nodes[k])})", format_counts(s.pays))
        out.print(t)
    counts, rates = analysis.unbottlenecked(sweep, rows, wire, share)
    if counts.size:
        groups: dict[str, list[float]] = {}
        for q, r in zip(counts, rates, strict=True):
            key = text("link_speed", r) if math.isfinite(r) else "none of the speeds swept"
            groups.setdefault(key, []).append(float(q))
        lines = [f"{k} at {format_counts(v)} node{'' if v == [1.0] else 's'}"
                 for k, v in groups.items()]
        out.print(f"the link no longer the bottleneck (a free wire would save under "
                  f"{100 * share:g} % of the time), slowest line rate swept: " + "; ".join(lines))
    f = analysis.front(sweep)
    out.print(_table(sweep, _spread(f, nodes), "front of time against nodes (more nodes only "
                                               "where they buy time)"))
    if sweep.cost is not None:
        cf = analysis.cost_front(sweep)
        out.print(_table(sweep, _spread_front(cf), "front of time against price (each buys "
                                                   "time over every cheaper configuration)"))
    elif cat is not None and cat.machines:
        out.print("[yellow]note:[/] no prices: the catalogue prices its machines as offered "
                  "(vary machine=NAME,... or =all, without channels, link speed or latency)")
    elif cat is not None:
        out.print("[yellow]note:[/] no prices: a link speed or latency swept freely, or a "
                  "profile's network the catalogue does not list, has no price (vary "
                  "network=NAME,... instead)")
    for line in extrapolation_warnings(sweep):
        out.print(line)
    for note in sweep.notes:
        out.print(f"[dim]note:[/dim] {safe(note)}")
    assumption_lines(decisive)
