"""Check every row of data/pairs-blind/*.csv against its raw file in a mirror of
converged-computing/performance-study.

Usage:  python check_times.py <mirror>
        <mirror> is the git directory of the mirror (e.g.
        /work/.mirror/converged-computing+performance-study/repo) or the folder holding it as repo/.

For each row, the text of ``git --git-dir=<mirror> show <commit>:<file>`` must
  1. contain the ``time_s`` string, and contain it in the line the CSV header names
     (the app's own timing line, e.g. "PCG Solve: wall clock time = <time_s> seconds");
     Quicksilver rows are the one exception: their time_s is the printed
     "cycleTracking ... max" value in microseconds divided by 1e6, so the check finds that
     printed value (quoted in the row's note) in the file's cycleTracking row and checks
     printed / 1e6 == time_s exactly (decimal arithmetic);
  2. and ``commit`` must be the last commit touching ``file`` at the snapshot the header names
     (``git log -1 <snapshot> -- <file>``).
Prints each failure, then the counts. Exit status 1 on any mismatch.
"""
import csv
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent

# the line each app's time_s is read from; {t} is the escaped time_s string
CONTEXT = {
    "amg2023": r"PCG Solve:\s*\n\s*wall clock time = {t} seconds",
    "minife": r"Total CG Time: {t}\s*\n",
    "laghos": r"Major kernels total time \(seconds\): {t}\s*\n",
    "mt-gemm": r"Performance= \S+ GFlop/s, Time= {t} msec, Size= 2000000000 Ops",
    "lammps-snap": r"Loop time of {t} on {p} procs for 20000 steps with 128 atoms",
}


def mirror_dir(arg: str) -> str:
    p = Path(arg)
    return str(p / "repo") if (p / "repo").is_dir() and not (p / "HEAD").exists() else str(p)


def git(mirror: str, *args: str) -> str | None:
    r = subprocess.run(["git", f"--git-dir={mirror}", *args], capture_output=True)
    return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    mirror = mirror_dir(sys.argv[1])
    rows = direct = derived = mismatch = commit_bad = 0
    for csvf in sorted(HERE.glob("*.csv")):
        text = csvf.read_text()
        snap = re.search(r"snapshot HEAD ([0-9a-f]{40})", text).group(1)
        app = next(a for a in (*CONTEXT, "quicksilver") if csvf.name.startswith(a + "-"))
        body = [ln for ln in text.splitlines() if not ln.startswith("#")]
        for r in csv.DictReader(body):
            rows += 1
            raw = git(mirror, "show", f"{r['commit']}:{r['file']}")
            ok = False
            if raw is None:
                print("UNREADABLE", csvf.name, r["file"])
            elif app == "quicksilver":
                m = re.search(r"cycleTracking max (\S+) microSecs", r["note"])
                if m and re.search(r"^cycleTracking\s+\d+\s+\S+\s+\S+\s+" + re.escape(m.group(1)) + r"\s",
                                   raw, re.M) and Decimal(m.group(1)) / Decimal(10 ** 6) == Decimal(r["time_s"]):
                    ok = True
                    derived += 1
            else:
                pattern = CONTEXT[app].format(t=re.escape(r["time_s"]), p=re.escape(r["processes"]))
                if r["time_s"] in raw and re.search(pattern, raw):
                    ok = True
                    direct += 1
            if not ok:
                mismatch += 1
                print("MISMATCH", csvf.name, r["nodes"], r["file"])
            last = git(mirror, "log", "-1", "--format=%H", snap, "--", r["file"])
            if last is None or last.strip() != r["commit"]:
                commit_bad += 1
                print("COMMIT NOT LAST", csvf.name, r["file"])
    print(f"rows checked {rows}; time_s string found in its line {direct}; "
          f"Quicksilver rows checked as printed microseconds / 1e6 {derived}; "
          f"mismatches {mismatch}; commit not the last one touching the file {commit_bad}")
    return 1 if mismatch or commit_bad else 0


if __name__ == "__main__":
    sys.exit(main())
