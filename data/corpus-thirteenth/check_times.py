"""Check every row of the corpus-thirteenth CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the row's time_s string, which must also sit in its own context; and <commit> must equal
`git log -1 <snapshot> -- <file>`.  The walk is data/check_rows.py's.  Context:

- OussamaNajar/hpc-parallel-systems MPI_game_of_life/results/hummingbird/2026-02-11_job8961/
  bench.txt (the stdout of scripts/bench.sh in Slurm job 8961): the file is cut into runs (a
  block header "=== MPI <IMPL> np=<P> ===", then "-- run k/3 --" ... "TOTAL_TIME_SEC: <t>");
  the note's line i is exactly "TOTAL_TIME_SEC:" + spaces + time_s and closes run k of the
  note's block; that run holds exactly P distinct "Rank r bound to" lines (Open MPI
  --report-bindings), whose distinct hosts number `nodes`, and "MPI_RANKS: P"; the block is
  the file's "=== MPI <IMPL> np=<P> ===" for the CSV's implementation; ranks_per_node = P /
  nodes, threads = 1; provenance.txt beside it at the row's commit holds
  "SLURM_JOB_NODELIST=node-[06,18]" and "SLURM_NNODES=2".
- EAirPeter/HPCAssignments hw5/jobs/<kind>/<v>-n<N>-ln<l>-it<it>-np<P>.out: exactly one line
  "[Completed] Time: <t> s", which is the note's line i and holds time_s; the job script of the
  same name (.sh) at the row's commit holds "#SBATCH --nodes=<nodes>",
  "#SBATCH --tasks-per-node=<P / nodes>", "#SBATCH --output=<name>.out" and
  "mpiexec ../../<jacobi|jacobi-nb> <N> <it>" (jacobi for v = bl, jacobi-nb for nb).
- BenediktStingl/NSSC-II Exercise_1/<Task>/datacluster_<Task>/jacobiMPI_<R>_10_n_<P>.log:
  exactly one line "Total   Runtime = <t> seconds" (the note's line i, holding time_s) and one
  line "No. of processors: <P> resolution: <R> iterations: 10 DIM: <1D|2D>"; nodes =
  ceil(P / 40); and Exercise_1/<Task>/submit_mpi_loops.sh at the snapshot holds "#SBATCH -N 2",
  "#SBATCH --ntasks-per-node=40", "mpiprocs=( 1 2 5 10 20 40 60 80 )" and
  "mpirun -n $procs ./jacobiMPI".

Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import run, show  # noqa: E402  (data/check_rows.py)

MIRROR = {'OussamaNajar-hpc-parallel-systems': 'OussamaNajar+hpc-parallel-systems',
          'EAirPeter-HPCAssignments': 'EAirPeter+HPCAssignments',
          'BenediktStingl-NSSC-II': 'BenediktStingl+NSSC-II'}
NSSC_SNAPSHOT = 'e3097f3a56e623f24ded609234fbf7dc87ebb3d9'   # head of branch 'master'
IMPL = {'row': 'MPI ROW', 'column': 'MPI COLUMN', 'mpi-block': 'MPI MPI_BLOCK', 'mpi-2d': 'MPI MPI_2D'}


def gol_runs(text):
    out, block, cur = [], None, None
    for i, ln in enumerate(text.split('\n'), 1):
        m = re.match(r'^=== (MPI \S+|SERIAL BASELINE)(?: np=(\d+))? ===$', ln)
        if m:
            block = (m.group(1), int(m.group(2)) if m.group(2) else None)
            continue
        m = re.match(r'^-- run (\d+)/3 --$', ln)
        if m:
            cur = {'block': block, 'k': int(m.group(1)), 'hosts': set(), 'ranks': set()}
            out.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r'^\[(node-\d+):\d+\] Rank (\d+) bound to ', ln)
        if m:
            cur['hosts'].add(m.group(1))
            cur['ranks'].add(int(m.group(2)))
        m = re.match(r'^MPI_RANKS:\s+(\d+)$', ln)
        if m:
            cur['mpi_ranks'] = int(m.group(1))
        m = re.match(r'^TOTAL_TIME_SEC:\s+(\S+)$', ln)
        if m:
            cur['t'], cur['line'] = m.group(1), i
    return out


def gol(text, row, csv_name):
    m = re.search(r'^line (\d+): .*\(run (\d)/3 of block', row['note'])
    line, k = int(m.group(1)), int(m.group(2))
    p, n = int(row['processes']), int(row['nodes'])
    impl = IMPL[re.match(r'gameoflife-(.+)-2048-strong-hummingbird-rep(\d)\.csv$', csv_name).group(1)]
    rep = int(re.search(r'rep(\d)\.csv$', csv_name).group(1))
    if not re.fullmatch(r'TOTAL_TIME_SEC:\s+' + re.escape(row['time_s']), text.split('\n')[line - 1]):
        return False
    runs = [r for r in gol_runs(text) if r.get('line') == line]
    if len(runs) != 1:
        return False
    r = runs[0]
    prov = show(MIRROR, 'OussamaNajar-hpc-parallel-systems', row['commit'],
                row['file'].replace('bench.txt', 'provenance.txt'))
    return (r['block'] == (impl, p) and r['k'] == k == rep and r['t'] == row['time_s']
            and len(r['ranks']) == p and r.get('mpi_ranks') == p and len(r['hosts']) == n
            and float(row['ranks_per_node']) == p / n and row['threads'] == '1'
            and 'SLURM_JOB_NODELIST=node-[06,18]\n' in prov and 'SLURM_NNODES=2\n' in prov)


def nyu(text, row):
    m = re.match(r'hw5/jobs/(strong|weak)/(bl|nb)-n(\d+)-ln(\d+)-it(\d+)-np(\d+)\.out$', row['file'])
    _, ver, big_n, _, it, p_name = m.groups()
    p, n = int(row['processes']), int(row['nodes'])
    hits = [(i, ln) for i, ln in enumerate(text.split('\n'), 1)
            if re.match(r'^\[Completed\] Time: \S+ s$', ln)]
    line = int(re.match(r'^line (\d+): ', row['note']).group(1))
    if hits != [(line, f"[Completed] Time: {row['time_s']} s")]:
        return False
    js = show(MIRROR, 'EAirPeter-HPCAssignments', row['commit'], row['file'][:-4] + '.sh')
    exe = {'bl': 'jacobi', 'nb': 'jacobi-nb'}[ver]
    base = row['file'].rsplit('/', 1)[1][:-4]
    return (int(p_name) == p and p % n == 0
            and re.findall(r'^#SBATCH --nodes=(\d+)$', js, re.M) == [row['nodes']]
            and re.findall(r'^#SBATCH --tasks-per-node=(\d+)$', js, re.M) == [str(p // n)]
            and f'#SBATCH --output={base}.out\n' in js
            and f'mpiexec ../../{exe} {big_n} {it}\n' in js
            and float(row['ranks_per_node']) == p / n and row['threads'] == '1')


def nssc(text, row):
    m = re.match(r'Exercise_1/(Task[234])/datacluster_(Task[234])/jacobiMPI_(\d+)_10_n_(\d+)\.log$',
                 row['file'])
    task, task2, res, p_name = m.groups()
    p, n = int(row['processes']), int(row['nodes'])
    lines = text.split('\n')
    times = [(i, ln) for i, ln in enumerate(lines, 1) if ln.startswith('Total   Runtime = ')]
    heads = [ln for ln in lines if ln.startswith('No. of processors: ')]
    line = int(re.match(r'^line (\d+): ', row['note']).group(1))
    if times != [(line, f"Total   Runtime = {row['time_s']} seconds")] or len(heads) != 1:
        return False
    hm = re.match(r'^No\. of processors: (\d+) resolution: (\d+) iterations: 10 DIM: (1D|2D)$', heads[0])
    job = show(MIRROR, 'BenediktStingl-NSSC-II', NSSC_SNAPSHOT, f'Exercise_1/{task}/submit_mpi_loops.sh')
    return (hm is not None and task == task2 and int(hm.group(1)) == p == int(p_name)
            and hm.group(2) == res and n == -(-p // 40)
            and float(row['ranks_per_node']) == p / n and row['threads'] == '1'
            and '#SBATCH -N 2\n' in job and '#SBATCH --ntasks-per-node=40\n' in job
            and 'mpiprocs=( 1 2 5 10 20 40 60 80 )' in job
            and 'mpirun -n $procs ./jacobiMPI' in job)


def in_context(folder, text, row, csv_name):
    if folder == 'OussamaNajar-hpc-parallel-systems':
        return gol(text, row, csv_name)
    if folder == 'EAirPeter-HPCAssignments':
        return nyu(text, row)
    return nssc(text, row)


def main():
    here = Path(__file__).parent
    # check() gives the folder, not the CSV; the game-of-life context needs the CSV's name
    # (implementation, repetition), found by the row's file, note and time among the folder's CSVs.
    names = {}
    for f in sorted(here.glob('OussamaNajar-hpc-parallel-systems/*.csv')):
        for ln in f.read_text().splitlines():
            if not ln.startswith('#') and ',' in ln and not ln.startswith('nodes,'):
                names.setdefault(ln, f.name)

    def ctx(folder, text, row):
        if folder != 'OussamaNajar-hpc-parallel-systems':
            return in_context(folder, text, row, None)
        hits = [nm for ln, nm in names.items()
                if row['note'] in ln and f",{row['time_s']}," in ln
                and ln.startswith(f"{row['nodes']},{row['processes']},")]
        return len(hits) == 1 and in_context(folder, text, row, hits[0])
    return run(here, MIRROR, ctx, 'corpus-thirteenth-mirrors-')


if __name__ == '__main__':
    sys.exit(main())
