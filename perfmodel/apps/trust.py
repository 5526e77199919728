"""Which predicted rows leave what the model was fitted or calibrated on, and why.

A prediction of an application (``predict``, a what-if sweep, a plan, a report) is
extrapolated in a row when any of three things lies outside what was measured, or the node
count lies outside where the model holds at all:

- the **node count**, outside the counts the model's constants were fitted on;
- the **problem size** n, outside the sizes they were fitted on (a weak-scaling sweep grows n
  with the nodes; ``--size`` moves it);
- a **message**, smaller or larger than the sizes the machine profile's network costs were
  calibrated on (a specified fabric was never measured, so it has nothing to leave);
- the **model's range**: the process counts its file states it holds for (``[valid]``: NPB FT
  class A's 1-D layout to 128 processes, NPB's powers of two), whatever was fitted.

:class:`Extrapolation` holds the four masks with what they were compared against, and says
it in plain sentences; the command line and the reports show them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.apps.model import Validity
from perfmodel.machine import MessageSpan
from perfmodel.units import format_counts, format_line_rate, format_size, format_time

FloatArray = NDArray[np.float64]
REASONS = ("nodes", "problem size", "messages", "model's range")


@dataclass(frozen=True)
class Extrapolation:
    """Per row: its node count and problem size (NaN when the model's time does not depend
    on one), and the messages it costs; with the spans they were fitted or calibrated on."""

    nodes: FloatArray
    fitted_nodes: tuple[float, float]
    sizes: FloatArray
    fitted_sizes: tuple[float, float]
    size_unit: str = ""
    messages: MessageSpan | None = None
    profile: str = ""
    valid: Validity | None = None
    """Where the model holds (its file's ``[valid]``); None: no stated range."""

    @property
    def specified(self) -> bool:
        """Whether the profile's network was specified, not calibrated: no message sizes to
        leave."""
        return self.messages is not None and self.messages.calibrated is None

    @functools.cached_property
    def nodes_outside(self) -> NDArray[np.bool_]:
        lo, hi = self.fitted_nodes
        return np.asarray((self.nodes < lo) | (self.nodes > hi))

    @functools.cached_property
    def size_outside(self) -> NDArray[np.bool_]:
        lo, hi = self.fitted_sizes
        return np.asarray((self.sizes < lo * (1 - 1e-12)) | (self.sizes > hi * (1 + 1e-12)))

    @functools.cached_property
    def messages_outside(self) -> NDArray[np.bool_]:
        if self.messages is None:
            return np.zeros(self.nodes.shape, dtype=bool)
        return self.messages.outside

    @functools.cached_property
    def beyond_model(self) -> NDArray[np.bool_]:
        """Rows whose node count lies outside where the model holds (:attr:`valid`)."""
        if self.valid is None:
            return np.zeros(self.nodes.shape, dtype=bool)
        return self.valid.outside(self.nodes, self.sizes)

    @functools.cached_property
    def any(self) -> NDArray[np.bool_]:
        """Rows extrapolated for any reason."""
        return np.asarray(self.nodes_outside | self.size_outside | self.messages_outside
                          | self.beyond_model)

    def why(self, i: int) -> list[str]:
        """Row ``i``'s reasons, from :data:`REASONS`."""
        masks = (self.nodes_outside, self.size_outside, self.messages_outside,
                 self.beyond_model)
        return [r for r, m in zip(REASONS, masks, strict=True) if m[i]]

    def notes(self, where: NDArray[np.bool_] | None = None) -> list[str]:
        """One sentence per reason that holds in some row (of those ``where`` picks)."""
        pick = np.ones(self.nodes.shape, dtype=bool) if where is None else where
        out = []
        nodes = pick & self.nodes_outside
        if np.any(nodes):
            lo, hi = self.fitted_nodes
            counts = np.unique(self.nodes[nodes])     # once, and before any Python loop
            many = len(counts) > 1
            out.append(f"node count{'s' if many else ''} {format_counts(counts)} "
                       f"lie{'' if many else 's'} outside {lo:g}–{hi:g}, the range the "
                       "constants were fitted on: extrapolated")
        sized = pick & self.size_outside
        if np.any(sized):
            lo, hi = self.fitted_sizes
            unit = f" {self.size_unit}" if self.size_unit else ""
            a, b = float(self.sizes[sized].min()), float(self.sizes[sized].max())
            span = f"{a:g}{unit}" if a == b else f"{a:g}–{b:g}{unit}"
            fitted = f"{lo:g}{unit}" if lo == hi else f"{lo:g}–{hi:g}{unit}"
            out.append(f"problem size{'s' if a != b else ''} {span} "
                       f"({_at(self.nodes[sized])}) lie{'' if a != b else 's'} outside "
                       f"{fitted}, the sizes the constants were fitted on: extrapolated")
        sent = pick & self.messages_outside
        if np.any(sent) and self.messages is not None and self.messages.calibrated is not None:
            below, above = self.messages.beyond(sent)
            lo, hi = self.messages.calibrated
            of = f" {self.profile}" if self.profile else ""
            reach = " and ".join([*([f"down to {format_size(below)}"] if below else []),
                                  *([f"up to {format_size(above)}"] if above else [])])
            out.append(f"messages {reach} ({_at(self.nodes[sent])}) reach outside the "
                       f"{format_size(lo)}–{format_size(hi)} the profile{of} was calibrated "
                       "on, and the time depends on them: their network costs are "
                       "extrapolated")
        beyond = pick & self.beyond_model
        if np.any(beyond) and self.valid is not None:
            counts = np.unique(self.nodes[beyond])
            many = len(counts) > 1
            sizes = np.unique(self.sizes[beyond])
            at = float(sizes[0]) if len(sizes) == 1 and np.isfinite(sizes[0]) else None
            out.append(f"node count{'s' if many else ''} {format_counts(counts)} "
                       f"lie{'' if many else 's'} outside the model's range "
                       f"({self.valid.describe(at)}): {self.valid.reason}")
        return out

    def specified_notes(self) -> list[str]:
        """:func:`specified_note` as a list (empty when it says nothing)."""
        note = specified_note(self)
        return [note] if note else []

    def beyond(self) -> list[float | None] | None:
        """The smallest message below the calibrated sizes and the largest above them, over
        the rows whose time depends on such a message (None: no row does)."""
        if self.messages is None or not np.any(self.messages.outside):
            return None
        return list(self.messages.beyond())


def specified_note(outside: Extrapolation) -> str | None:
    """The sentence for a profile whose network was specified, not measured, when the
    prediction sends messages on it (None otherwise)."""
    span = outside.messages.span() if outside.messages is not None and outside.specified \
        else None
    if span is None:
        return None
    return (f"the profile's network is specified, not measured: its costs for the messages sent "
            f"({size_span(*span)}) have no calibrated range to be checked against")


LISTED = 8
"""The most values a note lists one by one; more are said as their span and count."""


def unmeasured_note(other: Mapping[str, ArrayLike], own: Mapping[str, float],
                    specified: bool) -> str | None:
    """The sentence for line rates (``link_speed``) and host latencies (``latency``) asked
    for that differ from the profile's ``own``: nothing measured them (None: there are none).
    ``specified``: the profile's network was itself specified, not calibrated."""
    shown: dict[str, tuple[str, str, Callable[[float], str]]] = {
        "link_speed": ("link speed", "link speeds", format_line_rate),
        "latency": ("latency", "latencies", format_time)}
    said, count = [], 0
    for key, values in other.items():
        v = [float(x) for x in np.atleast_1d(np.asarray(values, dtype=np.float64))]
        if not v or key not in own:
            continue
        one, many, fmt = shown[key]
        count += len(v)
        theirs = f"the profile's {fmt(own[key])}"
        listed = f"{', '.join(fmt(x) for x in v)} ({theirs})" if len(v) <= LISTED else \
            f"{fmt(min(v))} … {fmt(max(v))} ({len(v):,} values; {theirs})"
        said.append(f"{one if len(v) == 1 else many} {listed}")
    if not said:
        return None
    costs = "specified" if specified else "calibrated"
    return (f"{' and '.join(said)} {'was' if count == 1 else 'were'} "
            f"not measured: there the fabric's laws carry its {costs} costs to hardware it "
            "does not have")


def size_span(lo: float, hi: float) -> str:
    """``1 KiB–8 KiB``, or one size when both ends are the same."""
    return format_size(lo) if lo == hi else f"{format_size(lo)}–{format_size(hi)}"


def _at(nodes: FloatArray) -> str:
    """``at 2 nodes``, ``at 1 node``, ``at 1–4, 8 nodes``."""
    counts = np.unique(nodes)    # format_counts reads them one by one
    one = len(counts) == 1 and float(counts[0]) == 1.0
    return f"at {format_counts(counts)} node{'' if one else 's'}"


def problem_sizes(n: ArrayLike, uses_size: bool, shape: tuple[int, ...]) -> FloatArray:
    """The problem size of each row, NaN throughout when the model's time does not use it."""
    if not uses_size:
        return np.full(shape, math.nan)
    return np.broadcast_to(np.asarray(n, dtype=np.float64), shape).astype(np.float64)
