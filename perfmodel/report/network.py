"""Report sections on networks: a profile's fit and diagnostics, tokens on shared channels,
point-to-point throughput, fan-in and the Exchange ring.  Each builder takes its section's
specification and returns a :class:`~perfmodel.report.doc.Section`; figures are drawn only
when the report is rendered."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from perfmodel.machine.hardware import require_fabric
from perfmodel.network.fit import DERIVED_LABELS
from perfmodel.report.context import Context
from perfmodel.report.doc import Block, Figure, Section, bullets, formula, table
from perfmodel.report.spec import Mark, SectionSpec
from perfmodel.units import format_rate, format_size, format_time, format_value

MB = 1e6
FABRIC_LATEX = {
    "message": r"T_1(m) = o + \max\!\left(c\,m,\; D\right) + \min\!\left(c\,b,\; "
               r"\frac{b + h}{\eta R}\right), \qquad "
               r"D = \frac{m + \lceil m/P \rceil\, h}{\eta R\,\left(1 + (j-1)\,\kappa\right)},"
               r"\quad j = \min(\lceil m/P \rceil, C),\; b = \min(m, P)",
    "shared": r"X(k) = \frac{\mathbb{E}[\min(n, s)]}{D}, \qquad p(n) \propto \prod_{i=1}^{n} "
              r"\frac{(k - i + 1)\,\rho}{\min(i, s)}, \qquad \rho = \frac{D}{T_1 - D}, \quad "
              r"s = \frac{1 + (C-1)\,\kappa}{1 + (j-1)\,\kappa}",
    "switched": r"X_{\mathrm{pairs}}(k) = \min\!\left(\frac{k}{T_1},\; \frac{F}{m}\right), "
                r"\qquad X_{\mathrm{fan\text{-}in}}(n) = \min\!\left(\frac{1}{o + c\,m + "
                r"\mu\,(1 - 1/n)},\; \frac{1}{W + \lambda\, m\,(1 - e^{-(n-1)/\nu})},\; "
                r"\frac{F}{m}\right)",
}
FABRIC_WHERE = (
    "m bytes per message; R the line rate (`line_rate`), η the share of it a channel "
    "delivers (`eta`), o the host's time per message (`overhead`), c its time per byte "
    "(`copy`), P bytes per packet (`packet`), h bytes of framing per packet (`header`), C "
    "channels, κ what each extra channel adds (`bond`)")
FABRIC_TOPOLOGY = {
    "shared": ("k tokens in flight cycle between their hosts (T₁ − D, no interference) and the "
               "shared channels (D each): the finite-source queue with s servers, solved "
               "exactly; X is messages per second over all tokens"),
    "switched": ("disjoint pairs each get their own full-duplex port, up to the switch "
                 "fabric's F bytes per second; n senders into one port are limited by the "
                 "receiving host (with μ, `mux`, to switch streams) and by the port (W the "
                 "wire time of one message, λ, `loss`, lost per byte once streams overflow it, "
                 "setting in over ν, `onset`, senders)"),
}


# --- helpers -------------------------------------------------------------------------------

def _mbs(x: float) -> str:
    return "—" if not math.isfinite(x) else f"{x / MB:.3g}"


def relerr(x: float) -> str:
    """A relative error for people: to two digits, and "0 %" below 10⁻⁶ (an exact fit)."""
    if not math.isfinite(x):
        return "—"
    return "0 %" if abs(x) < 1e-6 else f"{100 * x:.2g} %"


def fit_line(counted: str, fit: Mapping[str, float], dof: int) -> str:
    """``Fit: 3 timing(s), 1 degree(s) of freedom; relative error median …, largest ….``"""
    return (f"{int(fit.get('n', 0))} {counted}, {dof} degree(s) of freedom; relative error "
            f"median {relerr(fit.get('median_rel_err', math.nan))}, largest "
            f"{relerr(fit.get('max_rel_err', math.nan))}")


def _pct(x: float) -> str:
    if not math.isfinite(x):
        return "—"
    return "0.0 %" if abs(x) < 5e-4 else f"{100 * x:+.1f} %"


def quantity(value: float, unit: str, digits: int = 3) -> str:
    """A parameter's value for a table: on its unit's ladder, else to ``digits`` digits."""
    if unit == "B" and math.isfinite(value) and not float(value).is_integer():
        return f"{value:,.0f} B"
    if unit in ("s", "B/s", "B", "s/B") or not math.isfinite(value):
        return format_value(value, unit)
    return f"{value:.{digits}g} {unit}".strip()


def _params_rows(params: Sequence[Any]) -> list[list[str]]:
    rows = []
    for p in params:
        err = "—" if not math.isfinite(p.stderr) else "± " + quantity(p.stderr, p.unit, 2)
        if math.isfinite(p.stderr) and p.value and p.stderr > abs(p.value):
            err += " (larger than the value: not pinned down)"
        rows.append([DERIVED_LABELS.get(p.name, p.name), quantity(p.value, p.unit), err, p.status,
                     p.source or "—"])
    return rows


def _dense(lo: float, hi: float, n: int = 161) -> np.ndarray:
    lo = max(lo, 1.0)
    hi = max(hi, lo * 2)
    return np.asarray(2.0 ** np.linspace(math.log2(lo), math.log2(hi), n))


def _marks_table(marks: Sequence[Mark], at: Sequence[str]) -> str:
    return table(["mark", "at", "what the source says", "source"],
                 [[f"[{i}]", a, m.text, m.source]
                  for i, (m, a) in enumerate(zip(marks, at, strict=True), start=1)])


def _draw_marks(ax: Any, xs: Sequence[float]) -> None:
    from matplotlib.transforms import blended_transform_factory

    tr = blended_transform_factory(ax.transData, ax.transAxes)
    for i, x in enumerate(xs, start=1):
        ax.axvline(x, color="0.35", ls=":", lw=0.9)
        ax.text(x, 0.985, f"[{i}]", transform=tr, ha="center", va="top", fontsize=7,
                color="0.2", bbox={"fc": "white", "ec": "none", "pad": 0.5})


def _finish(ax: Any, xlabel: str, ylabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)


def _inputs(ctx: Context, prof: Any, path: Path) -> list[list[str]]:
    """The profile's recorded inputs, each as found now (or said missing or changed)."""
    rows = []
    for rec in prof.inputs:
        where = ctx.input_path(path, rec.path, rec.sha256)
        if where is None:
            state = "not found now: the diagnostics below leave it out"
        else:
            state = "as calibrated" if ctx.digest(where) == rec.sha256 else \
                "changed since it was calibrated: the diagnostics below use it as it is now"
        shown = ctx.used(where, "measurements") if where is not None else rec.path
        rows.append([f"`{shown}`", rec.format, rec.benchmark, f"{rec.rows_used} of {rec.rows}",
                     f"`{rec.sha256[:12]}`", state])
    return rows


# --- profile -------------------------------------------------------------------------------

def profile_section(sec: SectionSpec, ctx: Context) -> Section:
    from perfmodel.network import models
    from perfmodel.network.fit import derived_quantities

    path: Path = sec.options["profile"]
    prof = ctx.profile(path)
    net = prof.network
    spec = models.spec(net.kind)
    out: list[Block] = [sec.text]
    rows, found = _inputs(ctx, prof, path), ctx.inputs(prof, path)
    cmd = prof.provenance.get("command", "")
    where = f"Profile `{ctx.show(path)}`" + (f", written by `{cmd}`" if cmd else "") + "."
    if prof.provenance.get("spec"):
        where += f" Values it holds rather than fits come from `{prof.provenance['spec']}`."
    out.append(where)
    if rows:
        out.append(table(["input", "format", "table", "rows used", "sha256", "now"], rows))
    else:
        out.append("No measurements: every value is from the specification (see each "
                   "parameter's source).")
    out.append(f"**Point-to-point model: {net.kind}** ({spec.description}).")
    out.append(formula(spec.latex))
    out.append(table(["parameter", "value", "std. error", "status", "source"],
                     [*_params_rows(net.params),
                      *([*r[:3], "derived", "from the parameters"]
                        for r in _params_rows(derived_quantities(net)))],
                     right=(1, 2)))
    if prof.fit:
        out.append(f"Fit: {fit_line('point(s)', prof.fit, net.dof)}; "
                   f"{int(prof.fit['k'])} free parameter(s). Selection: {prof.selection}.")
    if prof.notes:
        out.append(bullets(prof.notes))
    if net.measured is not None:
        lo, hi = net.measured.ends
        out.append(f"Inside the sizes measured ({format_size(lo)} … {format_size(hi)}, "
                   f"{len(net.measured.sizes)} sizes kept) the profile follows the measured "
                   f"table: the law times each size's median ratio to it, interpolated between "
                   f"sizes (the law alone is off by up to ×{net.measured.largest:.2f} there); "
                   "past them the ratio fades to the law alone within a doubling or two, and "
                   "no larger message is predicted faster than the largest measured.")
    if prof.collectives:
        out += _collectives(prof)
    if found:
        out += _diagnostics(ctx, prof, found)
    sizes = sec.options.get("sizes") or [1.0, 1024.0, 65536.0, 1048576.0]
    out += _prediction(prof, sizes)
    if prof.fabric is not None:
        out += _fabric(ctx, prof, found)
    return Section(sec.title or f"Machine profile {prof.name}", tuple(out))


def _collectives(prof: Any) -> list[Block]:
    """The collectives the profile keeps at a node count: what ``predict --on`` compares
    between two machines at scale."""
    rows = []
    for c in prof.collectives:
        small, large = (c.sizes[0], c.times[0]), (c.sizes[-1], c.times[-1])
        rows.append([c.op, str(c.nodes), "—" if c.processes is None else str(c.processes),
                     f"{format_size(small[0])}: {format_time(small[1])}",
                     f"{format_size(large[0])}: {format_time(large[1])}", str(c.tables),
                     c.source.removeprefix("measured: ")])
    return ["**Collectives timed at scale** (each size's median over the tables of that "
            "operation and node count; `predict --on` compares two machines' at the counts it "
            "predicts):",
            table(["operation", "nodes", "ranks", "smallest size", "largest size", "tables",
                   "from"], rows, right=(1, 2, 5))]


def _diagnostics(ctx: Context, prof: Any, files: list[Path]) -> list[Block]:
    from perfmodel.network.models import evaluate
    from perfmodel.network.predict import predict_on

    single = ctx.gather(files, prof.layout).data
    data = single.sorted_by_size()
    net = prof.network
    fitted = evaluate(net.kind, data.size, net.values)
    resid = data.time / fitted - 1.0
    rows = [[format_size(m), format_time(t), format_time(f), _mbs(m / t), _mbs(m / f),
             _pct(r)] for m, t, f, r in zip(data.size, data.time, fitted, resid, strict=True)]
    out: list[Block] = ["**Measured against fitted** (one-way time; residual = measured / "
                        "fitted − 1):",
                        table(["size", "measured", "fitted", "measured MB/s", "fitted MB/s",
                               "residual"], rows, right=(1, 2, 3, 4, 5))]
    lo, hi = float(data.size.min()), float(data.size.max())
    dense = _dense(lo / 2, hi * 2)
    pred = predict_on(prof, dense)

    exact = net.dof == 0
    held = net.measured

    def draw() -> Any:
        from perfmodel.report.plot import plain, pyplot, size_axis

        plt = pyplot()
        fig, axes = plt.subplots(1, 1 if exact else 2, figsize=(5.5 if exact else 10, 3.8),
                                 squeeze=False)
        a = axes[0, 0]
        model_bw = dense / pred.time / MB
        a.plot(dense, model_bw, color="C0", label=f"model: {net.kind} fit" if held is None
               else f"profile: {net.kind} law held to the table inside its sizes")
        if held is not None:
            a.plot(dense, dense / net.law(dense) / MB, "--", color="C1", lw=1,
                   label=f"{net.kind} law alone")
        if np.any(np.isfinite(pred.time_lo)):
            a.fill_between(dense, dense / pred.time_hi / MB, dense / pred.time_lo / MB,
                           color="C0", alpha=0.15, lw=0, label="95 % prediction interval")
        seen = data.size / data.time / MB
        a.plot(data.size, seen, "o", color="k", mfc="none", label="measured (the inputs above)")
        a.set_xscale("log", base=2)
        size_axis(a)
        top = max(float(np.nanmax(model_bw)), float(seen.max()))
        low = min(float(np.nanmin(model_bw)), float(seen.min()))
        if top > 4 * low:
            a.set_yscale("log")
            plain(a, "y")
        else:                       # a flat curve: a linear axis from zero shows it
            a.set_ylim(0, 1.15 * top)
        _finish(a, "message size", "bandwidth (MB/s, 10⁶ B/s)",
                f"{prof.name}: measured and fitted")
        a.legend(fontsize=7, loc="lower right")
        if not exact:
            b = axes[0, 1]
            b.axhline(0, color="0.5", lw=0.8)
            b.plot(data.size, 100 * resid, "o", color="k", mfc="none", label="residual")
            b.set_xscale("log", base=2)
            size_axis(b)
            _finish(b, "message size", "measured / fitted − 1 (%)", "residuals")
        fig.tight_layout()
        return fig

    banded = bool(np.any(np.isfinite(pred.time_lo)))
    out.append(Figure(f"{prof.name}-fit", f"{prof.name}: bandwidth measured (circles, the "
                      "profile's inputs) and fitted (line"
                      + (", shaded: its 95 % prediction interval" if banded else "")
                      + ("; inside the sizes measured the profile follows the table, the law "
                         "alone dashed" if held is not None else "")
                      + ")" + (", and the residuals." if not exact else
                               "; exactly determined, so no residuals."), draw))
    return out


def _prediction(prof: Any, sizes: Sequence[float]) -> list[Block]:
    from perfmodel.network.predict import predict_on

    pred = predict_on(prof, np.asarray(sizes, dtype=np.float64))
    rows = []
    for i, m in enumerate(pred.size):
        band = "—" if not math.isfinite(pred.time_lo[i]) else \
            f"{format_time(pred.time_lo[i])} – {format_time(pred.time_hi[i])}"
        rows.append([format_size(m), format_time(pred.time[i]), band,
                     format_rate(m / pred.time[i]) if m > 0 else "—",
                     "yes" if pred.extrapolated[i] else ""])
    out: list[Block] = [
        f"**Predicted** one-way time and bandwidth ({100 * pred.level:g} % prediction interval "
        "where the fit leaves degrees of freedom):",
        table(["size", "time", "interval", "bandwidth", "outside the measured sizes"], rows,
              right=(1, 2, 3))]
    if pred.notes:
        out.append(bullets([f"{n[0].upper()}{n[1:]}." for n in pred.notes]))
    return out


def _fabric(ctx: Context, prof: Any, files: list[Path]) -> list[Block]:
    from perfmodel.network.fabric import TOPOLOGIES

    fab = prof.fabric
    out: list[Block] = [
        f"**Contention model: {fab.topology}** ({TOPOLOGIES[fab.topology][0]}; "
        f"{fab.channels} channel(s)" + (f", {fab.box} processes per box" if fab.box > 1 else "")
        + f"). {FABRIC_TOPOLOGY[fab.topology]}; {FABRIC_WHERE}.",
        formula(FABRIC_LATEX["message"]), formula(FABRIC_LATEX[fab.topology]),
        table(["parameter", "value", "std. error", "status", "source"],
              _params_rows(fab.params), right=(1, 2))]
    if fab.fit:
        out.append(f"Fit of the fabric: {fit_line('row(s)', fab.fit, fab.dof)}.")
    if fab.notes:
        out.append(bullets(fab.notes))
    if files:
        out += _fabric_rows(ctx, prof, files)
    return out


def _fabric_rows(ctx: Context, prof: Any, files: list[Path]) -> list[Block]:
    from perfmodel.network.fabric_fit import columns, row_times

    whole = ctx.gather(files, prof.layout).shared
    cols = columns(whole)
    fab = prof.fabric
    fitted = row_times(fab.topology, fab.values, cols, fab.box)
    streams = cols["pairs"] * cols["senders"]
    rows = []
    for i in range(len(whole)):
        m, t, f = cols["size"][i], cols["time"][i], fitted[i]
        rows.append([format_size(m), f"{int(cols['pairs'][i])}", f"{int(cols['channels'][i])}",
                     f"{int(cols['senders'][i])}", _mbs(streams[i] * m / t),
                     _mbs(streams[i] * m / f), _pct(t / f - 1.0)])
    return ["**The fabric against its rows** (aggregate throughput of all streams, MB/s; "
            "deviation = fitted / measured − 1):",
            table(["size", "pairs", "channels", "senders", "measured", "fitted", "deviation"],
                  rows, right=(1, 2, 3, 4, 5, 6))]


# --- tokens on shared channels (Beowulf Figures 1 and 2) ----------------------------------

def _measured_rows(ctx: Context, prof: Any, path: Path) -> dict[str, np.ndarray] | None:
    from perfmodel.network.fabric_fit import columns

    files = ctx.inputs(prof, path)
    return columns(ctx.gather(files, prof.layout).shared) if files else None


def shared_section(sec: SectionSpec, ctx: Context) -> Section:
    from perfmodel.network.fabric import rates

    path: Path = sec.options["profile"]
    prof = ctx.profile(path)
    fab = require_fabric(prof, "it cannot predict tokens on shared channels", path)
    sizes = np.asarray(sec.options.get("sizes") or 2.0 ** np.arange(2, 14))
    pairs = np.asarray(sec.options.get("pairs") or list(range(1, 9)), dtype=np.float64)
    chans = np.asarray(sec.options.get("channels") or sorted({1, fab.channels}),
                       dtype=np.float64)
    r = rates(fab, sizes[None, None, :], pairs[None, :, None], chans[:, None, None])
    bw, rate = r.bandwidth, r.message_rate
    seen = _measured_rows(ctx, prof, path)
    out: list[Block] = [sec.text]
    at = sec.options.get("table_sizes") or [1024.0, 8192.0]
    ta = rates(fab, np.asarray(at)[None, None, :], pairs[None, :, None], chans[:, None, None])
    rows = []
    for j, k in enumerate(pairs):
        row = [f"{int(k)}"]
        for s in range(len(at)):
            row += [_mbs(ta.bandwidth[i, j, s]) for i in range(len(chans))]
            if len(chans) > 1:
                row.append(f"{ta.bandwidth[-1, j, s] / ta.bandwidth[0, j, s]:.2f}×")
        rows.append(row)
    head = ["tokens"]
    for m in at:
        head += [f"{format_size(m)}, {int(c)} ch. (MB/s)" for c in chans]
        if len(chans) > 1:
            head.append(f"{format_size(m)}: {int(chans[-1])} ch. / {int(chans[0])}")
    out.append(f"Aggregate throughput of all tokens in flight (model, profile "
               f"`{ctx.show(path)}`):")
    out.append(table(head, rows, right=tuple(range(1, len(head)))))
    if seen is not None:
        mrows = [[format_size(seen["size"][i]), f"{int(seen['pairs'][i])}",
                  f"{int(seen['channels'][i])}",
                  _mbs(seen["pairs"][i] * seen["size"][i] / seen["time"][i]),
                  _mbs(float(rates(fab, seen["size"][i], seen["pairs"][i],
                                   seen["channels"][i]).bandwidth))]
                 for i in range(len(seen["size"]))]
        out.append("The measured rows the figures mark, beside the model:")
        out.append(table(["size", "tokens", "channels", "measured MB/s", "model MB/s"], mrows,
                         right=(1, 2, 3, 4)))

    def draw(what: str) -> Any:
        from perfmodel.report.plot import plain, pyplot, size_axis

        plt = pyplot()
        fig, axes = plt.subplots(1, len(chans), figsize=(5.2 * len(chans), 4.2), sharey=True,
                                 squeeze=False)
        cmap = plt.get_cmap("viridis")
        y = bw / MB if what == "bandwidth" else rate
        for i, c in enumerate(chans):
            ax = axes[0, i]
            for j, k in enumerate(pairs):
                colour = cmap(j / max(1, len(pairs) - 1) * 0.9)
                ax.plot(sizes, y[i, j], ls="-" if c == 1 else "--", marker="o", ms=3,
                        mfc="none", color=colour, label=f"model, {int(k)} token"
                        + ("s" if k > 1 else ""))
            if seen is not None:
                here = seen["channels"] == c
                if np.any(here):
                    k = seen["pairs"][here]
                    v = k * seen["size"][here] / seen["time"][here]
                    ax.plot(seen["size"][here], v / MB if what == "bandwidth" else v / seen[
                        "size"][here], "*", ms=11, color="C3", mec="k", mew=0.6,
                        label=f"measured, {int(c)} channel" + ("s" if c > 1 else "") + ": "
                        + ", ".join(f"{int(n)} token{'s' if n > 1 else ''} at {format_size(s)}"
                                    for n, s in zip(k, seen["size"][here], strict=True)))
            ax.set_xscale("log", base=2)
            size_axis(ax)
            if what == "rate":
                ax.set_yscale("log")
                plain(ax, "y")
            _finish(ax, "token size", "" if i else "aggregate throughput (MB/s, 10⁶ B/s)"
                    if what == "bandwidth" else "" if i else
                    "tokens transferred per second (all tokens)",
                    f"{int(c)} channel" + ("s" if c > 1 else "") + (
                        " (solid)" if c == 1 else " (dashed)"))
        handles, labels = [], []
        for ax in axes[0]:
            for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=7,
                   bbox_to_anchor=(0.5, 0.0))
        name = "data bandwidth" if what == "bandwidth" else "message throughput"
        fig.suptitle(f"{prof.name}: {name} against token size (lines: the model; stars: the "
                     "measured rows)", fontsize=9)
        fig.tight_layout(rect=(0, 0.13, 1, 1))
        return fig

    out.append(Figure(f"{prof.name}-bandwidth", "Aggregate data bandwidth against token size for "
                      f"{int(pairs[0])} to {int(pairs[-1])} tokens in flight, on "
                      + " and ".join(f"{int(c)}" for c in chans) + " channel(s): lines are "
                      "the model, stars the measured rows of the profile's input.",
                      lambda: draw("bandwidth")))
    out.append(Figure(f"{prof.name}-token-rate", "Tokens transferred per second (all tokens) "
                      "against token size, as above: flat while the per-message cost "
                      "dominates, then falling as the channels saturate.",
                      lambda: draw("rate")))
    return Section(sec.title or f"Tokens on shared channels: {prof.name}", tuple(out))
