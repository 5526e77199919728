"""perfmodel measure's ping-pong beside ``python -m mpi4py.bench pingpong`` run on the same
machine: small-message one-way latency and large-message bandwidth from each, and their ratio.

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


def _at(table: Measurements, size: float) -> float:
    rows = np.flatnonzero(table.size == size)
    return float(np.median(table.time[rows]))


def agreement(ours: Measurements, theirs: Measurements) -> list[tuple[str, float, float, str]]:
    """``(what, ours, theirs, kind)``: one-way latency at the smallest common size of at least
    1 B, and bandwidth (size / one-way time) at the largest common size and at each table's
    best."""
    common = np.intersect1d(ours.size, theirs.size)
    small, large = common[common >= 1].min(), common.max()
    bw = [float(np.max(t.size[t.size > 0] / t.time[t.size > 0])) for t in (ours, theirs)]
    return [
        (f"one-way latency at {format_size(small)}", _at(ours, small), _at(theirs, small),
         "time"),
        (f"bandwidth at {format_size(large)}", large / _at(ours, large),
         large / _at(theirs, large), "rate"),
        ("best bandwidth, any size", bw[0], bw[1], "rate"),
    ]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    (ours,), (theirs,) = read(Path(argv[0])), read(Path(argv[1]))
    fmt = {"time": format_time, "rate": format_rate}
    print(f"| quantity | perfmodel measure (median) | mpi4py.bench (mean) | ratio |\n"
          f"|---|---|---|---|")
    ok = True
    for what, a, b, kind in agreement(ours, theirs):
        ratio = a / b
        ok &= 1 / FACTOR <= ratio <= FACTOR
        print(f"| {what} | {fmt[kind](a)} | {fmt[kind](b)} | {ratio:.2f} |")
    print(f"\nwithin a factor of {FACTOR:g}: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
