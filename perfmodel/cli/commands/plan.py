"""``perfmodel plan``: the command's options, one call into the core, and its view."""

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
    "perfmodel plan physical-optics --machine calibration/hyglac.toml --candidates "
    "data/catalogues/hyglac-1997.toml --fit data/seeds/physical-optics.csv --where "
    "machine=beowulf --where table=1 --target-time 45s",
    "perfmodel plan nbody --machine calibration/beowulf-1995.toml --candidates "
    "data/catalogues/beowulf-1995.toml --fit data/seeds/beowulf-1995-apps.csv --where "
    "code=nbody --budget 20000",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


def plan(
    machine: Annotated[Path, options.machine(
        "The machine profile measured on the catalogue's reference node (its fabric is what "
        "the networks retune), or the one --fit's times were measured on.")],
    candidates: Annotated[Path, options.candidates(
        "The hardware catalogue (TOML): node types and networks, or whole machines (their "
        "profiles), with prices.")],
    app_model: options.OptionalPlanApp = None,
    target_time: Annotated[str | None, typer.Option(
        "--target-time", metavar="TIME", help="The cheapest configuration that runs in at most "
                                              "this time: 60s.")] = None,
    target_speedup: Annotated[float | None, options.option(
        "--target-speedup", parse=options.number(0, above=True, example="8"), metavar="X",
        help="The cheapest configuration this much faster than one reference node (with a "
             "catalogue of machines, one node of --machine).")] = None,
    budget: Annotated[float | None, options.option(
        "--budget", parse=options.number(0, above=True, example="20000"), metavar="PRICE",
        help="The fastest configuration at most this price (the catalogue's currency).")
    ] = None,
    nodes: Annotated[options.Counts | None, options.nodes(
        "Node counts to consider (default: 1 to the most ports a network offers).")] = None,
    timings: options.Fit = None,
    where: options.Where = None,
    columns: options.Columns = None,
    set_values: options.Set = None,
    saved: options.From = None,
    size: options.ProblemSize = None,
    scaling_mode: options.Scaling = "strong",
    runners: Annotated[int, options.option(
        "--runners-up", parse=options.whole(0, 50), metavar="N",
        help="Runners-up shown, 0 to 50.")] = 4,
    level: options.Level = 0.95,
    json_out: options.Json = False,
) -> None:
    """The cheapest configuration in a catalogue that meets a target time or speedup, or the
    fastest a budget buys: with its margin, its band, and the runners-up."""
    given = [x for x in (target_time, target_speedup, budget) if x is not None]
    if len(given) != 1:
        raise InputError("give one target", fix="--target-time T, --target-speedup S or "
                                                "--budget B")
    weak = scaling_mode == "weak"

    import numpy as np

    from perfmodel.units import parse_time
    from perfmodel.whatif.catalogue import load as load_catalogue
    from perfmodel.whatif.plan import Target
    from perfmodel.whatif.plan import plan as make_plan
    from perfmodel.whatif.sweep import Grid

    if target_time is not None and weak:
        raise InputError("--target-time under --scaling weak: the problem grows with the "
                         "nodes, so the smallest machine meets any time it can",
                         fix="use --target-speedup (scaled speedup) or --budget, or fix the "
                             "problem (--scaling strong --size N)")
    if target_time is not None:
        target = Target("time", parse_time(target_time))
    elif target_speedup is not None:
        target = Target("speedup", target_speedup)
    else:
        assert budget is not None
        target = Target("budget", budget)
    cat = load_catalogue(candidates)
    if app_model is None and not cat.machines:
        raise InputError("no APP: without a model plan moves the code's timings to a "
                         "catalogue's machines", fix="give APP, or a catalogue of "
                                                     "[machines.NAME] offers")
    if app_model is None and (set_values or saved is not None or size is not None or weak):
        raise InputError("--set, --from, --size and --scaling weak give a model's constants",
                         fix="give APP, or drop them to move the timings themselves")
    most = max(n.max_nodes for n in cat.machines) if cat.machines else \
        max(n.ports for n in cat.networks)
    counts = list(nodes) if nodes else list(range(1, min(most, 4096) + 1))
    if min(counts) > most:
        raise InputError(f"--nodes from {min(counts):g}: the catalogue offers at most {most} "
                         "nodes", fix=f"consider counts up to {most}: --nodes 1..{most}")
    offers = machine_entries([(m.name, m.profile) for m in cat.machines], machine)
    if cat.machines:
        axes = {"machine": np.arange(len(cat.machines), dtype=np.float64),
                "nodes": np.asarray(counts, dtype=np.float64)}
    else:
        axes = {"nodes": np.asarray(counts, dtype=np.float64),
                "node": np.asarray([i for i, n in enumerate(cat.nodes)
                                    if n.price is not None], dtype=np.float64),
                "network": np.arange(len(cat.networks), dtype=np.float64),
                "channels": np.asarray(sorted({c for n in cat.networks for c in n.channels}),
                                       dtype=np.float64)}
        ref = cat.node_index(cat.reference)
        if target.kind == "speedup" and ref not in axes["node"]:
            axes["node"] = np.sort(np.append(axes["node"], ref))
    grid = Grid(axes, cat, machines=offers)
    from perfmodel.cli import plan_view

    if app_model is None:
        result, seconds, name = moved_timings(timings, where, columns, machine, grid, level)
        answer = make_plan(result, target, runners)
        said = []
    else:
        from perfmodel.apps.run import constants
        from perfmodel.whatif import decisive
        from perfmodel.whatif.sweep import sweep

        model, prof, on = model_on(app_model, machine)
        fit, size = constants(model, on, timings, where, set_values, saved, size, weak,
                              columns=options.columns(columns))
        result, seconds = timed_sweep(fit, prof, grid, size, weak, level, bar=not json_out)
        answer = make_plan(result, target, runners)
        name = model.name
        said = decisive.per_machine(
            prof, grid, lambda own, rerun: decisive.plan(
                own, answer.chosen, rerun, lambda i: plan_view.configuration(answer.sweep, cat,
                                                                             i), grid.size),
            lambda other, on_grid: make_plan(sweep(fit, other, on_grid, size=size, weak=weak,
                                                   level=level), target, runners).chosen)
    if json_out:
        emit_json({**plan_view.summary(answer, cat, name, str(machine), seconds),
                   "decisive_assumptions": [d.to_dict() for d in said]})
    else:
        plan_view.render(answer, cat, name, str(machine), seconds)
        from perfmodel.cli.tables import decisive as assumption_lines

        assumption_lines(said)
    if answer.chosen is None:
        raise typer.Exit(1)

