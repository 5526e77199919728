"""Rendering a plan: the chosen configuration with its price, margin and band, the runners-up,
and the front of time against price; or the same as JSON."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from perfmodel.cli.tables import Tabular, console, safe
from perfmodel.cli.whatif_view import _spread_front, extrapolation_warnings, money
from perfmodel.plain import jsonable
from perfmodel.units import format_change, format_number, format_share, format_time
from perfmodel.whatif import analysis
from perfmodel.whatif.axes import LABELS, axis_text, named, namer
from perfmodel.whatif.catalogue import Catalogue, machine_price_parts, price_parts
from perfmodel.whatif.plan import Plan
from perfmodel.whatif.sweep import Sweep

HARDWARE = ("nodes", "machine", "node", "network", "channels")


def target_text(p: Plan, cat: Catalogue) -> str:
    t = p.target
    if t.kind == "time":
        return f"time at most {format_time(t.value)}"
    if t.kind == "speedup":
        of = f"{safe(cat.reference)} node" if not cat.machines else \
            f"node of {safe(str(namer(p.sweep.grid)('machine', p.sweep.baseline['machine'])))}"
        return f"speedup at least {t.value:g} over one {of}"
    return f"price at most {money(t.value, cat)}"


def configuration(s: Sweep, cat: Catalogue, i: int) -> str:
    """Configuration ``i`` in words: ``8 × node on network with 2 channels``, or ``8 nodes
    of machine``."""
    d = analysis.describe(s, i)
    if "machine" in d:
        return f"{d['nodes']:g} node{'s' if d['nodes'] != 1 else ''} of " \
               f"{namer(s.grid)('machine', d['machine'])}"
    return (f"{d['nodes']:g} × {axis_text('node', d['node'], cat)} on "
            f"{axis_text('network', d['network'], cat)} with {d['channels']:g} channel"
            f"{'s' if d['channels'] != 1 else ''}")


def _parts(s: Sweep, cat: Catalogue, d: Any) -> dict[str, float]:
    """A configuration's price by part (a machine offer's: its nodes, its switch, fixed)."""
    if "machine" in d:
        offer = cat.machine_index(namer(s.grid)("machine", d["machine"]))
        return machine_price_parts(cat, offer, d["nodes"])
    return price_parts(cat, d["nodes"], int(d["node"]), int(d["network"]), d["channels"])


def _config(p: Plan, i: int, cat: Catalogue) -> dict[str, Any]:
    s = p.sweep
    d = analysis.describe(s, i)
    out: dict[str, Any] = {a: named(s.grid, a, d[a]) for a in HARDWARE if a in d}
    assert s.cost is not None
    lo, hi = float(s.lo[i]), float(s.hi[i])
    banded = p.banded and math.isfinite(lo) and hi > lo
    out.update({
        "price": float(s.cost[i]),
        "price_parts": _parts(s, cat, d),
        "time": float(s.time[i]), "time_lo": lo if banded else None,
        "time_hi": hi if banded else None,
        "speedup_over_reference": p.speedup(i) if math.isfinite(p.reference) else None,
        "speedup_same_hardware": float(s.speedup[i]),
        "comm_share": float(s.comm_share[i]),
        "sync_share": float(s.sync_share[i]),
        "margin": p.margin(i),
        "margin_at_band_end": p.margin(i, pessimistic=True) if banded else None,
        "meets_across_band": bool(p.sure_mask[i]) if p.banded else None,
        "extrapolated": bool(s.extrapolated[i]),
        "extrapolated_in": s.extrapolation.why(i),
    })
    return out


def summary(p: Plan, cat: Catalogue, app: str, machine: str, seconds: float
            ) -> dict[str, Any]:
    s = p.sweep
    return jsonable({
        "app": app, "machine": machine, "catalogue": cat.name, "currency": cat.currency,
        "target": {"kind": p.target.kind, "value": p.target.value},
        "configurations": len(s.time), "offered": int(np.sum(np.isfinite(s.cost)))
        if s.cost is not None else 0,
        "seconds": seconds,
        "meets": int(np.sum(p.meets)), "meets_across_band": int(np.sum(p.sure_mask)),
        "banded": p.banded,
        "fitted_nodes": list(s.fitted),
        "fitted_sizes": list(s.extrapolation.fitted_sizes),
        "extrapolation": s.extrapolation.notes(),
        "chosen": _config(p, p.chosen, cat) if p.chosen is not None else None,
        "sure": p.sure if p.banded and p.target.kind != "budget" else None,
        "cheaper_unsure": _config(p, p.cheaper_unsure, cat)
        if p.cheaper_unsure is not None else None,
        "runners_up": [_config(p, int(i), cat) for i in p.runners_up],
        "closest": _config(p, p.closest, cat) if p.closest is not None else None,
        "price_front": [_config(p, int(i), cat) for i in analysis.cost_front(s)],
        "reference_time": p.reference if math.isfinite(p.reference) else None,
        "weak": s.weak,
        "notes": list(s.notes),
    })


def _pct(x: float | None) -> str:
    return "—" if x is None else format_change(x)


def _table(p: Plan, idx: list[int] | np.ndarray, title: str, cat: Catalogue) -> Tabular:
    """The configurations ``idx`` with price, time, band and margin; on a narrow terminal the
    communication share, the band and the speedup go first, the hardware never."""
    t = Tabular(title=title, title_justify="left", box=None, header_style="bold")
    marked = bool(np.any(p.sweep.extrapolated[np.asarray(idx, dtype=int)]))
    goes = {"comm": 1, "range": 2, "speedup": 3, "": 4}
    hardware = ("machine",) if cat.machines else ("node type", "network", "channels")
    for col in ("nodes", *hardware, "price", "time", "range",
                "speedup", "comm", "margin", *([""] if marked else [])):
        t.column(col, justify="left" if col in ("node type", "network", "machine") else "right",
                 drop=goes.get(col), name="the extrapolated mark" if not col else None)
    for i in idx:
        c = _config(p, int(i), cat)
        rng = "" if c["time_lo"] is None else \
            f"{format_time(c['time_lo'])} – {format_time(c['time_hi'])}"
        sp = c["speedup_over_reference"] if c["speedup_over_reference"] is not None \
            else c["speedup_same_hardware"]
        kit = (safe(c["machine"]),) if cat.machines else \
            (safe(c["node"]), safe(c["network"]), format_number(c["channels"]))
        t.add_row(format_number(c["nodes"]), *kit, money(c["price"], cat), format_time(c["time"]),
                  rng, f"{sp:.2f}", format_share(c["comm_share"]),
                  _pct(c["margin"]) if p.target.kind != "budget" else _left(p, c, cat),
                  *(["extrapolated" if c["extrapolated"] else ""] if marked else []))
    return t


def _left(p: Plan, c: dict[str, Any], cat: Catalogue) -> str:
    left = p.target.value - c["price"]
    return f"{money(left, cat)} left" if left >= 0 else f"over by {money(-left, cat)}"


def render(p: Plan, cat: Catalogue, app: str, machine: str, seconds: float) -> None:
    out = console()
    s = p.sweep
    n = len(s.time)
    offered = int(np.sum(np.isfinite(s.cost))) if s.cost is not None else 0
    out.print(f"[bold]plan[/] for [bold]{safe(app)}[/] on [bold]{safe(machine)}[/] from "
              f"catalogue [bold]{safe(cat.name)}[/]: {target_text(p, cat)}")
    shape = " × ".join(f"{len(v)} {LABELS[k]}" for k, v in s.grid.axes.items())
    out.print(f"{n:,} configurations ({shape}), "
              f"{offered:,} offered by the catalogue, evaluated in {seconds:.2f} s; "
              f"{int(np.sum(p.meets)):,} meet the target"
              + (f", {int(np.sum(p.sure_mask)):,} across their 95 % band" if p.banded else ""))
    if not p.banded and offered:
        out.print("[yellow]note:[/] no band: the model's constants are given or exactly "
                  "determined, so the margin is the only allowance for error")
    if p.chosen is None:
        out.print(f"[bold red]no configuration meets the target[/] ({target_text(p, cat)})")
        if p.closest is not None:
            label = "cheapest" if p.target.kind == "budget" else (
                "best (time per process's work, weak scaling)" if s.weak else "fastest")
            out.print(_table(p, [p.closest], f"the {label} configuration offered", cat))
        return
    c = _config(p, p.chosen, cat)
    if p.target.kind == "budget":
        how = "within the budget"
    elif p.sure and p.banded:
        how = "across its 95 % band"
    else:
        how = "at the estimate only: its band reaches past the target" if p.banded else \
            "at the estimate"
    out.print(f"[bold green]chosen[/]: {safe(configuration(s, cat, p.chosen))}, "
              f"{money(c['price'], cat)}; meets the target {how}")
    pick = np.zeros(n, dtype=bool)
    pick[p.chosen] = True
    for note in s.extrapolation.notes(pick):
        out.print(f"  [yellow]extrapolated[/]: {safe(note)}")
    rng = "" if c["time_lo"] is None else \
        f" (band {format_time(c['time_lo'])} – {format_time(c['time_hi'])})"
    if p.target.kind == "budget":
        out.print(f"  time {format_time(c['time'])}{rng}; "
                  f"{money(p.target.value - c['price'], cat)} of the budget left")
    else:
        m = f"margin {_pct(c['margin'])} at the estimate"
        if c["margin_at_band_end"] is not None:
            m += f", {_pct(c['margin_at_band_end'])} at the band's end"
        out.print(f"  time {format_time(c['time'])}{rng}; {m}")
    parts = c["price_parts"]
    out.print("  price: " + " + ".join(f"{k} {money(v, cat)}" for k, v in parts.items()
                                          if v) + f" = {money(c['price'], cat)}")
    if p.cheaper_unsure is not None:
        u = _config(p, p.cheaper_unsure, cat)
        out.print(f"  cheaper but unsure: {safe(configuration(s, cat, p.cheaper_unsure))} "
                  f"({money(u['price'], cat)}) meets the target at the "
                  f"estimate ({format_time(u['time'])}) but not across its band (to "
                  f"{format_time(u['time_hi'])})")
    out.print(_table(p, [p.chosen, *p.runners_up], "chosen, then the best of each other "
                                                   "hardware", cat))
    front = analysis.cost_front(s)
    out.print(_table(p, _spread_front(front), "front of time against price", cat))
    for line in extrapolation_warnings(s):
        out.print(line)
    for note in s.notes:
        out.print(f"[dim]note:[/dim] {safe(note)}")
    if cat.notes:
        for note in cat.notes:
            out.print(f"[dim]catalogue note: {safe(note)}[/]")
