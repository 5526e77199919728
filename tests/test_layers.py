"""The house (docs/architecture.md): no import runs up the rooms, typer and rich live in cli/
alone, no module outgrows 600 lines, and cli/app.py only registers commands."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _layers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("layers", ROOT / "tools" / "layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["layers"] = module
    spec.loader.exec_module(module)
    return module


layers = _layers()


def test_no_import_runs_up_the_rooms() -> None:
    assert layers.violations(layers.graph()) == []


def test_an_upward_import_and_a_ui_import_are_caught() -> None:
    imp = layers.Import
    edges = {"perfmodel.units": [imp("perfmodel.units", "perfmodel.network.fit", 3)],
             "perfmodel.network.fit": [imp("perfmodel.network.fit", "rich.console", 9)],
             "perfmodel.cli.render": [imp("perfmodel.cli.render", "rich", 1),
                                      imp("perfmodel.cli.render", "perfmodel.units", 2)],
             "perfmodel.apps.fit": [imp("perfmodel.apps.fit", "perfmodel.machine.core", 4)]}
    found = layers.violations(edges)
    assert len(found) == 2
    assert found[0].startswith("perfmodel/network/fit.py:9: imports rich.console outside cli/")
    assert found[1].startswith("perfmodel/units.py:3: perfmodel.units (base) imports "
                               "perfmodel.network.fit (network)")


def test_imports_inside_functions_are_read() -> None:
    found = {i.target for i in layers.imports(ROOT / "perfmodel" / "cli" / "commands" /
                                               "calibrate.py")}
    assert "perfmodel.calibrate" in found   # imported inside the command, at run time


def test_every_module_has_a_room() -> None:
    for module in layers.graph():
        assert layers.room(module) >= 0


def test_no_module_passes_600_lines_and_the_app_only_registers() -> None:
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in (ROOT / "perfmodel").rglob("*.py")}
    assert {k: v for k, v in sizes.items() if v > 600} == {}
    assert sizes["perfmodel/cli/app.py"] < 200


def test_the_command_line_choices_are_the_registries() -> None:
    """The CLI declares its choices as literals (importing the registries would load NumPy
    at start-up); each must be its registry's names, in order."""
    import re

    import typer.main
    from typer.testing import CliRunner

    from perfmodel.cli.app import app
    from perfmodel.measure.plan import PATTERNS
    from perfmodel.network import models
    from perfmodel.network.fabric import TOPOLOGIES
    from perfmodel.network.hierarchy import PLACEMENTS

    def choices(*args: str) -> list[str]:
        said = CliRunner().invoke(app, [*args, "nope"]).stderr
        listed = re.search(r"use (.*)$", said.strip())
        assert listed is not None, said
        return re.split(r", | or ", listed[1])

    assert choices("calibrate", "--topology") == list(TOPOLOGIES)
    assert choices("network", "x.toml", "--placement") == list(PLACEMENTS)
    assert choices("measure", "--pattern") == list(PATTERNS)
    group = typer.main.get_command(app)
    model_help = next(p for p in group.commands["calibrate"].params   # type: ignore[attr-defined]
                      if "--model" in p.opts).help
    assert model_help == " | ".join([models.AUTO, *models.MODELS]) + "."
