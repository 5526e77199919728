"""A what-if sweep across machine profiles: the same code, its constants fitted once, on
machines that differ in more than a line rate (each its own laws, contention, collectives and
node).

A machine cannot be an array inside one vectorised pass (two calibrated profiles do not share
the shape of their laws), so the grid's other axes are swept on each machine in turn, one
vectorised pass per machine, and the passes are laid end to end: the machine axis comes first
in the grid, so machine ``j``'s configurations are the ``j``-th run of the flat order.  A
machine whose profile has no node takes the node of the profile the constants were fitted on,
as ``predict --on`` does; so a machine in the sweep answers what ``predict --on`` answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np
from numpy.typing import NDArray

from perfmodel.apps.fit import AppFit
from perfmodel.apps.trust import Extrapolation
from perfmodel.machine.profile import Profile
from perfmodel.whatif.sweep import TERMS, Grid, Sweep, baseline_values

FloatArray = NDArray[np.float64]


def entry(grid: Grid, j: int, profile: Profile) -> Profile:
    """Machine ``j`` of ``grid``'s machines (``profile``, the one fitted on, where the entry
    is None); without a node of its own, it takes ``profile``'s
    (:func:`~perfmodel.machine.hardware.on_other`)."""
    from perfmodel.machine.hardware import on_other

    other = grid.machines[j][1]
    return profile if other is None else on_other(profile, other)[0]


def node_of(grid: Grid, j: int, profile: Profile) -> tuple[float | None, str]:
    """How machine ``j``'s node does the work fitted on ``profile``'s, and the sentence
    (:func:`~perfmodel.machine.hardware.node_speed`; "" for the fitted-on profile itself)."""
    from perfmodel.machine.hardware import node_speed

    other = grid.machines[j][1]
    return (None, "") if other is None else node_speed(profile, other)


def with_entry(grid: Grid, j: int, profile: Profile) -> Grid:
    """``grid`` with machine ``j``'s profile replaced (an assumption tried on it)."""
    entries = list(grid.machines)
    entries[j] = (entries[j][0], profile)
    return replace(grid, machines=tuple(entries))


def each_machine(profile: Profile, grid: Grid
                 ) -> list[tuple[str, Profile, Callable[[Profile], tuple[Profile, Grid]]]]:
    """Whose assumptions a sweep's answer rests on, and how to sweep with one changed: without
    a machine axis, ``profile``'s on the grid (label ""); across machines, each machine's
    profile on its own entry of the grid (the fitted-on one's as the sweep's profile),
    labelled by the machine.  Each entry: the label, the profile whose assumptions to try,
    and what to sweep on (a profile and a grid) with that profile changed."""
    if "machine" not in grid.axes:
        return [("", profile, lambda other: (other, grid))]
    def entry_of(j: int) -> Callable[[Profile], tuple[Profile, Grid]]:
        return lambda other: (profile, with_entry(grid, j, other))

    out: list[tuple[str, Profile, Callable[[Profile], tuple[Profile, Grid]]]] = []
    for j in grid.axes["machine"].astype(int).tolist():
        label, own = grid.machines[j]
        if own is None:
            out.append((label, profile, lambda other: (other, grid)))
        else:
            out.append((label, own, entry_of(j)))
    return out


def others(grid: Grid) -> Grid:
    """The grid without its machine axis: what each machine's pass sweeps."""
    return Grid({k: v for k, v in grid.axes.items() if k != "machine"}, grid.catalogue,
                grid.cap, grid.what)


def home(grid: Grid) -> int | None:
    """The machine axis's index of the profile the constants were fitted on (None: not
    swept)."""
    for i, j in enumerate(grid.axes["machine"].tolist()):
        if grid.machines[int(j)][1] is None:
            return i
    return None


def across(fit: AppFit, profile: Profile, grid: Grid, *, size: float | None = None,
           weak: bool = False, level: float = 0.95, band: bool = True,
           progress: Callable[[int, int], None] | None = None,
           workers: int | None = None) -> Sweep:
    """:func:`~perfmodel.whatif.sweep.sweep` on a grid with a machine axis: one pass per
    machine over the other axes, laid end to end."""
    from perfmodel.whatif.sweep import sweep

    sub = others(grid)
    picks = [int(j) for j in grid.axes["machine"].tolist()]
    done = 0
    notes = []

    def moved(finished: int, whole: int) -> None:
        if progress is not None:
            progress(done + finished, grid.size)

    parts = []
    for j in picks:
        speed, said = node_of(grid, j, profile)
        notes += [said] if said else []
        parts.append(sweep(fit, entry(grid, j, profile), replace(sub, work_speed=speed),
                           size=size, weak=weak, level=level, band=band, progress=moved,
                           workers=workers))
        done += sub.size
    # the baseline machine's own hardware, only where an axis is swept (across machines each
    # has its own channels, line rate and latency): the fitted-on profile's where it is
    # swept, else the first listed, which the baseline then holds
    at = home(grid)
    held = profile if at is not None else entry(grid, picks[0], profile)
    base = {k: v for k, v in baseline_values(held).items() if k == "nodes" or k in sub.axes}
    if at is not None:
        base["machine"] = float(grid.axes["machine"][at])
    cfg = grid.flat()
    return Sweep(grid, cfg, _joined([p.time for p in parts]),
                 _joined([p.lo for p in parts]), _joined([p.hi for p in parts]),
                 {k: _joined([p.terms[k] for p in parts]) for k in TERMS},
                 _joined([p.speedup for p in parts]), base, weak, offered_price(grid, cfg),
                 Joined.of([p.extrapolation for p in parts]), tuple(notes), parts=tuple(parts))


def offered_price(grid: Grid, cfg: Mapping[str, FloatArray]) -> FloatArray | None:
    """Each configuration's price where the grid's catalogue offers its machines
    (:func:`~perfmodel.whatif.catalogue.machine_price`; NaN for a machine it does not offer);
    None without machine offers, or where the hardware is changed from what is offered."""
    from perfmodel.whatif.catalogue import machine_price

    cat = grid.catalogue
    if cat is None or not cat.machines or {"channels", "link_speed", "latency"} & set(grid.axes):
        return None
    names = {m.name: i for i, m in enumerate(cat.machines)}
    offer = np.array([names.get(label, -1) for label, _ in grid.machines], dtype=np.intp)
    nodes = cfg["nodes"] if "nodes" in cfg else np.ones(grid.size)
    return machine_price(cat, offer[cfg["machine"].astype(np.intp)], nodes)


def _joined(arrays: Sequence[FloatArray]) -> FloatArray:
    return np.asarray(np.concatenate(arrays), dtype=np.float64)


@dataclass(frozen=True)
class Joined(Extrapolation):
    """The extrapolation of a sweep across machines: node counts and problem sizes as one
    (the constants were fitted once), messages as each machine's own calibrated sizes judge
    them, and each machine's notes named by its profile."""

    parts: tuple[Extrapolation, ...] = ()

    @classmethod
    def of(cls, parts: Sequence[Extrapolation]) -> Joined:
        first = parts[0]
        return cls(np.concatenate([p.nodes for p in parts]), first.fitted_nodes,
                   np.concatenate([p.sizes for p in parts]), first.fitted_sizes,
                   first.size_unit, None, ", ".join(p.profile for p in parts), first.valid,
                   tuple(parts))

    @property
    def messages_outside(self) -> NDArray[np.bool_]:
        return np.concatenate([p.messages_outside for p in self.parts])

    def _cut(self, where: NDArray[np.bool_] | None) -> list[NDArray[np.bool_] | None]:
        if where is None:
            return [None] * len(self.parts)
        ends = np.cumsum([0, *(len(p.nodes) for p in self.parts)])
        return [where[a:b] for a, b in pairwise(ends.tolist())]

    def notes(self, where: NDArray[np.bool_] | None = None) -> list[str]:
        out: list[str] = []
        for part, pick in zip(self.parts, self._cut(where), strict=True):
            out += [s for s in part.notes(pick) if s not in out]
        return out

    def specified_notes(self) -> list[str]:
        return [f"{p.profile}: {n}" for p in self.parts for n in p.specified_notes()]

    def beyond(self) -> list[float | None] | None:
        found = [b for p in self.parts if (b := p.beyond()) is not None]
        if not found:
            return None
        below = [b[0] for b in found if b[0] is not None]
        above = [b[1] for b in found if b[1] is not None]
        return [min(below) if below else None, max(above) if above else None]


def unmeasured(parts: Sequence[Sweep]) -> dict[str, FloatArray]:
    """The line rates and latencies swept that some machine did not measure (each machine
    judged against its own)."""
    out: dict[str, list[FloatArray]] = {}
    for p in parts:
        for k, v in p.unmeasured.items():
            out.setdefault(k, []).append(v)
    return {k: np.unique(np.concatenate(v)) for k, v in out.items()}


def rows_by_machine(sweep: Sweep, rows: NDArray[np.intp]
                    ) -> list[tuple[int, NDArray[np.intp], NDArray[np.intp]]]:
    """``rows`` of a sweep across machines grouped by machine: for each part, its index, the
    positions in ``rows``, and the rows as the part's own indices."""
    ends = np.cumsum([0, *(len(p.time) for p in sweep.parts)])
    which = np.searchsorted(ends, rows, side="right") - 1
    return [(k, np.flatnonzero(which == k), rows[which == k] - ends[k])
            for k in range(len(sweep.parts))]


def wire_shares(fit: AppFit, profile: Profile, sweep: Sweep, rows: NDArray[np.intp],
                size: float | None = None, weak: bool = False) -> FloatArray:
    """:func:`~perfmodel.whatif.sweep.wire_share` across machines: each machine's rows on
    its own profile and its own sweep."""
    from perfmodel.whatif.sweep import wire_share

    out = np.empty(len(rows))
    picks = sweep.grid.axes["machine"]
    for k, at, own_rows in rows_by_machine(sweep, rows):
        if at.size:
            on = entry(sweep.grid, int(picks[k]), profile)
            out[at] = wire_share(fit, on, sweep.parts[k], own_rows, size, weak)
    return out

