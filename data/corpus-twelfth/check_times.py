"""Check every row of the corpus-twelfth CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the row's time_s string, which must also sit in its own context; and <commit> must equal
`git log -1 <snapshot> -- <file>`.  The walk is data/check_rows.py's.  Context:

- UIUC-PPL/charm4py-mpi4py-compare data/stencil/.../*_stdout*.txt (the stdout of
  scripts/stencil/{strong,weak}_scaling.py): the file is cut into runs (a run starts at
  "Python MPI/Numpy" for mpi4py or "Charm++> Running in non-SMP mode: P processes (PEs)" for
  Charm4py and ends at its "Elapsed: <t>" line); the note's line i is exactly
  "Elapsed: <time_s>", it closes a run of the note's implementation whose
  "Number of processors = <processes>", and that run is the note's k-th run of that
  implementation and count in the file; the run's "Problem Domain (x,y)" is 24576 24576 for the
  strong files and the weak schedule (3072x1536 at 6 ... 24576x24576 at 768) for the weak file.
  Charm4py: the run's "Running on <nodes> hosts" equals nodes, "non-SMP mode: <processes>" and
  "Number of chares" = odf x processes (odf 1, 2 or 8 by file).  mpi4py: nodes = ceil(P/48), and
  the job script scripts/stencil/submit_<kind>.sh at the snapshot holds "--nodes=16" and
  "--tasks-per-node=48", and scripts/stencil/<kind>_scaling.py launches "mpirun" over the count
  list holding P.  ranks_per_node = processes / nodes, threads = 1.
- AaronTHolt/MPI HW4/RESULTS/<alg>_<P>_144: exactly two non-empty lines, the first 50
  comma-separated values, the second exactly time_s; the job script
  HW4/SCRIPTS/<alg>_<P>_144.sh at the row's commit holds "#SBATCH --nodes <nodes>",
  "#SBATCH --ntasks-per-node 1", "#SBATCH --output RESULTS/<alg>_<P>_144" and
  "mpirun -np <processes> ./hw4.<2|3>-holtat.out 144"; nodes = processes.

Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import run, show  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'UIUC-PPL-charm4py-mpi4py-compare': 'UIUC-PPL+charm4py-mpi4py-compare',
          'AaronTHolt-MPI': 'AaronTHolt+MPI'}
SNAPSHOT = {'UIUC-PPL-charm4py-mpi4py-compare': '4c062a5cbd9714ee6529806b058293c05449180d'}
ODF = {'data/stencil/2021-08-26_scaling/strong_scaling_stdout.txt': 1,
       'data/stencil/2021-08-26_scaling/weak_scaling_stdout.txt': 1,
       'data/stencil/2021-08-27_odf/strong_scaling_stdout.txt': 2,
       'data/stencil/2021-08-27_odf/strong_scaling_stdout_odf8.txt': 8}
WEAK_DOMAIN = {6: ('3072', '1536'), 12: ('3072', '3072'), 24: ('6144', '3072'),
               48: ('6144', '6144'), 96: ('12288', '6144'), 192: ('12288', '12288'),
               384: ('24576', '12288'), 768: ('24576', '24576')}



def runs(text):
    """The file's runs in order: impl, P, chares, hosts, pes, domain, line of 'Elapsed:'."""
    out, cur = [], None
    for i, ln in enumerate(text.split('\n'), 1):
        m = re.match(r'^Charm\+\+> Running in non-SMP mode: (\d+) processes \(PEs\)$', ln)
        if m:
            cur = {'impl': 'charm4py', 'pes': int(m.group(1))}
            continue
        if ln.startswith('Python MPI/Numpy'):
            cur = {'impl': 'mpi4py'}
            continue
        if cur is None:
            continue
        for key, pat in (('hosts', r'^Charm\+\+> Running on (\d+) hosts \('),
                         ('chares', r'^Number of chares\s*=\s*(\d+)$'),
                         ('P', r'^Number of processors\s*=\s*(\d+)$')):
            m = re.match(pat, ln)
            if m:
                cur[key] = int(m.group(1))
        m = re.match(r'^Problem Domain \(x,y\)\s*=\s*(\d+) (\d+)$', ln)
        if m:
            cur['domain'] = (m.group(1), m.group(2))
        if re.match(r'^Elapsed: \S+$', ln):
            cur['line'] = i
            out.append(cur)
            cur = None
    return out


def uiuc(text, row):
    m = re.search(r'^line (\d+): .*\(run (\d+) of (mpi4py|charm4py) P=(\d+) ', row['note'])
    line, k, impl, p_note = int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4))
    p, n = int(row['processes']), int(row['nodes'])
    if text.split('\n')[line - 1] != f"Elapsed: {row['time_s']}" or p_note != p:
        return False
    same = [r for r in runs(text) if r['impl'] == impl and r.get('P') == p]
    if len(same) < k or same[k - 1]['line'] != line:
        return False
    r = same[k - 1]
    kind = 'weak' if 'weak_scaling' in row['file'] else 'strong'
    domain = WEAK_DOMAIN.get(p) if kind == 'weak' else ('24576', '24576')
    ok = (r.get('domain') == domain and row['threads'] == '1'
          and float(row['ranks_per_node']) == p / n)
    if impl == 'charm4py':
        return ok and r.get('hosts') == n and r['pes'] == p and r.get('chares') == ODF[row['file']] * p
    snap = SNAPSHOT['UIUC-PPL-charm4py-mpi4py-compare']
    job = show(MIRROR, 'UIUC-PPL-charm4py-mpi4py-compare', snap, f'scripts/stencil/submit_{kind}.sh')
    drv = show(MIRROR, 'UIUC-PPL-charm4py-mpi4py-compare', snap, f'scripts/stencil/{kind}_scaling.py')
    counts = re.search(r'^\s*nprocs = \[([\d, ]+)\]', drv, re.M).group(1)
    return (ok and ODF[row['file']] == 1 and n == -(-p // 48)
            and '#SBATCH --nodes=16' in job and '#SBATCH --tasks-per-node=48' in job
            and 'mpirun = sh.mpirun' in drv and str(p) in [c.strip() for c in counts.split(',')])


def aaron(text, row):
    lines = [ln for ln in text.split('\n') if ln]
    p, n = int(row['processes']), int(row['nodes'])
    base = os.path.basename(row['file'])
    alg = base.split('_')[0]
    prog = {'fox': 'hw4.3-holtat', 'all': 'hw4.2-holtat'}[alg]
    js = show(MIRROR, 'AaronTHolt-MPI', row['commit'], f'HW4/SCRIPTS/{base}.sh')
    return (len(lines) == 2 and len(lines[0].split(',')) == 50 and lines[1] == row['time_s']
            and base == f'{alg}_{p}_144' and n == p and row['ranks_per_node'] == '1'
            and re.findall(r'^#SBATCH --nodes (\d+)$', js, re.M) == [row['nodes']]
            and '#SBATCH --ntasks-per-node 1\n' in js
            and f'#SBATCH --output RESULTS/{base}\n' in js
            and f'mpirun -np {p} ./{prog}.out 144' in js)


CONTEXT = {'UIUC-PPL-charm4py-mpi4py-compare': uiuc, 'AaronTHolt-MPI': aaron}


def main():
    return run(Path(__file__).parent, MIRROR, CONTEXT, 'corpus-twelfth-mirrors-')


if __name__ == '__main__':
    sys.exit(main())
