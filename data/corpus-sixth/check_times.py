"""Check every row of the corpus-sixth CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the time_s string; the string must also sit in its own context (WarpX perf_logs CSV: the row whose
index is the note's "row <i>", with the note's start_date, input_file, n_node and rep, n_node x
n_mpi_per_node = <processes>, and step_time = <t>; CMAQ log: the last "Total Time = <t>" of the
CMAQ TIMING REPORT, with the last "Number of Processes: <processes>"; Charm++ SDumont file: the
note's k-th "Charm++> Running on MPI version" block, with numPes <processes>, "Running on <nodes>
unique compute nodes (24-way SMP)", the note's load balancer created, and for lb_test the last
"TIME PER STEP\t150\t<t>\t" line, for LeanMD "Total application time <t> s"); and <commit> must
equal `git log -1 <snapshot> -- <file>`.
Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import csv
import io
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import check  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'ECP-WarpX-perf_logs': 'ECP-WarpX+perf_logs',
          'CMASCenter-pcluster-cmaq': 'CMASCenter+pcluster-cmaq',
          'eclufsc-packdrop-data-analysis': 'eclufsc+packdrop-data-analysis'}


def warpx(text, row):
    note = row['note']
    idx = re.search(r'row (\d+) of the CSV', note).group(1)
    want = dict(re.findall(r'(start_date|input_file|n_node|rep) (\S+?)(?:,|$)', note))
    for r in csv.DictReader(io.StringIO(text)):
        if r[''] == idx:
            return (all(r[k] == v for k, v in want.items()) and len(want) == 4
                    and r['n_node'] == row['nodes']
                    and int(r['n_node']) * int(r['n_mpi_per_node']) == int(row['processes'])
                    and r['n_omp'] == row['threads'] and r['step_time'] == row['time_s'])
    return False


def cmaq(text, row):
    tt = re.findall(r'Total Time = (\S+)', text)
    npr = re.findall(r'Number of Processes:\s+(\d+)', text)
    return bool(tt) and tt[-1] == row['time_s'] and bool(npr) and npr[-1] == row['processes']


def charm(text, row):
    k = int(re.search(r'run (\d+) of the file', row['note']).group(1))
    lb = re.search(r'\[0\] (\w+) created', row['note']).group(1)
    parts = text.split('Charm++> Running on MPI version')[1:]
    if k > len(parts):
        return False
    p = parts[k - 1]
    if not (f"numPes {row['processes']}\n" in p
            and f"Running on {row['nodes']} unique compute nodes (24-way SMP)" in p
            and f'[0] {lb} created' in p and 'End of program' in p):
        return False
    if 'Running lb_test' in p:
        ts = re.findall(r'TIME PER STEP\t(\d+)\t(\S+)\t', p)
        return bool(ts) and ts[-1] == ('150', row['time_s'])
    m = re.search(r'Total application time (\S+) s', p)
    return 'LENNARD JONES' in p and m is not None and m.group(1) == row['time_s']


def in_context(folder, text, row):
    return {'ECP-WarpX-perf_logs': warpx, 'CMASCenter-pcluster-cmaq': cmaq,
            'eclufsc-packdrop-data-analysis': charm}[folder](text, row)


if __name__ == '__main__':
    sys.exit(check(Path(__file__).parent, MIRROR, in_context))
