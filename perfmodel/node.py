"""A node's arithmetic and memory: how long a kernel of F flops over B bytes of memory takes.

The roofline law: a kernel takes the longer of its arithmetic and its memory traffic,

    t = max(F / flop_rate, B / b),   b = min(memory_bandwidth, domain_bandwidth / k),

with ``memory_bandwidth`` what one process streams alone (STREAM), and ``k`` = min(p,
``memory_domain``) the processes drawing at once on a memory system that delivers
``domain_bandwidth`` to all of them together (the cores of a socket, or a whole shared-memory
machine whose pages are not placed beside their processors).  Both rates are per process;
``flop_rate`` is what the node's processors sustain on compiled scientific code, not a peak,
unless its source says otherwise.

A profile's ``[node]`` table holds these values, each with its status and source, as a spec's
``[node.params.NAME]`` tables give them::

    [node.params.flop_rate]
    value = "4.5Mflop/s"
    source = "seed 000 §4.3: 'the PPM code achieved 4.5 MFLOPS on a single processor'"
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import InputError, UnitError
from perfmodel.network.fit import Estimate, ParamSet, Status
from perfmodel.units import parse_quantity

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class NodeParam:
    name: str
    unit: str
    kind: Literal["flops", "rate", "number"]
    description: str
    lower: float
    default: float | None = None
    why: str = ""


PARAMS: dict[str, NodeParam] = {p.name: p for p in (
    NodeParam("flop_rate", "flop/s", "flops",
              "arithmetic one process sustains on compiled scientific code", 1.0),
    NodeParam("memory_bandwidth", "B/s", "rate",
              "memory bandwidth one process streams alone (STREAM)", 1.0, math.inf,
              "default: no memory bandwidth given, memory never limits"),
    NodeParam("memory_domain", "", "number",
              "processes that share one memory system's bandwidth", 1.0, 1.0,
              "default: every process has its own memory system"),
    NodeParam("domain_bandwidth", "B/s", "rate",
              "memory bandwidth a memory domain delivers to all its processes together",
              1.0, math.inf, "default: no shared limit given"),
)}


@dataclass(frozen=True)
class Node(ParamSet):
    """A node's values (flop_rate, memory_bandwidth, memory_domain, domain_bandwidth)."""

    params: tuple[Estimate, ...]
    notes: tuple[str, ...] = ()


def check_param(name: str, value: float) -> str | None:
    """Why ``value`` cannot be node parameter ``name``, or None when it can."""
    p = PARAMS[name]
    if math.isnan(value) or (math.isinf(value) and (p.default != math.inf or value < 0)):
        return f"{name} must be a finite number" if p.default != math.inf else \
            f"{name} must be a number (inf for none)"
    if value < p.lower:
        return f"{name} ({p.description}) must be at least {p.lower:g}"
    if name == "memory_domain" and not value.is_integer():
        return "memory_domain is a whole number of processes"
    return None


def parse_param(name: str, text: str) -> float:
    """A typed value for node parameter ``name`` ("4.5Mflop/s", "1.2GB/s", "4"), checked."""
    p = PARAMS.get(name)
    if p is None:
        raise InputError(f"a node has no parameter {name!r}",
                         fix=f"parameters: {', '.join(PARAMS)}")
    t = text.strip()
    if p.kind == "number" or t.lower() == "inf":
        try:
            value = float(t)
        except ValueError:
            raise InputError(f"{name} = {text!r} is not a number",
                             fix="give a plain number, e.g. 2") from None
    else:
        try:
            value = parse_quantity(t, p.kind)
        except UnitError as exc:
            raise InputError(f"{name}: {exc.what}", fix=exc.fix) from None
    why = check_param(name, value)
    if why:
        raise InputError(f"{name} = {text!r}: {why}", fix="give a physical value")
    return value


def specified(fixed: Mapping[str, float], sources: Mapping[str, str],
              assumed: tuple[str, ...] = (), path: str = "") -> Node:
    """A node from a spec's values; parameters not given take their defaults, marked
    ``assumed`` with the reason.  ``flop_rate`` has no default."""
    params = []
    for name, p in PARAMS.items():
        if name in fixed:
            status = "assumed" if name in assumed else "fixed"
            params.append(Estimate(name, fixed[name], math.nan, p.unit, cast(Status, status),
                                   sources.get(name, "")))
        elif p.default is not None:
            params.append(Estimate(name, p.default, math.nan, p.unit, "assumed", p.why))
        else:
            raise InputError(f"the node's {name} must be given", file=path or None,
                             fix=f"add [node.params.{name}] with value and source")
    return Node(tuple(params))


def kernel_seconds(values: Mapping[str, float], flops: ArrayLike, nbytes: ArrayLike,
                   processes: ArrayLike) -> FloatArray:
    """Seconds one of ``processes`` processes takes for ``flops`` operations over ``nbytes``
    bytes of memory traffic, all processes running such a kernel at once (the roofline)."""
    f, b, p = np.broadcast_arrays(np.asarray(flops, dtype=np.float64),
                                  np.asarray(nbytes, dtype=np.float64),
                                  np.asarray(processes, dtype=np.float64))
    sharing = np.clip(p, 1.0, values["memory_domain"])
    rate = np.minimum(values["memory_bandwidth"], values["domain_bandwidth"] / sharing)
    with np.errstate(divide="ignore", invalid="ignore"):
        memory = np.where(b == 0, 0.0, b / rate)
        t = np.maximum(f / values["flop_rate"], memory)
    # a negative or non-finite count is no kernel: NaN, never a plausible time
    bad = ~(np.isfinite(f) & np.isfinite(b) & (f >= 0) & (b >= 0))
    return np.asarray(np.where(bad, np.nan, t), dtype=np.float64)
