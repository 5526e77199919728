"""``perfmodel models``: the command's options, one call into the core, and its view."""

from __future__ import annotations

from typing import Annotated

import typer

from perfmodel.cli.common import (
    emit_json,
)

EXAMPLES = [
    "perfmodel models",
    "perfmodel models ppm",
    "perfmodel models nbody --json",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


def models(
    name: Annotated[str | None, typer.Argument(
        metavar="NAME", help="One application model (built-in name or file) to show in "
                               "full.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print JSON (SI units) instead of tables.")] = False,
) -> None:
    """List the network models with their parameters, and the application models with their
    constants (unit, meaning, value or fitted), problem size and the range where each holds."""
    from perfmodel.apps.model_file import builtin_names, load
    from perfmodel.cli import models_view

    chosen = [load(name)] if name is not None else [load(n) for n in builtin_names()]
    if json_out:
        emit_json(models_view.model_doc(chosen[0]) if name is not None
                   else models_view.models_doc(chosen))
    elif name is not None:
        models_view.show_one(chosen[0])
    else:
        models_view.show(chosen)
