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
given (if any), and copies each source into the profile.  Without ``model`` (and then without
``[params]``) a spec gives only its fabric or node: the point-to-point law stays the best fit
of the measurements (piecewise where that wins).  ``status = "assumed"`` marks a
value that is an assumption, not a citation (its source then says why it was chosen).

An optional ``[fabric]`` table does the same for the contention law
(:mod:`perfmodel.network.fabric`): its ``topology`` (``shared`` or ``switched``), the
machine's ``channels``, the processes one ``box`` (node) holds (default 1; with more, the
intra-box link ``intra_latency`` and ``intra_rate`` joins the parameters), and
``[fabric.params.NAME]`` tables with ``value`` and ``source``;
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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from perfmodel.errors import InputError
from perfmodel.files.toml import key_line
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
    assumed: tuple[str, ...] = ()
    node: NodeSpec | None = None


@dataclass(frozen=True)
class NodeSpec:
    """The ``[node]`` table of a spec: a node's arithmetic and memory rates, with sources."""

    fixed: dict[str, float]
    sources: dict[str, str]
    assumed: tuple[str, ...] = ()


@dataclass(frozen=True)
class FabricSpec:
    """The ``[fabric]`` table of a spec: topology, channels, held values and their sources."""

    topology: str
    channels: int
    fixed: dict[str, float]
    sources: dict[str, str]
    assumed: tuple[str, ...] = ()
    box: int = 1


def _entries(raw: dict[str, object], text: str, path: str, prefix: str, names: list[str],
             owner: str, parse: Callable[[str, str], float], example: str | Mapping[str, str],
             statuses: tuple[str, ...] = ()) -> tuple[dict[str, float], dict[str, str],
                                                     list[str]]:
    """``[PREFIX.NAME]`` tables: each a quoted ``value`` parsed by ``parse`` and a ``source``
    (and, where ``statuses`` allows, ``status = "assumed"``).  Returns the values (SI), their
    sources and the names marked assumed; errors name the file and the table's line."""
    fixed: dict[str, float] = {}
    sources: dict[str, str] = {}
    assumed: list[str] = []
    for name, entry in raw.items():
        line = key_line(text, f"{prefix}.{name}")
        if name not in names:
            raise InputError(f"{owner} has no parameter {name!r}", file=path, line=line,
                             fix=f"its parameters are {', '.join(names)}")
        allowed = {"value", "source", *(["status"] if statuses else [])}
        shown = example if isinstance(example, str) else example[name]
        if not isinstance(entry, dict) or set(entry) - allowed or \
                not isinstance(entry.get("value"), str) or \
                not isinstance(entry.get("source"), str) or \
                (statuses and entry.get("status", statuses[0]) not in statuses):
            also = ' (and optionally status = "assumed")' if statuses else ""
            raise InputError(f"{prefix}.{name} needs value and source, both quoted text{also}",
                             file=path, line=line,
                             fix=f'value = {shown}, source = "paper: sentence"')
        try:
            fixed[name] = parse(name, entry["value"])
        except InputError as exc:
            raise InputError(f"{prefix}.{name}: {exc.what}", file=path, line=line,
                             fix=exc.fix) from None
        sources[name] = entry["source"]
        if entry.get("status") == "assumed":
            assumed.append(name)
    return fixed, sources, assumed




def load_spec(path: str | Path) -> NetworkSpec:
    from perfmodel.files.toml import check_header, read_toml, unknown_key

    doc, text = read_toml(path, "a network spec", "spec")
    check_header(doc, path, KIND, "network spec", text)
    unknown_key(doc, {"kind", "schema_version", "model", "params", "notes", "fabric", "node"},
                path, text)
    model = doc.get("model", registry.AUTO)
    raw = doc.get("params", {})
    if not isinstance(raw, dict):
        raise InputError("params is not a table", file=path, fix="write [params.NAME] tables")
    if model == registry.AUTO and not raw:   # the law is the measurements' best fit
        model = registry.AUTO
    elif not isinstance(model, str) or model not in registry.specifiable():
        *most, last = registry.specifiable()
        why = "[params] are given, so the model they belong to must be named: " \
            if model == registry.AUTO else ""
        raise InputError(f"{why}model is {model!r}", file=path,
                         line=key_line(text, "model") or key_line(text, "params"),
                         fix=f"give {', '.join(most)} or {last}, or leave out model and "
                             "[params] to keep the measurements' best fit")
    params = {p.name: p for p in registry.spec(model).params} if model != registry.AUTO \
        else {}
    fixed, sources, assumed = _entries(raw, text, str(path), "params", list(params),
                                       f"model {model}", registry.parse_value, '"2us"',
                                       statuses=("fixed", "assumed"))
    notes = doc.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise InputError("notes must be a list of strings", file=path, fix='notes = ["..."]')
    fabric = _fabric(doc["fabric"], text, str(path)) if "fabric" in doc else None
    node = _node(doc["node"], text, str(path)) if "node" in doc else None
    return NetworkSpec(str(path), model, fixed, sources, tuple(notes), fabric, tuple(assumed),
                       node)


def _node(doc: object, text: str, path: str) -> NodeSpec:
    from perfmodel.node import PARAMS, parse_param

    if not isinstance(doc, dict) or set(doc) - {"params"} or \
            not isinstance(doc.get("params", {}), dict):
        raise InputError("node must hold only [node.params.NAME] tables", file=path,
                         line=key_line(text, "node"),
                         fix=f"give [node.params.NAME] for {', '.join(PARAMS)}")
    raw = doc.get("params", {})
    fixed, sources, assumed = _entries(raw, text, path, "node.params", list(PARAMS), "a node",
                                       parse_param, {n: f'"{p.example}"' for n, p in
                                                     PARAMS.items()},
                                       statuses=("fixed", "assumed"))
    memory = [n for n in ("memory_bandwidth", "domain_bandwidth")
              if n in fixed and n not in assumed]
    if "flop_rate" not in fixed and not memory:
        raise InputError("node has no flop_rate (nor a memory bandwidth given, for a node of "
                         "memory rates alone)", file=path,
                         line=key_line(text, "node") or
                         key_line(text, f"node.params.{next(iter(raw), '')}"),
                         fix='add [node.params.flop_rate] with value = "4.5Mflop/s" and source')
    return NodeSpec(fixed, sources, tuple(assumed))


def _fabric(doc: object, text: str, path: str) -> FabricSpec:
    from perfmodel.network.fabric import TOPOLOGIES, parse_param, topology_params

    if not isinstance(doc, dict):
        raise InputError("fabric is not a table", file=path, fix="write a [fabric] table")
    from perfmodel.files.toml import unknown_key

    unknown_key(doc, {"topology", "channels", "box", "params"}, path, text, "fabric.")
    topology = doc.get("topology")
    if not isinstance(topology, str) or topology not in TOPOLOGIES:
        raise InputError(f"fabric.topology is {topology!r}", file=path,
                         line=key_line(text, "fabric.topology"),
                         fix=f"give one of {', '.join(TOPOLOGIES)}")
    channels = doc.get("channels", 1)
    if isinstance(channels, bool) or not isinstance(channels, int) or not 1 <= channels <= 64:
        raise InputError(f"fabric.channels is {channels!r}", file=path,
                         line=key_line(text, "fabric.channels"),
                         fix="give the channels (or bonded NICs) per node, a whole number")
    box = doc.get("box", 1)
    if isinstance(box, bool) or not isinstance(box, int) or not 1 <= box <= 4096:
        raise InputError(f"fabric.box is {box!r}", file=path,
                         line=key_line(text, "fabric.box"),
                         fix="give the processes one box (node) holds, a whole number")
    raw = doc.get("params", {})
    if not isinstance(raw, dict):
        raise InputError("fabric.params is not a table", file=path,
                         line=key_line(text, "fabric.params"),
                         fix="write [fabric.params.NAME] tables")
    names = topology_params(topology, box, given=raw if topology == "switched" else ())
    fixed, sources, assumed = _entries(raw, text, path, "fabric.params", list(names),
                                       f"a {topology} fabric", parse_param, '"1KiB"',
                                       statuses=("fixed", "assumed"))
    return FabricSpec(topology, channels, fixed, sources, tuple(assumed), box)
