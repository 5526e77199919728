"""``perfmodel whatif``: the command's options, one call into the core, and its view."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from perfmodel.cli import options
from perfmodel.cli.common import (
    emit_json,
    machine_entries,
    model_on,
    moved_timings,
    timed_sweep,
)
from perfmodel.errors import InputError

EXAMPLES = [
    "perfmodel whatif ppm --machine calibration/beowulf-1995.toml --fit "
    "data/seeds/beowulf-1995-apps.csv --where code=ppm --where use=fit --vary nodes=1..16 "
    "--vary channels=1,2",
    "perfmodel whatif nbody --machine calibration/beowulf-1995.toml --candidates "
    "data/catalogues/beowulf-1995.toml --fit data/seeds/beowulf-1995-apps.csv --where "
    "code=nbody --vary nodes=1..16 --vary network=all --json",
    "perfmodel whatif --fit data/alaska-apps/ib-gcc9-openmpi4-ucx/cp2k --where "
    "figure=cp2k_time --machine calibration/alaska-edr.toml --vary "
    "machine=calibration/alaska-roce.toml --vary nodes=1,2,4,8,16",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


def whatif(
    machine: Annotated[Path, options.machine(
        "The machine profile the sweep starts from (its fabric), the one --fit's times were "
        "measured on.")],
    app_model: options.OptionalWhatifApp = None,
    vary: Annotated[list[str] | None, typer.Option(
        "--vary", metavar="AXIS=VALUES",
        help="An axis and its values: nodes=1..1024, channels=1,2,3, "
             "link-speed=10Mbps,100Mbps,1GbE, latency=10us,100us, "
             "machine=A.toml,B.toml (profiles; the constants stay --machine's); with "
             "--candidates "
             "node=NAME,... and network=NAME,... (or =all) (repeatable).")] = None,
    timings: options.Fit = None,
    where: options.Where = None,
    columns: options.Columns = None,
    set_values: options.Set = None,
    saved: options.From = None,
    size: options.ProblemSize = None,
    scaling_mode: options.Scaling = "strong",
    worth: Annotated[float, options.option(
        "--worth", parse=options.number(0, 0.99, example="0.05"), metavar="FRACTION",
        help="A change pays when it cuts the time by this fraction, 0 to 0.99.")] = 0.05,
    share: Annotated[float, options.option(
        "--share", parse=options.number(0, 1, example="0.1"), metavar="FRACTION",
        help="The network is no longer the bottleneck below this share of the time, 0 to 1.")
    ] = 0.10,
    top: Annotated[int, options.option(
        "--top", parse=options.whole(1, 100), metavar="N",
        help="Best configurations shown, 1 to 100.")] = 5,
    level: options.Level = 0.95,
    candidates: Annotated[Path | None, options.candidates(
        "A hardware catalogue (TOML): node types and networks to vary by name (--vary "
        "node=..., --vary network=...), or whole machines (--vary machine=NAME,... or =all), "
        "with prices.")] = None,
    plot: Annotated[Path | None, typer.Option(
        "--plot", metavar="FILE", help="Also draw the sweep: time against nodes, and against "
                                       "price with a catalogue (SVG or PNG, by the name's "
                                       "suffix).")] = None,
    force: options.Force = False,
    json_out: options.Json = False,
    csv_out: Annotated[bool, typer.Option(
        "--csv", help="Print every configuration as CSV (SI units) instead of tables.")] = False,
) -> None:
    """Sweep node count, node type, network, channels, link speed and latency in one pass (one
    per machine across machine profiles): the baseline, the best configurations, where each
    change stops paying, the front of time against nodes, and with a catalogue's prices the
    front of time against price."""
    weak = scaling_mode == "weak"
    if json_out and csv_out:
        raise InputError("--json and --csv both given", fix="choose one")
    import time

    import numpy as np

    from perfmodel.whatif.sweep import Grid

    cat = None
    if candidates is not None:
        from perfmodel.whatif.catalogue import load as load_catalogue

        cat = load_catalogue(candidates)
    if plot is not None:
        from perfmodel.cli.figures import check_path

        check_path(plot, force=force, inputs=(app_model, machine, timings, saved, candidates))
    from perfmodel.whatif.axes import parse_vary

    axes = parse_vary(vary or [], cat)
    from perfmodel.whatif.axes import machine_offers

    machines = machine_entries(machine_offers(vary or [], cat), machine)
    grid = Grid({k: np.asarray(v, dtype=np.float64) for k, v in axes.items()}, cat,
                machines=machines)
    start = time.perf_counter()
    if app_model is None:
        if set_values or saved is not None or size is not None or weak:
            raise InputError("--set, --from, --size and --scaling weak give a model's constants",
                             fix="give APP, or drop them to move the timings themselves")
        result, seconds, name = moved_timings(timings, where, columns, machine, grid, level)
        rows, wire, said = np.empty(0, dtype=np.intp), np.empty(0), []
    else:
        model, prof, on = model_on(app_model, machine)
        from perfmodel.apps.run import constants

        fit, size = constants(model, on, timings, where, set_values, saved, size, weak,
                              columns=options.columns(columns))
        start = time.perf_counter()
        result, seconds = timed_sweep(fit, prof, grid, size, weak, level,
                                       bar=not (json_out or csv_out))
        name = model.name
    from perfmodel.cli import whatif_view

    if plot is not None:
        from perfmodel.cli import figures

        figures.write(plot, figures.sweep_figure(result, name, machine.stem), force=force)
    if csv_out:
        whatif_view.csv_rows(result)
        return
    if app_model is not None:
        from perfmodel.whatif import decisive
        from perfmodel.whatif.analysis import link_rows
        from perfmodel.whatif.axes import namer
        from perfmodel.whatif.sweep import sweep, wire_share

        rows = link_rows(result)
        wire = wire_share(fit, prof, result, rows, size, weak)
        said = decisive.per_machine(
            prof, grid, lambda own, rerun: decisive.whatif(own, result, rerun, worth,
                                                           namer(grid)),
            lambda other, on_grid: sweep(fit, other, on_grid, size=size, weak=weak, band=False))
    total = time.perf_counter() - start
    if json_out:
        emit_json(whatif_view.summary(result, seconds, worth, share, top, rows, wire, said))
    else:
        whatif_view.render(result, name, str(machine), seconds, worth, share, top, rows,
                           wire, total, said)

