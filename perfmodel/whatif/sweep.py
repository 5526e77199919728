"""Every combination of node count, channels, link speed and latency, in one vectorised pass.

A :class:`Grid` holds the values of each axis; its configurations are their Cartesian product,
flattened (the last axis varies fastest).  :func:`sweep` evaluates an application model with
fitted constants on all of them at once: the machine's overrides are arrays, so the model's
formulas, the collectives and the queueing laws run once over the whole grid, never
configuration by configuration.  The grid is cut in boxes (:func:`boxes`, to bound memory and
stay in the processor's cache) evaluated on the machine's cores; in a box each axis lies along
its own dimension, so what depends on the node count alone is computed once per node count.

Each configuration gets its time, the time split by kind of term (compute, serial,
communication, synchronisation), its speedup over one node of the same hardware (one node's
time is evaluated once per combination of the other axes), and a band from the fitted
constants (delta method: one more pass per fitted constant, which reads the network's costs
kept by the first wherever the constant does not move a message).
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from perfmodel.apps.fit import AppFit
from perfmodel.apps.metrics import by_term
from perfmodel.apps.model import AppModel
from perfmodel.apps.trust import Extrapolation, problem_sizes
from perfmodel.errors import InputError
from perfmodel.machine import Machine, MessageSpan, message_span
from perfmodel.machine.hardware import changed, own, require_fabric, unmeasured
from perfmodel.machine.profile import Profile
from perfmodel.whatif.catalogue import Catalogue, price

FloatArray = NDArray[np.float64]
Box = tuple[slice, ...]
"""A box of a grid: one slice per axis."""

AXES: dict[str, str] = {
    "nodes": "process count, as the model counts it (one per node; on a fabric of boxes, "
             "box-mates share a box's port)",
    "channels": "channels per node (NICs, Ethernet segments, rails)",
    "link_speed": "line rate of one channel, B/s",
    "latency": "host time per message outside the wire, s (the fabric's overhead)",
    "node": "node type, an index into the catalogue's node types",
    "network": "network option, an index into the catalogue's networks (its line rate and "
               "latency)",
    "machine": "machine profile, an index into the grid's machines (each evaluated on its own "
               "laws, node and fabric)",
}
"""The axes a sweep can vary, in the order configurations are laid out."""
CATEGORICAL = ("node", "network", "machine")
"""Axes whose values index entries: a catalogue's, or the grid's machines."""
TERMS = ("compute", "serial", "communication", "synchronisation")
CHUNK = 65_536
"""Configurations evaluated at once (memory: a few dozen arrays of this length, half a MiB
each, which stay in the processor's cache: 262,144 took 1.4 times as long on the development
machine)."""
MAX_CONFIGS = 5_000_000
"""The largest sweep: its arrays (about 110 bytes a configuration) stay near half a gigabyte;
the whole ``whatif`` command, analysis included, peaked at 1.1 GB there (``bench/cost.py``)."""
MAX_CHANNELS = 64


@dataclass(frozen=True)
class Grid:
    """Values of each axis (absent axes take the profile's own value)."""

    axes: Mapping[str, FloatArray]
    catalogue: Catalogue | None = None
    cap: int = MAX_CONFIGS
    """The most configurations (the product of the axes' lengths) the grid may have."""
    what: str = "a sweep"
    machines: tuple[tuple[str, Profile | None], ...] = ()
    """The machine axis's entries: a label and a profile (None: the profile the sweep is
    given, the one its constants were fitted on).  The machine axis comes first: each
    machine's configurations are a run of the flat order."""
    work_speed: float | None = None
    """How much faster the swept profile's node does the work fitted on another's (None:
    the same node); see :func:`~perfmodel.machine.hardware.node_speed`."""

    def __post_init__(self) -> None:
        if "machine" in self.axes and next(iter(self.axes)) != "machine":
            object.__setattr__(self, "axes", {"machine": self.axes["machine"],
                                              **{k: v for k, v in self.axes.items()
                                                 if k != "machine"}})
        for name, values in self.axes.items():
            if name not in AXES:
                raise InputError(f"no axis {name!r}", fix=f"axes: {', '.join(AXES)}")
            if name in CATEGORICAL:
                self._check_entries(name, values)
                continue
            if len(values) == 0 or not np.all(np.isfinite(values) & (values > 0)):
                raise InputError(f"--vary {name}: values must be positive numbers",
                                 fix="e.g. --vary nodes=1..64")
            if len(np.unique(values)) != len(values):
                raise InputError(f"--vary {name} gives a value twice", fix="give each once")
            if name == "channels" and np.max(values) > MAX_CHANNELS:
                raise InputError(f"--vary channels up to {np.max(values):g}",
                                 fix=f"channels per node run from 1 to {MAX_CHANNELS}")
        if self.size > self.cap:
            said = " × ".join(f"{len(v)} {k.replace('_', ' ')}" for k, v in self.axes.items()
                              if len(v) > 1)
            raise InputError(f"{self.size:,} configurations ({said}), more than the "
                             f"{self.cap:,} {self.what} may have",
                             fix="give fewer values, or coarser ranges")

    def _check_entries(self, name: str, values: FloatArray) -> None:
        if name == "machine":
            self._check_machines(values)
            return
        cat = self.catalogue
        if cat is None:
            raise InputError(f"--vary {name} needs a hardware catalogue",
                             fix="give --candidates CATALOGUE")
        if name == "network" and {"link_speed", "latency"} & set(self.axes):
            raise InputError("--vary network sets the link speed and latency",
                             fix="vary either network or link-speed and latency")
        count = len(cat.nodes if name == "node" else cat.networks)
        v = np.asarray(values)
        if len(v) == 0 or np.any(v != np.round(v)) or np.any((v < 0) | (v >= count)) or \
                len(np.unique(v)) != len(v):
            raise InputError(f"--vary {name}: entries must be distinct entries of the "
                             "catalogue", fix=f"name them from catalogue {cat.name!r}")

    def _check_machines(self, values: FloatArray) -> None:
        if {"node", "network"} & set(self.axes):
            raise InputError("--vary machine sets the node and the network",
                             fix="vary either machine or the catalogue's node and network")
        if self.catalogue is not None and not self.catalogue.machines:
            raise InputError(f"--vary machine with catalogue {self.catalogue.name!r}: it prices "
                             "node types and networks, not these machines",
                             fix="drop --candidates, or give a catalogue of [machines.NAME] "
                                 "offers")
        v = np.asarray(values)
        count = len(self.machines)
        if len(v) == 0 or np.any(v != np.round(v)) or np.any((v < 0) | (v >= count)) or \
                len(np.unique(v)) != len(v):
            raise InputError("--vary machine: entries must be distinct machine profiles",
                             fix="e.g. --vary machine=calibration/a.toml,calibration/b.toml")

    @property
    def size(self) -> int:
        return int(math.prod(len(v) for v in self.axes.values()))

    @property
    def shape(self) -> tuple[int, ...]:
        """The axes' lengths, in order: the configurations as an array of this shape."""
        return tuple(len(v) for v in self.axes.values())

    def coords(self, start: int = 0, stop: int | None = None) -> dict[str, NDArray[np.intp]]:
        """Each axis's value index for configurations ``start`` … ``stop`` − 1 (read-only
        views of arrays made once per grid).

        >>> g = Grid({"nodes": np.array([1.0, 2.0, 4.0]), "channels": np.array([1.0, 2.0])})
        >>> {k: v.tolist() for k, v in g.coords(1, 4).items()}
        {'nodes': [0, 1, 1], 'channels': [1, 0, 1]}
        """
        return {n: c[start:stop] for n, c in self._coords.items()}

    @functools.cached_property
    def _coords(self) -> dict[str, NDArray[np.intp]]:
        out = {}
        for n, v in _spread_axes(self.axes, lambda v: np.arange(len(v), dtype=np.intp)).items():
            v.flags.writeable = False
            out[n] = v
        return out

    def flat(self, start: int = 0, stop: int | None = None) -> dict[str, FloatArray]:
        """Each axis's value for configurations ``start`` … ``stop`` − 1.

        >>> g = Grid({"nodes": np.array([1.0, 2.0, 4.0]), "channels": np.array([1.0, 2.0])})
        >>> {k: v.tolist() for k, v in g.flat().items()}
        {'nodes': [1.0, 1.0, 2.0, 2.0, 4.0, 4.0], 'channels': [1.0, 2.0, 1.0, 2.0, 1.0, 2.0]}
        """
        if start == 0 and stop is None:
            return _spread_axes(self.axes, lambda v: np.asarray(v, dtype=np.float64))
        return {n: np.asarray(self.axes[n], dtype=np.float64)[c]
                for n, c in self.coords(start, stop).items()}


def _spread_axes(axes: Mapping[str, FloatArray], of: Callable[[FloatArray], np.ndarray]
                 ) -> dict[str, np.ndarray]:
    """``of(values)`` of each axis, repeated over the whole grid (the last axis fastest): one
    broadcast and one copy per axis, no index arithmetic per configuration."""
    names = list(axes)
    shape = tuple(len(axes[n]) for n in names)
    out = {}
    for k, n in enumerate(names):
        along = [1] * len(shape)
        along[k] = shape[k]
        out[n] = np.broadcast_to(of(axes[n]).reshape(along), shape).reshape(-1)
    return out


@dataclass(frozen=True)
class Sweep:
    """A model evaluated on a grid: per configuration (flat, as :meth:`Grid.flat`) the axis
    values, the time, its band from the fitted constants, the time by kind of term, and the
    speedup over one node of the same hardware."""

    grid: Grid
    config: Mapping[str, FloatArray]
    time: FloatArray
    lo: FloatArray
    hi: FloatArray
    terms: Mapping[str, FloatArray]
    speedup: FloatArray
    baseline: Mapping[str, float] = field(default_factory=dict)
    weak: bool = False
    cost: FloatArray | None = None
    """Each configuration's price (NaN where the catalogue does not offer it); None without
    a catalogue."""
    outside: Extrapolation | None = None
    """Which configurations leave the node counts or problem sizes fitted on, or the message
    sizes the profile was calibrated on (None: nothing was fitted or calibrated)."""
    notes: tuple[str, ...] = ()
    """What the sweep assumed that changes its answer (a node taken to be another's)."""
    moved: bool = False
    """Timings moved to each machine, no model: the band is the move's range, and the
    communication term is the whole overhead (:mod:`perfmodel.whatif.timed`)."""
    parts: tuple[Sweep, ...] = ()
    """Across machines (a ``machine`` axis), each machine's own sweep of the other axes, in
    the axis's order: these arrays are theirs laid end to end."""

    @functools.cached_property
    def extrapolation(self) -> Extrapolation:
        if self.outside is not None:
            return self.outside
        p = self.nodes
        return Extrapolation(p, (1.0, math.inf), np.full(p.shape, math.nan), (0.0, math.inf))

    @property
    def fitted(self) -> tuple[float, float]:
        """The node counts the model's constants were fitted on (all of them when given)."""
        return self.extrapolation.fitted_nodes

    @property
    def extrapolated(self) -> NDArray[np.bool_]:
        """Configurations extrapolated for any reason (:attr:`outside`)."""
        return self.extrapolation.any

    @functools.cached_property
    def unmeasured(self) -> dict[str, FloatArray]:
        """The line rates and host latencies swept (as themselves, or as a catalogue's network
        options) other than the profile's own: no measurement was made there, the fabric's
        laws carry its calibrated costs to them.  Across machines, each judged against its
        own."""
        if self.parts:
            from perfmodel.whatif.machines import unmeasured as each

            return each(self.parts)
        rate, lat = self.config.get("link_speed"), self.config.get("latency")
        cat = self.grid.catalogue
        if cat is not None and "network" in self.config:
            rate, lat = cat.network_values(self.config["network"])
            lat = lat[np.isfinite(lat)]   # NaN: the option keeps the profile's latency
        return unmeasured({"link_speed": rate, "latency": lat}, self.baseline)

    @functools.cached_property
    def rank_time(self) -> FloatArray:
        """What configurations are ranked by: the time, or under weak scaling (the problem
        grows with p) the time per process's share of work, time / p (computed once)."""
        if not self.weak:
            return self.time
        return np.asarray(self.time / self.nodes, dtype=np.float64)

    @functools.cached_property
    def nodes(self) -> FloatArray:
        """Each configuration's node count (one where the sweep holds no node axis)."""
        nodes = self.config.get("nodes")
        return np.ones(len(self.time)) if nodes is None else nodes

    @functools.cached_property
    def comm_share(self) -> FloatArray:
        """Communication's share of the time (computed once: tables read it row by row)."""
        return np.asarray(self.terms["communication"] / self.time, dtype=np.float64)

    @functools.cached_property
    def sync_share(self) -> FloatArray:
        """Synchronisation's share of the time (computed once)."""
        return np.asarray(self.terms["synchronisation"] / self.time, dtype=np.float64)


def baseline_values(profile: Profile, catalogue: Catalogue | None = None) -> dict[str, float]:
    """The profile's own hardware: the value each absent axis takes (with a catalogue, its
    reference node type, and the network option that is the profile's own if one is)."""
    fab = profile.fabric
    out = {"nodes": 1.0}
    if fab is not None:
        out["channels"] = float(fab.channels)
    out.update(own(profile))   # link_speed and latency, as a changed machine compares them
    if catalogue is not None and catalogue.nodes:   # (a catalogue of whole machines: none)
        out["node"] = float(catalogue.node_index(catalogue.reference))
        for j, net in enumerate(catalogue.networks):
            if fab is not None and np.isclose(net.link_speed, out["link_speed"], rtol=1e-9) \
                    and (net.latency is None or np.isclose(net.latency, out["latency"],
                                                           rtol=1e-9)):
                out["network"] = float(j)
                break
    return out


def _machine(profile: Profile, cfg: Mapping[str, FloatArray], grid: Grid) -> Machine:
    catalogue = grid.catalogue
    rate, latency = cfg.get("link_speed"), cfg.get("latency")
    speed = memory = None
    if catalogue is not None and "network" in cfg:
        rate, lat = catalogue.network_values(cfg["network"])
        if np.any(np.isfinite(lat)):
            assert profile.fabric is not None
            latency = np.where(np.isfinite(lat), lat, profile.fabric.values["overhead"])
    if catalogue is not None and "node" in cfg:
        speed, memory = catalogue.speed(cfg["node"])
    return changed(profile, channels=cfg.get("channels"), line_rate=rate, latency=latency,
                   speed=speed, memory_speed=memory, work_speed=grid.work_speed)


def sweep(fit: AppFit, profile: Profile, grid: Grid, *, size: float | None = None,
          weak: bool = False, level: float = 0.95, band: bool = True,
          progress: Callable[[int, int], None] | None = None,
          workers: int | None = None) -> Sweep:
    """Evaluate ``fit`` (its model and constants) on every configuration of ``grid``; with
    ``band``, each time's band from the fitted constants (one more pass per constant, which
    reads the network's costs from the first wherever the constant does not move them).
    ``workers``: threads the chunks run on (default: the machine's cores)."""
    if "machine" in grid.axes:
        from perfmodel.whatif.machines import across

        return across(fit, profile, grid, size=size, weak=weak, level=level, band=band,
                      progress=progress, workers=workers)
    if set(grid.axes) - {"nodes", "node"}:
        require_fabric(profile, "only nodes and node types can vary")
    model = fit.model
    n1 = model.problem_size(size)
    n_cfg = grid.size
    time = np.empty(n_cfg)
    lo = np.empty(n_cfg)
    hi = np.empty(n_cfg)
    speed = np.empty(n_cfg)
    terms = {k: np.empty(n_cfg) for k in TERMS}
    cfg_all = grid.flat()
    base = baseline_values(profile, grid.catalogue)
    from scipy.special import stdtrit

    msg_lo, msg_hi, msg_used = np.empty(n_cfg), np.empty(n_cfg), np.empty(n_cfg, dtype=bool)
    usable = band and bool(fit.fitted_names) and fit.dof > 0 and math.isfinite(fit.noise) and \
        bool(np.all(np.isfinite(fit.covariance)))
    scale = float(stdtrit(fit.dof, 0.5 + level / 2)) if usable else math.nan
    with np.errstate(all="ignore"):
        t1_of = _one_node_times(fit, profile, grid, n1)
        _passes(fit, profile, grid, cfg_all, n1, weak, usable, scale, t1_of, time, lo, hi, speed,
                terms, (msg_lo, msg_hi, msg_used), progress, workers)
    bad = ~(np.isfinite(time) & (time > 0))
    time[bad] = np.nan
    p = cfg_all["nodes"] if "nodes" in cfg_all else np.ones(n_cfg)
    outside = Extrapolation(p, fit.processes,
                            problem_sizes(n1 * p if weak else n1, model.uses_size, p.shape),
                            fit.sizes, model.size.unit if model.size else "",
                            MessageSpan(msg_lo, msg_hi, Machine(profile).calibrated(), msg_used)
                            if model.uses_machine else None, profile.name, model.valid)
    return Sweep(grid, cfg_all, time, lo, hi, terms, speed, base, weak,
                 prices(grid, base, cfg_all), outside)


def prices(grid: Grid, base: Mapping[str, float], cfg: Mapping[str, FloatArray]
           ) -> FloatArray | None:
    """Each configuration's price from the grid's catalogue; None without one, or when the
    network is not one of its options (a link speed or latency swept freely, or a profile
    whose own network the catalogue does not list)."""
    cat = grid.catalogue
    if cat is None or {"link_speed", "latency"} & set(grid.axes) or \
            ("network" not in cfg and "network" not in base):
        return None
    n_cfg = grid.size

    def axis(name: str) -> FloatArray:
        return cfg[name] if name in cfg else np.full(n_cfg, base.get(name, 1.0))
    return price(cat, axis("nodes"), axis("node"), axis("network"), axis("channels"))


def boxes(shape: tuple[int, ...], most: int | None = None) -> list[tuple[int, int, Box]]:
    """A grid of ``shape`` cut into chunks of at most ``most`` configurations (default
    :data:`CHUNK`), each a box of the grid: single values of the leading axes, a run of values
    of one axis, every value of the axes after it.  In the flat order (the last axis fastest)
    a box is the configurations ``start`` … ``stop`` − 1; every chunk but the last of a run
    holds more than ``most`` / 2.

    >>> [(a, b) for a, b, _ in boxes((3, 4), 8)]
    [(0, 8), (8, 12)]
    >>> boxes((3, 4), 3)[:2]
    [(0, 3, (slice(0, 1, None), slice(0, 3, None))), (3, 4, (slice(0, 1, None), slice(3, 4, None)))]
    """
    most = CHUNK if most is None else most
    if not shape:
        return [(0, 1, ())]
    inner = [int(math.prod(shape[k + 1:])) for k in range(len(shape))]
    k = next(j for j in range(len(shape)) if inner[j] <= most)
    step = max(1, most // inner[k])
    rest = (slice(None),) * (len(shape) - k - 1)
    out = []
    for row, head in enumerate(np.ndindex(*shape[:k])):
        base = row * shape[k] * inner[k]
        lead = tuple(slice(h, h + 1) for h in head)
        for j in range(0, shape[k], step):
            end = min(j + step, shape[k])
            out.append((base + j * inner[k], base + end * inner[k],
                        (*lead, slice(j, end), *rest)))
    return out


def _passes(fit: AppFit, profile: Profile, grid: Grid, cfg_all: Mapping[str, FloatArray],
            n1: float, weak: bool, usable: bool, scale: float,
            t1_of: Callable[[Box], FloatArray], time: FloatArray, lo: FloatArray,
            hi: FloatArray, speed: FloatArray, terms: Mapping[str, FloatArray],
            sent: tuple[FloatArray, FloatArray, NDArray[np.bool_]],
            progress: Callable[[int, int], None] | None, workers: int | None = None) -> None:
    """The chunked passes of :func:`sweep`, filling its arrays: the chunks (:func:`boxes`) run
    on the machine's cores at once (NumPy and SciPy's special functions release the
    interpreter lock), each writing its own slice.

    A chunk is evaluated as a box of the grid, not as a list of configurations: each axis is
    an array along its own dimension (node counts (k, 1, 1), channels (1, c, 1) …), so the
    formulas broadcast, and what depends on the node count alone (a message's size, a
    kernel's time) is computed once per node count, not once per configuration."""
    model = fit.model
    n_cfg = grid.size
    names = list(grid.axes)
    d = len(names)
    shaped = {k: np.asarray(grid.axes[k], dtype=np.float64).reshape(
        [-1 if j == i else 1 for j in range(d)]) for i, k in enumerate(names)}

    def chunk(start: int, stop: int, index: Box) -> int:
        """Fill configurations start … stop − 1, the box ``index`` of the grid; return
        how many."""
        box = tuple(len(range(*s.indices(m))) for s, m in zip(index, grid.shape, strict=True))
        with np.errstate(all="ignore"):
            cfg = {k: shaped[k][tuple(index[j] if j == i else slice(None) for j in range(d))]
                   for i, k in enumerate(names)}
            p = cfg.get("nodes", np.ones((1,) * d))
            n = n1 * p if weak else np.full_like(p, n1)
            watched = _machine(profile, cfg, grid).watched().remembering()
            split = _split(model, fit.values, watched, p, n)
            # the band's passes send the same messages: they read the network's costs kept
            # by this pass wherever a constant does not move a call's arguments
            on = replace(watched, log=None)
            t = time[start:stop].reshape(box)     # views: the sweep's arrays filled in place
            t[...] = sum(split.values(), np.zeros_like(p))
            for k in TERMS:
                terms[k][start:stop].reshape(box)[...] = split[k]
            flat = {k: v[start:stop] for k, v in cfg_all.items()}
            pf = flat.get("nodes", np.ones(stop - start))

            def again(rows: NDArray[np.bool_]) -> FloatArray:
                r = rows.reshape(-1)
                return _total(model, fit.values, _machine(profile, {k: v[r] for k, v in
                                                                    flat.items()},
                                                          grid).probing(),
                              pf[r], n1 * pf[r] if weak else np.full(int(r.sum()), n1))
            seen = message_span(watched, box, t, again)
            sent[0][start:stop], sent[1][start:stop] = seen.lo.reshape(-1), seen.hi.reshape(-1)
            sent[2][start:stop] = seen.outside.reshape(-1)
            tf = time[start:stop]
            t1 = np.broadcast_to(t1_of(index) * (p if weak else 1.0), box).reshape(-1)
            valid = np.isfinite(tf) & (tf > 0) & np.isfinite(t1) & (t1 > 0)
            speed[start:stop] = np.where(valid, t1 / np.where(valid, tf, 1.0), np.nan)
            half: FloatArray | float = math.nan
            if usable:
                grads = []
                for name in fit.fitted_names:     # forward differences: one pass per constant
                    v = fit.values[name]
                    h = abs(v) * 1e-6 if v else 1e-12
                    moved = _total(model, {**fit.values, name: v + h}, on, p, n)
                    grads.append(np.broadcast_to((moved - t) / h, box).reshape(-1))
                g = np.stack(grads, axis=-1) / tf[..., None]     # ∂ln T/∂θ, as predict's band
                half = scale * np.sqrt(np.einsum("...i,ij,...j->...", g, fit.covariance, g)
                                       + fit.noise**2)
            lo[start:stop], hi[start:stop] = tf * np.exp(-half), tf * np.exp(half)
        return stop - start

    parts = boxes(grid.shape)
    workers = min(len(parts), workers or os.cpu_count() or 1)
    if workers <= 1:
        for part in parts:
            chunk(*part)
            if progress is not None:
                progress(part[1], n_cfg)
        return
    from concurrent.futures import ThreadPoolExecutor, as_completed

    finished = 0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in as_completed([pool.submit(chunk, *part) for part in parts]):
            finished += future.result()
            if progress is not None:
                progress(finished, n_cfg)


def _one_node_times(fit: AppFit, profile: Profile, grid: Grid, n1: float
                    ) -> Callable[[Box], FloatArray]:
    """One node's time on each configuration's hardware: evaluated once per combination of
    the other axes (a node count changes nothing on one node), read per box of the grid (an
    array with the node counts' dimension of length one, broadcast along it)."""
    others = {k: v for k, v in grid.axes.items() if k != "nodes"}
    hardware = Grid(others, grid.catalogue, work_speed=grid.work_speed) if others else None
    cfg = hardware.flat() if hardware is not None else {}
    m = hardware.size if hardware is not None else 1
    on = _machine(profile, cfg, grid)
    t1 = _total(fit.model, fit.values, on, np.ones(m), np.full(m, n1))
    t1 = t1.reshape([1 if k == "nodes" else len(v) for k, v in grid.axes.items()])

    def lookup(index: Box) -> FloatArray:
        return np.asarray(t1[tuple(slice(None) if k == "nodes" else s
                                   for k, s in zip(grid.axes, index, strict=True))])
    return lookup


def _without(grid: Grid, axis: str) -> Callable[[NDArray[np.intp]], NDArray[np.intp]]:
    """For configurations ``i`` of ``grid`` (flat indices), their index in the grid of the
    other axes (``axis`` left out): two integer divisions per configuration.

    >>> g = Grid({"nodes": np.array([1.0, 2.0]), "channels": np.array([1.0, 2.0, 3.0])})
    >>> _without(g, "nodes")(np.arange(6)).tolist(), _without(g, "channels")(np.arange(6)).tolist()
    ([0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1])
    """
    names = list(grid.axes)
    if axis not in names:
        return lambda i: np.asarray(i, dtype=np.intp)
    shape = grid.shape
    k = names.index(axis)
    inner = int(math.prod(shape[k + 1:]))
    outer = inner * shape[k]
    return lambda i: np.asarray(i // outer * inner + i % inner, dtype=np.intp)


IDEAL_RATE = 1e15
"""A line rate (B/s) at which the wire costs nothing that matters: the what-if of a free wire."""


def wire_share(fit: AppFit, profile: Profile, sweep: Sweep, rows: NDArray[np.intp],
               size: float | None = None, weak: bool = False) -> FloatArray:
    """For configurations ``rows`` of ``sweep``, the share of the time that a free wire (an
    ideal line rate, everything else as configured) would take away: how much the link is
    the bottleneck.  The free wire's time does not depend on the line rate swept, so it is
    evaluated once per combination of the other axes among ``rows``, not once per row."""
    model = fit.model
    n1 = model.problem_size(size)
    rows = np.asarray(rows, dtype=np.intp)
    if rows.size == 0:
        return np.empty(0)
    if sweep.parts:   # across machines: each machine's rows on its own profile
        from perfmodel.whatif.machines import wire_shares

        return wire_shares(fit, profile, sweep, rows, size, weak)
    key = _without(sweep.grid, "link_speed")(rows)
    # one row for each key (any: they differ only in the line rate the free wire replaces)
    one = np.full(int(key.max()) + 1, -1, dtype=np.intp)
    one[key] = rows
    have = np.flatnonzero(one >= 0)
    reps = one[have]
    where = np.empty(len(one), dtype=np.intp)
    where[have] = np.arange(len(have))
    back = where[key]
    ideal = np.empty(len(reps))
    for start in range(0, len(reps), CHUNK):
        part = reps[start:start + CHUNK]
        cfg = {k: v[part] for k, v in sweep.config.items()}
        p = cfg.get("nodes", np.ones(len(part)))
        n = n1 * p if weak else np.full_like(p, n1)
        free = replace(_machine(profile, cfg, sweep.grid),
                       line_rate=np.full(len(part), IDEAL_RATE))
        with np.errstate(all="ignore"):
            ideal[start:start + len(part)] = _total(model, fit.values, free, p, n)
    with np.errstate(all="ignore"):
        return np.asarray(1.0 - ideal[back] / sweep.time[rows], dtype=np.float64)


def _split(model: AppModel, values: Mapping[str, float], on: Machine, p: FloatArray,
           n: FloatArray) -> dict[str, FloatArray]:
    """The time by kind of term on ``on``.  Another node type (``on.speed``) reaches the
    terms that cost their computation on the node (``kernel(...)``) through the node's rates;
    compute and serial terms in fitted or given seconds (:attr:`AppModel.work_terms`) are
    divided by the node's speed."""
    terms = model.evaluate(p, values, on, n)
    if on.speed is not None:
        k = np.asarray(on.speed, dtype=np.float64)
        work = model.work_terms
        terms = {key: v / k if key in work else v for key, v in terms.items()}
    return by_term(terms)


def _total(model: AppModel, values: Mapping[str, float], on: Machine, p: FloatArray,
           n: FloatArray) -> FloatArray:
    return sum(_split(model, values, on, p, n).values(), np.zeros_like(p))
