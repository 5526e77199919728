"""Build data/pairs-blind/*.csv from a mirror of converged-computing/performance-study.

Usage: python extract.py <git-dir of the mirror> <output folder>
Reads the snapshot commit only (git show / ls-tree / log); prints no timings, only counts.
"""
import csv
import io
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

G = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/converged-computing+performance-study/repo"
OUT = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parent
SNAP = "6f3df687c43df5c3a7b76a73e206481cbbd16457"
URL = "https://github.com/converged-computing/performance-study"


def git(*args, binary=False):
    r = subprocess.run(["git", f"--git-dir={G}", *args], capture_output=True)
    if r.returncode:
        return None
    return r.stdout if binary else r.stdout.decode("utf-8", "replace")


FILES = git("ls-tree", "-r", SNAP).splitlines()
BLOB = {ln.split("\t", 1)[1]: ln.split()[2] for ln in FILES}
PATHS = sorted(BLOB)


def show(path):
    return git("show", f"{SNAP}:{path}")


def last_commit(path):
    return git("log", "-1", "--format=%H", SNAP, "--", path).strip()


def jobspec(text):
    """Flux jobspec appended by the study's wrapper: nodes, slots per node, cores per slot,
    command, and the exit status of the job (None for a Slurm log)."""
    if "START OF JOBSPEC" not in text:
        return None
    js = text.split("START OF JOBSPEC", 1)[1].split("START OF EVENTLOG")[0].strip()
    j = json.loads(js)
    r = j["resources"][0]
    slot = r["with"][0]
    st = re.findall(r'"name":"complete","context":\{"status":(\d+)\}', text)
    return dict(nodes=r["count"], slots=slot["count"], cores=slot["with"][0]["count"],
                cmd=j["tasks"][0]["command"], status=int(st[-1]) if st else None)


# ---------------------------------------------------------------- environments
ENVS = {
    "aws-parallel-cluster": dict(
        exp="aws/parallel-cluster/cpu", slurm=True,
        machine="AWS hpc6a.48xlarge (ParallelCluster, Slurm, VMs)",
        network="AWS EFA (libfabric)"),
    "aws-eks": dict(
        exp="aws/eks/cpu", slurm=False,
        machine="AWS hpc6a.48xlarge (EKS Kubernetes + Flux Operator)",
        network="AWS EFA (libfabric) via EKS device plugin"),
    "azure-cyclecloud": dict(
        exp="azure/cyclecloud/cpu", slurm=True,
        machine="Azure Standard_HB120-96rs_v3 (CycleCloud, Slurm, VMs)",
        network="InfiniBand (UCX)"),
    "azure-aks": dict(
        exp="azure/aks/cpu", slurm=False,
        machine="Azure Standard_HB120-96rs_v3 (AKS Kubernetes + Flux Operator)",
        network="InfiniBand (UCX) in Kubernetes"),
    "google-compute-engine": dict(
        exp="google/compute-engine/cpu", slurm=False,
        machine="Google c2d-standard-112 (Compute Engine VMs, Flux)",
        network="Google VPC Ethernet/TCP (source names no HPC fabric for Compute Engine)"),
    "google-gke": dict(
        exp="google/gke/cpu", slurm=False,
        machine="Google c2d-standard-112 (GKE Kubernetes + Flux Operator)",
        network="Google VPC Ethernet/TCP in Kubernetes (GKE configs set gVNIC and TIER_1 networking)"),
}
SIZES = (32, 64, 128, 256)


def candidates(env, dirs, suffix=".out"):
    """Result files of env under results/<dir>/ for the listed dirs (size<N>[-suffix]/<dir>)."""
    out = []
    base = f"experiments/{ENVS[env]['exp']}/"
    for p in PATHS:
        if not p.startswith(base) or not p.endswith(suffix):
            continue
        m = re.match(re.escape(base) + r"(size(\d+)[^/]*)/results/([^/]+)/", p)
        if not m:
            continue
        sizedir, size, d = m.group(1), int(m.group(2)), m.group(3)
        if (sizedir, d) in dirs:
            out.append((p, size, sizedir))
    return out


def aks_note(sizedir):
    if sizedir in ("size32-placement", "size64-placement"):
        return "run with placement group (size%s-placement)" % sizedir[4:6]
    if sizedir in ("size32", "size64"):
        return "run without placement group"
    return None


# ---------------------------------------------------------------- paper CSVs
def paper(app, metric):
    text = show(f"paper/{app}/data/{app}-results.csv")
    vals = defaultdict(list)
    for r in csv.DictReader(io.StringIO(text)):
        if r["metric"] == metric and r["env_type"] == "cpu":
            vals[(r["experiment"], int(r["nodes"]))].append(float(r["value"]))
    return vals


def paper_note(vals, env, nodes, value, relpath):
    exp = ENVS[env]["exp"]
    pool = vals.get((exp, nodes), [])
    for i, v in enumerate(pool):
        if v == value:
            pool.pop(i)
            return "in paper CSV"
    for (e, n), pool in vals.items():
        if e == exp and value in pool:
            pool.remove(value)
            return f"in paper CSV, counted there under {n} nodes"
    return f"NOT in paper CSV ({relpath})"


# ---------------------------------------------------------------- parsers
def fnum(s):
    return float(s)


def parse_amg(text):
    t = re.search(r"PCG Solve:\s*\n\s*wall clock time = (\S+) seconds", text)
    fom = re.search(r"Figure of Merit \(FOM\): nnz_AP / \(Setup Phase Time \+ 3 \* Solve Phase Time\) (\S+)", text)
    if not t or not fom:
        return None, "no 'PCG Solve' wall clock time / FOM (run did not finish)"
    setup = re.search(r"PCG Setup:\s*\n\s*wall clock time = (\S+) seconds", text).group(1)
    it = re.search(r"Iterations = (\d+)", text).group(1)
    nxyz = re.search(r"\(Nx, Ny, Nz\) = \((.*?)\)", text).group(1)
    pxyz = re.search(r"\(Px, Py, Pz\) = \((.*?)\)", text).group(1)
    procs = 1
    for v in pxyz.split(","):
        procs *= int(v)
    note = (f"PCG Setup {setup} s; Iterations {it}; FOM {fom.group(1)}; "
            f"(Nx,Ny,Nz)=({nxyz.replace(' ', '')}); (Px,Py,Pz)=({pxyz.replace(' ', '')})")
    return dict(time=t.group(1), procs=procs, note=note, fom=fnum(fom.group(1))), None


def parse_minife(text):
    t = re.search(r"Total CG Time: (\S+)", text)
    if not t:
        return None, "no 'Total CG Time'"
    nx = int(re.search(r"nx: (\d+)", text).group(1))
    if nx != 230:
        return None, f"nx={nx}, not 230"
    procs = int(re.search(r"number of processors: (\d+)", text).group(1))
    th = re.search(r"OpenMP Max Threads:: (\d+)", text).group(1)
    mf = re.search(r"Total CG Mflops: (\S+)", text).group(1)
    it = re.search(r"Iterations: (\d+)", text).group(1)
    tp = re.search(r"Total Program Time: (\S+)", text).group(1)
    note = (f"CG Iterations {it}; Total CG Mflops {mf}; Total Program Time {tp}; "
            f"OpenMP Max Threads {th}")
    return dict(time=t.group(1), procs=procs, note=note, fom=fnum(mf), threads=int(th)), None


def parse_laghos(text):
    t = re.search(r"Major kernels total time \(seconds\): (\S+)", text)
    if not t:
        return None, "no 'Major kernels total time' (run did not finish)"
    rate = re.search(r"Major kernels total rate \(megadofs x time steps / second\): (\S+)", text).group(1)
    row = re.search(r"^\|\s+(\d+)\|\s+(\d+)\|", text, re.M)
    procs, zones = int(row.group(1)), int(row.group(2))
    zm = re.search(r"Zones min/max: (\d+) (\d+)", text).groups()
    h1 = re.search(r"CG \(H1\) total time: (\S+)", text).group(1)
    part = "METIS partitioning" if "Non-Cartesian partitioning through METIS" in text else "Cartesian partitioning"
    last = re.findall(r"^step\s+(\d+)", text, re.M)[-1]
    note = (f"Major kernels total rate {rate}; CG (H1) total time {h1}; zones {zones}, "
            f"zones min/max per rank {zm[0]}/{zm[1]} ({part}); last step printed {last}")
    return dict(time=t.group(1), procs=procs, note=note, fom=fnum(rate)), None


def parse_qs(text):
    m = re.search(r"^cycleTracking\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", text, re.M)
    fom = re.search(r"^Figure Of Merit\s+(\S+)", text, re.M)
    if not m or not fom:
        return None, "no timer table / Figure Of Merit (run did not finish)"
    mx = m.group(4)
    secs = Decimal(mx) / Decimal(10 ** 6)
    time = format(secs.normalize(), "f")
    main = re.search(r"^main\s+\d+\s+\S+\s+\S+\s+(\S+)", text, re.M).group(1)
    procs = int(re.search(r"Number of MPI ranks\s*: (\d+)", text).group(1))
    th = int(re.search(r"Number of OpenMP Threads: (\d+)", text).group(1))
    npart = re.search(r"nParticles: (\d+)", text).group(1)
    mesh = "x".join(re.search(rf"^\s+{k}: (\d+)", text, re.M).group(1) for k in ("nx", "ny", "nz"))
    note = (f"cycleTracking max {mx} microSecs (time_s = this / 1e6); cycleTracking avg {m.group(3)}; "
            f"main max {main} microSecs; FOM {fom.group(1)}; nParticles {npart}; mesh {mesh}; "
            f"OpenMP threads {th}")
    return dict(time=time, procs=procs, note=note, fom=fnum(fom.group(1)), threads=th), None


def parse_gemm(text):
    m = re.search(r"Performance= (\S+) GFlop/s, Time= (\S+) msec, Size= (\S+) Ops", text)
    if not m:
        return None, "no 'Performance= ... Time= ...' line (run did not finish)"
    if m.group(3) != "2000000000":
        return None, f"Size= {m.group(3)} Ops, not 2000000000"
    note = f"printed as 'Time= {m.group(2)} msec' (the value is seconds); Performance= {m.group(1)} GFlop/s (as printed)"
    return dict(time=m.group(2), procs=None, note=note, fom=fnum(m.group(1))), None


def parse_snap(text):
    m = re.search(r"Loop time of (\S+) on (\d+) procs for (\d+) steps with (\d+) atoms", text)
    if not m:
        return None, "no 'Loop time' line (run did not finish)"
    if m.group(3) != "20000" or m.group(4) != "128":
        return None, f"{m.group(3)} steps, {m.group(4)} atoms"
    perf = re.search(r"^Performance: .*?([\d.]+) timesteps/s", text, re.M).group(1)
    comm = re.search(r"^Comm\s+\|\s+\S+\s+\|\s+(\S+)\s+\|\s+\S+\s+\|\s+\S+\s+\|\s+(\S+)", text, re.M)
    note = f"{perf} timesteps/s; MPI Comm avg {comm.group(1)} s ({comm.group(2)} % of loop)"
    return dict(time=m.group(1), procs=int(m.group(2)), note=note, fom=None), None


# ---------------------------------------------------------------- app definitions
LIC = ('# licence: MIT (repository LICENSE: "MIT License, Copyright (c) 2022-2023 LLNS, LLC and other '
       'HPCIC DevTools Developers"; COPYRIGHT/NOTICE files: LLNL release). Keep this notice with the numbers.')

APPS = {}

# AMG2023 ------------------------------------------------------------------
amg_dirs = {
    "aws-eks": [(f"size{n}", "amg2023") for n in SIZES],
    "aws-parallel-cluster": [(f"size{n}", "amg2023") for n in SIZES],
    "azure-aks": [(f"size{n}", "amg2023") for n in SIZES] + [("size32-placement", "amg2023-placement"), ("size64-placement", "amg2023-placement")],
    "azure-cyclecloud": [(f"size{n}", "amg2023") for n in SIZES],
    "google-compute-engine": [(f"size{n}", "amg2023") for n in SIZES],
    "google-gke": [(f"size{n}", "amg2023") for n in SIZES],
}
APPS["amg2023"] = dict(
    title="AMG2023 (hypre, problem 2: 27-point Laplacian, PCG + AMG)",
    scaling="weak", parse=parse_amg, dirs=amg_dirs, paper=("amg2023", "fom_overall"),
    rpn={"google-compute-engine": 28, "google-gke": 28}, rpn_default=32,
    threads={"google-compute-engine": 2, "google-gke": 2}, threads_default=3,
    app_label=lambda th: f"AMG2023 (CPU, {th} OpenMP threads per rank)",
    input="amg -n 256 256 128 -problem 2 (per-rank box 256x256x128; -P grows with the rank count: weak scaling)",
    time_desc=('time_s = AMG2023 "PCG Solve: wall clock time = T seconds" (the AMG-PCG solve phase, as printed). '
               'note keeps the PCG Setup wall clock time, the iteration count, the printed overall FOM '
               '(nnz_AP / (Setup + 3*Solve)), and the global grid and process grid.'),
    extra=["# WEAK scaling: each MPI rank owns a 256x256x128 box, so the global problem grows with the rank count; "
           "the CG iteration count also changes with size (31-36).",
           "# The cloud environments used different ranks per node: AWS/Azure 32 ranks x 3 OpenMP threads; "
           "Google 28 ranks x 2 OpenMP threads (per the experiment READMEs), so the work per node differs between clouds."],
)

# MiniFE ---------------------------------------------------------------------
minife_dirs = {e: [(f"size{n}", "minife") for n in SIZES] for e in ENVS}
minife_dirs["azure-aks"] += [("size32-placement", "minife-placement"), ("size64-placement", "minife-placement")]
APPS["minife"] = dict(
    title="MiniFE 2.0 (implicit FE, CG solve)",
    scaling="strong", parse=parse_minife, dirs=minife_dirs, suffix=".yaml", paper=("minife", "total_cg_mflops"),
    rpn={"google-compute-engine": 56, "google-gke": 56}, rpn_default=96,
    app_label=lambda th: f"MiniFE (CPU, {th} OpenMP thread{'s' if th > 1 else ''} per rank as the YAML reports)",
    input="miniFE.x nx=230 ny=230 nz=230 use_locking=1 elem_group_size=10 use_elem_mat_fields=300 verify_solution=0: 12,326,391 rows, 200 CG iterations",
    time_desc=('time_s = MiniFE YAML report "CG solve: Total: Total CG Time: T" (the CG solve, 200 iterations), as printed. '
               'The raw file is the miniFE.230x230x230.P<ranks>.T<threads>.<date>.yaml that the run wrote. '
               'note keeps Total CG Mflops (the paper\'s FOM), Total Program Time and the OpenMP thread count.'),
    env_extra={
        "aws-parallel-cluster": ["# WARNING: OVERSUBSCRIBED. OMP_NUM_THREADS was not set in the Slurm scripts and the YAML reports 24 OpenMP threads per rank: "
                                 "96 ranks x 24 threads = 2304 threads on 96 cores per node. Same for azure-cyclecloud; the Flux runs (aws-eks, azure-aks, google-gke) report 1 thread."],
        "azure-cyclecloud": ["# WARNING: OVERSUBSCRIBED. OMP_NUM_THREADS was not set in the Slurm scripts and the YAML reports 24 OpenMP threads per rank: "
                             "96 ranks x 24 threads = 2304 threads on 96 cores per node. Same for aws-parallel-cluster; the Flux runs (aws-eks, azure-aks, google-gke) report 1 thread.",
                             "# The CycleCloud MiniFE scripts (experiment/configs/minife/slurm-minife-<N>n.sh) pass UCX_TLS=all."],
        "google-compute-engine": ["# The YAML reports 2 OpenMP threads per rank: 56 ranks x 2 threads = the 112 vCPUs (2 hyperthreads per core) of a c2d-standard-112 node. google-gke reports 1 thread."],
    },
    extra=["# Strong scaling: the same 230^3 mesh at every node count. The CG solve is short (well under a second with 1 thread per rank).",
           "# stdout (.out) has no timing: only the YAML files are used; runs without a YAML are absent."],
)

# Laghos ---------------------------------------------------------------------
laghos_dirs = {e: [(f"size{n}", "laghos") for n in SIZES] for e in ENVS}
laghos_dirs["google-compute-engine"] = [(f"size{n}", "laghos-single-thread") for n in SIZES]
APPS["laghos"] = dict(
    title="Laghos (MFEM Lagrangian hydro, Sedov problem 1, partial assembly)",
    scaling="strong", parse=parse_laghos, dirs=laghos_dirs, paper=("laghos", "total_rate"),
    rpn={"google-compute-engine": 56, "google-gke": 56}, rpn_default=96,
    app_label=lambda th: "Laghos (CPU, 1 thread per rank)",
    input="laghos -pa -p 1 -tf 0.6 -pt 311 -m cube_311_hex.mesh --ode-solver 7 --max-steps 400 --cg-tol 0 -cgm 50 -ok 3 -ot 2 -rs 4 -rp 2 --fom: 786432 zones",
    time_desc=('time_s = Laghos "Major kernels total time (seconds): T" (the summed time of the major kernels: '
               'CG (H1), CG (L2), Forces, UpdateQuadData, over the time steps), as printed. note keeps the '
               'printed "Major kernels total rate" (the FOM), CG (H1) time and the zones per rank.'),
    extra=["# Strong scaling: the same mesh (786,432 zones) and the same step sequence (last printed step 385, t_final 0.6 not reached: --max-steps 400) at every node count."],
)

# Quicksilver ----------------------------------------------------------------
qs_dirs = {e: [(f"size{n}", "quicksilver") for n in SIZES] for e in ENVS}
qs_dirs["azure-aks"] += [("size32-placement", "quicksilver-placement"), ("size64-placement", "quicksilver-placement")]
qs_dirs["google-gke"] = [(f"size{n}", "quicksilver-7-threads") for n in SIZES]
APPS["quicksilver"] = dict(
    title="Quicksilver (Monte Carlo particle transport, CORAL-2 Problem 1)",
    scaling="weak", parse=parse_qs, dirs=qs_dirs, paper=("quicksilver", "num_segments_over_cycle_tracking_time"),
    rpn={"google-compute-engine": 8, "google-gke": 8}, rpn_default=32,
    threads={"google-compute-engine": 7, "google-gke": 7}, threads_default=3,
    app_label=lambda th: f"Quicksilver (CPU, {th} OpenMP threads per rank)",
    input="qs Coral2_P1.inp, 100 cycles; per rank 1024 mesh cells (-x*-y*-z / (-I*-J*-K)) and 327680 particles (-n / ranks): weak scaling",
    time_s_derived=True,
    time_desc=('time_s = Quicksilver end-of-run timer table, row "cycleTracking", column "Cumulative microSecs max" '
               '(the tracking phase of the 100 cycles on the slowest rank; the FOM is segments / this time), '
               'converted from microseconds to seconds (exactly: the printed value / 1e6). The printed value is '
               'kept in note ("cycleTracking max <value> microSecs"), with the avg column, main max, the FOM, '
               'the particle count and the mesh.'),
    extra=["# WEAK scaling: -X/-x/-I.. and -n grow with the rank count so that every rank has 1024 cells and 327680 particles.",
           "# The environments used different ranks per node: AWS/Azure 32 ranks x 3 OpenMP threads; Google 8 ranks x 7 threads, "
           "so at one node count the Google problem is 4x smaller than the AWS/Azure one."],
)

# MT-GEMM --------------------------------------------------------------------
gemm_dirs = {e: [(f"size{n}", "mt-gemm") for n in SIZES] for e in ENVS}
gemm_dirs["azure-aks"] += [("size32-placement", "mt-gemm-placement"), ("size64-placement", "mt-gemm-placement")]
gemm_dirs["google-gke"] += [("size32", "mt-gemm-1k")]
APPS["mt-gemm"] = dict(
    title="MT-GEMM (PRACE CodeVault dense_linear_algebra gemm/mpi, 1_dense_gemm_mpi)",
    scaling="strong", parse=parse_gemm, dirs=gemm_dirs, paper=("mt-gemm", "performance_gflops_per_second"),
    rpn={"google-compute-engine": 56, "google-gke": 56}, rpn_default=96,
    app_label=lambda th: "MT-GEMM (CPU, 1 thread per rank)",
    input="1_dense_gemm_mpi built with size=1000 (\"-1k\" images): C += A*B, 1000x1000 float, 2e9 flop",
    time_desc=('time_s = the number printed as "Time= T msec" in "Performance= P GFlop/s, Time= T msec, Size= 2000000000 Ops". '
               'The source (docker/*/cpu/*/gemm_mpi.cpp) prints end-start of MPI_Wtime(), i.e. SECONDS, under the label msec '
               '(and its GFlop/s is 1000x too high). The timed region is: rank 0 fills A,B,C; MPI_Bcast of A, B and C (3 x 4 MB) '
               'to all ranks; each rank multiplies its size/nproc rows; MPI_Gather of size*size/nproc floats per rank; '
               'rank 0 multiplies the size % nproc leftover rows; MPI_Barrier. note keeps the printed GFlop/s.'),
    extra=["# Strong scaling in name only: the problem (1000x1000) is fixed, but every run here has more ranks (>=1792) than rows (1000), "
           "so size/nproc = 0: no rank gets a row and rank 0 multiplies the whole matrix serially (size % nproc = 1000 leftover rows), "
           "after broadcasting 12 MB to every rank and gathering about 4 MB (size*size/nproc floats from each rank). "
           "The time is one serial 1000^3 float matmul on rank 0 plus three broadcasts and one gather over all ranks.",
           "# The Azure source variant (docker/azure/cpu/mt-gemm) stops the timer after MPI_Finalize instead of after MPI_Barrier; "
           "which source each image was built from is not recorded beyond the image tag (aws-eks: mt-gemm:libfabric-cpu-zen4-1k, azure-aks: mt-gemm:azure-hpc-1k)."],
)

# LAMMPS SNAP ----------------------------------------------------------------
snap_dirs = {
    "aws-eks": [(f"size{n}", "lammps") for n in SIZES],
    "azure-aks": [(f"size{n}", "lammps-snap") for n in SIZES],
    "google-gke": [(f"size{n}", "lammps-snap") for n in SIZES],
}
APPS["lammps-snap"] = dict(
    title="LAMMPS SNAP (W, 2J8_W.SNAP, KOKKOS), 128 atoms",
    scaling="strong", parse=parse_snap, dirs=snap_dirs, paper=None,
    rpn={"google-gke": 56}, rpn_default=96,
    app_label=lambda th: "LAMMPS (SNAP, KOKKOS CPU, 1 thread per rank)",
    input="lmp -k on -sf kk -pk kokkos newton on neigh half -in in.snap.test -var snapdir 2J8_W.SNAP -v x 128 -v y 128 -v z 128 -var nsteps 20000: 128 atoms, 20000 steps",
    time_desc=('time_s = LAMMPS "Loop time of T on P procs for 20000 steps with 128 atoms", T as printed. '
               'note keeps the printed timesteps/s and the MPI Comm share of the loop from the timing breakdown.'),
    extra=["# Strong scaling of a TINY problem: in.snap.test creates 128 atoms whatever -v x/y/z say, so nearly every rank owns no atom "
           "(LAMMPS prints Nlocal max 1); the loop time is almost all communication and per-step overhead (20000 neighbour-list builds). "
           "Not analysed in the study's paper (no paper/lammps-snap)."],
)


# ---------------------------------------------------------------- build
def slurm_procs(env, app, nodes):
    """Process count of a Slurm run from its config script (mpirun --map-by ppr:K:node)."""
    name = {"mt-gemm": "mt-gemm/slurm-mt-gemm"}[app]
    cfg = show(f"experiments/{ENVS[env]['exp']}/experiment/configs/{name}-{nodes}n.sh")
    k = int(re.search(r"ppr:(\d+):node", cfg).group(1))
    return k * nodes, f"experiments/{ENVS[env]['exp']}/experiment/configs/{name}-{nodes}n.sh"


def build(app):
    spec = APPS[app]
    pv = paper(*spec["paper"]) if spec["paper"] else None
    report = dict(files={}, excluded=[])
    for env in ENVS:
        dirs = spec["dirs"].get(env)
        if not dirs:
            continue
        rpn = spec["rpn"].get(env, spec["rpn_default"])
        rows, seen = [], {}
        for path, size, sizedir in candidates(env, dirs, spec.get("suffix", ".out")):
            text = show(path)
            if text is None:
                report["excluded"].append((env, path, "blob absent from the mirror (not readable)"))
                continue
            if BLOB[path] in seen:
                report["excluded"].append((env, path, f"identical blob to {seen[BLOB[path]]} (listed once)"))
                continue
            seen[BLOB[path]] = path
            res, why = spec["parse"](text)
            js = jobspec(text)
            if res is None:
                st = f"; flux exit status {js['status']}" if js else ""
                report["excluded"].append((env, path, why + st))
                continue
            nodes = js["nodes"] if js else size
            notes = []
            procs = res["procs"]
            if js:
                if procs is None:
                    procs = js["nodes"] * js["slots"]
                if js["status"] not in (0, None):
                    notes.append(f"flux exit status {js['status']}")
            elif procs is None:
                procs, cfg = slurm_procs(env, app, nodes)
                notes.append(f"processes from {cfg.rsplit('/', 1)[1]}")
            if procs != rpn * nodes:
                report["excluded"].append((env, path, f"{procs} ranks on {nodes} nodes = {procs / nodes:g} per node, not {rpn} like the rest of the file"))
                continue
            th = spec.get("threads", {}).get(env, spec.get("threads_default", 1))
            if "threads" in res:
                th = res["threads"]
            if nodes != size:
                notes.append(f"{nodes}-node run stored under {sizedir}/ (jobspec: {nodes} nodes)")
            if js and app == "amg2023" and env == "google-gke" and js["cores"] == 1:
                notes.append("jobspec 1 core per task (run without --cores-per-task 2)")
            if "ucxall" in path:
                notes.append("UCX_TLS=all run (file name -ucxall)")
            if env == "azure-aks" and aks_note(sizedir):
                notes.append(aks_note(sizedir))
            if pv is not None:
                notes.insert(0, paper_note(pv, env, nodes, res["fom"], f"paper/{spec['paper'][0]}/data/{spec['paper'][0]}-results.csv"))
            rows.append(dict(nodes=nodes, processes=procs, time_s=res["time"], ranks_per_node=rpn,
                             machine=ENVS[env]["machine"], network=ENVS[env]["network"],
                             app=spec["app_label"](th), input=spec["input"], file=path,
                             commit=last_commit(path), note="; ".join([res["note"]] + notes), _th=th))
        counts = sorted({r["nodes"] for r in rows})
        if len(counts) < 2:
            if rows:
                report["excluded"].append((env, f"{app}: all {len(rows)} parsed runs", f"only node count(s) {counts}: fewer than 2"))
            continue
        ths = {r["_th"] for r in rows}
        assert len(ths) == 1, (app, env, ths)
        rows.sort(key=lambda r: (r["nodes"], r["file"]))
        write(app, env, spec, rows, rpn, ths.pop())
        report["files"][env] = (counts, len(rows), Counter(r["nodes"] for r in rows))
    return report


COLS = ["nodes", "processes", "time_s", "ranks_per_node", "machine", "network", "app", "input", "file", "commit", "note"]


def write(app, env, spec, rows, rpn, th):
    e = ENVS[env]
    dirs = sorted({d for _, d in spec["dirs"][env]})
    head = [
        f"# {spec['title']} {spec['scaling']} scaling on {e['machine']}; network {e['network']}; "
        f"{rpn} MPI ranks per node, {th} thread{'s' if th > 1 else ''} per rank.",
        f"# scaling: {spec['scaling']}",
        f"# source: {URL} (snapshot HEAD {SNAP}); raw outputs experiments/{e['exp']}/size<N>*/results/{{{','.join(dirs)}}}/ ; commit per row = last commit touching the file.",
        "# " + spec["time_desc"],
        *spec["extra"],
        *spec.get("env_extra", {}).get(env, []),
        f"# Node counts here: {', '.join(str(n) for n in sorted({r['nodes'] for r in rows}))}. All parsed runs kept, one row each; "
        "runs without the timing line are left out (see README.md)."
        + (f" note says whether the run's printed FOM is in the study's paper CSV (paper/{spec['paper'][0]}/data/{spec['paper'][0]}-results.csv, matched by value)." if spec["paper"] else ""),
        LIC,
    ]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    (OUT / f"{app}-{env}.csv").write_text("\n".join(head) + "\n" + buf.getvalue())


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    summary = {}
    for app in APPS:
        summary[app] = build(app)
    for a, r in summary.items():
        for e, (c, n, k) in r["files"].items():
            print(f"{a}-{e}.csv", "node counts", c, "rows", n, "runs per count", dict(sorted(k.items())))
    print("left out:")
    for a, r in summary.items():
        for e, p, why in r["excluded"]:
            print(f"  {a} | {e} | {p} | {why}")
