"""calibrate: measurement files (and specs) in, a fitted machine profile out.

Reads each input, keeps its single-stream point-to-point rows, fits the requested model (or
chooses one by BIC), and packages the result with its provenance.  Writing the profile is the
caller's job (:func:`perfmodel.io.write_atomic` with :func:`perfmodel.machine.profile.dumps`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from perfmodel.choice import placement
from perfmodel.errors import InputError, PerfModelError
from perfmodel.inputs import Contribution, gather
from perfmodel.layout import Layout
from perfmodel.machine.profile import Profile, from_selection
from perfmodel.measurements import (
    MAX_LINK_BANDWIDTH,
    PATTERNS,
    POINT_TO_POINT,
    Measurements,
)
from perfmodel.network import models as registry
from perfmodel.network.corrections import group_median
from perfmodel.network.fabric import Fabric, wire_seconds
from perfmodel.network.fabric_fit import (
    FabricFit,
    columns,
    fit_fabric,
    specified_fabric,
    topologies,
    varies,
)
from perfmodel.network.fit import (
    Estimate,
    FitResult,
    NetworkModel,
    Selection,
    check_enough,
    fit,
)
from perfmodel.network.spec import NetworkSpec
from perfmodel.node import specified as specified_node
from perfmodel.provenance import stamp
from perfmodel.units import format_rate, format_size, format_time


@dataclass(frozen=True)
class Calibration:
    selection: Selection
    data: Measurements
    profile: Profile
    notes: tuple[str, ...] = ()
    fabric: FabricFit | None = None
    contributions: tuple[Contribution, ...] = ()

    def to_dict(self, path: Path | None = None) -> dict[str, Any]:
        """The calibration as plain data (SI units): the chosen law with its parameters and
        derived quantities, the fit, the selection, every point, the inputs, the fabric, the
        collectives timed at scale, and ``path``, where the profile was written (None: not
        written)."""
        best = self.selection.best
        model = best.model
        spec = registry.spec(model.kind)
        points = [
            {"size": s, "measured": m, "fitted": f, "rel_err": f / m - 1.0,
             "source": self.data.source, "line": ln}
            for s, m, f, ln in zip(best.data.size, best.data.time, best.fitted, best.data.line,
                                   strict=True)
        ]
        return {
            "model": model.kind,
            "formula": spec.formula,
            "latex": spec.latex,
            "parameters": [p.to_dict() for p in model.params],
            "derived": [{"name": d.name, "value": d.value, "stderr": d.stderr, "unit": d.unit}
                        for d in best.derived],
            "fit": {"n_points": best.n, "k": best.k, "dof": model.dof, "rss": best.rss,
                    "noise_rel": model.noise,
                    "median_rel_err": best.median_rel_err if best.n else None,
                    "max_rel_err": best.max_rel_err if best.n else None,
                    "aic": best.aic if best.n else None, "bic": best.bic if best.n else None},
            "selection": {
                "reason": self.selection.reason,
                "candidates": [{"model": c.model.kind, "k": c.k, "aic": c.aic, "bic": c.bic,
                                "median_rel_err": c.median_rel_err, "max_rel_err": c.max_rel_err}
                               for c in self.selection.candidates if c.n],
            },
            "points": points,
            "inputs": [vars(i) for i in self.profile.inputs],
            "notes": list(self.notes) + list(self.profile.notes),
            "profile": None if path is None else str(path),
            "fabric": None if self.profile.fabric is None else self.profile.fabric.to_dict(),
            "node": None if self.profile.node is None else
            [p.to_dict() for p in self.profile.node.params],
            "collectives": [c.to_dict() for c in self.profile.collectives],
            "contributions": [c.to_dict() for c in self.contributions],
        }


def _beyond_any_link(profile: Profile, data: Measurements) -> list[str]:
    """A warning when the fitted law passes the bandwidth no link reaches
    (:data:`~perfmodel.measurements.MAX_LINK_BANDWIDTH`) at the largest size measured or at
    16 times it: each row may be possible while the fit is not (times that fall with size, a
    bandwidth the large sizes do not bound)."""
    top = float(np.max(data.size)) if len(data) else 0.0
    if top <= 0:
        return []
    sizes = np.array([top, 16 * top])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bandwidth = sizes / profile.network.law(sizes)
    over = np.flatnonzero(~(bandwidth <= MAX_LINK_BANDWIDTH))
    if not over.size:
        return []
    at = int(over[0])
    return [f"the fitted {profile.network.kind} law gives "
            f"{format_rate(float(bandwidth[at]))} at {format_size(float(sizes[at]))}, above the "
            f"{MAX_LINK_BANDWIDTH / 1e12:g} TB/s no link reaches: the data do not bound the "
            "bandwidth (times that fall with size?) or a unit is wrong; check the rows"]


def default_name(paths: Sequence[str | Path], spec: str | Path | None, model: str) -> str:
    """The profile's name when none is given: the first input's stem, else the spec's, else
    the model's (known before any work, so the profile's path can be checked first).

    >>> default_name(["runs/osu_latency.out"], None, "auto"), default_name([], "fe.toml", "x")
    ('osu_latency', 'fe')
    """
    if paths:
        return Path(paths[0]).stem
    return Path(spec).stem if spec is not None else model


def _pattern_said(data: Measurements) -> tuple[str, ...]:
    """What a profile fitted to anything but a ping-pong must say about its latency."""
    if data.pattern in POINT_TO_POINT:
        return ()
    return (f"{data.benchmark} is not a ping-pong: its times are {PATTERNS[data.pattern]}, "
            "and the fitted latency describes that",)


def calibrate(paths: Sequence[str | Path], *, model: str = "auto",
              fixed: Mapping[str, float] | None = None, spec: NetworkSpec | None = None,
              name: str | None = None, command: str = "",
              benchmark: str | None = None, topology: str | None = None,
              box: int | None = None, layout: Layout | None = None,
              repeats: bool = False) -> Calibration:
    """Fit a point-to-point model to ``paths`` and build the machine profile.

    ``fixed`` holds parameters given on the command line (SI units); ``spec`` holds cited
    ones from a spec file.  With a spec that fixes every parameter, ``paths`` may be empty:
    the profile is then a specification, not a fit.  ``box`` is the processes one box holds
    (else the spec's, else 1), for fabrics fitted to Exchange rings.
    """
    fixed = dict(fixed or {})
    sources = {k: "given on the command line" for k in fixed}
    if spec is not None:
        if model not in (registry.AUTO, spec.model):
            raise InputError(f"the spec is for model {spec.model}, not {model}", file=spec.path,
                             fix=f"drop --model or use --model {spec.model}")
        model = spec.model
        clash = sorted(set(fixed) & set(spec.fixed))
        if clash:
            raise InputError(f"{clash[0]} is given both by --set and by the spec", file=spec.path,
                             fix="give it once")
        fixed.update(spec.fixed)
        sources.update(spec.sources)
    if box is not None and spec is not None and spec.fabric is not None and box != spec.fabric.box:
        raise InputError(f"the spec's fabric has box = {spec.fabric.box}, not {box}",
                         file=spec.path, fix="drop --box")
    if box is not None and not paths:
        raise InputError("--box describes the boxes of measured Exchange rings, but no "
                         "measurements are given", fix="give Exchange tables, or drop --box")
    provenance = stamp()
    if command:
        provenance["command"] = command
    if spec is not None:
        provenance["spec"] = spec.path
    if not paths:
        return _from_spec_only(model, fixed, sources, spec, name, provenance)
    got = gather(paths, benchmark, layout)
    data, records, notes, shared = got.data, got.records, got.notes, got.shared
    if data.pattern == "exchange" and 1 in data.counts("processes"):
        notes.append("Exchange rows of 1 process left out: a rank exchanging with itself "
                     "crosses no link")
        data = data.take(data.concurrency["processes"] >= 2)
        shared = shared.take((shared.extra["exchange"] == 0)
                             | (shared.concurrency["processes"] >= 2))
    procs = data.counts("processes")
    if data.pattern == "exchange" and len(procs) > 1:
        data = data.take(data.concurrency["processes"] == procs[0])
        notes.append(f"point-to-point model: the {procs[0]}-process rows (the rings of "
                     f"{', '.join(map(str, procs[1:]))} processes inform the fabric)")
    check_enough(data, minimum=_free_count(model, fixed))
    selection, data, apart, chosen = _law(data, got.law_tables, model, fixed, sources,
                                          repeats)
    notes += apart
    used = [chosen] if chosen is not None else list(got.law_tables)
    if used and all(placement(t.source) == "inside" for t in used):
        who = f"{used[0].source} is" if len(used) == 1 else "the law's tables are"
        notes.append(f"{who} named as run inside one node: the law is of the messages between "
                     "processes sharing its memory, not of the network (give a run across two "
                     "nodes to calibrate the network)")
    contributions = got.contributions if chosen is None else tuple(
        replace(c, role="unused", rows=0, said="a ping-pong apart from the one the law is "
                "fitted to (see the notes)") if c.role == "law" and c.path != chosen.source
        else c for c in got.contributions)
    if chosen is not None:   # the tables left out of the law used none of their rows
        records = tuple(replace(r, rows_used=0) if r.rows_used and r.path != chosen.source
                        else r for r in records)
    said = _pattern_said(data)
    if said or (spec is not None and spec.notes):
        selection = Selection(selection.best, selection.candidates, selection.reason,
                              selection.notes + (spec.notes if spec else ()) + said)
    name = name or default_name(paths, None, model)
    profile = from_selection(name, selection, records, provenance)
    if got.node is not None:
        profile = replace(profile, node=got.node)
    if got.collectives:
        profile = replace(profile, collectives=got.collectives)
    profile = _mark_assumed(profile, spec)
    if layout is not None and layout.as_dict():   # --nodes-in-name: said by each collective
        profile = replace(profile, notes=(*profile.notes, f"rank layout: {layout.said()}"),
                          layout=layout.as_dict())
    notes += _beyond_any_link(profile, data)
    fabric = None
    cols = columns(shared)   # the sharing columns, read once for the checks below
    if box is not None and not varies(shared, cols) and (spec is None or spec.fabric is None):
        raise InputError("--box describes the boxes Exchange rings are placed on, but no input "
                         "varies its process count", fix="give Exchange tables of several "
                         "process counts (--benchmark Exchange), or drop --box")
    if not varies(shared, cols) and (spec is None or spec.fabric is None) and any(
            c.role == "fabric" for c in contributions):
        contributions = tuple(replace(c, role="unused", rows=0, said=_ONE_STREAM)
                              if c.role == "fabric" else c for c in contributions)
        notes.append(f"fabric: not fitted: {_ONE_STREAM}")
    if (spec is not None and spec.fabric is not None) or varies(shared, cols):
        _networks(shared, cols, got.fabric_tables)
        fabric = _fit_fabric(shared, cols, spec, topology, box)
        fabric = replace(fabric, fabric=_host_from_law(fabric.fabric, profile, data))
        if got.inside and fabric.fabric.box == 1:
            from perfmodel.network.fabric_beside import with_inside

            inner, link = with_inside(fabric.fabric, got.inside, got.box or 1)
            fabric = replace(fabric, fabric=inner)
            notes.append(link)
        elif got.inside:
            notes.append(f"the link inside a node comes from the fabric's own boxes "
                         f"({fabric.fabric.box} processes each): the streams inside one "
                         "node are not used")
        profile = replace(profile, fabric=fabric.fabric)
        notes.append(f"fabric: {fabric.fabric.topology}, {fabric.n} rows, median |rel. error| "
                     f"{fabric.fabric.fit.get('median_rel_err', float('nan')):.1%}"
                     if fabric.n else f"fabric: {fabric.fabric.topology}, as specified")
    return Calibration(selection, data, profile, tuple(notes), fabric, contributions)


_ONE_STREAM = ("every stream table is one stream alone (one pair, its own NIC): how streams "
               "share a link needs tables where they do (osu_mbw_mr or IMB Uniband at several "
               "pairs, a fan-in)")


def _law(data: Measurements, tables: Sequence[Measurements], model: str,
         fixed: Mapping[str, float], sources: Mapping[str, str], repeats: bool = False,
         share: float = 0.05, machines: float = 0.5
         ) -> tuple[Selection, Measurements, list[str], Measurements | None]:
    """The point-to-point law of the ping-pong rows (or of one benchmark asked for by name,
    at one process count): fitted to every table together, unless
    a table's times sit apart from the others' at the same sizes by more than ``share``
    (median: another benchmark's way of timing, another run) and the user did not say they
    are ``repeats`` of one configuration (then they are pooled, however far apart, and their
    median rules inside the sizes); then
    the law is fitted to one
    table alone, the one of most distinct sizes (then of least median error), the others
    named with how far apart they sit (beyond ``machines``, as far as two machines' can be:
    on one alaska partition OSU and IMB sit 3-55 % apart, across partitions 17-591 %, so this
    cannot tell machines apart, and says so).  Returns the selection, its rows, the notes, and
    the table chosen (None: all of them)."""
    selection = fit(data, model, fixed, sources)
    alike = len({(t.benchmark, tuple(t.counts("processes"))) for t in tables}) == 1
    kind = "ping-pong" if all(t.pattern in POINT_TO_POINT for t in tables) else \
        tables[0].benchmark
    if len(tables) < 2 or (any(t.pattern not in POINT_TO_POINT for t in tables) and not alike):
        return selection, data, [], None   # rings of several sizes …: as the caller chose
    offsets = _apart(tables)
    if max(abs(o) for o in offsets) <= share:
        return selection, data, [], None
    if repeats:
        spread = math.expm1(max(offsets) - min(offsets))
        return selection, data, [
            f"the {len(tables)} ping-pong tables, repeats of one configuration (--repeats), "
            f"sit up to {spread:.0%} apart at the same sizes: the law is fitted to all of them, "
            "and inside its sizes the profile follows their median at each"], None
    said = "; ".join(f"{t.source} {math.expm1(o):+.0%}" for t, o in zip(tables, offsets,
                                                                         strict=True))
    spread = math.expm1(max(offsets) - min(offsets))
    machines_said = " (as far apart as two machines' can be: if they are, give each its own " \
        "profile)" if spread > machines else ""
    where = {id(t): placement(t.source) for t in tables}
    tiers = [[t for t in tables if where[id(t)] == said_w] for said_w in ("across", None, "inside")]
    named = any(w is not None for w in where.values())
    alone: list[tuple[Selection, Measurements]] = []
    too_few: list[Measurements] = []
    for tier in tiers if named else [list(tables)]:
        if alone:
            break
        if tier is tiers[2] and too_few:
            first = too_few[0]
            raise InputError(
                f"{first.distinct_sizes} sizes, too few for this law alone, and the ping-pong "
                "tables it disagrees with are named as run inside one node, whose law is no "
                "network's" + (f" (and {len(too_few) - 1} more such table"
                               f"{'s' if len(too_few) > 2 else ''})" if len(too_few) > 1
                               else ""),
                file=first.source, fix="give --model hockney (two sizes fix it), or leave out "
                                        "the files run inside one node")
        for t in tier:
            try:
                check_enough(t, minimum=_free_count(model, fixed))
                alone.append((fit(t, model, fixed, sources), t))
            except PerfModelError:
                too_few.append(t)
    if not alone:
        return selection, data, [], None
    best, table = min(alone, key=lambda x: (-len(np.unique(x[1].size)),
                                            x[0].best.median_rel_err))
    chosen = where[id(table)]
    why = ("the one of most sizes" if not named else
           ("the one its name says ran across nodes" if len(tiers[0]) == 1 else
            "of those named as run across nodes, the one of most sizes")
           if chosen == "across" else
           "of those not named as run inside one node, the one of most sizes"
           if chosen is None else
           "of those named as run inside one node (no other could be fitted), the one of "
           "most sizes")
    passed = [t.source for t in too_few if where[id(t)] != "inside"]
    if passed:
        why += (f"; {', '.join(passed)} {'has' if len(passed) == 1 else 'have'} too few "
                "sizes for this law alone (give --model hockney for a two-size table)")
    inside = [t.source for t in tiers[2]]
    if inside and chosen != "inside":
        why += (f"; {', '.join(inside)} {'is' if len(inside) == 1 else 'are'} named as run "
                "inside one node, where messages never reach the network")
    return best, table, [
        f"the {kind} tables disagree: median time against the others at the same sizes, "
        f"{said}{machines_said}; the law is fitted to {table.source} alone, {why} (median "
        f"|rel. error| {best.best.median_rel_err:.1%}; give one file to choose another, or "
        f"--repeats if they are runs of one configuration)"], table


def _networks(shared: Measurements, cols: Mapping[str, np.ndarray],
              tables: Sequence[Measurements], least: float = 65536.0,
              apart: float = 2.0) -> None:
    """Refuse stream tables of two networks: at the same pairs, streams per NIC and size
    (from ``least`` bytes up, where a network's bandwidth shows), bandwidths whose largest
    and smallest are ``apart`` times or more apart, in the median over those sizes.  (On one
    alaska partition repeated jobs sit 1.0-1.6 times apart, median 1.0; EDR against 25 GbE
    RoCE about 4 times.)  ``tables``: the tables ``shared`` joins, in order (its ``table``
    column); ``cols`` its :func:`~perfmodel.network.fabric_fit.columns`."""
    keep = (cols["exchange"] == 0) & (cols["fanin"] == 0) & (cols["size"] >= least)
    if not np.any(keep):
        return
    rate = (cols["size"] * cols["pairs"] / cols["time"])[keep]
    group = np.stack([cols[k][keep] for k in ("size", "pairs", "per_nic", "channels", "both")],
                     axis=1)
    _, at = np.unique(group, axis=0, return_inverse=True)
    at = at.ravel()
    high = np.full(at.max() + 1, -np.inf)
    low = np.full(at.max() + 1, np.inf)
    np.maximum.at(high, at, rate)
    np.minimum.at(low, at, rate)
    seen = np.bincount(at) > 1
    if not np.any(seen):
        return
    ratio = float(np.median(high[seen] / low[seen]))
    if ratio >= apart:
        typical = np.abs(np.log(high[seen] / low[seen] / ratio))   # an example of the median
        i = int(np.flatnonzero(seen)[np.argmin(typical)])
        rows = np.flatnonzero(keep)[at == i]
        lo, hi = rows[np.argmin(rate[at == i])], rows[np.argmax(rate[at == i])]

        def where(row: int) -> str:
            t = int(shared.extra["table"][row]) if "table" in shared.extra else -1
            name = tables[t].source if 0 <= t < len(tables) else shared.source
            return f"{name} line {shared.line[row]}"

        raise InputError(f"stream tables of the same pairs and sizes reach bandwidths "
                         f"{ratio:.1f} times apart (median over {int(seen.sum())} sizes; e.g. "
                         f"{format_rate(float(rate[at == i].min()))} against "
                         f"{format_rate(float(rate[at == i].max()))} at "
                         f"{format_size(float(cols['size'][lo]))}: {where(lo)} and "
                         f"{where(hi)}): they look like two networks",
                         fix="calibrate each network's outputs on their own (one folder per "
                             "partition)")


def _apart(tables: Sequence[Measurements]) -> list[float]:
    """For each table, the median log ratio of its times to the mean of the other tables' at
    the sizes it shares with them (0 where it shares none): one pass over every row."""
    sizes = np.concatenate([t.size for t in tables])
    keys, at = np.unique(sizes, return_inverse=True)
    owner = np.concatenate([np.full(len(t), i) for i, t in enumerate(tables)])
    logs = np.log(np.concatenate([t.time for t in tables]))
    # each table's mean log time per size, then every table's sum and count per size
    pair = owner * len(keys) + at
    cells, where = np.unique(pair, return_inverse=True)
    mean = np.bincount(where, logs) / np.bincount(where)
    cell_size = cells % len(keys)
    total = np.bincount(cell_size, mean, len(keys))
    count = np.bincount(cell_size, minlength=len(keys))
    shared = count[cell_size] > 1
    with np.errstate(invalid="ignore", divide="ignore"):
        others = (total[cell_size] - mean) / (count[cell_size] - 1)
    owners = (cells // len(keys))[shared]
    med = group_median((mean - others)[shared], owners, len(tables))
    return [0.0 if not math.isfinite(v) else float(v) for v in med]


def _host_from_law(fab: Fabric, profile: Profile, data: Measurements) -> Fabric:
    """A fabric whose time per message off the wire was left at its default 0 takes it from
    the measured point-to-point law instead: the law's one-way time at the smallest size
    measured, less that message's time on the fabric's wire (never below 0), marked derived.
    The fabric has no latency of its own, so this is the network's latency and both hosts'
    overheads together (LogGP's L + 2o), what its one-message time needs to meet the law."""
    est = fab.estimate("overhead")
    if est.status != "assumed" or not est.source.startswith("default:") or not len(data):
        return fab
    m = float(np.min(data.size))
    law = float(profile.network.law(np.array([m]))[0])
    wire = float(wire_seconds(fab.values, np.array([m]), np.array([1.0]))[0])
    value = max(law - wire, 0.0)
    source = (f"the point-to-point law's one-way time at {format_size(m)} "
              f"({format_time(law)}), less its {format_time(wire)} on the wire: all of a "
              "message's time off the wire, latency and both hosts' overheads (L + 2o)")
    params = tuple(replace(p, value=value, status="derived", source=source)
                   if p.name == "overhead" else p for p in fab.params)
    return replace(fab, params=params)


def _fit_fabric(shared: Measurements, cols: Mapping[str, np.ndarray], spec: NetworkSpec | None,
                topology: str | None, box: int | None = None) -> FabricFit:
    """The fabric the spec describes, or the better by BIC of a shared and a switched one
    (``cols``: the :func:`~perfmodel.network.fabric_fit.columns` of ``shared``)."""
    fs = spec.fabric if spec is not None else None
    if fs is not None:
        if topology not in (None, fs.topology):
            raise InputError(f"the spec describes a {fs.topology} fabric, not {topology}",
                             file=spec.path if spec else None, fix="drop --topology")
        if not varies(shared, cols):
            return specified_fabric(fs, spec.path if spec else "")
        return fit_fabric(shared, fs.topology, channels=fs.channels, box=fs.box, fixed=fs.fixed,
                          sources=fs.sources, assumed=fs.assumed)
    choices = [topology] if topology else topologies(cols)
    fits = [fit_fabric(shared, t, box=box or 1) for t in choices]
    return min(fits, key=lambda f: f.bic)


def _mark_assumed(profile: Profile, spec: NetworkSpec | None) -> Profile:
    """The spec's held parameters that it marks as assumptions, so marked in the profile;
    and the spec's node, if it describes one."""
    if spec is not None and spec.node is not None:
        profile = replace(profile, node=specified_node(
            spec.node.fixed, spec.node.sources, spec.node.assumed, spec.path,
            memory_only="flop_rate" not in spec.node.fixed))
    if spec is None or not spec.assumed:
        return profile
    net = profile.network
    params = tuple(replace(p, status="assumed") if p.name in spec.assumed else p
                   for p in net.params)
    return replace(profile, network=replace(net, params=params))


def _free_count(model: str, fixed: Mapping[str, float]) -> int:
    """Distinct sizes a fit needs: one per free parameter (exactly determined is allowed, and
    said); ``auto`` two (Hockney's law alone; the laws are compared from three up)."""
    if model == registry.AUTO:
        return 2
    return registry.spec(model).needs(fixed)


def _from_spec_only(model: str, fixed: dict[str, float], sources: dict[str, str],
                    spec: NetworkSpec | None, name: str | None,
                    provenance: dict[str, str]) -> Calibration:
    if model == registry.AUTO:
        raise InputError("no measurements given", fix="give measurement files, or --spec FILE")
    params = registry.spec(model).params
    missing = [p.name for p in params if p.name not in fixed]
    if missing:
        raise InputError(f"no measurements given, and {', '.join(missing)} not specified",
                         fix="give measurement files to fit them, or specify them")
    estimates = tuple(Estimate(p.name, fixed[p.name], float("nan"), p.unit, "fixed",
                               sources.get(p.name, "")) for p in params)
    net = NetworkModel(model, estimates, np.zeros((0, 0)), float("nan"), 0, (0.0, float("inf")))
    data = Measurements("", np.zeros(0), np.zeros(0), ())
    result = FitResult(net, data, np.zeros(0), 0, 0.0)
    notes = ("a specification, not a fit: every parameter is given, none measured here",)
    selection = Selection(result, (result,), f"{model} as specified",
                          notes + (spec.notes if spec else ()))
    label = name or default_name((), spec.path if spec else None, model)
    profile = _mark_assumed(from_selection(label, selection, (), provenance), spec)
    fabric = None
    if spec is not None and spec.fabric is not None:
        fabric = specified_fabric(spec.fabric, spec.path)
        profile = replace(profile, fabric=fabric.fabric)
    return Calibration(selection, data, profile, (), fabric)
