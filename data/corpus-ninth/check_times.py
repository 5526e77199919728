"""Check every row of the corpus-ninth CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the row's time_s string, which must also sit in its own context; and <commit> must equal
`git log -1 <snapshot> -- <file>`.  Context: leoposc/uibk-hpc heat-stencil output: the first
three lines are "N=<the file name's N>", "T=<500 N>", "R=<processes>", there is exactly one
"Time: <time_s>s" line and "Verification: OK", and nodes = ceil(processes / 12);
emaballarin timelog.txt: in the "FULL STRONG SCALING (5 avg | gnu elapsed time)" block, with
X-AXIS [2, 4, 8, 16, 20], the note's Y-MATRIX row (and its niter) holds time_s in the column
whose P = processes, nodes = 1; NREL/ESIFHPC3 Nalu log: exactly one "STKPERF: Total Time:
<time_s>", one "TimeMonitor results over <processes> processors", "Nalu-Wind Version: v1.2.0",
and nodes = processes / 32.
The walk is data/check_rows.py's.  Its git() reads <root>/<mirror>/repo as a git directory; the
NREL/ESIFHPC3 mirror is a work-tree clone (<root>/NREL+ESIFHPC3/repo/.git), so this script first
builds a temporary root of symlinks that point each <mirror>/repo at the real git directory.
Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import run  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'leoposc-uibk-hpc': 'leoposc+uibk-hpc',
          'emaballarin-fhpc_assignments_2019-2020': 'emaballarin+fhpc_assignments_2019-2020',
          'NREL-ESIFHPC3': 'NREL+ESIFHPC3'}


def heat(text, row):
    n = re.search(r'mpi-(\d+)-(\d+)\.out$', row['file'])
    head = text.splitlines()[:3]
    return (head == [f'N={n.group(1)}', f'T={500 * int(n.group(1))}', f"R={row['processes']}"]
            and n.group(2) == row['processes']
            and re.findall(r'^Time: (\S+)s$', text, re.M) == [row['time_s']]
            and 'Verification: OK' in text
            and int(row['nodes']) == math.ceil(int(row['processes']) / 12))


def timelog(text, row):
    sec = text.split('*** FULL STRONG SCALING (5 avg | gnu elapsed time) ***', 1)[1]
    sec = sec.split('*** FULL WEAK SCALING', 1)[0]
    xs = [int(v) for v in re.search(r'X-AXIS: \[([^\]]*)\]', sec).group(1).split(',')]
    niters = [v.strip() for v in re.search(r'niter = \[([^\]]*)\]', sec).group(1).split(',')]
    mat = re.search(r'\[\n(.*?)\n\]', sec, re.S).group(1).splitlines()
    k = int(re.search(r'Y-MATRIX row (\d+)', row['note']).group(1))
    ni = re.search(r'niter = (\S+?):', row['note']).group(1)
    vals = [v.strip() for v in mat[k - 1].strip().rstrip(',').strip('[]').split(',')]
    p = int(row['processes'])
    return (xs == [2, 4, 8, 16, 20] and niters[k - 1] == ni and p in xs
            and vals[xs.index(p)] == row['time_s'] and row['nodes'] == '1')


def nalu(text, row):
    return (re.findall(r'STKPERF: Total Time: (\S+)', text) == [row['time_s']]
            and re.findall(r'TimeMonitor results over (\d+) processors', text) == [row['processes']]
            and 'Nalu-Wind Version: v1.2.0' in text
            and int(row['nodes']) * 32 == int(row['processes']))


CONTEXT = {'leoposc-uibk-hpc': heat, 'emaballarin-fhpc_assignments_2019-2020': timelog,
           'NREL-ESIFHPC3': nalu}



def main():
    return run(Path(__file__).parent, MIRROR, CONTEXT, 'corpus-ninth-mirrors-')


if __name__ == '__main__':
    sys.exit(main())
