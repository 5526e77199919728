"""Check every corpus-seventeenth row against its raw file (prints counts only).

For each row: `git show <commit>:<file>` must hold the raw time string (the note's quoted string), in its own
context (mini-stencil: a whole line 'simulation took <time_s> seconds'; power method: a data line 'p,n,300,theta,<time_s>'
whose p = processes; PETSc: a 'Time (sec):' line whose first field = time_s; QE: a 'PWSCF : ... CPU <raw> WALL' line
whose conversion = time_s), and <commit> must be the last commit touching <file> at the CSV's snapshot.
Usage: python3 check_times.py /work/.mirror"""
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import check_rows  # noqa: E402

MIRROR = {"USI-Projects-Collection-HPC_projects": "USI-Projects-Collection+HPC_projects",
          "altassara-ProjectsHPC": "altassara+ProjectsHPC", "ye-luo-benchmarks": "ye-luo+benchmarks"}


def qe_wall(s):
    m = re.fullmatch(r"(?:(\d+)h)?\s*(?:(\d+)m)?\s*(?:([\d.]+)s)?", s.strip())
    h, mi, se = (float(g) if g else 0.0 for g in m.groups())
    return f"{3600 * h + 60 * mi + se:.2f}"


def raw(folder, r):
    if folder == "ye-luo-benchmarks":
        return re.search(r"CPU (.+?) WALL'", r["note"]).group(1)
    return r["time_s"]


def in_context(folder, text, r):
    lines = text.split("\n")
    t = r["time_s"]
    if folder == "ye-luo-benchmarks":
        w = raw(folder, r)
        ok = [ln for ln in lines if re.fullmatch(rf"\s+PWSCF\s+:\s+.+? CPU\s+{re.escape(w)} WALL\s*", ln)]
        return len(ok) == 1 and qe_wall(w) == t
    if "powermethod" in r["file"]:
        return any(re.fullmatch(rf"{r['processes']},\d+,300,[\d.]+,{re.escape(t)}", ln) for ln in lines)
    if "performance_log" in r["file"]:
        return any(re.fullmatch(rf"Time \(sec\):\s+{re.escape(t)}\s+\S+\s+\S+\s*", ln) for ln in lines)
    return f"simulation took {t} seconds" in lines


if __name__ == "__main__":
    check_rows.linked(MIRROR.values(), "c17-")
    sys.exit(check_rows.check(HERE, MIRROR, in_context, raw))
