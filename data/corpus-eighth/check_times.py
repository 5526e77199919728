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
This is the walk of data/check_rows.py with that one change (the raw string for ms files).
Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import csv
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import git  # noqa: E402  (data/check_rows.py)

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
    root = Path(sys.argv[1] if len(sys.argv) > 1 else '/work/.mirror')
    here = Path(__file__).parent
    rows = mism = ctx_bad = commit_bad = 0
    per = {}
    for csvf in sorted(here.glob('*/*.csv')):
        folder = csvf.parent.name
        repo = MIRROR[folder]
        found = re.search(r'snapshot HEAD ([0-9a-f]{40})', csvf.read_text())
        assert found, f"{csvf}: no 'snapshot HEAD <sha>' in its header"
        body = [ln for ln in csvf.read_text().splitlines() if not ln.startswith('#')]
        for r in csv.DictReader(body):
            rows += 1
            per[folder] = per.get(folder, 0) + 1
            text = git(root, repo, 'show', f"{r['commit']}:{r['file']}")
            if raw(folder, r) not in text:
                mism += 1
                print('MISMATCH', csvf.name, r['processes'], r['time_s'])
            elif not CONTEXT[folder](text, r):
                ctx_bad += 1
                print('NO CONTEXT', csvf.name, r['processes'], r['time_s'])
            last = git(root, repo, 'log', '-1', '--format=%H', found.group(1), '--', r['file'])
            if last.strip() != r['commit']:
                commit_bad += 1
                print('COMMIT', csvf.name, r['file'])
    print('rows per folder:', per)
    print(f'rows {rows}; time_s not found {mism}; not in context {ctx_bad}; '
          f'commit not last {commit_bad}')
    return 1 if mism or ctx_bad or commit_bad else 0


if __name__ == '__main__':
    sys.exit(main())
