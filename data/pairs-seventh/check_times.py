"""Check every timing row of data/pairs-seventh (including no-benchmark/) against the fetched mirror.

Usage:  python check_times.py <mirror>
        <mirror> is the git directory of a mirror of opencae/OpenFOAM-BenchmarkTest.old
        (e.g. /work/.mirror/opencae+OpenFOAM-BenchmarkTest.old/repo).

For each CSV row, ``git --git-dir=<mirror> show <commit>:<file>`` (the study's all.csv table) must hold a
line whose fields are this run (same log name, decomposeParDict, fvSolution, date and time printed in the
row's note), whose nNodes/nProcs equal the row's nodes/processes, and whose ExecutionTimePerStepWOLastStep
field is exactly the row's time_s string. ``commit`` must also be the last commit touching ``file`` at the
snapshot named in the header (``git log -1 <snapshot> -- <file>``).
Prints each failure, then the counts. Exit status 1 on any mismatch.
"""
import csv
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def git(mirror, *args):
    r = subprocess.run(["git", f"--git-dir={mirror}", *args], capture_output=True)
    return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    mirror = sys.argv[1]
    rows = ok = mismatch = commit_bad = 0
    for f in sorted(HERE.rglob("*.csv")):
        text = f.read_text()
        snap = re.search(r"snapshot HEAD ([0-9a-f]{40})", text).group(1)
        body = [ln for ln in text.splitlines() if not ln.startswith("#")]
        for r in csv.DictReader(body):
            rows += 1
            raw = git(mirror, "show", f"{r['commit']}:{r['file']}")
            m = re.match(r"log (\S+); decomposeParDict (\S+); solveBatch (\S+); build \S+; run (.+?) (\d\d:\d\d:\d\d);", r["note"])
            good = False
            if raw is None or m is None:
                print("UNREADABLE", f.name, r["file"])
            else:
                lines = raw.splitlines()
                hdr = lines[0].lstrip("#").split(",")
                for rec in csv.reader(lines[1:]):
                    x = dict(zip(hdr, rec))
                    if (x.get("log"), x.get("decomposeParDict"), x.get("solveBatch"), x.get("Date"), x.get("Time")) == m.groups() \
                            and x.get("fvSolution") == "GAMG-DIC" \
                            and int(x["nNodes"]) == int(r["nodes"]) and int(x["nProcs"]) == int(r["processes"]) \
                            and x["ExecutionTimePerStepWOLastStep"] == r["time_s"]:
                        good = True
                        break
            if good:
                ok += 1
            else:
                mismatch += 1
                print("MISMATCH", f.name, r["nodes"], r["time_s"], r["note"][:60])
            last = git(mirror, "log", "-1", "--format=%H", snap, "--", r["file"])
            if last is None or last.strip() != r["commit"]:
                commit_bad += 1
                print("COMMIT NOT LAST", f.name, r["file"])
    print(f"rows checked {rows}; time_s found as printed in its run's line {ok}; mismatches {mismatch}; "
          f"commit not the last one touching the file {commit_bad}")
    return 1 if mismatch or commit_bad or rows == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
