"""A measurement's rows and provenance, and the perfmodel CSV they are written as.

The CSV is what :mod:`perfmodel.readers.canonical` reads and ``calibrate`` fits: sizes in
bytes, the median time of each point with its spread (``t_min``, ``p25``, ``p75``,
``t_max``), the repetitions behind it, the count the pattern varies (``pairs``, ``senders``,
``processes``) and where the ranks sat.  The ``#`` lines above the header say who measured
what, where, when and how.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from perfmodel.measure.plan import PATTERNS
from perfmodel.measure.stats import Summary, bound
from perfmodel.network.hierarchy import PLACEMENTS, box_of
from perfmodel.units import format_size


@dataclass(frozen=True)
class Row:
    """One point: ``summary`` in seconds (one-way for pingpong and pairs, one stream's time
    per message for fanin, one iteration for exchange)."""

    size: int
    count: int
    processes: int
    summary: Summary
    placement: str
    oversubscribed: bool
    stopped: str


@dataclass(frozen=True)
class Result:
    pattern: str
    rows: tuple[Row, ...]
    provenance: tuple[tuple[str, str], ...]
    """``(key, text)`` lines for the header, in order."""


def link_placement(hosts: Sequence[str], links: Sequence[tuple[int, int]]) -> str:
    """``intra-node`` when every link's two ranks share a host, ``inter-node`` when none
    does, else ``mixed``.

    >>> link_placement(["a", "a", "b", "b"], [(0, 2), (1, 3)])
    'inter-node'
    """
    same = {hosts[a] == hosts[b] for a, b in links}
    return "mixed" if len(same) > 1 else "intra-node" if same == {True} else "inter-node"


def ring_placement(hosts: Sequence[str]) -> str | None:
    """How the ranks of a ring sit on hosts, as the fabric's placements name it (``block``,
    ``cyclic``, ``spread``), or None when none of them describes it.

    >>> ring_placement(["a", "b", "a", "b"]), ring_placement(["a", "a", "a"])
    ('cyclic', 'block')
    """
    names = list(dict.fromkeys(hosts))
    seen = np.array([names.index(h) for h in hosts])
    if len(names) == 1:
        return "block"
    box = max(int(np.sum(seen == i)) for i in range(len(names)))
    for placement in PLACEMENTS:
        if np.array_equal(box_of(len(hosts), box, placement), seen):
            return placement
    return None


def oversubscribed(hosts: Sequence[str], cores: Mapping[str, int]) -> dict[str, int]:
    """Hosts with more of these ranks than cores: host -> ranks."""
    out: dict[str, int] = {}
    for host in dict.fromkeys(hosts):
        n = sum(1 for h in hosts if h == host)
        if n > cores.get(host, n):
            out[host] = n
    return out


_SPREAD = ("t_min_us", "p25_us", "p75_us", "t_max_us")


def _g(x: float) -> str:
    return f"{x:.6g}"


def header(pattern: str) -> list[str]:
    info = PATTERNS[pattern]
    return ["size_bytes", info.time, *_SPREAD, "reps", "statistic",
            *([info.count] if info.count else []), "processes", "placement",
            *(["pattern"] if info.kind else [])]


def _cells(pattern: str, row: Row) -> list[str]:
    info, s = PATTERNS[pattern], row.summary
    if pattern == "fanin":   # n senders each deliver one message per `median` seconds
        value = _g(row.size * row.count / s.median / 1e6)
    else:
        value = _g(s.median * 1e6)
    return [str(row.size), value, *(_g(v * 1e6) for v in (s.t_min, s.p25, s.p75, s.t_max)),
            str(s.n), "median", *([str(row.count)] if info.count else []), str(row.processes),
            row.placement + (" oversubscribed" if row.oversubscribed and pattern != "exchange"
                             else ""),
            *([info.kind] if info.kind else [])]


def _columns_said(pattern: str) -> list[str]:
    time = {
        "pingpong": "one_way_us = median one-way time (half the round trip) of the repetitions",
        "pairs": "one_way_us = median over repetitions of the pairs' one-way times' harmonic "
                 "mean, so aggregate bandwidth = pairs × size / one_way",
        "fanin": "aggregate_bandwidth_MBps = senders × size / (median time per window / "
                 "window), 10^6 B/s, at the receiver",
        "exchange": "time_us = median time of one iteration on the slowest rank (in each "
                    "batch the rank with the largest median, as IMB's t_max takes the rank "
                    "with the largest mean)",
    }[pattern]
    spread = ("t_min_us, p25_us, p75_us, t_max_us = least, quartiles and most of the "
              + ("repetitions' time per message of one stream (window time / window)"
                 if pattern == "fanin" else "same repetitions"))
    kind = PATTERNS[pattern].kind
    return [time, spread, "reps = repetitions timed after the warm-up; statistic = median",
            "processes = ranks taking part; placement = where they sat"
            + (" (block, cyclic or spread over hosts)" if pattern == "exchange" else
               " (intra-node: on one host; 'oversubscribed': more ranks than usable cores "
               "there)"),
            *([f"pattern = {kind}: what one time is"] if kind else [])]


def to_csv(result: Result) -> str:
    """The CSV text: provenance comments, the header, one line per point."""
    lines = [f"# source: measured by perfmodel measure (command, hosts and dates below); "
             f"pattern {result.pattern}: {PATTERNS[result.pattern].means}"]
    lines += [f"# {key}: {text}" for key, text in result.provenance]
    lines += [f"# columns: {said}" for said in _columns_said(result.pattern)]
    over = sorted({(r.count, r.processes) for r in result.rows if r.oversubscribed})
    if over:
        lines.append(f"# OVERSUBSCRIBED: the rows of {', '.join(str(p) for _, p in over)} "
                     "processes ran in a job with more ranks on a host than cores usable there; "
                     "they measure ranks time-sharing cores, not a network")
    loose = [r for r in result.rows if r.stopped not in ("fixed", "stable")]
    if loose:
        said = ", ".join(f"{format_size(r.size)}" + (f" ({r.count})" if r.count > 1 else "")
                         + f" {bound(r.summary)} of {r.summary.n} ({r.stopped})"
                         for r in loose[:8])
        more = f" and {len(loose) - 8} more" if len(loose) > 8 else ""
        lines.append(f"# not settled: {len(loose)} point(s) ended before the stopping rule "
                     f"(the median's 95 % interval within the tolerance, on enough "
                     f"repetitions) was met: {said}{more}")
    lines.append(",".join(header(result.pattern)))
    lines += [",".join(_cells(result.pattern, r)) for r in result.rows]
    return "\n".join(lines) + "\n"
