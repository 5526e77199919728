"""Check every row of the corpus-fourteenth CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the row's time_s string, which must also sit in its own context; and <commit> must equal
`git log -1 <snapshot> -- <file>`.  The walk is data/check_rows.py's.  Context:

- Gabriele-Codega/FHPC-assignment Exercise1/data/<f>.csv: the note's line i is exactly the
  note's fields joined by ',' and reads "<np>,<nthreads>,<time_s>,..." with np = processes,
  nthreads = threads; nodes = ceil(np / ppn) and ranks_per_node = np / nodes, where the job
  script Exercise1/mpi_{strong,weak}_scalability.sh at the commit that added the data file holds
  "#SBATCH --partition=EPYC", "#SBATCH --nodes=4", "#SBATCH --ntasks-per-node=<ppn>",
  "#SBATCH --cpus-per-task=<nthreads>" and "--map-by numa" (ppn 8) or "--map-by socket" (ppn 2).
- IsacPasianotto/foundations_of_HPC-assignment Assignment1/time_measurements/<f>.csv: the note's
  line i is "<size>,<np>,<time_s>" with np = processes; nodes = ceil(np / 24); threads = 1; the
  job script Assignment1/slurm-scripts/strong_mpi_scalability.sh at the stated commit holds
  "--partition=THIN", "--nodes=2", "OMP_NUM_THREADS=1" and "mpirun -np $i --map-by core".
- andrejcuber/units-fhpc2223-assignment exercise01/report_data/data/slurm-94458.out: the note's
  line i is exactly time_s, and is the k-th number of its block ("MPI ordered" / "MPI static");
  the k-th "mpirun -np <np> ./gof_mpi -r ... -e <0|1> -s 200" line of exercise01/ex1_part1.sh at
  the snapshot has np = processes; the script holds "#SBATCH -n 256 -N 2"; nodes = ceil(np/128).

Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import run, show  # noqa: E402  (data/check_rows.py)

MIRROR = {'Gabriele-Codega-FHPC-assignment': 'Gabriele-Codega+FHPC-assignment',
          'IsacPasianotto-foundations_of_HPC-assignment': 'IsacPasianotto+foundations_of_HPC-assignment',
          'andrejcuber-units-fhpc2223-assignment': 'andrejcuber+units-fhpc2223-assignment'}
GC_ADDED = {'mpi_strong_10k_numa3.csv': ('39c556c', 'strong', 8),
            'mpi_strong_5k_ordered.csv': ('ad5c50c', 'strong', 8),
            'mpi_weak_numa.csv': ('6e8947b', 'weak', 8),
            'mpi_strong_5k_socket.csv': ('bbac56c', 'strong', 2),
            'mpi_strong_10k_socket.csv': ('9bd4d75', 'strong', 2),
            'mpi_strong_10k_socket2.csv': ('9bd4d75', 'strong', 2)}
IP_SCRIPT = {'MPI_S-scalability_static-ev_size-10000.csv': 'a6f35d0',
             'MPI_S-scalability_static-ev_size-17500.csv': 'a6f35d0',
             'MPI_S-scalability_static-ev_size-25000.csv': 'a6f35d0',
             'MPI_S-scalability_ordered-ev_size-10000.csv': 'e081e14'}
AC_SNAPSHOT = '63e00ebd634c0f2eff9dc3969fb1ba1ec2f3d9bd'


def note_line(text, row):
    m = re.match(r"^line (\d+): '([^']*)'", row['note'])
    i, shown = int(m.group(1)), m.group(2)
    line = text.split('\n')[i - 1]
    return i, line, line == shown.replace(';', ',')


def rpn_ok(row, p, n):
    return float(row['ranks_per_node']) == p / n


def gc(text, row):
    _, line, same = note_line(text, row)
    f = line.split(',')
    p, n = int(row['processes']), int(row['nodes'])
    added, kind, ppn = GC_ADDED[row['file'].rsplit('/', 1)[1]]
    script = show(MIRROR, 'Gabriele-Codega-FHPC-assignment', added, f'Exercise1/mpi_{kind}_scalability.sh')
    mapping = '--map-by numa' if ppn == 8 else '--map-by socket'
    return (same and len(f) == 7 and int(f[0]) == p and f[1] == row['threads'] and f[2] == row['time_s']
            and n == math.ceil(p / ppn) and rpn_ok(row, p, n)
            and '#SBATCH --partition=EPYC\n' in script and '#SBATCH --nodes=4\n' in script
            and f'#SBATCH --ntasks-per-node={ppn}\n' in script
            and f'#SBATCH --cpus-per-task={row["threads"]}\n' in script and mapping in script)


def ip(text, row):
    _, line, same = note_line(text, row)
    f = line.split(',')
    p, n = int(row['processes']), int(row['nodes'])
    script = show(MIRROR, 'IsacPasianotto-foundations_of_HPC-assignment', IP_SCRIPT[row['file'].rsplit('/', 1)[1]],
                  'Assignment1/slurm-scripts/strong_mpi_scalability.sh')
    return (same and len(f) == 3 and int(f[1]) == p and f[2] == row['time_s'] and row['threads'] == '1'
            and n == math.ceil(p / 24) and rpn_ok(row, p, n)
            and '#SBATCH --partition=THIN\n' in script and '#SBATCH --nodes=2\n' in script
            and 'export OMP_NUM_THREADS=1\n' in script and 'mpirun -np $i --map-by core ./main.x' in script)


def ac(text, row):
    i, line, same = note_line(text, row)
    lines = text.split('\n')
    label = re.search(r"of the '(MPI (?:ordered|static))' block", row['note']).group(1)
    start = lines.index(label) + 1
    block = []
    for j in range(start, len(lines)):
        if not re.fullmatch(r'[0-9]+\.[0-9]+', lines[j]):
            break
        block.append(j + 1)
    if i not in block:
        return False
    k = block.index(i)
    job = show(MIRROR, 'andrejcuber-units-fhpc2223-assignment', AC_SNAPSHOT, 'exercise01/ex1_part1.sh')
    e = '0' if label == 'MPI ordered' else '1'
    nps = re.findall(r'^mpirun -np (\d+) \./gof_mpi -r -k 10000 -n 200 -f init10k\.pbm -e ' + e + r' -s 200$', job, re.M)
    p, n = int(row['processes']), int(row['nodes'])
    return (same and line == row['time_s'] and len(nps) == len(block) and int(nps[k]) == p
            and '#SBATCH -n 256 -N 2\n' in job and n == math.ceil(p / 128) and rpn_ok(row, p, n)
            and row['threads'] == '1')


def main():
    return run(Path(__file__).parent, MIRROR,
               {'Gabriele-Codega-FHPC-assignment': gc,
                'IsacPasianotto-foundations_of_HPC-assignment': ip,
                'andrejcuber-units-fhpc2223-assignment': ac},
               'corpus-fourteenth-mirrors-')


if __name__ == '__main__':
    sys.exit(main())
