"""calibrate: measurement files (and specs) in, a fitted machine profile out.

Reads each input, keeps its single-stream point-to-point rows, fits the requested model (or
chooses one by BIC), and packages the result with its provenance.  Writing the profile is the
caller's job (:func:`perfmodel.io.write_atomic` with :func:`perfmodel.machine.profile.dumps`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from perfmodel.errors import InputError
from perfmodel.inputs import Contribution, expand, node_from
from perfmodel.layout import Layout, place
from perfmodel.machine.profile import InputRecord, Profile, from_selection
from perfmodel.measurements import (
    MAX_LINK_BANDWIDTH,
    PATTERNS,
    POINT_TO_POINT,
    Measurements,
    check_physical,
    concat,
)
from perfmodel.network import models as registry
from perfmodel.network.fabric import TOPOLOGIES, Fabric, wire_seconds
from perfmodel.network.fabric_fit import FabricFit, fit_fabric, specified_fabric, varies
from perfmodel.network.fit import (
    Estimate,
    FitResult,
    NetworkModel,
    Selection,
    check_enough,
    fit,
)
from perfmodel.network.spec import NetworkSpec
from perfmodel.node import Node
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
        derived quantities, the fit, the selection, every point, the inputs, the fabric, and
        ``path``, where the profile was written (None: not written)."""
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
        bandwidth = sizes / profile.network.time(sizes)
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


def _points_key(tables: Sequence[Measurements]) -> str:
    """What a file measured, as one digest of every table's sizes, times and counts: a copy
    whose comments, spacing or line ends differ has the same key."""
    import hashlib

    h = hashlib.sha256()
    for t in tables:
        h.update(t.label.encode())
        for column in (t.size, t.time, *(t.concurrency[k] for k in sorted(t.concurrency))):
            h.update(np.ascontiguousarray(column, dtype=float).tobytes())
    return h.hexdigest()


class Gathered(NamedTuple):
    """What the inputs hold: the point-to-point rows, the records and notes, every fabric
    row with its sharing columns, each table's contribution, and the node they give."""

    data: Measurements
    records: tuple[InputRecord, ...]
    notes: list[str]
    shared: Measurements
    contributions: tuple[Contribution, ...] = ()
    node: Node | None = None
    law_tables: tuple[Measurements, ...] = ()


_STREAMS = ("stream",)
"""Patterns whose multi-pair tables inform the fabric's NIC sharing (placed by a layout)."""


def gather(paths: Sequence[str | Path], benchmark: str | None = None,
           layout: Layout | None = None) -> Gathered:
    """Read every input (a directory: every file under it) and sort its tables: the first
    ping-pong of each file for the point-to-point law (or the ``benchmark`` named), stream
    tables placed across nodes by ``layout`` for the fabric, HPL and STREAM for the node; every
    other table listed with the reason it informs nothing."""
    from perfmodel.readers import read

    layout = layout or Layout()
    used: list[Measurements] = []
    whole: list[Measurements] = []
    streams_whole: list[Measurements] = []
    node_tables: list[Measurements] = []
    records: list[InputRecord] = []
    notes: list[str] = []
    said: list[Contribution] = []
    streams: list[str | Path] = []   # the fan-in files
    seen: dict[str, str | Path] = {}
    lone: tuple[Path, tuple[Measurements, ...]] | None = None
    for path, walked in expand(paths):
        try:
            tables = read(path)
        except InputError as e:
            if not walked:
                raise
            said.append(Contribution(str(path), "", "skipped", 0,
                                     e.what.split(" (tried ")[0] +
                                     (f" (line {e.line})" if e.line and e.line > 1 else "")))
            continue
        key = _points_key(tables)
        if tables and key in seen:
            first = seen[key]
            same = ("the same file as" if Path(path).resolve() == Path(first).resolve() else
                    "the same content as" if tables[0].sha256 == read(first)[0].sha256 else
                    f"the same {sum(len(t) for t in tables)} points as")
            raise InputError(f"is {same} {first}: every point would count twice", file=path,
                             fix="give each measurement once (a copy with other comments or "
                                 "spacing is the same measurement)")
        seen[key] = path
        if benchmark is None and not any(t.pattern == "pingpong" or t.is_fanin for t in tables):
            for t in tables:
                said.append(_other(t, path, layout, streams_whole, node_tables))
            lone = (path, tables)
            continue
        table = choose(tables, str(path), benchmark)
        if benchmark is None:
            for t in tables:
                if t is not table:
                    said.append(_other(t, path, layout, streams_whole, node_tables))
        if table.pattern in ("application", "memory"):
            what = "whole runs" if table.pattern == "application" else "a memory kernel"
            raise InputError(f"{table.label} times {what}, not messages", file=path,
                             fix="calibrate a network on ping-pong data (--benchmark NAME "
                             "picks another table)")
        checked = check_physical(table)
        notes.append(f"{path}: used {_described(table)}"
                     + (f" (of {len(tables)} tables)" if len(tables) > 1 else ""))
        single = table.single_stream()
        if table.is_fanin:   # a fan-in's one-sender rows are one stream, not a ping-pong
            notes.append(f"{path}: a fan-in: its {len(single)} one-sender rows are streams, "
                         "not ping-pongs, so they inform only the fabric")
            single = single.take(np.zeros(len(single), dtype=bool))
            streams.append(path)
        elif len(single) == 0:
            busy = ", ".join(f"{k} = {','.join(map(str, table.counts(k)))}"
                             for k in ("pairs", "senders") if table.counts(k))
            raise InputError(f"{table.benchmark} has no single-stream rows ({busy})", file=path,
                             fix="calibrate point-to-point models on a plain ping-pong "
                             "(pairs = 1, senders = 1)")
        if 0 < len(single) < len(table):
            notes.append(f"{path}: {len(single)} of {len(table)} rows used (one pair, one "
                         "sender, fewest channels)")
        channels = single.concurrency.get("channels")
        if channels is not None and channels.min() > 1:
            notes.append(f"{path}: every row uses {int(channels.min())} channels, so the model "
                         "describes the bonded link, not one channel")
        notes += [f"{path}: {n}" for n in (*table.notes, *checked)]
        if used and len(single) and table.pattern != used[0].pattern:
            raise InputError(f"{table.label} is a {table.pattern} benchmark, but "
                             f"{used[0].source} holds a {used[0].pattern} one", file=path,
                             fix="calibrate one kind of measurement at a time")
        if len(single):
            used.append(single)
        whole.append(table)
        said.append(Contribution(str(path), table.label, "law" if len(single) else "fabric",
                                 len(single) or len(table), "the point-to-point law" if
                                 len(single) else "the fabric (fan-in streams)"))
        tool = f"{table.format} {table.version}".strip()
        records.append(InputRecord(str(path), table.sha256, tool, table.label,
                                   table.quantity, len(table), len(single), table.comments,
                                   table.pattern))
    if not used:
        if streams:
            raise InputError("no ping-pong rows: a fan-in's one-sender rows are streams",
                             file=streams[0], fix="give a ping-pong file beside it (perfmodel "
                             "measure --pattern pingpong, osu_latency …)")
        if lone is not None and len(seen) == 1:   # one file: why it cannot be fitted alone
            choose(lone[1], str(lone[0]), benchmark)
        raise InputError("no ping-pong table among the inputs: the point-to-point law needs "
                         "one", fix="add an osu_latency, IMB PingPong or NetPIPE output")
    if streams_whole:
        if any(t.is_fanin or np.any(t.concurrency.get("pairs", np.ones(1)) > 1) for t in whole):
            notes.append("fabric: the stream tables are fitted; the ping-pong and fan-in "
                         "tables' sharing rows are left to the point-to-point law")
        whole = streams_whole
        for t in streams_whole:
            records.append(InputRecord(t.source, t.sha256, f"{t.format} {t.version}".strip(),
                                       t.label, t.quantity, len(t), 0, t.comments, t.pattern))
    node, node_notes = node_from(node_tables)
    for t in node_tables:
        records.append(InputRecord(t.source, t.sha256, f"{t.format} {t.version}".strip(),
                                   t.label, t.quantity, len(t), 0, t.comments, t.pattern))
    return Gathered(concat(used), tuple(records), notes + node_notes, _with_counts(whole),
                    tuple(said), node, tuple(used))


def _other(table: Measurements, path: str | Path, layout: Layout,
           streams: list[Measurements], node: list[Measurements]) -> Contribution:
    """What a table other than a file's ping-pong informs: a stream placed across nodes the
    fabric (appended to ``streams`` with its streams per NIC), HPL and STREAM the node (to
    ``node``); anything else nothing, with the reason."""
    def out(role: str, why: str, rows: int = 0) -> Contribution:
        return Contribution(str(path), table.label, role, rows, why)

    if table.format == "hpl" and "flop_rate" in table.extra:
        node.append(table)
        return out("node", "the node's flop rate (HPL)", len(table))
    if table.pattern == "memory":
        if table.benchmark.lower() != "triad":
            return out("unused", "STREAM: the node's memory rates come from Triad")
        node.append(table)
        return out("node", "the node's memory bandwidth (STREAM Triad)", len(table))
    if table.pattern == "pingpong":
        return out("unused", "another ping-pong of this file: the first is fitted")
    if table.pattern not in _STREAMS:
        why = {"bidirectional": "traffic both ways: full-duplex sharing is not modelled yet",
               "collective": "a collective: perfmodel predicts collectives, it does not fit "
                             "them",
               "application": "times a whole run: give it to predict --fit",
               "exchange": "an Exchange ring: fit it with --benchmark Exchange"}
        return out("unused", why.get(table.pattern, "timed as the benchmark defines it: not "
                                                    "fitted"))
    procs = table.counts("processes")
    if len(procs) != 1:
        return out("unused", "rows of several process counts: cannot be placed")
    job = procs[0] + int(table.attrs.get("waiting processes", "0") or 0)
    where = place(procs[0], job, layout)
    if where.where != "across":
        fix = " (give --ranks-per-node N or --nodes-per-job N)" if where.where == "unknown" else ""
        return out("unused", f"{where.describe()}{fix}")
    rows = table.take(table.size > 0)   # an empty message has no bandwidth to share
    streams.append(replace(rows, extra={**rows.extra,
                                        "per_nic": np.full(len(rows), float(where.per_nic))}))
    return out("fabric", f"the fabric: {where.pairs} pair{'s' if where.pairs > 1 else ''} "
                         f"{where.describe()}", len(rows))


def _with_counts(tables: Sequence[Measurements]) -> Measurements:
    """Tables joined with all four sharing columns, 1 where a table has none, ``fanin`` (1 for
    the rows of a table with several senders, whose one-sender rows are streams) and
    ``exchange`` (1 for the rows of an Exchange ring)."""
    counts = {k: np.concatenate([t.concurrency.get(k, np.ones(len(t))) for t in tables])
              for k in ("pairs", "channels", "senders", "processes")}
    fanin = np.concatenate([np.full(len(t), float(t.is_fanin)) for t in tables])
    ring = np.concatenate([np.full(len(t), float(t.pattern == "exchange")) for t in tables])
    per_nic = np.concatenate([t.extra.get("per_nic", np.ones(len(t))) for t in tables])
    placement = tuple(x for t in tables for x in (t.placement or ("block",) * len(t)))
    return replace(concat(tables), concurrency=counts, placement=placement,
                   extra={"fanin": fanin, "exchange": ring, "per_nic": per_nic})


def _pattern_said(data: Measurements) -> tuple[str, ...]:
    """What a profile fitted to anything but a ping-pong must say about its latency."""
    if data.pattern in POINT_TO_POINT:
        return ()
    return (f"{data.benchmark} is not a ping-pong: its times are {PATTERNS[data.pattern]}, "
            "and the fitted latency describes that",)


def _described(table: Measurements) -> str:
    """``imb 2021.11 PingPong (2 processes), 22 rows, lines 40–61``."""
    tool = f"{table.format} {table.version}".strip()
    lines = f"line {table.line[0]}" if len(table) == 1 else \
        f"lines {table.line[0]}–{table.line[-1]}"
    return f"{tool} {table.label}, {len(table)} row{'s' if len(table) != 1 else ''}, {lines}"


def calibrate(paths: Sequence[str | Path], *, model: str = "auto",
              fixed: Mapping[str, float] | None = None, spec: NetworkSpec | None = None,
              name: str | None = None, command: str = "",
              benchmark: str | None = None, topology: str | None = None,
              box: int | None = None, layout: Layout | None = None) -> Calibration:
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
    selection = fit(data, model, fixed, sources)
    said = _pattern_said(data)
    if said or (spec is not None and spec.notes):
        selection = Selection(selection.best, selection.candidates, selection.reason,
                              selection.notes + (spec.notes if spec else ()) + said)
    name = name or default_name(paths, None, model)
    profile = from_selection(name, selection, records, provenance)
    if got.node is not None:
        profile = replace(profile, node=got.node)
    profile = _mark_assumed(profile, spec)
    if layout is not None and (layout.ranks_per_node or layout.nodes):
        profile = replace(profile, notes=(*profile.notes, f"rank layout: {layout.said()}"))
    notes += _beyond_any_link(profile, data) + _disagree(profile, got.law_tables)
    fabric = None
    if box is not None and not varies(shared) and (spec is None or spec.fabric is None):
        raise InputError("--box describes the boxes Exchange rings are placed on, but no input "
                         "varies its process count", fix="give Exchange tables of several "
                         "process counts (--benchmark Exchange), or drop --box")
    if (spec is not None and spec.fabric is not None) or varies(shared):
        fabric = _fit_fabric(shared, spec, topology, box)
        fabric = replace(fabric, fabric=_host_from_law(fabric.fabric, profile, data))
        profile = replace(profile, fabric=fabric.fabric)
        notes.append(f"fabric: {fabric.fabric.topology}, {fabric.n} rows, median |rel. error| "
                     f"{fabric.fabric.fit.get('median_rel_err', float('nan')):.1%}"
                     if fabric.n else f"fabric: {fabric.fabric.topology}, as specified")
    return Calibration(selection, data, profile, tuple(notes), fabric, got.contributions)


def _disagree(profile: Profile, tables: Sequence[Measurements],
              share: float = 0.05) -> list[str]:
    """A note when the ping-pong tables fitted together sit apart from their joint law: each
    table's median log ratio to it, when one passes ``share`` (another benchmark's way of
    timing, another run, or another machine)."""
    if len(tables) < 2:
        return []
    offsets = []
    for t in tables:
        with np.errstate(all="ignore"):
            r = np.log(t.time / profile.network.time(t.size))
        r = r[np.isfinite(r)]
        offsets.append(float(np.median(r)) if r.size else 0.0)
    if max(abs(o) for o in offsets) <= share:
        return []
    said = "; ".join(f"{t.source} {math.expm1(o):+.0%}" for t, o in zip(tables, offsets,
                                                                         strict=True))
    spread = math.expm1(max(offsets) - min(offsets))
    machines = " (so far apart they may be different machines, which belong in different " \
        "profiles)" if spread > 0.5 else ""
    return [f"the ping-pong tables disagree: median time against their joint law, {said}"
            f"{machines}; the law is fitted to all of them (give one to fit it alone)"]


def _host_from_law(fab: Fabric, profile: Profile, data: Measurements) -> Fabric:
    """A fabric whose host time per message was left at its default 0 takes it from the
    measured point-to-point law instead: the law's one-way time at the smallest size
    measured, less that message's time on the fabric's wire (never below 0), marked derived.
    """
    est = fab.estimate("overhead")
    if est.status != "assumed" or not est.source.startswith("default:") or not len(data):
        return fab
    m = float(np.min(data.size))
    law = float(profile.network.time(np.array([m]))[0])
    wire = float(wire_seconds(fab.values, np.array([m]), np.array([1.0]))[0])
    value = max(law - wire, 0.0)
    source = (f"the point-to-point law's one-way time at {format_size(m)} "
              f"({format_time(law)}), less its {format_time(wire)} on the wire: the hosts' "
              "share of a message")
    params = tuple(replace(p, value=value, status="derived", source=source)
                   if p.name == "overhead" else p for p in fab.params)
    return replace(fab, params=params)


def _fit_fabric(shared: Measurements, spec: NetworkSpec | None,
                topology: str | None, box: int | None = None) -> FabricFit:
    """The fabric the spec describes, or the better by BIC of a shared and a switched one."""
    fs = spec.fabric if spec is not None else None
    if fs is not None:
        if topology not in (None, fs.topology):
            raise InputError(f"the spec describes a {fs.topology} fabric, not {topology}",
                             file=spec.path if spec else None, fix="drop --topology")
        if not varies(shared):
            return specified_fabric(fs, spec.path if spec else "")
        return fit_fabric(shared, fs.topology, channels=fs.channels, box=fs.box, fixed=fs.fixed,
                          sources=fs.sources, assumed=fs.assumed)
    choices = [topology] if topology else list(TOPOLOGIES)
    fits = [fit_fabric(shared, t, box=box or 1) for t in choices]
    return min(fits, key=lambda f: f.bic)


def _mark_assumed(profile: Profile, spec: NetworkSpec | None) -> Profile:
    """The spec's held parameters that it marks as assumptions, so marked in the profile;
    and the spec's node, if it describes one."""
    if spec is not None and spec.node is not None:
        profile = replace(profile, node=specified_node(spec.node.fixed, spec.node.sources,
                                                       spec.node.assumed, spec.path))
    if spec is None or not spec.assumed:
        return profile
    net = profile.network
    params = tuple(replace(p, status="assumed") if p.name in spec.assumed else p
                   for p in net.params)
    return replace(profile, network=replace(net, params=params))


def _free_count(model: str, fixed: Mapping[str, float]) -> int:
    """Distinct sizes a fit needs: one per free parameter (exactly determined is allowed, and
    said); ``auto`` compares models, which needs residuals, so three."""
    if model == registry.AUTO:
        return 3
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


def choose(tables: tuple[Measurements, ...], source: str,
           benchmark: str | None = None) -> Measurements:
    """The table a point-to-point calibration uses.

    With ``benchmark``, the table of that name (case-insensitive; ``osu_`` prefix allowed),
    or failing that of that pattern; ``NAME@P`` picks the block at P processes.  Without it,
    the first ping-pong table, else the first fan-in (for the fabric; ``calibrate`` keeps its
    streams out of the point-to-point fit): any other kind of table is fitted only when asked
    for by name.
    """
    def listing() -> str:
        return ", ".join(dict.fromkeys(f"{t.benchmark}@{p}" if len(
            [u for u in tables if u.benchmark == t.benchmark]) > 1 and (p := _procs(t))
            else t.benchmark for t in tables))

    if benchmark is None:
        ping = [t for t in tables if t.pattern in POINT_TO_POINT] or \
            [t for t in tables if t.is_fanin]
        if ping:
            return ping[0]
        if len(tables) == 1:
            only = tables[0]
            if only.pattern in ("application", "memory"):
                raise InputError(f"holds {only.label}: {PATTERNS[only.pattern]}, not messages",
                                 file=source, fix="calibrate a network on ping-pong data")
            raise InputError(f"holds {only.label}: {PATTERNS[only.pattern]}, not a ping-pong",
                             file=source, fix=f"fit it anyway with --benchmark {only.benchmark}")
        raise InputError(f"holds {len(tables)} benchmarks and no ping-pong", file=source,
                         fix=f"choose one with --benchmark: {listing()}")
    name, _, at = benchmark.partition("@")
    want = name.strip().lower().removeprefix("osu_")
    found = [t for t in tables if t.benchmark.lower() == want] or \
        [t for t in tables if t.pattern == want]
    if at:
        procs = int(at) if re.fullmatch(r"[0-9]{1,9}", at.strip()) else -1
        found = [t for t in found if _procs(t) == procs]
    found = found or [t for t in tables if t.is_fanin]   # a fan-in serves any fabric fit
    if not found:
        raise InputError(f"has no benchmark {benchmark!r}", file=source,
                         fix=f"it holds: {listing()}")
    return found[0]


def _procs(table: Measurements) -> int | None:
    counts = table.counts("processes")
    return counts[0] if len(counts) == 1 else None
