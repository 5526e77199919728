"""The axes of a what-if sweep as people write them (``nodes=1..64``, ``link-speed=10Mbps,
100Mbps``, ``network=all``), turned into the values :class:`~perfmodel.whatif.sweep.Grid`
takes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from perfmodel.errors import InputError, PerfModelError
from perfmodel.whatif.catalogue import Catalogue

if TYPE_CHECKING:
    from perfmodel.whatif.sweep import Grid

LABELS = {"nodes": "nodes", "channels": "channels", "link_speed": "link speed",
          "latency": "latency", "node": "node type", "network": "network",
          "machine": "machine"}
"""Each axis as a sentence names it."""

def axis_text(axis: str, v: float, cat: Catalogue | None = None,
              machines: Sequence[str] = ()) -> str:
    """An axis's value as tables and sentences write it: a catalogue's node or network by
    name, a machine by its label, a link speed in bits per second, a latency as a time, a
    count as a number."""
    from perfmodel.units import format_line_rate, format_number, format_time

    if axis == "machine" and machines:
        return machines[int(v)]
    if axis == "node" and cat is not None:
        return cat.nodes[int(v)].name
    if axis == "network" and cat is not None:
        return cat.networks[int(v)].name
    if axis == "link_speed":
        return format_line_rate(v)
    if axis == "latency":
        return format_time(v)
    return format_number(v)


def namer(grid: Grid) -> Callable[[str, float], str]:
    """:func:`axis_text` for ``grid``'s axes (its catalogue's entries and machines by name)."""
    machines = [label for label, _ in grid.machines]
    return lambda axis, v: axis_text(axis, v, grid.catalogue, machines)


def named(grid: Grid, axis: str, v: float) -> str | float:
    """A value as JSON gives it: an entry of a catalogue or a machine by name, else the
    number."""
    from perfmodel.whatif.sweep import CATEGORICAL

    return namer(grid)(axis, v) if axis in CATEGORICAL else v


VARY = {"nodes": "nodes", "channels": "channels", "link-speed": "link_speed",
        "link_speed": "link_speed", "latency": "latency", "node": "node",
        "network": "network", "machine": "machine"}


def parse_vary(items: Sequence[str], cat: Catalogue | None = None) -> dict[str, list[float]]:
    from perfmodel.units import MAX_LATENCY, line_rate_problem, parse_counts, parse_list

    out: dict[str, list[float]] = {}
    for item in items:
        name, sep, values = (x.strip() for x in item.partition("="))
        axis = VARY.get(name.lower())
        if not sep or not values or axis is None:
            raise InputError(f"--vary {item!r} is not AXIS=VALUES with a known axis",
                             fix="axes: nodes, channels, link-speed, latency, machine (profiles), "
                                 "and with --candidates node and network; e.g. --vary "
                                 "nodes=1..64")
        if axis in out:
            raise InputError(f"--vary gives {name} twice", fix="give each axis once")
        if axis == "machine":
            out[axis] = [float(j) for j in range(len(machine_offers([item], cat)))]
        elif axis in ("node", "network"):
            out[axis] = entries(axis, values, cat)
        elif axis in ("nodes", "channels"):
            out[axis] = [float(c) for c in parse_counts(values, f"vary {name}")]
        else:
            try:
                out[axis] = parse_list(values, "rate" if axis == "link_speed" else "time")
            except PerfModelError as exc:
                raise InputError(f"--vary {item!r}: {exc.what}", fix=exc.fix) from None
            if not all(v > 0 for v in out[axis]):
                raise InputError(f"--vary {item!r}: values must be positive",
                                 fix="e.g. --vary latency=10us,100us")
            bad = [v for v in out[axis] if axis == "link_speed" and line_rate_problem(v)]
            if bad:
                raise InputError(f"--vary {item!r}: a value {line_rate_problem(bad[0])}",
                                 fix="check the unit, e.g. --vary link-speed=10Mbps,100Mbps")
            if axis == "latency" and max(out[axis]) > MAX_LATENCY:
                raise InputError(f"--vary {item!r}: a latency over {MAX_LATENCY:g} s",
                                 fix="check the unit, e.g. --vary latency=10us,100us")
    out.setdefault("nodes", [1.0, 2.0, 4.0, 8.0, 16.0])
    return out


def entries(axis: str, text: str, cat: Catalogue | None) -> list[float]:
    """Catalogue entries by name (``all``: every one; node types for sale only)."""
    if cat is None:
        raise InputError(f"--vary {axis}={text} names catalogue entries",
                         fix="give the catalogue with --candidates FILE")
    if not cat.nodes:
        raise InputError(f"--vary {axis}={text}: catalogue {cat.name!r} offers whole machines, "
                         "no node types or networks", fix="vary machine=NAME,... (or =all)")
    names = [x.strip() for x in text.split(",") if x.strip()]
    if names == ["all"]:
        if axis == "node":
            return [float(i) for i, n in enumerate(cat.nodes) if n.price is not None]
        return [float(i) for i in range(len(cat.networks))]
    find = cat.node_index if axis == "node" else cat.network_index
    out = [float(find(n)) for n in names]
    if len(set(out)) != len(out):
        raise InputError(f"--vary {axis} names an entry twice", fix="name each once")
    return out


def machine_paths(items: Sequence[str]) -> list[str]:
    """The profiles ``--vary machine=A.toml,B.toml`` names, in order (none without the
    axis)."""
    for item in items:
        name, _, values = (x.strip() for x in item.partition("="))
        if VARY.get(name.lower()) == "machine":
            paths = [x.strip() for x in values.split(",") if x.strip()]
            if len(set(paths)) != len(paths):
                raise InputError("--vary machine names a profile twice", fix="name each once")
            return paths
    return []


def machine_offers(items: Sequence[str], cat: Catalogue | None) -> list[tuple[str, str]]:
    """The machine axis's entries as (label, profile path): a catalogue's offers by name (or
    ``all``) when it offers machines, else the profiles given, labelled by their stems."""
    paths = machine_paths(items)
    if cat is not None and cat.machines and paths:
        offers = list(cat.machines) if paths == ["all"] else \
            [cat.machines[cat.machine_index(n)] for n in paths]
        return [(m.name, m.profile) for m in offers]
    if paths == ["all"]:
        raise InputError("--vary machine=all names a catalogue's machines",
                         fix="give --candidates CATALOGUE with [machines.NAME] offers, or name "
                             "the profiles: --vary machine=a.toml,b.toml")
    return list(zip(machine_labels(paths), paths, strict=True))


def machine_labels(paths: Sequence[str]) -> list[str]:
    """Each profile as a table names it: its file's stem, or its path where two stems are
    the same."""
    from pathlib import Path

    stems = [Path(p).stem for p in paths]
    return [s if stems.count(s) == 1 else p for s, p in zip(stems, paths, strict=True)]
