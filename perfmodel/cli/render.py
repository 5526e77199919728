"""Rendering domain objects as Rich tables and as JSON documents (SI units)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perfmodel.calibrate import Calibration
from perfmodel.cli.tables import Tabular, console
from perfmodel.machine.profile import Profile
from perfmodel.measurements import PATTERNS, Measurements
from perfmodel.network import models as registry
from perfmodel.network.fabric import Exchange, Fabric, Rates
from perfmodel.network.fit import DERIVED_LABELS
from perfmodel.network.predict import Prediction
from perfmodel.params import Estimate
from perfmodel.units import (
    format_change,
    format_number,
    format_range,
    format_rate,
    format_share,
    format_size,
    format_time,
    format_value,
)


def fmt(value: float, unit: str) -> str:
    """A value in its unit for a table: seconds, bytes per second and bytes on their ladders,
    anything else as a plain number (``32768 particles``, never ``3.277e+04 particles``)."""
    if unit in ("s", "B/s", "B", "s/B") or not math.isfinite(value):
        return format_value(value, unit)
    return f"{format_number(value)} {unit}".strip()


def pct(x: float) -> str:
    return format_share(x)


def fixed(x: float, digits: int) -> str:
    """``x`` to ``digits`` decimals, never ``-0.00``; — when it is not a number."""
    return f"{round(x, digits) + 0.0:.{digits}f}" if math.isfinite(x) else "—"


def _param_row(p: Estimate) -> tuple[str, ...]:
    err = "—" if not math.isfinite(p.stderr) else "± " + fmt(p.stderr, p.unit)
    rel = pct(p.rel_stderr) if math.isfinite(p.stderr) and p.value else "—"
    note = p.status if not p.source else f"{p.status}: {p.source}"
    return (DERIVED_LABELS.get(p.name, p.name), fmt(p.value, p.unit), err, rel, note)


def params_table(params: tuple[Estimate, ...], derived: tuple[Estimate, ...]) -> Table:
    t = Tabular(title="Parameters", title_justify="left", box=box.HEAVY_HEAD, pad_edge=True)
    t.column("parameter", justify="left")
    t.column("value")
    t.column("std. error", drop=2)
    t.column("rel.", drop=1)
    t.column("status", justify="left", prose=True, max_width=72)   # its sources are prose
    for p in params:
        t.add_row(*_param_row(p))
    for d in derived:
        row = _param_row(d)
        t.add_row(*row[:4], "derived")
    return t


# --- calibrate ---------------------------------------------------------------------------------

def _fabric_section(out: Console, fab: Fabric) -> None:
    out.print(f"[bold]fabric[/bold]: {fab.topology}, {fab.channels} channel"
              f"{'s' if fab.channels != 1 else ''}")
    out.print(params_table(fab.params, ()))
    fit = fab.fit
    if fit:
        out.print(f"fabric fit: {int(fit.get('n', 0))} rows, median |rel. error| "
                  f"{pct(fit.get('median_rel_err', math.nan))}, max "
                  f"{pct(fit.get('max_rel_err', math.nan))}; dof {fab.dof}")
    for note in fab.notes:
        out.print(f"[dim]note:[/dim] {escape(note)}")
    from perfmodel.network.fabric import PARAMS, could_be

    for p in fab.params:
        if p.status == "assumed" and PARAMS[p.name].span:
            tried = ", ".join(fmt(v, p.unit) for v in could_be(p, fab.values))
            out.print(f"[dim]assumed {p.name} could as well be {escape(tried)}: "
                      f"{escape(PARAMS[p.name].span_why)}; predict, whatif and plan say when "
                      "that changes their answer[/dim]")


def calibration(result: Calibration, path: Path | None) -> None:
    out = console()
    best = result.selection.best
    model = best.model
    spec = registry.spec(model.kind)
    source = result.data.source or "specification"
    out.print(f"[bold]{model.kind}[/bold]  {spec.formula}   ({best.n} points from "
              f"{escape(source)})")
    out.print(params_table(model.params, best.derived))
    if best.n:
        out.print(f"fit: median |rel. error| {pct(best.median_rel_err)}, "
                  f"max {pct(best.max_rel_err)}; noise {pct(model.noise)}; dof {model.dof}; "
                  f"AIC {best.aic:.1f}; BIC {best.bic:.1f}")
        out.print(f"choice: {escape(result.selection.reason)}")
    fitted = [c for c in result.selection.candidates if c.n]
    if len(fitted) > 1:
        t = Tabular(title="Candidates", title_justify="left", box=box.HEAVY_HEAD, pad_edge=True)
        for col in ("model", "k", "BIC", "ΔBIC", "median err", "max err"):
            t.column(col, justify="left" if col == "model" else "right",
                     drop={"k": 1, "ΔBIC": 2}.get(col))
        low = min(c.bic for c in fitted)
        for c in sorted(fitted, key=lambda c: c.bic):
            t.add_row(c.model.kind, str(c.k), fixed(c.bic, 1), fixed(c.bic - low, 1),
                      pct(c.median_rel_err), pct(c.max_rel_err))
        out.print(t)
    if best.n:
        t = Tabular(title="Where it fits worst", title_justify="left", box=box.HEAVY_HEAD,
                    pad_edge=True)
        for col in ("size", "measured", "fitted", "rel. error", "line"):
            t.column(col, drop=1 if col == "line" else None)
        for i in best.worst(3):
            t.add_row(format_size(best.data.size[i]), format_time(best.data.time[i]),
                      format_time(best.fitted[i]), format_change(best.rel_err[i]),
                      str(best.data.line[i]))
        out.print(t)
    for note in (*result.notes, *result.profile.notes):
        out.print(f"[dim]note:[/dim] {escape(note)}")
    if result.profile.fabric is not None:
        _fabric_section(out, result.profile.fabric)
    if result.profile.node is not None:
        out.print("[bold]node[/bold]")
        out.print(params_table(result.profile.node.params, ()))
    _inputs_section(out, result)
    if path is not None:
        out.print(f"profile written: {escape(str(path))}")


def _inputs_section(out: Console, result: Calibration) -> None:
    """Each input table and what it informed, when there is more than one: the law's and the
    fabric's first, then the files skipped and the tables unused with why, the node's (often
    many HPL runs) last, so that a long listing cut short keeps what a user must see."""
    said = result.contributions
    if len(said) < 2:
        return
    t = Tabular(title="Inputs", title_justify="left", box=box.HEAVY_HEAD, pad_edge=True)
    for col in ("file", "table", "rows", "informs"):
        t.column(col, justify="right" if col == "rows" else "left")
    first = ("law", "fabric", "collectives", "skipped", "unused", "node")   # the many last
    for c in sorted(said, key=lambda c: first.index(c.role) if c.role in first else 0):
        t.add_row(escape(c.path), escape(c.table or "—"), str(c.rows) if c.rows else "—",
                  escape(c.said if c.role in ("law", "fabric", "node", "collectives") else
                         f"{c.role}: {c.said}"))
    out.print(t)
    counts = {r: sum(c.role == r for c in said)
              for r in ("law", "fabric", "node", "collectives", "unused", "skipped")}
    out.print("inputs: " + ", ".join(f"{n} {r}" for r, n in counts.items() if n))


def calibration_line(result: Calibration, path: Path | None) -> None:
    best = result.selection.best
    quality = (f"median |rel. error| {pct(best.median_rel_err)} over {best.n} points"
               if best.n else "specified, not fitted")
    console().print(f"{escape(str(path or result.profile.name))}: {best.model.kind}, {quality}")


# --- network -----------------------------------------------------------------------------------

def prediction_doc(profile: Profile, pred: Prediction) -> dict[str, Any]:
    return {"profile": profile.name, "model": profile.network.kind, **pred.to_dict()}


def prediction(profile: Profile, pred: Prediction, path: str) -> None:
    out = console()
    net = profile.network
    if net.fitted_names or profile.inputs:
        where = f"calibrated on {fmt(net.size_range[0], 'B')} … {fmt(net.size_range[1], 'B')}"
    else:
        where = "specified, not calibrated"
    out.print(f"[bold]{escape(profile.name)}[/bold]: {net.kind}, {where}  ({escape(path)})")
    lvl = f"{100 * pred.level:g} %"
    t = Tabular()
    t.column("size")
    t.column("one-way")
    t.column(f"{lvl} range", drop=2, name=f"the time's {lvl} range")
    t.column("bandwidth")
    t.column(f"{lvl} range", drop=1, name=f"the bandwidth's {lvl} range")
    t.column("", drop=3, name="the extrapolated mark")
    bandwidth = pred.bandwidth
    for i in range(len(pred.size)):
        bw = format_rate(bandwidth[i]) if pred.size[i] > 0 else "—"
        t.add_row(format_size(pred.size[i]), format_time(pred.time[i]),
                  format_range(pred.time_lo[i], pred.time_hi[i], "time"), bw,
                  format_range(pred.bandwidth_lo[i], pred.bandwidth_hi[i], "rate"),
                  "extrapolated" if pred.extrapolated[i] else "")
    out.print(t)
    if not np.all(np.isfinite(pred.time_lo)):
        from perfmodel.network.predict import why_no_interval

        net = profile.network
        why = why_no_interval(net.dof, net.noise, net.covariance) or (
            "the band would pass the range of floating point (a parameter the data barely bound)")
        out.print(f"[dim]note:[/dim] no interval where none can be given: {escape(why)}")
    for note in pred.notes:
        out.print(f"[dim]note:[/dim] {escape(note)}")


# --- inspect -----------------------------------------------------------------------------------

def _default_choice(tables: tuple[Measurements, ...]) -> int | None:
    """Index of the table calibrate uses without --benchmark, or None."""
    from perfmodel.errors import PerfModelError
    from perfmodel.inputs import choose

    try:
        chosen = choose(tables, "")
    except PerfModelError:
        return None
    if len(chosen.single_stream()) == 0:
        return None
    return next(i for i, t in enumerate(tables) if t is chosen)


def _first_rows(table: Measurements, rows: int) -> list[dict[str, Any]]:
    out = []
    for i in range(min(rows, len(table))):
        row: dict[str, Any] = {"line": table.line[i], "size": table.size[i],
                               "time": table.time[i]}
        if table.size[i] > 0:
            row["bandwidth"] = table.size[i] / table.time[i]
        if table.reps is not None:
            row["reps"] = table.reps[i]
        row.update({k: v[i] for k, v in table.extra.items()})
        out.append(row)
    return out


def inspect_doc(files: list[tuple[str, tuple[Measurements, ...]]], rows: int) -> dict[str, Any]:
    from perfmodel.inputs import informs

    docs = []
    for path, tables in files:
        chosen = _default_choice(tables)
        uses = informs(tables, path)
        docs.append({
            "path": path, "format": tables[0].format, "version": tables[0].version,
            "sha256": tables[0].sha256,
            "tables": [{
                "benchmark": t.benchmark, "pattern": t.pattern, "means": PATTERNS[t.pattern],
                "quantity": t.quantity, "meaning": t.meaning, "rows": len(t),
                "processes": list(t.counts("processes")), "pairs": list(t.counts("pairs")),
                "size_min": float(np.nanmin(t.size)) if np.isfinite(t.size).any() else None,
                "size_max": float(np.nanmax(t.size)) if np.isfinite(t.size).any() else None,
                "lines": [t.line[0], t.line[-1]], "attrs": dict(t.attrs), "notes": list(t.notes),
                "calibrate_default": i == chosen, "calibrate_informs": uses[i],
                "first_rows": _first_rows(t, rows),
            } for i, t in enumerate(tables)],
        })
    return {"units": {"size": "B", "time": "s", "bandwidth": "B/s", "t_min": "s",
                      "t_max": "s", "t_avg": "s", "stddev": "s", "msg_rate": "1/s",
                      "rate": "B/s (the tool's own rate column)", "mops": "op/s"},
            "files": docs}


def _sizes(t: Measurements) -> str:
    finite = t.size[np.isfinite(t.size)]
    if not finite.size:
        return "—"
    lo, hi = format_size(float(finite.min())), format_size(float(finite.max()))
    return lo if lo == hi else f"{lo} – {hi}"


def inspect(files: list[tuple[str, tuple[Measurements, ...]]], rows: int) -> None:
    from perfmodel.inputs import informs

    out = console()
    for path, tables in files:
        chosen = _default_choice(tables)
        uses = informs(tables, path)
        first = tables[0]
        tool = f"{first.format} {first.version}".strip()
        common = {k: v for k, v in first.attrs.items()
                  if all(t.attrs.get(k) == v for t in tables)} if len(tables) > 1 else {}
        out.print(f"[bold]{escape(path)}[/bold]: {escape(tool)}, {len(tables)} "
                  f"table{'s' if len(tables) != 1 else ''}")
        if common:
            out.print("  " + escape("; ".join(f"{k}: {v}" for k, v in common.items())))
        summary = Tabular()
        for col in ("", "benchmark", "pattern", "processes", "pairs", "rows", "sizes", "lines"):
            summary.column(col, justify="right" if col in ("rows", "") else "left",
                           drop={"lines": 1, "pairs": 2, "processes": 3, "pattern": 4}.get(col),
                           name="the mark of calibrate's table" if not col else None)
        for i, t in enumerate(tables):
            summary.add_row("→" if i == chosen else "", escape(t.benchmark), t.pattern,
                            ",".join(map(str, t.counts("processes"))) or "—",
                            ",".join(map(str, t.counts("pairs"))) or "—", str(len(t)),
                            _sizes(t), f"{t.line[0]}–{t.line[-1]}")
        out.print(summary)
        if chosen is not None and len(tables) > 1:
            out.print(f"[dim]→ calibrate uses {escape(tables[chosen].label)} unless given "
                      "--benchmark NAME[/dim]")
        out.print("[dim]'calibrate:' below says what calibrate takes each table for, without "
                  "--benchmark or a rank layout (--ranks-per-node, --nodes-per-job)[/dim]")
        for t, use in zip(tables, uses, strict=True):
            out.print(f"[bold]{escape(t.label)}[/bold] — {PATTERNS[t.pattern]}")
            out.print(f"  time: {escape(t.meaning)}")
            out.print(f"  calibrate: {escape(use)}")
            own = {k: v for k, v in t.attrs.items() if k not in common}
            if own:
                out.print("  " + escape("; ".join(f"{k}: {v}" for k, v in own.items())))
            for note in t.notes:
                out.print(f"  [dim]note:[/dim] {escape(note)}")
            shown = _first_rows(t, rows)
            if not shown:
                continue
            rt = Tabular()
            extras = [k for k in t.extra if k in shown[0]][:4]
            rt.column("line", drop=len(extras) + 2)
            rt.column("size")
            rt.column("time")
            rt.column("size/time", drop=len(extras) + 1)
            for k, col in enumerate(extras):
                rt.column(col, drop=len(extras) - k)
            for row in shown:
                rt.add_row(str(row["line"]),
                           format_size(row["size"]) if math.isfinite(row["size"]) else "—",
                           format_time(row["time"]),
                           format_rate(row["bandwidth"]) if "bandwidth" in row else "—",
                           *(_extra(k, row[k]) for k in extras))
            out.print(rt)


def _extra(key: str, value: float) -> str:
    if not math.isfinite(value):
        return "—"
    if key in ("stddev", "p25", "p50", "p75", "p90", "p99", "p999", "mean", "min", "max") or \
            key.startswith(("t_", "rtt")):   # seconds, netperf's round trips among them
        return format_time(value)
    if key.startswith("rate"):
        return format_rate(value)
    return format_number(value, 6)


# --- network with sharing ----------------------------------------------------------------------

def _assumed_note(out: Console, fab: Fabric) -> None:
    assumed = [p.name for p in fab.params if p.status == "assumed"]
    if assumed:
        out.print(f"[dim]note:[/dim] assumed, not measured: {', '.join(assumed)} "
                  "(see the profile's sources)")


def rates_doc(profile: Profile, r: Rates) -> dict[str, Any]:
    """One row per combination, SI units; per-pair values are one stream's share."""
    fab = profile.fabric
    assert fab is not None
    doc = r.to_dict()
    return {"profile": profile.name, "topology": fab.topology, "level": doc["level"],
            "units": doc["units"], "per_pair": doc["per_pair"],
            "both_ways": doc["both_ways"], "parameters": fab.to_dict()["parameters"],
            "rows": doc["rows"]}


def rates(profile: Profile, r: Rates, path: str) -> None:
    out = console()
    fab = profile.fabric
    assert fab is not None
    out.print(f"[bold]{escape(profile.name)}[/bold]: {fab.topology} network, {fab.channels} "
              f"channel{'s' if fab.channels != 1 else ''} ({escape(path)})")
    if r.both:
        def said(name: str) -> str:
            if name not in {p.name for p in fab.params}:
                return f"{name} 1, assumed: no table both ways calibrated"
            est = fab.estimate(name)
            return f"{name} {est.value:.3g}, {est.status}"
        out.print("every pair sends both ways at once: each direction's rates ("
                  f"{said('duplex')}; {said('receive')})")
    lvl = f"{100 * r.level:g} %"
    t = Tabular()
    cols = ["size", "pairs"]
    show_senders = bool(np.any(r.senders > 1))
    show_speed = len(np.unique(r.line_rate)) > 1 or \
        not np.allclose(r.line_rate, fab.values["line_rate"])
    cols += ["senders"] if show_senders else []
    cols += ["chan."]
    cols += ["link"] if show_speed else []
    ranged = bool(np.any(np.isfinite(r.message_rate_lo)))
    cols += ["aggregate", *([f"{lvl} range"] if ranged else []), "per pair", "msg/s",
             "msg/s/pair", ""]
    goes = {f"{lvl} range": 2, "per pair": 3, "msg/s": 4, "msg/s/pair": 1, "": 5}
    for col in cols:
        t.column(col, drop=goes.get(col), name="the extrapolated mark" if not col else None)
    all_streams = r.streams
    for i in range(r.size.size):
        x, m, streams = r.message_rate[i], r.size[i], all_streams[i]
        row = [format_size(m), str(int(r.pairs[i]))]
        row += [str(int(r.senders[i]))] if show_senders else []
        row += [str(int(r.channels[i]))]
        row += [format_rate(r.line_rate[i])] if show_speed else []
        row += [format_rate(m * x) if m > 0 else "—"]
        if ranged:
            row += [format_range(m * r.message_rate_lo[i], m * r.message_rate_hi[i], "rate")
                    if m > 0 else "—"]
        row += [format_rate(m * x / streams) if m > 0 else "—",
                format_number(x), format_number(x / streams),
                "extrapolated" if r.extrapolated[i] else ""]
        t.add_row(*row)
    out.print(t)
    _assumed_note(out, fab)


def exchange_doc(profile: Profile, r: Exchange) -> dict[str, Any]:
    """One row per combination, SI units: the Exchange iteration and what it moves."""
    fab = profile.fabric
    assert fab is not None
    doc = r.to_dict()
    rows = doc.pop("rows")
    return {"profile": profile.name, "topology": fab.topology, "box": fab.box, **doc,
            "parameters": fab.to_dict()["parameters"], "rows": rows}


def exchange(profile: Profile, r: Exchange, path: str) -> None:
    out = console()
    fab = profile.fabric
    assert fab is not None
    per_box = f", {fab.box} processes per box" if fab.box > 1 else ""
    out.print(f"[bold]{escape(profile.name)}[/bold]: Exchange ring on a {fab.topology} network"
              f"{per_box}, {r.placement} placement ({escape(path)})")
    lvl = f"{100 * r.level:g} %"
    show_speed = len(np.unique(r.line_rate)) > 1 or \
        not np.allclose(r.line_rate, fab.values["line_rate"])
    show_chan = len(np.unique(r.channels)) > 1
    ranged = bool(np.any(np.isfinite(r.time_lo)))
    cols = ["size", "procs", *(["chan."] if show_chan else []),
            *(["link"] if show_speed else []), "time", *([f"{lvl} range"] if ranged else []),
            "per process", ""]
    t = Tabular()
    for col in cols:
        t.column(col, drop={f"{lvl} range": 1, "": 2}.get(col),
                 name="the extrapolated mark" if not col else None)
    per_process = r.bandwidth
    for i in range(r.size.size):
        m = r.size[i]
        row = [format_size(m), str(int(r.processes[i]))]
        row += [str(int(r.channels[i]))] if show_chan else []
        row += [format_rate(r.line_rate[i])] if show_speed else []
        row += [format_time(r.time[i])]
        row += [format_range(r.time_lo[i], r.time_hi[i], "time")] if ranged else []
        row += [format_rate(per_process[i]) if m > 0 else "—",
                "extrapolated" if r.extrapolated[i] else ""]
        t.add_row(*row)
    out.print(t)
    out.print("[dim]time is one iteration (both neighbours, both ways); per process is "
              "4 x size / time, as IMB's Exchange counts it[/dim]")
    _assumed_note(out, fab)
