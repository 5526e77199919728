"""perfmodel measure's ping-pong beside ``python -m mpi4py.bench pingpong`` run on the same
machine: small-message one-way latency (1 B to 64 B) and large-message bandwidth from each,
and their ratio.

    python bench/measure_agreement.py data/local/pingpong-np2.csv \\
        data/local/mpi4py-bench-pingpong-np2.txt

Both are read by perfmodel's readers.  perfmodel reports the median of its repetitions,
mpi4py.bench the mean (which outliers pull up); the check is the issue's: each quantity within
a factor of 2.  Exit code 1 if one is not.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from perfmodel.measurements import Measurements
from perfmodel.readers import read
from perfmodel.units import format_rate, format_size, format_time

FACTOR = 2.0
SMALL = (1, 64)
"""Small messages: 1 B to 64 B, where the one-way time is the latency on any network."""


def _at(table: Measurements, size: float) -> float:
    rows = np.flatnonzero(table.size == size)
    return float(np.median(table.time[rows]))


def agreement(ours: Measurements, theirs: Measurements
              ) -> list[tuple[str, float, float, str, bool]]:
    """``(what, ours, theirs, kind, checked)`` rows.

    Checked: the small-message latency (the median over the common sizes from 1 B to 64 B of
    each table's one-way times) and the bandwidth at the largest common size.  Shown, not
    checked: the latency at the smallest of those sizes alone (mpi4py.bench's first size is a
    mean that its first repetitions' outliers can double) and each table's best bandwidth
    (mpi4py.bench sends from a buffer it never writes).
    """
    common = np.intersect1d(ours.size, theirs.size)
    small = common[(common >= SMALL[0]) & (common <= SMALL[1])]
    large = common.max()
    bw = [float(np.max(t.size[t.size > 0] / t.time[t.size > 0])) for t in (ours, theirs)]
    span = f"{format_size(small.min())}–{format_size(small.max())}"
    return [
        (f"small-message latency (median over {span})",
         float(np.median([_at(ours, m) for m in small])),
         float(np.median([_at(theirs, m) for m in small])), "time", True),
        (f"bandwidth at {format_size(large)}", large / _at(ours, large),
         large / _at(theirs, large), "rate", True),
        (f"one-way latency at {format_size(small.min())}", _at(ours, small.min()),
         _at(theirs, small.min()), "time", False),
        ("best bandwidth, any size", bw[0], bw[1], "rate", False),
    ]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    (ours,), (theirs,) = read(Path(argv[0])), read(Path(argv[1]))
    fmt = {"time": format_time, "rate": format_rate}
    print("| quantity | perfmodel measure (median) | mpi4py.bench (mean) | ratio |\n"
          "|---|---|---|---|")
    ok = True
    for what, a, b, kind, checked in agreement(ours, theirs):
        ratio = a / b
        ok &= not checked or 1 / FACTOR <= ratio <= FACTOR
        print(f"| {what} | {fmt[kind](a)} | {fmt[kind](b)} | {ratio:.2f} "
              f"{'(checked)' if checked else '(shown)'} |")
    print(f"\nchecked rows within a factor of {FACTOR:g}: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
