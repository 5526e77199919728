"""What a site's benchmark outputs hold for a machine profile: the files under the paths given,
what each table informs (the point-to-point law, the fabric, the node) or why it informs
nothing, and the node's rates from HPL and STREAM.

A directory is walked (a ReFrame ``output/`` tree is the common case); a file in it that is no
benchmark output perfmodel reads is listed as skipped with the reason, where a file named on
the command line is an error.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.node import Node
from perfmodel.node import specified as specified_node

MAX_FILES = 100_000
"""The most files a directory walk takes: more is refused before any is read."""


@dataclass(frozen=True)
class Contribution:
    """One table of one input (or a whole file skipped): what it informs and how.

    role : ``law`` (the point-to-point law), ``fabric``, ``node``, ``unused`` or ``skipped``
    """

    path: str
    table: str
    role: str
    rows: int
    said: str

    def to_dict(self) -> dict[str, object]:
        return {"path": self.path, "table": self.table, "role": self.role, "rows": self.rows,
                "said": self.said}


def expand(paths: Sequence[str | Path]) -> Iterator[tuple[Path, bool]]:
    """Every file under ``paths``: a file as given, a directory's files in sorted order,
    hidden ones left out; each with whether it came from a walk."""
    for path in paths:
        p = Path(path)
        try:
            folder = p.is_dir()
        except OSError:   # a name too long, a folder without search permission: said on read
            folder = False
        if not folder:
            yield p, False
            continue
        found: list[Path] = []
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if not name.startswith("."):
                    found.append(Path(root) / name)
                    if len(found) > MAX_FILES:
                        raise InputError(f"holds more than {MAX_FILES:,} files", file=p,
                                         fix="give the folders of one machine's benchmarks")
        if not found:
            raise InputError("is a folder with no files", file=p,
                             fix="give the folder the benchmark outputs are in")
        yield from ((f, True) for f in found)


def node_from(tables: Sequence[Measurements]) -> tuple[Node | None, list[str]]:
    """The node's rates from HPL and STREAM tables, each marked ``derived`` with its rule and
    rows; with no flop rate (no HPL) no node, and a note saying what would give one."""
    fixed: dict[str, float] = {}
    sources: dict[str, str] = {}
    notes: list[str] = []
    hpl = [t for t in tables if t.format == "hpl" and "flop_rate" in t.extra]
    if hpl:
        per = [(float(t.extra["flop_rate"][i] / t.concurrency["processes"][i]), t, i)
               for t in hpl for i in range(len(t))]
        rate, t, i = max(per, key=lambda x: x[0])
        procs = int(t.concurrency["processes"][i])
        fixed["flop_rate"] = rate
        sources["flop_rate"] = (f"HPL's best run, {t.extra['flop_rate'][i] / 1e9:.4g} "
                                f"Gflop/s over {procs} processes ({t.source}, line "
                                f"{t.line[i]}); dense LU, so an upper bound for compiled "
                                "scientific code")
    triad = [t for t in tables if t.pattern == "memory" and t.benchmark.lower() == "triad"]
    if triad:
        best = max(triad, key=lambda t: float(np.max(t.size / t.time)))
        rate = float(np.max(best.size / best.time))
        threads = int(best.attrs.get("threads", "1") or 1)
        where = f"{best.source}, line {best.line[0]}"
        if threads > 1:
            fixed["domain_bandwidth"] = rate
            fixed["memory_domain"] = float(threads)
            fixed["memory_bandwidth"] = rate / threads
            sources["domain_bandwidth"] = f"STREAM Triad's best rate, {threads} threads"\
                                          f" ({where})"
            sources["memory_domain"] = f"the {threads} threads of that STREAM run"
            sources["memory_bandwidth"] = (f"STREAM Triad over {threads} threads, "
                                           f"each one's share ({where}); one alone streams "
                                           "at least this")
        else:
            fixed["memory_bandwidth"] = rate
            sources["memory_bandwidth"] = f"STREAM Triad's best rate ({where})"
    if "flop_rate" not in fixed:
        if fixed:
            notes.append("node: STREAM gives the memory rates, but a node needs a flop rate: "
                         "add an HPL output, or --spec with [node.params.flop_rate]")
        return None, notes
    node = specified_node(fixed, sources)
    params = tuple(p if p.name not in fixed else
                   type(p)(p.name, p.value, math.nan, p.unit, "derived", p.source)
                   for p in node.params)
    return Node(params, node.notes), notes
