"""Check every corpus-sixteenth row: the raw time line is in `git show <commit>:<file>` and <commit> is the last
commit touching <file> at the CSV's snapshot.  Usage: python3 check_times.py /work/.mirror  (prints counts only)."""
import csv, subprocess, sys, re
from pathlib import Path
ROOT = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror"
HERE = Path(__file__).resolve().parent
MIR = {"Stefano-Faccio-HPC-Project-Parallel-Connected-Components": "Stefano-Faccio+HPC-Project-Parallel-Connected-Components",
       "KevinDepedri-MPI-Parallel-Closest-Pair-of-Points": "KevinDepedri+MPI-Parallel-Closest-Pair-of-Points"}
rows = mism = badcommit = 0
for f in sorted(HERE.glob('*/*.csv')):
    txt = f.read_text()
    snap = re.search(r"snapshot HEAD ([0-9a-f]{40})", txt).group(1)
    g = ["git", "--git-dir", f"{ROOT}/{MIR[f.parent.name]}/repo"]
    for r in csv.DictReader([l for l in txt.splitlines() if not l.startswith('#')]):
        rows += 1
        raw = subprocess.run(g + ["show", f"{r['commit']}:{r['file']}"], capture_output=True, text=True, check=True).stdout
        pat = "Elapsed time: %s seconds" % r['time_s'] if 'Stefano' in f.parent.name else "Time elapsed: %s" % r['time_s']
        if pat + "\n" not in raw: mism += 1
        lc = subprocess.run(g + ["log", "-1", "--format=%H", snap, "--", r['file']], capture_output=True, text=True).stdout.strip()
        if lc != r['commit']: badcommit += 1
print("rows", rows, "mismatches", mism, "commit-not-last", badcommit)
