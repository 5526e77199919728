"""Build the corpus-seventeenth CSVs from the fetched mirrors (run once, 2026-11-28).

Every number is read by this script from `git show <commit>:<path>` in a mirror that the `fetch` tool
brought in; nothing is typed by hand.  Usage: python3 extract.py /work/.mirror
"""
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import check_rows  # noqa: E402  (data/check_rows.py: the helpers every extract shares)

ROOT, git, last, write = check_rows.bound(sys.argv, HERE)


def show(repo, snap, path):
    c = last(repo, snap, path)
    assert c, (repo, path)
    return c, git(repo, "show", f"{c}:{path}")


def one(pattern, text, path):
    """The single line of `text` matching `pattern`: (1-based line number, match)."""
    hits = [(i, m) for i, ln in enumerate(text.split("\n"), 1) for m in [re.search(pattern, ln)] if m]
    assert len(hits) == 1, (path, pattern, len(hits))
    return hits[0]


def blocks(text, start):
    """(first line number, block text) for each block of `text` that begins with a line matching `start`."""
    lines = text.split("\n")
    idx = [i for i, ln in enumerate(lines) if re.search(start, ln)]
    return [(i + 1, "\n".join(lines[i:j])) for i, j in zip(idx, idx[1:] + [len(lines)])]


STENCIL = ("mini-stencil (the USI 'HPC Lab' course's C++ MPI mini-app: implicit finite-difference solve of Fisher's "
           "reaction-diffusion equation on an n x n grid, Newton + matrix-free CG, 100 time steps to t=0.005)")
ICS = ("USI ICS cluster (Universita della Svizzera italiana, Institute of Computing; Slurm, modules gcc + openmpi; "
       "compute hosts 'icsnode<NN>' where a log names them) - no CPU model or core count is stated for these runs")

# ---------------------------------------------------------------- USI-Projects-Collection/HPC_projects
U = "USI-Projects-Collection+HPC_projects"
U_FOLDER = "USI-Projects-Collection-HPC_projects"
U_SNAP = git(U, "rev-parse", "HEAD").strip()
U_DIR = "project_5/Skeleton_codes/mini_app"
U_RUNS = {
    "single-node": (f"{U_DIR}/weak_scaling/weak_scaling_results.txt", f"{U_DIR}/weak_scaling/weak_scaling_test.sh",
                    r"srun --ntasks=\$T \./main \$\{N\} \$\{NT\} \$\{TF\}", r"#SBATCH --nodes=1\n#SBATCH --ntasks=16\n",
                    "nodes = 1: the job asked for '--nodes=1 --ntasks=16 --exclusive' and ran 'srun --ntasks=<p> ./main N 100 0.005'"),
    "multi-node": (f"{U_DIR}/weak_scaling_multi_node/weak_scaling_results.txt", f"{U_DIR}/weak_scaling_test_multi.sh",
                   r"srun --nodes=\$T --ntasks-per-node=1 \./main \$\{N\} \$\{NT\} \$\{TF\}",
                   r"#SBATCH --nodes=16\n#SBATCH --ntasks-per-node=1\n",
                   "nodes = processes: the job asked for '--nodes=16 --ntasks-per-node=1 --exclusive' and ran "
                   "'srun --nodes=<p> --ntasks-per-node=1 ./main N 100 0.005' (one rank a node)"),
}
for place, (path, spath, srun, alloc, where) in U_RUNS.items():
    commit, text = show(U, U_SNAP, path)
    scommit, script = show(U, U_SNAP, spath)
    assert re.search(srun, script) and re.search(alloc, script), spath
    assert "BASE_RESOLUTIONS=(64 128 256)" in script and "PROCS=(1 2 4 8 16)" in script, spath
    series = {}
    for i0, blk in blocks(text, r"^Running with base="):
        m = re.search(r"^Running with base=(\d+), computed N=(\d+), NT=(\d+), TF=([\d.]+), threads=(\d+)$", blk, re.M)
        base, n, p = int(m.group(1)), int(m.group(2)), int(m.group(5))
        assert m.group(3) == "100" and m.group(4) == "0.005", (path, i0)
        assert re.search(rf"^threads   :: {p}$", blk, re.M) and re.search(r"^version   :: C\+\+ MPI$", blk, re.M)
        assert re.search(rf"^mesh      :: {n} \* {n} dx", blk, re.M), (path, i0)
        assert n == int(f"{base * p ** 0.5:.0f}"), (path, i0)
        t = re.findall(r"^simulation took ([0-9.e+-]+) seconds$", blk, re.M)
        assert len(t) == 1, (path, i0)
        k = blk.split("\n").index(f"simulation took {t[0]} seconds")
        fom = re.search(rf"^### {p}, {n}, 100, \d+, \d+, ([0-9.e+-]+) ###$", blk, re.M)
        assert fom and fom.group(1) == t[0], (path, i0)
        nodes = 1 if place == "single-node" else p
        series.setdefault(base, []).append(dict(
            nodes=nodes, p=p, t=t[0], threads=1, file=path, commit=commit,
            note=f"line {i0 + k}: 'simulation took {t[0]} seconds'; block from line {i0}: base={base} N={n} threads(=MPI ranks)={p}"))
    assert sorted(series) == [64, 128, 256], (path, sorted(series))
    for base, rows in series.items():
        assert [r["p"] for r in rows] == [1, 2, 4, 8, 16], (path, base)
        head = [
            f"{STENCIL}; WEAK scaling: grid n = round({base}*sqrt(p)) (so about {base}x{base} points a rank), 100 time steps, "
            f"final time 0.005; ./main <n> 100 0.005 - student solution in the repository (project_5, course 'High Performance "
            "Computing Lab', USI, autumn 2025; a copy of the same files sits under project_5/project_5_deidda_paolo/)",
            f"machine: {ICS}; placement {place}: {where}; job script {spath} (commit {scommit[:12]}); processes = the 'threads' "
            "the program prints (= MPI_Comm_size, version 'C++ MPI'); threads = 1 (no OpenMP)",
            "scaling: weak; time_s = the 'simulation took <s> seconds' rank 0 prints: walltime() (gettimeofday/clock_gettime, "
            "walltime.cpp) around the time-stepping loop (set-up and output excluded); one run a row",
            f"source: https://github.com/USI-Projects-Collection/HPC_projects (snapshot HEAD {U_SNAP}); raw file {path}",
            "licence: none stated (no LICENSE file in the repository)",
        ]
        write(U_FOLDER, f"mini-stencil-weak-base{base}-{place}-usi-ics.csv", head, rows)

# ---------------------------------------------------------------- altassara/ProjectsHPC
A = "altassara+ProjectsHPC"
A_FOLDER = "altassara-ProjectsHPC"
A_SNAP = git(A, "rev-parse", "HEAD").strip()
A_SRC = "https://github.com/altassara/ProjectsHPC"
A_WHO = "student solution in the repository (A. Barletta, course 'High Performance Computing Lab', USI, autumn 2025)"
A_LIC = "licence: none stated (no LICENSE file in the repository)"

# mini-stencil, strong (5 grids) and weak, mpirun -np p inside a 4-node x 4-task allocation
M = "project_5_barletta_alessio/Skeleton_codes/mini_app"
scommit_s, s_script = show(A, A_SNAP, f"{M}/run_strong_scaling.sh")
scommit_w, w_script = show(A, A_SNAP, f"{M}/run_weak_scaling.sh")
for sc in (s_script, w_script):
    assert "#SBATCH --nodes=4 " in sc and "#SBATCH --ntasks=16 " in sc and "#SBATCH --ntasks-per-node=4 " in sc
assert "for num_proc in 1 2 4 8 16" in s_script and "for n in 64 128 256 512 1024" in s_script
assert 'mpirun -np $num_proc ./main $n 100 0.005 >> "strong_scaling_data_${num_proc}_processes.txt"' in s_script
assert "proc=(1 2 4 8 16)" in w_script and "sizes=(64 91 128 181 256)" in w_script
assert 'mpirun -np $num_proc ./main $n 100 0.005 >> "weak_scaling_data_${num_proc}_processes.txt"' in w_script
A_PLACE = ("nodes = ceil(p/4), inferred: each job held 4 nodes x 4 tasks ('--nodes=4 --ntasks=16 --ntasks-per-node=4') and "
           "ran 'mpirun -np <p>' without a mapping option, which Open MPI fills slot by slot, node by node (p<=4 on the first "
           "node, 8 on two, 16 on four); no host list is printed")
strong, weak = {}, []
for kind in ("strong", "weak"):
    for p in (1, 2, 4, 8, 16):
        path = f"{M}/{kind}_scaling_data_{p}_processes.txt"
        commit, text = show(A, A_SNAP, path)
        bl = blocks(text, r"^\s+Welcome to mini-stencil!$")
        assert len(bl) == (5 if kind == "strong" else 1), (path, len(bl))
        for i0, blk in bl:
            assert re.search(rf"^processes :: {p}$", blk, re.M) and re.search(r"^version   :: C\+\+ MPI$", blk, re.M)
            n = int(re.search(r"^mesh      :: (\d+) \* (\d+) dx", blk, re.M).group(1))
            assert re.search(r"^time      :: 100 time steps from 0 \.\. 0\.005$", blk, re.M), (path, i0)
            t = re.findall(r"^simulation took ([0-9.e+-]+) seconds$", blk, re.M)
            assert len(t) == 1, (path, i0)
            k = blk.split("\n").index(f"simulation took {t[0]} seconds")
            row = dict(nodes=-(-p // 4), p=p, t=t[0], threads=1, file=path, commit=commit,
                       note=f"line {i0 + k}: 'simulation took {t[0]} seconds'; block from line {i0}: processes {p} mesh {n}x{n}")
            if kind == "strong":
                strong.setdefault(n, []).append(row)
            else:
                weak.append((n, row))
assert sorted(strong) == [64, 128, 256, 512, 1024]
assert [n for n, _ in weak] == [64, 91, 128, 181, 256]
for n, rows in sorted(strong.items()):
    head = [
        f"{STENCIL}; STRONG scaling on the {n}x{n} grid, 100 time steps to t=0.005 (./main {n} 100 0.005) - {A_WHO}; "
        f"project_5 mini_app, run_strong_scaling.sh (commit {scommit_s[:12]}) appending to strong_scaling_data_<p>_processes.txt",
        f"machine: {ICS}; {A_PLACE}; processes = the 'processes' the program prints; threads = 1",
        "scaling: strong; time_s = the 'simulation took <s> seconds' rank 0 prints: walltime() around the time-stepping loop "
        "(set-up excluded); one run a row",
        f"source: {A_SRC} (snapshot HEAD {A_SNAP}); raw files {M}/strong_scaling_data_<p>_processes.txt",
        A_LIC,
    ]
    write(A_FOLDER, f"mini-stencil-strong-n{n}-4x4alloc-usi-ics.csv", head, rows)
head = [
    f"{STENCIL}; WEAK scaling: grid n = 64, 91, 128, 181, 256 at p = 1, 2, 4, 8, 16 (about 64x64 points a rank), 100 time "
    f"steps to t=0.005 - {A_WHO}; project_5 mini_app, run_weak_scaling.sh (commit {scommit_w[:12]})",
    f"machine: {ICS}; {A_PLACE}; processes = the 'processes' the program prints; threads = 1",
    "scaling: weak; time_s = the 'simulation took <s> seconds' rank 0 prints: walltime() around the time-stepping loop; one run a row",
    f"source: {A_SRC} (snapshot HEAD {A_SNAP}); raw files {M}/weak_scaling_data_<p>_processes.txt",
    A_LIC,
]
write(A_FOLDER, "mini-stencil-weak-base64-4x4alloc-usi-ics.csv", head, [r for _, r in weak])

# power method (row-distributed dense mat-vec), strong and weak, one node and 'different nodes'
PM = "project_4_barletta_alessio/Skeleton_codes/powermethod"
PM_RUNS = {
    "onenode": ("scalingOneNode.sh", "#SBATCH --nodes=1 ", "mpirun -np $p ./powermethod_rows 3",
                lambda p: 1, "nodes = 1: '--nodes=1 --ntasks=20', 'mpirun -np <p>'"),
    "diffnodes": ("scalingMultiNodes.sh", "#SBATCH --nodes=16 ", "mpirun -np $p --map-by node ./powermethod_rows 3",
                  lambda p: min(p, 16), "nodes = min(p, 16), inferred: the job held 16 nodes x 2 tasks "
                  "('--nodes=16 --ntasks=32 --ntasks-per-node=2') and ran 'mpirun -np <p> --map-by node', which Open MPI "
                  "places round-robin, one rank a node for p <= 16; the p=20 run (four nodes with two ranks) is left out; no host list is printed"),
}
for place, (sname, alloc, cmd, nodes_of, where) in PM_RUNS.items():
    scommit, script = show(A, A_SNAP, f"{PM}/{sname}")
    assert alloc in script and cmd in script and "PROCS=(1 2 4 8 16 20)" in script, sname
    assert "WEAK_NS=(10000 14142 20000 28284 40000 44721)" in script and "BASE_N=10000" in script and "ITERS=300" in script
    for kind in ("strong", "weak"):
        path = f"{PM}/data_{kind}_{place}.data"
        commit, text = show(A, A_SNAP, path)
        lines = text.strip("\n").split("\n")
        assert lines[0] == "p,n,iter,theta,time", path
        rows = []
        for i, ln in enumerate(lines[1:], 2):
            p, n, it, theta, t = ln.split(",")
            assert it == "300", (path, i)
            rows.append(dict(nodes=nodes_of(int(p)), p=int(p), t=t, threads=1, file=path, commit=commit,
                             note=f"line {i}: '{ln.replace(',', ' ')}' (p n iter theta time)"))
        assert [r["p"] for r in rows] == [1, 2, 4, 8, 16, 20], path
        ns = {r["note"].split("'")[1].split()[1] for r in rows}
        assert ns == ({"10000"} if kind == "strong" else {"10000", "14142", "20000", "28284", "40000", "44721"}), path
        if place == "diffnodes":
            # p=20 puts two ranks on four of the 16 nodes: another placement, left out (one series = one placement)
            rows = [r for r in rows if r["p"] <= 16]
        what = ("n = 10000 at every count" if kind == "strong" else
                "n = 10000, 14142, 20000, 28284, 40000, 44721 at p = 1, 2, 4, 8, 16, 20 (n^2/p about constant)")
        head = [
            f"Power method for the largest eigenvalue of a dense n x n matrix (test case 3), rows distributed over the MPI ranks "
            f"(powermethod_rows.c: mat-vec + MPI_Allgather a step), 300 iterations; {what} - {A_WHO}; project_4, {sname} "
            f"(commit {scommit[:12]}): './powermethod_rows 3 <n> 300 -1e-6'",
            f"machine: {ICS}; {where}; processes = p of the data line; threads = 1",
            f"scaling: {kind}; time_s = the time column rank 0 writes ('### p, n, iter, theta, time ###'): walltime() "
            "(gettimeofday/clock_gettime) around the iteration loop (matrix generation excluded); one run a row",
            f"source: {A_SRC} (snapshot HEAD {A_SNAP}); raw file {path}",
            A_LIC,
        ]
        write(A_FOLDER, f"powermethod-{kind}-{place}-usi-ics.csv", head, rows)

# PETSc Poisson (CG), strong, one node
PT = "project_7_barletta_alessio/src/poisson/test_scale"
scommit, script = show(A, A_SNAP, f"{PT}/test.sh")
assert "#SBATCH --nodes=1 " in script and "SIZE=1024" in script and "for NUMP_PROC in 1 2 4 8 16" in script
assert "mpirun -np $NUMP_PROC ../poisson_petsc -ksp_type cg -nx $SIZE -ny $SIZE -log_view :performance_log_$NUMP_PROC.log" in script
rows = []
for p in (1, 2, 4, 8, 16):
    path = f"{PT}/performance_log_{p}.log"
    commit, text = show(A, A_SNAP, path)
    i_h, h = one(rf"^\.\./poisson_petsc on a\s+named (\S+) with {p} process(es)?, by ", text, path)
    i, m = one(r"^Time \(sec\):\s+(\S+)\s+(\S+)\s+(\S+)\s*$", text, path)
    rows.append(dict(nodes=1, p=p, t=m.group(1), threads=1, file=path, commit=commit,
                     note=f"line {i}: 'Time (sec): {m.group(1)} (max) {m.group(2)} (ratio) {m.group(3)} (avg)'; line {i_h}: "
                          f"host {h.group(1)} with {p} processes"))
head = [
    "PETSc 2-D Poisson solver (students' poisson_petsc: 5-point Laplacian on a 1024 x 1024 grid, KSP CG, default "
    f"preconditioner) - {A_WHO}; project_7, test_scale/test.sh (commit {scommit[:12]}): 'mpirun -np <p> ../poisson_petsc "
    "-ksp_type cg -nx 1024 -ny 1024 -log_view :performance_log_<p>.log'",
    f"machine: {ICS}; nodes = 1 ('--nodes=1 --ntasks=16'; the log names one host); processes = the count PETSc's log "
    "prints; threads = 1; PETSc from conda-forge (the log's configure lines)",
    "scaling: strong; time_s = the max over ranks of PETSc's -log_view 'Time (sec):' (wall time from PetscInitialize to "
    "PetscFinalize, so grid set-up and assembly included); one run a row",
    f"source: {A_SRC} (snapshot HEAD {A_SNAP}); raw files {PT}/performance_log_<p>.log",
    A_LIC,
]
write(A_FOLDER, "petsc-poisson-cg-1024-strong-onenode-usi-ics.csv", head, rows)

# ---------------------------------------------------------------- ye-luo/benchmarks
Y = "ye-luo+benchmarks"
Y_FOLDER = "ye-luo-benchmarks"
Y_SNAP = git(Y, "rev-parse", "HEAD").strip()
Y_D = "CsI_3264nmm.cif/27/CSCS"


def wall(s):
    """Seconds of a QE clock string: '1h23m', '12m34.56s', '12m 4.56s', '123.45s'."""
    m = re.fullmatch(r"(?:(\d+)h)?\s*(?:(\d+)m)?\s*(?:([\d.]+)s)?", s.strip())
    assert m and any(m.groups()), s
    h, mi, se = (float(g) if g else 0.0 for g in m.groups())
    return f"{3600 * h + 60 * mi + se:.2f}"


Y_RUNS = {
    "cpu": ("PizDaint-CPU", r"slurm-\d+_(\d+)_cpu_nodes\.out", 36, 1, "pw.x (QE 6.1, CrayIntel-2016.11 module), 36 MPI ranks a node, "
            "1 thread, -ndiag 36 -npool <nodes> (srun_script: 'srun -n <36*nodes> -c 1 --hint=nomultithread pw.x -i pw.in -ndiag 36 "
            "-npool <nodes>')", "Piz Daint multicore partition (CSCS; Cray XC40/XC50): per the folder's 'platform' file, two 18-core "
                                "Intel Broadwell (E5-2695 v4) @ 2.1 GHz a node"),
    "gpu": ("PizDaint-GPU", r"slurm-\d+_(\d+)_gpu_nodes_veff_with_qe\.out", 1, 10, "pw.sirius.x (QE 6.1 + SIRIUS 4.7 GPU "
            "library, '-sirius', veff computed by QE), 1 MPI rank a node, 10 OpenMP threads, -ndiag 1 -npool <nodes> (srun_script)",
            "Piz Daint GPU partition (CSCS; Cray XC50): per the folder's 'platform' file, one 12-core Intel Haswell @ 2.6 GHz + one "
            "NVIDIA P100 a node"),
}
for kind, (sub, pat, rpn, thr, how, hw) in Y_RUNS.items():
    d = f"{Y_D}/{sub}"
    rows = []
    for path in git(Y, "ls-tree", "--name-only", Y_SNAP, f"{d}/").split("\n"):
        m = re.fullmatch(rf"{re.escape(d)}/{pat}", path)
        if not m:
            continue
        nodes = int(m.group(1))
        commit, text = show(Y, Y_SNAP, path)
        _, np_ = one(r"^\s+Number of MPI processes:\s+(\d+)\s*$", text, path)
        _, th = one(r"^\s+Threads/MPI process:\s+(\d+)\s*$", text, path)
        _, pool = one(r"^\s+K-points division:\s+npool\s+=\s+(\d+)\s*$", text, path)
        assert int(np_.group(1)) == rpn * nodes and int(th.group(1)) == thr and int(pool.group(1)) == nodes, path
        one(r"^\s+Program PWSCF v\.6\.1 ", text, path)
        i, w = one(r"^\s+PWSCF\s+:\s+(.+?) CPU\s+(.+?) WALL\s*$", text, path)
        raw = w.group(2).strip()
        rows.append(dict(nodes=nodes, p=rpn * nodes, t=wall(raw), threads=thr, file=path, commit=commit,
                         note=f"line {i}: 'PWSCF : ... CPU {raw} WALL' = {wall(raw)} s; Number of MPI processes {rpn * nodes}; "
                              f"npool {nodes}"))
    rows.sort(key=lambda r: r["nodes"])
    assert [r["nodes"] for r in rows] == [4, 8, 16, 32, 64], (kind, [r["nodes"] for r in rows])
    head = [
        f"Quantum ESPRESSO PWSCF 6.1 SCF on the CsI_3264nmm.cif/27 input (CsI supercell, 432 electrons, 220 k-points per the "
        f"repository README; {Y_D}/../pw.in) - {how}; runs by A. Kozhevnikov (CSCS) collected in ye-luo/benchmarks",
        f"machine: {hw}; nodes = the number in the file name (slurm-<job>_<nodes>_..._nodes.out) = npool the run prints; "
        f"processes = 'Number of MPI processes' printed; threads = 'Threads/MPI process' printed",
        "scaling: strong (same input at every count; k-point pools = nodes); time_s = the PWSCF WALL clock QE prints at the end, "
        "converted to seconds by extract.py (raw string in each note; QE prints it as 'XhYm' past one hour, so those rows are to "
        "the minute); one run a row",
        f"source: https://github.com/ye-luo/benchmarks (snapshot HEAD {Y_SNAP}); raw files {d}/slurm-*.out",
        "licence: none stated (no LICENSE file in the repository)",
    ]
    write(Y_FOLDER, f"qe-pwscf-csi27-strong-pizdaint-{kind}.csv", head, rows)
