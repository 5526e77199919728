"""Print the calibrate table of every point-to-point fixture (a markdown table).

    .venv/bin/python -m tests.fixture_fits

For each file: the model `calibrate` chooses, its median and maximum relative error, the fitted
one-way time at the smallest size beside the measured one, and the fitted bandwidth at the
largest size beside the measured one.  tests/test_calibrate_fixtures.py asserts the bounds.
"""

from __future__ import annotations

from pathlib import Path

from perfmodel.calibrate import calibrate
from perfmodel.units import format_rate, format_size, format_time
from tests.test_calibrate_fixtures import CASES

FIX = Path(__file__).parent / "fixtures" / "benchmarks"


def main() -> None:
    print("| file | table | rows | model | median err | max err | fitted T(smallest) | "
          "measured | fitted bandwidth at largest | measured |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for name, benchmark, _ in CASES:
        best = calibrate([FIX / name], benchmark=benchmark).selection.best
        d = best.data
        lo, hi = int(d.size.argmin()), int(d.size.argmax())
        print(f"| {name} | {d.benchmark} | {best.n} | {best.model.kind} | "
              f"{100 * best.median_rel_err:.1f} % | {100 * best.max_rel_err:.0f} % | "
              f"{format_time(best.fitted[lo])} at {format_size(d.size[lo])} | "
              f"{format_time(d.time[lo])} | "
              f"{format_rate(d.size[hi] / best.fitted[hi])} at {format_size(d.size[hi])} | "
              f"{format_rate(d.size[hi] / d.time[hi])} |")


if __name__ == "__main__":
    main()
