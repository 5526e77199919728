"""Hardware catalogues: the node types and network options one could buy, with their prices.

A catalogue is data (TOML), read and checked here, never executed::

    kind = "perfmodel hardware catalogue"
    schema_version = 1
    name = "hyglac-1997"
    currency = "USD"
    reference = "pentium-pro-200"    # the node type the machine profile was measured on
    source = "..."

    [nodes.pentium-pro-200]
    flop_rate = "200Mflop/s"         # comparable figures across the catalogue (all peaks, or
    price = 2650                     # all one benchmark): only their ratios are used
    source = "..."

    [networks.fast-ethernet]
    link_speed = "100Mbps"
    latency = "80us"                 # optional: the host's time per message (the fabric's
    channels = [1, 2]                # overhead); absent, the profile's
    ports = 16                       # nodes one channel's switch (or hub) connects
    nic_price = 60                   # per channel per node
    switch_price = 3000              # per channel
    source = "..."

A configuration is a node count, a node type, a network option and a channel count.  Its
price is the law :func:`price`; it is offered only where the network option offers the
channel count and one switch per channel has a port for every node (:func:`offered`).

A catalogue may instead (or as well) offer whole machines, each a calibrated or specified
machine profile with its prices: the plan then weighs machines that differ in more than a line
rate (their own laws, contention and nodes)::

    [machines.alaska-roce]
    profile = "../../calibration/alaska-roce.toml"   # relative to the catalogue's folder
    node_price = 9000       # per node, its share of the network included
    switch_price = 12000    # once (optional)
    max_nodes = 16          # the most nodes offered (its switch's ports)
    source = "..."

Such a configuration is a node count and a machine, priced ``fixed + switch price + nodes ×
node price`` (:func:`machine_price`; NaN beyond its largest size).

A node type changes a model's computation by its speed against the reference node, the ratio
of their ``flop_rate`` (and of their ``memory_bandwidth`` for memory-bound kernels): a model
that costs computation on the node (``kernel(...)``) sees its rates scaled, and a model whose
work is fitted seconds sees its compute and serial terms divided by the speed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import InputError, PerfModelError

FloatArray = NDArray[np.float64]
KIND = "perfmodel hardware catalogue"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_TOP = {"kind", "schema_version", "name", "description", "currency", "year", "source",
        "reference", "fixed_price", "fixed_source", "notes", "nodes", "networks", "machines"}
_NODE = {"flop_rate", "memory_bandwidth", "price", "description", "source"}
_NET = {"link_speed", "latency", "channels", "ports", "nic_price", "switch_price",
        "description", "source"}
_MACHINE = {"profile", "node_price", "switch_price", "max_nodes", "description", "source"}
MAX_PORTS = 1_000_000
MAX_PRICE = 1e12
"""The largest price an entry may have (larger ones would overflow a total)."""


@dataclass(frozen=True)
class NodeType:
    """A node one could buy: its rates (comparable across the catalogue) and its price
    (None: the reference node, not for sale)."""

    name: str
    flop_rate: float
    memory_bandwidth: float
    price: float | None
    source: str
    description: str = ""


@dataclass(frozen=True)
class NetworkOption:
    """A network one could buy: its line rate, host latency (None: the profile's), the channel
    counts it offers, the ports of one channel's switch, and its prices."""

    name: str
    link_speed: float
    latency: float | None
    channels: tuple[int, ...]
    ports: int
    nic_price: float
    switch_price: float
    source: str
    description: str = ""


@dataclass(frozen=True)
class MachineOffer:
    """A whole machine one could buy: a machine profile (``profile``, its path resolved
    against the catalogue's folder), its price per node and once, and its largest size."""

    name: str
    profile: str
    node_price: float
    switch_price: float
    max_nodes: int
    source: str
    description: str = ""


@dataclass(frozen=True)
class Catalogue:
    """Node types and network options with their prices; or whole machines."""

    name: str
    currency: str
    reference: str
    nodes: tuple[NodeType, ...]
    networks: tuple[NetworkOption, ...]
    fixed_price: float = 0.0
    source: str = ""
    description: str = ""
    path: str = ""
    notes: tuple[str, ...] = ()
    machines: tuple[MachineOffer, ...] = ()

    def machine_index(self, name: str) -> int:
        for i, m in enumerate(self.machines):
            if m.name == name:
                return i
        raise InputError(f"catalogue {self.name!r} has no machine {name!r}", file=self.path,
                         fix=f"its machines: {', '.join(m.name for m in self.machines)}"
                         if self.machines else "add [machines.NAME] tables")

    @property
    def reference_node(self) -> NodeType:
        return next(n for n in self.nodes if n.name == self.reference)

    def node_index(self, name: str) -> int:
        for i, n in enumerate(self.nodes):
            if n.name == name:
                return i
        raise InputError(f"catalogue {self.name!r} has no node type {name!r}", file=self.path,
                         fix=f"its node types: {', '.join(n.name for n in self.nodes)}")

    def network_index(self, name: str) -> int:
        for i, n in enumerate(self.networks):
            if n.name == name:
                return i
        raise InputError(f"catalogue {self.name!r} has no network {name!r}", file=self.path,
                         fix=f"its networks: {', '.join(n.name for n in self.networks)}")

    def speed(self, node: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Node types ``node`` (indices): their arithmetic and memory speed against the
        reference node."""
        ref = self.reference_node
        idx = np.asarray(node, dtype=np.intp)
        flops = np.array([n.flop_rate / ref.flop_rate for n in self.nodes])
        memory = np.array([_ratio(n.memory_bandwidth, ref.memory_bandwidth)
                           for n in self.nodes])
        return flops[idx], memory[idx]

    def network_values(self, network: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Network options ``network`` (indices): their line rates and host latencies (NaN
        where an option keeps the profile's)."""
        idx = np.asarray(network, dtype=np.intp)
        rate = np.array([n.link_speed for n in self.networks])
        lat = np.array([math.nan if n.latency is None else n.latency for n in self.networks])
        return rate[idx], lat[idx]


def _ratio(a: float, b: float) -> float:
    """a / b for bandwidths that may be unlimited: two unlimited ones are equal."""
    if math.isinf(a) and math.isinf(b):
        return 1.0
    return a / b


def offered(cat: Catalogue, nodes: ArrayLike, node: ArrayLike, network: ArrayLike,
            channels: ArrayLike) -> NDArray[np.bool_]:
    """Whether each configuration can be bought: a node type for sale, a channel count the
    network offers, and a port on one channel's switch for every node."""
    q = np.asarray(nodes, dtype=np.float64)
    i = np.asarray(node, dtype=np.intp)
    j = np.asarray(network, dtype=np.intp)
    c = np.asarray(channels, dtype=np.float64)
    for_sale = np.array([n.price is not None for n in cat.nodes])[i]
    ports = np.array([n.ports for n in cat.networks], dtype=np.float64)[j]
    width = max(max(n.channels) for n in cat.networks) + 1
    allowed = np.zeros((len(cat.networks), width), dtype=bool)
    for k, n in enumerate(cat.networks):
        allowed[k, list(n.channels)] = True
    cc = np.clip(c, 0, width - 1).astype(np.intp)
    ok_channels = allowed[j, cc] & (c == cc)
    return np.asarray(for_sale & ok_channels & (q <= ports), dtype=bool)


def price(cat: Catalogue, nodes: ArrayLike, node: ArrayLike, network: ArrayLike,
          channels: ArrayLike) -> FloatArray:
    """The price of each configuration::

        fixed + nodes × (node price + channels × NIC price) + channels × switch price

    (one switch, or hub, per channel; NaN where it is not :func:`offered`)."""
    q = np.asarray(nodes, dtype=np.float64)
    c = np.asarray(channels, dtype=np.float64)
    i = np.asarray(node, dtype=np.intp)
    j = np.asarray(network, dtype=np.intp)
    node_price = np.array([math.nan if n.price is None else n.price for n in cat.nodes])[i]
    nic = np.array([n.nic_price for n in cat.networks])[j]
    switch = np.array([n.switch_price for n in cat.networks])[j]
    total = cat.fixed_price + q * (node_price + c * nic) + c * switch
    return np.asarray(np.where(offered(cat, q, i, j, c), total, np.nan), dtype=np.float64)


def machine_price(cat: Catalogue, offers: ArrayLike, nodes: ArrayLike) -> FloatArray:
    """The price of ``nodes`` nodes of machine offers ``offers`` (indices into
    ``cat.machines``; −1: not in the catalogue)::

        fixed + switch price + nodes × node price

    (NaN beyond the offer's largest size, or for a machine the catalogue does not offer)."""
    j = np.asarray(offers, dtype=np.intp)
    q = np.asarray(nodes, dtype=np.float64)
    per = np.array([m.node_price for m in cat.machines] + [math.nan])[j]
    once = np.array([m.switch_price for m in cat.machines] + [math.nan])[j]
    most = np.array([float(m.max_nodes) for m in cat.machines] + [0.0])[j]
    total = cat.fixed_price + once + q * per
    return np.asarray(np.where(q <= most, total, np.nan), dtype=np.float64)


def machine_price_parts(cat: Catalogue, offer: int, nodes: float) -> dict[str, float]:
    """``nodes`` nodes of machine offer ``offer``: its price by part, as
    :func:`machine_price` adds them up."""
    m = cat.machines[offer]
    return {"nodes": nodes * m.node_price, "switches": m.switch_price,
            "fixed": cat.fixed_price}


def price_parts(cat: Catalogue, nodes: float, node: int, network: int, channels: float
                ) -> dict[str, float]:
    """One configuration's price by part: nodes, NICs, switches, fixed."""
    n, net = cat.nodes[node], cat.networks[network]
    return {"nodes": nodes * (n.price if n.price is not None else math.nan),
            "nics": nodes * channels * net.nic_price,
            "switches": channels * net.switch_price,
            "fixed": cat.fixed_price}


# --- reading ------------------------------------------------------------------------------

def load(path: str | Path) -> Catalogue:
    """A catalogue file, checked; every problem is one :class:`InputError` naming the place."""
    from perfmodel.files.toml import read_toml

    p = Path(path)
    doc, text = read_toml(p, "a hardware catalogue", "catalogue")
    return loads_doc(doc, text, str(p))


def loads(text: str, path: str = "<catalogue>") -> Catalogue:
    from perfmodel.files.toml import parse_toml

    return loads_doc(parse_toml(text, path), text, path)


def loads_doc(doc: Mapping[str, Any], text: str, path: str) -> Catalogue:
    from perfmodel.files.toml import check_header, key_line

    def fail(what: str, fix: str, key: str | None = None) -> InputError:
        """One line naming the file and, for a dotted ``key`` (or table), its line."""
        return InputError(what, file=path, line=key_line(text, key) if key else None, fix=fix)

    check_header(doc, path, KIND, "hardware catalogue", text)
    _known(doc, _TOP, fail, None, "the catalogue")
    name = _text(doc, "name", fail, None, required=True)
    if not _NAME.match(name):
        raise fail(f"name is {name!r}", "give a name of letters, digits, -, _, . and +", "name")
    currency = _text(doc, "currency", fail, None, required=True)
    nodes_doc = doc.get("nodes")
    nets_doc = doc.get("networks")
    machines_doc = doc.get("machines")
    if machines_doc is not None and (not isinstance(machines_doc, dict) or not machines_doc):
        raise fail("machines is not a set of [machines.NAME] tables",
                   "write [machines.NAME] with profile, node_price, max_nodes and source",
                   "machines")
    machines = tuple(_machine(k, v, fail, path) for k, v in (machines_doc or {}).items())
    kit: tuple[str, tuple[NodeType, ...], tuple[NetworkOption, ...]] = ("", (), ())
    if not (machines and nodes_doc is None and nets_doc is None):
        if machines:
            raise fail("the catalogue offers both whole machines and node types or networks",
                       "offer either [machines.NAME] or [nodes.NAME] with [networks.NAME], in "
                       "two catalogues", "machines")
        kit = _kit(doc, nodes_doc, nets_doc, fail)
    reference, nodes, networks = kit
    fixed = _number(doc, "fixed_price", fail, None, default=0.0)
    if fixed and not _text(doc, "fixed_source", fail, None):
        raise fail("fixed_price has no fixed_source", "say where the fixed price comes from",
                   "fixed_price")
    return Catalogue(name=name, currency=currency, reference=reference, nodes=nodes,
                     networks=networks, fixed_price=fixed,
                     source=_text(doc, "source", fail, None, required=True),
                     description=_text(doc, "description", fail, None), path=path,
                     notes=_notes(doc, fail), machines=machines)


def _kit(doc: Mapping[str, Any], nodes_doc: Any, nets_doc: Any, fail: Any
         ) -> tuple[str, tuple[NodeType, ...], tuple[NetworkOption, ...]]:
    """A catalogue's reference node type, its node types and its network options, checked."""
    if not isinstance(nodes_doc, dict) or not nodes_doc:
        raise fail("no [nodes.NAME] tables", "give at least one node type, or offer whole "
                                             "machines as [machines.NAME]")
    if not isinstance(nets_doc, dict) or not nets_doc:
        raise fail("no [networks.NAME] tables", "give at least one network option")
    nodes = tuple(_node(k, v, fail) for k, v in nodes_doc.items())
    given = [n.name for n in nodes if "memory_bandwidth" in nodes_doc[n.name]]
    if given and len(given) != len(nodes):
        missing = next(n.name for n in nodes if n.name not in given)
        raise fail(f"[nodes.{missing}] has no memory_bandwidth, and {given[0]} has one",
                   "give memory_bandwidth for every node type or for none (a missing one "
                   "would be unlimited)", f"nodes.{missing}")
    networks = tuple(_network(k, v, fail) for k, v in nets_doc.items())
    reference = doc.get("reference", nodes[0].name if len(nodes) == 1 else None)
    if not isinstance(reference, str) or reference not in {n.name for n in nodes}:
        raise fail(f"reference is {reference!r}",
                   "name the node type the machine profile was measured on: reference = "
                   f"\"{nodes[0].name}\" (node types: {', '.join(n.name for n in nodes)})",
                   "reference")
    if all(n.price is None for n in nodes):
        raise fail("no node type has a price", "give at least one node type a price")
    return reference, nodes, networks


def _notes(doc: Mapping[str, Any], fail: Any) -> tuple[str, ...]:
    notes = doc.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(x, str) for x in notes):
        raise fail("notes must be a list of text", 'write notes = ["...", "..."]', "notes")
    return tuple(notes)


def _machine(key: str, doc: Any, fail: Any, path: str) -> MachineOffer:
    table = _entry("machines", key, doc, _MACHINE, fail)
    where = _text(doc, "profile", fail, table, required=True)
    most = doc.get("max_nodes")
    if not (isinstance(most, int) and not isinstance(most, bool) and 1 <= most <= MAX_PORTS):
        raise fail(f"[{table}] max_nodes is {most!r}",
                   "give the most nodes the machine is offered with, a whole number: "
                   "max_nodes = 16", _at(table, "max_nodes"))
    if "node_price" not in doc:
        raise fail(f"[{table}] has no node_price", "give the price of one node, its share "
                                                   "of the network included", table)
    return MachineOffer(key, str(Path(path).parent / where),
                        _number(doc, "node_price", fail, table),
                        _number(doc, "switch_price", fail, table, default=0.0), most,
                        _text(doc, "source", fail, table, required=True),
                        _text(doc, "description", fail, table))


def _entry(group: str, key: str, doc: Any, allowed: set[str], fail: Any) -> str:
    """Check that ``[group.key]`` is a table with a proper name and known keys; its name."""
    table = f"{group}.{key}"
    if not isinstance(doc, dict):
        raise fail(f"{table} is not a table", f"write [{table}] with its keys")
    if not _NAME.match(key):
        raise fail(f"[{table}]: {key!r} is not a name", "use letters, digits, -, _, . and +",
                   table)
    _known(doc, allowed, fail, table, f"[{table}]")
    return table


def _node(key: str, doc: Any, fail: Any) -> NodeType:
    table = _entry("nodes", key, doc, _NODE, fail)
    flop = _quantity(doc, "flop_rate", "flops", fail, table, required=True)
    memory = _quantity(doc, "memory_bandwidth", "rate", fail, table, default=math.inf)
    price_ = doc.get("price")
    value = None if price_ is None else _number(doc, "price", fail, table)
    return NodeType(key, flop, memory, value, _text(doc, "source", fail, table, required=True),
                    _text(doc, "description", fail, table))


def _network(key: str, doc: Any, fail: Any) -> NetworkOption:
    table = _entry("networks", key, doc, _NET, fail)
    rate = _quantity(doc, "link_speed", "rate", fail, table, required=True)
    latency = None if "latency" not in doc else _quantity(doc, "latency", "time", fail, table)
    channels = doc.get("channels", [1])
    if not (isinstance(channels, list) and channels
            and all(isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 64
                    for c in channels)
            and len(set(channels)) == len(channels)):
        raise fail(f"[{table}] channels is {channels!r}",
                   "give the channel counts offered, whole numbers from 1 to 64: "
                   "channels = [1, 2]", _at(table, "channels"))
    ports = doc.get("ports")
    if not (isinstance(ports, int) and not isinstance(ports, bool) and 1 <= ports <= MAX_PORTS):
        raise fail(f"[{table}] ports is {ports!r}",
                   "give the nodes one channel's switch connects, a whole number: ports = 16",
                   _at(table, "ports"))
    return NetworkOption(key, rate, latency, tuple(sorted(channels)), ports,
                         _number(doc, "nic_price", fail, table, default=0.0),
                         _number(doc, "switch_price", fail, table, default=0.0),
                         _text(doc, "source", fail, table, required=True),
                         _text(doc, "description", fail, table))


def _known(doc: Mapping[str, Any], allowed: set[str], fail: Any, table: str | None,
           where: str) -> None:
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise fail(f"{where}: unknown key {unknown[0]!r}",
                   f"known keys: {', '.join(sorted(allowed))}",
                   f"{table}.{unknown[0]}" if table else unknown[0])


def _text(doc: Mapping[str, Any], key: str, fail: Any, table: str | None,
          required: bool = False) -> str:
    value = doc.get(key, "")
    where = f"[{table}] " if table else ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise fail(f"{where}{key} is {value!r}", f'give {key} as text: {key} = "..."',
                   _at(table, key))
    return value


def _number(doc: Mapping[str, Any], key: str, fail: Any, table: str | None,
            default: float | None = None) -> float:
    value = doc.get(key, default)
    where = f"[{table}] " if table else ""
    if isinstance(value, bool) or not isinstance(value, int | float) or \
            not (math.isfinite(value) and 0 <= value <= MAX_PRICE):
        raise fail(f"{where}{key} is {value!r}",
                   f"give {key} as a number from 0 to {MAX_PRICE:.0e} (in the catalogue's "
                   "currency)", _at(table, key))
    return float(value)


def _quantity(doc: Mapping[str, Any], key: str, kind: Any, fail: Any, table: str,
              required: bool = False, default: float | None = None) -> float:
    from perfmodel.units import MAX_LATENCY, line_rate_problem, parse_quantity

    if key not in doc:
        if required or default is None:
            raise fail(f"[{table}] has no {key}", f"give {key}, e.g. {_EXAMPLE[key]}", table)
        return default
    value = doc[key]
    try:
        out = parse_quantity(value, kind)
    except PerfModelError as exc:
        raise fail(f"[{table}] {key}: {exc.what}", exc.fix, _at(table, key)) from None
    if not out > 0:
        raise fail(f"[{table}] {key} is {value!r}", f"give a positive value, e.g. "
                                                    f"{_EXAMPLE[key]}", _at(table, key))
    if key == "link_speed" and (why := line_rate_problem(out)):
        raise fail(f"[{table}] {key} {value!r} {why}",
                   f"give a link speed, e.g. {_EXAMPLE[key]}", _at(table, key))
    if key == "latency" and out > MAX_LATENCY:
        raise fail(f"[{table}] {key} {value!r} is over an hour, no host's time per message",
                   f"check the unit, e.g. {_EXAMPLE[key]}", _at(table, key))
    return out


def _at(table: str | None, key: str) -> str:
    """The dotted path of ``key`` in ``table``, for the line of an error."""
    return f"{table}.{key}" if table else key


_EXAMPLE = {"flop_rate": 'flop_rate = "200Mflop/s"', "memory_bandwidth":
            'memory_bandwidth = "300MB/s"', "link_speed": 'link_speed = "100Mbps"',
            "latency": 'latency = "50us"'}
