"""A node's arithmetic and memory: how long a kernel of F flops over B bytes of memory takes.

The roofline law: a kernel takes the longer of its arithmetic and its memory traffic,

    t = max(F / flop_rate, (B + A·cache_line) / b),
    b = min(memory_bandwidth, domain_bandwidth / k),

with ``memory_bandwidth`` what one process streams alone (STREAM), and ``k`` = min(p,
``memory_domain``) the processes drawing at once on a memory system that delivers
``domain_bandwidth`` to all of them together (the cores of a socket, or a whole shared-memory
machine whose pages are not placed beside their processors).  ``A`` counts random accesses
that miss the caches (a histogram's increments, a gather): each moves a whole ``cache_line``
however little of it is used, which is how a machine with short lines keeps up on scattered
access with one that streams faster.  Both rates are per process;
``flop_rate`` is what the node's processors sustain on compiled scientific code, not a peak,
unless its source says otherwise.

A profile's ``[node]`` table holds these values, each with its status and source, as a spec's
``[node.params.NAME]`` tables give them.  A node calibrated from STREAM alone (no HPL) has no
``flop_rate``: its memory rates move a code's work to another node
(:func:`perfmodel.machine.hardware.node_speed`), and a model that costs arithmetic on it is
refused in one line (:func:`require_flop_rate`)::

    [node.params.flop_rate]
    value = "4.5Mflop/s"
    source = "seed 000 §4.3: 'the PPM code achieved 4.5 MFLOPS on a single processor'"
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import InputError
from perfmodel.params import Estimate, Param, ParamSet, Status, parse_named
from perfmodel.params import specified as specified_params

FloatArray = NDArray[np.float64]


PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("flop_rate", "flop/s", "flops",
               "arithmetic one process sustains on compiled scientific code", 1.0,
               unlimited=False, example="4.5Mflop/s"),
    Param("memory_bandwidth", "B/s", "rate",
               "memory bandwidth one process streams alone (STREAM)", 1.0, default=math.inf,
               why="default: no memory bandwidth given, memory never limits",
               example="1.2GB/s"),
    Param("memory_domain", "", "number",
               "processes that share one memory system's bandwidth", 1.0, default=1.0,
               why="default: every process has its own memory system", unlimited=False,
               whole="processes", example="2"),
    Param("domain_bandwidth", "B/s", "rate",
               "memory bandwidth a memory domain delivers to all its processes together",
               1.0, default=math.inf, why="default: no shared limit given", example="2GB/s"),
    Param("cache_line", "B", "size",
               "bytes one random memory access moves (the cache line)", 1.0, default=64.0,
               why="default: 64-byte lines (most processors since about 2000)",
               unlimited=False, example="32B", span=(128.0, 32.0),
               span_why="cache lines are 32 to 128 bytes"),
)}


@dataclass(frozen=True)
class Node(ParamSet):
    """A node's values (flop_rate, memory_bandwidth, memory_domain, domain_bandwidth,
    cache_line); ``flop_rate`` is absent from a node measured by STREAM alone."""

    params: tuple[Estimate, ...]
    notes: tuple[str, ...] = ()

    @property
    def has_flop_rate(self) -> bool:
        return any(p.name == "flop_rate" for p in self.params)

    @property
    def memory_rate(self) -> tuple[float, str] | None:
        """A process's memory bandwidth where a measurement or spec gives it, and what it is:
        its own ``memory_bandwidth`` ("alone"), else a measured ``domain_bandwidth``'s share
        over its ``memory_domain`` ("a share of N", a threaded STREAM's, every thread busy);
        None where both are defaults or assumed."""
        got = {p.name: p for p in self.params}
        alone, domain = got["memory_bandwidth"], got["domain_bandwidth"]
        if alone.status != "assumed" and math.isfinite(alone.value) and alone.value > 0:
            return float(alone.value), "alone"
        k = got["memory_domain"].value
        if domain.status != "assumed" and math.isfinite(domain.value) and domain.value > 0:
            return float(domain.value) / k, f"a share of {k:g}"
        return None


MEMORY_ONLY = tuple(name for name in PARAMS if name != "flop_rate")
"""The parameters of a node measured by STREAM alone."""


def require_flop_rate(node: Node, owner: str, path: str | None = None) -> None:
    """Nothing where ``node`` has a flop rate; else one line naming ``owner`` (a profile)."""
    if not node.has_flop_rate:
        raise InputError(f"profile {owner!r} has a node without a flop rate (its node rests on "
                         "STREAM alone): a model that costs arithmetic cannot run on it",
                         file=path, fix="calibrate it again with an HPL output beside STREAM, "
                                        "or give --spec with [node.params.flop_rate]")


def check_param(name: str, value: float) -> str | None:
    """Why ``value`` cannot be node parameter ``name``, or None when it can."""
    return PARAMS[name].check(value)


def parse_param(name: str, text: str) -> float:
    """A typed value for node parameter ``name`` ("4.5Mflop/s", "1.2GB/s", "4"), checked."""
    return parse_named(PARAMS, "a node", name, text)


def specified(fixed: Mapping[str, float], sources: Mapping[str, str],
              assumed: tuple[str, ...] = (), path: str = "", given: Status = "fixed",
              memory_only: bool = False) -> Node:
    """A node from a spec's values (``given``: their status where not ``assumed``);
    parameters not given take their defaults, marked ``assumed`` with the reason.
    ``flop_rate`` has no default; ``memory_only``: a node of STREAM's rates, without one."""
    def missing(name: str) -> InputError:
        return InputError(f"the node's {name} must be given", file=path or None,
                          fix=f"add [node.params.{name}] with value and source")

    names = MEMORY_ONLY if memory_only else list(PARAMS)
    return Node(specified_params(PARAMS, names, fixed, sources, assumed, missing, given))


def kernel_seconds(values: Mapping[str, float], flops: ArrayLike, nbytes: ArrayLike,
                   processes: ArrayLike, accesses: ArrayLike = 0.0) -> FloatArray:
    """Seconds one of ``processes`` processes takes for ``flops`` operations over ``nbytes``
    bytes of streamed memory traffic and ``accesses`` random accesses (a cache line each),
    all processes running such a kernel at once (the roofline)."""
    f, b, a, p = np.broadcast_arrays(np.asarray(flops, dtype=np.float64),
                                     np.asarray(nbytes, dtype=np.float64),
                                     np.asarray(accesses, dtype=np.float64),
                                     np.asarray(processes, dtype=np.float64))
    sharing = np.clip(p, 1.0, values["memory_domain"])
    rate = np.minimum(values["memory_bandwidth"], values["domain_bandwidth"] / sharing)
    traffic = b + a * values["cache_line"]
    with np.errstate(divide="ignore", invalid="ignore"):
        memory = np.where(traffic == 0, 0.0, traffic / rate)
        t = np.maximum(f / values["flop_rate"], memory)
    # a negative or non-finite count is no kernel: NaN, never a plausible time
    bad = ~(np.isfinite(f) & np.isfinite(b) & np.isfinite(a) & (f >= 0) & (b >= 0) & (a >= 0))
    return np.asarray(np.where(bad, np.nan, t), dtype=np.float64)
