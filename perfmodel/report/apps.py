"""Report sections on application models: each run's formulas, constants, the measured runs
against the model, predictions (time, speedup, efficiency, where the overhead goes) and
figures; and what-if tables over hardware changes."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from perfmodel.errors import InputError
from perfmodel.report.context import Context
from perfmodel.report.doc import Block, Figure, Section, bullets, formula, slug, table
from perfmodel.report.network import _params_rows, _pct, fit_line
from perfmodel.report.spec import MAX_WHATIF_ROWS, Run, SectionSpec
from perfmodel.units import format_line_rate, format_share, format_time

if TYPE_CHECKING:
    from perfmodel.apps.trust import Extrapolation
    from perfmodel.whatif.sweep import Sweep

CAUSE_STYLE = {"communication": "--", "synchronisation": ":", "serial": "-.", "imbalance": (
    0, (1, 1, 4, 1))}
CALL_MEANING = {
    "kernel": "seconds for flops over streamed bytes on one node (its roofline)",
    "host": "the host's seconds to send or receive one message (per-message and per-byte)",
    "msg": "one message's one-way time",
    "exchange": "sending to and receiving from the given number of neighbours at once",
    "ring": "one Exchange ring step",
    "barrier": "a barrier over the p processes",
}
TERM_TITLE = {"compute": "compute", "communication": "communication",
              "synchronisation": "synchronisation", "serial": "serial"}


@dataclass(frozen=True)
class Measured:
    """The timing rows a run is drawn against: processes, seconds per run (parts summed),
    Mflop/s where the rows or the model give them, and each row's problem size."""

    processes: np.ndarray
    seconds: np.ndarray
    mflops: np.ndarray
    size: np.ndarray | None
    parts: Mapping[str, np.ndarray]
    source: str
    rows: Any
    lines: tuple[str, ...] = ()
    derived: tuple[bool, ...] = ()
    """Rows the data file marks kind = derived (worked out from a source, not measured)."""


@dataclass(frozen=True)
class Done:
    run: Run
    fit: Any
    machine: Any
    size: float | None
    scaling: Any
    measured: Measured | None


def _machine(run: Run, ctx: Context, model: Any) -> Any:
    if run.machine is None:
        if run.channels is not None or run.link_speed is not None:
            raise InputError(f"run {run.label!r}: channels and link_speed change a machine",
                             fix="give the run a machine")
        return None
    from perfmodel.machine import require_node
    from perfmodel.machine.hardware import FABRIC_FIX, changed
    from perfmodel.units import line_rate_problem, parse_quantity

    prof = ctx.profile(run.machine)
    rate = parse_quantity(run.link_speed, "rate") if run.link_speed else None
    if rate is not None and (why := line_rate_problem(rate)):
        raise InputError(f"run {run.label!r}: link_speed {run.link_speed!r} {why}",
                         fix='e.g. link_speed = "100Mbps"')
    on = changed(prof, channels=run.channels, line_rate=rate, path=run.machine,
                 fix=f"drop the run's channels/link_speed, or {FABRIC_FIX}",
                 context=f"run {run.label!r}: ")
    if model.uses_node:
        require_node(prof, run.machine)
    return on


def _measured(run: Run, ctx: Context, model: Any, fit: Any, given: Mapping[str, float]
              ) -> Measured | None:
    """The run's timing rows (``points``, else ``where``), one entry per process count and
    problem size, parts summed."""
    if run.fit is None:
        return None
    from perfmodel.apps.fit import timing_inputs
    from perfmodel.apps.timings import read_timings

    rows = read_timings(run.fit)
    want = dict(run.where if run.points is None else run.points)
    rows = rows.select(**want) if want else rows
    if len(rows) == 0:
        raise InputError(f"run {run.label!r}: no timing rows with {want}", file=run.fit,
                         fix="check the points (or where) labels")
    seconds, sizes = timing_inputs(model, rows, given)
    row_size = np.asarray(sizes if sizes is not None else [0.0] * len(rows), dtype=np.float64)
    # one entry per run: the parts of a run share every label but their part and source;
    # whole-run rows are each their own run (repeats are shown, never summed)
    labels = {k: v for k, v in rows.labels.items() if k != "source"}
    run_of = [(float(rows.processes[i]), float(row_size[i]),
               tuple(v[i] for v in labels.values()) if rows.parts[i] else ("#", i))
              for i in range(len(rows))]
    keys = sorted(set(run_of), key=lambda k: (k[0], k[1], run_of.index(k)))
    missing = [k for k in keys if any(r == k for r in run_of)
               and len({rows.parts[i] for i, r in enumerate(run_of) if r == k} - {""})
               not in (0, len(set(rows.parts) - {""}))]
    if missing:
        i = run_of.index(missing[0])
        raise InputError(f"run {run.label!r}: the run at {int(missing[0][0])} processes has "
                         "only some of the parts", file=run.fit, line=rows.lines[i],
                         fix="give every part of each run, or select rows with points")
    index = {k: j for j, k in enumerate(keys)}
    total = np.zeros(len(keys))
    rate = np.full(len(keys), np.nan)
    parts: dict[str, np.ndarray] = {}
    for i, key in enumerate(run_of):
        j = index[key]
        total[j] += seconds[i]
        if rows.measure == "mflops":
            rate[j] = rows.times[i]
        if rows.parts[i]:
            parts.setdefault(rows.parts[i], np.full(len(keys), np.nan))[j] = seconds[i]
    members: list[list[int]] = [[] for _ in keys]
    for i, key in enumerate(run_of):
        members[index[key]].append(i)
    p = np.array([k[0] for k in keys])
    n = np.array([k[1] for k in keys]) if sizes is not None else None
    if rows.measure != "mflops" and model.flops is not None:
        rate = model.flop_count(p, n, {**fit.values, **given}) / total / 1e6
    kinds = rows.labels.get("kind")
    derived = tuple(kinds is not None and all(kinds[i] == "derived" for i in group)
                    for group in members)
    return Measured(p, total, rate, n, parts, ctx.used(run.fit, "application timings"), rows,
                    tuple(_spans([rows.lines[i] for i in group]) for group in members), derived)


def _spans(lines: Sequence[int]) -> str:
    """Line numbers as ranges: 3–5, 9."""
    out: list[str] = []
    for x in sorted(lines):
        if out and out[-1].split("–")[-1] == str(x - 1):
            out[-1] = out[-1].split("–")[0] + f"–{x}"
        else:
            out.append(str(x))
    return ", ".join(out)


def _done(run: Run, ctx: Context, nodes: Sequence[int]) -> Done:
    nodes = run.nodes or nodes
    from perfmodel.apps.metrics import scaling
    from perfmodel.apps.run import constants, parse_given

    model = ctx.app_model(run.model)
    ctx.model(model)
    on = _machine(run, ctx, model)
    sets = [f"{k}={v}" for k, v in run.given.items()]
    where = [f"{k}={v}" for k, v in run.where.items()]
    # every input of the fit: sections that run the same model on the same timings share it
    key = ("constants", run.model, run.machine and run.machine.resolve(), run.channels,
           run.link_speed, run.fit and run.fit.resolve(), tuple(where), tuple(sets), run.size,
           run.weak)
    fit, size = ctx.once(key, lambda: constants(model, on, run.fit, where or None, sets, None,
                                                run.size, run.weak))
    result = scaling(fit, nodes, 0.95, on, size, run.weak)
    return Done(run, fit, on, size, result, _measured(run, ctx, model, fit,
                                                       parse_given(sets, model)))


def formulas(model: Any) -> list[str]:
    """Each part's time as LaTeX (SymPy, the formulas as written), machine functions named."""
    import sympy

    from perfmodel.apps.expr import to_sympy
    from perfmodel.apps.model import CALLS, VARIABLES

    symbols = {n: sympy.Symbol(n, positive=True) for n in (*VARIABLES, *model.param_names)}
    functions = {name: (lambda *a, name=name: sympy.Function(r"\mathrm{" + name.replace(
        "_", r"\_") + "}")(*a)) for name in CALLS}
    # for reading, not evaluating: log2 and log10 stay as written
    functions |= {"log2": sympy.Function(r"\log_2"), "log10": sympy.Function(r"\log_{10}")}
    names = {sym: r"\mathit{" + n.replace("_", r"\_") + "}" for n, sym in symbols.items()
             if "_" in n or len(n) > 1}
    out = []
    for part in model.parts:
        terms = []
        for term, node in part.terms.items():
            tex = sympy.latex(to_sympy(node, symbols, functions), symbol_names=names,
                              mul_symbol="dot")
            terms.append(rf"\underbrace{{{tex}}}_{{\text{{{TERM_TITLE.get(term, term)}}}}}")
        name = part.name.replace("_", r"\_")
        # one term per line: long models stay inside the page
        out.append(r"\begin{aligned}" + rf"T_{{\mathrm{{{name}}}}}(p, n) &= "
                   + r" \\ &+ ".join(terms) + r"\end{aligned}")
    return out


def _model_block(model: Any) -> list[Block]:
    from perfmodel.apps.model import CALLS

    out: list[Block] = [f"**Model `{model.name}`**: {model.description}."]
    if model.source:
        out.append(f"Source: {model.source}")
    out += [formula(f) for f in formulas(model)]
    used = sorted(model.machine_calls)
    if used:
        out.append("Machine functions (costed on the machine profile): " + "; ".join(
            f"`{u}`: {CALL_MEANING.get(u, 'a collective, by its algorithm on the fabric')}"
            for u in used if u in CALLS) + ".")
    if model.notes:
        out.append(bullets(model.notes))
    return out


def _run_blocks(d: Done) -> list[Block]:
    fit, r = d.fit, d.scaling
    out: list[Block] = [f"### {d.run.label}"]
    how = [f"model `{fit.model.name}`"]
    if d.machine is not None:
        how.append(f"machine `{d.machine.profile.name}`"
                   + (f", {d.run.channels} channel(s)" if d.run.channels else "")
                   + (f", link {d.run.link_speed}" if d.run.link_speed else ""))
    if d.run.where:
        how.append("fitted to the rows " + ", ".join(f"{k} = {v}" for k, v in
                                                     d.run.where.items()))
    if d.run.given:
        how.append("given " + ", ".join(f"{k} = {v}" for k, v in d.run.given.items()))
    how.append(("weak" if d.run.weak else "strong") + " scaling"
               + (f" at size {d.size:g}" if d.size is not None else ""))
    out.append("; ".join(how) + ".")
    out.append(table(["constant", "value", "std. error", "status", "source"],
                     _params_rows(fit.params), right=(1, 2)))
    if fit.fit:
        out.append(f"Fit: {fit_line('timing(s)', fit.fit, fit.dof)}.")
    if fit.notes:
        out.append(bullets(fit.notes))
    if d.measured is not None:
        out += _against(d)
    rows = []
    rated = bool(np.any(np.isfinite(r.mflops)))
    for i, p in enumerate(r.processes):
        if not (math.isfinite(r.time[i]) and r.time[i] > 0):   # never a negative or NaN time
            rows.append([f"{int(p)}", *["—"] * (5 + len(r.shares) + rated),
                         "no valid prediction"])
            continue
        band = (f"{format_time(r.prediction.total_lo[i])} – "
                f"{format_time(r.prediction.total_hi[i])}"
                if math.isfinite(r.prediction.total_lo[i]) else "—")
        rate = [] if not rated else [_num(r.mflops[i]) if math.isfinite(r.mflops[i]) else "—"]
        rows.append([f"{int(p)}", format_time(r.time[i]), band, _num(r.speedup[i]),
                     format_share(r.efficiency[i]), format_share(r.overhead[i]),
                     *(format_share(r.shares[c][i]) for c in r.shares), *rate,
                     "extrapolated" if r.prediction.extrapolated[i] else ""])
    from perfmodel.apps.metrics import CAUSES

    out.append("**Predicted** (time with its 95 % interval; the overhead, 1 − efficiency, "
               "split by cause: comm. is communication, sync. synchronisation"
               f"{_span(r.prediction.outside)}):")
    short = {"communication": "comm.", "synchronisation": "sync."}
    head = ["nodes", "time", "interval", "speedup", "efficiency", "overhead",
            *(short.get(CAUSES[c], CAUSES[c]) for c in r.shares)]
    head += ["Mflop/s"] if rated else []
    out.append(_noted(head, rows))
    return out + _why(r.prediction.outside)


def _span(outside: Extrapolation) -> str:
    """How a caption explains the word extrapolated, when some row is."""
    return "; extrapolated: outside what the constants were fitted on or the profile was " \
        "calibrated on, as said below the table" if np.any(outside.any) else ""


def _why(outside: Extrapolation) -> list[Block]:
    """Below a table: why its extrapolated rows are."""
    notes = [f"{n[0].upper()}{n[1:]}." for n in outside.notes()]
    return [bullets(notes)] if notes else []


def _unmeasured(s: Sweep) -> list[Block]:
    """Below a what-if table: the line rates and latencies it tries that nothing measured."""
    from perfmodel.apps.trust import unmeasured_note

    note = unmeasured_note(s.unmeasured, s.baseline, s.extrapolation.specified)
    return [f"{note[0].upper()}{note[1:]}."] if note else []


def _noted(head: list[str], rows: list[list[str]]) -> Block:
    """A right-aligned table whose last cell per row is a note; the note column only when some
    row has one."""
    if any(row[-1] for row in rows):
        return table([*head, "note"], rows, right=tuple(range(len(head))))
    return table(head, [row[:-1] for row in rows], right=tuple(range(len(head))))


def _num(x: float) -> str:
    """Three significant digits, never in exponent form below 10^15."""
    from perfmodel.units import significant

    return significant(x) if math.isfinite(x) else "—"


def _against(d: Done) -> list[Block]:
    from perfmodel.apps.fit import predict_app

    m = d.measured
    assert m is not None
    pred = predict_app(d.fit, m.processes, 0.95, d.machine, m.size)
    rows = []
    for i, p in enumerate(m.processes):
        lead = [f"{int(p)}"] + ([f"{m.size[i]:g}"] if m.size is not None else [])
        for part, vals in sorted(m.parts.items()):
            if part in pred.parts and math.isfinite(vals[i]):
                rows.append([*lead, part, format_time(vals[i]),
                             format_time(pred.parts[part][i]),
                             _pct(pred.parts[part][i] / vals[i] - 1.0), ""])
        rows.append([*lead, *(["run"] if m.parts else []), format_time(m.seconds[i]),
                     format_time(pred.total[i]), _pct(pred.total[i] / m.seconds[i] - 1.0),
                     m.lines[i], *(["derived" if m.derived[i] else "measured"]
                                   if any(m.derived) else [])])
    head = ["nodes", *(["size"] if m.size is not None else []),
            *(["part"] if m.parts else []), "measured", "model", "model / measured − 1",
            "line"] + (["kind"] if any(m.derived) else [])
    return [f"**Measured against the model** (rows of `{m.source}`; a row of kind derived "
            "is worked out from the source's prose, not measured"
            + (" converted from Mflop/s through the model's flop count" if
               m.rows.measure == "mflops" else "") + "):",
            table(head, rows, right=tuple(i for i, h in enumerate(head)
                                          if h not in ("part", "line")))]


def scaling_section(sec: SectionSpec, ctx: Context) -> Section:
    nodes = sec.options.get("nodes") or [1, 2, 4, 8, 16]
    metric = sec.options.get("metric", "speedup")
    done = [_done(run, ctx, nodes) for run in sec.options["run"]]
    if metric == "mflops":
        for d in done:
            if d.fit.model.flops is None:
                raise InputError(f"run {d.run.label!r}: model {d.fit.model.name} counts no "
                                 "flops, so it has no Mflop/s", fix='use metric = "time" or '
                                 '"speedup"')
    out: list[Block] = [sec.text]
    seen: list[str] = []
    for d in done:
        if d.fit.model.name not in seen:
            seen.append(d.fit.model.name)
            out += _model_block(d.fit.model)
    for d in done:
        out += _run_blocks(d)
    key = slug(sec.title or "-".join(d.fit.model.name for d in done))[:60]
    what = {"time": "run time", "speedup": "speedup", "mflops": "sustained Mflop/s"}[metric]
    measured = any(d.measured is not None for d in done)
    title = sec.title or "application scaling"
    out.append(Figure(f"{key}-{metric}", f"{what.capitalize()} against nodes: lines are the "
                      "models (shaded: 95 % band from the fitted constants, where there is "
                      "one)" + (", filled markers the measured runs" if measured else
                                ", no measured run survives")
                      + (", dotted the ideal (one node's rate times the nodes)"
                         if metric != "time" else "") + ".",
                      lambda: _draw_scaling(done, metric, title)))
    out.append(Figure(f"{key}-overhead", "Parallel overhead (1 − efficiency) against nodes: "
                      "left, the model's total" + (
                          " with the overhead the measured runs imply (markers, where a "
                          "one-node run was measured)" if measured else "")
                      + "; right, the model's split by cause.",
                      lambda: _draw_overhead(done, title)))
    return Section(sec.title or "Application scaling", tuple(out))


def _draw_scaling(done: Sequence[Done], metric: str, title: str) -> Any:
    from perfmodel.report.plot import plain, pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.6, 4.4))
    top = 0.0
    for k, d in enumerate(done):
        r, c = d.scaling, f"C{k}"
        p = r.processes
        if metric == "time":
            y, lo, hi = r.time, r.prediction.total_lo, r.prediction.total_hi
        else:
            y = r.speedup if metric == "speedup" else r.mflops
            lo, hi = r.bands.get(metric, (np.full_like(p, np.nan),) * 2)
        ax.plot(p, y, color=c, ls=("-", "--", "-.", ":")[k % 4], marker="o", ms=3, mfc="none",
                label=f"model: {d.run.label}")
        if np.any(np.isfinite(lo)):
            ax.fill_between(p, lo, hi, color=c, alpha=0.15, lw=0)
        m = d.measured
        if m is not None:
            got = {"time": m.seconds, "mflops": m.mflops}.get(metric)
            if metric == "speedup":
                one = m.seconds[m.processes == 1]
                work = m.processes if d.run.weak else 1.0     # scaled speedup: p·T(1)/T(p)
                got = one[0] * work / m.seconds if len(one) else None
            if got is not None and np.any(np.isfinite(got)):
                seen = ~np.asarray(m.derived, dtype=bool) if m.derived else \
                    np.ones(len(got), dtype=bool)
                if np.any(seen):
                    ax.plot(m.processes[seen], got[seen], "o^sDv"[k % 5], color=c, ms=7,
                            mec="k", mew=0.6, label=f"measured: {d.run.label}")
                if np.any(~seen):
                    ax.plot(m.processes[~seen], got[~seen], "o^sDv"[k % 5], color=c, ms=7,
                            mfc="white", mew=1.2,
                            label=f"derived from the source's prose: {d.run.label}")
        if metric != "time" and np.isfinite(y[0]):
            ideal = y[0] * p / p[0]
            ax.plot(p, ideal, ":", color=c, lw=0.8)
            top = max(top, float(np.nanmax(ideal)))
    ax.set_xscale("log", base=2)
    plain(ax, "x", decimal=False)
    if metric == "time":
        ax.set_yscale("log")
        plain(ax, "y")
    else:
        ax.set_ylim(0, top * 1.05 if top > 0 else None)
    ylabel = {"time": "run time (s)", "speedup": "speedup T(1)/T(p)",
              "mflops": "sustained rate (Mflop/s)"}[metric]
    ax.set_xlabel("nodes (processes)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6.5)
    fig.tight_layout()
    return fig


def _draw_overhead(done: Sequence[Done], title: str) -> Any:
    from perfmodel.apps.metrics import CAUSES
    from perfmodel.report.plot import plain, pyplot

    plt = pyplot()
    fig, (a, b) = plt.subplots(1, 2, figsize=(10.5, 4.2), sharey=True)
    for k, d in enumerate(done):
        r, c = d.scaling, f"C{k}"
        p = r.processes
        a.plot(p, 100 * r.overhead, color=c, marker="o", ms=3, mfc="none",
               ls=("-", "--", "-.", ":")[k % 4], label=f"model: {d.run.label}")
        lo, hi = r.bands.get("overhead", (np.full_like(p, np.nan),) * 2)
        if np.any(np.isfinite(lo)):
            a.fill_between(p, np.maximum(100 * lo, 0), 100 * hi, color=c, alpha=0.15, lw=0)
        m = d.measured
        if m is not None and np.any(m.processes == 1):
            same = m.size is None or d.run.weak or len(set(m.size.tolist())) == 1
            if same:
                t1 = m.seconds[m.processes == 1][0]
                scale = m.processes if d.run.weak else 1.0
                ov = 1 - (t1 * scale) / (m.processes * m.seconds)
                derived = np.asarray(m.derived, dtype=bool) if m.derived else \
                    np.zeros(len(ov), dtype=bool)
                for kept, filled, said in ((~derived, "auto", "from the measured runs"),
                                           (derived, "white", "from the derived rows")):
                    keep = kept & (m.processes > 1)
                    if np.any(keep):
                        a.plot(m.processes[keep], 100 * ov[keep], "o^sDv"[k % 5], color=c,
                               ms=7, mec="k" if filled == "auto" else c, mfc=None
                               if filled == "auto" else filled, mew=0.6 if filled == "auto"
                               else 1.2, label=f"{said}: {d.run.label}")
        for cause, share in r.shares.items():
            if np.nanmax(np.abs(share)) > 0.005:
                b.plot(p, 100 * share, color=c, ls=CAUSE_STYLE[cause], lw=1.6,
                       label=f"{d.run.label}: {CAUSES[cause]}")
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        plain(ax, "x", decimal=False)
        ax.set_xlabel("nodes (processes)")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6.5, handlelength=3.5)
    if not b.get_legend_handles_labels()[0]:
        b.text(0.5, 0.5, "no cause above 0.5 %", transform=b.transAxes, ha="center")
    a.set_ylabel("overhead, 1 − efficiency (%)")
    a.set_title(f"{title}: overhead", fontsize=9)
    b.set_title("overhead by cause (model)", fontsize=9)
    fig.tight_layout()
    return fig


# --- what-if ---------------------------------------------------------------------------------

def whatif_section(sec: SectionSpec, ctx: Context) -> Section:
    from perfmodel.whatif.axes import parse_vary
    from perfmodel.whatif.sweep import Grid, sweep

    run: Run = sec.options["run"][0]
    if run.machine is None:
        raise InputError(f"what-if run {run.label!r} has no machine", fix="give it a machine")
    if run.channels is not None or run.link_speed is not None or run.nodes:
        raise InputError(f"what-if run {run.label!r} gives channels, link_speed or nodes",
                         fix="vary them instead: vary = { channels = \"1,2\" }")
    axes = parse_vary([f"{k}={v}" for k, v in sec.options["vary"].items()])
    grid = Grid({k: np.asarray(v, dtype=np.float64) for k, v in axes.items()},
                cap=MAX_WHATIF_ROWS, what="a report's what-if section (one row each)")
    d = _done(run, ctx, [int(x) for x in axes["nodes"]])
    prof = ctx.profile(run.machine)
    s = sweep(d.fit, prof, grid, size=d.size, weak=run.weak)
    names = [k for k in s.grid.axes if k != "nodes"]
    nodes = s.config["nodes"]
    base = {n: float(s.baseline.get(n, math.nan)) for n in names}
    at_base = np.ones(len(s.time), dtype=bool)
    for n in names:
        at_base &= np.isclose(s.config[n], base[n]) if math.isfinite(base[n]) else \
            s.config[n] == s.grid.axes[n][0]
    ref = {float(p): float(s.time[i]) for i, p in enumerate(nodes) if at_base[i]}
    shown = {"channels": lambda v: f"{int(v)}", "link_speed": format_line_rate,
             "latency": format_time}
    order = np.lexsort(tuple([*(s.config[n] for n in reversed(names)), nodes]))
    rows = []
    for i in order:
        t0 = ref.get(float(nodes[i]), math.nan)
        ok = math.isfinite(s.time[i]) and s.time[i] > 0
        rows.append([f"{int(nodes[i])}", *(shown.get(n, lambda v: f"{v:g}")(s.config[n][i])
                                           for n in names),
                     format_time(s.time[i]) if ok else "—",
                     format_share(s.comm_share[i], 2) if ok else "—",
                     format_share(s.terms['synchronisation'][i] / s.time[i], 2) if ok else "—",
                     f"{t0 / s.time[i]:.3f}" if ok and math.isfinite(t0) else "—",
                     "no valid prediction" if not ok else
                     "extrapolated" if s.extrapolated[i] else ""])
    head = ["nodes", *(n.replace("_", " ") for n in names), "time",
            "communication share", "synchronisation share", "gain over the profile's own"]
    out: list[Block] = [sec.text, _model_block(d.fit.model)[0],
                        f"Every configuration of `{run.model}` on `{ctx.show(run.machine)}` "
                        "(" + "; ".join(f"{k}: {v}" for k, v in sec.options["vary"].items())
                        + "); the gain is the time at the profile's own hardware and the same "
                        f"node count over this one's{_span(s.extrapolation)}:",
                        _noted(head, rows), *_why(s.extrapolation), *_unmeasured(s),
                        *_decisive(prof, s, d, run, grid)]
    return Section(sec.title or f"What if: {run.label}", tuple(out))


def _decisive(prof: Any, s: Any, d: Done, run: Run, grid: Any) -> list[Block]:
    """The assumed parameters that change the section's answer, each in one sentence."""
    from perfmodel.whatif import decisive
    from perfmodel.whatif.analysis import WORTH
    from perfmodel.whatif.axes import axis_text
    from perfmodel.whatif.sweep import sweep

    said = decisive.whatif(prof, s, lambda other: sweep(d.fit, other, grid, size=d.size,
                                                         weak=run.weak, band=False),
                           WORTH, axis_text)
    return [f"**An assumption decides this answer:** {x.sentence()}." for x in said]

