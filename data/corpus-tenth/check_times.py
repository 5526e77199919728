"""Check every row of the corpus-tenth CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the row's time_s string, which must also sit in its own context; and <commit> must equal
`git log -1 <snapshot> -- <file>`.  The walk is data/check_rows.py's.  Context:

- EPIC-model/parcel-clustering-data timings CSV: the header's first field is "parcel merge
  (total)", the file holds exactly M data lines (the note's "data line k of M") and data line k's
  first field is time_s; the file name's "nodes-N" equals nodes; the job stdout the note names
  (same folder, read at the snapshot) prints "Running on  nodes with <processes> tasks.", names
  the file's stem in "ASCII file name:" exactly M times, and processes = nodes x ranks_per_node.
- felker/athenak-scaling weak-scaling CSV: its header is "Num MPI ranks,Num nodes,cpu time used,
  zone-cycles/cpu_second", and the note's line i (not commented out) starts with
  "<processes>,<nodes>,<time_s>,"; processes = 4 x nodes.
- RRZE-HPC/LULESH-AD likwid-mpirun stdout: the note's run block k (the k-th "DEBUG: Executable
  given on commandline:") runs "-s <S> -i 300" with S the file name's size, prints exactly one
  "Num processors: <processes>", one "Elapsed time = <time_s> (s)", one srun "--nodes=<nodes>",
  schedules on <nodes> hosts whose slots sum to processes, every host but the last holding
  min(processes, 72 or 104) slots.

Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import run, show  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'EPIC-model-parcel-clustering-data': 'EPIC-model+parcel-clustering-data',
          'felker-athenak-scaling': 'felker+athenak-scaling',
          'RRZE-HPC-LULESH-AD': 'RRZE-HPC+LULESH-AD'}
SNAPSHOT = {'EPIC-model-parcel-clustering-data': '85cc8a100750d701642ad1dfcc79eed4b6292c06'}



def epic(text, row):
    lines = text.splitlines()
    k, m = map(int, re.search(r'data line (\d+) of (\d+)', row['note']).groups())
    data = [ln for ln in lines[1:] if ln.strip()]
    stem = os.path.basename(row['file'])[:-len('-timings.csv')]
    ofile = re.search(r'job stdout (\S+?):', row['note']).group(1)
    out = show(MIRROR, 'EPIC-model-parcel-clustering-data', SNAPSHOT['EPIC-model-parcel-clustering-data'],
                   os.path.dirname(row['file']) + '/' + ofile)
    return (lines[0].split(',')[0] == 'parcel merge (total)'
            and len(data) == m
            and data[k - 1].split(',')[0].strip() == row['time_s']
            and re.search(r'-nodes-(\d+)-timings\.csv$', row['file']).group(1) == row['nodes']
            and re.findall(r'Running on\s+nodes with (\d+) tasks\.', out) == [row['processes']]
            and re.findall(r'ASCII file name:\s+(\S+)', out).count(stem) == m
            and int(row['nodes']) * int(row['ranks_per_node']) == int(row['processes']))


def athenak(text, row):
    lines = text.splitlines()
    i = int(re.search(r'line (\d+):', row['note']).group(1))
    return (lines[0].replace('"', '') == 'Num MPI ranks,Num nodes,cpu time used,zone-cycles/cpu_second'
            and not lines[i - 1].lstrip().startswith('#')
            and lines[i - 1].startswith(f"{row['processes']},{row['nodes']},{row['time_s']},")
            and int(row['processes']) == 4 * int(row['nodes']))


def lulesh(text, row):
    k = int(re.search(r'run block (\d+)', row['note']).group(1))
    size = re.search(r'MEM_DP_size_(\d+)(?:_2)?\.csv$', row['file']).group(1)
    cpn = 72 if '5-MPI-ICL-cluster' in row['file'] else 104
    block = text.split('DEBUG: Executable given on commandline:')[k]
    p, n = int(row['processes']), int(row['nodes'])
    hosts = [int(s) for s in re.findall(r'^DEBUG: Host \S+ with (\d+) slots \(max', block, re.M)]
    return (re.search(rf'lulesh2\.0 -p -b 0 -c 0 -s {size} -i 300\n', block) is not None
            and re.findall(r'^Num processors: (\d+)$', block, re.M) == [row['processes']]
            and re.findall(r'^Elapsed time\s+=\s+(\S+) \(s\)', block, re.M) == [row['time_s']]
            and re.findall(r'^EXEC: srun .*--nodes=(\d+)', block, re.M) == [row['nodes']]
            and re.findall(r'^\s+Problem size\s+=\s+(\d+)', block, re.M) == [size]
            and len(hosts) == n and sum(hosts) == p
            and all(h == min(p, cpn) for h in hosts[:-1]))


CONTEXT = {'EPIC-model-parcel-clustering-data': epic, 'felker-athenak-scaling': athenak,
           'RRZE-HPC-LULESH-AD': lulesh}



def main():
    return run(Path(__file__).parent, MIRROR, CONTEXT, 'corpus-tenth-mirrors-')


if __name__ == '__main__':
    sys.exit(main())
