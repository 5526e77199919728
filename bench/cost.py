#!/usr/bin/env python3
"""Cost that grows with the work, not its square (issue 29): each path a user can make large,
run as the command a user types, at a tiny size (its fixed cost: start-up, imports), at 1× and
at 10× the work.

The ratio printed is that of the work alone, (t(10×) − t(tiny)) / (t(1×) − t(tiny)), beside
what a linear cost gives (10) or n log n where sorting is the point; a path passes when its
ratio is within 1.5× of that.  Work that costs less than NOISE at 1× is taken as NOISE (the
ratio is then an upper bound, marked ≤).  One case keeps the work and changes its shape (10⁶
what-if configurations as 1,000 or as 10,000 node counts): its ratio is t(10×) / t(1×),
against 1.  Each run is its own process, under a 4 GiB address-space limit, with its CPU
time (user and system, all its processes: the work, whatever else the machine runs; BLAS on
one thread, whose idle threads would spin) and peak resident memory (the largest of the
command's processes).  The inputs are made
here, in a temporary folder, from seeded generators (never committed: they are derived, not
measured).

    .venv/bin/python bench/cost.py [--runs 3] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).with_name("perfmodel"))
BEOWULF = str(ROOT / "calibration" / "beowulf-1995.toml")
APPS = str(ROOT / "data" / "seeds" / "beowulf-1995-apps.csv")
NOISE = 0.1
"""Seconds: a difference of run times under this is taken as the noise of a shared machine."""
LIMIT = 4 * 1024**3
"""The address-space limit of every run (bytes): a path whose memory grows with the square
of its input fails here, as it would on a login node, instead of swapping the machine."""

# one run of a command in a fresh process: wall time, peak memory of its processes, exit code
_RUN = """
import json, resource, subprocess, sys, time
def limit():
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                      preexec_fn=limit)
seconds = time.perf_counter() - start
used = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu, peak = used.ru_utime + used.ru_stime, used.ru_maxrss * 1024
tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] if done.returncode else []
print(json.dumps({{"seconds": seconds, "cpu": cpu, "peak": peak, "code": done.returncode,
                  "said": tail}}))
"""


@dataclass(frozen=True)
class Case:
    """One path: the command at a given amount of work (``make(work, folder)``), the work at
    tiny, 1× and 10×, and how its cost should grow."""

    name: str
    what: str
    make: Callable[[int, Path], list[str]]
    works: tuple[int, int, int]
    growth: str = "n"   # or "n log n"; "none": the same work in another shape

    def expected(self) -> float:
        _, one, ten = self.works
        if self.growth == "none":
            return 1.0
        if self.growth == "n log n":
            return ten * math.log(ten) / (one * math.log(one))
        return ten / one


# --- inputs ------------------------------------------------------------------------------------

def pingpong_csv(sizes: int, folder: Path) -> Path:
    """A ping-pong of ``sizes`` distinct message sizes (40 B apart, from 40 B), two Hockney
    segments meeting at 8 KiB, 1 % log-normal noise, seeded: what a fine-grained NetPIPE run
    or a merged campaign gives."""
    path = folder / f"pingpong-{sizes}.csv"
    if not path.exists():
        rng = np.random.default_rng(29)
        m = 40.0 * np.arange(1, sizes + 1)
        t = np.where(m < 8192, 1.5e-6 + m / 5e9, 4e-6 + m / 10e9)
        t *= np.exp(rng.normal(0, 0.01, sizes))
        rows = "\n".join(f"{int(a)},{b * 1e6:.6f}" for a, b in zip(m, t, strict=True))
        path.write_text("# derived: bench/cost.py, seeded synthetic ping-pong\n"
                        f"size_bytes,one_way_us\n{rows}\n")
    return path


def timings_csv(counts: int, folder: Path) -> Path:
    """Runs at process counts 1..``counts``: Amdahl (2 % serial) with a log p term and 1 %
    log-normal noise, seeded."""
    path = folder / f"runs-{counts}.csv"
    if not path.exists():
        rng = np.random.default_rng(29)
        p = np.arange(1, counts + 1, dtype=float)
        t = (2.0 + 98.0 / p + 0.05 * np.log2(p)) * np.exp(rng.normal(0, 0.01, counts))
        rows = "\n".join(f"{int(a)},{b:.6f}" for a, b in zip(p, t, strict=True))
        path.write_text(f"# derived: bench/cost.py, seeded synthetic runs\nprocesses,time_s\n"
                        f"{rows}\n")
    return path


def streams_folder(rows: int, folder: Path) -> Path:
    """``osu_mbw_mr``-like stream tables at 1, 2, 4, 8, 16, 32 pairs across two nodes (all
    senders on one node), ``rows`` rows in all (distinct sizes 40 B apart), from the switched
    law with a NIC (12 GB/s, 0.15 µs a message, 12 ns a message on the NIC) and 1 %
    log-normal noise, seeded; and a ping-pong beside them: what a long multi-pair campaign
    gives ``calibrate --nodes-per-job 2``."""
    out = folder / f"streams-{rows}"
    if not out.exists():
        out.mkdir()
        rng = np.random.default_rng(29)
        pairs = (1, 2, 4, 8, 16, 32)
        m = 40.0 * np.arange(1, rows // len(pairs) + 1)
        for k in pairs:
            alone = k / (1.5e-7 + m / 12e9)
            nic = 1.0 / (1.2e-8 + m / 12e9)
            t = k / np.minimum(alone, nic) * np.exp(rng.normal(0, 0.01, m.size))
            body = "\n".join(f"{int(a)},{b * 1e6:.6f},stream,{k},{2 * k}"
                              for a, b in zip(m, t, strict=True))
            (out / f"mbw_mr-{k}.csv").write_text(
                "# derived: bench/cost.py, seeded synthetic streams\n"
                f"size_bytes,time_us,pattern,pairs,processes\n{body}\n")
        pingpong_csv(1000, folder).replace(out / "pingpong.csv")
    return out


def _rates(n: int) -> str:
    return "link-speed=" + ",".join(f"{10 + k}Mbps" for k in range(n))


CASES = [
    Case("calibrate-auto", "distinct message sizes, `calibrate --model auto`",
         lambda n, d: [EXE, "calibrate", str(pingpong_csv(n, d)), "--model", "auto",
                       "--no-write", "--quiet"], (100, 30_000, 300_000)),
    Case("calibrate-hockney", "distinct message sizes, `calibrate --model hockney`",
         lambda n, d: [EXE, "calibrate", str(pingpong_csv(n, d)), "--model", "hockney",
                       "--no-write", "--quiet"], (100, 100_000, 1_000_000)),
    Case("calibrate-fabric", "stream rows of `calibrate DIR --nodes-per-job 2` (6 pair "
         "counts, the NIC's gap checked on held-out rows)",
         lambda n, d: [EXE, "calibrate", str(streams_folder(n, d)), "--nodes-per-job", "2",
                       "--no-write", "--quiet"], (600, 20_000, 200_000)),
    Case("network-json", "rows of `network --pairs 1..N --json`",
         lambda n, d: [EXE, "network", BEOWULF, "--pairs", f"1..{n}", "--sizes", "1KiB",
                       "--json"], (10, 1_000, 10_000)),
    Case("network-table", "rows of `network --pairs 1..N` as a table",
         lambda n, d: [EXE, "network", BEOWULF, "--pairs", f"1..{n}", "--sizes", "1KiB"],
         (10, 1_000, 10_000)),
    Case("whatif-configurations", "configurations of `whatif` (1,000 node counts × N rates)",
         lambda n, d: [EXE, "whatif", "ppm", "--machine", BEOWULF, "--fit", APPS, "--where",
                       "code=ppm", "--where", "use=fit", "--vary", "nodes=1..1000", "--vary",
                       _rates(n // 1000)], (1_000, 500_000, 5_000_000)),
    Case("whatif-node-counts", "node counts of `whatif` at 10⁶ configurations (×1000/N rates)",
         lambda n, d: [EXE, "whatif", "ppm", "--machine", BEOWULF, "--fit", APPS, "--where",
                       "code=ppm", "--where", "use=fit", "--vary", f"nodes=1..{n}", "--vary",
                       _rates(1_000_000 // n)], (100, 1_000, 10_000), "none"),
    Case("scaling-counts", "process counts of `scaling`",
         lambda n, d: [EXE, "scaling", str(timings_csv(n, d)), "--json"], (10, 1_000, 10_000)),
]


# --- running -----------------------------------------------------------------------------------

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""BLAS on one thread: its idle threads spin, and their CPU time is noise, not work."""


def run_once(cmd: list[str]) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _RUN.format(limit=LIMIT), *cmd],
                          capture_output=True, text=True, cwd=ROOT, check=True,
                          env={**os.environ, **ONE_THREAD})
    return dict(json.loads(done.stdout))


def measure(cmd: list[str], runs: int) -> tuple[float, int, str]:
    """Least CPU seconds (user and system, every process of the command: on a shared
    machine the work, where wall time is the work and the neighbours') and largest peak of
    ``runs`` runs; what a failed run said."""
    seconds, peaks = [], []
    for _ in range(runs):
        got = run_once(cmd)
        if got["code"] != 0:
            said = " ".join(str(s) for s in got["said"])  # type: ignore[attr-defined]
            return math.nan, int(got["peak"]), f"exit {got['code']}: {said[:160]}"  # type: ignore[call-overload]
        seconds.append(float(got["cpu"]))  # type: ignore[arg-type]
        peaks.append(int(got["peak"]))  # type: ignore[call-overload]
    return min(seconds), max(peaks), ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="runs of each size (the least)")
    ap.add_argument("--only", nargs="*", help="only these cases: " +
                    ", ".join(c.name for c in CASES))
    args = ap.parse_args()
    cases = [c for c in CASES if not args.only or c.name in args.only]
    print("| path | work: tiny / 1× / 10× | CPU tiny | 1× | 10× | work ratio | linear | "
          "verdict | peak at 10× |")
    print("|---|---|---|---|---|---|---|---|---|")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for case in cases:
            got = [measure(case.make(w, folder), args.runs) for w in case.works]
            (t0, _, s0), (t1, _, s1), (t10, peak, s10) = got
            said = s0 or s1 or s10
            bound = case.growth != "none" and t1 - t0 < NOISE
            ratio = t10 / t1 if case.growth == "none" else (t10 - t0) / max(t1 - t0, NOISE)
            ok = not said and ratio <= 1.5 * case.expected()
            failed += not ok
            verdict = "pass" if ok else f"FAIL {said}" if said else "FAIL"
            works = " / ".join(f"{w:,}" for w in case.works)
            print(f"| {case.name}: {case.what} | {works} | {t0:.2f} s | {t1:.2f} s | "
                  f"{t10:.2f} s | {'≤ ' * bound}{ratio:.1f} | {case.expected():.1f} | {verdict} | "
                  f"{peak / 2**20:,.0f} MiB |", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
