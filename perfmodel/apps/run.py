"""How a run of an application model gets its constants, as ``predict``, ``whatif``, ``plan``
and reports all ask for them: from a saved fit, fitted to timings (``--fit`` with ``--where``
labels), or given (``--set NAME=VALUE``); and the problem size to predict at."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from perfmodel.apps.fit import AppFit
from perfmodel.apps.model import AppModel, free_params
from perfmodel.errors import FitError, InputError
from perfmodel.machine import Machine
from perfmodel.params import assignments

if TYPE_CHECKING:
    from perfmodel.apps.timings import Timings
    from perfmodel.machine.profile import Profile
    from perfmodel.node import Node


def constants(model: AppModel, on: Machine | None, timings: Path | None,
              where: Sequence[str] | None, set_values: Sequence[str] | None,
              saved: Path | None, size: float | None, weak: bool,
              rows: Timings | None = None,
              columns: dict[str, str] | None = None) -> tuple[AppFit, float | None]:
    """The model's constants: from a saved fit, fitted to timings, or given (``--set``); and
    the size to predict at (the timing rows' one size when ``--size`` is absent).  ``rows``:
    the :func:`timing_rows` of ``timings``, when the caller has read them already."""
    if saved is not None and (timings is not None or set_values):
        raise InputError("--from gives every constant", fix="drop --fit and --set, or --from")
    if columns and timings is None:
        raise InputError("--columns names the columns of --fit's timings; no --fit was given",
                         fix="give --fit TIMINGS, or drop --columns")
    if size is not None and not (math.isfinite(size) and size > 0):
        raise InputError(f"--size {size:g} is not a positive size", fix="e.g. --size 16")
    given = parse_given(set_values, model)
    from perfmodel.apps.fit import fit_app, given_fit, timing_inputs

    if saved is not None:
        from perfmodel.apps.saved import load as load_fit

        return load_fit(saved, model, on), size
    if timings is None:
        return given_fit(model, given, on), size
    rows = rows if rows is not None else timing_rows(model, timings, where, columns)
    times, sizes = timing_inputs(model, rows, given)
    try:
        fit = fit_app(model, rows.processes, times, rows.parts, given, machine=on, sizes=sizes)
    except FitError as exc:   # the timings are what cannot determine the model: name them
        raise exc.at(timings) from None
    if rows.notes:
        fit = replace(fit, notes=(*rows.notes, *fit.notes))
    if sizes is not None and size is None and not weak and min(sizes) == max(sizes):
        size = sizes[0]   # the one size every timing row has (elsewhere: flagged, not moved)
    return fit, size


def timing_rows(model: AppModel, timings: Path, where: Sequence[str] | None,
                columns: dict[str, str] | None = None) -> Timings:
    """The timing rows ``--where`` keeps, each part one the model has (``columns``: the
    file's own names of the roles, :func:`perfmodel.apps.timings.apply_columns`)."""
    from perfmodel.apps.timings import read_timings

    rows = read_timings(timings, columns)
    if where:
        rows = rows.select(**parse_where(where))
    if len(rows) == 0:
        raise InputError("no timing rows left after --where", file=timings,
                         fix="check the labels")
    known = {part.name for part in model.parts}
    odd = next((i for i, part in enumerate(rows.parts) if part and part not in known), None)
    if odd is not None:
        raise InputError(f"part {rows.parts[odd]!r}: model {model.name} has no such part",
                         file=timings, line=rows.lines[odd],
                         fix=f"its parts are {', '.join(sorted(known))} (empty: the whole run)"
                             "; or pick rows with --where")
    return rows


def node_from_timings(model: AppModel, profile: Profile, rows: Timings,
                      set_values: Sequence[str] | None) -> tuple[Node, str]:
    """A node for a profile that has none (no HPL, STREAM or HPCG was calibrated), from the
    code's own one-process runs: the flop rate at which ``model``, its constants all given,
    takes the measured time there (the median over those rows; its error from their spread).
    Memory is assumed never to limit, so the rate folds the node's memory in: an effective
    rate of this code, said in its source and in the returned note."""

    from perfmodel.apps.fit import given_fit, timing_inputs
    from perfmodel.node import specified as specified_node

    given = parse_given(set_values, model)
    free = free_params(model, list(given))
    times, sizes = timing_inputs(model, rows, given)
    one = np.flatnonzero((rows.processes == 1) & np.array([not p for p in rows.parts]))
    if not one.size:
        raise InputError("the profile has no node, and no timing row is a whole run on one "
                         "process to fit its speed to", file=rows.source,
                         fix="time the code on one node, or calibrate the node from HPL, "
                             "STREAM or HPCG output")
    n = np.array([sizes[i] for i in one] if sizes is not None else
                 [model.problem_size()] * one.size, dtype=np.float64)
    trial = {q: 1.0 for q in free}   # constants the fit will take: not yet known

    def at(rate: float, moved: str | None = None) -> NDArray[np.float64]:
        node = specified_node({"flop_rate": rate}, {"flop_rate": "trial"})
        machine = Machine(replace(profile, node=node))
        values = given_fit(model, {**given, **trial, **({moved: 1e3} if moved else {})}).values
        return np.asarray(sum(model.part_times(np.ones(one.size), values, machine, n).values(),
                              np.zeros(one.size)), dtype=np.float64)

    t1, t2 = at(1.0), at(2.0)   # the node's time is work / rate: T(r) = A/r + C
    tied = [q for q in free if not np.allclose(at(1.0, q), t1, rtol=1e-9, atol=0.0)]
    if tied:
        raise InputError(f"the profile has no node, and model {model.name}'s one-process time "
                         f"depends on constants still to fit ({', '.join(tied)}): the timings "
                         "cannot tell the node's speed from them", file=rows.source,
                         fix="calibrate the node from HPL, STREAM or HPCG output, or give "
                             "them with --set NAME=VALUE")
    work, rest = 2.0 * (t1 - t2), 2.0 * t2 - t1
    with np.errstate(all="ignore"):
        rates = work / (times[one] - rest)
    if not np.all(np.isfinite(rates) & (rates > 0)):
        j = int(np.flatnonzero(~(np.isfinite(rates) & (rates > 0)))[0])
        i = int(one[j])
        raise InputError(f"a one-process run of {times[i]:g} s is not longer than model "
                         f"{model.name}'s time off the node ({rest[j]:g} s): no node speed "
                         "explains it", file=rows.source, line=rows.lines[i],
                         fix="check the run and the model's size")
    logs = np.log(rates)
    rate = float(np.exp(np.median(logs)))
    spread = 1.4826 * float(np.median(np.abs(logs - np.median(logs)))) if one.size > 1 \
        else math.nan
    lines = ", ".join(str(rows.lines[i]) for i in one)
    source = (f"fitted: {model.name}'s own {one.size} one-process run"
              f"{'s' if one.size > 1 else ''} ({rows.source}, line{'s' if one.size > 1 else ''} "
              f"{lines}): its work over the measured time; memory assumed never to limit "
              "(the rate folds the node's memory in: an effective rate of this code)")
    node = specified_node({"flop_rate": rate}, {"flop_rate": source})
    params = tuple(replace(p, status="fitted", stderr=rate * spread * math.sqrt(
        math.pi / 2 / one.size)) if p.name == "flop_rate" else p for p in node.params)
    note = (f"node: no HPL, STREAM or HPCG in the profile; {model.name} runs at "
            f"{rate / 1e6:.4g} Mflop/s on one process (its {one.size} one-process run"
            f"{'s' if one.size > 1 else ''}), memory assumed never to limit")
    return replace(node, params=params), note


def parse_given(items: Sequence[str] | None, model: AppModel) -> dict[str, float]:
    from perfmodel.units import parse_quantity

    kinds = {"s": "time", "B": "size", "B/s": "rate"}
    units = {q.name: q.unit for q in model.params}
    out: dict[str, float] = {}
    for name, (value, item) in assignments(items, "--set", "work_II=300",
                                           thing="constant").items():
        if name not in units:
            raise InputError(f"--set {name!r}: model {model.name} has no such constant",
                             fix=f"its constants: {', '.join(units)}")
        try:
            out[name] = float(value)
        except ValueError:
            kind = kinds.get(units[name])
            if kind is None:
                raise InputError(f"--set {item!r} is not a number",
                                 fix="give a plain number") from None
            out[name] = parse_quantity(value, kind)  # type: ignore[arg-type]
        lower = next(q.lower for q in model.params if q.name == name)
        if not (math.isfinite(out[name]) and out[name] >= lower):
            raise InputError(f"--set {item!r} is not a finite number of at least {lower:g}",
                             fix="give a physical value")
    return out


def parse_where(items: Sequence[str]) -> dict[str, str]:
    """``--where LABEL=VALUE`` items: each label once (an empty value allowed)."""
    return {k: v for k, (v, _) in assignments(items, "--where", "machine=t3d", "LABEL=VALUE",
                                              "label", empty=True).items()}
