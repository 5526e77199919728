#!/usr/bin/env python3
"""How the overhead should move between two machines (issue 32), every rule on every set of
pairs: ``predict --on`` moves the overhead beyond the smallest run's work shared perfectly by
B's time for an 8-byte message over A's (:func:`perfmodel.apps.transfer.move`). Beside it, the
same overhead moved by the ratio nearest 1 over the range's span of sizes (8 B … 64 KiB), by
the square root of the 8-byte ratio, by the span's geometric mean, by the ratio at 1 KiB, and
by nothing; without B's run (the work unmoved) and given B's run at the smallest count both ran
(its work set as ``--on-fit`` sets it).

The sets are those of ``bench/other_machine.py`` (alaska, both directions) and
``bench/cloud_pairs.py`` (one instance type's two environments; the same codes across instance
types; flux-usernetes' five environments).  Not blind: written on 2026-11-28 after the
across-instance pairs were scored once, to ask whether another rule would have done better
there (none does, over the sets: the 8-byte ratio's median of the sets' medians is the least
with B's run, and ties the ratio at 1 KiB's without it).

    .venv/bin/python bench/overhead_rules.py
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

Rule = Callable[[Any, Any], float]


def rules() -> dict[str, Rule]:
    """Each rule: the factor by which A's overhead moves onto B, from the two machines."""
    from perfmodel.apps.transfer import SIZE_HI, SIZES, SMALL, message_ratio

    def span(a: Any, b: Any) -> Any:
        return message_ratio(a, b, np.geomspace(SMALL, SIZE_HI, SIZES))

    def nearest_one(a: Any, b: Any) -> float:
        s = span(a, b)
        return float(s.min()) if s.min() > 1 else float(s.max()) if s.max() < 1 else 1.0

    def at(size: float) -> Rule:
        return lambda a, b: float(message_ratio(a, b, size)[()])

    return {"8 B (perfmodel)": at(SMALL), "nearest 1 over the span": nearest_one,
            "√(8 B)": lambda a, b: at(SMALL)(a, b) ** 0.5,
            "span's geometric mean": lambda a, b: float(np.exp(np.mean(np.log(span(a, b))))),
            "1 KiB": at(1024.0), "nothing": lambda a, b: 1.0}


def sets() -> dict[str, list[tuple[Any, Any, Any, Any]]]:
    """Each set's directed pairs: (A's runs, B's runs, A's machine, B's machine)."""
    import cloud_pairs as cp
    import other_machine as om

    out: dict[str, list[tuple[Any, Any, Any, Any]]] = {}
    got = om.study()
    if got is not None:
        runs, mach, _ = got
        out["alaska"] = [(runs[s][c], runs[d][c], mach[s], mach[d])
                         for s, d in (("IB", "RoCE"), ("RoCE", "IB"))
                         for c in sorted(set(runs[s]) & set(runs[d]))]
    cloud = cp.instance_study()
    if cloud is not None:
        machines, _, timed = cloud
        pairs = list(cp.INSTANCES.values())
        out["same instance"] = [(timed[(c, s)], timed[(c, d)], machines[s], machines[d])
                                for p in pairs for s, d in (p, p[::-1]) for c in cp.CODES]
        out["other instance"] = [(timed[(c, s)], timed[(c, d)], machines[s], machines[d])
                                 for pa in pairs for pb in pairs if pa != pb
                                 for c in cp.CODES for s in pa for d in pb]
    flux = cp.flux_study()
    if flux is not None:
        fm, _, ft = flux
        out["flux-usernetes"] = [(ft[s], ft[d], fm[s], fm[d]) for s in cp.FLUX_ENVS
                                 for d in cp.FLUX_ENVS if s != d]
    return out


def errors(ra: Any, rb: Any, x: float, with_b: bool) -> list[float] | None:
    """|predicted / measured − 1| at the counts both ran beyond the reference, the overhead
    moved by ``x``; None where B's run leaves no work (as ``--on-fit`` refuses)."""
    from cloud_pairs import least

    a, b = least(ra), least(rb)
    n0 = min(a)
    common = sorted(set(a) & set(b))
    start, k = n0, 1.0
    if with_b:
        start = common[0]
        work = a[n0] * n0 / start
        k = (b[start] - x * max(a[start] - work, 0.0)) / work
        if not k > 0:
            return None
    return [abs((a[n0] * n0 / n * k + max(a[n] - a[n0] * n0 / n, 0.0) * x) / b[n] - 1)
            for n in common if n > start]


def main() -> None:
    every = sets()
    table = rules()
    for with_b in (False, True):
        print(f"\n### {'Given B' if with_b else 'Without B'}'s run: median |error| by rule\n")
        print("| set | points | " + " | ".join(table) + " |")
        print("|---" * (len(table) + 2) + "|")
        medians: dict[str, list[float]] = {k: [] for k in table}
        for name, pairs in every.items():
            cells, points = [], 0
            for rule_name, rule in table.items():
                errs, refused = [], 0
                for ra, rb, a, b in pairs:
                    got = errors(ra, rb, rule(a, b), with_b)
                    if got is None:
                        refused += 1
                        continue
                    errs += got
                points = max(points, len(errs))
                medians[rule_name].append(float(np.median(errs)))
                cells.append(f"{np.median(errs):.1%}" + (f" ({refused} refused)" if refused
                                                          else ""))
            print(f"| {name} | {points} | " + " | ".join(cells) + " |")
        print("| median of the sets | | "
              + " | ".join(f"{np.median(v):.1%}" for v in medians.values()) + " |")


if __name__ == "__main__":
    main()
