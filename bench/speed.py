#!/usr/bin/env python3
"""perfmodel's speed as a user meets it: each command run end to end as a separate process.

- start-up: ``perfmodel --help``;
- calibrate: ``perfmodel calibrate`` on an OSU latency output (tests/fixtures/benchmarks/
  osu_latency.txt, a real osu_latency run), profile written; beside it Extra-P's whole
  process (``extrap --text``) on the same points, the two run in turns (3 × --runs each),
  and the ratio of their medians (issue 29: at most 1.0);
- sweep: ``perfmodel whatif`` of ppm over 65,536 configurations (1024 node counts × 4 channel
  counts × 16 line rates) on the 1995 Beowulf, in configurations per second of the whole
  command (bench/sweep_throughput.py measures the sweep alone over a million);
- report: ``perfmodel report`` of each specification in reports/specs (markdown and figures).

Each is the median of ``--runs`` runs (default 7; 3 for the reports), with the range, min to
max; ``python -c pass`` is timed the same way, the floor any Python command starts from.

    .venv/bin/python bench/speed.py [--runs 7] [--no-extrap]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).with_name("perfmodel"))
GRID = 1024 * 4 * 16


def timed(cmd: list[str], runs: int) -> list[float]:
    """Wall-clock seconds of ``runs`` runs of ``cmd`` (which must succeed), after one warm-up
    run that fills the file cache."""
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        out.append(time.perf_counter() - start)
    return out


OSU = ROOT / "tests" / "fixtures" / "benchmarks" / "osu_latency.txt"


def extrap_exe() -> Path:
    """Extra-P's command, in the environment bench/scaling_accuracy.py makes for it."""
    sys.path.insert(0, str(ROOT / "bench"))
    from scaling_accuracy import ensure_extrap

    return ensure_extrap().with_name("extrap")


def extrap_points(folder: Path) -> str:
    """The OSU file's points (size, one-way µs) in Extra-P's text format: what Extra-P models
    when it is given the same measurement as ``perfmodel calibrate``."""
    from perfmodel.readers import read

    (table,) = read(OSU)
    path = folder / "osu_latency.extrap.txt"
    path.write_text("PARAMETER p\nPOINTS " + " ".join(f"{int(s)}" for s in table.size)
                    + "\nREGION reg\nMETRIC time\n"
                    + "".join(f"DATA {t * 1e6:.6g}\n" for t in table.time))
    return str(path)


def timed_in_turns(cmds: list[list[str]], runs: int) -> list[list[float]]:
    """:func:`timed` for several commands, one run of each in turn."""
    for cmd in cmds:
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    out: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for cmd, secs in zip(cmds, out, strict=True):
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
            secs.append(time.perf_counter() - start)
    return out


def line(label: str, secs: list[float], extra: str = "") -> str:
    med = statistics.median(secs)
    return (f"| {label} | {med * 1000:,.0f} ms | {min(secs) * 1000:,.0f}–{max(secs) * 1000:,.0f} "
            f"ms | {len(secs)} |{extra}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-extrap", action="store_true", help="leave Extra-P out")
    args = ap.parse_args()
    n = args.runs
    rows = []
    floor = timed([sys.executable, "-c", "pass"], n)
    rows.append(line("`python -c pass` (the floor)", floor, " |"))
    start = timed([EXE, "--help"], n)
    rows.append(line("`perfmodel --help` (start-up)", start,
                     f" {statistics.median(start) / statistics.median(floor):.1f}× the floor |"))
    with tempfile.TemporaryDirectory() as tmp:
        prof = str(Path(tmp) / "osu.toml")
        calibrate = [EXE, "calibrate", str(OSU), "--out", prof, "--force", "--quiet"]
        if args.no_extrap:
            cal = timed(calibrate, n)
        else:   # in turns, so that a machine that speeds up or slows down favours neither
            both = timed_in_turns([calibrate, [str(extrap_exe()), "--text",
                                               extrap_points(Path(tmp))]], 3 * n)
            cal, extrap = both
        rows.append(line("`perfmodel calibrate` an OSU latency file, profile written", cal,
                         " |"))
        if not args.no_extrap:
            ratio = statistics.median(cal) / statistics.median(extrap)
            rows.append(line("`extrap --text` the same points (Extra-P's whole process, run "
                             "in turns with calibrate)", extrap,
                             f" calibrate is {ratio:.2f}× Extra-P |"))
        sweep = timed([EXE, "whatif", "ppm", "--machine", "calibration/beowulf-1995.toml",
                       "--fit", "data/seeds/beowulf-1995-apps.csv", "--where", "code=ppm",
                       "--where", "use=fit", "--vary", "nodes=1..1024", "--vary",
                       "channels=1..4", "--vary", "link-speed=" + ",".join(
                           f"{10 * k}Mbps" for k in range(1, 17))], n)
        rows.append(line(f"`perfmodel whatif` ppm, {GRID:,} configurations", sweep,
                         f" {GRID / statistics.median(sweep):,.0f} configurations per second "
                         "(whole command) |"))
        for spec in sorted((ROOT / "reports" / "specs").glob("*.toml")):
            out = str(Path(tmp) / spec.stem / f"{spec.stem}.md")
            rep = timed([EXE, "report", str(spec), "--out", out, "--force"], max(3, n // 2))
            rows.append(line(f"`perfmodel report` {spec.stem} (markdown and figures)", rep,
                             " |"))
    print("| command | median | range | runs | note |")
    print("|---|---:|---:|---:|---|")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main()
