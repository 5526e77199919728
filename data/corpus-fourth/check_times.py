"""Check every row of the corpus-fourth CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the time_s string; the string must also sit in its own context (NPB output: the
"Time in seconds = <time>" line together with "Total processes = <processes>"; Einstein Toolkit
stdout: the *last* "total evolution time: <time> sec" line, with "MPI initialized with
<processes> MPI processes"); and <commit> must equal `git log -1 <snapshot> -- <file>`.
Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror)
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import check  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'JohnnyPol-Pi_Cluster-ECE_NTUA_2024-2025': 'JohnnyPol+Pi_Cluster-ECE_NTUA_2024-2025',
          'lwJi-ETK-Scaling-Tests': 'lwJi+ETK-Scaling-Tests'}


def in_context(folder, text, row):
    procs, t = row['processes'], row['time_s']
    if folder == 'JohnnyPol-Pi_Cluster-ECE_NTUA_2024-2025':
        return (re.search(rf'^ Time in seconds =\s+{re.escape(t)}$', text, re.M) is not None
                and re.search(rf'^ Total processes =\s+{procs}$', text, re.M) is not None)
    ev = re.findall(r'total evolution time:\s+(\S+) sec', text)
    return bool(ev) and ev[-1] == t and f'MPI initialized with {procs} MPI processes' in text


if __name__ == '__main__':
    sys.exit(check(Path(__file__).parent, MIRROR, in_context))
