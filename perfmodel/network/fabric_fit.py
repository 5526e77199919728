"""Fit a fabric to measurements that vary pairs, channels or senders.

The data are canonical rows (one stream's time per message at a size, with the ``pairs``,
``channels`` and ``senders`` columns); the model's time for one stream is
``pairs·senders / X`` with ``X`` from :func:`perfmodel.network.fabric.message_rate`.
Residuals are log ratios, as for point-to-point fits, minimised by lmfit from a few starting
points.  A parameter is fitted only when the data can inform it (``bond`` needs two channel
counts, the fan-in parameters several sender counts, ``fabric`` several pair counts);
otherwise it keeps its cited, given or default value and says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from perfmodel.errors import FitError, InputError
from perfmodel.measurements import Measurements
from perfmodel.network.corrections import ratios_of
from perfmodel.network.fabric import (
    HIERARCHY,
    NIC,
    PARAMS,
    TOPOLOGIES,
    Corrections,
    Fabric,
    exchange_seconds,
    message_rate,
    topology_params,
    two_ways,
)
from perfmodel.network.fit import fit_stats, log_ratio
from perfmodel.network.hierarchy import PLACEMENTS, ring_crossings
from perfmodel.network.spec import FabricSpec
from perfmodel.params import Estimate, Status, specified

if TYPE_CHECKING:
    from lmfit import Parameters

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class FabricFit:
    """A fitted fabric with the rows it was fitted to and its time for each (s per message)."""

    fabric: Fabric
    data: Measurements
    fitted: FloatArray
    rss: float
    k: int

    @property
    def n(self) -> int:
        return len(self.data)

    @property
    def bic(self) -> float:
        return self.n * math.log(max(self.rss, 1e-300) / self.n) + math.log(self.n) * self.k


def columns(data: Measurements) -> dict[str, FloatArray]:
    """size, time, pairs, channels, senders and processes of every row (1 where a column is
    absent); ``fanin``: 1 for rows of a fan-in measurement (a table with several senders),
    whose one-sender rows are then one stream, not a ping-pong; ``exchange``: 1 for rows
    timing an Exchange ring (one iteration, over ``processes`` ranks); ``placement``: the
    index in :data:`~perfmodel.network.hierarchy.PLACEMENTS` of each row's placement
    (``block`` unless the data say); ``per_nic``: the streams that share one NIC (1 unless
    the data's placement says otherwise: ``extra["per_nic"]``); ``both``: 1 for rows timed
    while traffic went both ways (``osu_bibw``, IMB ``Biband``: ``extra["both"]``, else the
    table's pattern)."""
    ones = np.ones(len(data))
    out = {"size": data.size, "time": data.time}
    for key in ("pairs", "channels", "senders", "processes"):
        out[key] = np.asarray(data.concurrency.get(key, ones), dtype=np.float64)
    said = np.asarray(data.extra.get("fanin", np.zeros(len(data))), dtype=np.float64)
    out["fanin"] = np.asarray((out["senders"] > 1) | (said > 0), dtype=np.float64)
    ring = data.extra.get("exchange", np.full(len(data), float(data.pattern == "exchange")))
    out["exchange"] = np.asarray(ring, dtype=np.float64)
    out["per_nic"] = np.asarray(data.extra.get("per_nic", ones), dtype=np.float64)
    both = data.extra.get("both", np.full(len(data), float(data.pattern == "bidirectional")))
    out["both"] = np.asarray(both, dtype=np.float64) * (1.0 - out["exchange"])
    names = list(PLACEMENTS)
    labels = data.placement or ("block",) * len(data)
    odd = [(ln, x) for ln, x, r in zip(data.line, labels, out["exchange"], strict=True)
           if r > 0 and x not in names]
    if odd:
        raise InputError(f"an Exchange row's placement is {odd[0][1]!r}", file=data.source,
                         line=odd[0][0], fix=f"give one of {', '.join(names)}")
    out["placement"] = np.array([float(names.index(x)) if x in names else 0.0 for x in labels])
    return out


def varies(data: Measurements, cols: Mapping[str, FloatArray] | None = None) -> bool:
    """Whether the rows say anything about sharing: more than one pair, channel or sender,
    or Exchange rings of several process counts (``cols``: their :func:`columns`, when the
    caller has them)."""
    cols = columns(data) if cols is None else cols
    ring = cols["exchange"] > 0
    return bool(any(np.any(cols[k][~ring] > 1) for k in ("pairs", "channels", "senders"))
                or len(np.unique(cols["processes"][ring])) > 1)


def _rows_said(cols: Mapping[str, FloatArray]) -> str:
    """Which rows a fitted parameter of a NIC-sharing fit comes from."""
    k = np.unique(cols["pairs"])
    return (f"{len(cols['size'])} stream rows at "
            f"{', '.join(f'{v:g}' for v in k)} pairs, "
            f"{len(np.unique(cols['size']))} sizes")


def shares_nic(cols: Mapping[str, FloatArray]) -> bool:
    """Whether any row's streams share a NIC (then a switched fabric has the NIC's gap)."""
    return bool(np.any(cols["per_nic"][cols["exchange"] == 0] > 1))


def topologies(cols: Mapping[str, FloatArray]) -> tuple[str, ...]:
    """The topologies rows can be fitted to: only the switched law has NICs for streams to
    share and ports with two directions."""
    return ("switched",) if shares_nic(cols) or np.any(cols["both"] > 0) else tuple(TOPOLOGIES)


def _layout(cols: Mapping[str, FloatArray], box: int) -> tuple[FloatArray, FloatArray]:
    """Per Exchange row: the fewest and the most of a rank's messages leaving its box."""
    fewest, most = np.zeros(len(cols["size"])), np.zeros(len(cols["size"]))
    for i in np.flatnonzero(cols["exchange"] > 0):
        place = list(PLACEMENTS)[int(cols["placement"][i])]
        fewest[i], most[i], _, _ = ring_crossings(int(cols["processes"][i]), box, place)
    return fewest, most


def _free(names: Sequence[str], cols: Mapping[str, FloatArray], held: set[str],
          box: int = 1) -> tuple[list[str], list[str]]:
    """Of the fabric's parameters ``names``, those to fit, and those the data cannot inform
    (they take defaults)."""
    ring = cols["exchange"] > 0
    distinct = {k: len(np.unique(cols[k][~ring])) for k in ("pairs", "channels", "senders")}
    blind: list[str] = []
    if distinct["channels"] < 2:
        blind.append("bond")
    if distinct["senders"] < 2 or np.all(cols["senders"][~ring] == 1):
        blind += ["mux", "loss", "onset"]
    elif distinct["senders"] < 4:
        blind.append("onset")
    nics = np.unique(cols["pairs"][~ring] / cols["per_nic"][~ring])
    if distinct["pairs"] < 2 or len(nics) < 2:   # through one NIC, the fabric never shows
        blind.append("fabric")
    if np.all(ring):
        blind.append("copy")   # alone on a link only the slower of copy·m and m/rate shows
    blind += ["packet", "header"]  # discrete framing: cited or assumed, never fitted
    fewest, most = _layout(cols, box)
    # a ring shows only its slowest rank: the two links separate only where rows differ in
    # how many of that rank's messages leave its box (rows across boxes count as two)
    leaving = set(most[ring].tolist()) | ({2.0} if np.any(~ring) else set())
    between_held = {"line_rate", "overhead"} <= held
    if box > 1 and (not np.any(ring & (fewest < 2)) or (len(leaving) < 2 and not between_held)):
        blind += list(HIERARCHY)
    if np.all(ring) and not np.any(most > 0):
        blind += ["line_rate", "eta", "overhead"]  # no message leaves a box
    free = [p for p in names if p not in held and p not in blind]
    return free, [p for p in names if p not in held and p in blind]


def _initial(topology: str, cols: Mapping[str, FloatArray], base: Mapping[str, float],
             free: Sequence[str]) -> dict[str, float]:
    m, t, ring = cols["size"], cols["time"], cols["exchange"] > 0
    agg = np.where(ring, 2.0 * m / t, m * cols["pairs"] * cols["senders"] / t)
    rate = base.get("line_rate", float(np.max(m / t)))
    alone = ring & (cols["processes"] <= 2)   # rings whose two messages go to one neighbour
    inside = t[alone] if np.any(alone) else t
    guess = {"line_rate": float(np.max(agg)), "eta": min(0.9, float(np.max(agg)) / rate * 1.05),
             "overhead": 0.3 * float(np.min(t)), "copy": 0.3 / rate, "bond": 0.8,
             "fabric": 2.0 * float(np.max(agg)),
             "gap": 0.5 * float(np.min(t / (cols["pairs"] * cols["senders"]))),
             "mux": 0.3 * float(np.min(t)),
             "loss": 1.0 / rate, "onset": 2.0, "intra_latency": 0.3 * float(np.min(inside)),
             "intra_rate": float(np.max(agg[alone] if np.any(alone) else agg))}
    return {p: guess[p] for p in free}


def fit_fabric(data: Measurements, topology: str, *, channels: int | None = None, box: int = 1,
               fixed: Mapping[str, float] | None = None,
               sources: Mapping[str, str] | None = None,
               assumed: Sequence[str] = (), held_out: bool = True) -> FabricFit:
    """Fit the ``topology`` law to ``data``; ``fixed`` values (SI) are held, with ``sources``.

    ``assumed`` names the fixed parameters that are assumptions rather than citations.
    ``box`` is the processes one box holds: with more than one, Exchange rows whose ranks share
    boxes inform the intra-box link.  ``held_out``: whether the NIC's message rate must first
    show it was reached (:func:`_nic_rate_reached`).
    """
    fixed = dict(fixed or {})
    sources = dict(sources or {})
    cols = columns(data)
    if topology in TOPOLOGIES and topology not in topologies(cols):   # the rows need NICs
        if np.any(cols["both"] > 0):
            two_ways(topology, "fit the bidirectional tables to a switched fabric, or leave "
                               "them out")
        raise InputError(f"a {topology} fabric has no NICs of its own to share (every node is "
                         "on every channel), and these rows' streams share NICs",
                         file=data.source, fix="fit them to a switched fabric")
    if np.any(cols["both"] > 0):
        from perfmodel.network.fabric_beside import both_ways

        return both_ways(data, cols, topology, channels=channels, box=box, fixed=fixed,
                         sources=sources, assumed=assumed, held_out=held_out)
    nic = topology == "switched" and shares_nic(cols)   # then the per-size ratios too
    if held_out and nic and not set(NIC) & set(fixed):
        unseen = _nic_rate_reached(data, cols, box, fixed, sources, assumed)
        if unseen:
            fixed["gap"], sources["gap"], assumed = 0.0, unseen, [*assumed, "gap"]
    names = topology_params(topology, box, nic,
                            given=fixed if topology == "switched" else ())
    unknown = sorted(set(fixed) - set(names))
    if unknown:
        raise InputError(f"a {topology} fabric has no parameter {unknown[0]!r}",
                         fix=f"its parameters are {', '.join(names)}")
    if len(data) == 0:
        raise FitError("no rows to fit a fabric to", fix="give multi-pair or fan-in data")
    lone = np.flatnonzero((cols["exchange"] > 0) & (cols["processes"] < 2))
    if lone.size:
        raise InputError("an Exchange row of one process: a rank exchanging with itself "
                         "crosses no link", file=data.source, line=data.line[lone[0]],
                         fix="leave out the 1-process Exchange table")
    notes: list[str] = []
    free, blind = _free(names, cols, set(fixed), box)
    base = dict(fixed)
    statuses: dict[str, str] = {p: ("assumed" if p in assumed else "fixed") for p in fixed}
    if "line_rate" not in fixed:
        base["eta"] = 1.0
        statuses["eta"] = "assumed"
        sources["eta"] = "assumed: no line rate given, so line_rate is the delivered rate"
        free = [p for p in free if p != "eta"]
    for p in blind:
        spec = PARAMS[p]
        if spec.default is None:
            raise FitError(f"the data cannot inform the fabric's {p} ({spec.description})",
                           fix=f"give it in the spec's [fabric.params.{p}], or measure "
                               "Exchange rings both inside one box and across boxes")
        base[p] = spec.default
        statuses[p] = "assumed"
        sources[p] = spec.why
    npts = len(data)
    dof = npts - len(free)
    if dof < 0:
        raise FitError(f"the {topology} fabric has {len(free)} parameters to learn from "
                       f"{npts} rows ({', '.join(free)})",
                       fix="measure more sizes or pair counts, or fix some in a spec")
    start = _initial(topology, cols, base, free)
    best = None
    for init in _starts(start):
        got = _minimize(topology, cols, base, init, box)
        if best is None or got[2] < best[2]:
            best = got
    assert best is not None
    values, inv, _ = best
    bound = [p for p in free if _on_bound(p, values[p], start[p])]
    varied = [p for p in free if p not in bound]
    if bound:
        held = {**values, **{p: PARAMS[p].lower if values[p] <= start[p] else PARAMS[p].upper
                             for p in bound}}
        values, inv, _ = _minimize(topology, cols, held, {p: values[p] for p in varied}, box)
    if _host_unsplit(topology, values, cols, varied, box):
        # overhead and copy show only as overhead + copy·packet: hold copy at its default
        varied = [p for p in varied if p != "copy"]
        free = [p for p in free if p != "copy"]
        dof += 1
        spec = PARAMS["copy"]
        statuses["copy"] = "assumed"
        sources["copy"] = ("default: every row's message fills whole packets and is "
                           "wire-bound, so only overhead + copy·packet shows; the per-byte "
                           "host time is held at 0 and overhead takes the host's whole cost")
        values, inv, _ = _minimize(topology, cols, {**values, "copy": spec.default or 0.0},
                                   {p: values[p] for p in varied}, box)
        notes.append("copy cannot be told from overhead in these rows (every message is at "
                     "least one packet and wire-bound): held at 0")
    fitted = row_times(topology, values, cols, box)
    rss = float(np.sum(log_ratio(fitted, cols["time"]) ** 2))
    noise = math.sqrt(rss / dof) if dof > 0 else math.nan
    cov = np.full((len(varied), len(varied)), math.nan)
    if inv is not None and dof > 0:
        cov = inv * (rss / dof)
    errs = np.sqrt(np.clip(np.diag(cov), 0, None))
    params = []
    for name in names:
        spec = PARAMS[name]
        if name in varied:
            err = float(errs[varied.index(name)])
            params.append(Estimate(name, float(values[name]), err, spec.unit, "fitted",
                                   _rows_said(cols) if nic else ""))
            if dof > 0 and (not math.isfinite(err) or err > abs(values[name])):
                notes.append(f"{name} is poorly determined by the data")
        elif name in bound:
            params.append(Estimate(name, float(values[name]), math.nan, spec.unit, "bound"))
            notes.append(f"{name} ends on its bound ({values[name]:g}): held there")
        else:
            params.append(Estimate(name, float(values[name]), math.nan, spec.unit,
                                   cast(Status, statuses.get(name, "fixed")),
                                   sources.get(name, "")))
    if free and dof == 0:
        notes.append(f"{len(free)} free parameter(s) from {npts} row(s): no degrees of "
                     "freedom left, so no uncertainty can be estimated")
    ranges = {"size": (float(cols["size"].min()), float(cols["size"].max()))}
    for key in ("pairs", "senders", "channels", "per_nic"):
        ranges[key] = (float(cols[key].min()), float(cols[key].max()))
    ring = cols["exchange"] > 0
    if np.any(ring):
        ranges["processes"] = (float(cols["processes"][ring].min()),
                               float(cols["processes"][ring].max()))
    fix = None
    summary = fit_stats(fitted, cols["time"], rss, len(varied))
    if nic:
        fix = corrections(values, cols, fitted)
        law_err = summary["median_rel_err"]
        fitted = row_times(topology, {**values, "corrections": fix}, cols, box)
        ratios = int(np.sum(np.isfinite([*fix.stream, *fix.port])))
        summary = {**fit_stats(fitted, cols["time"],
                               float(np.sum(log_ratio(fitted, cols["time"]) ** 2)),
                               len(varied) + ratios),
                   "median_rel_err_law": law_err}
        notes.append(f"beside the law (median |rel. error| {law_err:.1%} alone), its measured "
                     f"ratio at each size where one stream's or the NIC's limit governs: "
                     f"{ratios} ratios, counted in k (the fabric's corrections)")
    stream = nic or data.pattern == "stream"
    fab = Fabric(topology, int(channels or cols["channels"].max()), tuple(params), cov, noise,
                 max(dof, 0), ranges, summary, tuple(notes), box, fix, stream)
    return FabricFit(fab, data, fitted, rss, len(varied))


def _nic_rate_reached(data: Measurements, cols: Mapping[str, FloatArray], box: int,
                      fixed: Mapping[str, float], sources: Mapping[str, str],
                      assumed: Sequence[str]) -> str:
    """Why the NIC's message rate (``gap``) is not fitted, or "" when it is: fitted to the
    rows of fewer streams a NIC, with and without it, the law predicts the rows of the most
    streams a NIC (held out) better without it, so the data never reached it (a law fitted to
    1, 2 and 4 streams a NIC otherwise takes any shortfall from linear for the NIC's limit
    and holds 8 and more at the 4-stream rate).  Needs three counts of streams a NIC."""
    one_way = (cols["exchange"] == 0) & (cols["fanin"] == 0)
    q = cols["per_nic"]
    counts = np.unique(q[one_way])
    if len(counts) < 3:
        return ""
    top = counts[-1]
    outer = one_way & (q == top)
    inner = data.take(~outer)
    sub = {k: v[outer] for k, v in cols.items()}
    errs = []
    for held in ({}, {"gap": 0.0}):
        try:
            fab = fit_fabric(inner, "switched", box=box, fixed={**fixed, **held},
                             sources=sources, assumed=[*assumed, *held], held_out=False).fabric
        except (FitError, InputError):
            return ""
        t = row_times("switched", fab.values, sub, box)
        errs.append(float(np.median(np.abs(t / sub["time"] - 1))))
    if errs[1] > errs[0]:
        return ""
    most = float(np.max(q[one_way] / cols["time"][one_way]))   # messages a second, one NIC
    return (f"not reached: the rows of {top:g} streams a NIC, held out, are predicted "
            f"{errs[0]:.1%} off (median) with the NIC's message rate fitted to the rest and "
            f"{errs[1]:.1%} without it, so the NIC is taken to pass every message its streams "
            f"send (gap 0; one NIC carried up to {most:.3g} messages a second here)")


def corrections(values: Mapping[str, float], cols: Mapping[str, FloatArray],
                fitted: FloatArray) -> Corrections:
    """The law's measured ratios one way (:func:`~perfmodel.network.corrections.ratios_of`):
    per size, of the stream rows where one stream's limit governs and of those where the
    NIC's does, over every count and at the most streams a NIC."""
    from perfmodel.network import contention
    from perfmodel.network.fabric import pipeline

    rows = (cols["exchange"] == 0) & (cols["fanin"] == 0)
    m = cols["size"][rows]
    one, port = contention.switched_limits(m, cols["pairs"][rows], cols["channels"][rows],
                                           line_rate=values["line_rate"],
                                           per_nic=cols["per_nic"][rows],
                                           gap=values.get("gap", 0.0), **pipeline(values))
    ratio = np.log(fitted[rows] / cols["time"][rows])
    sizes, at = np.unique(m, return_inverse=True)
    q = cols["per_nic"][rows]
    return Corrections(tuple(sizes.tolist()), ratios_of(ratio, at, len(sizes), one <= port, q),
                       f"median log ratio (measured over law) per size, of {int(rows.sum())} "
                       f"stream rows at {q.min():g} to {q.max():g} streams a NIC")


def _host_unsplit(topology: str, values: Mapping[str, float], cols: Mapping[str, FloatArray],
                  varied: Sequence[str], box: int) -> bool:
    """Whether the host's per-message and per-byte costs are confounded in these rows: moving
    along overhead + copy·packet held fixed (half of copy one way or the other) leaves every
    fitted time unchanged.  It happens when every message is at least one packet and the wire
    is slower than the copy (ping-pong rows on a slow shared medium); fan-in and stream rows,
    whose hosts show copy·m, tell them apart."""
    if not {"overhead", "copy"} <= set(varied) or not math.isfinite(values["packet"]):
        return False
    o, c, packet = values["overhead"], values["copy"], values["packet"]
    d = 0.5 * c if c > 0 else 0.5 * o / packet
    if d <= 0:
        return False
    moved = {**values, "copy": c - d, "overhead": o + d * packet} if c > 0 else \
        {**values, "copy": c + d, "overhead": o - d * packet}
    before = row_times(topology, dict(values), cols, box)
    after = row_times(topology, moved, cols, box)
    with np.errstate(divide="ignore", invalid="ignore"):
        change = np.abs(np.log(after / before))
    return bool(np.all(np.isfinite(change)) and np.all(change < 1e-9))


def _starts(start: Mapping[str, float]) -> list[dict[str, float]]:
    """Starting points: the host costs scaled down and up, and for fan-in the multiplexing
    and loss terms over two decades each (the fan-in law has kinks where limits change)."""
    host = [1.0, 0.1, 3.0]
    mux = [1.0, 10.0, 100.0] if "mux" in start else [1.0]
    loss = [1.0, 0.1, 10.0] if "loss" in start else [1.0]
    out = []
    for h in host:
        for a in mux:
            for b in loss:
                f = {"overhead": h, "copy": h, "mux": a, "loss": b}
                out.append({p: v * f.get(p, 1.0) for p, v in start.items()})
    return out


def _on_bound(name: str, value: float, start: float) -> bool:
    spec = PARAMS[name]
    if value <= spec.lower + 1e-6 * max(abs(start), 1e-300):
        return True
    return spec.upper < math.inf and value >= spec.upper * (1 - 1e-6)


def row_times(topology: str, values: Mapping[str, Any], cols: Mapping[str, FloatArray],
           box: int = 1) -> FloatArray:
    """The law's time for every row: one stream's time per message, or one Exchange
    iteration."""
    out = np.empty(len(cols["size"]))
    ring = cols["exchange"] > 0
    pair = ~ring
    if np.any(pair):
        x = message_rate(topology, values, cols["size"][pair], cols["pairs"][pair],
                         cols["channels"][pair], cols["senders"][pair],
                         fanin=cols["fanin"][pair], per_nic=cols["per_nic"][pair],
                         both=cols["both"][pair] > 0)
        out[pair] = cols["pairs"][pair] * cols["senders"][pair] / x
    for code in np.unique(cols["placement"][ring]):
        rows = ring & (cols["placement"] == code)
        out[rows] = exchange_seconds(topology, values, cols["size"][rows],
                                     cols["processes"][rows], box=box,
                                     placement=list(PLACEMENTS)[int(code)],
                                     channels=cols["channels"][rows])
    return out


def _minimize(topology: str, cols: Mapping[str, FloatArray], base: Mapping[str, float],
              init: Mapping[str, float], box: int = 1
              ) -> tuple[dict[str, float], FloatArray | None, float]:
    """lmfit on parameters scaled to order one; values, (JᵀJ)⁻¹ in SI units, RSS."""
    from perfmodel.lazy import lmfit

    lm = lmfit()

    free = list(init)
    scale = {p: abs(v) if v else 1.0 for p, v in init.items()}
    params = lm.Parameters()
    for p in free:
        spec = PARAMS[p]
        params.add(p, value=init[p] / scale[p], min=spec.lower / scale[p],
                   max=spec.upper / scale[p])

    def values_of(ps: Parameters) -> dict[str, float]:
        return {**base, **{p: ps[p].value * scale[p] for p in free}}

    def residual(ps: Parameters) -> FloatArray:
        r = log_ratio(row_times(topology, values_of(ps), cols, box), cols["time"])
        return np.asarray(np.where(np.isfinite(r), r, 50.0), dtype=np.float64)

    if not free:
        v = dict(base)
        return v, None, float(np.sum(residual(params) ** 2))
    res = lm.minimize(residual, params, method="leastsq", scale_covar=False)
    values = values_of(res.params)
    rss = float(np.sum(residual(res.params) ** 2))
    if res.covar is None:
        return values, None, rss
    d = np.array([scale[p] for p in free])
    return values, np.asarray(res.covar) * np.outer(d, d), rss


def specified_fabric(spec: FabricSpec, path: str = "") -> FabricFit:
    """A fabric wholly from a spec, for data that share nothing (one pair, one sender).

    Every parameter without a default must be given; the rest take their defaults, marked
    ``assumed`` with the reason.
    """
    def missing(name: str) -> InputError:
        return InputError(f"the measurements share nothing (one pair, one sender, one "
                          f"channel), so the fabric's {name} must be given", file=path or None,
                          fix=f"add [fabric.params.{name}] to the spec, or give multi-pair "
                              "or fan-in data")

    names = topology_params(spec.topology, spec.box, given=spec.fixed)
    params = specified(PARAMS, names, spec.fixed,
                       spec.sources, spec.assumed, missing)
    fab = Fabric(spec.topology, spec.channels, params,
                 notes=("a specification, not a fit: no measurement varies what it shares",),
                 box=spec.box)
    empty = np.zeros(0)
    return FabricFit(fab, Measurements("", empty, empty, ()), empty, 0.0, 0)
