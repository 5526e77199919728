"""Report sections comparing links: point-to-point throughput of several profiles, fan-in into
one receiver, and the Exchange ring; each with the measured points the profiles were fitted
to and the sentences of the sources marked where they speak."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from perfmodel.machine.hardware import require_fabric
from perfmodel.report.context import Context
from perfmodel.report.doc import Block, Figure, Section, table
from perfmodel.report.network import MB, _dense, _draw_marks, _finish, _marks_table, _mbs
from perfmodel.report.spec import SectionSpec
from perfmodel.units import format_size, format_time


def _marks(sec: SectionSpec, axis: str) -> tuple[list[float], str]:
    marks = sec.options.get("mark", ())
    xs = [m.x for m in marks]
    shown = [format_size(x) if axis == "size" else f"{int(x)}" for x in xs]
    return xs, _marks_table(marks, shown) if marks else ""


def _points(ctx: Context, prof: Any, path: Path) -> tuple[np.ndarray, np.ndarray, str] | None:
    """The single-stream rows a profile was fitted to (size, one-way time) and their files."""
    files = ctx.inputs(prof, path)
    if not files:
        return None
    data = ctx.gather(files, prof.layout).data.sorted_by_size()
    return data.size, data.time, ", ".join(f.name for f in files)


def throughput_section(sec: SectionSpec, ctx: Context) -> Section:
    from perfmodel.network.predict import predict_on

    paths: Sequence[Path] = sec.options["profiles"]
    profs = [ctx.profile(p) for p in paths]
    given = sec.options.get("sizes")
    pts = [_points(ctx, pr, p) for pr, p in zip(profs, paths, strict=True)]
    ends = [min(given), max(given)] if given else [1.0, 4 * 2.0 ** 20]
    lo = min([ends[0]] + [float(x[0].min()) for x in pts if x])
    hi = max([ends[1]] + [float(x[0].max()) for x in pts if x])
    dense = _dense(lo, hi)
    preds = [predict_on(pr, dense) for pr in profs]
    xs, marks = _marks(sec, "size")
    table_sizes = np.asarray(sorted({1.0, 512.0, 8192.0, 262144.0, 4194304.0}
                                    | {float(m) for x in pts if x for m in x[0]}))
    out: list[Block] = [sec.text]
    cols = [predict_on(pr, table_sizes) for pr in profs]
    head = ["size"]
    for pr, pt in zip(profs, pts, strict=True):
        head.append(f"{pr.name} (model)")
        if pt is not None:
            head.append(f"{pr.name} (measured)")
    rows = []
    for i, size in enumerate(table_sizes):
        row = [format_size(size)]
        for at, pt in zip(cols, pts, strict=True):
            row.append(f"{_mbs(size / at.time[i])} ({format_time(at.time[i])})")
            if pt is not None:
                row.append(next((f"{_mbs(m / t)} ({format_time(t)})"
                                 for m, t in zip(*pt[:2], strict=True) if m == size), ""))
        rows.append(row)
    out.append("Bandwidth in MB/s (one-way time) at each size: the models, and the measured "
               "points where the inputs have that size:")
    out.append(table(head, rows, right=tuple(range(1, len(head)))))
    if marks:
        out.append(marks)

    def draw() -> Any:
        from perfmodel.report.plot import MARKERS, plain, pyplot, size_axis

        plt = pyplot()
        fig, (a, b) = plt.subplots(1, 2, figsize=(10.5, 4.2))
        for k, (pr, pred, pt) in enumerate(zip(profs, preds, pts, strict=True)):
            c = f"C{k}"
            for ax, y, lo_, hi_ in ((a, dense / pred.time / MB, dense / pred.time_hi / MB,
                                     dense / pred.time_lo / MB),
                                    (b, pred.time * 1e6, pred.time_lo * 1e6,
                                     pred.time_hi * 1e6)):
                ax.plot(dense, y, color=c, ls=("-", "--", "-.", ":")[k % 4],
                        label=f"model: {pr.name} ({pr.network.kind})")
                if np.any(np.isfinite(lo_)):
                    ax.fill_between(dense, lo_, hi_, color=c, alpha=0.12, lw=0)
            if pt is not None:
                m, t, files = pt
                a.plot(m, m / t / MB, MARKERS[k % len(MARKERS)], color=c, ms=8, mec="k",
                       mew=0.6, label=f"measured: {files}")
                b.plot(m, t * 1e6, MARKERS[k % len(MARKERS)], color=c, ms=8, mec="k", mew=0.6)
        for ax in (a, b):
            ax.set_xscale("log", base=2)
            size_axis(ax)
            ax.set_yscale("log")
            plain(ax, "y")
            _draw_marks(ax, xs)
        _finish(a, "message size", "bandwidth (MB/s, 10⁶ B/s)", "throughput against size")
        _finish(b, "message size", "one-way time (µs)", "time against size")
        a.legend(fontsize=6.5, loc="lower right")
        fig.tight_layout()
        return fig

    names = " and ".join(p.name for p in profs)
    banded = any(np.any(np.isfinite(pred.time_lo)) for pred in preds)
    out.append(Figure("throughput-" + "-".join(p.name for p in profs)[:60],
                      f"Point-to-point throughput and one-way time of {names} against message "
                      "size: lines are the fitted models"
                      + (" (shaded: 95 % prediction interval)" if banded else "")
                      + (", markers the measured points they were fitted to" if any(pts)
                         else "")
                      + (", [n] the sentences in the table above." if xs else "."), draw))
    return Section(sec.title or f"Throughput: {names}", tuple(out))


def fanin_section(sec: SectionSpec, ctx: Context) -> Section:
    from perfmodel.network.fabric import rates

    path: Path = sec.options["profile"]
    prof = ctx.profile(path)
    fab = require_fabric(prof, "it cannot predict senders into one receiver", path)
    senders = np.asarray(sec.options.get("senders") or list(range(1, 16)), dtype=np.float64)
    sizes = np.asarray(sec.options.get("sizes") or [1024.0, 8192.0, 65536.0])
    r = rates(fab, sizes[:, None], 1, 1, senders[None, :], fanin=True)
    xs, marks = _marks(sec, "count")
    out: list[Block] = [sec.text]
    rows = [[f"{int(n)}"] + [f"{_mbs(r.bandwidth[i, j])} ({_mbs(r.bandwidth[i, j] / n)})"
                             for i in range(len(sizes))] for j, n in enumerate(senders)]
    out.append(f"Throughput arriving at the receiver in MB/s (each sender's share), model of "
               f"`{ctx.show(path)}`, one channel:")
    out.append(table(["senders", *(format_size(m) for m in sizes)], rows,
                     right=tuple(range(1, len(sizes) + 1))))
    if marks:
        out.append(marks)

    def draw() -> Any:
        from perfmodel.report.plot import pyplot, style

        plt = pyplot()
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for i, m in enumerate(sizes):
            ax.plot(senders, r.bandwidth[i] / MB, label=f"model, {format_size(m)} messages",
                    **style(i))
            if np.any(np.isfinite(r.message_rate_lo[i])):
                ax.fill_between(senders, m * r.message_rate_lo[i] / MB,
                                m * r.message_rate_hi[i] / MB, color=f"C{i}", alpha=0.12, lw=0)
        _draw_marks(ax, xs)
        ax.set_ylim(bottom=0)
        ax.set_xticks(senders)
        _finish(ax, "senders streaming into one receiver",
                "throughput at the receiver (MB/s, 10⁶ B/s)", f"{prof.name}: fan-in (model)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        return fig

    out.append(Figure(f"{prof.name}-fan-in", "Fan-in: throughput arriving at one receiver "
                      "against the number of senders, one line per message size (the model; no "
                      "measured fan-in survives, so [n] marks where the sentences in the table "
                      "above speak).", draw))
    return Section(sec.title or f"Fan-in: {prof.name}", tuple(out))


def exchange_section(sec: SectionSpec, ctx: Context) -> Section:
    from perfmodel.network.fabric import exchange

    paths: Sequence[Path] = sec.options["profiles"]
    profs = [ctx.profile(p) for p in paths]
    fabs = [require_fabric(pr, "it cannot predict the Exchange ring", p)
            for pr, p in zip(profs, paths, strict=True)]
    procs = sec.options.get("processes") or [2, 4]
    given = sec.options.get("sizes")
    dense = _dense(min(given) if given else 1.0, max(given) if given else 4 * 2.0 ** 20)
    lines = [(pr.name, p, exchange(f, dense, p)) for pr, f in zip(profs, fabs, strict=True)
             for p in procs]
    xs, marks = _marks(sec, "size")
    at = np.asarray([1.0, 128.0, 256.0, 1024.0, 4096.0, 8192.0, 65536.0, 4194304.0])
    out: list[Block] = [sec.text]
    cols = [(f"{pr.name}, {p}", exchange(f, at, p)) for pr, f in zip(profs, fabs, strict=True)
            for p in procs]
    rows = [[format_size(m), *(f"{_mbs(e.bandwidth[i])} ({format_time(e.time[i])})"
                               for _, e in cols)] for i, m in enumerate(at)]
    out.append("Exchange throughput in MB/s (10⁶ B/s; IMB counts 4 × size per iteration per "
               "process, in 2²⁰-byte MB before its 2018 versions), and the time of one "
               "iteration, the model at each size:")
    out.append(table(["size", *(f"{name} processes" for name, _ in cols)], rows,
                     right=tuple(range(1, len(cols) + 1))))
    if marks:
        out.append(marks)

    def draw(what: str) -> Any:
        from perfmodel.report.plot import plain, pyplot, size_axis, style

        plt = pyplot()
        fig, ax = plt.subplots(figsize=(8.6, 4.4))
        for k, (name, p, e) in enumerate(lines):
            y = e.bandwidth / MB if what == "bandwidth" else e.time * 1e6
            st = style(k)
            st["marker"] = None
            ax.plot(dense, y, label=f"model: {name}, {p} processes", **st)
        ax.set_xscale("log", base=2)
        size_axis(ax)
        ax.set_yscale("log")
        plain(ax, "y")
        _draw_marks(ax, xs)
        _finish(ax, "message size", "throughput (MB/s, 10⁶ B/s)" if what == "bandwidth"
                else "time per iteration (µs)",
                f"Exchange {'throughput' if what == 'bandwidth' else 'latency'} (model)")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.tight_layout()
        return fig

    stem = "exchange-" + "-".join(p.name for p in profs)[:50]
    cap = ("lines are the models (no measured Exchange survives), [n] the sentences in the "
           "table above.")
    out.append(Figure(f"{stem}-throughput", "Exchange throughput against message size: "
                      + cap, lambda: draw("bandwidth")))
    out.append(Figure(f"{stem}-latency", "Exchange time per iteration against message size: "
                      + cap, lambda: draw("time")))
    return Section(sec.title or "Exchange: " + ", ".join(p.name for p in profs), tuple(out))
