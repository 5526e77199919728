"""``perfmodel report``: the command's options, one call into the core, and its view."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from perfmodel.cli import options
from perfmodel.errors import InputError

EXAMPLES = [
    "perfmodel report reports/specs/beowulf-1995.toml --out reports/beowulf-1995.md --force",
    "perfmodel report calibration/mpi4py-mpich.toml calibration/mpi4py-ompi.toml --out "
    "build/mpi4py.md",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


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
    from perfmodel.files.toml import read_toml
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
