"""Build the corpus-fourteenth CSVs from the fetched mirrors (run once, 2026-11-27).

Every number is read by this script from `git show <commit>:<path>` in a mirror that the `fetch` tool
brought in; nothing is typed by hand.  Usage: python3 extract.py /work/.mirror
"""
import math
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import check_rows  # noqa: E402  (data/check_rows.py: the helpers every extract shares)

ROOT, git, last, write = check_rows.bound(sys.argv, HERE)


# ---------------------------------------------------------------- Gabriele-Codega/FHPC-assignment
GC = "Gabriele-Codega+FHPC-assignment"
GC_SNAP = git(GC, "rev-parse", "HEAD").strip()
GC_SERIES = [
    # file under Exercise1/data/, commit that added it (and the job script then), ranks a node,
    # series name, what ran
    ("mpi_strong_10k_numa3.csv", "39c556c", 8, "gameoflife-static-10k-1000steps-numa-strong-orfeo-epyc.csv",
     "static evolution (-e 1), 10000 x 10000 grid, 1000 steps, mpirun --map-by numa, np = 1..32, 5 runs each",
     "strong"),
    ("mpi_strong_5k_ordered.csv", "ad5c50c", 8, "gameoflife-ordered-5k-50steps-numa-strong-orfeo-epyc.csv",
     "ordered evolution (-e 0), 5000 x 5000 grid, 50 steps, mpirun --map-by numa, np = 1..32, 5 runs each",
     "strong"),
    ("mpi_weak_numa.csv", "6e8947b", 8, "gameoflife-static-10kx1k-per-rank-1000steps-numa-weak-orfeo-epyc.csv",
     "static evolution (-e 1), grid 10000 x (1000 np), 1000 steps, mpirun --map-by numa, np = 1..32, 5 runs each",
     "weak"),
    ("mpi_strong_5k_socket.csv", "bbac56c", 2, "gameoflife-static-5k-2000steps-socket-strong-orfeo-epyc.csv",
     "static evolution (-e 1), 5000 x 5000 grid, 2000 steps, mpirun --map-by socket, np = 1..8, 5 runs each",
     "strong"),
    ("mpi_strong_10k_socket.csv", "9bd4d75", 2, "gameoflife-static-10k-100steps-socket-strong-orfeo-epyc-job1.csv",
     "static evolution (-e 1), 10000 x 10000 grid, 100 steps, mpirun --map-by socket, np = 1..8, 5 runs each",
     "strong"),
    ("mpi_strong_10k_socket2.csv", "9bd4d75", 2, "gameoflife-static-10k-100steps-socket-strong-orfeo-epyc-job2.csv",
     "static evolution (-e 1), 10000 x 10000 grid, 100 steps, mpirun --map-by socket, np = 1..8, 5 runs each",
     "strong"),
]
for fname, added, ppn, name, what, kind in GC_SERIES:
    path = f"Exercise1/data/{fname}"
    commit = last(GC, GC_SNAP, path)
    text = git(GC, "show", f"{commit}:{path}")
    added_full = git(GC, "rev-parse", added).strip()
    rows = []
    for i, ln in enumerate(text.split("\n"), 1):
        if not ln or ln.startswith("#"):
            continue
        f = ln.split(",")
        p, th, t = int(f[0]), int(f[1]), f[2]
        n = math.ceil(p / ppn)
        rows.append(dict(nodes=n, p=p, t=t, threads=th, file=path, commit=commit,
                         note=f"line {i}: '{ln.replace(',', ';')}' (the line's comma-separated fields nprocs; nthreads; total; comm; grid; idle; write)"))
    ntasks = 32 if ppn == 8 else 8
    cpt = 16 if ppn == 8 else 64
    head = [
        f"Conway's Game of Life, hybrid MPI + OpenMP in C (Exercise1/ of the repository, Trieste DSSC 'Foundations of HPC' 2022-23 course assignment): {what}; "
        f"one Slurm job (Exercise1/mpi_{'weak' if kind == 'weak' else 'strong'}_scalability.sh at commit {added_full[:8]}, the commit that added the data file: "
        f"--partition=EPYC --exclusive --nodes=4 --ntasks={ntasks} --ntasks-per-node={ppn} --cpus-per-task={cpt}, OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK, openMPI/4.1.5) "
        f"looping np over 1..$SLURM_NTASKS; each run appends one line to the CSV",
        f"machine: ORFEO (AREA Science Park, Trieste) EPYC partition, 4 nodes; nodes = ceil(np / {ppn}) INFERRED: the allocation gives {ppn} slots a node and "
        f"Open MPI's mpirun --map-by {'numa' if ppn == 8 else 'socket'} fills a node's slots before the next (no host list logged); ranks_per_node = np / nodes (the mean); "
        f"threads = the file's nthreads column (= --cpus-per-task)",
        f"scaling: {kind}; time_s = the file's 'total' column: the evolution time, max over ranks/threads of omp_get_wtime differences (src/main.c), seconds as printed (%f); one run a row",
        f"source: https://github.com/Gabriele-Codega/FHPC-assignment (snapshot HEAD {GC_SNAP}); raw file {path}",
        "licence: none stated (no LICENSE file in the repository)",
    ]
    if fname == "mpi_weak_numa.csv":
        head[0] += ("; np 1-13 come from a first run of the job (script version at commit bbac56c: same parameters, "
                    "15-minute limit, np = 1..32) and np 14-32 from a rerun (script at 6e8947b: np = 14..32) appended to the same file")
    write("Gabriele-Codega-FHPC-assignment", name, head, rows)

# ---------------------------------------------------------------- IsacPasianotto/foundations_of_HPC-assignment
IP = "IsacPasianotto+foundations_of_HPC-assignment"
IP_SNAP = git(IP, "rev-parse", "HEAD").strip()
IP_SERIES = [
    ("MPI_S-scalability_static-ev_size-10000.csv", "a6f35d0", "gameoflife-static-10000-strong-orfeo-thin.csv", "static (-e 1)", 10000),
    ("MPI_S-scalability_static-ev_size-17500.csv", "a6f35d0", "gameoflife-static-17500-strong-orfeo-thin.csv", "static (-e 1)", 17500),
    ("MPI_S-scalability_static-ev_size-25000.csv", "a6f35d0", "gameoflife-static-25000-strong-orfeo-thin.csv", "static (-e 1)", 25000),
    ("MPI_S-scalability_ordered-ev_size-10000.csv", "e081e14", "gameoflife-ordered-10000-strong-orfeo-thin.csv", "ordered (-e 0)", 10000),
]
for fname, script_at, name, ev, k in IP_SERIES:
    path = f"Assignment1/time_measurements/{fname}"
    commit = last(IP, IP_SNAP, path)
    text = git(IP, "show", f"{commit}:{path}")
    s_full = git(IP, "rev-parse", script_at).strip()
    rows = []
    for i, ln in enumerate(text.split("\n"), 1):
        if not re.fullmatch(r"\d+,\d+,[0-9.]+", ln):
            continue
        size, p, t = ln.split(",")
        p = int(p)
        rows.append(dict(nodes=math.ceil(p / 24), p=p, t=t, threads=1, file=path, commit=commit,
                         note=f"line {i}: '{ln.replace(',', ';')}' (the line's comma-separated fields size; cores; time)"))
    top = max(r["p"] for r in rows)
    head = [
        f"Conway's Game of Life, MPI (+OpenMP, 1 thread) in C (Assignment1/ of the repository, Trieste DSSC 'Foundations of HPC' 2022-23 course assignment): "
        f"{ev} evolution, {k} x {k} grid, 10 steps (-n 10), np = 1..{top}, 5 runs each; one Slurm job "
        f"(Assignment1/slurm-scripts/strong_mpi_scalability.sh as at commit {s_full[:8]}: --partition=THIN --nodes=2 --exclusive, openMPI/4.1.4, OMP_NUM_THREADS=1, "
        f"for i in 1..{top}: mpirun -np $i --map-by core ./main.x -r -n 10 -e <ev> -t, each run appending its time to the CSV)",
        "machine: ORFEO (AREA Science Park, Trieste) THIN partition (Intel nodes, the README says); 2 nodes allocated; nodes = ceil(np / 24) INFERRED: "
        "24 cores a THIN node (the script sweeps np up to 48 on 2 exclusive nodes) and Open MPI's --map-by core fills the first node's slots before the second (no host list logged); "
        "ranks_per_node = np / nodes (the mean); 1 thread a rank",
        "scaling: strong; time_s = the program's printed time (',%f' of end-start around the evolution, src/run.c / src/static_evolution.c), seconds; one run a row",
        f"source: https://github.com/IsacPasianotto/foundations_of_HPC-assignment (snapshot HEAD {IP_SNAP}); raw file {path}",
        "licence: none stated (no LICENSE file in the repository)",
    ]
    write("IsacPasianotto-foundations_of_HPC-assignment", name, head, rows)

# ---------------------------------------------------------------- andrejcuber/units-fhpc2223-assignment
AC = "andrejcuber+units-fhpc2223-assignment"
AC_SNAP = git(AC, "rev-parse", "HEAD").strip()
out_path = "exercise01/report_data/data/slurm-94458.out"
job_path = "exercise01/ex1_part1.sh"
commit = last(AC, AC_SNAP, out_path)
out = git(AC, "show", f"{commit}:{out_path}").split("\n")
job = git(AC, "show", f"{AC_SNAP}:{job_path}")
runs = [(int(m.group(1)), int(m.group(2))) for m in
        re.finditer(r"^mpirun -np (\d+) \./gof_mpi -r -k 10000 -n 200 -f init10k\.pbm -e ([01]) -s 200$", job, re.M)]
blocks = {"MPI ordered": 0, "MPI static": 1}
cur, got = None, {0: [], 1: []}
for i, ln in enumerate(out, 1):
    if ln in blocks:
        cur = blocks[ln]
        continue
    if re.fullmatch(r"[0-9]+\.[0-9]+", ln):
        got[cur].append((i, ln))
for e, label in ((0, "ordered"), (1, "static")):
    nps = [p for p, ev in runs if ev == e]
    assert len(nps) == len(got[e]), (len(nps), len(got[e]))
    rows = []
    for k, (p, (i, ln)) in enumerate(zip(nps, got[e]), 1):
        rows.append(dict(nodes=math.ceil(p / 128), p=p, t=ln, threads=1, file=out_path, commit=commit,
                         note=f"line {i}: '{ln}' (run {k} of the '{'MPI ' + label}' block; mpirun -np {p} in {job_path})"))
    head = [
        f"Conway's Game of Life, MPI in C (exercise01/game_of_life.c, Trieste DSSC 'Foundations of HPC' 2022-23 course assignment): {label} evolution (-e {e}), "
        f"10000 x 10000 grid, 200 steps, one run a count, np = 1..256 (36 counts); one Slurm job (exercise01/ex1_part1.sh: #SBATCH -n 256 -N 2 -p EPYC, "
        f"openMPI/4.1.5, mpirun -np <np> ./gof_mpi -r -k 10000 -n 200 -f init10k.pbm -e {e} -s 200, default mapping) whose stdout is slurm-94458.out",
        "machine: ORFEO (AREA Science Park, Trieste) EPYC partition, 2 nodes, 256 tasks (128 a node); nodes = ceil(np / 128) INFERRED from the allocation "
        "(-n 256 -N 2: 128 slots a node) and Open MPI's mpirun filling the first node's slots before the second (no host list logged); ranks_per_node = np / nodes (the mean); "
        "OMP_NUM_THREADS not set in the script (threads = 1 assumed: the MPI-only sweep)",
        f"scaling: strong; time_s = the program's printed time (one line a run in the job's stdout, 3 decimals), seconds; the k-th time of the '{'MPI ' + label}' block "
        f"belongs to the k-th 'mpirun ... -e {e}' line of ex1_part1.sh (36 lines, 36 times)",
        f"source: https://github.com/andrejcuber/units-fhpc2223-assignment (snapshot HEAD {AC_SNAP}); raw file {out_path}",
        "licence: none stated (no LICENSE file in the repository)",
    ]
    write("andrejcuber-units-fhpc2223-assignment", f"gameoflife-{label}-10000-200steps-strong-orfeo-epyc.csv", head, rows)
