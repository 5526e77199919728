"""Check every row of the corpus-eleventh CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the row's time_s string, which must also sit in its own context; and <commit> must equal
`git log -1 <snapshot> -- <file>`.  The walk is data/check_rows.py's.  Context:

- TaoELi/fdtd_bath info_<lb|lorentz>.txt (written by collect_simulation_timesteps.sh): the note's
  line i is exactly "<processes> <time_s>"; nodes = 1 and ranks_per_node = processes when
  processes <= 24, else nodes = processes / 24 and ranks_per_node = 24; the same folder's
  submission scripts (read at the snapshot) launch it that way: run_benchmark_singlenode_<m>.sh
  lists processes in "for TOTAL in ..." with "--nodes=1" and "--ntasks-per-node=$TOTAL",
  run_benchmark_multinode_<m>.sh lists nodes in "for NODES in ..." with "TOTAL=$(( NODES * 24 ))"
  and "--ntasks-per-node=24"; collect_simulation_timesteps.sh takes field 6 of the last
  "on time step" line.
- LindeBee/HPC Project/final_results/out<P>_<size>: exactly one "Execution time: <time_s>" line;
  the job script the note names (read at the row's commit) holds "--nodes=<nodes>",
  "--ntasks-per-node=32", "srun -n <processes> " and "> ./results/<the file's name>";
  nodes = ceil(processes / 32).
- brandon-neth/MarblChapel performance/{strong,weak}-scaling.csv: header
  "NodeCount,RunsPerNode,Time", the note's line i is "<nodes>,<runs>,<time_s>" with runs = 512
  (weak) or 512 / nodes (strong), processes = nodes, ranks_per_node = 1; collect-scaling.sh at the
  row's commit loops "for nodeCount in 1 2 4 8 16 32 64" over "./scaling.exe -nl$nodeCount".

Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import run, show  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'TaoELi-fdtd_bath': 'TaoELi+fdtd_bath',
          'LindeBee-HPC': 'LindeBee+HPC',
          'brandon-neth-MarblChapel': 'brandon-neth+MarblChapel'}
SNAPSHOT = {'TaoELi-fdtd_bath': 'd34f31915f502360b4107d16235154b29edeb618'}



def fdtd(text, row):
    i = int(re.search(r'^line (\d+):', row['note']).group(1))
    lines = text.splitlines()
    p, n, rpn = int(row['processes']), int(row['nodes']), float(row['ranks_per_node'])
    m = re.search(r'info_(lb|lorentz)\.txt$', row['file']).group(1)
    d = os.path.dirname(row['file'])
    snap = SNAPSHOT['TaoELi-fdtd_bath']
    collect = show(MIRROR, 'TaoELi-fdtd_bath', snap, d + '/collect_simulation_timesteps.sh')
    ok = (lines[i - 1] == f"{row['processes']} {row['time_s']}"
          and 'grep -i "on time step"' in collect and "awk '{print $6}'" in collect)
    if p <= 24:
        single = show(MIRROR, 'TaoELi-fdtd_bath', snap, d + f'/run_benchmark_singlenode_{m}.sh')
        totals = re.search(r'^for TOTAL in ([\d ]+); do', single, re.M).group(1).split()
        return (ok and n == 1 and rpn == p and str(p) in totals
                and '--nodes=1' in single and '--ntasks-per-node=$TOTAL' in single)
    multi = show(MIRROR, 'TaoELi-fdtd_bath', snap, d + f'/run_benchmark_multinode_{m}.sh')
    nodes = re.search(r'^for NODES in ([\d ]+); do', multi, re.M).group(1).split()
    return (ok and p == 24 * n and rpn == 24 and str(n) in nodes
            and 'TOTAL=$(( NODES * 24 ))' in multi and '--ntasks-per-node=24' in multi
            and '--nodes=${NODES}' in multi)


def linde(text, row):
    p, n = int(row['processes']), int(row['nodes'])
    job = re.search(r'job (Project/scripts/\S+\.sh):', row['note']).group(1)
    js = show(MIRROR, 'LindeBee-HPC', row['commit'], job)
    return (re.findall(r'^Execution time: (\S+)$', text, re.M) == [row['time_s']]
            and re.findall(r'--nodes=(\d+)', js) == [row['nodes']]
            and '--ntasks-per-node=32' in js
            and re.search(rf'^srun -n {p} \S+ > \./results/{re.escape(os.path.basename(row["file"]))}$',
                          js, re.M) is not None
            and n == -(-p // 32))


def marbl(text, row):
    i = int(re.search(r'^line (\d+):', row['note']).group(1))
    lines = text.splitlines()
    n = int(row['nodes'])
    runs = 512 if row['file'].endswith('weak-scaling.csv') else 512 // n
    script = show(MIRROR, 'brandon-neth-MarblChapel', row['commit'], 'performance/collect-scaling.sh')
    return (lines[0] == 'NodeCount,RunsPerNode,Time'
            and lines[i - 1] == f"{n},{runs},{row['time_s']}"
            and row['processes'] == row['nodes'] and row['ranks_per_node'] == '1'
            and 'for nodeCount in 1 2 4 8 16 32 64; do' in script
            and './scaling.exe -nl$nodeCount' in script)


CONTEXT = {'TaoELi-fdtd_bath': fdtd, 'LindeBee-HPC': linde, 'brandon-neth-MarblChapel': marbl}



def main():
    return run(Path(__file__).parent, MIRROR, CONTEXT, 'corpus-eleventh-mirrors-')


if __name__ == '__main__':
    sys.exit(main())
