"""The registry of point-to-point models: names, parameters with units, formulas.

Thin descriptions around the laws in :mod:`perfmodel.network.laws`; the CLI's choices and
``perfmodel models`` come from :data:`MODELS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import InputError
from perfmodel.network import laws
from perfmodel.units import MIN_RATE, Kind, parse_quantity


@dataclass(frozen=True)
class Param:
    """One parameter of a law.

    unit : SI unit of the value (``s``, ``B/s``, ``B``, ``s/B``)
    kind : how a value typed by a person is parsed (``time`` also for ``s/B``: "1ns" per byte)
    """

    name: str
    unit: str
    kind: Kind
    description: str


@dataclass(frozen=True)
class ModelSpec:
    name: str
    description: str
    formula: str
    latex: str
    params: tuple[Param, ...]
    law: Callable[..., NDArray[np.float64]]


_ALPHA = Param("alpha", "s", "time", "start-up latency")
_BETA = Param("beta", "B/s", "rate", "asymptotic bandwidth r∞")

MODELS: dict[str, ModelSpec] = {
    "hockney": ModelSpec(
        "hockney", "latency + size / bandwidth", "T = alpha + m/beta",
        r"T(m) = \alpha + \frac{m}{\beta}", (_ALPHA, _BETA), laws.hockney),
    "loggp": ModelSpec(
        "loggp", "LogGP; a ping-pong identifies only L + 2o (o is held at 0 unless given)",
        "T = L + 2o + (m-1)G", r"T(m) = L + 2o + (m-1)\,G",
        (Param("L", "s", "time", "network latency"),
         Param("o", "s", "time", "per-message overhead at each end"),
         Param("G", "s/B", "time", "gap per byte (1/bandwidth)")),
        laws.loggp),
    "packet": ModelSpec(
        "packet", "latency + per-packet cost + size / bandwidth",
        "T = alpha + ceil(m/mtu)*t_pkt + m/beta",
        r"T(m) = \alpha + \left\lceil \frac{m}{\mathrm{MTU}} \right\rceil t_{pkt}"
        r" + \frac{m}{\beta}",
        (_ALPHA, Param("t_pkt", "s", "time", "cost per packet"), _BETA,
         Param("mtu", "B", "size", "payload per packet")),
        laws.packet),
    "piecewise": ModelSpec(
        "piecewise", "Hockney segments between protocol switches, breakpoints from the data",
        "T = alpha_i + m/beta_i for breakpoint_(i-1) <= m < breakpoint_i",
        r"T(m) = \alpha_i + \frac{m}{\beta_i}, \quad b_{i-1} \le m < b_i",
        (_ALPHA, _BETA, Param("breakpoint", "B", "size", "size where a segment starts")),
        laws.piecewise),
}
AUTO = "auto"


def lower_bound(name: str) -> float:
    """The smallest physical value of parameter ``name`` (SI units): bandwidths 1 B/s, packet
    sizes and breakpoints 1 byte, latencies, overheads, per-packet costs and gaps 0."""
    if name.split("_")[0] == "beta":
        return MIN_RATE
    return 1.0 if name.split("_")[0] in ("mtu", "breakpoint") else 0.0


def check_value(name: str, value: float) -> str | None:
    """Why ``value`` cannot be parameter ``name`` (SI units), or None when it can."""
    base = name.split("_")[0]
    if not math.isfinite(value):
        return f"{name} must be finite"
    if value >= lower_bound(name):
        return None
    if base == "beta":
        return f"{name} is a bandwidth and must be at least 1 B/s"
    if base in ("mtu", "breakpoint"):
        return f"{name} is a size and must be at least 1 byte"
    return f"{name} is a time and cannot be negative"


def parse_value(name: str, text: str) -> float:
    """A value typed for parameter ``name`` (``"2us"``, ``"1.25MB/s"``), in SI units and checked.

    Raises :class:`InputError` with no file: the caller names the place.
    """
    kinds = {p.name: p.kind for s in MODELS.values() for p in s.params}
    value = parse_quantity(text.strip(), kinds[name])
    why = check_value(name, value)
    if why:
        raise InputError(why, fix="give a physical value")
    return value


def spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise InputError(f"unknown network model {name!r}",
                         fix=f"choose one of {', '.join(MODELS)} or auto") from None


def piecewise_params(segments: int) -> tuple[Param, ...]:
    """``alpha_1, beta_1, …, alpha_k, beta_k, breakpoint_1, …, breakpoint_(k-1)``."""
    out: list[Param] = []
    for i in range(1, segments + 1):
        out += [Param(f"alpha_{i}", "s", "time", f"latency of segment {i}"),
                Param(f"beta_{i}", "B/s", "rate", f"bandwidth of segment {i}")]
    out += [Param(f"breakpoint_{i}", "B", "size", f"first size of segment {i + 1}")
            for i in range(1, segments)]
    return tuple(out)


def segments_of(values: Mapping[str, float]) -> int:
    return sum(1 for k in values if k.startswith("alpha_"))


def param_list(name: str, values: Mapping[str, float] | None = None) -> tuple[Param, ...]:
    """Parameters of model ``name`` (for piecewise, as many segments as ``values`` has)."""
    if name == "piecewise":
        return piecewise_params(segments_of(values or {}) or 1)
    return spec(name).params


def evaluate(name: str, nbytes: ArrayLike, values: Mapping[str, float]) -> NDArray[np.float64]:
    """One-way time in seconds of model ``name`` with parameter ``values`` at ``nbytes``."""
    if name == "piecewise":
        k = segments_of(values)
        return laws.piecewise(
            nbytes,
            [values[f"breakpoint_{i}"] for i in range(1, k)],
            [values[f"alpha_{i}"] for i in range(1, k + 1)],
            [values[f"beta_{i}"] for i in range(1, k + 1)],
        )
    s = spec(name)
    return s.law(nbytes, **{p.name: values[p.name] for p in s.params})
