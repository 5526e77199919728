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
