"""Check every row of the corpus-eighth CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the row's raw time string, which must also sit in its own context; and <commit> must equal
`git log -1 <snapshot> -- <file>`.  The raw time string is time_s itself, except for
jipolanco/PencilFFTs.jl, whose .dat files give milliseconds: there it is time_s with the decimal
point moved back three places (the exact inverse of the shift made when the CSVs were written).
Context: PencilFFTs .dat: the data line whose num_procs (column 4) = processes has Nx = Ny = Nz
as the file's N<size> folder, 100 repetitions, column 8 = the raw string, and nodes =
ceil(processes / 40); QE job output: one 'running on <processes> processors' line, one
'distributed on <nodes> nodes' line, one 'real <t>' line equal to time_s, and 'JOB DONE.';
kd-tree time_thin.csv: the note's line number holds MPI = processes, OMP = threads and total
time = time_s, with nodes = 1.
The walk is data/check_rows.py's, given that raw string.
Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import check  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'jipolanco-PencilFFTs.jl': 'jipolanco+PencilFFTs.jl',
          'Ruberhauptmann-bachelorthesis': 'Ruberhauptmann+bachelorthesis',
          'Francesc0rtu-HPC-2021-2022-Assignment-2': 'Francesc0rtu+HPC-2021-2022-Assignment-2'}


def s_to_ms(s):
    """'0.13776425031101098' -> '137.76425031101098' (decimal point three places right)."""
    ip, _, fp = s.partition('.')
    fp = fp + '000' if len(fp) < 3 else fp
    ip, fp = ip + fp[:3], fp[3:]
    ip = ip.lstrip('0') or '0'
    return ip + ('.' + fp if fp else '')


def raw(folder, row):
    return s_to_ms(row['time_s']) if folder == 'jipolanco-PencilFFTs.jl' else row['time_s']


def pencil(text, row):
    n = re.search(r'/N(\d+)/', row['file']).group(1)
    hits = [ln.split() for ln in text.splitlines()
            if not ln.startswith('#') and ln.split()[3:4] == [row['processes']]]
    return (len(hits) == 1 and hits[0][0] == hits[0][1] == hits[0][2] == n and hits[0][6] == '100'
            and hits[0][7] == s_to_ms(row['time_s'])
            and int(row['nodes']) == math.ceil(int(row['processes']) / 40))


def qe(text, row):
    p = re.findall(r'running on\s+(\d+) processors', text)
    n = re.findall(r'distributed on\s+(\d+) nodes', text)
    r = re.findall(r'^real (\S+)$', text, re.M)
    return (p == [row['processes']] and n == [row['nodes']] and r == [row['time_s']]
            and 'JOB DONE.' in text)


def kdtree(text, row):
    k = int(re.search(r'line (\d+) of the file', row['note']).group(1))
    cells = [c.strip() for c in text.splitlines()[k - 1].split(',')]
    return (cells[0] == row['processes'] and cells[1] == row['threads'] and cells[6] == row['time_s']
            and row['nodes'] == '1')


CONTEXT = {'jipolanco-PencilFFTs.jl': pencil, 'Ruberhauptmann-bachelorthesis': qe,
           'Francesc0rtu-HPC-2021-2022-Assignment-2': kdtree}


def main():
    return check(Path(__file__).parent, MIRROR,
                 lambda folder, text, row: CONTEXT[folder](text, row), raw)


if __name__ == '__main__':
    sys.exit(main())
