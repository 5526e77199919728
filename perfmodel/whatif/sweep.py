"""Every combination of node count, channels, link speed and latency, in one vectorised pass.

A :class:`Grid` holds the values of each axis; its configurations are their Cartesian product,
flattened (the last axis varies fastest).  :func:`sweep` evaluates an application model with
fitted constants on all of them at once: the machine's overrides are arrays, one value per
configuration, so the model's formulas, the collectives and the queueing laws run once over
the whole grid (in chunks, to bound memory), never configuration by configuration.

Each configuration gets its time, the time split by kind of term (compute, serial,
communication, synchronisation), its speedup over one node of the same hardware, and a band
from the fitted constants (delta method: one more pass per fitted constant).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from perfmodel.apps.fit import AppFit
from perfmodel.apps.machine import Machine, MessageSpan, message_span
from perfmodel.apps.metrics import by_term
from perfmodel.apps.model import AppModel
from perfmodel.apps.trust import Extrapolation, problem_sizes, unmeasured
from perfmodel.errors import InputError
from perfmodel.profile import Profile
from perfmodel.whatif.catalogue import Catalogue, price

FloatArray = NDArray[np.float64]

AXES: dict[str, str] = {
    "nodes": "process count, as the model counts it (one per node; on a fabric of boxes, "
             "box-mates share a box's port)",
    "channels": "channels per node (NICs, Ethernet segments, rails)",
    "link_speed": "line rate of one channel, B/s",
    "latency": "host time per message outside the wire, s (the fabric's overhead)",
    "node": "node type, an index into the catalogue's node types",
    "network": "network option, an index into the catalogue's networks (its line rate and "
               "latency)",
}
"""The axes a sweep can vary, in the order configurations are laid out."""
CATEGORICAL = ("node", "network")
"""Axes whose values index a catalogue's entries."""
TERMS = ("compute", "serial", "communication", "synchronisation")
CHUNK = 262_144
"""Configurations evaluated at once (memory: a few dozen arrays of this length)."""
MAX_CONFIGS = 5_000_000
"""The largest sweep: its arrays (about 150 bytes a configuration) stay under a gigabyte."""
MAX_CHANNELS = 64


@dataclass(frozen=True)
class Grid:
    """Values of each axis (absent axes take the profile's own value)."""

    axes: Mapping[str, FloatArray]
    catalogue: Catalogue | None = None
    cap: int = MAX_CONFIGS
    """The most configurations (the product of the axes' lengths) the grid may have."""
    what: str = "a sweep"

    def __post_init__(self) -> None:
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

    @property
    def size(self) -> int:
        return int(math.prod(len(v) for v in self.axes.values()))

    def coords(self, start: int = 0, stop: int | None = None) -> dict[str, NDArray[np.intp]]:
        """Each axis's value index for configurations ``start`` … ``stop`` − 1."""
        names = list(self.axes)
        shape = [len(self.axes[n]) for n in names]
        idx = np.arange(start, self.size if stop is None else stop)
        return {n: np.asarray(c, dtype=np.intp)
                for n, c in zip(names, np.unravel_index(idx, shape), strict=True)}

    def flat(self, start: int = 0, stop: int | None = None) -> dict[str, FloatArray]:
        """Each axis's value for configurations ``start`` … ``stop`` − 1."""
        names = list(self.axes)
        shape = [len(self.axes[n]) for n in names]
        idx = np.arange(start, self.size if stop is None else stop)
        coords = np.unravel_index(idx, shape)
        return {n: np.asarray(self.axes[n], dtype=np.float64)[c]
                for n, c in zip(names, coords, strict=True)}


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

    @property
    def extrapolation(self) -> Extrapolation:
        if self.outside is not None:
            return self.outside
        p = self.config.get("nodes", np.ones(len(self.time)))
        return Extrapolation(p, (1.0, math.inf), np.full(p.shape, math.nan), (0.0, math.inf))

    @property
    def fitted(self) -> tuple[float, float]:
        """The node counts the model's constants were fitted on (all of them when given)."""
        return self.extrapolation.fitted_nodes

    @property
    def extrapolated(self) -> NDArray[np.bool_]:
        """Configurations extrapolated for any reason (:attr:`outside`)."""
        return self.extrapolation.any

    @property
    def unmeasured(self) -> dict[str, FloatArray]:
        """The line rates and host latencies swept (as themselves, or as a catalogue's network
        options) other than the profile's own: no measurement was made there, the fabric's
        laws carry its calibrated costs to them."""
        rate, lat = self.config.get("link_speed"), self.config.get("latency")
        cat = self.grid.catalogue
        if cat is not None and "network" in self.config:
            rate, lat = cat.network_values(self.config["network"])
            lat = lat[np.isfinite(lat)]   # NaN: the option keeps the profile's latency
        return unmeasured({"link_speed": rate, "latency": lat}, self.baseline)

    @property
    def rank_time(self) -> FloatArray:
        """What configurations are ranked by: the time, or under weak scaling (the problem
        grows with p) the time per process's share of work, time / p."""
        if not self.weak:
            return self.time
        return np.asarray(self.time / self.config.get("nodes", np.ones(len(self.time))),
                          dtype=np.float64)

    @property
    def comm_share(self) -> FloatArray:
        """Communication's share of the time."""
        return np.asarray(self.terms["communication"] / self.time, dtype=np.float64)


def baseline_values(profile: Profile, catalogue: Catalogue | None = None) -> dict[str, float]:
    """The profile's own hardware: the value each absent axis takes (with a catalogue, its
    reference node type, and the network option that is the profile's own if one is)."""
    fab = profile.fabric
    out = {"nodes": 1.0}
    if fab is not None:
        out["channels"] = float(fab.channels)
        out["link_speed"] = float(fab.values["line_rate"])
        out["latency"] = float(fab.values["overhead"])
    if catalogue is not None:
        out["node"] = float(catalogue.node_index(catalogue.reference))
        for j, net in enumerate(catalogue.networks):
            if fab is not None and np.isclose(net.link_speed, out["link_speed"], rtol=1e-9) \
                    and (net.latency is None or np.isclose(net.latency, out["latency"],
                                                           rtol=1e-9)):
                out["network"] = float(j)
                break
    return out


def _machine(profile: Profile, cfg: Mapping[str, FloatArray],
             catalogue: Catalogue | None = None) -> Machine:
    rate, latency = cfg.get("link_speed"), cfg.get("latency")
    speed = memory = None
    if catalogue is not None and "network" in cfg:
        rate, lat = catalogue.network_values(cfg["network"])
        if np.any(np.isfinite(lat)):
            assert profile.fabric is not None
            latency = np.where(np.isfinite(lat), lat, profile.fabric.values["overhead"])
    if catalogue is not None and "node" in cfg:
        speed, memory = catalogue.speed(cfg["node"])
    return Machine(profile, channels=cfg.get("channels"), line_rate=rate, overhead=latency,
                   speed=speed, memory_speed=memory)


def sweep(fit: AppFit, profile: Profile, grid: Grid, *, size: float | None = None,
          weak: bool = False, level: float = 0.95, band: bool = True,
          progress: Callable[[int, int], None] | None = None) -> Sweep:
    """Evaluate ``fit`` (its model and constants) on every configuration of ``grid``; with
    ``band``, each time's band from the fitted constants (one more pass per constant)."""
    if profile.fabric is None and set(grid.axes) - {"nodes", "node"}:
        raise InputError(f"profile {profile.name!r} has no fabric, so only nodes and node "
                         "types can vary",
                         fix="use a profile with a fabric (calibrate with pairs or channels, "
                             "or a spec's [fabric])")
    model = fit.model
    n1 = size if size is not None else (model.size.value if model.size else 1.0)
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
                terms, (msg_lo, msg_hi, msg_used), progress)
    bad = ~(np.isfinite(time) & (time > 0))
    time[bad] = np.nan
    p = cfg_all.get("nodes", np.ones(n_cfg))
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


def _passes(fit: AppFit, profile: Profile, grid: Grid, cfg_all: Mapping[str, FloatArray],
            n1: float, weak: bool, usable: bool, scale: float,
            t1_of: Callable[[int, int], FloatArray], time: FloatArray, lo: FloatArray,
            hi: FloatArray, speed: FloatArray, terms: Mapping[str, FloatArray],
            sent: tuple[FloatArray, FloatArray, NDArray[np.bool_]],
            progress: Callable[[int, int], None] | None) -> None:
    """The chunked passes of :func:`sweep`, filling its arrays: the chunks run on the
    machine's cores at once (NumPy and SciPy's special functions release the interpreter
    lock), each writing its own slice."""
    model = fit.model
    n_cfg = grid.size

    def chunk(start: int) -> int:
        """Fill configurations start … start + CHUNK − 1; return how many."""
        stop = min(start + CHUNK, n_cfg)
        with np.errstate(all="ignore"):
            cfg = {k: v[start:stop] for k, v in cfg_all.items()}
            p = cfg.get("nodes", np.ones(stop - start))
            n = n1 * p if weak else np.full_like(p, n1)
            watched = _machine(profile, cfg, grid.catalogue).watched()
            split = _split(model, fit.values, watched, p, n)
            on = replace(watched, log=None)   # the band's passes send the same messages
            t = sum(split.values(), np.zeros_like(p))
            seen = message_span(watched, p.shape, t, lambda rows: _total(
                model, fit.values, _machine(profile, {k: v[rows] for k, v in cfg.items()},
                                            grid.catalogue).probing(), p[rows], n[rows]))
            sent[0][start:stop], sent[1][start:stop] = seen.lo, seen.hi
            sent[2][start:stop] = seen.outside
            t1 = t1_of(start, stop) * (p if weak else 1.0)
            time[start:stop] = t
            valid = np.isfinite(t) & (t > 0) & np.isfinite(t1) & (t1 > 0)
            speed[start:stop] = np.where(valid, t1 / np.where(valid, t, 1.0), np.nan)
            for k in TERMS:
                terms[k][start:stop] = split[k]
            half = np.full_like(t, math.nan)
            if usable:
                grads = []
                for name in fit.fitted_names:     # forward differences: one pass per constant
                    v = fit.values[name]
                    h = abs(v) * 1e-6 if v else 1e-12
                    moved = _total(model, {**fit.values, name: v + h}, on, p, n)
                    grads.append((moved - t) / h)
                g = np.stack(grads, axis=-1) / t[..., None]     # ∂ln T/∂θ, as predict's band
                half = scale * np.sqrt(np.einsum("...i,ij,...j->...", g, fit.covariance, g)
                                       + fit.noise**2)
            lo[start:stop], hi[start:stop] = t * np.exp(-half), t * np.exp(half)
        return stop - start

    starts = list(range(0, n_cfg, CHUNK))
    workers = min(len(starts), os.cpu_count() or 1)
    if workers <= 1:
        for start in starts:
            chunk(start)
            if progress is not None:
                progress(min(start + CHUNK, n_cfg), n_cfg)
        return
    from concurrent.futures import ThreadPoolExecutor, as_completed

    finished = 0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in as_completed([pool.submit(chunk, s) for s in starts]):
            finished += future.result()
            if progress is not None:
                progress(finished, n_cfg)


def _one_node_times(fit: AppFit, profile: Profile, grid: Grid, n1: float
                    ) -> Callable[[int, int], FloatArray]:
    """One node's time on each configuration's hardware: evaluated once per combination of
    the other axes (a node count changes nothing on one node), looked up per chunk."""
    others = {k: v for k, v in grid.axes.items() if k != "nodes"}
    hardware = Grid(others, grid.catalogue) if others else None
    cfg = hardware.flat() if hardware is not None else {}
    m = hardware.size if hardware is not None else 1
    on = _machine(profile, cfg, grid.catalogue)
    t1 = _total(fit.model, fit.values, on, np.ones(m), np.full(m, n1))
    names = list(grid.axes)
    shape = [len(grid.axes[k]) for k in names]
    keep = [i for i, k in enumerate(names) if k != "nodes"]

    def lookup(start: int, stop: int) -> FloatArray:
        coords = np.unravel_index(np.arange(start, stop), shape)
        if not keep:
            return np.full(stop - start, t1[0])
        flat = np.ravel_multi_index([coords[i] for i in keep], [shape[i] for i in keep])
        return np.asarray(t1[flat], dtype=np.float64)
    return lookup


IDEAL_RATE = 1e15
"""A line rate (B/s) at which the wire costs nothing that matters: the what-if of a free wire."""


def wire_share(fit: AppFit, profile: Profile, sweep: Sweep, rows: NDArray[np.intp],
               size: float | None = None, weak: bool = False) -> FloatArray:
    """For configurations ``rows`` of ``sweep``, the share of the time that a free wire (an
    ideal line rate, everything else as configured) would take away: how much the link is
    the bottleneck."""
    model = fit.model
    n1 = size if size is not None else (model.size.value if model.size else 1.0)
    out = np.empty(len(rows))
    for start in range(0, len(rows), CHUNK):
        part = rows[start:start + CHUNK]
        cfg = {k: v[part] for k, v in sweep.config.items()}
        p = cfg.get("nodes", np.ones(len(part)))
        n = n1 * p if weak else np.full_like(p, n1)
        free = replace(_machine(profile, cfg, sweep.grid.catalogue),
                       line_rate=np.full(len(part), IDEAL_RATE))
        with np.errstate(all="ignore"):
            ideal = _total(model, fit.values, free, p, n)
            out[start:start + len(part)] = 1.0 - ideal / sweep.time[part]
    return out


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
