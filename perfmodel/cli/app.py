"""The command line: parses, calls one core function, renders.  Nothing else lives here.

Heavy libraries (numpy, lmfit, scipy, sympy, matplotlib) are imported inside the commands
that need them, so ``perfmodel --help`` and ``--version`` answer fast.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from perfmodel import __version__
from perfmodel.errors import FitError, InputError, PerfModelError

if TYPE_CHECKING:   # for annotations only: these import numpy, kept off the start-up path
    from numpy.typing import ArrayLike

    from perfmodel.apps.fit import AppFit
    from perfmodel.apps.machine import Machine
    from perfmodel.apps.model import AppModel
    from perfmodel.profile import Profile
    from perfmodel.whatif.sweep import Grid, Sweep

F = TypeVar("F", bound=Callable[..., Any])

app = typer.Typer(
    name="perfmodel",
    help="Analytical performance models and capacity planning for parallel clusters.\n\n"
         "Calibrate network models from ping-pong data, then predict from the saved profile.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_state = {"debug": False}


def _err(message: str) -> None:
    sys.stderr.write(message + "\n")


def guarded(fn: F) -> F:
    """Turn every PerfModelError into one line on stderr and exit code 2 (``--debug`` raises)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except PerfModelError as exc:
            if _state["debug"]:
                raise
            _err(f"error: {exc.one_line()}")
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"perfmodel {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False,
) -> None:
    _state["debug"] = debug


# --- shared options ----------------------------------------------------------------------------

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON (SI units) instead of tables.")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Replace an existing output file.")]
LevelOpt = Annotated[float, typer.Option("--level", min=0.5, max=0.999,
                                         help="Coverage of prediction intervals.")]
# the constants of an application model, as whatif and plan take them (predict's own help
# says more)
AppFitOpt = Annotated[Path | None, typer.Option(
    "--fit", help="Measured run times to fit the model's constants to (as predict).")]
AppWhereOpt = Annotated[list[str] | None, typer.Option(
    "--where", help="Use only timing rows with this label (repeatable).")]
AppSetOpt = Annotated[list[str] | None, typer.Option(
    "--set", help="Give a constant instead of fitting it: end_wait=0.059.")]
AppFromOpt = Annotated[Path | None, typer.Option(
    "--from", help="Constants saved by predict --save.")]
AppSizeOpt = Annotated[float | None, typer.Option(
    "--size", help="Problem size in the model's unit (per process under --scaling weak).")]
AppScalingOpt = Annotated[str, typer.Option(
    "--scaling", help="strong (fixed problem) or weak (--size per process).")]
BenchmarkOpt = Annotated[str | None, typer.Option(
    "--benchmark", "-b", help="Which table of a file with several: PingPong, Exchange, bw … "
                              "(NAME@P for P processes). Default: the ping-pong.")]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _parse_fix(items: list[str] | None) -> dict[str, float]:
    """``["beta=1.25MB/s", "o=1us"]`` -> SI values, parsed by each parameter's kind."""
    from perfmodel.network import models as registry

    out: dict[str, float] = {}
    names = {p.name for spec in registry.MODELS.values() for p in spec.params}
    for item in items or []:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not value.strip():
            raise InputError(f"--fix {item!r} is not NAME=VALUE", fix="e.g. --fix beta=1.25MB/s")
        if name not in names:
            raise InputError(f"--fix {name!r}: no model has that parameter",
                             fix=f"parameters: {', '.join(sorted(names))}")
        try:
            out[name] = registry.parse_value(name, value)
        except PerfModelError as exc:
            raise InputError(f"--fix {item!r}: {exc.what}", fix=exc.fix) from None
    return out


def _emit_json(doc: Any) -> None:
    from perfmodel.cli.render import jsonable

    sys.stdout.write(json.dumps(jsonable(doc), indent=2, ensure_ascii=False) + "\n")


# --- commands ----------------------------------------------------------------------------------

@app.command()
@guarded
def calibrate(
    inputs: Annotated[list[Path] | None, typer.Argument(
        help="Measurement files: OSU, IMB/PMB, NetPIPE, netperf, mpi4py.bench output or "
             "perfmodel CSV, recognised by content.", show_default=False)] = None,
    model: Annotated[str, typer.Option(
        "--model", "-m", help="auto | hockney | loggp | packet | piecewise.")] = "auto",
    name: Annotated[str | None, typer.Option(
        "--name", help="Profile name (default: the first input's stem).")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Profile path (default: calibration/NAME.toml).")] = None,
    fix: Annotated[list[str] | None, typer.Option(
        "--fix", help="Hold a parameter at a value: NAME=VALUE, e.g. beta=1.25MB/s. "
                      "Repeatable.")] = None,
    spec: Annotated[Path | None, typer.Option(
        "--spec", help="Network spec file: cited parameter values to hold fixed.")] = None,
    benchmark: BenchmarkOpt = None,
    topology: Annotated[str | None, typer.Option(
        "--topology", help="shared | switched: the fabric to fit to multi-pair, multi-channel "
                           "or fan-in rows (default: the better by BIC).")] = None,
    box: Annotated[int | None, typer.Option(
        "--box", min=1, max=4096, help="Processes one box (node) holds: with Exchange rows at "
                                       "several process counts, fits the link inside a box "
                                       "beside the one between boxes (ranks placed in "
                                       "blocks).")] = None,
    no_write: Annotated[bool, typer.Option(
        "--no-write", help="Fit and show, but write no profile.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print one summary line instead of the tables.")] = False,
    json_out: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Fit a point-to-point network model to ping-pong measurements and save a profile."""
    from perfmodel.network import models as registry

    if model != registry.AUTO:
        registry.spec(model)
    if topology is not None and topology not in ("shared", "switched"):
        raise InputError(f"--topology {topology!r} is not a topology", fix="use shared or switched")
    if name is not None and not _NAME.match(name):
        raise InputError(f"--name {name!r} is not a usable file name",
                         fix="use letters, digits, '.', '-' and '_'")
    fixed = _parse_fix(fix)
    from perfmodel.calibrate import calibrate as run
    from perfmodel.network.spec import load_spec
    from perfmodel.profile import dumps

    net_spec = load_spec(spec) if spec is not None else None
    result = run(list(inputs or []), model=model, fixed=fixed, spec=net_spec, name=name,
                 command=" ".join(["perfmodel", *sys.argv[1:]]), benchmark=benchmark,
                 topology=topology, box=box)
    path: Path | None = None
    if not no_write:
        from perfmodel.io import write_atomic

        target = out or Path("calibration") / f"{result.profile.name}.toml"
        path = write_atomic(target, dumps(result.profile), force=force)
    from perfmodel.cli import render

    if json_out:
        _emit_json(render.calibration_doc(result, path))
    elif quiet:
        render.calibration_line(result, path)
    else:
        render.calibration(result, path)


@app.command()
@guarded
def network(
    profile: Annotated[Path, typer.Argument(help="A machine profile from calibrate.")],
    size: Annotated[str, typer.Option(
        "--size", "-s", help="Message sizes: 1B,8KiB,1MiB, or 4B..8KiB for every doubling.")
    ] = "1B,8KiB,1MiB",
    pairs: Annotated[str | None, typer.Option(
        "--pairs", "-k", help="Pairs exchanging at once (tokens in flight): 1..8 or 1,2,4.")
    ] = None,
    channels: Annotated[str | None, typer.Option(
        "--channels", "-c", help="Channels per node (segments, bonded NICs): 1,2. "
                                 "Default: the machine's.")] = None,
    senders: Annotated[str | None, typer.Option(
        "--senders", help="Senders streaming into one receiver (fan-in): 1..15. With it, "
                          "every row is streams, 1 sender included.")] = None,
    link_speed: Annotated[str | None, typer.Option(
        "--link-speed", "-l", help="Line rate of a channel instead of the calibrated one: "
                                   "10Mbps,100Mbps,1Gbps.")] = None,
    processes: Annotated[str | None, typer.Option(
        "--processes", "-p", help="Predict the Exchange ring (IMB/Pallas Exchange: every "
                                  "process sends to and receives from both neighbours) for "
                                  "these process counts: 2,4 or 2..64.")] = None,
    placement: Annotated[str, typer.Option(
        "--placement", help="Where ranks sit, with --processes: block (fill each box "
                            "first), cyclic (deal ranks to boxes), spread (one per box).")
    ] = "block",
    level: LevelOpt = 0.95,
    json_out: JsonOpt = False,
) -> None:
    """Predict one-way time and bandwidth at any message size, with intervals; with --pairs,
    --channels, --senders or --link-speed, per-pair and aggregate throughput on the shared
    network for every combination; with --processes, the Exchange ring's time per iteration
    as placement puts ranks inside or across boxes."""
    from perfmodel.units import parse_counts, parse_list

    sizes = parse_list(size, "size")
    if any(s < 0 for s in sizes):
        raise InputError(f"--size {size!r} has a negative size", fix="sizes are 0 or more bytes")
    from perfmodel.profile import load

    prof = load(profile)
    from perfmodel.cli import render

    if processes is not None and (pairs is not None or senders is not None):
        raise InputError("--processes predicts the Exchange ring, which has no --pairs or "
                         "--senders", fix="drop --pairs/--senders, or drop --processes")
    if placement != "block" and processes is None:
        raise InputError("--placement places the ranks of an Exchange ring",
                         fix="give --processes too")
    if pairs is None and channels is None and senders is None and link_speed is None \
            and processes is None:
        from perfmodel.network.predict import predict

        pred = predict(prof.network, sizes, level)
        if json_out:
            _emit_json(render.prediction_doc(prof, pred))
        else:
            render.prediction(prof, pred, str(profile))
        return
    if prof.fabric is None:
        raise InputError(f"profile {prof.name!r} has no contention model, so it cannot predict "
                         "pairs, channels, senders, processes or link speeds", file=profile,
                         fix="calibrate it on data with pairs/channels/senders columns, or give "
                             "a spec with a [fabric] table")
    if processes is not None:
        from perfmodel.network.fabric import exchange_grid

        ring = exchange_grid(prof.fabric, sizes, parse_counts(processes, "processes"),
                             parse_counts(channels, "channels") if channels
                             else [prof.fabric.channels],
                             parse_list(link_speed, "rate") if link_speed else None,
                             placement, level)
        if json_out:
            _emit_json(render.exchange_doc(prof, ring))
        else:
            render.exchange(prof, ring, str(profile))
        return
    from perfmodel.network.fabric import grid

    result = grid(prof.fabric, sizes,
                  parse_counts(pairs, "pairs") if pairs else [1],
                  parse_counts(channels, "channels") if channels else [prof.fabric.channels],
                  parse_counts(senders, "senders") if senders else [1],
                  parse_list(link_speed, "rate") if link_speed else None, level,
                  fanin=senders is not None)
    if json_out:
        _emit_json(render.rates_doc(prof, result))
    else:
        render.rates(prof, result, str(profile))


@app.command()
@guarded
def inspect(
    files: Annotated[list[Path], typer.Argument(help="Measurement files of any format.")],
    rows: Annotated[int, typer.Option("--rows", "-n", min=0,
                                      help="First rows to show of each table.")] = 3,
    json_out: JsonOpt = False,
) -> None:
    """Show what perfmodel reads in files: format, version, benchmarks, counts, first rows."""
    from perfmodel.readers import read

    found = [(str(f), read(f)) for f in files]
    from perfmodel.cli import render

    if json_out:
        _emit_json(render.inspect_doc(found, rows))
    else:
        render.inspect(found, rows)


@app.command()
@guarded
def predict(
    app_model: Annotated[str, typer.Argument(
        metavar="APP", help="A built-in application model (physical-optics …) or a model file.")],
    machine: Annotated[Path | None, typer.Option(
        "--machine", "-m", help="Machine profile that costs the model's communication.")] = None,
    nodes: Annotated[str, typer.Option(
        "--nodes", "-n", help="Process (node) counts: 1,2,4,8,16 or 1..64.")] = "1,2,4,8,16",
    timings: Annotated[Path | None, typer.Option(
        "--fit", help="Measured run times (CSV: nodes, time_s, optional part) to fit the "
                      "model's constants to.")] = None,
    where: Annotated[list[str] | None, typer.Option(
        "--where", help="Use only timing rows with this label: machine=t3d (repeatable).")
    ] = None,
    set_values: Annotated[list[str] | None, typer.Option(
        "--set", help="Give a constant instead of fitting it: work_II=300 (SI units, or with "
                      "a unit: 2us, 1KiB, 10MB/s). Repeatable.")] = None,
    channels: Annotated[int | None, typer.Option(
        "--channels", "-c", min=1, max=64, help="Channels per node instead of the profile's.")
    ] = None,
    link_speed: Annotated[str | None, typer.Option(
        "--link-speed", "-l", help="Line rate instead of the profile's: 100Mbps.")] = None,
    size: Annotated[float | None, typer.Option(
        "--size", help="Problem size n in the model's unit (default: the model's); per "
                       "process under --scaling weak.")] = None,
    scaling_mode: Annotated[str, typer.Option(
        "--scaling", help="strong: the same problem on every node count; weak: --size per "
                          "process, so the problem grows with the nodes.")] = "strong",
    save: Annotated[Path | None, typer.Option(
        "--save", help="Write the model's constants (fitted, with their covariance) to this "
                       "file, to predict from later with --from.")] = None,
    saved: Annotated[Path | None, typer.Option(
        "--from", help="Predict from constants saved by --save instead of fitting.")] = None,
    level: LevelOpt = 0.95,
    json_out: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Predict time, speedup, efficiency and where the overhead goes, for every node count."""
    if saved is not None and (timings is not None or set_values):
        raise InputError("--from gives every constant", fix="drop --fit and --set, or --from")
    weak = _weak(scaling_mode)
    if size is not None and not (math.isfinite(size) and size > 0):
        raise InputError(f"--size {size:g} is not a positive size", fix="e.g. --size 16")
    from perfmodel.units import parse_counts, parse_quantity

    counts = parse_counts(nodes, "nodes")
    from perfmodel.apps.model import load as load_model

    model = load_model(app_model)
    on = None
    if machine is not None:
        from perfmodel.apps.machine import Machine, require_node
        from perfmodel.profile import load

        rate = parse_quantity(link_speed, "rate") if link_speed else None
        if rate is not None and not rate > 0:
            raise InputError(f"--link-speed {link_speed!r} is not a positive rate",
                             fix="e.g. --link-speed 100Mbps")
        prof = load(machine)
        if prof.fabric is None and (channels is not None or rate is not None):
            raise InputError(f"profile {prof.name!r} has no fabric, so channels and link speed "
                             "cannot change", file=machine,
                             fix="drop --channels/--link-speed, or use a profile with a fabric")
        if model.uses_node:
            require_node(prof, machine)
        on = Machine(prof, channels, rate)
    elif channels is not None or link_speed is not None:
        raise InputError("--channels and --link-speed change a machine", fix="give --machine")
    from perfmodel.apps.metrics import scaling
    from perfmodel.apps.run import constants

    fit, size = constants(model, on, timings, where, set_values, saved, size,
                         weak)
    result = scaling(fit, counts, level, on, size, weak)
    if save is not None:
        from perfmodel.apps.saved import dumps as dump_fit
        from perfmodel.io import write_atomic
        from perfmodel.provenance import stamp

        write_atomic(save, dump_fit(fit, {
            **stamp(" ".join(["perfmodel", *sys.argv[1:]])),
            "timings": str(timings) if timings is not None else "",
            "machine": str(machine) if machine is not None else ""}), force=force)
    from perfmodel.cli import render

    own: dict[str, float] = {}
    asked: dict[str, ArrayLike | None] = {}   # a line rate not the profile's: not measured
    if on is not None and on.profile.fabric is not None:
        own = {"link_speed": float(on.profile.fabric.values["line_rate"])}
        asked = {"link_speed": on.line_rate}
    if json_out:
        _emit_json(render.scaling_doc(fit, result, asked, own))
    else:
        render.scaling(fit, result, str(machine) if machine else "", asked, own)


@app.command("scaling")
@guarded
def scaling_cmd(
    timings: Annotated[list[Path], typer.Argument(
        metavar="TIMINGS...", help="Run times: a CSV of process (or node) count and time_s "
                                   "(optional size, rep, labels), NPB result files, or "
                                   "benchmark files run at several process counts.")],
    predict_at: Annotated[str | None, typer.Option(
        "--predict", "-p", help="Counts to predict: 32,64,128 or 32..256 (default: the "
                                "measured counts and 2, 4 and 8 times the largest).")] = None,
    family: Annotated[str, typer.Option(
        "--scaling", help="strong (fixed problem), weak (problem grows with p) or auto "
                          "(from a size column, else by cross-validation).")] = "auto",
    where: Annotated[list[str] | None, typer.Option(
        "--where", help="Use only runs with this label: machine=t3d, benchmark=CG "
                        "(repeatable).")] = None,
    at: Annotated[str | None, typer.Option(
        "--at", help="Message size to read from benchmark tables of a collective: 8KiB.")
    ] = None,
    machine: Annotated[Path | None, typer.Option(
        "--machine", "-m", help="Profile of the measured machine: ties the communication "
                                "terms to its network.")] = None,
    message_size: Annotated[str | None, typer.Option(
        "--message-size", help="Bytes per message of the communication terms (needed to "
                               "re-predict on another network): 64KiB.")] = None,
    channels: Annotated[int | None, typer.Option(
        "--channels", "-c", min=1, max=64, help="Re-predict with this many channels per "
                                                "node.")] = None,
    link_speed: Annotated[str | None, typer.Option(
        "--link-speed", "-l", help="Re-predict with this line rate: 100Mbps.")] = None,
    level: LevelOpt = 0.95,
    json_out: JsonOpt = False,
    force: Annotated[bool, typer.Option(
        "--force", help="Predict past 64x the largest measured count (flagged).")] = False,
) -> None:
    """Fit a form of T(p) to measured runs and predict other counts, with intervals."""
    if family not in ("auto", "strong", "weak"):
        raise InputError(f"--scaling {family!r}", fix="use strong, weak or auto")
    from perfmodel.apps.run import parse_where
    from perfmodel.empirical.fit import fit_scaling, predict_scaling
    from perfmodel.empirical.series import load_series
    from perfmodel.units import parse_counts, parse_quantity

    series = load_series(timings, parse_where(where or []),
                         parse_quantity(at, "size") if at is not None else None)
    try:
        fit = fit_scaling(series.processes, series.times, family,  # type: ignore[arg-type]
                          series.sizes)
    except FitError as exc:   # the runs are what cannot determine a form: name their files
        raise exc.at(", ".join(dict.fromkeys(series.sources))) from None
    if predict_at is not None:
        counts = [float(c) for c in parse_counts(predict_at, "predict")]
    else:
        import numpy as np

        top = float(series.processes.max())
        counts = [*np.unique(series.processes).tolist(), 2 * top, 4 * top, 8 * top]
    pred = predict_scaling(fit, counts, level, force=force)
    moved = share = None
    target: dict[str, Any] = {}
    if machine is None and (channels is not None or link_speed is not None
                            or message_size is not None):
        raise InputError("--channels, --link-speed and --message-size re-predict on a "
                         "network", fix="give --machine PROFILE, the measured machine's")
    if machine is not None:
        from perfmodel.apps.machine import Machine
        from perfmodel.empirical.network import comm_share, retarget
        from perfmodel.profile import load

        prof = load(machine)
        share = comm_share(fit, pred.processes)
        if message_size is not None and channels is None and link_speed is None:
            raise InputError("--message-size sizes the messages of a re-prediction",
                             fix="give --link-speed or --channels with it, or drop it")
        if channels is not None or link_speed is not None:
            if series.count != "processes":
                raise InputError(f"the runs are counted in {series.count}, and collectives are "
                                 "costed per process",
                                 fix="give a processes column, or ranks_per_node beside nodes")
            rate = parse_quantity(link_speed, "rate") if link_speed else None
            if rate is not None and not rate > 0:
                raise InputError(f"--link-speed {link_speed!r} is not a positive rate",
                                 fix="e.g. --link-speed 100Mbps")
            if prof.fabric is None:
                raise InputError(f"profile {prof.name!r} has no fabric, so channels and link "
                                 "speed cannot change", file=machine,
                                 fix="use a profile with a fabric (calibrate with pairs or "
                                     "channels, or a spec's [fabric])")
            if message_size is None:
                raise InputError("re-predicting on another network needs the size of the "
                                 "communication terms' messages (a latency-bound term moves "
                                 "little with the line rate, a bandwidth-bound one a lot)",
                                 fix="give --message-size, e.g. 8KiB")
            m = parse_quantity(message_size, "size")
            if not m > 0:
                raise InputError(f"--message-size {message_size!r} is not positive",
                                 fix="e.g. --message-size 8KiB")
            moved = retarget(fit, pred, Machine(prof), Machine(prof, channels, rate), m)
            target = {"machine": str(machine), "channels": channels, "line_rate": rate,
                      "message_size": m}
    from perfmodel.cli import scaling_view

    if json_out:
        _emit_json(scaling_view.scaling_doc(series, fit, pred, moved, share, target))
    else:
        label = ", ".join(x for x in (f"{channels} ch" if channels else "",
                                      link_speed or "") if x)
        scaling_view.scaling(series, fit, pred, moved, share, label)


@app.command()
@guarded
def whatif(
    app_model: Annotated[str, typer.Argument(
        metavar="APP", help="A built-in application model (ppm, nbody …) or a model file.")],
    machine: Annotated[Path, typer.Option(
        "--machine", "-m", help="The machine profile the sweep starts from (its fabric).")],
    vary: Annotated[list[str] | None, typer.Option(
        "--vary", help="An axis and its values: nodes=1..1024, channels=1,2,3, "
                       "link-speed=10Mbps,100Mbps,1GbE, latency=10us,100us; with "
                       "--candidates node=NAME,... and network=NAME,... (or =all) "
                       "(repeatable).")
    ] = None,
    timings: AppFitOpt = None,
    where: AppWhereOpt = None,
    set_values: AppSetOpt = None,
    saved: AppFromOpt = None,
    size: AppSizeOpt = None,
    scaling_mode: AppScalingOpt = "strong",
    worth: Annotated[float, typer.Option(
        "--worth", min=0.0, max=0.99, help="A change pays when it cuts the time by this "
                                           "fraction: 0.05.")] = 0.05,
    share: Annotated[float, typer.Option(
        "--share", min=0.0, max=1.0, help="The network is no longer the bottleneck below "
                                          "this share of the time: 0.10.")] = 0.10,
    top: Annotated[int, typer.Option("--top", min=1, max=100, help="Best configurations "
                                                                   "shown.")] = 5,
    level: LevelOpt = 0.95,
    candidates: Annotated[Path | None, typer.Option(
        "--candidates", help="A hardware catalogue (TOML): node types and networks to vary "
                             "by name (--vary node=..., --vary network=...), with prices.")
    ] = None,
    plot: Annotated[Path | None, typer.Option(
        "--plot", help="Also draw the sweep: time against nodes, and against price with a "
                       "catalogue (SVG or PNG, by the name's suffix).")] = None,
    force: ForceOpt = False,
    json_out: JsonOpt = False,
    csv_out: Annotated[bool, typer.Option(
        "--csv", help="Print every configuration as CSV (SI units) instead of tables.")] = False,
) -> None:
    """Sweep node count, node type, network, channels, link speed and latency in one pass: the
    baseline, the best configurations, where each change stops paying, the front of time
    against nodes, and with a catalogue's prices the front of time against price."""
    weak = _weak(scaling_mode)
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

        check_path(plot, force=force)
    from perfmodel.whatif.axes import parse_vary

    axes = parse_vary(vary or [], cat)
    model, prof, on = _model_on(app_model, machine)
    from perfmodel.apps.run import constants

    fit, size = constants(model, on, timings, where, set_values, saved, size, weak)
    grid = Grid({k: np.asarray(v, dtype=np.float64) for k, v in axes.items()}, cat)
    start = time.perf_counter()
    result, seconds = _timed_sweep(fit, prof, grid, size, weak, level,
                                   bar=not (json_out or csv_out))
    from perfmodel.cli import whatif_view

    if plot is not None:
        from perfmodel.cli import figures

        figures.write(plot, figures.sweep_figure(result, model.name, machine.stem), force=force)
    if csv_out:
        whatif_view.csv_rows(result)
        return
    from perfmodel.whatif.analysis import link_rows
    from perfmodel.whatif.sweep import wire_share

    rows = link_rows(result)
    wire = wire_share(fit, prof, result, rows, size, weak)
    total = time.perf_counter() - start
    if json_out:
        _emit_json(whatif_view.summary(result, seconds, worth, share, top, rows, wire))
    else:
        whatif_view.render(result, model.name, str(machine), seconds, worth, share, top, rows,
                           wire, total)


@app.command()
@guarded
def plan(
    app_model: Annotated[str, typer.Argument(
        metavar="APP", help="A built-in application model (ppm, nbody …) or a model file.")],
    machine: Annotated[Path, typer.Option(
        "--machine", "-m", help="The machine profile measured on the catalogue's reference "
                                "node (its fabric is what the networks retune).")],
    candidates: Annotated[Path, typer.Option(
        "--candidates", help="The hardware catalogue (TOML): node types, networks, prices.")],
    target_time: Annotated[str | None, typer.Option(
        "--target-time", help="The cheapest configuration that runs in at most this time "
                              "(e.g. 60s).")] = None,
    target_speedup: Annotated[float | None, typer.Option(
        "--target-speedup", help="The cheapest configuration this much faster than one "
                                 "reference node.")] = None,
    budget: Annotated[float | None, typer.Option(
        "--budget", help="The fastest configuration at most this price (the catalogue's "
                         "currency).")] = None,
    nodes: Annotated[str | None, typer.Option(
        "--nodes", help="Node counts to consider (default 1 to the most ports a network "
                        "offers).")] = None,
    timings: AppFitOpt = None,
    where: AppWhereOpt = None,
    set_values: AppSetOpt = None,
    saved: AppFromOpt = None,
    size: AppSizeOpt = None,
    scaling_mode: AppScalingOpt = "strong",
    runners: Annotated[int, typer.Option("--runners-up", min=0, max=50,
                                         help="Runners-up shown.")] = 4,
    level: LevelOpt = 0.95,
    json_out: JsonOpt = False,
) -> None:
    """The cheapest configuration in a catalogue that meets a target time or speedup, or the
    fastest a budget buys: with its margin, its band, and the runners-up."""
    given = [x for x in (target_time, target_speedup, budget) if x is not None]
    if len(given) != 1:
        raise InputError("give one target", fix="--target-time T, --target-speedup S or "
                                                "--budget B")
    weak = _weak(scaling_mode)

    import numpy as np

    from perfmodel.units import parse_counts, parse_time
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
    model, prof, on = _model_on(app_model, machine)
    most = max(n.ports for n in cat.networks)
    counts = parse_counts(nodes, "nodes") if nodes else list(range(1, min(most, 4096) + 1))
    from perfmodel.apps.run import constants

    fit, size = constants(model, on, timings, where, set_values, saved, size, weak)
    axes = {"nodes": np.asarray(counts, dtype=np.float64),
            "node": np.asarray([i for i, n in enumerate(cat.nodes) if n.price is not None],
                               dtype=np.float64),
            "network": np.arange(len(cat.networks), dtype=np.float64),
            "channels": np.asarray(sorted({c for n in cat.networks for c in n.channels}),
                                   dtype=np.float64)}
    ref = cat.node_index(cat.reference)
    if target.kind == "speedup" and ref not in axes["node"]:
        axes["node"] = np.sort(np.append(axes["node"], ref))
    grid = Grid(axes, cat)
    result, seconds = _timed_sweep(fit, prof, grid, size, weak, level, bar=not json_out)
    answer = make_plan(result, target, runners)
    from perfmodel.cli import plan_view

    if json_out:
        _emit_json(plan_view.summary(answer, cat, model.name, str(machine), seconds))
    else:
        plan_view.render(answer, cat, model.name, str(machine), seconds)
    if answer.chosen is None:
        raise typer.Exit(1)


def _weak(scaling: str) -> bool:
    """``--scaling strong|weak`` of predict, whatif and plan: whether it is weak."""
    if scaling not in ("strong", "weak"):
        raise InputError(f"--scaling {scaling!r}", fix="use strong or weak")
    return scaling == "weak"


def _model_on(app_model: str, machine: Path) -> tuple[AppModel, Profile, Machine]:
    """whatif's and plan's application model, the machine profile it runs on (with a node
    when the model costs its computation there) and that profile as a Machine."""
    from perfmodel.apps.machine import Machine, require_node
    from perfmodel.apps.model import load as load_model
    from perfmodel.profile import load

    model = load_model(app_model)
    prof = load(machine)
    if model.uses_node:
        require_node(prof, machine)
    return model, prof, Machine(prof)


def _timed_sweep(fit: AppFit, prof: Profile, grid: Grid, size: float | None, weak: bool,
                 level: float, bar: bool) -> tuple[Sweep, float]:
    """The sweep of whatif and plan, with a progress bar when ``bar``, and its seconds."""
    import time

    from perfmodel.whatif.sweep import sweep

    start = time.perf_counter()
    progress = _progress_bar(grid.size) if bar else None
    try:
        result = sweep(fit, prof, grid, size=size, weak=weak, level=level, progress=progress)
    finally:
        if progress is not None:
            progress(-1, -1)
    return result, time.perf_counter() - start


def _progress_bar(total: int) -> Callable[[int, int], None]:
    """A Rich progress bar on stderr that appears only once a sweep has run for a second."""
    import time

    state: dict[str, Any] = {"start": time.perf_counter(), "bar": None, "task": None}

    def update(done: int, whole: int) -> None:
        bar = state["bar"]
        if done < 0:
            if bar is not None:
                bar.stop()
            return
        if bar is None and time.perf_counter() - state["start"] > 1.0 and done < whole:
            from rich.console import Console
            from rich.progress import Progress

            bar = Progress(console=Console(stderr=True), transient=True)
            state["task"] = bar.add_task("sweeping", total=whole)
            bar.start()
            state["bar"] = bar
        if bar is not None:
            bar.update(state["task"], completed=done)

    return update


@app.command()
@guarded
def report(
    inputs: Annotated[list[Path], typer.Argument(
        metavar="SPEC|PROFILE...", help="A report specification (TOML, kind = \"perfmodel "
        "report\"), or machine profiles to report on.")],
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="The markdown to write; its figures go in the folder of the same "
                            "name beside it: reports/NAME.md, reports/NAME/*.svg.")],
    force: ForceOpt = False,
) -> None:
    """Write a markdown report with figures: inputs and provenance, fitted models with their
    formulas and parameters, measured against fitted, predictions and what-if tables."""
    if out.suffix.lower() != ".md":
        raise InputError(f"--out {out} is not a markdown file", fix="name it NAME.md")
    from perfmodel.io import check_writable

    check_writable(out, force=force)
    from perfmodel.readers import read_toml
    from perfmodel.report import build as builder
    from perfmodel.report.spec import KIND, from_doc

    first, text = read_toml(inputs[0], "a report specification or a machine profile")
    if first.get("kind") == KIND:
        if len(inputs) > 1:
            raise InputError("a report specification comes alone", file=inputs[1],
                             fix="list the profiles inside the specification")
        spec = from_doc(first, text, inputs[0])
    else:
        spec = builder.from_profiles(inputs)
    from rich.console import Console

    err = Console(stderr=True, highlight=False)
    with err.status("building the report") as status:
        built = builder.build(spec, out, lambda what: status.update(f"building: {what}"))
    written = builder.write(built, out, force=force)
    err.print(f"wrote {out} and {len(written) - 1} figure(s) in {out.with_suffix('')}/")


@app.command()
@guarded
def measure(
    pattern: Annotated[str, typer.Option(
        "--pattern", help="pingpong (ranks 0 and 1) | pairs (k pairs at once, k = 1..P/2) | "
                          "fanin (n senders into rank 0, n = 1..P-1) | exchange (the IMB "
                          "Exchange ring over 2, 4, … P ranks).")] = "pingpong",
    sizes: Annotated[str, typer.Option(
        "--sizes", "-s", help="Message sizes: 1B..4MiB for every doubling, or 0B,8KiB,1MiB.")
    ] = "1B..4MiB",
    reps: Annotated[int | None, typer.Option(
        "--reps", help="Time exactly this many repetitions per point (default: until the "
                       "median is stable, see --tolerance and --max-time).")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="CSV to write (default: standard output).")] = None,
    nprocs: Annotated[int | None, typer.Option(
        "--np", help="Ranks of the local run perfmodel starts when no launcher started it "
                     "(default 2 for pingpong, else 4). Under mpiexec or srun, the job's.")
    ] = None,
    counts: Annotated[str | None, typer.Option(
        "--counts", help="Only these pairs, senders or ring sizes: 1,2 or 2..8.")] = None,
    window: Annotated[int, typer.Option(
        "--window", help="fanin: messages each sender streams per repetition.")] = 64,
    warmup: Annotated[int, typer.Option(
        "--warmup", help="Untimed repetitions before each point.")] = 16,
    tolerance: Annotated[float, typer.Option(
        "--tolerance", help="Stop a point when its median's 95 % interval is within this "
                            "fraction of it.")] = 0.01,
    max_time: Annotated[str, typer.Option(
        "--max-time", help="Longest time spent on one point (its median may then be "
                           "unsettled, and the CSV says so).")] = "1s",
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress lines on standard error.")] = False,
    force: ForceOpt = False,
) -> None:
    """Run a calibration pattern over MPI and write perfmodel's CSV with its provenance.

    Under a site's launcher (mpiexec -n N perfmodel measure …, srun …) every rank measures;
    started alone, perfmodel starts mpiexec -n N itself (MPICH from PyPI with the mpi extra)."""
    import os
    import shlex

    from perfmodel.measure import launch
    from perfmodel.measure.plan import PATTERNS, make_plan
    from perfmodel.measure.plan import counts as measured_counts
    from perfmodel.units import parse_time

    try:
        budget = parse_time(max_time)
    except PerfModelError as exc:
        raise InputError(f"--max-time {max_time!r}: {exc.what}", fix=exc.fix) from None
    plan = make_plan(pattern, sizes, reps=reps, counts=counts, window=window, warmup=warmup,
                     tolerance=tolerance, budget=budget)
    if nprocs is not None and not 2 <= nprocs <= 4096:
        raise InputError(f"--np {nprocs} is out of range", fix="give 2 to 4096 ranks")
    if out is not None:
        from perfmodel.io import check_writable

        check_writable(out, force=force)
    launch.require_mpi4py()
    launcher = launch.detect(os.environ)
    if launcher is None:
        import subprocess

        n = nprocs or PATTERNS[pattern].default_np
        measured_counts(plan, n)   # said here, before any rank starts
        mpiexec = launch.find_mpiexec()
        cmd = launch.local_command(mpiexec, n, sys.argv[1:])
        if not quiet:
            _err(f"measure: starting {n} ranks: {shlex.join(cmd)}")
        code = subprocess.call(cmd, env=launch.child_env(os.environ, mpiexec, n))
        raise typer.Exit(128 - code if code < 0 else code)   # killed by signal s: 128 + s
    _measure_in_job(plan, out, force, quiet, nprocs, launcher,
                    shlex.join(["perfmodel", *sys.argv[1:]]))


def _measure_in_job(plan: Any, out: Path | None, force: bool, quiet: bool,
                    nprocs: int | None, launcher: str, command: str) -> None:
    """One rank's part of measure: every rank measures, rank 0 reports and writes; an error
    is said once, by rank 0, and every rank exits with 2."""
    import os

    from perfmodel.errors import OutputError
    from perfmodel.measure import job, launch

    try:
        comm = job.world(os.environ)
    except PerfModelError:   # MPI cannot say who is rank 0: the launcher can
        if launch.launcher_rank(os.environ) not in (0, None):
            raise typer.Exit(2) from None
        raise
    rank = comm.rank
    speaks = rank == 0 if comm.size > 1 else launch.launcher_rank(os.environ) in (0, None)
    try:
        if nprocs is not None and nprocs != comm.size:
            raise InputError(f"--np {nprocs}, but the launcher started {comm.size} ranks",
                             fix="drop --np under a launcher, or give the job's size")
        problem: OutputError | None = None
        if rank == 0 and out is not None:
            from perfmodel.io import check_writable

            try:
                check_writable(out, force=force)
            except OutputError as exc:
                problem = exc
        problem = comm.bcast(problem, root=0)
        if problem is not None:
            raise problem

        def say(line: str) -> None:
            sys.stderr.write(f"measure: {line}\n")
            sys.stderr.flush()

        result = job.run(plan, comm, command=command, launcher=f"{launcher}; {comm.size} ranks",
                         progress=None if quiet else say)
    except PerfModelError:
        if not speaks:
            raise typer.Exit(2) from None
        raise
    except Exception:   # not a bad input: a bug, or the machine; end every rank, not just this
        if comm.size > 1:
            import traceback

            sys.stderr.write(f"measure: rank {rank} failed; ending the job\n")
            traceback.print_exc()
            sys.stderr.flush()
            comm.Abort(1)
            os._exit(1)   # MPICH's Abort can return to its caller
        raise
    if result is None:
        return
    from perfmodel.measure.table import to_csv

    text = to_csv(result)
    if out is None:
        sys.stdout.write(text)
        return
    from perfmodel.io import write_atomic

    write_atomic(out, text, force=force)
    if not quiet:
        _err(f"measure: wrote {out}: {len(result.rows)} rows")


@app.command()
def models() -> None:
    """List the network and application models, with their formulas."""
    from perfmodel.cli import render

    render.models()


def main() -> None:
    """Console entry point: usage errors, like every other error, are one line and exit 2."""
    # typer's click (vendored in recent typer) is reached through its public BadParameter
    usage_error: type[Exception] = next(
        c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
    try:
        code = app(standalone_mode=False, prog_name="perfmodel")
    except usage_error as exc:
        ctx = getattr(exc, "ctx", None)
        message = str(exc.format_message()) if hasattr(exc, "format_message") else str(exc)
        if not message and ctx is not None:  # no arguments at all: show the help
            help_text = ctx.get_help()
            if help_text:
                typer.echo(help_text)
            sys.exit(0)
        command = ctx.command_path if ctx is not None else "perfmodel"
        _err(f"error: {message} — see '{command} --help'")
        sys.exit(2)
    except Exception as exc:
        if type(exc).__name__ != "Abort":  # interrupted (Ctrl-C) or end of input
            raise
        _err("error: interrupted")
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
