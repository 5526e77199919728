"""Network specifications with citations: parameters that are known, not fitted.

Where a paper or a datasheet gives a latency or a link rate instead of a curve, a spec file
records the value, its unit as written, and where it comes from::

    kind = "perfmodel network spec"
    schema_version = 1
    model = "hockney"

    [params.alpha]
    value = "2us"
    source = "seed 003 §3: 'providing one-way latencies as low as 2 μ s' (sic)"

``calibrate --spec FILE`` holds these parameters fixed, fits the rest to the measurements
given (if any), and copies each source into the profile.

An optional ``[fabric]`` table does the same for the contention law
(:mod:`perfmodel.network.fabric`): its ``topology`` (``shared`` or ``switched``), the
machine's ``channels``, and ``[fabric.params.NAME]`` tables with ``value`` and ``source``;
``status = "assumed"`` marks a value that is an assumption, not a citation (its source then
says why it was chosen)::

    [fabric]
    topology = "shared"
    channels = 2

    [fabric.params.packet]
    value = "1KiB"
    source = "seed 000 §3: 'Ethernet packets can contain to about 1K bytes'"
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from perfmodel.errors import InputError
from perfmodel.network import models as registry

KIND = "perfmodel network spec"


@dataclass(frozen=True)
class NetworkSpec:
    path: str
    model: str
    fixed: dict[str, float]
    sources: dict[str, str]
    notes: tuple[str, ...] = ()
    fabric: FabricSpec | None = None


@dataclass(frozen=True)
class FabricSpec:
    """The ``[fabric]`` table of a spec: topology, channels, held values and their sources."""

    topology: str
    channels: int
    fixed: dict[str, float]
    sources: dict[str, str]
    assumed: tuple[str, ...] = ()


def _line_of(text: str, key: str, plain: bool = False) -> int | None:
    table = key if plain else f"params.{key}"
    for i, ln in enumerate(text.splitlines(), start=1):
        if re.match(rf"\s*\[{re.escape(table)}\]", ln):
            return i
    return None


def load_spec(path: str | Path) -> NetworkSpec:
    from perfmodel.readers import read_toml

    doc, text = read_toml(path)
    if doc.get("kind") != KIND:
        raise InputError("is not a network spec", file=path, line=1,
                         fix=f'start it with kind = "{KIND}"')
    unknown = sorted(set(doc) - {"kind", "schema_version", "model", "params", "notes", "fabric"})
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r}", file=path,
                         fix="known keys: kind, schema_version, model, params, notes, fabric")
    if doc.get("schema_version") != 1:
        raise InputError(f"schema_version is {doc.get('schema_version')!r}", file=path,
                         fix="this perfmodel reads network specs of schema_version = 1")
    model = doc.get("model")
    if model not in registry.MODELS or model == "piecewise":
        raise InputError(f"model is {model!r}", file=path,
                         fix="give hockney, loggp or packet")
    params = {p.name: p for p in registry.spec(model).params}
    raw = doc.get("params", {})
    if not isinstance(raw, dict):
        raise InputError("params is not a table", file=path, fix="write [params.NAME] tables")
    fixed: dict[str, float] = {}
    sources: dict[str, str] = {}
    for name, entry in raw.items():
        line = _line_of(text, name)
        if name not in params:
            raise InputError(f"model {model} has no parameter {name!r}", file=path, line=line,
                             fix=f"its parameters are {', '.join(params)}")
        if not isinstance(entry, dict) or set(entry) - {"value", "source"} or \
                not isinstance(entry.get("value"), str) or not isinstance(entry.get("source"), str):
            raise InputError(f"params.{name} needs value and source, both quoted text",
                             file=path, line=line, fix='value = "2us", source = "paper: sentence"')
        try:
            fixed[name] = registry.parse_value(name, entry["value"])
        except InputError as exc:
            raise InputError(f"params.{name}: {exc.what}", file=path, line=line,
                             fix=exc.fix) from None
        sources[name] = entry["source"]
    notes = doc.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise InputError("notes must be a list of strings", file=path, fix='notes = ["..."]')
    fabric = _fabric(doc["fabric"], text, str(path)) if "fabric" in doc else None
    return NetworkSpec(str(path), model, fixed, sources, tuple(notes), fabric)


def _fabric(doc: object, text: str, path: str) -> FabricSpec:
    from perfmodel.network.fabric import TOPOLOGIES, parse_param, topology_params

    if not isinstance(doc, dict):
        raise InputError("fabric is not a table", file=path, fix="write a [fabric] table")
    unknown = sorted(set(doc) - {"topology", "channels", "params"})
    if unknown:
        raise InputError(f"fabric has an unknown key {unknown[0]!r}", file=path,
                         fix="known keys: topology, channels, params")
    topology = doc.get("topology")
    if topology not in TOPOLOGIES:
        raise InputError(f"fabric.topology is {topology!r}", file=path,
                         fix=f"give one of {', '.join(TOPOLOGIES)}")
    channels = doc.get("channels", 1)
    if isinstance(channels, bool) or not isinstance(channels, int) or not 1 <= channels <= 64:
        raise InputError(f"fabric.channels is {channels!r}", file=path,
                         fix="give the channels (or bonded NICs) per node, a whole number")
    names = topology_params(topology)
    raw = doc.get("params", {})
    if not isinstance(raw, dict):
        raise InputError("fabric.params is not a table", file=path,
                         fix="write [fabric.params.NAME] tables")
    fixed: dict[str, float] = {}
    sources: dict[str, str] = {}
    assumed: list[str] = []
    for name, entry in raw.items():
        line = _line_of(text, f"fabric.params.{name}", plain=True)
        if name not in names:
            raise InputError(f"a {topology} fabric has no parameter {name!r}", file=path,
                             line=line, fix=f"its parameters are {', '.join(names)}")
        if not isinstance(entry, dict) or set(entry) - {"value", "source", "status"} or \
                not isinstance(entry.get("value"), str) or \
                not isinstance(entry.get("source"), str) or \
                entry.get("status", "fixed") not in ("fixed", "assumed"):
            raise InputError(f"fabric.params.{name} needs value and source, both quoted text "
                             "(and optionally status = \"assumed\")", file=path, line=line,
                             fix='value = "1KiB", source = "paper: sentence"')
        try:
            fixed[name] = parse_param(name, entry["value"])
        except InputError as exc:
            raise InputError(f"fabric.params.{name}: {exc.what}", file=path, line=line,
                             fix=exc.fix) from None
        sources[name] = entry["source"]
        if entry.get("status") == "assumed":
            assumed.append(name)
    return FabricSpec(topology, channels, fixed, sources, tuple(assumed))
