"""A node's rates from its benchmark outputs: the flop rate from HPL's best run, the memory
bandwidth from STREAM Triad (or HPCG's memory traffic), each marked ``derived`` with the rule
and the rows it rests on, and a note where HPL's rate a process is more than a core gives."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from perfmodel.measurements import Measurements
from perfmodel.node import Node
from perfmodel.node import specified as specified_node

CACHE_SAFE = 64 * 2**20
"""Bytes a STREAM Triad pass must move for its rate not to be said to be maybe the caches':
three arrays well past the last-level cache of most nodes (up to 32 MiB a socket)."""
CORE_PEAK = 1.28e11
"""The most double-precision flop/s one core does today, for the plausibility of HPL's rate a
process: 4 GHz × 32 flops a cycle (two 512-bit FMA units).  Above it a process was threaded or
drove an accelerator."""


def _verified(t: Measurements, i: int) -> bool:
    """Row ``i`` of an HPL table passed its residual check (a table that does not keep the
    verdict, a perflog's, is taken as its tool gave it)."""
    verdict = t.extra.get("verified")
    return verdict is None or bool(verdict[i] == 1)


def node_from(tables: Sequence[Measurements]) -> tuple[Node | None, list[str]]:
    """The node's rates from HPL, STREAM and HPCG tables, each marked ``derived`` with its
    rule and rows (HPCG's memory traffic gives the memory bandwidth where STREAM does not);
    with no flop rate (no HPL) a node of STREAM's memory rates alone, said; without HPL or
    STREAM, none."""
    fixed: dict[str, float] = {}
    sources: dict[str, str] = {}
    assumed: list[str] = []   # the rest are derived
    notes: list[str] = []
    hpl = [t for t in tables if t.benchmark == "HPL" and "flop_rate" in t.extra]
    if hpl:
        per = [(float(t.extra["flop_rate"][i] / t.concurrency["processes"][i]), t, i)
               for t in hpl for i in range(len(t))]
        checked = [x for x in per if _verified(x[1], x[2])]
        if checked and len(checked) < len(per):
            notes.append(f"node: {len(per) - len(checked)} HPL run(s) without a PASSED residual "
                         "check left out of the flop rate")
        rate, t, i = max(checked or per, key=lambda x: x[0])
        procs = int(t.concurrency["processes"][i])
        fixed["flop_rate"] = rate
        sources["flop_rate"] = (f"HPL's best run, {t.extra['flop_rate'][i] / 1e9:.4g} "
                                f"Gflop/s over {procs} processes ({t.source}, line "
                                f"{t.line[i]}"
                                + ("" if _verified(t, i) else
                                   ", not verified: no run had a PASSED residual check")
                                + "); dense LU, so an upper bound for compiled "
                                "scientific code; one rank per core assumed (HPL does not "
                                "print threads per rank)")
        notes += [f"node: {t.source}: {n}" for n in t.notes]
        if "accelerated" in t.attrs or rate > CORE_PEAK:
            why = (f"it is an accelerated build ({t.attrs['accelerated']})"
                   if "accelerated" in t.attrs else
                   f"more than one core does (about {CORE_PEAK / 1e9:.0f} Gflop/s: 4 GHz × 32 "
                   "double-precision flops a cycle): its ranks were threaded or drove "
                   "accelerators")
            notes.append(f"node: HPL's best run gives {rate / 1e9:.4g} Gflop/s a process, and "
                         f"{why}; the profile's flop rate is a process's, not a core's: run "
                         "the code with as many processes a node as HPL did, or give "
                         "--spec with [node.params.flop_rate]")
    triad = [t for t in tables if t.pattern == "memory" and t.benchmark.lower() == "triad"]
    if triad:
        # the largest arrays first (small ones are timed in the caches), then the best rate
        best = max(triad, key=lambda t: (float(np.max(t.size)), float(np.max(t.size / t.time))))
        rate = float(np.max(best.size / best.time))
        arrays = float(np.max(best.size))
        smaller = [t for t in triad if float(np.max(t.size)) < arrays]
        if smaller:
            notes.append(f"node: {len(smaller)} STREAM Triad run(s) of smaller arrays left out "
                         f"(up to {max(float(np.max(t.size)) for t in smaller) / 2**20:.3g} MiB a "
                         "pass; arrays that "
                         "fit in the caches time the caches, not the memory)")
        if arrays < CACHE_SAFE:
            notes.append(f"node: STREAM's Triad moved {arrays / 2**20:.3g} MiB a pass: arrays "
                         "this small may sit partly in a node's caches, so its rate may be "
                         "above the memory's (STREAM asks for each array at least four times "
                         "the caches)")
        threads = int(best.attrs.get("threads", "1") or 1)
        where = f"{best.source}, line {best.line[0]}"
        notes += [f"node: {best.source}: {n}" for n in best.notes
                  if not n.startswith("best rate checked")]
        if threads > 1:
            fixed["domain_bandwidth"] = rate
            fixed["memory_domain"] = float(threads)
            fixed["memory_bandwidth"] = rate / threads
            sources["domain_bandwidth"] = f"STREAM Triad's best rate, {threads} threads"\
                                          f" ({where})"
            sources["memory_domain"] = (f"assumed: the {threads} threads of that STREAM run "
                                        "share one memory system (on several sockets they "
                                        "share several)")
            sources["memory_bandwidth"] = (f"assumed: STREAM Triad over {threads} threads, "
                                           f"each one's share ({where}); one process alone "
                                           "streams at least this")
            assumed += ["memory_domain", "memory_bandwidth"]
        else:
            fixed["memory_bandwidth"] = rate
            sources["memory_bandwidth"] = f"STREAM Triad's best rate ({where})"
    hpcg = [t for t in tables if t.format == "hpcg" and "memory_rate" in t.extra]
    if hpcg and "memory_bandwidth" not in fixed:
        def cores(t: Measurements, i: int) -> float:   # processes × threads per process
            return float(t.concurrency["processes"][i]) * float(
                t.attrs.get("threads per process", "1") or 1)

        per = [(float(t.extra["memory_rate"][i]) / cores(t, i), t, i)
               for t in hpcg for i in range(len(t))]
        rate, t, i = max(per, key=lambda x: x[0])
        fixed["memory_bandwidth"] = rate
        sources["memory_bandwidth"] = (
            f"assumed: HPCG's memory traffic, {t.extra['memory_rate'][i] / 1e9:.4g} GB/s over "
            f"{cores(t, i):g} cores (processes × threads), each one's share ({t.source}, "
            f"line {t.line[i]}): sparse, every core busy, so a lower bound on what one "
            "process streams alone")
        assumed.append("memory_bandwidth")
    elif hpcg:
        notes.append("node: STREAM Triad gives the memory bandwidth; HPCG's memory traffic "
                     "(sparse, every rank busy) is not used beside it")
    if "flop_rate" not in fixed:
        if not triad:
            if fixed:
                notes.append("node: HPCG gives a memory rate, but a node needs a flop rate or "
                             "STREAM: add an HPL output, or --spec with [node.params.flop_rate]")
            return None, notes
        notes.append("node: STREAM gives the memory rates and no HPL a flop rate: the node "
                     "moves a code's timed work to another by its memory bandwidth alone, and a "
                     "model that costs arithmetic needs an HPL output or --spec with "
                     "[node.params.flop_rate]")
        return specified_node(fixed, sources, tuple(assumed), given="derived",
                              memory_only=True), notes
    return specified_node(fixed, sources, tuple(assumed), given="derived"), notes
