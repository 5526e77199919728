#!/usr/bin/env python3
"""The import graph of perfmodel, and the rooms each part may import (docs/architecture.md).

Every ``import`` and ``from … import`` in ``perfmodel/`` is read from the source (the abstract
syntax tree, so imports inside functions count as much as those at the top), and each module is
placed in its room by :data:`ROOMS`.  A room may import its own room and the rooms below it,
never one above.  Typer and Rich are imported only in ``cli/``.

    python tools/layers.py            # the rooms and every import that runs back up; exit 1 if any
    python tools/layers.py --graph    # every module with the perfmodel modules it imports
    python tools/layers.py --dot      # the graph between rooms, for Graphviz (dot -Tsvg)
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "perfmodel"

ROOMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("perfmodel", "perfmodel.errors", "perfmodel.units", "perfmodel.lazy",
              "perfmodel.leastsq", "perfmodel.io", "perfmodel.params", "perfmodel.provenance",
              "perfmodel.measurements", "perfmodel.kinds", "perfmodel.plain",
              "perfmodel.layout")),
    ("readers", ("perfmodel.readers",)),
    ("files", ("perfmodel.files",)),
    ("network", ("perfmodel.network", "perfmodel.node", "perfmodel.node_rates")),
    ("machine", ("perfmodel.machine", "perfmodel.machine.profile")),
    ("models", ("perfmodel.calibrate", "perfmodel.inputs", "perfmodel.choice", "perfmodel.apps",
                "perfmodel.empirical")),
    ("whatif", ("perfmodel.whatif",)),
    ("report", ("perfmodel.report",)),
    ("measure", ("perfmodel.measure",)),
    ("cli", ("perfmodel.cli", "perfmodel.__main__")),
)
"""The rooms from the lowest up, each with the modules and packages it holds (a package holds
its submodules).  The longest prefix decides, so ``perfmodel`` alone is only the package's
``__init__``."""

UI = ("typer", "rich", "click")
"""Libraries of the command line: imported in the ``cli`` room only."""


@dataclass(frozen=True)
class Import:
    """One import statement: who imports what, on which line."""

    module: str
    target: str
    line: int


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(path: Path) -> Iterator[Import]:
    """Every import in ``path``, relative ones resolved, ``from P import m`` naming ``P.m``
    where ``m`` is a module."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(name, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield Import(name, target, node.lineno)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if _is_module(sub):
                    yield Import(name, sub, node.lineno)


def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (ROOT / rel).with_suffix(".py").is_file() or (ROOT / rel / "__init__.py").is_file()


def room(module: str) -> int:
    """The index in :data:`ROOMS` of the room holding ``module``."""
    best, where = -1, -1
    for i, (_, members) in enumerate(ROOMS):
        for member in members:
            inside = module == member or (member != "perfmodel" and
                                          module.startswith(member + "."))
            if inside and len(member) > best:
                best, where = len(member), i
    if where < 0:
        raise SystemExit(f"tools/layers.py: {module} is in no room; add it to ROOMS")
    return where


def graph() -> dict[str, list[Import]]:
    """Each module of perfmodel with its imports of perfmodel modules and of UI libraries."""
    out: dict[str, list[Import]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found = [i for i in imports(path)
                 if i.target.split(".")[0] == "perfmodel" or i.target.split(".")[0] in UI]
        out[module_name(path)] = found
    return out


def violations(edges: dict[str, list[Import]]) -> list[str]:
    """Every import that runs up the rooms, and every UI import outside ``cli``."""
    cli = room("perfmodel.cli")
    bad = []
    for module, found in edges.items():
        here = room(module)
        for imp in found:
            where = f"{module.replace('.', '/')}.py:{imp.line}"
            if imp.target.split(".")[0] in UI:
                if here != cli:
                    bad.append(f"{where}: imports {imp.target} outside cli/")
                continue
            there = room(imp.target)
            if there > here:
                bad.append(f"{where}: {module} ({ROOMS[here][0]}) imports {imp.target} "
                           f"({ROOMS[there][0]}), a room above it")
    return sorted(set(bad))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", action="store_true", help="print every module's imports")
    parser.add_argument("--dot", action="store_true", help="the graph between rooms, for dot")
    args = parser.parse_args(argv)
    edges = graph()
    if args.graph:
        for module, found in edges.items():
            print(module, "->", " ".join(sorted({i.target for i in found})))
        return 0
    if args.dot:
        pairs = {(ROOMS[room(m)][0], ROOMS[room(i.target)][0]) for m, found in edges.items()
                 for i in found if i.target.split(".")[0] == "perfmodel"}
        print("digraph perfmodel {\n  rankdir=BT;")
        for a, b in sorted(pairs):
            if a != b:
                print(f'  "{a}" -> "{b}";')
        print("}")
        return 0
    for name, members in ROOMS:
        print(f"{name:8} {' '.join(m.removeprefix('perfmodel.') for m in members)}")
    bad = violations(edges)
    print(f"{len(edges)} modules, {sum(len(f) for f in edges.values())} imports; "
          f"{len(bad)} run up the rooms")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
