"""Which assumed parameters decide an answer: each is moved across the range it could take and
the answer computed again; where the ranking, a step's worth or the time moves, the answer
says so beside itself ("a second channel pays at 8 nodes only if messages are split into
packets of ≤ 4 KiB; packet size is assumed").

An assumption is a parameter of the profile's fabric or node whose status is ``assumed`` (a
default nobody measured, or a spec that says so).  The values each could as well have been,
and why, are its parameter's ``span`` (:class:`~perfmodel.params.Param`); they run from the
usual assumption outwards, so the first that moves the answer is the nearest, and the
sentence gives it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from perfmodel.machine.profile import Profile
from perfmodel.params import Estimate, Param
from perfmodel.units import format_value

GAIN = 0.01
"""How far a step's gain must move (at some node count) before a change in where it pays is
said: a count on the edge of paying flips with any change."""

MAX_CONFIGURATIONS = 1 << 18
"""The largest sweep whose assumptions are tried (each try is a sweep of its own); a larger
one says that they were not, and how to see them."""


@dataclass(frozen=True)
class Decisive:
    """An assumed parameter that moves an answer: ``what`` changed, at ``value`` instead of
    the assumed ``held`` (with its ``source``)."""

    part: str
    name: str
    held: float
    value: float
    source: str
    what: str
    machine: str = ""
    """The machine whose assumption it is, in a sweep across machines ("": the one)."""

    def sentence(self) -> str:
        of = f"{self.machine}'s " if self.machine else ""
        if not self.part:   # not tried
            return f"assumed {of}{self.name}: {self.what}"
        unit = _param(self.part, self.name).unit
        return (f"{self.what} if {of}{self.name} were {_show(self.value, unit)} (assumed "
                f"{_show(self.held, unit)}: {self.source or 'no source'})")

    def to_dict(self) -> dict[str, Any]:
        return {"part": self.part or None, "parameter": self.name, "assumed": self.held,
                "tried": self.value, "source": self.source, "changes": self.what,
                "machine": self.machine or None,
                "sentence": self.sentence()}   # JSON writes NaN and inf as null


def _show(value: float, unit: str) -> str:
    """A parameter's value in its unit (:func:`~perfmodel.units.format_value`); a size of ∞
    is a message never split, a per-byte time of 0 is none."""
    if unit == "B" and math.isinf(value):
        return "∞ (unsplit)"
    if unit == "s/B" and value == 0:
        return "0"
    return format_value(value, unit) if unit else f"{value:g}"


def _param(part: str, name: str) -> Param:
    from perfmodel.network.fabric import PARAMS as FABRIC
    from perfmodel.node import PARAMS as NODE

    return (FABRIC if part == "fabric" else NODE)[name]


def assumed(profile: Profile) -> list[tuple[str, Estimate]]:
    """The profile's assumed fabric and node parameters whose parameter has a ``span``."""
    out = []
    for part, group in (("fabric", profile.fabric), ("node", profile.node)):
        if group is None:
            continue
        out += [(part, p) for p in group.params
                if p.status == "assumed" and _param(part, p.name).span]
    return out


def with_value(profile: Profile, part: str, name: str, value: float) -> Profile:
    """``profile`` with one fabric or node parameter at ``value``."""
    def moved(params: tuple[Estimate, ...]) -> tuple[Estimate, ...]:
        return tuple(replace(p, value=value) if p.name == name else p for p in params)

    if part == "fabric" and profile.fabric is not None:
        return replace(profile, fabric=replace(profile.fabric, params=moved(profile.fabric.params)))
    if part == "node" and profile.node is not None:
        return replace(profile, node=replace(profile.node, params=moved(profile.node.params)))
    raise ValueError(f"the profile has no {part}")


def _tries(profile: Profile, part: str, p: Estimate) -> tuple[float, ...]:
    """The values ``p`` is tried at (:func:`~perfmodel.network.fabric.could_be`)."""
    if part == "node":
        return _param(part, p.name).span
    from perfmodel.network.fabric import could_be

    assert profile.fabric is not None
    return could_be(p, profile.fabric.values)


def search(profile: Profile, differs: Callable[[Profile], str | None],
           farthest: bool = False) -> list[Decisive]:
    """For each assumption, the nearest value tried that makes ``differs`` say what changed
    (None: nothing that matters); with ``farthest``, only the far end of each range is tried
    (one more evaluation per assumption, for answers that cost a whole sweep)."""
    found = []
    for part, p in assumed(profile):
        tries = _tries(profile, part, p)
        for value in tries[-1:] if farthest else tries:
            if value == p.value:
                continue
            what = differs(with_value(profile, part, p.name, value))
            if what is not None:
                found.append(Decisive(part, p.name, p.value, value, p.source, what))
                break
    return found


def time_moves(before: ArrayLike, after: ArrayLike, counts: ArrayLike,
               share: float) -> str | None:
    """Where a time moves by more than ``share``: the largest move and its node count."""
    b, a = np.asarray(before, dtype=np.float64), np.asarray(after, dtype=np.float64)
    with np.errstate(all="ignore"):
        change = a / b - 1.0
    ok = np.isfinite(change)
    if not np.any(ok) or float(np.max(np.abs(change[ok]))) <= share:
        return None
    i = int(np.flatnonzero(ok)[np.argmax(np.abs(change[ok]))])
    at = float(np.asarray(counts, dtype=np.float64)[i])
    return f"the time at {at:g} nodes would move by {change[i]:+.1%}"


def _counts(nodes: np.ndarray, most: int = 6) -> str:
    """``4, 8, 16 nodes``, or the first few and how many: ``4, 8, … (120 node counts)``."""
    if not nodes.size:
        return "no node count"
    shown = ", ".join(f"{v:g}" for v in nodes[:most])
    return f"{shown} nodes" if nodes.size <= most else \
        f"{shown}, … ({nodes.size} node counts)"


def whatif(profile: Profile, base: Any, rerun: Callable[[Profile], Any], worth: float,
           text: Callable[[str, float], str]) -> list[Decisive]:
    """The assumptions that move a what-if sweep's answer: its best configuration, where a
    step of any axis pays (cuts the time by ``worth``), or the baseline's time by more than
    ``worth``.  ``rerun`` sweeps the same grid on another profile; ``text`` writes an axis's
    value as the view does."""
    from perfmodel.whatif import analysis
    from perfmodel.whatif.axes import LABELS

    if len(base.time) > MAX_CONFIGURATIONS:
        return _untried(profile, len(base.time))
    first = analysis.best(base, 1)
    steps = analysis.steps(base, worth)
    rows = analysis.baseline(base)
    nodes = base.nodes

    def config(sweep: Any, i: int) -> str:
        said = analysis.describe(sweep, i)
        return ", ".join(f"{LABELS[k]} {text(k, v)}" for k, v in said.items())

    def differs(other: Profile) -> str | None:
        new = rerun(other)
        for a, b in zip(steps, analysis.steps(new, worth), strict=True):
            with np.errstate(all="ignore"):
                moved = np.nanmax(np.abs(b.gain / a.gain - 1.0), initial=0.0)
            if set(a.pays.tolist()) != set(b.pays.tolist()) and moved > GAIN:
                where = _counts(b.pays)
                k = int(np.argmax(np.abs(b.gain / a.gain - 1.0)))
                return (f"{LABELS[a.axis]} {text(a.axis, a.before)} → {text(a.axis, a.after)} "
                        f"would pay at {where} (gain {b.gain[k]:.3g}× at {b.nodes[k]:g} nodes, "
                        f"not {a.gain[k]:.3g}×)")
        top = analysis.best(new, 1)
        if first.size and top.size and int(top[0]) != int(first[0]) and \
                new.time[top[0]] < (1.0 - worth) * new.time[first[0]]:
            return f"the best configuration would be {config(new, int(top[0]))}"
        return time_moves(base.time[rows], new.time[rows], nodes[rows], worth)

    return search(profile, differs)


def per_machine(profile: Profile, grid: Any, search: Callable[[Profile, Callable[..., Any]],
                                                                list[Decisive]],
                again: Callable[[Profile, Any], Any]) -> list[Decisive]:
    """An assumption search (:func:`whatif` or :func:`plan`, as ``search(profile, rerun)``)
    on a grid with a machine axis or without: ``again(profile, grid)`` sweeps or plans a grid
    on a profile.  Across machines, each machine's assumptions are tried on its own entry of
    the grid, each named by its machine (:func:`~perfmodel.whatif.machines.each_machine`)."""
    from dataclasses import replace as named

    from perfmodel.whatif.machines import each_machine

    out = []
    for label, own, on in each_machine(profile, grid):
        def rerun(other: Profile, on: Any = on) -> Any:
            return again(*on(other))
        out += [named(d, machine=label) for d in search(own, rerun)]
    return out


def _untried(profile: Profile, size: int) -> list[Decisive]:
    """The one entry of a sweep too large for its assumptions to be tried (none without any)."""
    names = ", ".join(p.name for _, p in assumed(profile))
    if not names:
        return []
    return [Decisive("", names, math.nan, math.nan, "",
                     f"not tried: the sweep has {size:,} configurations, more than the "
                     f"{MAX_CONFIGURATIONS:,} whose assumptions are tried (each try is a "
                     "sweep); narrow the axes to see which of them decide")]


def plan(profile: Profile, chosen: int | None, rerun: Callable[[Profile], int | None],
         text: Callable[[int], str], size: int = 0) -> list[Decisive]:
    """The assumptions whose far end changes a purchase plan's choice (``rerun`` plans again
    on another profile and gives the index chosen; ``text`` describes a configuration;
    ``size`` the configurations each try sweeps)."""
    if size > MAX_CONFIGURATIONS:
        return _untried(profile, size)
    def differs(other: Profile) -> str | None:
        now = rerun(other)
        if now == chosen:
            return None
        return "no configuration would meet the target" if now is None else \
            f"the plan would choose {text(now)}"

    return search(profile, differs, farthest=True)
