"""Every option of the command line, defined once, with one parser per kind of value.

A command takes its options from here (``level: options.Level = 0.95``), so an option has
one name, one short form, one help text and one check in every command that has it.  The
parsers turn the text into SI values and refuse a bad one before the command runs, as one
line: ``error: --link-speed '0Mbps' is not a positive rate — e.g. --link-speed 100Mbps``.

Short forms, each with one meaning: ``-m`` --machine, ``-n`` --nodes, ``-s`` --sizes (message
sizes), ``-p`` --processes, ``-o`` --out, ``-c`` --channels, ``-l`` --link-speed, ``-k``
--pairs, ``-b`` --benchmark, ``-q`` --quiet, ``-h`` --help.

Only the standard library, typer and perfmodel's unit parser are imported here, so
``perfmodel --help`` stays fast.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Self, TypeVar

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from perfmodel.errors import InputError, PerfModelError

if TYPE_CHECKING:
    from perfmodel.units import Kind

T = TypeVar("T")
V = TypeVar("V")

# --- values -------------------------------------------------------------------------------------


class _Given(tuple[V, ...]):
    """Values given as one option, with the text they came from (``.text``, and ``str()``)."""

    text: str

    def __new__(cls, values: Iterable[V], text: str) -> Self:
        self = super().__new__(cls, values)
        self.text = text
        return self

    def __str__(self) -> str:
        return self.text


class Quantities(_Given[float]):
    """Sizes or rates given as one option (``1B,8KiB,1MiB``, ``4B..8KiB``): SI values, in the
    order given."""


class Counts(_Given[int]):
    """Whole numbers given as one option (``1..8``, ``1,2,4``): sorted, each once."""


class BadValue(typer.BadParameter):
    """A value an option cannot take, said the way perfmodel says every error:
    ``--flag 'text' <what is wrong> — <how to fix it>``."""

    def __init__(self, error: PerfModelError) -> None:
        super().__init__(error.one_line())

    def format_message(self) -> str:
        return self.message


def _parser(parse: Callable[[str, str], T], flag: str) -> Callable[[Any], T]:
    """``parse(text, flag)`` as typer's parser of ``flag``: a PerfModelError becomes BadValue."""

    def run(value: Any) -> T:
        if not isinstance(value, str):   # already parsed (a default given as a value)
            return value
        try:
            return parse(value, flag)
        except PerfModelError as exc:
            raise BadValue(exc) from None

    return run


def _prefixed(exc: PerfModelError, flag: str, text: str) -> InputError:
    """The unit parser's error, said about ``flag`` (which it does not know)."""
    what = exc.what if exc.what.startswith(flag) else f"{flag} {exc.what}" \
        if exc.what.startswith(repr(text)) else f"{flag} {text!r}: {exc.what}"
    return InputError(what, fix=exc.fix)


# --- one parser per kind of value: (text, flag) -> value, or InputError -------------------------

def _one(text: str, flag: str, kind: Kind) -> float:
    """One quantity of ``kind`` (``rate``, ``size``) in SI units, the error said about ``flag``."""
    from perfmodel.units import parse_quantity

    try:
        return parse_quantity(text, kind)
    except PerfModelError as exc:
        raise _prefixed(exc, flag, text) from None


def _many(text: str, flag: str, kind: Kind) -> list[float]:
    """A list of quantities of ``kind`` (``1B,8KiB``, ``4B..8KiB``), the error about ``flag``."""
    from perfmodel.units import parse_list

    try:
        return parse_list(text, kind)
    except PerfModelError as exc:
        raise _prefixed(exc, flag, text) from None


def rate(text: str, flag: str) -> float:
    """One line rate, positive and finite: ``100Mbps`` -> 12.5e6 (bytes/s)."""
    value = _one(text, flag, "rate")
    _link_speeds([value], text, flag, f"e.g. {flag} 100Mbps")
    return value


def latency(text: str, flag: str) -> float:
    """One per-message latency, from 0 to an hour: ``2us`` -> 2e-6 (seconds)."""
    value = _one(text, flag, "time")
    if not 0 <= value <= 3600:
        raise InputError(f"{flag} {text!r} is not a latency from 0 to an hour",
                         fix=f"e.g. {flag} 2us")
    return value


def rates(text: str, flag: str) -> Quantities:
    """Line rates, each positive and finite: ``10Mbps,100Mbps,1Gbps``."""
    values = _many(text, flag, "rate")
    _link_speeds(values, text, flag, f"e.g. {flag} 10Mbps,100Mbps", "a list of positive rates")
    return Quantities(values, text)


def _link_speeds(values: list[float], text: str, flag: str, example: str,
                 noun: str = "a positive rate") -> None:
    """Refuse a value no link has (:func:`~perfmodel.units.line_rate_problem`)."""
    from perfmodel.units import line_rate_problem

    for v in values:
        why = line_rate_problem(v)
        if why == "is not a positive rate":
            raise InputError(f"{flag} {text!r} is not {noun}", fix=example)
        if why:
            raise InputError(f"{flag} {text!r} {why}: no link is that slow or fast",
                             fix=f"check the unit, e.g. {flag} 100Mbps")


def sizes(text: str, flag: str) -> Quantities:
    """Message sizes in bytes, each 0 or more: ``1B,8KiB,1MiB``, ``4B..8KiB`` (doublings)."""
    values = _many(text, flag, "size")
    if any(v < 0 for v in values):
        raise InputError(f"{flag} {text!r} has a negative size",
                         fix="sizes are 0 or more bytes")
    return Quantities(values, text)


def message_size(text: str, flag: str) -> float:
    """One message size in bytes, more than 0: ``64KiB``."""
    value = _one(text, flag, "size")
    if not value > 0:
        raise InputError(f"{flag} {text!r} is not a positive size", fix=f"e.g. {flag} 8KiB")
    return value


def table_size(text: str, flag: str) -> float:
    """One message size in bytes, 0 or more (a row of a benchmark table): ``8KiB``."""
    value = _one(text, flag, "size")
    if value < 0:
        raise InputError(f"{flag} {text!r} is a negative size", fix=f"e.g. {flag} 8KiB")
    return value


def problem_size(text: str, flag: str) -> float:
    """An application's problem size in its model's unit, finite and more than 0: ``16``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"{flag} {text!r} is not a positive size", fix=f"e.g. {flag} 16")
    return value


def counts(lo: int = 1, hi: int | None = None) -> Callable[[str, str], Counts]:
    """Whole numbers from ``lo`` to ``hi``: ``1..8``, ``1,2,4``, ``1..4,8,16`` (ranges step by
    one); sorted, each once."""

    def parse(text: str, flag: str) -> Counts:
        from perfmodel.units import parse_counts

        return Counts(parse_counts(text, flag, lo, hi), text)

    return parse


def whole(lo: int, hi: int) -> Callable[[str, str], int]:
    """One whole number from ``lo`` to ``hi``."""

    def parse(text: str, flag: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            value = lo - 1
        if not lo <= value <= hi:
            raise InputError(f"{flag} {text!r} is not a whole number from {lo} to {hi}",
                             fix=f"e.g. {flag} {lo if lo > 0 else lo + 1}")
        return value

    return parse


def number(lo: float, hi: float = math.inf, *, above: bool = False,
           example: str = "") -> Callable[[str, str], float]:
    """One finite number from ``lo`` (or above it, with ``above``) to ``hi``."""

    def parse(text: str, flag: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        low_ok = value > lo if above else value >= lo
        if not (math.isfinite(value) and low_ok and value <= hi):
            if hi == math.inf:
                span = f"more than {lo:g}" if above else f"{lo:g} or more"
            else:
                span = f"{'above' if above else 'from'} {lo:g} to {hi:g}"
            raise InputError(f"{flag} {text!r} is not a number {span}",
                             fix=f"e.g. {flag} {example or format(hi, 'g')}")
        return value

    return parse


def duration(lo: float, hi: float) -> Callable[[str, str], float]:
    """One time with its unit, more than ``lo`` and at most ``hi`` seconds: ``500ms``, ``2s``."""

    def parse(text: str, flag: str) -> float:
        value = _one(text, flag, "time")
        if not lo < value <= hi:
            raise InputError(f"{flag} {text!r} is not a time above {lo:g} s and at most "
                             f"{hi:g} s", fix=f"e.g. {flag} 1s")
        return value

    return parse


def choice(*words: str) -> Callable[[str, str], str]:
    """One of ``words``."""

    def parse(text: str, flag: str) -> str:
        if text not in words:
            listed = f"{', '.join(words[:-1])} or {words[-1]}"
            raise InputError(f"{flag} {text!r} is not one of its choices", fix=f"use {listed}")
        return text

    return parse


def parsed(parse: Callable[[str, str], T], text: str) -> T:
    """A default value, parsed as the option parses what it is given."""
    return parse(text, "default")


def option(*names: str, parse: Callable[[str, str], Any] | None = None,
           choices: tuple[str, ...] = (), **kwargs: Any) -> Any:
    """``typer.Option(*names, ...)`` whose text ``parse(text, names[0])`` checks and converts;
    ``choices`` also complete in the shell."""
    if choices:
        parse = choice(*choices)
        kwargs.setdefault("autocompletion", lambda: list(choices))
    if parse is not None:
        kwargs["parser"] = _parser(parse, names[0])
    return typer.Option(*names, **kwargs)


# --- the options ---------------------------------------------------------------------------------
# Aliases where the help is the same in every command; a function where a command says more
# (its default, what the value is for): the names, the metavar and the check are still here.

Json = Annotated[bool, typer.Option("--json", help="Print JSON (SI units) instead of tables.")]
Force = Annotated[bool, typer.Option("--force", help="Replace an existing output file.")]
Level = Annotated[float, option(
    "--level", parse=number(0.5, 0.999, example="0.9"), metavar="LEVEL",
    help="Coverage of the prediction intervals, from 0.5 to 0.999.")]


def out(help: str) -> Any:
    """``--out``/``-o``: the file a command writes."""
    return typer.Option("--out", "-o", metavar="FILE", help=help)


def quiet(help: str) -> Any:
    """``--quiet``/``-q``: print less."""
    return typer.Option("--quiet", "-q", help=help)


# the machine and its network

def machine(help: str) -> Any:
    """``--machine``/``-m``: a machine profile from calibrate."""
    return typer.Option("--machine", "-m", metavar="PROFILE", help=help)


Channel = Annotated[int | None, option(
    "--channels", "-c", parse=whole(1, 64), metavar="N",
    help="Channels per node (segments, bonded NICs) instead of the profile's: 1 to 64.")]
ChannelList = Annotated[Counts | None, option(
    "--channels", "-c", parse=counts(1, 64), metavar="COUNTS",
    help="Channels per node (segments, bonded NICs) instead of the profile's, each 1 to 64: "
         "1,2.")]
LinkSpeed = Annotated[float | None, option(
    "--link-speed", "-l", parse=rate, metavar="RATE",
    help="Line rate of a channel instead of the profile's: 100Mbps.")]
Latency = Annotated[float | None, option(
    "--latency", parse=latency, metavar="TIME",
    help="Per-message host latency instead of the profile's (its fabric's overhead): 2us.")]
LinkSpeeds = Annotated[Quantities | None, option(
    "--link-speed", "-l", parse=rates, metavar="RATES",
    help="Line rates of a channel instead of the profile's: 10Mbps,100Mbps,1Gbps.")]
Sizes = Annotated[Quantities, option(
    "--sizes", "-s", parse=sizes, metavar="SIZES",
    help="Message sizes: 0B,8KiB,1MiB, or 1B..4MiB for every doubling.")]


# node counts and the application model's problem and constants

def nodes(help: str) -> Any:
    """``--nodes``/``-n``: node (process) counts to predict."""
    return option("--nodes", "-n", parse=counts(), metavar="COUNTS", help=help)


ProblemSize = Annotated[float | None, option(
    "--size", parse=problem_size, metavar="N",
    help="Problem size in the model's unit (default: the model's, or the timings'); per "
         "process under --scaling weak.")]
Scaling = Annotated[str, option(
    "--scaling", choices=("strong", "weak"), metavar="strong|weak",
    help="strong: the same problem on every node count; weak: --size per process, so the "
         "problem grows with the nodes (with --on and no APP: each node's work is the "
         "smallest run's at every count).")]
App = Annotated[str, typer.Argument(
    metavar="APP", help="A built-in application model (ppm, nbody, physical-optics …; "
                        "perfmodel models lists them) or a model file.")]
OptionalApp = Annotated[str | None, typer.Argument(
    metavar="[APP]", help="A built-in application model (ppm, nbody, physical-optics …; "
                          "perfmodel models lists them) or a model file; without one, "
                          "--on moves the timings themselves.")]
OptionalWhatifApp = Annotated[str | None, typer.Argument(
    metavar="[APP]", help="A built-in application model (ppm, nbody, physical-optics …; "
                          "perfmodel models lists them) or a model file; without one, --fit's "
                          "timings are moved to each machine of --vary machine=… (or a "
                          "catalogue's machines).")]
OptionalPlanApp = Annotated[str | None, typer.Argument(
    metavar="[APP]", help="A built-in application model (ppm, nbody, physical-optics …; "
                          "perfmodel models lists them) or a model file; without one, --fit's "
                          "timings are moved to each machine a catalogue of machines offers.")]
Fit = Annotated[Path | None, typer.Option(
    "--fit", metavar="CSV",
    help="Measured run times (CSV: nodes, time_s, optional part and labels) to fit the model's "
         "constants to.")]
Where = Annotated[list[str] | None, typer.Option(
    "--where", metavar="LABEL=VALUE",
    help="Use only timing rows with this label: machine=t3d (repeatable).")]
Columns = Annotated[str | None, typer.Option(
    "--columns", metavar="ROLE=COLUMN,…",
    help="The timing CSV's own names of the columns perfmodel reads: "
         "processes=NProc,time=MaxTime (roles: nodes, processes, ranks_per_node, time, size, "
         "rep, part). Other columns of numbers are left out, said. For Extra-P input, which "
         "parameter is the process count (processes=x) or the nodes.")]


def columns(text: str | None) -> dict[str, str] | None:
    """``--columns`` parsed (None when not given)."""
    from perfmodel.apps.timings import parse_columns

    return parse_columns(text) if text else None


Set = Annotated[list[str] | None, typer.Option(
    "--set", metavar="NAME=VALUE",
    help="Give a constant instead of fitting it: work_II=300 (SI units, or with a unit: 2us, "
         "1KiB, 10MB/s). Repeatable.")]
From = Annotated[Path | None, typer.Option(
    "--from", metavar="FILE",
    help="Use the constants saved by predict --save instead of fitting them.")]


def candidates(help: str) -> Any:
    """``--candidates``: a hardware catalogue."""
    return typer.Option("--candidates", metavar="CATALOGUE", help=help)


# measurement files

Benchmark = Annotated[str | None, typer.Option(
    "--benchmark", "-b", metavar="NAME",
    help="Which table of a file with several: PingPong, Exchange, bw … (NAME@P for P "
         "processes). Default: the ping-pong.")]


# --- help without Python type names -------------------------------------------------------------

class _Option(TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        """The option's metavar (RATE, SIZES, N …); nothing for a flag: never ``<bool>``."""
        if self.is_flag or self.count:
            return None
        if self.metavar is not None:
            return self.metavar
        return "TEXT"

    def _get_number_range_help_str(self) -> str | None:
        return None

    def _extract_default_help_str(self, *, ctx: Any) -> Any:
        """A default of sizes or counts as it is written (``1,2,4``), not as a tuple."""
        value = super()._extract_default_help_str(ctx=ctx)
        return str(value) if isinstance(value, Quantities | Counts) else value


class _Argument(TyperArgument):
    def display_type_rich(self, ctx: Any) -> str | None:
        """Nothing: the argument's name (its metavar, PROFILE …) says what it takes."""
        return None


def _plain(params: list[Any]) -> list[Any]:
    """``params`` shown as :class:`_Option` and :class:`_Argument` (the same objects)."""
    for param in params:
        if type(param) is TyperOption:
            param.__class__ = _Option
        elif type(param) is TyperArgument:
            param.__class__ = _Argument
    return params


class Command(TyperCommand):
    """A command whose help shows metavars, never Python type names."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))


class Group(TyperGroup):
    """The command group, whose help shows metavars, never Python type names."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))
