"""``perfmodel predict``: the command's options, one call into the core, and its view."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from perfmodel.cli import options
from perfmodel.cli.common import (
    NODES,
    emit_json,
)
from perfmodel.errors import InputError

EXAMPLES = [
    "perfmodel predict physical-optics --machine calibration/beowulf-1995.toml --fit "
    "data/seeds/physical-optics.csv --where machine=beowulf --where table=1",
    "perfmodel predict ppm --machine calibration/beowulf-1995.toml --fit "
    "data/seeds/beowulf-1995-apps.csv --where code=ppm --where use=fit --nodes 1..16 "
    "--link-speed 100Mbps",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


def predict(
    app_model: options.App,
    machine: Annotated[Path | None, options.machine(
        "Machine profile that costs the model's communication.")] = None,
    nodes: Annotated[options.Counts, options.nodes(
        "Node (process) counts to predict: 1,2,4,8,16 or 1..64.")] = NODES,
    timings: options.Fit = None,
    where: options.Where = None,
    set_values: options.Set = None,
    channels: options.Channel = None,
    link_speed: options.LinkSpeed = None,
    size: options.ProblemSize = None,
    scaling_mode: options.Scaling = "strong",
    save: Annotated[Path | None, typer.Option(
        "--save", metavar="FILE", help="Write the model's constants (fitted, with their "
                                       "covariance) to this file, to predict from later with "
                                       "--from.")] = None,
    saved: options.From = None,
    level: options.Level = 0.95,
    json_out: options.Json = False,
    force: options.Force = False,
) -> None:
    """Predict time, speedup, efficiency and where the overhead goes, for every node count."""
    if saved is not None and (timings is not None or set_values):
        raise InputError("--from gives every constant", fix="drop --fit and --set, or --from")
    weak = scaling_mode == "weak"
    if save is not None:   # before any work: not after a long fit
        from perfmodel.io import check_writable

        check_writable(save, force=force, inputs=(app_model, machine, timings, saved))
    from perfmodel.apps.model_file import load as load_model
    from perfmodel.machine.profile import Profile

    model = load_model(app_model)
    on = None
    node_note = ""
    rows = None   # the timing rows, read once when the node comes from them too
    if machine is not None:
        from perfmodel.machine import require_node
        from perfmodel.machine.hardware import FABRIC_FIX, changed
        from perfmodel.machine.profile import load

        prof = load(machine)
        if model.uses_node and prof.node is None and timings is not None:
            from perfmodel.apps.run import node_from_timings, timing_rows

            rows = timing_rows(model, timings, where)
            node, node_note = node_from_timings(model, prof, rows, set_values)
            prof = replace(prof, node=node)
        on = changed(prof, channels=channels, line_rate=link_speed, path=machine,
                     fix=f"drop --channels/--link-speed, or {FABRIC_FIX}")
        if model.uses_node:
            require_node(prof, machine)
    elif channels is not None or link_speed is not None:
        raise InputError("--channels and --link-speed change a machine", fix="give --machine")
    from perfmodel.apps.metrics import scaling
    from perfmodel.apps.run import constants

    fit, size = constants(model, on, timings, where, set_values, saved, size, weak, rows)
    if node_note:
        fit = replace(fit, notes=(node_note, *fit.notes))
    result = scaling(fit, list(nodes), level, on, size, weak)
    said = []
    if on is not None:
        from perfmodel.whatif import decisive

        def rerun(other: Profile) -> str | None:
            moved = changed(other, channels=channels, line_rate=link_speed, path=machine)
            return decisive.time_moves(result.time, scaling(fit, list(nodes), level, moved,
                                                            size, weak).time, nodes,
                                       decisive.SHARE)
        said = decisive.search(prof, rerun)
    if save is not None:
        from perfmodel.apps.saved import dumps as dump_fit
        from perfmodel.io import write_atomic
        from perfmodel.provenance import stamp

        write_atomic(save, dump_fit(fit, {
            **stamp(" ".join(["perfmodel", *sys.argv[1:]])),
            "timings": str(timings) if timings is not None else "",
            "machine": str(machine) if machine is not None else ""}), force=force)
    from perfmodel.cli import predict_view

    if json_out:
        emit_json({**result.to_dict(fit, on),
                   "decisive_assumptions": [d.to_dict() for d in said]})
    else:
        predict_view.scaling(fit, result, str(machine) if machine else "", on)
        from perfmodel.cli.tables import decisive as assumption_line

        for d in said:
            assumption_line(d.sentence())
