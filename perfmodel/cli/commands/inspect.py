"""``perfmodel inspect``: the command's options, one call into the core, and its view."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from perfmodel.cli import options
from perfmodel.cli.common import (
    emit_json,
)

EXAMPLES = [
    "perfmodel inspect data/mpi4py/pingpong_mpich.csv",
    "perfmodel inspect data/local/mpi4py-bench-pingpong-np2.txt --rows 5 --json",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


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
        emit_json(render.inspect_doc(found, rows))
    else:
        render.inspect(found, rows)
