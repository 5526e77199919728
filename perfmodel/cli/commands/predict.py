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
    "perfmodel predict --fit data/alaska-apps/ib-gcc9-openmpi4-ucx/cp2k --where "
    "figure=cp2k_time --machine calibration/alaska-edr.toml --on calibration/alaska-roce.toml",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


def predict(
    app_model: options.OptionalApp = None,
    machine: Annotated[Path | None, options.machine(
        "Machine profile that costs the model's communication (the one --fit's times were "
        "measured on).")] = None,
    other: Annotated[Path | None, typer.Option(
        "--on", metavar="PROFILE",
        help="Predict on this machine profile the code --fit timed on --machine (without "
             "APP: no model, the timings' overhead moved by the network).")] = None,
    on_fit: Annotated[Path | None, typer.Option(
        "--on-fit", metavar="TIMINGS",
        help="Runs of the same code on B (without APP): at the smallest count both ran, "
             "they set how B's nodes do its work, in place of the profiles' flop rates "
             "(read with the same --where and --columns).")] = None,
    unexplained: Annotated[float | None, options.option(
        "--unexplained", parse=options.number(0.0, 1.0, example="0.05"), metavar="SD",
        help="With --on: what else differs between the machines (software, placement, the "
             "day), a relative standard deviation of the time that widens the range; e.g. "
             "0.05 when only the network changed (by default taken from real pairs, as the "
             "notes say).")
    ] = None,
    nodes: Annotated[options.Counts | None, options.nodes(
        "Node (process) counts to predict: 1,2,4,8,16 or 1..64 (without APP: those the "
        "timings have, by default all of them).")] = None,
    timings: options.Fit = None,
    where: options.Where = None,
    columns: options.Columns = None,
    set_values: options.Set = None,
    channels: options.Channel = None,
    link_speed: options.LinkSpeed = None,
    latency: options.Latency = None,
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
    """Predict time, speedup, efficiency and where the overhead goes, for every node count;
    or, with --on, the times of a code timed on one machine on another."""
    mapping = options.columns(columns)
    if app_model is None:
        return elsewhere(timings, where, machine, other, channels, link_speed, level, json_out,
                         nodes, mapping, on_fit, scaling_mode == "weak", unexplained, latency)
    if on_fit is not None or unexplained is not None:
        flag = "--on-fit" if on_fit is not None else "--unexplained"
        raise InputError(f"{flag} belongs to moving a code's own timings (without APP)",
                         fix=f"drop APP to move the timings, or drop {flag}")
    nodes = nodes if nodes is not None else NODES
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
    if other is not None and (machine is None or timings is None):
        raise InputError("--on predicts the code --fit timed on --machine elsewhere",
                         fix="give --fit TIMINGS --machine A --on B")
    node_note = ""
    rows = None   # the timing rows, read once when the node comes from them too
    if machine is not None:
        from perfmodel.machine import require_node
        from perfmodel.machine.hardware import FABRIC_FIX, changed
        from perfmodel.machine.profile import load

        prof = load(machine)
        if model.uses_node and prof.node is None and timings is not None:
            from perfmodel.apps.run import node_from_timings, timing_rows

            rows = timing_rows(model, timings, where, mapping)
            node, node_note = node_from_timings(model, prof, rows, set_values)
            prof = replace(prof, node=node)
        mine = other is None   # with --on, the hardware changes are B's, not A's
        on = changed(prof, channels=channels if mine else None,
                     line_rate=link_speed if mine else None,
                     latency=latency if mine else None, path=machine,
                     fix=f"drop --channels/--link-speed/--latency, or {FABRIC_FIX}")
        if model.uses_node:
            require_node(prof, machine)
    elif channels is not None or link_speed is not None or latency is not None:
        raise InputError("--channels, --link-speed and --latency change a machine",
                         fix="give --machine")
    from perfmodel.apps.metrics import scaling
    from perfmodel.apps.run import constants

    fit, size = constants(model, on, timings, where, set_values, saved, size, weak, rows,
                          mapping)
    if node_note:
        fit = replace(fit, notes=(node_note, *fit.notes))
    speed = None
    if other is not None:   # fitted on A as measured; costed on B, with the hardware changes
        from perfmodel.machine.hardware import on_other

        prof, speed, node_said = on_other(prof, load(other))   # no node: A's
        on = changed(prof, channels=channels, line_rate=link_speed, latency=latency,
                     work_speed=speed, path=other,
                     fix=f"drop --channels/--link-speed/--latency, or {FABRIC_FIX}")
        if node_said:
            fit = replace(fit, notes=(*fit.notes, node_said))
        machine = other   # what the view names and the assumptions' search reruns
    result = scaling(fit, list(nodes), level, on, size, weak)
    said = []
    if on is not None:
        from perfmodel.params import DECISIVE_SHARE
        from perfmodel.whatif import decisive

        def rerun(other: Profile) -> str | None:
            moved = changed(other, channels=channels, line_rate=link_speed, latency=latency,
                            work_speed=speed, path=machine)
            return decisive.time_moves(result.time, scaling(fit, list(nodes), level, moved,
                                                            size, weak).time, nodes,
                                       DECISIVE_SHARE)
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
        from perfmodel.cli.tables import decisive as assumption_lines

        assumption_lines(said)


def elsewhere(timings: Path | None, where: list[str] | None, machine: Path | None,
              other: Path | None, channels: int | None, link_speed: float | None,
              level: float, json_out: bool, nodes: options.Counts | None,
              columns: dict[str, str] | None = None, on_fit: Path | None = None,
              weak: bool = False, unexplained: float | None = None,
              latency: float | None = None) -> None:
    """``predict --fit T --machine A --on B`` without a model: the code's times moved from A
    to B (:mod:`perfmodel.apps.transfer`)."""
    if timings is None or machine is None:
        raise InputError("no APP: predict moves a code's timings to another machine",
                         fix="give APP, or --fit TIMINGS --machine A --on B (or A with "
                             "--link-speed/--channels/--latency)")
    if other is None and channels is None and link_speed is None and latency is None:
        raise InputError("nothing differs between the machines",
                         fix="give --on B, or change A with --link-speed, --channels or "
                             "--latency")
    from perfmodel.apps.run import parse_where
    from perfmodel.apps.transfer import move, read_runs
    from perfmodel.machine import Machine
    from perfmodel.machine.hardware import FABRIC_FIX, changed
    from perfmodel.machine.profile import load

    if on_fit is not None and other is None:
        raise InputError("--on-fit gives runs on B", fix="give --on B too")
    if unexplained is not None and other is None:
        raise InputError("--unexplained is what else differs between two machines; B is A "
                         "with its hardware changed", fix="give --on B too, or drop it")
    labels = parse_where(where or [])
    runs = read_runs(timings, labels, columns)
    a = Machine(load(machine))
    target = other if other is not None else machine
    b = changed(load(other) if other is not None else a.profile, channels=channels,
                line_rate=link_speed, latency=latency, path=target,
                fix=f"drop --channels/--link-speed/--latency, or {FABRIC_FIX}")
    on_b = read_runs(on_fit, labels, columns) if on_fit is not None else None
    result = move(runs, a, b, level, nodes, on_b=on_b, weak=weak, elsewhere=unexplained)
    from perfmodel.units import format_line_rate, format_time

    changes = [said for said, given in (
        (f"{channels} channels", channels), (f"links of {format_line_rate(link_speed or 0)}",
                                             link_speed),
        (f"a latency of {format_time(latency or 0)}", latency)) if given is not None]
    label = str(target) + (f" with {', '.join(changes)}" if changes else "")
    if json_out:
        emit_json({"timings": str(timings), "machine": str(machine), "on": label,
                   **result.to_dict()})
        return
    from perfmodel.cli import predict_view

    predict_view.moved(result, str(machine), label)
