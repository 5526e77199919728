"""The one way to make a machine with changed hardware.

Every command that changes a profile's hardware — ``predict --channels/--link-speed``,
``scaling``'s re-prediction, a report's run, each configuration of a what-if sweep — calls
:func:`changed`: it checks the values (vectorised: a sweep's chunk costs tens of µs), refuses
a change the profile cannot make (a network change without a fabric), and returns the
:class:`~perfmodel.machine.core.Machine` carrying the changes in its values
(:attr:`~perfmodel.machine.core.Machine.values`), whose
:attr:`~perfmodel.machine.core.Machine.unmeasured` says which of them no measurement saw.
(The what-if sweep's wire share replaces the line rate of such a machine by an ideal one, an
internal device no user value reaches.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import InputError
from perfmodel.units import (
    MAX_LATENCY,
    MAX_RATE,
    MIN_RATE,
    format_flop_rate,
    format_rate,
    line_rate_problem,
)

if TYPE_CHECKING:
    from perfmodel.machine.core import Machine
    from perfmodel.machine.profile import Profile
    from perfmodel.network.fabric import Fabric

FloatArray = NDArray[np.float64]

FABRIC_FIX = ("use a profile with a fabric: calibrate it on data with pairs, channels or senders "
              "columns, or give a spec with a [fabric] table")


def require_fabric(profile: Profile, why: str, path: str | Path | None = None,
                   fix: str = FABRIC_FIX, context: str = "") -> Fabric:
    """The profile's fabric, or one line saying that it has none (no contention model), so
    ``why`` ("channels and link speed cannot change"); ``path`` names the profile's file and
    ``context`` what asked ("run 'PPM': ", said first)."""
    if profile.fabric is None:
        raise InputError(f"{context}profile {profile.name!r} has no fabric (no contention "
                         f"model), so {why}", file=path, fix=fix)
    return profile.fabric


def changed(profile: Profile, *, channels: ArrayLike | None = None,
            line_rate: ArrayLike | None = None, latency: ArrayLike | None = None,
            speed: ArrayLike | None = None, memory_speed: ArrayLike | None = None,
            work_speed: float | None = None, path: str | Path | None = None,
            fix: str = FABRIC_FIX, context: str = "") -> Machine:
    """``profile`` as a :class:`~perfmodel.machine.core.Machine` with its hardware changed:
    ``channels`` per node (whole, at least 1), the ``line_rate`` of each channel (B/s), the
    per-message host ``latency`` (s, replacing the fabric's ``overhead``), and the node's
    arithmetic ``speed`` and ``memory_speed`` (factors on the profile's rates).  Each may be
    an array, one value per configuration.  A network change on a profile without a fabric,
    or a value no hardware has, is one line naming ``path`` after ``context`` (what asked for
    the change: "run 'PPM': ")."""
    from perfmodel.machine.core import Machine

    asked = [name for name, v in (("channels", channels), ("link speed", line_rate),
                                  ("latency", latency)) if v is not None]
    if asked:
        require_fabric(profile, f"{' and '.join(asked)} cannot change", path, fix, context)
    if channels is not None:
        c = np.asarray(channels, dtype=np.float64)
        if not np.all((c >= 1) & (c == np.round(c))):
            raise InputError(f"{context}channels {_first(c, (c < 1) | (c != np.round(c)))} is "
                             "not a whole number of channels of at least 1", file=path,
                             fix="give channels 1, 2, …")
    if line_rate is not None:
        r = np.asarray(line_rate, dtype=np.float64)
        wrong = ~((r >= MIN_RATE) & (r <= MAX_RATE))
        if np.any(wrong):
            first = _first(r, wrong)
            raise InputError(f"{context}line rate {first} B/s "
                             f"{line_rate_problem(float(first))}", file=path,
                             fix="give a link speed such as 100Mbps or 25Gbps")
    if latency is not None:
        lat = np.asarray(latency, dtype=np.float64)
        wrong = ~((lat >= 0) & (lat <= MAX_LATENCY))
        if np.any(wrong):
            raise InputError(f"{context}latency {_first(lat, wrong)} s is not a latency from 0 "
                             "to an hour", file=path, fix="give a latency such as 2us")
    for name, factor in (("speed", speed), ("memory speed", memory_speed)):
        if factor is not None:
            f = np.asarray(factor, dtype=np.float64)
            if not np.all(np.isfinite(f) & (f > 0)):
                raise InputError(f"{context}node {name} "
                                 f"{_first(f, ~(np.isfinite(f) & (f > 0)))} is not a positive "
                                 "factor", file=path, fix="give node rates above 0")
    return Machine(profile, channels=channels, line_rate=line_rate, overhead=latency,
                   speed=speed, memory_speed=memory_speed, work_speed=work_speed)


def node_speed(fitted: Profile, other: Profile) -> tuple[float | None, str]:
    """How much faster ``other``'s node does the work timed on ``fitted``'s: the ratio of
    their flop rates, or where either has none (a node of STREAM alone) of the memory bandwidth
    a process streams (:attr:`~perfmodel.node.Node.memory_rate`); None where they are
    taken to be the same node; and the sentence that says which ("" where the rates are
    equal).  :func:`speed_basis` says which rate it was."""
    a, b = fitted.node, other.node
    if a is None or b is None:
        if a is None and b is None:
            return None, ("the nodes are taken to be the same: neither profile has a node (HPL "
                          "or STREAM), so the work is not moved")
        return None, (f"the nodes are taken to be the same: {other.name} has no node (HPL or "
                      f"STREAM), so {fitted.name}'s stands in" if b is None else
                      f"the nodes are taken to be the same: {fitted.name} has no node (HPL "
                      "or STREAM), so the work timed there is not moved")
    if not (a.has_flop_rate and b.has_flop_rate):
        ra, rb = a.memory_rate, b.memory_rate
        short = [p.name for p, n in ((fitted, a), (other, b)) if not n.has_flop_rate]
        lacking = " and ".join(short) + (" have" if len(short) > 1 else " has")
        if ra is None or rb is None:
            return None, (f"the nodes are taken to be the same: {lacking} no flop rate (no "
                          "HPL), and the two nodes' memory bandwidths are not both measured")
        (ma, how_a), (mb, how_b) = ra, rb
        if math.isclose(ma, mb, rel_tol=1e-9):
            return None, ""
        def run(how: str) -> str:
            return "one process streaming alone" if how == "alone" else \
                f"{how} threads streaming at once"

        unlike = ("" if how_a == how_b else
                  f"; {fitted.name}'s rate is {run(how_a)}, {other.name}'s {run(how_b)}: "
                  "unlike runs, and one process alone streams more than its share with every "
                  "core busy")
        return mb / ma, (f"{other.name}'s node does the work {mb / ma:.3g}× as fast as "
                         f"{fitted.name}'s: the memory bandwidth a process streams, "
                         f"{format_rate(mb)} against {format_rate(ma)} (STREAM; {lacking} "
                         f"no flop rate, so the code is taken to be bound by its memory{unlike})")
    fa, fb = float(a.values["flop_rate"]), float(b.values["flop_rate"])
    if math.isclose(fa, fb, rel_tol=1e-9):
        return None, ""
    assumed = [p.name for p in (fitted, other) if p.node is not None and any(
        e.name == "flop_rate" and e.status == "assumed" for e in p.node.params)]
    rests = f"; {' and '.join(assumed)}'s flop rate is assumed, and the ratio with it" \
        if assumed else ""
    return fb / fa, (f"{other.name}'s node does the work {fb / fa:.3g}× as fast as "
                     f"{fitted.name}'s: flop rates {format_flop_rate(fb)} against "
                     f"{format_flop_rate(fa)} a process (each profile's node{rests}); terms "
                     "that cost their work on the node use its rates")


def speed_basis(fitted: Profile, other: Profile) -> str | None:
    """Which rates :func:`node_speed` moves the work by: ``"flops"``, ``"memory"``, or None
    where the nodes are taken to be the same."""
    a, b = fitted.node, other.node
    if a is None or b is None:
        return None
    if a.has_flop_rate and b.has_flop_rate:
        return "flops"
    return "memory" if a.memory_rate is not None and b.memory_rate is not None else None


def on_other(fitted: Profile, other: Profile) -> tuple[Profile, float | None, str]:
    """``other`` as a code fitted or timed on ``fitted`` is costed there: its profile, with
    ``fitted``'s node where it has none; how much faster its node does the work
    (:func:`node_speed`); and the sentence that says which."""
    speed, said = node_speed(fitted, other)
    if other.node is None and fitted.node is not None and fitted.node.has_flop_rate:
        other = replace(other, node=fitted.node)   # (a node of STREAM alone costs nothing)
    return other, speed, said


def _first(values: FloatArray, where: NDArray[np.bool_]) -> str:
    return f"{float(np.atleast_1d(values)[np.atleast_1d(where)][0]):g}"


def own(profile: Profile) -> dict[str, float]:
    """The profile's own line rate (``link_speed``) and host latency (``latency``), those a
    change is compared with; empty without a fabric."""
    fab = profile.fabric
    if fab is None:
        return {}
    return {"link_speed": float(fab.values["line_rate"]),
            "latency": float(fab.values["overhead"])}


def unmeasured(asked: Mapping[str, ArrayLike | None], own: Mapping[str, float]
               ) -> dict[str, FloatArray]:
    """Of the line rates (``link_speed``) and host latencies (``latency``) ``asked`` for, those
    other than the profile's ``own`` (distinct, sorted): nothing measured them."""
    out = {}
    for name, values in asked.items():
        if values is None or name not in own:
            continue
        v = np.atleast_1d(np.asarray(values, dtype=np.float64))
        other = np.unique(v[~np.isclose(v, own[name], rtol=1e-9)])
        if other.size:
            out[name] = other
    return out
