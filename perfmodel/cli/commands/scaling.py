"""``perfmodel scaling``: the command's options, one call into the core, and its view."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from perfmodel.cli import options
from perfmodel.cli.common import (
    emit_json,
)
from perfmodel.errors import FitError, InputError

EXAMPLES = [
    "perfmodel scaling data/seeds/physical-optics.csv --where machine=beowulf --where "
    "table=2 --where part=II",
    "perfmodel scaling data/local/jacobi2d-scaling.csv --nodes 8,16,32 --json",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


def scaling(
    timings: Annotated[list[Path], typer.Argument(
        metavar="TIMINGS", help="Run times: a CSV of process (or node) count and time_s "
                                   "(optional size, rep, labels), NPB result files, ReFrame "
                                   "perflogs, sacct --parsable2 records, Extra-P text input, "
                                   "or benchmark files run at several process counts.")],
    nodes: Annotated[options.Counts | None, options.nodes(
        "Node (process) counts to predict: 32,64,128 or 32..256 (default: the measured counts "
        "and 2, 4 and 8 times the largest).")] = None,
    family: Annotated[str, options.option(
        "--scaling", choices=("auto", "strong", "weak"), metavar="auto|strong|weak",
        help="strong (fixed problem), weak (problem grows with p) or auto (from a size column, "
             "else by cross-validation).")] = "auto",
    where: options.Where = None,
    columns: options.Columns = None,
    at: Annotated[float | None, options.option(
        "--at", parse=options.table_size, metavar="SIZE",
        help="Message size to read from benchmark tables of a collective: 8KiB.")] = None,
    machine: Annotated[Path | None, options.machine(
        "Profile of the measured machine: ties the communication terms to its network.")
    ] = None,
    message_size: Annotated[float | None, options.option(
        "--message-size", parse=options.message_size, metavar="SIZE",
        help="Bytes per message of the communication terms (needed to re-predict on another "
             "network): 64KiB.")] = None,
    channels: options.Channel = None,
    link_speed: options.LinkSpeed = None,
    level: options.Level = 0.95,
    json_out: options.Json = False,
    allow_extrapolation: Annotated[bool, typer.Option(
        "--allow-extrapolation", help="Predict past 64 times the largest measured count "
                                      "(flagged).")] = False,
) -> None:
    """Fit a form of T(p) to measured runs and predict other counts, with intervals."""
    from perfmodel.apps.run import parse_where
    from perfmodel.empirical.fit import fit_scaling, predict_scaling
    from perfmodel.empirical.series import load_series

    series = load_series(timings, parse_where(where or []), at, options.columns(columns))
    try:
        fit = fit_scaling(series.processes, series.times, family,  # type: ignore[arg-type]
                          series.sizes)
    except FitError as exc:   # the runs are what cannot determine a form: name their files
        raise exc.at(", ".join(dict.fromkeys(series.sources))) from None
    if nodes is not None:
        counts = [float(c) for c in nodes]
    else:
        import numpy as np

        top = float(series.processes.max())
        counts = [*np.unique(series.processes).tolist(), 2 * top, 4 * top, 8 * top]
    pred = predict_scaling(fit, counts, level, force=allow_extrapolation,
                           off_node=series.off_node(counts)[0])
    moved = share = None
    target: dict[str, Any] = {}
    if machine is None and (channels is not None or link_speed is not None
                            or message_size is not None):
        raise InputError("--channels, --link-speed and --message-size re-predict on a "
                         "network", fix="give --machine PROFILE, the measured machine's")
    if machine is not None:
        from perfmodel.empirical.network import comm_share, retarget
        from perfmodel.machine import Machine
        from perfmodel.machine.profile import load

        prof = load(machine)
        share = comm_share(fit, pred.processes)
        if pred.off_node is not None:   # off-node the time is not the forms' (off_node_time)
            import numpy as np

            share = np.where(pred.off_node, 0.0, share)
        if message_size is not None and channels is None and link_speed is None:
            raise InputError("--message-size sizes the messages of a re-prediction",
                             fix="give --link-speed or --channels with it, or drop it")
        if channels is not None or link_speed is not None:
            if series.count != "processes":
                raise InputError(f"the runs are counted in {series.count}, and collectives are "
                                 "costed per process",
                                 fix="give a processes column, or ranks_per_node beside nodes")
            from perfmodel.machine.hardware import changed

            other = changed(prof, channels=channels, line_rate=link_speed, path=machine)
            if message_size is None:
                raise InputError("re-predicting on another network needs the size of the "
                                 "communication terms' messages (a latency-bound term moves "
                                 "little with the line rate, a bandwidth-bound one a lot)",
                                 fix="give --message-size, e.g. 8KiB")
            moved = retarget(fit, pred, Machine(prof), other, message_size)
            target = {"machine": str(machine), "channels": channels, "line_rate": link_speed,
                      "message_size": message_size}
    from perfmodel.cli import scaling_view

    if json_out:
        emit_json(scaling_view.scaling_doc(series, fit, pred, moved, share, target))
    else:
        from perfmodel.units import format_line_rate

        label = ", ".join(x for x in (f"{channels} ch" if channels else "",
                                      format_line_rate(link_speed) if link_speed else "") if x)
        scaling_view.scaling(series, fit, pred, moved, share, label)
