"""How a run of an application model gets its constants, as ``predict``, ``whatif``, ``plan``
and reports all ask for them: from a saved fit, fitted to timings (``--fit`` with ``--where``
labels), or given (``--set NAME=VALUE``); and the problem size to predict at."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from perfmodel.apps.fit import AppFit
from perfmodel.apps.model import AppModel
from perfmodel.errors import FitError, InputError
from perfmodel.machine import Machine
from perfmodel.params import assignments


def constants(model: AppModel, on: Machine | None, timings: Path | None,
              where: Sequence[str] | None, set_values: Sequence[str] | None,
              saved: Path | None, size: float | None, weak: bool
              ) -> tuple[AppFit, float | None]:
    """The model's constants: from a saved fit, fitted to timings, or given (``--set``); and
    the size to predict at (the timing rows' one size when ``--size`` is absent)."""
    if saved is not None and (timings is not None or set_values):
        raise InputError("--from gives every constant", fix="drop --fit and --set, or --from")
    if size is not None and not (math.isfinite(size) and size > 0):
        raise InputError(f"--size {size:g} is not a positive size", fix="e.g. --size 16")
    given = parse_given(set_values, model)
    from perfmodel.apps.fit import fit_app, given_fit, timing_inputs

    if saved is not None:
        from perfmodel.apps.saved import load as load_fit

        return load_fit(saved, model, on), size
    if timings is None:
        return given_fit(model, given, on), size
    from perfmodel.apps.timings import read_timings

    rows = read_timings(timings)
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
    times, sizes = timing_inputs(model, rows, given)
    try:
        fit = fit_app(model, rows.processes, times, rows.parts, given, machine=on, sizes=sizes)
    except FitError as exc:   # the timings are what cannot determine the model: name them
        raise exc.at(timings) from None
    if sizes is not None and size is None and not weak and min(sizes) == max(sizes):
        size = sizes[0]   # the one size every timing row has (elsewhere: flagged, not moved)
    return fit, size


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
