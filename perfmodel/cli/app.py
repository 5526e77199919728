"""The command line: registers the commands of :mod:`perfmodel.cli.commands` (one module each:
options, one call into the core, its view) and turns every error into one line.

Heavy libraries (numpy, lmfit, scipy, sympy, matplotlib) are imported inside the commands
that need them, so ``perfmodel --help`` and ``--version`` answer fast.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

import typer

from perfmodel import __version__
from perfmodel.cli import options
from perfmodel.cli.commands import COMMANDS
from perfmodel.cli.common import err as _err
from perfmodel.errors import PerfModelError

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


for _name in COMMANDS:
    _module = importlib.import_module(f"perfmodel.cli.commands.{_name}")
    _command = getattr(_module, _name)
    app.command(_name, cls=options.Command, help=_paragraphs(_command.__doc__ or ""),
                epilog="Examples:\n" + "\n".join(_folded(e) for e in _module.EXAMPLES)
                )(guarded(_command))


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
