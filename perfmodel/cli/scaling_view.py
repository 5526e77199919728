"""Rendering an empirical scaling fit and its predictions: a Rich table, or JSON (SI units)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from rich.markup import escape

from perfmodel.cli.tables import Tabular, console
from perfmodel.empirical.fit import (
    AMDAHL_WEIGHT,
    FAR,
    LIMIT,
    NEAR,
    ScalingFit,
    ScalingPrediction,
)
from perfmodel.empirical.network import Retarget
from perfmodel.empirical.series import Series
from perfmodel.units import format_number, format_share, format_time

MEANING = {"serial": "serial work", "work": "shared work", "halo2": "2-D halo",
           "halo3": "3-D halo", "log": "tree collective", "linear": "all-to-all / contention",
           "contention": "USL contention", "sqrt": "√p exchange"}


def measured(series: Series, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The number of runs at each count of ``q`` and the median of their times (NaN where
    none ran), by one sort of the runs rather than a search of them per count.

    >>> s = Series(np.array([2.0, 1, 2, 2]), np.array([5.0, 9, 7, 6]), None, (), "processes", ())
    >>> n, med = measured(s, np.array([1.0, 2, 4]))
    >>> n.tolist(), med.tolist()
    ([1, 3, 0], [9.0, 6.0, nan])
    """
    order = np.lexsort((series.times, series.processes))
    p, t = series.processes[order], series.times[order]
    counts, start, runs = np.unique(p, return_index=True, return_counts=True)
    # the median of a sorted group: its middle run, or the mean of its two middle ones
    med = (t[start + (runs - 1) // 2] + t[start + runs // 2]) / 2
    at = np.clip(np.searchsorted(counts, q), 0, max(len(counts) - 1, 0))
    hit = counts[at] == q if len(counts) else np.zeros(len(q), dtype=bool)
    return np.where(hit, runs[at], 0), np.where(hit, med[at], math.nan)


def _stderr(fit: ScalingFit) -> list[float | None]:
    f = fit.chosen.fit
    out: list[float | None] = []
    for i in range(len(f.coefficients)):
        v = f.covariance[i, i]
        out.append(math.sqrt(v) if f.dof > 0 and v > 0 else None)
    return out


def scaling_doc(series: Series, fit: ScalingFit, pred: ScalingPrediction,
                moved: Retarget | None, share: np.ndarray | None,
                target: dict[str, Any]) -> dict[str, Any]:
    from perfmodel.empirical.fit import off_node_factor
    from perfmodel.plain import jsonable

    f = fit.chosen.fit
    rows = []
    runs, medians = measured(series, pred.processes)
    off, said = off_node(series, pred, fit)
    for i, q in enumerate(pred.processes):
        n, med = int(runs[i]), float(medians[i])
        row: dict[str, Any] = {
            "processes": q, "time": pred.time[i], "time_lo": pred.lo[i],
            "time_hi": pred.hi[i], "ratio": pred.ratio[i], "trust": pred.trust[i],
            "off_node": bool(off[i]), "runs": n, "measured_median": med if n else None}
        if share is not None:
            row["comm_share"] = share[i]
        if moved is not None:
            row["retarget"] = {"time": moved.time[i], "time_lo": moved.lo[i],
                               "time_hi": moved.hi[i], "comm_share": moved.share_after[i],
                               "ratios": {t: r[i] for t, r in moved.ratios.items()}}
        rows.append(row)
    return jsonable({
        "series": {"sources": list(series.sources), "count": series.count,
                   "runs": [{"processes": p, "time": t, "origin": o} for p, t, o in
                            zip(series.processes, series.times, series.origin, strict=True)]},
        "family": fit.family,
        "form": {"name": f.form.name, "formula": f.formula,
                 "terms": [{"term": t, "meaning": MEANING[t], "coefficient": c, "stderr": s,
                            "unit": "s"} for t, c, s in
                           zip(f.form.terms, f.coefficients, _stderr(fit), strict=True)],
                 "cv_error": fit.chosen.score, "residual_scatter": f.noise, "dof": f.dof},
        "candidates": [{"name": c.fit.form.name, "cv_error": c.score,
                        "formula": c.fit.formula, "weight": w}
                       for c, w in zip(fit.members, fit.weights, strict=True)],
        "notes": list(fit.notes) + list(series.notes) + ([said] if said else []),
        "level": pred.level,
        "off_node_factor": off_node_factor(pred.level) if off.any() else None,
        "off_node_time": off_node_basis(fit) if off.any() else None,
        "trust_limits": {"near": NEAR, "far": FAR, "refused_beyond": LIMIT},
        "target": target or None,
        "predictions": rows,
    })


def off_node(series: Series, pred: ScalingPrediction, fit: ScalingFit
             ) -> tuple[np.ndarray, str]:
    """The counts marked off-node and the note that says so: what the time there is
    (:func:`perfmodel.empirical.fit.off_node_time`), the factor either end of the range reaches
    at the prediction's level, and where that factor comes from."""
    from perfmodel.empirical.fit import off_node_factor

    off, said = series.off_node(pred.processes)
    if said:
        said += (f"; off-node the time is {off_node_basis(fit)}, and the range reaches at "
                 f"least ×{off_node_factor(pred.level):.3g} it above and below: the least "
                 "factor that held "
                 f"{100 * pred.level:g} % of such counts in range on the real series seen "
                 "(7 sources: some ran several times slower past the node, where the network "
                 "entered, some several times faster, where more nodes gave a memory-bound "
                 "code more memory)")
    return off, said


OFF_NODE_BASIS = {
    "flat": "the largest count's, held flat (weak scaling: each node brings its own memory)",
    "amdahl": "Amdahl's law's alone (the forms' other terms describe the node)"}
"""What an off-node count's time is (:func:`perfmodel.empirical.fit.off_node_kind`), in words."""


def off_node_basis(fit: ScalingFit) -> str:
    from perfmodel.empirical.fit import off_node_kind

    return OFF_NODE_BASIS[off_node_kind(fit)]


SHOWN = 12
"""Distinct counts named in full on the heading line; past that, its first and last few."""


def _counts(unique: np.ndarray) -> str:
    """The measured counts for the heading: every one, or the first and last few of many.

    >>> _counts(np.array([1.0, 2, 4]))
    '1, 2, 4'
    >>> _counts(np.arange(1.0, 10001))
    '1, 2, 3, 4, 5, 6, …, 9995, 9996, 9997, 9998, 9999, 10000 (10,000 counts)'
    """
    if len(unique) <= SHOWN:
        return ", ".join(f"{q:g}" for q in unique)
    half = SHOWN // 2
    return (", ".join(f"{q:g}" for q in unique[:half]) + ", …, " +
            ", ".join(f"{q:g}" for q in unique[-half:]) + f" ({len(unique):,} counts)")


def scaling(series: Series, fit: ScalingFit, pred: ScalingPrediction, moved: Retarget | None,
            share: np.ndarray | None, target: str) -> None:
    out = console()
    f = fit.chosen.fit
    counts = _counts(np.unique(series.processes))
    out.print(f"[bold]{escape(', '.join(series.sources))}[/]: {len(series)} runs at "
              f"{series.count} {counts}")
    out.print(f"{fit.family} scaling; form [bold]{f.form.name}[/]: T(p) = {escape(f.formula)}")
    for t, c, s in zip(f.form.terms, f.coefficients, _stderr(fit), strict=True):
        err = f" ± {format_time(s)}" if s is not None else ""
        out.print(f"  {t:<10} {MEANING[t]:<24} {format_time(float(c))}{err}")
    out.print(f"chosen by extrapolating cross-validation: misses held-out counts by "
              f"{100 * fit.chosen.score:.1f} % on average"
              + (f"; runs scatter {100 * f.noise:.1f} % about it" if math.isfinite(f.noise)
                 else ""))
    rivals = [c for c in fit.candidates if c is not fit.chosen][:3]
    out.print("other forms, held-out error: " + ", ".join(f"{c.fit.form.name} {100 * c.score:.1f} %"
                                        for c in rivals))
    heavy = sorted(zip(fit.weights, fit.members, strict=True), key=lambda x: -x[0])
    top = ", ".join(f"{c.fit.form.name} {100 * w:.0f} %" for w, c in heavy[:3])
    how = (f"Amdahl's law (work+serial) carrying {100 * AMDAHL_WEIGHT:.0f} % and the forms the "
           "rest by their cross-validation weight" if fit.amdahl is not None
           else "each with its cross-validation weight")
    out.print(f"predicted: every {fit.family} form's prediction"
              + (" and Amdahl's law's" if len(fit.members) > len(fit.candidates) else "")
              + f", averaged in ln t, {how} "
              f"({top}, {len(heavy) - 3} more)"
              + ("; not at the counts marked off-node (the note says what is)"
                 if pred.off_node is not None and pred.off_node.any() else ""))
    off, said = off_node(series, pred, fit)
    for note in (*fit.notes, *series.notes, *([said] if said else [])):
        out.print(f"[yellow]note:[/] {escape(note)}")
    table = Tabular(title=None, box=None, header_style="bold")
    table.column(series.count)
    table.column("runs", drop=4)
    table.column("measured", drop=5)
    table.column("predicted")
    table.column(f"{100 * pred.level:g} % range", drop=3)
    table.column("trust", justify="left")
    if share is not None:
        table.column("comm", drop=2, name="comm (the measured machine's)")
    if moved is not None:
        table.column(f"on {target}")
        table.column("range", drop=1, name=f"range on {target}")
        table.column("comm", drop=1, name=f"comm on {target}")
    runs, medians = measured(series, pred.processes)
    for i, q in enumerate(pred.processes):
        n, med = int(runs[i]), float(medians[i])
        cells = [format_number(q), str(n) if n else "", format_time(med) if n else "",
                 format_time(float(pred.time[i])),
                 f"{format_time(float(pred.lo[i]))} – {format_time(float(pred.hi[i]))}",
                 pred.trust[i] + (", off-node" if off[i] else "")]
        if share is not None:
            cells.append(format_share(float(share[i]), 0))
        if moved is not None:
            cells += [format_time(float(moved.time[i])),
                      f"{format_time(float(moved.lo[i]))} – {format_time(float(moved.hi[i]))}",
                      format_share(float(moved.share_after[i]), 0)]
        table.add_row(*cells)
    out.print(table)
    out.print(f"trust: measured: within the measured counts' span; near ≤ {NEAR:g}×, "
              f"far ≤ {FAR:g}×, beyond > {FAR:g}× the largest measured count (past {LIMIT:g}× "
              "only with --allow-extrapolation); below: under the smallest, extrapolated downwards")
    if "beyond" in pred.trust:
        out.print(f"[yellow]warning:[/] some counts lie beyond {FAR:g}× the measured range: "
                  "the form may not hold there")
