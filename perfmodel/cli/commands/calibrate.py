"""``perfmodel calibrate``: the command's options, one call into the core, and its view."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from perfmodel.cli import options
from perfmodel.cli.common import (
    NAME,
    emit_json,
    parse_fix,
)
from perfmodel.errors import InputError

EXAMPLES = [
    "perfmodel calibrate data/mpi4py/pingpong_mpich.csv --no-write",
    "perfmodel calibrate data/seeds/hyglac-mpi.csv --model hockney --out "
    "build/hyglac-mpi.toml",
    "perfmodel calibrate --spec data/seeds/es80.spec.toml --name es80 --no-write --json",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


def calibrate(
    inputs: Annotated[list[Path] | None, typer.Argument(
        metavar="FILE|DIR", help="Benchmark outputs of one machine: OSU, IMB/PMB, NetPIPE, "
                                    "netperf, perftest, netgauge, mpptest, STREAM, HPL, HPCG, "
                                    "ReFrame perflogs, mpi4py.bench or perfmodel CSV, "
                                    "recognised by content; a "
                                    "folder is walked (every file listed with what it informs, "
                                    "or why not).",
        show_default=False)] = None,
    model: Annotated[str, typer.Option(
        "--model", metavar="MODEL", help="auto | hockney | loggp | packet | piecewise.")
    ] = "auto",
    name: Annotated[str | None, typer.Option(
        "--name", metavar="NAME", help="Profile name (default: the first input's stem).")
    ] = None,
    out: Annotated[Path | None, options.out(
        "Profile to write (default: calibration/NAME.toml).")] = None,
    fix: Annotated[list[str] | None, typer.Option(
        "--set", metavar="NAME=VALUE", help="Hold a parameter at a value instead of fitting "
                                            "it: beta=1.25MB/s. Repeatable.")] = None,
    spec: Annotated[Path | None, typer.Option(
        "--spec", metavar="FILE", help="Network spec file: cited parameter values to hold "
                                       "fixed.")] = None,
    benchmark: options.Benchmark = None,
    topology: Annotated[str | None, options.option(
        "--topology", choices=("shared", "switched"), metavar="shared|switched",
        help="The fabric to fit to multi-pair, multi-channel or fan-in rows (default: the "
             "better by BIC; switched for streams placed on shared NICs).")] = None,
    box: Annotated[int | None, options.option(
        "--box", parse=options.whole(1, 4096), metavar="N",
        help="Processes one box (node) holds, 1 to 4096: with Exchange rows at several process "
             "counts, fits the link inside a box beside the one between boxes (ranks placed "
             "in blocks).")] = None,
    ranks_per_node: Annotated[int | None, options.option(
        "--ranks-per-node", parse=options.whole(1, 1_000_000), metavar="N",
        help="Ranks each node held, in blocks, in every job: places multi-pair tables "
             "(osu_mbw_mr, IMB Uniband) across nodes or inside one, and counts the streams "
             "that shared each NIC.")] = None,
    nodes: Annotated[int | None, options.option(
        "--nodes-per-job", parse=options.whole(1, 1_000_000), metavar="N",
        help="Every job ran on N nodes, ranks in blocks (osu_mbw_mr and IMB across two "
             "nodes: --nodes-per-job 2); instead of --ranks-per-node.")] = None,
    in_name: Annotated[bool, typer.Option(
        "--nodes-in-name", help="Each file's name says its job's node count (…-256n-…, "
                                "size256): collectives whose output does not say it are "
                                "kept at that count.")] = False,
    repeats: Annotated[bool, typer.Option(
        "--repeats", help="The ping-pong tables are repeated runs of one configuration (a "
                          "noisy cloud, other node pairs): fit the law to all of them, the "
                          "profile following their median at each size, however far apart "
                          "they sit.")] = False,
    no_write: Annotated[bool, typer.Option(
        "--no-write", help="Fit and show, but write no profile.")] = False,
    quiet: Annotated[bool, options.quiet(
        "Print one summary line instead of the tables.")] = False,
    json_out: options.Json = False,
    force: options.Force = False,
) -> None:
    """Fit a machine profile to its benchmark outputs: the point-to-point law from a ping-pong,
    the fabric from multi-pair tables, the node from HPL and STREAM."""
    from perfmodel.network import models as registry

    if model != registry.AUTO:
        registry.spec(model)
    if name is not None and not NAME.match(name):
        raise InputError(f"--name {name!r} is not a usable file name",
                         fix="use letters, digits, '.', '-' and '_'")
    fixed = parse_fix(fix)
    from perfmodel.layout import Layout

    layout = Layout(ranks_per_node=ranks_per_node, nodes=nodes, names=in_name)   # refuses both
    from perfmodel.calibrate import calibrate as run
    from perfmodel.calibrate import default_name
    from perfmodel.io import check_writable

    sources = [*(inputs or []), spec]
    target = out or Path("calibration") / f"{name or default_name(inputs or [], spec, model)}.toml"
    if not no_write:   # before any work: not after a long fit
        check_writable(target, force=force, inputs=sources)
    from perfmodel.machine.profile import dumps
    from perfmodel.network.spec import load_spec

    net_spec = load_spec(spec) if spec is not None else None
    result = run(list(inputs or []), model=model, fixed=fixed, spec=net_spec, name=name,
                 command=" ".join(["perfmodel", *sys.argv[1:]]), benchmark=benchmark,
                 topology=topology, box=box,
                 layout=layout, repeats=repeats)
    path: Path | None = None
    if not no_write:
        from perfmodel.io import write_atomic

        check_writable(target, force=force, inputs=sources)   # again: the fit took time
        path = write_atomic(target, dumps(result.profile), force=force)
    from perfmodel.cli import render

    if json_out:
        emit_json(result.to_dict(path))
    elif quiet:
        render.calibration_line(result, path)
    else:
        render.calibration(result, path)
