"""``predict``'s view: an application's time, speedup, efficiency and overhead per node
count, as a Rich table and as a JSON document (SI units)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from rich.markup import escape

from perfmodel.cli.render import fixed, params_table, pct
from perfmodel.cli.tables import Tabular, console
from perfmodel.units import (
    format_amount,
    format_counts,
    format_range,
    format_time,
    significant,
)

if TYPE_CHECKING:   # the application packages load only when predict runs
    from perfmodel.apps.fit import AppFit
    from perfmodel.apps.metrics import Scaling
    from perfmodel.apps.transfer import Moved
    from perfmodel.machine import Machine


def _pm(r: Scaling, key: str, i: int, value: str | None, fmt: Callable[[float], str],
        scale: float = 1.0) -> str:
    """``value`` with ``±`` the half-width of its band (written by ``fmt``), when the band is
    known."""
    if value is None or value == "—":
        return "—"
    lo, hi = r.bands.get(key, (None, None))
    if lo is None or hi is None or not (math.isfinite(lo[i]) and math.isfinite(hi[i])):
        return value
    width = scale * (hi[i] - lo[i]) / 2
    if width == 0:   # the figure does not depend on what was fitted (one process)
        return value
    half = fmt(width)
    if value.endswith(" %"):
        return f"{value.removesuffix(' %')} ±{half} %"
    return f"{value} ±{half}"


def scaling(fit: AppFit, r: Scaling, machine: str, on: Machine | None = None) -> None:
    out = console()
    named = on if on is not None else fit.machine
    where = f" on {named.profile.name} ({machine})" if named is not None else ""
    out.print(f"[bold]{fit.model.name}[/bold]{where}: {escape(fit.model.description)}")
    lvl = f"{100 * r.prediction.level:g} %"
    ranged = bool(np.any(np.isfinite(r.prediction.total_lo)))
    t = Tabular()
    size = fit.model.size
    rated = bool(np.any(np.isfinite(r.mflops)))
    cols = ["nodes", *(["size"] if size else []), "time", *([f"{lvl} range"] if ranged else []),
            *(["MFLOPS"] if rated else []), "speedup", "eff.", "overhead", "comm.", "sync.",
            "serial", "compute", "Karp–Flatt", ""]
    goes = {"Karp–Flatt": 1, "size": 2, "MFLOPS": 3, "compute": 4, "serial": 5, "sync.": 6,
            "comm.": 7, f"{lvl} range": 8, "": 9}
    for col in cols:
        t.column(col, drop=goes.get(col), name="the extrapolated mark" if not col else None)
    for i, p in enumerate(r.processes):
        time = float(r.time[i])
        head = [str(int(p)), *([format_amount(float(r.size[i]), size.unit)] if size else [])]
        if time == 0:   # nothing to do there: a time, but no ratio to one node
            t.add_row(*head, "0 s", *(["—"] if ranged else []), *(["—"] if rated else []),
                      *["—"] * 8, "no work")
            continue
        if not (math.isfinite(time) and time > 0):
            t.add_row(*head, "—", *(["—"] if ranged else []), *(["—"] if rated else []),
                      *["—"] * 8, "no valid prediction")
            continue
        row = [*head, format_time(time)]
        if ranged:
            row.append(format_range(float(r.prediction.total_lo[i]),
                                    float(r.prediction.total_hi[i]), "time"))
        if rated:
            mflops = float(r.mflops[i])
            row.append(_pm(r, "mflops", i, significant(mflops) if math.isfinite(mflops)
                           else None, lambda w: significant(w, 2)))
        row += [_pm(r, "speedup", i, fixed(float(r.speedup[i]), 2), lambda w: fixed(w, 2)),
                pct(float(r.efficiency[i])),
                _pm(r, "overhead", i, pct(float(r.overhead[i])), lambda w: fixed(w, 1), 100)]
        row += [pct(float(r.shares[k][i])) for k in ("communication", "synchronisation",
                                                      "serial", "imbalance")]
        row += [fixed(float(r.karp_flatt[i]), 3),
                "extrapolated" if r.prediction.extrapolated[i] else ""]
        t.add_row(*row)
    out.print(t)
    if fit.params:
        out.print(params_table(fit.params, ()))
    for note in fit.notes:
        out.print(f"[dim]note:[/dim] {escape(note)}")
    if any(np.any(np.isfinite(lo)) for lo, _ in r.bands.values()):
        out.print(f"[dim]±: the {lvl} band a figure inherits from the fitted constants; "
                  "--json gives every figure's band[/dim]")
    for note in r.prediction.outside.notes():
        out.print(f"[yellow]warning:[/yellow] {escape(note)}")
    from perfmodel.apps.trust import specified_note, unmeasured_note

    said = specified_note(r.prediction.outside)
    other = None if on is None else unmeasured_note(on.unmeasured, on.own,
                                                    r.prediction.outside.specified)
    for line in (said, other):
        if line:
            out.print(f"[dim]note:[/dim] {escape(line)}")
    zero = r.time == 0
    if np.any(zero):
        out.print(f"[dim]note:[/dim] the model gives 0 s at {format_counts(r.processes[zero])} "
                  "node(s): nothing to do there, so no speedup or efficiency")
    broken = ~np.isfinite(r.time) | (r.time < 0)
    if np.any(broken):
        out.print(f"[yellow]warning:[/yellow] no valid prediction at "
                  f"{format_counts(r.processes[broken])} node(s): a term of the model is "
                  "negative or not a number there, so the model does not hold (check its "
                  "formulas and constants)")


def moved(m: Moved, a: str, b: str) -> None:
    """A code timed on machine ``a``, moved to ``b`` (:mod:`perfmodel.apps.transfer`)."""
    out = console()
    out.print(f"[bold]timed on {escape(a)}, on {escape(b)}[/bold]: the work moves by the "
              f"nodes, the overhead by the network")
    lvl = f"{100 * m.level:g} %"
    t = Tabular()
    for col, drop in (("nodes", None), ("processes", 4), ("on A", None), ("on B", None),
                      (f"{lvl} range", None), ("work", 3), ("overhead on A", 2),
                      ("on B", 1)):
        t.column(col, drop=drop)
    for i in range(len(m.nodes)):
        on_a = format_time(float(m.time_a[i])) + ("" if m.measured[i] else " (fit)")
        procs = f"{m.processes[i]:g}" + ("" if m.processes_b is None else
                                         f" ({m.processes_b[i]:g} on B)")
        t.add_row(f"{m.nodes[i]:g}", procs, on_a,
                  format_time(float(m.time[i])),
                  format_range(float(m.time_lo[i]), float(m.time_hi[i]), "time"),
                  *(format_time(float(v)) if v > 0 else "0 s"
                    for v in (m.work_b[i], m.overhead_a[i], m.overhead_b[i])))
    out.print(t)
    for note in m.notes:
        out.print(f"[dim]note:[/dim] {escape(note)}")
